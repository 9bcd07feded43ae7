/* nhood-create: what graph creation costs, MPI's own
 * (PMPI_Dist_graph_create_adjacent) against the intercepted call
 * (MPI_Dist_graph_create_adjacent: nhood's analysis when preloaded),
 * alternating in one run on the same lists, each communicator freed
 * before the next.  --use-once adds one MPI_Ineighbor_alltoallv + MPI_Wait
 * of 8-byte blocks on every communicator (PMPI_ on the native side) before
 * it is freed: a graph created, used once and freed, as DOLFINx's set-up
 * makes them.  --step: used once, freed, then the parent's next blocking
 * collective (an MPI_Barrier on MPI_COMM_WORLD, PMPI_ on the native side)
 * inside the timed part, where nhood keeps its records of the parent's
 * graphs (api/parents.c): a step of a program that rebuilds its graph
 * every step; the use_once column says "step".  The time of a repetition
 * is the maximum over ranks of create (+ use) + free (+ the collective);
 * medians over the repetitions (beyond Tukey's fences, test/bench/stats.h).
 * CSV on stdout: graph,procs,use_once,native_us,nhood_us,ratio
 * --first native|nhood: only the process's first creation (and free) of
 * the first graph named, on that side, nothing before it but MPI_Init and
 * a barrier: what a program's first graph costs, MPI's first-time work
 * included.  One line, first,GRAPH,PROCS,SIDE,US; scripts/run-create-bench.sh
 * alternates the two sides' processes and takes medians.
 *
 * Graphs: hub (every rank to rank 0 and its ring neighbors, rank 0 to
 * every rank), random (each rank to 3 others, seeded alike on every rank),
 * moore (3-D Moore r=1 on a periodic grid), mesh (the same, no periods). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#include "../common.h"

static int rank, p;

#define WARMUP 20 /* untimed repetitions per side and graph */

