/* nhood-stencil: the stencil halo exchange of section 2 of the
 * isomorphic-collectives interface paper, as an example and a benchmark.
 *
 * Each process owns an n^d block of doubles with a halo of depth k on a
 * periodic d-dimensional process grid (d = 2 or 3).  Neighbors: all 3^d - 1
 * offsets in {-1,0,1}^d.  The 5-point (7-point in 3-D) stencil, "vonneumann",
 * needs the halo points within L1 distance k of the block: slabs on the
 * faces, triangles at the corners in 2-D (Type_create_triangular), and
 * in 3-D triangular prisms on the edges and tetrahedra at the corners;
 * the 9-point (27-point) stencil, "moore", needs the full k-deep boxes.
 * Every block is described by a derived datatype in place (zero copy),
 * different per neighbor: the exchange is one neighborhood all-to-all of
 * the w kind, written twice:
 *
 *   - MPI_Neighbor_alltoallw on a graph made with
 *     MPI_Dist_graph_create_adjacent from the offsets;
 *   - Iso_neighbor_alltoallw on the communicator Iso_neighborhood_create
 *     makes from the Cartesian one and the same offsets.
 *
 * Benchmark: native = PMPI_Neighbor_alltoallw on the first graph, nhood =
 * MPI_Neighbor_alltoallw on it (nhood's when preloaded or linked) and
 * Iso_neighbor_alltoallw, alternating call by call in one run, each
 * round in another order (series_at, stats.h); barrier before each call,
 * time of a call = maximum over ranks, Tukey's fences, median (as
 * nhood-bench).  Every variant's halo is checked once against the global
 * field before timing.  CSV on stdout:
 *   op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio
 * op = stencil, radius = halo depth k, bytes = doubles sent per process per
 * exchange x 8, algorithm = alltoallw or iso_alltoallw (the nhood side).
 *
 * --forced also times the graph made again with each of nhood's algorithms
 * forced (info key nhood_algorithm) in the same alternation, and adds
 * best_fixed,best_fixed_us,fixed_ratio: the fastest of MPI's own and the
 * forced choices, and nhood's time over it.
 *
 * Usage: nhood-stencil [--dims 2|3|2,3] [--n N] [--halo K,...]
 *                      [--nbhd vonneumann|moore|both] [--reps R] [--forced] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "../libmpi.h"
#include "stats.h"

#define MAXD 3

typedef struct field {
    int d, n, k, N; /* N = n + 2k: the side with halo */
    size_t elems;
    double *a;
} field;

static int rank, procs;

static size_t at(const field *f, const int *x)
{
    size_t i = 0;
    for (int j = 0; j < f->d; j++)
        i = i * (size_t)f->N + (size_t)x[j];
    return i;
}

/* The value of global point g (periodic): identical wherever it is stored. */
static double gval(const int *g, int d)
{
    double v = 0;
    for (int j = 0; j < d; j++)
        v = v * 4099.0 + g[j];
    return v + 0.25;
}

/* Is the halo point with distances t (0 on dims where c_j = 0) needed? */
static int needed(int d, const int *c, const int *t, int k, int moore)
{
    int sum = 0;
    for (int j = 0; j < d; j++)
        if (c[j])
            sum += t[j];
    return moore || sum <= k;
}

/* Local coordinate in dimension j of the point with index t along that
 * dimension (distance for c != 0, interior index for c == 0), on the send
 * side (my interior, next to the neighbor at +c) or the receive side (my
 * halo, on the side of the source at -c). */
static int coord(const field *f, int c, int t, int recv)
{
    int n = f->n, k = f->k;
    if (c == 0)
        return k + t;
    if (!recv)
        return c < 0 ? k + t - 1 : n + k - t;
    return c < 0 ? n + k + t - 1 : k - t;
}

/* The block for offset c as an indexed datatype over the field (element
 * order: distances in row-major order of (t_0, ..., t_{d-1}), identical on
 * both ends), contiguous runs merged.  *count = number of doubles. */
