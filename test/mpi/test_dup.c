/* MPI test: duplicates of an analyzed communicator (MPI_Comm_dup,
 * MPI_Comm_dup_with_info, MPI_Comm_idup) keep nhood's analysis.  On each
 * copy: the query says isomorphic, blocking and nonblocking alltoall and
 * allgather match the point-to-point reference, operations on the original
 * and a copy may be outstanding together, and a copy outlives the
 * original (freed first).  Preloaded with graphs analyzed at creation
 * (NHOOD_WARMUP=0), the copies must run nhood's algorithm
 * (nhood_algorithm_for); run-mpi-tests.sh checks the report's
 * dup_of= lines.  Last, handles freed and handed out again (reused_handles).
 * Prints "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../ops.h"
#include "nhood.h"

static int rank, p, outdeg, indeg;
static const int M = 24; /* bytes per block */

static tc_algo_for_fn algo_for;

static void op_init(tc_op *o, int alltoall, MPI_Comm g, int seed)
{
    tc_op_init(o, alltoall, g, M, seed, algo_for);
}

static void op_check(tc_op *o, const char *what)
{
    CHECK(tc_op_right(o), "%s %s differs from the reference", what,
          o->alltoall ? "alltoall" : "allgather");
    tc_op_fini(o);
}

static void blocking(MPI_Comm g, const char *what, int seed)
{
    for (int a = 0; a < 2; a++) {
        tc_op o;
        op_init(&o, a, g, seed + a);
        (a ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather)(o.sbuf, M, MPI_BYTE, o.rbuf, M,
                                                             MPI_BYTE, g);
        op_check(&o, what);
    }
}

/* One nonblocking operation on each of two communicators, outstanding
 * together, completed by one MPI_Waitall. */
static void both(MPI_Comm g1, MPI_Comm g2, int seed)
{
    tc_op o1, o2;
    MPI_Request req[2];
    MPI_Status st[2]; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    op_init(&o1, 1, g1, seed);
    op_init(&o2, 0, g2, seed + 1);
    MPI_Ineighbor_alltoall(o1.sbuf, M, MPI_BYTE, o1.rbuf, M, MPI_BYTE, g1, &req[0]);
    MPI_Ineighbor_allgather(o2.sbuf, M, MPI_BYTE, o2.rbuf, M, MPI_BYTE, g2, &req[1]);
    MPI_Waitall(2, req, st);
    op_check(&o1, "outstanding together (first)");
    op_check(&o2, "outstanding together (second)");
}

