/* MPI test, run preloaded: auto prices the compute window of nonblocking
 * calls.  The window (start to completion call) is measured on every
 * rank and agreed at graph creation, so each graph here is priced with
 * the windows of the calls made before it was created:
 *   g0  nothing measured yet: a single-phase schedule (window unknown);
 *       its calls are waited at once (a window of a few microseconds).
 *       Irregular: its store-and-forward set-up is asked to wait for a
 *       first blocking call (checked: no form runs it before), made first
 *       on a duplicate, whose schedules g0 takes only at its own
 *   g1  priced with that short window: the forwarding schedule a blocking
 *       call gets (where something forwards for nonblocking calls); its
 *       calls compute for COMPUTE_MS between start and wait
 *   g2  priced with that long window: single-phase again, while blocking
 *       calls on it still forward
 * Every exchange is checked against the point-to-point reference.
 *
 * Usage: test_window torus|irregular fwd|poll|nofwd
 *   torus: MPI_Ineighbor_alltoall on a 3-D Moore torus; irregular:
 *   MPI_Ineighbor_alltoallv on a random graph (store-and-forward).  The
 *   runs make forwarding worth it in blocking calls with NHOOD_COST_*.
 *   fwd: a progress backend forwards for nonblocking calls (Open MPI's
 *   hook); poll: NHOOD_PROGRESS=poll, under which an unknown window is
 *   priced as none (g0 forwards too); nofwd: nothing forwards for them
 *   (MPICH without forcing), and g1 stays single-phase too. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"
#include "../common.h"
#include "../nbhd.h"
#include "../randgraph.h"
#include "../reference.h"

#define M 3          /* ints per block */
#define CALLS 12     /* exchanges per graph */
#define COMPUTE_MS 4 /* g1's window */

static int rank, p, irregular;
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);

/* first: g0, whose store-and-forward set-up is asked to wait for its
 * first blocking call (info nhood_stfw_setup=call). */
static MPI_Comm make_graph(int *outdeg, int *indeg, int first)
{
    MPI_Comm g;
    if (irregular) {
        MPI_Info info = MPI_INFO_NULL;
        if (first) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "nhood_stfw_setup", "call");
        }
        random_graph(0, 7, rank, p, info, &g, outdeg, indeg);
        if (first)
            MPI_Info_free(&info);
    } else {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, *off;
        MPI_Dims_create(p, 3, dims);
        int s = tc_offsets("moore", 3, 1, &off);
        tc_graph(MPI_COMM_WORLD, 3, dims, periods, s, off, MPI_INFO_NULL, 0, &g, outdeg, indeg);
        free(off);
    }
    return g;
}

/* Computes for ms milliseconds without calling MPI. */
static void compute(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000.0 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

/* n nonblocking exchanges on g with ms of computation in each (blocking:
 * MPI_Neighbor_alltoallv instead, irregular graphs). */
static void exchanges(MPI_Comm g, int outdeg, int indeg, int ms, const char *what, int n,
                      int blocking)
{
    int *s = malloc(((size_t)outdeg * M + 1) * sizeof(int));
    int *r = malloc(((size_t)indeg * M + 1) * sizeof(int));
    int *ref = malloc(((size_t)indeg * M + 1) * sizeof(int));
    int *sc = malloc(((size_t)outdeg + 1) * sizeof(int)),
        *sd = malloc(((size_t)outdeg + 1) * sizeof(int));
    int *rc = malloc(((size_t)indeg + 1) * sizeof(int)),
        *rd = malloc(((size_t)indeg + 1) * sizeof(int));
    for (int k = 0; k < outdeg; k++) {
        sc[k] = M;
        sd[k] = k * M;
    }
    for (int k = 0; k < indeg; k++) {
        rc[k] = M;
        rd[k] = k * M;
    }
    for (int c = 0; c < n; c++) {
        for (int i = 0; i < outdeg * M; i++)
            s[i] = rank * 100000 + c * 1000 + i;
        memset(r, 0xA5, ((size_t)indeg * M + 1) * sizeof(int));
        memset(ref, 0xA5, ((size_t)indeg * M + 1) * sizeof(int));
        reference(1, g, s, M, MPI_INT, ref, M, MPI_INT);
        MPI_Request req = MPI_REQUEST_NULL;
        if (blocking)
            MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, g);
        else if (irregular)
            MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, g, &req);
        else
            MPI_Ineighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, g, &req);
        if (ms)
            compute(ms);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(memcmp(r, ref, (size_t)indeg * M * sizeof(int)) == 0,
              "%s: call %d: result differs from the reference", what, c);
    }
    free(s);
    free(r);
    free(ref);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

