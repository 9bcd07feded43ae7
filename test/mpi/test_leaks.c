/* MPI test, run preloaded: nhood must not leak MPI objects.  N cycles
 * (default 10,000) of: create an isomorphic distributed graph (nhood
 * analyzes it, duplicates it, caches a plan), run blocking, nonblocking
 * and persistent neighborhood collectives on it with a predefined and a
 * derived datatype and with MPI_BOTTOM buffers, an in-place MPI_Alltoall
 * on a duplicate of MPI_COMM_WORLD (nhood caches an in-place context),
 * then free everything.  nhood_resource_counts() must come back to its
 * starting values (communicators, datatypes, requests, plans) and must
 * have moved meanwhile (the counters are live).  Under MPICH a leaked
 * communicator would also exhaust MPI's context ids long before 10,000.
 * Usage: test_leaks [cycles].  Prints "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nhood.h"

static int (*counts_fn)(nhood_resources *);

static nhood_resources counts(void)
{
    nhood_resources r = {0, 0, 0, 0};
    if (counts_fn)
        counts_fn(&r);
    return r;
}

static int same(nhood_resources a, nhood_resources b)
{
    return a.comms == b.comms && a.datatypes == b.datatypes && a.requests == b.requests &&
           a.plans == b.plans;
}

/* One cycle; peak collects the largest counts seen while objects live. */
static void cycle(int d, const int *dims, const int *periods, int s, const int *off, int i,
                  nhood_resources *peak)
{
    MPI_Comm g, dup;
    int outdeg, indeg, p;
    tc_graph(MPI_COMM_WORLD, d, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    int *sbuf = malloc(sizeof(int) * 2 * ((size_t)outdeg + 1));
    int *rbuf = malloc(sizeof(int) * 2 * ((size_t)indeg + 1));
    for (int k = 0; k < 2 * outdeg; k++)
        sbuf[k] = i + k;
    /* Predefined type (binding cached in the plan), derived type (bound
     * per call), both forms of each operation. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, g);
    MPI_Neighbor_allgather(sbuf, 1, pair, rbuf, 1, pair, g);
    MPI_Request req;
    MPI_Ineighbor_alltoall(sbuf, 1, pair, rbuf, 1, pair, g, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (i % 4 == 0) {
        MPI_Neighbor_allgather_init(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, g, MPI_INFO_NULL, &req);
        for (int k = 0; k < 2; k++) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&req);
    }
#endif
    if (i % 8 == 0) { /* MPI_BOTTOM: nhood packs through a temporary type */
        MPI_Aint sa, ra;
        MPI_Datatype st, rt;
        int two = 2;
        MPI_Get_address(sbuf, &sa);
        MPI_Get_address(rbuf, &ra);
        MPI_Type_create_hindexed(1, &two, &sa, MPI_INT, &st);
        MPI_Type_create_hindexed(1, &two, &ra, MPI_INT, &rt);
        MPI_Type_commit(&st);
        MPI_Type_commit(&rt);
        MPI_Neighbor_alltoall(MPI_BOTTOM, 1, st, MPI_BOTTOM, 1, rt, g);
        MPI_Neighbor_allgather(MPI_BOTTOM, 1, st, MPI_BOTTOM, 1, rt, g);
        MPI_Type_free(&st);
        MPI_Type_free(&rt);
    }
    nhood_resources mid = counts();
    peak->comms = mid.comms > peak->comms ? mid.comms : peak->comms;
    peak->datatypes = mid.datatypes > peak->datatypes ? mid.datatypes : peak->datatypes;
    peak->plans = mid.plans > peak->plans ? mid.plans : peak->plans;
    MPI_Type_free(&pair);
    MPI_Comm_free(&g);

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_size(dup, &p);
    int *a = malloc(sizeof(int) * (size_t)p);
    for (int k = 0; k < p; k++)
        a[k] = k;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, 1, MPI_INT, dup);
    mid = counts();
    peak->comms = mid.comms > peak->comms ? mid.comms : peak->comms;
    MPI_Comm_free(&dup);
    free(a);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    int rank, p, n = argc > 1 ? atoi(argv[1]) : 10000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    counts_fn = (int (*)(nhood_resources *))dlsym(RTLD_DEFAULT, "nhood_resource_counts");
    CHECK(counts_fn != NULL, "nhood_resource_counts not found (is libnhood preloaded?)");

    /* 2-D Moore neighborhood on MPI_Dims_create's grid: nhood infers it. */
    int dims[2] = {0, 0}, periods[2] = {1, 1}, *off;
    MPI_Dims_create(p, 2, dims);
    int s = tc_offsets("moore", 2, 1, &off);

    nhood_resources base = counts(), peak = base, now = base;
    /* one communicator lives from the start: nhood's private duplicate of
     * MPI_COMM_WORLD for graph creation's agreement, up to 8 ranks */
    CHECK(base.comms == (p <= 8), "%ld communicators live at the start on %d ranks", base.comms, p);
    for (int i = 0; i < n; i++) {
        cycle(2, dims, periods, s, off, i, &peak);
        if ((i + 1) % 1000 == 0 || i + 1 == n) {
            now = counts();
            CHECK(same(now, base),
                  "after %d cycles: comms %ld datatypes %ld requests %ld plans %ld, started at "
                  "%ld %ld %ld %ld",
                  i + 1, now.comms, now.datatypes, now.requests, now.plans, base.comms,
                  base.datatypes, base.requests, base.plans);
        }
    }
    /* The counters saw the objects: a graph's plan and private duplicate,
     * and (zcopy binding) its cached struct datatypes. */
    CHECK(peak.plans > base.plans && peak.comms > base.comms,
          "counters never moved: peak comms %ld plans %ld", peak.comms, peak.plans);
    if (getenv("NH_TEST_EXPECT_TYPES"))
        CHECK(peak.datatypes > base.datatypes, "no datatype was ever counted");
    if (rank == 0)
        fprintf(stderr,
                "test_leaks: %d cycles on %d ranks; live at start %ld/%ld/%ld/%ld, at end "
                "%ld/%ld/%ld/%ld, peak %ld/%ld/-/%ld (comms/datatypes/requests/plans)\n",
                n, p, base.comms, base.datatypes, base.requests, base.plans, now.comms,
                now.datatypes, now.requests, now.plans, peak.comms, peak.datatypes, peak.plans);
    free(off);
    return check_finish_mpi();
}