static MPI_Datatype region(const field *f, const int *c, int moore, int recv, int *count)
{
    int d = f->d, lim[MAXD], t[MAXD] = {0};
    size_t total = 1;
    for (int j = 0; j < d; j++) {
        lim[j] = c[j] ? f->k : f->n;
        total *= (size_t)lim[j];
    }
    int *len = malloc(sizeof(int) * (total + 1)), *disp = malloc(sizeof(int) * (total + 1));
    int nb = 0, n = 0;
    for (size_t q = 0; q < total; q++) {
        size_t y = q;
        for (int j = d - 1; j >= 0; j--) {
            t[j] = (int)(y % (size_t)lim[j]) + (c[j] ? 1 : 0);
            y /= (size_t)lim[j];
        }
        if (!needed(d, c, t, f->k, moore))
            continue;
        int x[MAXD];
        for (int j = 0; j < d; j++)
            x[j] = coord(f, c[j], t[j], recv);
        int i = (int)at(f, x);
        if (nb > 0 && disp[nb - 1] + len[nb - 1] == i)
            len[nb - 1]++;
        else {
            disp[nb] = i;
            len[nb++] = 1;
        }
        n++;
    }
    MPI_Datatype ty;
    MPI_Type_indexed(nb, len, disp, MPI_DOUBLE, &ty);
    MPI_Type_commit(&ty);
    free(len);
    free(disp);
    *count = n;
    return ty;
}

/* 2-D 5-point corners with Type_create_triangular (the paper's
 * constructor): rows of k-1, k-2, ..., 1 points next to the corner.  The
 * row order and the order within a row follow the addresses, the same on
 * both ends (both walk away from the corner, or both towards it). */
static MPI_Datatype corner2d(const field *f, const int *c, int recv, MPI_Aint *base)
{
    int n = f->n, k = f->k, N = f->N;
    int row = !recv ? (c[0] < 0 ? k : n + k - 1) : (c[0] < 0 ? n + k : k - 1);
    int col = !recv ? (c[1] < 0 ? k : n + 1) : (c[1] < 0 ? n + k : 1);
    MPI_Datatype ty;
    Type_create_triangular(k - 1, k - 1, -1, c[0] < 0 ? N : -N, c[1] < 0 ? 0 : 1, MPI_DOUBLE, &ty);
    *base = (MPI_Aint)sizeof(double) * ((MPI_Aint)row * N + col);
    return ty;
}

typedef struct exch {
    int s;
    int *off;
    int *scount, *rcount;
    MPI_Aint *sdisp, *rdisp;
    MPI_Datatype *stype, *rtype;
    long sent; /* doubles sent per exchange */
} exch;

static void exch_build(exch *e, const field *f, int moore)
{
    int d = f->d, s = 0, total = 1;
    for (int j = 0; j < d; j++)
        total *= 3;
    e->off = malloc(sizeof(int) * (size_t)total * d);
    for (int q = 0; q < total; q++) {
        int y = q, zero = 1, c[MAXD];
        for (int j = d - 1; j >= 0; j--) {
            c[j] = y % 3 - 1;
            y /= 3;
            zero &= c[j] == 0;
        }
        if (!zero)
            memcpy(e->off + (size_t)s++ * d, c, sizeof(int) * d);
    }
    e->s = s;
    e->scount = malloc(sizeof(int) * s);
    e->rcount = malloc(sizeof(int) * s);
    e->sdisp = malloc(sizeof(MPI_Aint) * s);
    e->rdisp = malloc(sizeof(MPI_Aint) * s);
    e->stype = malloc(sizeof(MPI_Datatype) * s);
    e->rtype = malloc(sizeof(MPI_Datatype) * s);
    e->sent = 0;
    for (int i = 0; i < s; i++) {
        const int *c = e->off + (size_t)i * d;
        int nz = 0, n1, n2;
        for (int j = 0; j < d; j++)
            nz += c[j] != 0;
        if (d == 2 && nz == 2 && !moore) {
            e->stype[i] = corner2d(f, c, 0, &e->sdisp[i]);
            e->rtype[i] = corner2d(f, c, 1, &e->rdisp[i]);
            n1 = f->k * (f->k - 1) / 2;
        } else {
            e->stype[i] = region(f, c, moore, 0, &n1);
            e->rtype[i] = region(f, c, moore, 1, &n2);
            e->sdisp[i] = e->rdisp[i] = 0;
        }
        /* empty corners (k = 1, 5-point) are blocks of count 0 */
        e->scount[i] = e->rcount[i] = n1 > 0;
        e->sent += n1;
    }
}