static int forwards(const char *name)
{
    return strcmp(name, "direct") != 0 && strncmp(name, "pmpi", 4) != 0; /* (pmpi/pack: MPI's) */
}

/* What auto runs on g for the nonblocking and the blocking form. */
static void expect(MPI_Comm g, const char *what, int nb_forwards)
{
    char nb[32] = "?", bl[32] = "?";
    const char *op = irregular ? "alltoallv" : "alltoall";
    char iop[16];
    snprintf(iop, sizeof(iop), "i%s", op);
    algo_for(g, iop, M * (int)sizeof(int), nb, sizeof(nb));
    algo_for(g, op, M * (int)sizeof(int), bl, sizeof(bl));
    CHECK(forwards(bl), "%s: blocking %s runs %s: the test needs a forwarding schedule there", what,
          op, bl);
    CHECK(forwards(nb) == nb_forwards, "%s: %s runs %s, expected %s", what, iop, nb,
          nb_forwards ? "a forwarding schedule" : "direct or pmpi");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    if (argc < 3 || (strcmp(argv[1], "torus") && strcmp(argv[1], "irregular")) ||
        (strcmp(argv[2], "fwd") && strcmp(argv[2], "poll") && strcmp(argv[2], "nofwd"))) {
        if (rank == 0)
            fprintf(stderr, "usage: test_window torus|irregular fwd|poll|nofwd\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    irregular = strcmp(argv[1], "irregular") == 0;
    int poll = strcmp(argv[2], "poll") == 0, fwd = poll || strcmp(argv[2], "fwd") == 0;
    algo_for = (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                        "nhood_algorithm_for");
    if (!algo_for) {
        CHECK(0, "nhood is not preloaded");
        return check_finish_mpi();
    }
    int outdeg, indeg;
    MPI_Comm g0 = make_graph(&outdeg, &indeg, 1);
    if (irregular) {
        /* g0's store-and-forward set-up waits for its first blocking
         * call (nhood_stfw_setup=call): until then no form runs it;
         * then the blocking one does. */
        char nb[32] = "?", bl[32] = "?";
        algo_for(g0, "ialltoallv", M * (int)sizeof(int), nb, sizeof(nb));
        CHECK(!forwards(nb), "g0 before a blocking call: ialltoallv runs %s, expected pmpi", nb);
        /* A duplicate's first blocking call sets up the schedules both
         * share; the original takes them at its own first blocking call,
         * not before (its calls are ordered with its own collectives). */
        MPI_Comm gd;
        MPI_Comm_dup(g0, &gd);
        exchanges(gd, outdeg, indeg, 0, "g0's duplicate, blocking", 1, 1);
        algo_for(gd, "alltoallv", M * (int)sizeof(int), bl, sizeof(bl));
        CHECK(forwards(bl), "g0's duplicate after its blocking call: alltoallv runs %s", bl);
        algo_for(g0, "ialltoallv", M * (int)sizeof(int), nb, sizeof(nb));
        CHECK(!forwards(nb), "g0 after its duplicate's blocking call: ialltoallv runs %s", nb);
        exchanges(g0, outdeg, indeg, 0, "g0, blocking", 1, 1);
        exchanges(gd, outdeg, indeg, 0, "g0's duplicate, blocking", 1, 1);
        MPI_Comm_free(&gd);
    }
    expect(g0, "g0 (window unknown)", poll);
    exchanges(g0, outdeg, indeg, 0, "g0", CALLS, 0);
    MPI_Comm g1 = make_graph(&outdeg, &indeg, 0);
    expect(g1, "g1 (short window)", fwd);
    exchanges(g1, outdeg, indeg, COMPUTE_MS, "g1", CALLS, 0);
    MPI_Comm g2 = make_graph(&outdeg, &indeg, 0);
    expect(g2, "g2 (long window)", 0);
    exchanges(g2, outdeg, indeg, COMPUTE_MS, "g2", CALLS, 0);
    MPI_Comm_free(&g0);
    MPI_Comm_free(&g1);
    MPI_Comm_free(&g2);
    return check_finish_mpi();
}
