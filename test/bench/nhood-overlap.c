/* nhood-overlap: a halo exchange with alternating load imbalance, the
 * benchmark of NHOOD_OVERLAP (docs/overlap.md).
 *
 * Each iteration: one rank (iteration mod procs) computes S us before the
 * exchange; every rank then exchanges halos with its 2-D Moore neighbors
 * (3x3, periodic), computes I us of interior work that does not touch the
 * halo, and then reads the whole halo.  Three variants, alternating in
 * every round of one run:
 *   native_blocking     PMPI_Neighbor_alltoall, then the interior work
 *   native_nonblocking  PMPI_Ineighbor_alltoall, the interior work, PMPI_Wait
 *                       (what a programmer would write by hand)
 *   nhood_blocking      MPI_Neighbor_alltoall, through nhood under the
 *                       NHOOD_OVERLAP mode in force (defer: returns at once
 *                       and completes at the first read of the halo)
 * Prints one CSV row per variant: the median over rounds of the time per
 * iteration, its ratio to native_blocking, and how many halo bytes
 * differed from the truth (the standard's point-to-point equivalent for
 * nhood; MPI's own exchange for the native variants, since MPICH 4.0.2
 * orders duplicate edges differently).  Exits 1 if nhood's halo was ever
 * wrong.
 *
 * --mprotect: what page protection itself costs here (the price of every
 * watched or deferred call): rank 0 takes access away from 4 pages and
 * gives it back 2000 times, touching them after each, while the other
 * ranks wait in MPI_Barrier (MPICH polls: the other cores stay busy). */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common.h"
#include "../reference.h"
#include "stats.h"

enum { NATIVE_BLOCKING, NATIVE_NONBLOCKING, NHOOD_BLOCKING, NVARIANTS };
static const char *const names[NVARIANTS] = {"native_blocking", "native_nonblocking",
                                             "nhood_blocking"};

static void spin_us(double us)
{
    struct timespec t0, t;
    if (us <= 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) * 1e6 + (double)(t.tv_nsec - t0.tv_nsec) * 1e-3 < us);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct halo {
    MPI_Comm g;
    int rank, procs, indeg, outdeg, m;
    unsigned char *sbuf[NVARIANTS], *rbuf[NVARIANTS];
    unsigned char *from[NVARIANTS]; /* block j's label: (source rank * 16 + block index) mod 256 */
} halo;

/* Block i of iteration k holds (label + k) mod 256 in every byte. */
static void fill(const halo *h, unsigned char *sbuf, int k)
{
    for (int i = 0; i < h->outdeg; i++)
        memset(sbuf + (size_t)i * h->m, (h->rank * 16 + i + k) & 0xff, (size_t)h->m);
}

/* Where each received block comes from, by a labelled exchange: the
 * reference (nhood's truth) and MPI's own (the native variants'). */
static void labels(halo *h)
{
    unsigned char *s = malloc((size_t)h->outdeg + 1), *r = malloc((size_t)h->indeg + 1);
    for (int i = 0; i < h->outdeg; i++)
        s[i] = (unsigned char)((h->rank * 16 + i) & 0xff);
    reference(1, h->g, s, 1, MPI_BYTE, r, 1, MPI_BYTE);
    memcpy(h->from[NHOOD_BLOCKING], r, (size_t)h->indeg);
    PMPI_Neighbor_alltoall(s, 1, MPI_BYTE, r, 1, MPI_BYTE, h->g);
    memcpy(h->from[NATIVE_BLOCKING], r, (size_t)h->indeg);
    memcpy(h->from[NATIVE_NONBLOCKING], r, (size_t)h->indeg);
    free(s);
    free(r);
}

/* Reads the whole halo; returns the bytes that differ from the truth. */
static long consume(const halo *h, int v, int k)
{
    long bad = 0;
    const unsigned char *r = h->rbuf[v];
    for (int j = 0; j < h->indeg; j++) {
        unsigned char want = (unsigned char)((h->from[v][j] + k) & 0xff);
        for (int b = 0; b < h->m; b++)
            bad += r[(size_t)j * h->m + (size_t)b] != want;
    }
    return bad;
}

static long iterate(const halo *h, int v, int iters, double skew, double interior)
{
    long bad = 0;
    for (int k = 0; k < iters; k++) {
        if (k % h->procs == h->rank)
            spin_us(skew);
        fill(h, h->sbuf[v], k);
        if (v == NATIVE_NONBLOCKING) {
            MPI_Request req;
            PMPI_Ineighbor_alltoall(h->sbuf[v], h->m, MPI_BYTE, h->rbuf[v], h->m, MPI_BYTE, h->g,
                                    &req);
            spin_us(interior);
            PMPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            if (v == NATIVE_BLOCKING)
                PMPI_Neighbor_alltoall(h->sbuf[v], h->m, MPI_BYTE, h->rbuf[v], h->m, MPI_BYTE,
                                       h->g);
            else
                MPI_Neighbor_alltoall(h->sbuf[v], h->m, MPI_BYTE, h->rbuf[v], h->m, MPI_BYTE, h->g);
            spin_us(interior);
        }
        bad += consume(h, v, k);
    }
    return bad;
}

