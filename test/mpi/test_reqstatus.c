/* MPI test: the newer completion queries on nhood's requests (MPI 4.1's
 * MPI_Request_get_status_all, _any and _some; MPICH's
 * MPIX_Request_is_complete), each where the MPI library has it.  On the
 * 3-D Moore torus of MPI_COMM_WORLD an MPI_Ineighbor_alltoall (whose
 * forced schedule forwards: run-mpi-tests.sh sets NHOOD_ALGO) sits in one
 * array with an MPI_Irecv/MPI_Isend pair to the next rank.  Each query is
 * called until it says the operation is complete; at that point its
 * results must already be in the receive buffer (the query may not say so
 * earlier), the handles must be the program's still (nothing freed or
 * deactivated), and a completion call then completes them (a
 * collective's status says nothing defined: not checked).  Without nhood
 * answering for its requests, MPI sees an inactive request of nhood's
 * and says "complete" at once, before the data is there.  Prints
 * "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../ops.h"

enum { M = 40 }; /* bytes per block */
static int rank, p;
static tc_algo_for_fn algo_for;

#if defined(HAVE_MPI_REQUEST_GET_STATUS_ALL) || defined(HAVE_MPIX_REQUEST_IS_COMPLETE)
/* The array: [0] the collective, [1] the receive, [2] the send. */
typedef struct {
    tc_op o;
    MPI_Request req[3];
    int in, out;
} trio;

static void trio_start(trio *t, MPI_Comm g, int seed)
{
    tc_op_init(&t->o, 1, g, M, seed, algo_for);
    t->out = rank * 7 + seed;
    t->in = -1;
    MPI_Ineighbor_alltoall(t->o.sbuf, M, MPI_BYTE, t->o.rbuf, M, MPI_BYTE, g, &t->req[0]);
    MPI_Irecv(&t->in, 1, MPI_INT, (rank + p - 1) % p, seed, MPI_COMM_WORLD, &t->req[1]);
    MPI_Isend(&t->out, 1, MPI_INT, (rank + 1) % p, seed, MPI_COMM_WORLD, &t->req[2]);
}

/* The collective said complete: its data is there, its handle kept. */
static void collective_done(trio *t, MPI_Request before, const char *what)
{
    CHECK(tc_op_right(&t->o), "%s: said complete before the data was there", what);
    CHECK(t->req[0] == before && t->req[0] != MPI_REQUEST_NULL, "%s: the request was freed",
          what);
}

static void trio_finish(trio *t, const char *what)
{
    MPI_Status st[3];
    MPI_Waitall(3, t->req, st);
    CHECK(t->req[0] == MPI_REQUEST_NULL, "%s: MPI_Waitall left the collective's request", what);
    CHECK(tc_op_right(&t->o), "%s: wrong result", what);
    CHECK(t->in == ((rank + p - 1) % p) * 7 + (int)st[1].MPI_TAG, "%s: the point-to-point", what);
    tc_op_fini(&t->o);
}
#endif

#ifdef HAVE_MPI_REQUEST_GET_STATUS_ALL
static void status_all(MPI_Comm g)
{
    trio t;
    int flag = 0;
    MPI_Status st[3];
    trio_start(&t, g, 1);
    MPI_Request before = t.req[0];
    while (!flag)
        MPI_Request_get_status_all(3, t.req, &flag, st);
    collective_done(&t, before, "MPI_Request_get_status_all");
    trio_finish(&t, "MPI_Request_get_status_all");
}

static void status_any(MPI_Comm g)
{
    trio t;
    int flag, idx, seen = 0;
    MPI_Status st;
    trio_start(&t, g, 2);
    MPI_Request before = t.req[0];
    /* until the collective is the one it names (the others stay active:
     * it may name them again and again) */
    while (!seen) {
        flag = 0;
        idx = -1;
        MPI_Request_get_status_any(1, t.req, &idx, &flag, &st);
        seen = flag;
    }
    CHECK(idx == 0, "MPI_Request_get_status_any: index %d of 1", idx);
    collective_done(&t, before, "MPI_Request_get_status_any");
    trio_finish(&t, "MPI_Request_get_status_any");
}

static void status_some(MPI_Comm g)
{
    trio t;
    int out = 0, idx[3], seen = 0;
    MPI_Status st[3];
    trio_start(&t, g, 3);
    MPI_Request before = t.req[0];
    while (!seen && out != MPI_UNDEFINED) {
        MPI_Request_get_status_some(3, t.req, &out, idx, st);
        for (int k = 0; out != MPI_UNDEFINED && k < out; k++)
            if (idx[k] == 0) {
                seen = 1;
                collective_done(&t, before, "MPI_Request_get_status_some");
            }
    }
    CHECK(seen, "MPI_Request_get_status_some: no active request");
    trio_finish(&t, "MPI_Request_get_status_some");
}
#endif

#ifdef HAVE_MPIX_REQUEST_IS_COMPLETE
/* It makes no progress: MPI_Iprobe does, between looks (MPI's progress
 * engine, and nhood's progress backend within it). */
static void is_complete(MPI_Comm g)
{
    trio t;
    int flag = 0;
    trio_start(&t, g, 4);
    MPI_Request before = t.req[0];
    while (!MPIX_Request_is_complete(t.req[0]))
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    collective_done(&t, before, "MPIX_Request_is_complete");
    trio_finish(&t, "MPIX_Request_is_complete");
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    algo_for = (tc_algo_for_fn)dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    int *off, s = tc_offsets("moore", 3, 1, &off), dims[TC_MAXD] = {0},
              periods[TC_MAXD] = {1, 1, 1, 1, 1}, outdeg, indeg;
    MPI_Dims_create(p, 3, dims);
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, 3, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    int tested = 0;
#ifdef HAVE_MPI_REQUEST_GET_STATUS_ALL
    status_all(g);
    status_any(g);
    status_some(g);
    tested += 3;
#endif
#ifdef HAVE_MPIX_REQUEST_IS_COMPLETE
    is_complete(g);
    tested++;
#endif
    MPI_Comm_free(&g);
    free(off);
    if (!tested) {
        if (rank == 0)
            fprintf(stderr, "test_reqstatus: the MPI library has none of these calls: skipped\n");
        MPI_Finalize();
        return 77;
    }
    return check_finish_mpi();
}