static void exch_free(exch *e)
{
    for (int i = 0; i < e->s; i++) {
        MPI_Type_free(&e->stype[i]);
        MPI_Type_free(&e->rtype[i]);
    }
    free(e->off);
    free(e->scount);
    free(e->rcount);
    free(e->sdisp);
    free(e->rdisp);
    free(e->stype);
    free(e->rtype);
}

/* Interior from the global field, halo poisoned. */
static void field_fill(field *f, const int *pc)
{
    int x[MAXD] = {0}, g[MAXD];
    for (size_t q = 0; q < f->elems; q++) {
        size_t y = q;
        int interior = 1;
        for (int j = f->d - 1; j >= 0; j--) {
            x[j] = (int)(y % (size_t)f->N);
            y /= (size_t)f->N;
            interior &= x[j] >= f->k && x[j] < f->k + f->n;
        }
        for (int j = 0; j < f->d; j++)
            g[j] = pc[j] * f->n + x[j] - f->k;
        f->a[q] = interior ? gval(g, f->d) : -1.0;
    }
}

/* Every needed halo point holds the global value (periodic), every other
 * halo point stays poisoned.  Returns the number of wrong points. */
static long field_check(const field *f, const int *pc, const int *pdims, int moore)
{
    long bad = 0;
    int x[MAXD], g[MAXD], t[MAXD], c[MAXD];
    for (size_t q = 0; q < f->elems; q++) {
        size_t y = q;
        int interior = 1;
        for (int j = f->d - 1; j >= 0; j--) {
            x[j] = (int)(y % (size_t)f->N);
            y /= (size_t)f->N;
            interior &= x[j] >= f->k && x[j] < f->k + f->n;
        }
        if (interior)
            continue;
        for (int j = 0; j < f->d; j++) {
            c[j] = x[j] < f->k ? -1 : x[j] >= f->k + f->n ? 1 : 0;
            t[j] = c[j] < 0 ? f->k - x[j] : c[j] > 0 ? x[j] - f->k - f->n + 1 : 0;
            int side = pdims[j] * f->n;
            g[j] = ((pc[j] * f->n + x[j] - f->k) % side + side) % side;
        }
        double want = needed(f->d, c, t, f->k, moore) ? gval(g, f->d) : -1.0;
        bad += f->a[q] != want;
    }
    return bad;
}

static void parse_ints(const char *s, int *v, int *n)
{
    *n = 0;
    for (const char *p = s; *p && *n < 16;) {
        v[(*n)++] = atoi(p);
        while (*p && *p != ',')
            p++;
        if (*p == ',')
            p++;
    }
}

/* MPI_Dist_graph_create_adjacent, unweighted.  Kept out of interprocedural
 * analysis (noipa): otherwise GCC reads Open
 * MPI's MPI_UNWEIGHTED (a zero-length array) as a weights array too short
 * for the degree (-Wstringop-overread). */
__attribute__((noipa)) static int graph_create(MPI_Comm comm, int s, const int *src, const int *dst,
                                               const int *weights, MPI_Info info, MPI_Comm *graph)
{
    return MPI_Dist_graph_create_adjacent(comm, s, src, weights, s, dst, weights, info, 0, graph);
}

/* --forced: the same graph made again with each algorithm forced (info
 * key nhood_algorithm), timed in the same alternation. */
static const char *const forced_algos[] = {"direct", "torus", "torus_direct", "bruck"};
#define NFORCED 4
static int forced;