static void analyzed(MPI_Comm g, const char *what)
{
    int (*query)(MPI_Comm, nhood_comm_info *) =
        (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    const char *warmup = getenv("NHOOD_WARMUP"); /* (else analyzed at a later call) */
    if (!query || !algo_for || getenv("NHOOD_DISABLE") || getenv("NHOOD_EXCLUDE") || !warmup ||
        strcmp(warmup, "0") != 0)
        return;
    nhood_comm_info info;
    char name[32] = "";
    CHECK(query(g, &info) == MPI_SUCCESS && info.isomorphic, "%s: not analyzed as isomorphic",
          what);
    algo_for(g, "alltoall", M, name, sizeof(name));
    CHECK(strcmp(name, "pmpi") != 0 || getenv("NHOOD_ALGO"), "%s: alltoall goes to MPI", what);
}

/* nhood remembers a thread's last answers about communicators
 * (util/memo.h), also that one has no plan: a handle freed and made
 * again must get the answer of the communicator it names now.  The MPI
 * libraries hand a freed handle out again (the case counts how often,
 * over the ranks); a graph on a handle remembered without a plan whose
 * calls went to MPI would be wrong on MPICH 4 (repeated neighbors at 2
 * ranks). */
static void reused_handles(int (*query)(MPI_Comm, nhood_comm_info *), int s, const int *off,
                           const int *dims, const int *periods)
{
    int reused = 0;
    for (int k = 0; k < 8; k++) {
        MPI_Comm c, g;
        nhood_comm_info info;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        CHECK(query(c, &info) == MPI_ERR_COMM, "round %d: a copy of MPI_COMM_WORLD has a plan", k);
        MPI_Comm was = c;
        MPI_Comm_free(&c);
        tc_graph(MPI_COMM_WORLD, 3, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
        reused += g == was;
        CHECK(query(g, &info) == MPI_SUCCESS, "round %d: a graph on a handle %s has no plan", k,
              g == was ? "remembered without one" : "new");
        blocking(g, "a graph on a freed handle", 20 + k);
        was = g;
        MPI_Comm_free(&g);
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        reused += c == was;
        CHECK(query(c, &info) == MPI_ERR_COMM,
              "round %d: a copy of MPI_COMM_WORLD on %s has a plan", k,
              c == was ? "a freed graph's handle" : "a new handle");
        MPI_Comm_free(&c);
    }
    /* (Open MPI 5.0.7 at 8 ranks hands none out again on some ranks; the
     * sum on a copy: a collective on MPI_COMM_WORLD, the graphs' parent,
     * may make the parent's private communicator, which lives on) */
    int all = 0;
    MPI_Comm sum;
    MPI_Comm_dup(MPI_COMM_WORLD, &sum);
    MPI_Allreduce(&reused, &all, 1, MPI_INT, MPI_SUM, sum);
    MPI_Comm_free(&sum);
    CHECK(all > 0, "no rank was handed a handle out again: the case tested nothing");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    algo_for = (tc_algo_for_fn)dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    int (*counts)(nhood_resources *) =
        (int (*)(nhood_resources *))dlsym(RTLD_DEFAULT, "nhood_resource_counts");
    nhood_resources before = {0}, after = {0};
    if (counts)
        counts(&before);
    int *off, s = tc_offsets("moore", 3, 1, &off), dims[TC_MAXD] = {0},
              periods[TC_MAXD] = {1, 1, 1, 1, 1};
    MPI_Dims_create(p, 3, dims);
    MPI_Comm g, d1, d2, d3, d4;
    MPI_Request r;
    MPI_Info info;
    tc_graph(MPI_COMM_WORLD, 3, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    blocking(g, "original", 1);
    MPI_Comm_dup(g, &d1);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_dup_with_info(g, info, &d2);
    MPI_Info_free(&info);
    MPI_Comm_idup(g, &d3, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_dup(d1, &d4); /* a copy of a copy */
    analyzed(d1, "MPI_Comm_dup");
    analyzed(d2, "MPI_Comm_dup_with_info");
    analyzed(d3, "MPI_Comm_idup");
    analyzed(d4, "dup of a dup");
    blocking(d1, "MPI_Comm_dup", 2);
    blocking(d2, "MPI_Comm_dup_with_info", 3);
    blocking(d3, "MPI_Comm_idup", 4);
    blocking(d4, "dup of a dup", 5);
    both(g, d1, 6);
    both(d3, d4, 7);
    MPI_Comm_free(&g); /* the copies outlive the original */
    MPI_Comm_free(&d1);
    blocking(d2, "MPI_Comm_dup_with_info after the original was freed", 8);
    both(d4, d3, 9);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d3);
    MPI_Comm_free(&d4);
    int (*query)(MPI_Comm, nhood_comm_info *) =
        (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    if (query && !getenv("NHOOD_DISABLE") && !getenv("NHOOD_EXCLUDE")) /* (nhood on) */
        reused_handles(query, s, off, dims, periods);
    /* Every plan and private communicator is gone: copies release the
     * original's analysis, and nhood's own duplicates carry no plan. */
    if (counts) {
        counts(&after);
        CHECK(after.comms == before.comms && after.plans == before.plans,
              "nhood's live objects: comms %ld -> %ld, plans %ld -> %ld", before.comms, after.comms,
              before.plans, after.plans);
    }
    free(off);
    return check_finish_mpi();
}