/* Does rank a send to rank b in graph kind? */
static int edge(const char *kind, int a, int b)
{
    if (a == b)
        return 0;
    if (strcmp(kind, "hub") == 0)
        return a == 0 || b == 0 || b == (a + 1) % p || a == (b + 1) % p;
    /* random: a fixed pseudo-random choice per pair */
    unsigned h = (unsigned)(a * 2654435761u) ^ (unsigned)(b * 40503u + 17u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return p <= 4 ? h % 3 == 0 : h % (unsigned)p < 3u;
}

static void lists(const char *kind, int **src, int *ni, int **dst, int *no)
{
    *src = malloc(sizeof(int) * (size_t)(p + 1));
    *dst = malloc(sizeof(int) * (size_t)(p + 1));
    *ni = *no = 0;
    for (int q = 0; q < p; q++) {
        if (edge(kind, q, rank))
            (*src)[(*ni)++] = q;
        if (edge(kind, rank, q))
            (*dst)[(*no)++] = q;
    }
}

/* One repetition on one side (use: 0 created and freed, 1 used once, 2
 * a step, --step); returns the time in microseconds. */
static double once(int native, int use, int ni, const int *src, int no, const int *dst)
{
    MPI_Comm g;
    double sb[64] = {0}, rb[64];
    int sc[64], sd[64], rc[64], rd[64];
    for (int k = 0; k < 64; k++) {
        sc[k] = rc[k] = 1;
        sd[k] = rd[k] = k;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    (native ? PMPI_Dist_graph_create_adjacent : MPI_Dist_graph_create_adjacent)(
        MPI_COMM_WORLD, ni, src, MPI_UNWEIGHTED, no, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    if (use && ni <= 64 && no <= 64) {
        MPI_Request r;
        (native ? PMPI_Ineighbor_alltoallv : MPI_Ineighbor_alltoallv)(sb, sc, sd, MPI_DOUBLE, rb,
                                                                      rc, rd, MPI_DOUBLE, g, &r);
        (native ? PMPI_Wait : MPI_Wait)(&r, MPI_STATUS_IGNORE);
    }
    (native ? PMPI_Comm_free : MPI_Comm_free)(&g);
    if (use == 2)
        (native ? PMPI_Barrier : MPI_Barrier)(MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) * 1e6, mx;
    PMPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return mx;
}

int main(int argc, char **argv)
{
    const char *kinds = "hub,random,moore,mesh", *first = NULL;
    int reps = 20, use = 0, header = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--use-once") == 0)
            use = use ? use : 1;
        else if (strcmp(argv[i], "--step") == 0)
            use = 2;
        else if (strcmp(argv[i], "--no-header") == 0)
            header = 0;
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--graphs") == 0 && i + 1 < argc)
            kinds = argv[++i];
        else if (strcmp(argv[i], "--first") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "native") == 0 || strcmp(argv[i + 1], "nhood") == 0))
            first = argv[++i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: nhood-create [--graphs hub,random,moore,mesh] [--reps N] "
                                "[--use-once | --step] [--no-header] [--first native|nhood]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;
    if (rank == 0 && header && !first)
        printf("graph,procs,use_once,native_us,nhood_us,ratio\n");
    char list[256];
    snprintf(list, sizeof(list), "%s", kinds);
    char *save = NULL;
    for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        int *src, *dst, ni, no;
        if (strcmp(k, "moore") == 0 || strcmp(k, "mesh") == 0) {
            int *off, s = tc_offsets("moore", 3, 1, &off), dims[TC_MAXD] = {0},
                      periods[TC_MAXD] = {0}, coords[TC_MAXD], x = rank;
            MPI_Dims_create(p, 3, dims);
            for (int j = 0; j < 3; j++)
                periods[j] = k[1] == 'o';
            for (int j = 2; j >= 0; j--) {
                coords[j] = x % dims[j];
                x /= dims[j];
            }
            src = malloc(sizeof(int) * (size_t)(s + 1));
            dst = malloc(sizeof(int) * (size_t)(s + 1));
            ni = no = 0;
            for (int t = 0; t < s; t++) {
                int q = tc_shift(3, dims, periods, coords, off + 3 * t, +1);
                if (q != MPI_PROC_NULL)
                    dst[no++] = q;
                q = tc_shift(3, dims, periods, coords, off + 3 * t, -1);
                if (q != MPI_PROC_NULL)
                    src[ni++] = q;
            }
            free(off);
        } else if (strcmp(k, "hub") == 0 || strcmp(k, "random") == 0) {
            lists(k, &src, &ni, &dst, &no);
        } else {
            if (rank == 0)
                fprintf(stderr, "nhood-create: unknown graph %s\n", k);
            continue;
        }
        if (first) {
            double t = once(strcmp(first, "native") == 0, use, ni, src, no, dst);
            if (rank == 0)
                printf("first,%s,%d,%s,%.1f\n", k, p, first, t);
            free(src);
            free(dst);
            break;
        }
        double *tn = malloc(sizeof(double) * (size_t)reps),
               *tm = malloc(sizeof(double) * (size_t)reps);
        /* warm-up, both sides in turn: a process's first few dozen
         * creations cost both sides more (MPICH 4.0.2, 2 ranks, random
         * graphs used once: 4.6 and 6.7 us over the first 20 of each, 2.6
         * and 2.9 over the next 20); the first of all is --first's */
        for (int w = 0; w < WARMUP; w++) {
            once(1, use, ni, src, no, dst);
            once(0, use, ni, src, no, dst);
        }
        for (int r = 0; r < reps; r++) {
            tn[r] = once(1, use, ni, src, no, dst);
            tm[r] = once(0, use, ni, src, no, dst);
        }
        double mn = robust_median(tn, reps), mm = robust_median(tm, reps);
        if (rank == 0)
            printf("%s,%d,%s,%.1f,%.1f,%.3f\n", k, p, use == 2 ? "step" : use ? "1" : "0", mn,
                   mm, mn > 0 ? mm / mn : 0);
        fflush(stdout);
        free(tn);
        free(tm);
        free(src);
        free(dst);
    }
    MPI_Finalize();
    return 0;
}