static void forced_graph(MPI_Comm comm, int s, const int *src, const int *dst, const char *algo,
                         MPI_Comm *graph)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "nhood_algorithm", algo);
    graph_create(comm, s, src, dst, MPI_UNWEIGHTED, info, graph);
    MPI_Info_free(&info);
}

/* Variant v's exchange: 0 MPI's own on the graph, 1 MPI_Neighbor_alltoallw
 * on it (nhood's), 2 Iso_neighbor_alltoallw, 3.. a forced graph. */
static void exchange(int v, field *f, const exch *e, MPI_Comm graph, MPI_Comm iso,
                     const MPI_Comm *fg)
{
    if (v == 0)
        PMPI_Neighbor_alltoallw(f->a, e->scount, e->sdisp, e->stype, f->a, e->rcount, e->rdisp,
                                e->rtype, graph);
    else if (v == 2)
        Iso_neighbor_alltoallw(f->a, e->scount, e->sdisp, e->stype, f->a, e->rcount, e->rdisp,
                               e->rtype, iso);
    else
        MPI_Neighbor_alltoallw(f->a, e->scount, e->sdisp, e->stype, f->a, e->rcount, e->rdisp,
                               e->rtype, v == 1 ? graph : fg[v - 3]);
}

static int run(int d, int n, int k, int moore, int reps)
{
    MPI_Comm fg[NFORCED];
    int nv = 3 + (forced ? NFORCED : 0);
    int pdims[MAXD] = {0}, periods[MAXD] = {1, 1, 1}, pc[MAXD];
    MPI_Comm cart, graph, iso;
    MPI_Dims_create(procs, d, pdims);
    MPI_Cart_create(MPI_COMM_WORLD, d, pdims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, d, pc);
    field f = {.d = d, .n = n, .k = k, .N = n + 2 * k};
    f.elems = 1;
    for (int j = 0; j < d; j++)
        f.elems *= (size_t)f.N;
    f.a = malloc(sizeof(double) * f.elems);
    exch e;
    exch_build(&e, &f, moore);

    /* The dist graph written by hand: neighbors from the offsets. */
    int *src = malloc(sizeof(int) * e.s), *dst = malloc(sizeof(int) * e.s);
    for (int i = 0; i < e.s; i++)
        Cart_relative_shift(cart, e.off + (size_t)i * d, &src[i], &dst[i]);
    graph_create(cart, e.s, src, dst, MPI_UNWEIGHTED, MPI_INFO_NULL, &graph);
    /* The same with the isomorphic interface. */
    Iso_neighborhood_create(cart, e.s, e.off, &iso);
    for (int v = 3; v < nv; v++)
        forced_graph(cart, e.s, src, dst, forced_algos[v - 3], &fg[v - 3]);

    int fails = 0;
    for (int v = 0; v < nv; v++) { /* correctness of each variant, once */
        field_fill(&f, pc);
        exchange(v, &f, &e, graph, iso, fg);
        long bad = field_check(&f, pc, pdims, moore), all;
        MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (all) {
            static const char *names[] = {"PMPI_Neighbor_alltoallw",
                                          "MPI_Neighbor_alltoallw",
                                          "Iso_neighbor_alltoallw",
                                          "forced direct",
                                          "forced torus",
                                          "forced torus_direct",
                                          "forced bruck"};
            /* MPI's own exchange on a grid of 2 or fewer processes in a
             * dimension, where neighbors repeat, orders their blocks as
             * it likes (MPICH 4.2 reverses them): said, not a failure of
             * the benchmark; nhood's must be right everywhere */
            int repeated = 0;
            for (int j = 0; j < d; j++)
                repeated |= pdims[j] <= 2;
            if (rank == 0)
                fprintf(stderr, "nhood-stencil: %s: %ld halo points wrong (d=%d k=%d %s)%s\n",
                        names[v], all, d, k, moore ? "moore" : "vonneumann",
                        v == 0 && repeated ? "; MPI's own exchange, on repeated neighbors" : "");
            fails |= v != 0 || !repeated;
        }
    }
    field_fill(&f, pc);
    double *t = malloc(sizeof(double) * nv * reps), *m = malloc(sizeof(double) * nv * reps);
    /* warm-up: builds nhood's schedules and runs the learning's trials
     * (up to 10 candidates x 6 calls, and a run-off; docs/algorithms.md),
     * each call after a barrier as measured below */
    for (int w = 0; w < 96; w++)
        for (int i = 0; i < nv; i++) {
            MPI_Barrier(cart);
            exchange(series_at(w, i, nv, nv), &f, &e, graph, iso, fg);
        }
    /* the variants in turns (series_at, stats.h), so that none runs in a
     * fixed place after the barrier (MPI's own always ran first) */
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < nv; i++) {
            int v = series_at(r, i, nv, nv);
            MPI_Barrier(cart);
            double t0 = MPI_Wtime();
            exchange(v, &f, &e, graph, iso, fg);
            t[v * reps + r] = (MPI_Wtime() - t0) * 1e6;
        }
    MPI_Reduce(t, m, nv * reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double nat = robust_median(m, reps), best = nat;
        const char *bname = "pmpi";
        for (int v = 3; v < nv; v++) { /* the fastest fixed choice: MPI's own or one forced */
            double fv = robust_median(m + v * reps, reps);
            if (fv < best) {
                best = fv;
                bname = forced_algos[v - 3];
            }
        }
        for (int v = 1; v < 3; v++) {
            double nh = robust_median(m + v * reps, reps);
            printf("stencil,%s,%d,%d,%d,%ld,%s,%.2f,%.2f,%.3f", moore ? "moore" : "vonneumann", d,
                   k, procs, e.sent * (long)sizeof(double), v == 1 ? "alltoallw" : "iso_alltoallw",
                   nat, nh, nh / nat);
            if (forced)
                printf(",%s,%.2f,%.3f", bname, best, nh / best);
            printf("\n");
        }
        fflush(stdout);
    }
    free(t);
    free(m);
    free(src);
    free(dst);
    exch_free(&e);
    free(f.a);
    for (int v = 3; v < nv; v++)
        MPI_Comm_free(&fg[v - 3]);
    MPI_Comm_free(&iso);
    MPI_Comm_free(&graph);
    MPI_Comm_free(&cart);
    return fails;
}