/* --mprotect: one CSV row, rank 0's mean costs. */
static void protect_cost(int rank)
{
    if (rank == 0) {
        enum { N = 2000, PAGES = 4 };
        long pg = sysconf(_SC_PAGESIZE);
        char *buf = malloc((size_t)(PAGES + 2) * (size_t)pg);
        char *p = (char *)(((size_t)buf + (size_t)pg - 1) & ~((size_t)pg - 1));
        double down = 0, up = 0, touch = 0;
        memset(buf, 1, (size_t)(PAGES + 2) * (size_t)pg);
        for (int i = 0; i < N; i++) {
            double t0 = now();
            mprotect(p, (size_t)PAGES * (size_t)pg, PROT_NONE);
            double t1 = now();
            mprotect(p, (size_t)PAGES * (size_t)pg, PROT_READ | PROT_WRITE);
            double t2 = now();
            for (int k = 0; k < PAGES; k++)
                ((volatile char *)p)[k * pg]++;
            double t3 = now();
            down += t1 - t0, up += t2 - t1, touch += t3 - t2;
        }
        printf("what,downgrade_us,upgrade_us,touch_us\nmprotect,%.2f,%.2f,%.2f\n", down * 1e6 / N,
               up * 1e6 / N, touch * 1e6 / N);
        fflush(stdout);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void usage(void)
{
    fprintf(stderr, "usage: nhood-overlap [--bytes B] [--skew S] [--interior I] [--iters N]\n"
                    "                     [--rounds R] [--no-header] | --mprotect\n"
                    "  B bytes per block (2048), S and I in us (1000 each), N iterations per\n"
                    "  round (40), R rounds of the three variants (9)\n");
}

int main(int argc, char **argv)
{
    halo h = {.m = 2048};
    double skew = 1000, interior = 1000;
    int iters = 40, rounds = 9, header = 1;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            header = 0;
            continue;
        }
        if (strcmp(a, "--mprotect") == 0) {
            int r;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
            protect_cost(r);
            MPI_Finalize();
            return 0;
        }
        if (!v) {
            usage();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        i++;
        if (strcmp(a, "--bytes") == 0)
            h.m = atoi(v);
        else if (strcmp(a, "--skew") == 0)
            skew = atof(v);
        else if (strcmp(a, "--interior") == 0)
            interior = atof(v);
        else if (strcmp(a, "--iters") == 0)
            iters = atoi(v);
        else if (strcmp(a, "--rounds") == 0)
            rounds = atoi(v);
        else {
            usage();
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (h.m < 1 || iters < 1 || rounds < 1 || skew < 0 || interior < 0) {
        usage();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1}, *off;
    MPI_Comm_rank(MPI_COMM_WORLD, &h.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &h.procs);
    MPI_Dims_create(h.procs, 2, dims);
    int s = tc_offsets("moore", 2, 1, &off);
    tc_graph(MPI_COMM_WORLD, 2, dims, periods, s, off, MPI_INFO_NULL, 0, &h.g, &h.outdeg,
             &h.indeg);
    free(off);
    for (int v = 0; v < NVARIANTS; v++) { /* heap buffers of their own per variant */
        h.sbuf[v] = malloc((size_t)h.outdeg * h.m + 1);
        h.rbuf[v] = malloc((size_t)h.indeg * h.m + 1);
        h.from[v] = malloc((size_t)h.indeg + 1);
    }
    labels(&h);
    double *t[NVARIANTS];
    long bad[NVARIANTS] = {0, 0, 0};
    for (int v = 0; v < NVARIANTS; v++)
        t[v] = malloc(sizeof(double) * (size_t)rounds);
    for (int v = 0; v < NVARIANTS; v++) /* warm-up */
        bad[v] += iterate(&h, v, 2, 0, 0);
    for (int r = 0; r < rounds; r++)
        for (int v = 0; v < NVARIANTS; v++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            bad[v] += iterate(&h, v, iters, skew, interior);
            MPI_Barrier(MPI_COMM_WORLD);
            t[v][r] = (now() - t0) * 1e6 / iters;
        }
    long all_bad[NVARIANTS];
    MPI_Reduce(bad, all_bad, NVARIANTS, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    const char *mode = getenv("NHOOD_OVERLAP");
    if (h.rank == 0) {
        double med[NVARIANTS];
        for (int v = 0; v < NVARIANTS; v++)
            med[v] = robust_median(t[v], rounds);
        if (header)
            printf("variant,mode,procs,bytes,skew_us,interior_us,iter_us,ratio,wrong_bytes\n");
        for (int v = 0; v < NVARIANTS; v++)
            printf("%s,%s,%d,%d,%.0f,%.0f,%.2f,%.3f,%ld\n", names[v],
                   v == NHOOD_BLOCKING && mode ? mode : "-", h.procs, h.m, skew, interior, med[v],
                   med[v] / med[NATIVE_BLOCKING], all_bad[v]);
        fflush(stdout);
    }
    for (int v = 0; v < NVARIANTS; v++) {
        free(h.sbuf[v]);
        free(h.rbuf[v]);
        free(h.from[v]);
        free(t[v]);
    }
    MPI_Comm_free(&h.g);
    MPI_Finalize();
    return h.rank == 0 && all_bad[NHOOD_BLOCKING] ? 1 : 0;
}