int main(int argc, char **argv)
{
    int dl[16] = {2, 3}, nd = 2, kl[16] = {1, 2, 4}, nk = 3, n2 = 64, n3 = 16, reps = 500;
    const char *nbhd = "both";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--dims") && v)
            parse_ints(argv[++i], dl, &nd);
        else if (!strcmp(argv[i], "--halo") && v)
            parse_ints(argv[++i], kl, &nk);
        else if (!strcmp(argv[i], "--n") && v) {
            n2 = n3 = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && v)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--nbhd") && v)
            nbhd = argv[++i];
        else if (!strcmp(argv[i], "--forced"))
            forced = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: nhood-stencil [--dims 2|3|2,3] [--n N] [--halo K,...] "
                                "[--nbhd vonneumann|moore|both] [--reps R] [--forced]\n");
            MPI_Finalize();
            return 2;
        }
    }
    int fails = 0;
    if (rank == 0)
        printf("op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio%s\n",
               forced ? ",best_fixed,best_fixed_us,fixed_ratio" : "");
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nk; b++)
            for (int moore = 0; moore <= 1; moore++) {
                if ((moore && !strcmp(nbhd, "vonneumann")) || (!moore && !strcmp(nbhd, "moore")))
                    continue;
                int n = dl[a] == 2 ? n2 : n3;
                if (kl[b] < 1 || kl[b] > n || (dl[a] != 2 && dl[a] != 3)) {
                    if (rank == 0)
                        fprintf(stderr, "nhood-stencil: need d in {2,3} and 1 <= k <= n\n");
                    MPI_Finalize();
                    return 2;
                }
                fails |= run(dl[a], n, kl[b], moore, reps);
            }
    MPI_Finalize();
    return fails;
}
