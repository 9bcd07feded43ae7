/* nhood-bench: native (PMPI_Neighbor_*) and nhood (MPI_Neighbor_*, which
 * nhood intercepts when preloaded) side by side in one run, on one
 * communicator and the same buffers, alternating call by call.
 *
 * Method (as in the isomorphic-collectives paper): barrier before each
 * measured call, the time of a call is the maximum over ranks, outliers
 * beyond 3 inter-quartile ranges are dropped (Tukey), the median remains.
 * CSV on stdout: op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio
 * where algorithm is what nhood ran (pmpi when not preloaded).
 *
 * --form nonblocking times MPI_Ineighbor_* + MPI_Wait (op column
 * "ialltoall"), --form persistent MPI_Start + MPI_Wait on a request made
 * once with MPI_Neighbor_*_init ("alltoall_init"); the native side calls
 * PMPI for every step.  --compute T puts T microseconds of computation
 * (a spin on MPI_Wtime, no MPI calls) between start and wait and appends
 * compute_us,native_total_us,nhood_total_us,native_overlap,nhood_overlap
 * (totals: start to completion with the computation): overlap is the share of the
 * shorter of communication and computation that was hidden,
 * (comm + T - total) / min(comm, T), with comm measured without
 * computation in the same run, clipped to [0, 1].  --test-every U makes the
 * computation test the request every U microseconds (MPI_Test; PMPI_Test
 * on the native side), as applications that poll for progress do.
 *
 * --forced (blocking and nonblocking): each choice nhood can be forced to
 * (the info key nhood_algorithm: pmpi, direct, torus, torus_direct,
 * bruck) on a graph of its own, timed in the same alternation; appends
 * best_forced,best_forced_us,forced_ratio (nhood over the fastest),wrong,
 * then pooled_forced,pooled_us,pooled_ratio: the same with the forced
 * graphs that run one exchange as one choice (alike_forced; the name
 * joins them with '=').  wrong (here and under --learning): the variants
 * whose result differs from the standard's (reference.h; "-" for none),
 * which are no choice: MPI's own all-to-all on MPICH 4.0 where a rank
 * lists a source twice.
 *
 * --learning N (regular blocking and nonblocking calls): what learning
 * costs over a run of N calls.  Per try (REPS tries), each variant in
 * turn times a fresh graph's whole life: creation, N calls, MPI_Comm_free
 * (slowest rank's).  Variants: MPI's own calls (PMPI_*), nhood's default
 * (the cold tier, the analysis and the learning's trials included), and
 * each fixed choice forced through the info key nhood_algorithm (pmpi,
 * direct, torus, torus_direct, bruck; analyzed where the cold tier
 * analyzes any graph, docs/algorithms.md "Tiers").  Forced graphs still
 * cold at the end of every try (nonblocking calls alone, no point on the
 * parent) ran the cold tier's MPI calls, as the default did: they count
 * as one choice, cold:NAME=NAME..., each try's total the median of
 * theirs (pool_cold).  CSV:
 * op,nbhd,dims,radius,procs,bytes,calls,native_us,auto_us,best_fixed,
 * best_fixed_us,ratio,wrong,held_best,held_ratio: medians of the totals;
 * best_fixed the fastest fixed choice (MPI's own or forced), ratio auto
 * over it; held_best the fastest by the even tries' medians and
 * held_ratio auto over it by the odd tries' (a choice not made on the
 * tries that time it; REPS of 2 and more); then paired_ratio and
 * held_paired_ratio, the same two as the median of each try's ratio
 * (the default's total over that choice's in the same try: a host whose
 * speed changes for seconds at a time moves both sides of a try alike).
 * Each try runs the variants in turn, starting one later than the try
 * before.
 * --allreduce-every K: every variant makes an MPI_Allreduce on
 * MPI_COMM_WORLD after every K-th call, as a program checking a residual
 * does (a point where nhood may analyze a graph that only nonblocking
 * calls use; docs/algorithms.md, "Tiers").
 *
 * --learning N --trace: each call of such a run on its own, MPI's own
 * calls and nhood's default alternating graph by graph (REPS graphs
 * each): op,nbhd,dims,radius,procs,bytes,call,native_us,auto_us, the
 * median over the graphs of the slowest rank's time of the call after a
 * barrier; call 0 is the graph's creation.  What learning looks like
 * call by call (docs/algorithms.md). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nhood.h"
#include "stats.h"

#include "../common.h"
#include "../reference.h"

typedef int (*coll_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*icoll_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                        MPI_Request *);
typedef int (*pcoll_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                        MPI_Info, MPI_Request *);

enum form { BLOCKING, NONBLOCKING, PERSISTENT };

typedef int (*vcoll_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *,
                        const int *, MPI_Datatype, MPI_Comm);
typedef int (*wcoll_fn)(const void *, const int *, const MPI_Aint *, const MPI_Datatype *, void *,
                        const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Comm);
typedef int (*gvcoll_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *,
                         MPI_Datatype, MPI_Comm);
/* Their nonblocking and persistent forms. */
typedef int (*ivcoll_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *,
                         const int *, MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int (*iwcoll_fn)(const void *, const int *, const MPI_Aint *, const MPI_Datatype *, void *,
                         const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Comm,
                         MPI_Request *);
typedef int (*igvcoll_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *,
                          MPI_Datatype, MPI_Comm, MPI_Request *);
typedef int (*pvcoll_fn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *,
                         const int *, MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request *);
typedef int (*pwcoll_fn)(const void *, const int *, const MPI_Aint *, const MPI_Datatype *, void *,
                         const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Comm, MPI_Info,
                         MPI_Request *);
typedef int (*pgvcoll_fn)(const void *, int, MPI_Datatype, void *, const int *, const int *,
                          MPI_Datatype, MPI_Comm, MPI_Info, MPI_Request *);

/* --op alltoallv|alltoallw|allgatherv: per-neighbor counts (bytes) and
 * displacements, blocks packed one after another. */
enum vop { VOP_NONE, VOP_ALLTOALLV, VOP_ALLTOALLW, VOP_ALLGATHERV };
typedef struct vcall {
    enum vop op;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sbdispls, *rbdispls;
    MPI_Datatype *stypes, *rtypes;
} vcall;
static vcall vc;

/* One side (native or nhood) of the comparison. */
typedef struct side {
    coll_fn coll;
    icoll_fn icoll;
    pcoll_fn pcoll;
    int (*start)(MPI_Request *);
    int (*wait)(MPI_Request *, MPI_Status *);
    int (*test)(MPI_Request *, int *, MPI_Status *);
    MPI_Request preq; /* persistent request for the current buffers */
    vcoll_fn vcoll;
    wcoll_fn wcoll;
    gvcoll_fn gvcoll;
    ivcoll_fn ivcoll;
    iwcoll_fn iwcoll;
    igvcoll_fn igvcoll;
    pvcoll_fn pvcoll;
    pwcoll_fn pwcoll;
    pgvcoll_fn pgvcoll;
} side;

/* Computation: a spin of us microseconds; with every > 0, a test of the
 * request every that many microseconds (as an application polling for
 * progress would). */
static void spin(double us, double every, side *sd, MPI_Request *req)
{
    double t0 = MPI_Wtime(), next = every;
    int flag = 0;
    for (double t = 0; t < us; t = (MPI_Wtime() - t0) * 1e6)
        if (every > 0 && t >= next && !flag) {
            sd->test(req, &flag, MPI_STATUS_IGNORE);
            next = t + every;
        }
}

/* One timed call (start, computation, completion); microseconds. */
static double timed(side *sd, enum form f, double compute, double every, const char *sbuf,
                    char *rbuf, int bytes, MPI_Comm g)
{
    MPI_Request req = MPI_REQUEST_NULL, *rp = f == PERSISTENT ? &sd->preq : &req;
    double t0 = MPI_Wtime();
    if (vc.op != VOP_NONE && f == BLOCKING) {
        if (vc.op == VOP_ALLTOALLV)
            sd->vcoll(sbuf, vc.scounts, vc.sdispls, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls,
                      MPI_BYTE, g);
        else if (vc.op == VOP_ALLTOALLW)
            sd->wcoll(sbuf, vc.scounts, vc.sbdispls, vc.stypes, rbuf, vc.rcounts, vc.rbdispls,
                      vc.rtypes, g);
        else
            sd->gvcoll(sbuf, bytes, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls, MPI_BYTE, g);
        spin(compute, 0, sd, rp);
    } else if (vc.op != VOP_NONE) {
        if (f == PERSISTENT)
            sd->start(&sd->preq);
        else if (vc.op == VOP_ALLTOALLV)
            sd->ivcoll(sbuf, vc.scounts, vc.sdispls, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls,
                       MPI_BYTE, g, &req);
        else if (vc.op == VOP_ALLTOALLW)
            sd->iwcoll(sbuf, vc.scounts, vc.sbdispls, vc.stypes, rbuf, vc.rcounts, vc.rbdispls,
                       vc.rtypes, g, &req);
        else
            sd->igvcoll(sbuf, bytes, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls, MPI_BYTE, g, &req);
        spin(compute, every, sd, rp);
        sd->wait(rp, MPI_STATUS_IGNORE);
    } else if (f == BLOCKING) {
        sd->coll(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, g);
        spin(compute, 0, sd, rp);
    } else {
        if (f == NONBLOCKING)
            sd->icoll(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, g, &req);
        else
            sd->start(&sd->preq);
        spin(compute, every, sd, rp);
        sd->wait(rp, MPI_STATUS_IGNORE);
    }
    return (MPI_Wtime() - t0) * 1e6;
}

/* The benchmark's graph, for --learning and --forced to make more. */
typedef struct graph_args {
    int d, s, *dims, *periods, *off;
} graph_args;

/* The variants --learning and --forced time: MPI's own calls (PMPI_*),
 * nhood's default (learning), and each choice forced through the info key
 * nhood_algorithm (from index 2 on). */
static const char *const variants[] = {"native", "auto",  "pmpi",        "direct",
                                       "torus",  "torus_direct", "bruck"};
#define NVARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

/* A graph as the benchmark's, for variant v (forced from index 2 on). */
static void variant_graph(const graph_args *ga, int v, MPI_Comm *g)
{
    MPI_Info info = MPI_INFO_NULL;
    int outdeg, indeg;
    if (v >= 2) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "nhood_algorithm", variants[v]);
    }
    tc_graph(MPI_COMM_WORLD, ga->d, ga->dims, ga->periods, ga->s, ga->off, info, 0, g, &outdeg,
             &indeg);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
}

/* --learning --trace: a row per call (see the top of the file). */
static void trace_rows(side *sides[2], enum form f, int calls, int tries, const graph_args *ga,
                       const char *cols, int bytes, char *sbuf, char *rbuf, int rank)
{
    size_t n = (size_t)tries * 2 * (size_t)(calls + 1);
    double *t = calloc(n, sizeof(double)), *m = calloc(n, sizeof(double)), v2[2];
    for (int k = 0; k < tries; k++)
        for (int v = 0; v < 2; v++) {
            double *at = t + ((size_t)v * tries + k) * (size_t)(calls + 1);
            MPI_Comm g;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            variant_graph(ga, v, &g);
            at[0] = (MPI_Wtime() - t0) * 1e6;
            for (int c = 1; c <= calls; c++) {
                MPI_Barrier(MPI_COMM_WORLD);
                at[c] = timed(sides[v], f, 0, 0, sbuf, rbuf, bytes, g);
            }
            MPI_Comm_free(&g);
        }
    MPI_Reduce(t, m, (int)n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double *col = calloc((size_t)tries, sizeof(double));
    for (int c = 0; rank == 0 && c <= calls; c++) {
        for (int v = 0; v < 2; v++) {
            for (int k = 0; k < tries; k++)
                col[k] = m[((size_t)v * tries + k) * (size_t)(calls + 1) + (size_t)c];
            v2[v] = robust_median(col, tries);
        }
        printf("%s,%d,%.2f,%.2f\n", cols, c, v2[0], v2[1]);
    }
    fflush(stdout);
    free(col);
    free(t);
    free(m);
}

/* --learning --allreduce-every K: an MPI_Allreduce on MPI_COMM_WORLD
 * after every K-th call, in every variant (a residual's check). */
static int allreduce_every;

/* The variants v with bad[v] (a result not the standard's) as "a;b", or "-". */
static void wrong_list(const int *bad, int n, char *out, size_t len)
{
    size_t k = 0;
    out[0] = '\0';
    for (int v = 0; v < n; v++)
        if (bad[v])
            k += (size_t)snprintf(out + k, len - k, "%s%s", k ? ";" : "", variants[v]);
    if (!k)
        snprintf(out, len, "-");
}

/* --forced: the forced graphs that run one exchange.  nhood's model
 * counts the same phases, term by term, with the same binding, for
 * them (at 2 ranks torus, torus_direct and bruck are each one message to
 * the other rank; nhood's learning tries such schedules once, "alike" in
 * its report).  The least of several graphs' medians of one exchange lies
 * below that exchange's time (each graph's buffers sit elsewhere, which
 * moves its median by a few per cent), so taken as "the fastest forced
 * choice" it would favor the forced side: such graphs count as one
 * choice, timed by the median of their medians.  group[v] is the first
 * forced variant alike variant v (v itself where none is; pmpi, MPI's
 * own, always itself; each itself without nhood (fn NULL: the library's
 * nhood_cost_phases) or for v and w calls). */
#define BENCH_PHASES 64
typedef int (*algo_fn)(MPI_Comm, const char *, int, char *, int); /* nhood_algorithm_for */
typedef int (*query_fn)(MPI_Comm, nhood_comm_info *);             /* nhood_comm_query */
typedef int (*phases_fn)(MPI_Comm, const char *, const char *, int, double (*)[NHOOD_COST_TERMS],
                         int, int *, char *, int);
static void alike_forced(phases_fn fn, const MPI_Comm *fg, int nforced, const char *op, int bytes,
                         int *group)
{
    static double ph[NVARIANTS][BENCH_PHASES][NHOOD_COST_TERMS];
    int np[NVARIANTS];
    char bind[NVARIANTS][16];
    for (int v = 0; v < nforced; v++) {
        group[v] = v;
        np[v] = -1;
        if (fn && strcmp(variants[v + 2], "pmpi") != 0 &&
            fn(fg[v], op, variants[v + 2], bytes, ph[v], BENCH_PHASES, &np[v], bind[v],
               sizeof(bind[v])) != MPI_SUCCESS)
            np[v] = -1;
        if (np[v] > BENCH_PHASES)
            np[v] = -1;
        for (int e = 0; np[v] >= 0 && e < v && group[v] == v; e++)
            if (group[e] == e && np[e] == np[v] && strcmp(bind[e], bind[v]) == 0 &&
                memcmp(ph[e], ph[v], sizeof(ph[v][0]) * (size_t)np[v]) == 0)
                group[v] = e;
    }
}

/* The fastest forced choice with right results (fv: each forced graph's
 * median; alike graphs pooled, alike_forced): its first variant, its
 * time in *us, its name in name (alike ones joined by '='); -1 where
 * none is right. */
static int pooled_forced(const double *fv, const int *bad, const int *group, int nforced,
                         double *us, char *name, size_t len)
{
    int best = -1;
    double bt = 0;
    for (int v = 0; v < nforced; v++) {
        if (group[v] != v)
            continue;
        double m[NVARIANTS];
        int n = 0;
        for (int e = v; e < nforced; e++)
            if (group[e] == v && !bad[e])
                m[n++] = fv[e];
        if (!n)
            continue;
        double t = robust_median(m, n);
        if (best < 0 || t < bt) {
            best = v;
            bt = t;
        }
    }
    size_t k = 0;
    name[0] = '\0';
    for (int e = best < 0 ? nforced : best; e < nforced; e++)
        if (group[e] == best && !bad[e])
            k += (size_t)snprintf(name + k, len - k, "%s%s", k ? "=" : "", variants[e + 2]);
    *us = bt;
    return best;
}

/* The robust median of every second of v's n values (n <= 64) from the
 * first-th (v is left as it is). */
static double alternate_median(const double *v, int n, int first)
{
    double col[32];
    int k = 0;
    for (int i = first; i < n; i += 2)
        col[k++] = v[i];
    return robust_median(col, k);
}

/* The median over tries first, first + step, ... of the default's total
 * (variant 1) over variant v's in the same try (m: the totals, variant
 * by variant, tries each). */
static double paired_ratio(const double *m, int tries, int v, int first, int step)
{
    double r[64];
    int n = 0;
    for (int k = first; k < tries && n < 64; k += step)
        r[n++] = m[tries + k] / m[(size_t)v * tries + k];
    return n ? robust_median(r, n) : 0;
}

/* --learning: is g still in the cold tier, not analyzed (nhood_comm_query's
 * source "cold"), so that every call of the run went to MPI as the cold
 * tier's calls go?  A graph forced through the info key is analyzed only
 * where the cold tier analyzes any graph, at a blocking call on it or on
 * its parent (docs/algorithms.md, "Tiers"): in a run of nonblocking calls
 * alone that never comes, and such a graph never runs its forced
 * schedule.  No where nhood is not loaded (query NULL). */
static int still_cold(query_fn query, MPI_Comm g)
{
    nhood_comm_info info;
    return query && query(g, &info) == MPI_SUCCESS && strcmp(info.source, "cold") == 0;
}

/* --learning: forced graphs that stayed cold in every try (cold) ran one
 * exchange, the cold tier's MPI call, as nhood's default did (the same
 * calls: the least of several graphs' medians of it would favor the
 * fixed side, as alike_forced says): they count as one choice, the first
 * of them (its totals per try m[v * tries + k] become the median of
 * theirs with right results), named cold:NAME=NAME..., the others merged.
 * name: every variant's name in the CSV. */
static void pool_cold(double *m, int tries, const int *bad, const int *cold, int *merged,
                      char (*name)[64])
{
    int first = -1;
    for (int v = 0; v < NVARIANTS; v++)
        snprintf(name[v], sizeof(name[v]), "%s", variants[v]);
    for (int v = 0; v < NVARIANTS; v++)
        if (cold[v] && !bad[v]) {
            if (first < 0)
                first = v;
            else
                merged[v] = 1;
        }
    if (first < 0)
        return;
    size_t k = (size_t)snprintf(name[first], sizeof(name[first]), "cold:");
    for (int v = first; v < NVARIANTS; v++)
        if (cold[v] && !bad[v])
            k += (size_t)snprintf(name[first] + k,
                                  k < sizeof(name[first]) ? sizeof(name[first]) - k : 0, "%s%s",
                                  v == first ? "" : "=", variants[v]);
    for (int k2 = 0; k2 < tries; k2++) {
        double col[NVARIANTS];
        int c = 0;
        for (int v = first; v < NVARIANTS; v++)
            if (cold[v] && !bad[v])
                col[c++] = m[(size_t)v * tries + k2];
        m[(size_t)first * tries + k2] = robust_median(col, c);
    }
}

/* --learning: one row per block size (see the top of the file). */
static void learning_row(side *sides[2], enum form f, int calls, int tries, const graph_args *ga,
                         const char *cols, int bytes, const char *sbuf, const char *ref,
                         size_t rblk, int rank, query_fn query)
{
    double *t = calloc((size_t)tries * NVARIANTS, sizeof(double)),
           *m = calloc((size_t)tries * NVARIANTS, sizeof(double)), med[NVARIANTS];
    int bad[NVARIANTS] = {0}, anybad[NVARIANTS], cold[NVARIANTS], allcold[NVARIANTS],
        merged[NVARIANTS] = {0};
    char *rbuf = calloc(rblk + 1, 1), wrong[160], name[NVARIANTS][64];
    for (int v = 0; v < NVARIANTS; v++)
        cold[v] = query && v >= 3; /* nhood's forced schedules: until a try runs one */
    for (int k = 0; k < tries; k++)
        for (int i = 0; i < NVARIANTS; i++) {
            int v = series_at(k, i, NVARIANTS, 1); /* a stride of its own per try */
            MPI_Comm g;
            memset(rbuf, 0xa5, rblk); /* what no call writes: checked after the run */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            variant_graph(ga, v, &g);
            for (int c = 0; c < calls; c++) {
                timed(sides[v > 0], f, 0, 0, sbuf, rbuf, bytes, g);
                if (allreduce_every && (c + 1) % allreduce_every == 0) {
                    int one = 1, sum;
                    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                }
            }
            double t1 = MPI_Wtime(); /* (the question below untimed) */
            cold[v] &= still_cold(query, g);
            double t2 = MPI_Wtime();
            MPI_Comm_free(&g);
            t[v * tries + k] = (MPI_Wtime() - t2 + t1 - t0) * 1e6;
            bad[v] |= memcmp(rbuf, ref, rblk) != 0;
        }
    MPI_Reduce(t, m, tries * NVARIANTS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(bad, anybad, NVARIANTS, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(cold, allcold, NVARIANTS, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        pool_cold(m, tries, anybad, allcold, merged, name);
        /* t: the totals as reduced, m sorted by the medians below */
        memcpy(t, m, sizeof(double) * (size_t)tries * NVARIANTS);
        /* held out: the fastest fixed choice by the even tries' medians,
         * then it and the default by the odd tries' (the least of several
         * noisy medians lies below the fastest choice's true time: the
         * choice and its time from the same tries favor the fixed side).
         * Before the medians below, which sort m. */
        int held = -1;
        double even[NVARIANTS], odd[NVARIANTS];
        for (int v = 0; tries >= 2 && tries <= 64 && v < NVARIANTS; v++) {
            even[v] = alternate_median(m + (size_t)v * tries, tries, 0);
            odd[v] = alternate_median(m + (size_t)v * tries, tries, 1);
            if (v != 1 && !anybad[v] && !merged[v] && (held < 0 || even[v] < even[held]))
                held = v;
        }
        int best = -1; /* the fastest fixed choice with right results: MPI's own or one forced */
        for (int v = 0; v < NVARIANTS; v++) {
            med[v] = robust_median(m + (size_t)v * tries, tries);
            if (v != 1 && !anybad[v] && !merged[v] && (best < 0 || med[v] < med[best]))
                best = v;
        }
        best = best < 0 ? 0 : best;
        wrong_list(anybad, NVARIANTS, wrong, sizeof(wrong));
        printf("%s,%d,%.1f,%.1f,%s,%.1f,%.3f,%s", cols, calls, med[0], med[1], name[best],
               med[best], med[1] / med[best], wrong);
        if (held >= 0)
            printf(",%s,%.3f", name[held], odd[1] / odd[held]);
        else
            printf(",-,-");
        /* paired: each try's ratio of the default's total to the same
         * choice's in that try, the median over the tries (the host may
         * run every call two or three times slower for seconds at a
         * time, and a try's variants run back to back); held out, over
         * the odd tries */
        printf(",%.3f", paired_ratio(t, tries, best, 0, 1));
        if (held >= 0)
            printf(",%.3f\n", paired_ratio(t, tries, held, 1, 2));
        else
            printf(",-\n");
        fflush(stdout);
    }
    free(t);
    free(m);
    free(rbuf);
}

static double overlap(double comm, double compute, double total)
{
    double m = comm < compute ? comm : compute, o = m > 0 ? (comm + compute - total) / m : 0;
    return o < 0 ? 0 : o > 1 ? 1 : o;
}

static void usage(void)
{
    fprintf(stderr, "usage: nhood-bench [--op alltoall|allgather|alltoallv|alltoallw|allgatherv]\n"
                    "                   [--nbhd moore|vonneumann|octant]\n"
                    "                   [--dims D] [--radius R] [--bytes 8,64,4096] [--reps N]\n"
                    "                   [--class-bytes B1,..,BD] [--hint] [--mesh]\n"
                    "                   [--form blocking|nonblocking|persistent] [--compute US]\n"
                    "                   [--test-every US] [--learning CALLS [--trace]\n"
                    "                   [--allreduce-every K]] [--forced]\n"
                    "                   [--thread-multiple] [--no-header]\n"
                    "  --class-bytes (alltoallv, alltoallw): block bytes by offset class, from D\n"
                    "  non-zero coordinates (corner) to 1 (face); the bytes column shows B1:..:BD\n"
                    "  --hint: create the graph with the info isomorphic=true\n"
                    "  --mesh: no periodic dimension (ranks at walls have fewer neighbors)\n"
                    "  --thread-multiple: MPI_Init_thread at MPI_THREAD_MULTIPLE (one thread "
                    "calls)\n");
}

int main(int argc, char **argv)
{
    const char *op = "alltoall", *nbhd = "moore", *formname = "blocking";
    char bytes_list[256] = "8,64,4096", class_list[256] = "";
    int d = 3, r = 1, reps = 1000, header = 1, rank, p, bad = 0, hint = 0, mesh = 0, learning = 0,
        forced = 0, trace = 0;
    double compute = 0, every = 0;
    int level = MPI_THREAD_SINGLE, provided;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--thread-multiple") == 0)
            level = MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            header = 0;
            continue;
        }
        if (strcmp(a, "--thread-multiple") == 0) {
            bad |= provided != MPI_THREAD_MULTIPLE;
            continue;
        }
        if (strcmp(a, "--hint") == 0) {
            hint = 1;
            continue;
        }
        if (strcmp(a, "--mesh") == 0) {
            mesh = 1;
            continue;
        }
        if (strcmp(a, "--forced") == 0) {
            forced = 1;
            continue;
        }
        if (strcmp(a, "--trace") == 0) {
            trace = 1;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        i++;
        if (strcmp(a, "--op") == 0)
            op = v;
        else if (strcmp(a, "--nbhd") == 0)
            nbhd = v;
        else if (strcmp(a, "--dims") == 0)
            d = atoi(v);
        else if (strcmp(a, "--radius") == 0)
            r = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(a, "--form") == 0)
            formname = v;
        else if (strcmp(a, "--compute") == 0)
            compute = atof(v);
        else if (strcmp(a, "--test-every") == 0)
            every = atof(v);
        else if (strcmp(a, "--learning") == 0)
            learning = atoi(v);
        else if (strcmp(a, "--allreduce-every") == 0)
            allreduce_every = atoi(v);

        else if (strcmp(a, "--bytes") == 0)
            snprintf(bytes_list, sizeof(bytes_list), "%s", v);
        else if (strcmp(a, "--class-bytes") == 0)
            snprintf(class_list, sizeof(class_list), "%s", v);
        else
            bad = 1;
    }
    vc.op = strcmp(op, "alltoallv") == 0    ? VOP_ALLTOALLV
            : strcmp(op, "alltoallw") == 0  ? VOP_ALLTOALLW
            : strcmp(op, "allgatherv") == 0 ? VOP_ALLGATHERV
                                            : VOP_NONE;
    int alltoall = strcmp(op, "alltoall") == 0 || vc.op == VOP_ALLTOALLV || vc.op == VOP_ALLTOALLW;
    enum form f = strcmp(formname, "nonblocking") == 0  ? NONBLOCKING
                  : strcmp(formname, "persistent") == 0 ? PERSISTENT
                                                        : BLOCKING;
#ifndef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (f == PERSISTENT) {
        if (rank == 0)
            fprintf(stderr, "nhood-bench: this MPI has no persistent neighborhood collectives\n");
        bad = 1;
    }
#endif
    int classes[TC_MAXD], nclass = 0;
    if (class_list[0]) {
        char *sv = NULL;
        for (char *tok = strtok_r(class_list, ",", &sv); tok; tok = strtok_r(NULL, ",", &sv)) {
            if (nclass == TC_MAXD || atoi(tok) < 0) {
                bad = 1;
                break;
            }
            classes[nclass++] = atoi(tok);
        }
        if (nclass != d || (vc.op != VOP_ALLTOALLV && vc.op != VOP_ALLTOALLW))
            bad = 1;
    }
    if (bad || (!alltoall && strcmp(op, "allgather") != 0 && vc.op != VOP_ALLGATHERV) || d < 1 ||
        d > TC_MAXD || r < 1 || reps < (learning ? 1 : 4) || compute < 0 || learning < 0 ||
        (learning && (vc.op != VOP_NONE || f == PERSISTENT || compute > 0 || hint)) ||
        (trace && !learning) || allreduce_every < 0 || (allreduce_every && (!learning || trace)) ||
        (forced && (f == PERSISTENT || compute > 0 || hint || learning)) ||
        (f == BLOCKING && strcmp(formname, "blocking") != 0)) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    int *off, s = tc_offsets(nbhd, d, r, &off);
    if (s < 0) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    int dims[TC_MAXD] = {0}, periods[TC_MAXD] = {1, 1, 1, 1, 1}, outdeg, indeg;
    MPI_Dims_create(p, d, dims);
    for (int j = 0; mesh && j < d; j++)
        periods[j] = 0;
    int coords[TC_MAXD];
    for (int j = d - 1, x = rank; j >= 0; j--) {
        coords[j] = x % dims[j];
        x /= dims[j];
    }
    MPI_Comm graph;
    MPI_Info info = MPI_INFO_NULL;
    if (hint) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "isomorphic", "true");
    }
    tc_graph(MPI_COMM_WORLD, d, dims, periods, s, off, info, 0, &graph, &outdeg, &indeg);
    if (hint)
        MPI_Info_free(&info);
    if (vc.op != VOP_NONE) {
        vc.scounts = calloc((size_t)s + 1, sizeof(int));
        vc.sdispls = calloc((size_t)s + 1, sizeof(int));
        vc.rcounts = calloc((size_t)s + 1, sizeof(int));
        vc.rdispls = calloc((size_t)s + 1, sizeof(int));
        vc.sbdispls = calloc((size_t)s + 1, sizeof(MPI_Aint));
        vc.rbdispls = calloc((size_t)s + 1, sizeof(MPI_Aint));
        vc.stypes = malloc(((size_t)s + 1) * sizeof(MPI_Datatype));
        vc.rtypes = malloc(((size_t)s + 1) * sizeof(MPI_Datatype));
        for (int t = 0; t <= s; t++)
            vc.stypes[t] = vc.rtypes[t] = MPI_BYTE;
    }

    side native = {alltoall ? PMPI_Neighbor_alltoall : PMPI_Neighbor_allgather,
                   alltoall ? PMPI_Ineighbor_alltoall : PMPI_Ineighbor_allgather,
                   NULL,
                   PMPI_Start,
                   PMPI_Wait,
                   PMPI_Test,
                   MPI_REQUEST_NULL,
                   PMPI_Neighbor_alltoallv,
                   PMPI_Neighbor_alltoallw,
                   PMPI_Neighbor_allgatherv,
                   PMPI_Ineighbor_alltoallv,
                   PMPI_Ineighbor_alltoallw,
                   PMPI_Ineighbor_allgatherv,
                   NULL,
                   NULL,
                   NULL};
    side nhood = {alltoall ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather,
                  alltoall ? MPI_Ineighbor_alltoall : MPI_Ineighbor_allgather,
                  NULL,
                  MPI_Start,
                  MPI_Wait,
                  MPI_Test,
                  MPI_REQUEST_NULL,
                  MPI_Neighbor_alltoallv,
                  MPI_Neighbor_alltoallw,
                  MPI_Neighbor_allgatherv,
                  MPI_Ineighbor_alltoallv,
                  MPI_Ineighbor_alltoallw,
                  MPI_Ineighbor_allgatherv,
                  NULL,
                  NULL,
                  NULL};
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    native.pcoll = alltoall ? PMPI_Neighbor_alltoall_init : PMPI_Neighbor_allgather_init;
    nhood.pcoll = alltoall ? MPI_Neighbor_alltoall_init : MPI_Neighbor_allgather_init;
    native.pvcoll = PMPI_Neighbor_alltoallv_init;
    native.pwcoll = PMPI_Neighbor_alltoallw_init;
    native.pgvcoll = PMPI_Neighbor_allgatherv_init;
    nhood.pvcoll = MPI_Neighbor_alltoallv_init;
    nhood.pwcoll = MPI_Neighbor_alltoallw_init;
    nhood.pgvcoll = MPI_Neighbor_allgatherv_init;
#endif
    algo_fn algo_for = (algo_fn)dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    phases_fn phases_for = (phases_fn)dlsym(RTLD_DEFAULT, "nhood_cost_phases");
    char opname[32];
    snprintf(opname, sizeof(opname), "%s%s%s", f == NONBLOCKING ? "i" : "", op,
             f == PERSISTENT ? "_init" : "");

    if (rank == 0 && header && trace)
        printf("op,nbhd,dims,radius,procs,bytes,call,native_us,auto_us\n");
    else if (rank == 0 && header && learning)
        printf("op,nbhd,dims,radius,procs,bytes,calls,native_us,auto_us,best_fixed,best_fixed_us,"
               "ratio,wrong,held_best,held_ratio,paired_ratio,held_paired_ratio\n");
    else if (rank == 0 && header)
        printf("op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio%s\n",
               compute > 0
                   ? ",compute_us,native_total_us,nhood_total_us,native_overlap,nhood_overlap"
               : forced ? ",best_forced,best_forced_us,forced_ratio,wrong,pooled_forced,pooled_us,"
                          "pooled_ratio"
                        : "");
    /* Per rep: native and nhood without computation, then with it. */
    /* --forced: a graph per forced choice, timed after native and nhood */
    graph_args ga = {d, s, dims, periods, off};
    MPI_Comm fg[NVARIANTS];
    int nforced = forced ? NVARIANTS - 2 : 0;
    for (int v = 0; v < nforced; v++)
        variant_graph(&ga, v + 2, &fg[v]);
    int series = compute > 0 ? 4 : 2 + nforced;
    double *t = malloc(sizeof(double) * reps * series), *m = malloc(sizeof(double) * reps * series);
    /* strtok_r: under SMPI all simulated ranks share libc's strtok state. */
    char *save = NULL;
    if (nclass)
        snprintf(bytes_list, sizeof(bytes_list), "0"); /* one run with the class sizes */
    for (char *tok = strtok_r(bytes_list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int bytes = atoi(tok);
        size_t sblk = (size_t)bytes * (alltoall ? outdeg : 1), rblk = (size_t)bytes * indeg;
        char bytes_col[64];
        snprintf(bytes_col, sizeof(bytes_col), "%d", bytes);
        if (vc.op != VOP_NONE) {
            /* The k-th block goes to the k-th offset whose rank exists
             * (tc_graph lists neighbors in offset order, sources as me -
             * offset, leaving out those beyond a mesh's walls), so both
             * ends of an edge agree on its size.  Blocks are packed back
             * to back. */
            size_t so = 0, ro = 0, sum = 0;
            for (int t = 0, ns = 0, nr = 0; t < s; t++) {
                const int *o = off + (size_t)t * d;
                int nnz = 0;
                for (int j = 0; j < d; j++)
                    nnz += o[j] != 0;
                int b = nclass ? classes[d - nnz] : bytes;
                sum += (size_t)b;
                if (tc_shift(d, dims, periods, coords, o, +1) != MPI_PROC_NULL) {
                    vc.scounts[ns] = b;
                    vc.sdispls[ns] = (int)so;
                    vc.sbdispls[ns++] = (MPI_Aint)so;
                    so += (size_t)b;
                }
                if (tc_shift(d, dims, periods, coords, o, -1) != MPI_PROC_NULL) {
                    vc.rcounts[nr] = vc.op == VOP_ALLGATHERV ? bytes : b;
                    vc.rdispls[nr] = (int)ro;
                    vc.rbdispls[nr] = (MPI_Aint)ro;
                    ro += (size_t)vc.rcounts[nr++];
                }
            }
            sblk = vc.op == VOP_ALLGATHERV ? (size_t)bytes : so;
            rblk = ro;
            if (nclass) {
                bytes = (int)(sum / (size_t)(s ? s : 1)); /* mean, for nhood_algorithm_for */
                size_t n = 0;
                for (int k = 0; k < nclass; k++)
                    n += (size_t)snprintf(bytes_col + n, sizeof(bytes_col) - n, "%s%d",
                                          k ? ":" : "", classes[k]);
            }
        }
        /* every block its own bytes (a block in the wrong place shows) */
        char *sbuf = malloc(sblk + 1), *rbuf = malloc(rblk + 1), *ref = malloc(rblk + 1);
        for (size_t i = 0; i < sblk; i++)
            sbuf[i] = (char)(rank * 7 + i / (size_t)(bytes > 0 ? bytes : 1) * 13 + i % 251);
        /* the standard's result (regular calls: --learning, --forced) */
        if (vc.op == VOP_NONE && (learning || forced))
            reference(alltoall, graph, sbuf, bytes, MPI_BYTE, ref, bytes, MPI_BYTE);
        side *sides[2] = {&native, &nhood};
        if (learning) {
            char cols[160];
            snprintf(cols, sizeof(cols), "%s,%s,%d,%d,%d,%s", opname, nbhd, d, r, p, bytes_col);
            if (trace)
                trace_rows(sides, f, learning, reps, &ga, cols, bytes, sbuf, rbuf, rank);
            else
                learning_row(sides, f, learning, reps, &ga, cols, bytes, sbuf, ref, rblk, rank,
                             (query_fn)dlsym(RTLD_DEFAULT, "nhood_comm_query"));
            free(sbuf);
            free(rbuf);
            free(ref);
            continue;
        }
        for (int k = 0; f == PERSISTENT && k < 2; k++) {
            side *sd = sides[k];
            if (vc.op == VOP_ALLTOALLV)
                sd->pvcoll(sbuf, vc.scounts, vc.sdispls, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls,
                           MPI_BYTE, graph, MPI_INFO_NULL, &sd->preq);
            else if (vc.op == VOP_ALLTOALLW)
                sd->pwcoll(sbuf, vc.scounts, vc.sbdispls, vc.stypes, rbuf, vc.rcounts,
                           vc.rbdispls, vc.rtypes, graph, MPI_INFO_NULL, &sd->preq);
            else if (vc.op == VOP_ALLGATHERV)
                sd->pgvcoll(sbuf, bytes, MPI_BYTE, rbuf, vc.rcounts, vc.rdispls, MPI_BYTE, graph,
                            MPI_INFO_NULL, &sd->preq);
            else
                sd->pcoll(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, graph, MPI_INFO_NULL,
                          &sd->preq);
        }
        /* (a barrier on each forced graph: a blocking collective on it,
         * where its analysis runs, which its own nonblocking calls never
         * do: without one a forced nonblocking row timed the cold tier's
         * calls, MPI's exchange) */
        for (int w = 0; w < 10; w++)
            for (int v = 0; v < nforced; v++) {
                MPI_Barrier(fg[v]);
                timed(&nhood, f, 0, 0, sbuf, rbuf, bytes, fg[v]);
            }
        /* 160 rounds of warm-up (k < 0), made as the timed rounds are:
         * they build nhood's schedules and run the learning's trials (at
         * most 6 candidates x 6 calls of a size and a run-off of 5 x 10,
         * then the early re-check 64 calls later, docs/algorithms.md), so
         * the medians are the decided state's, and the trials see the
         * calls the medians time, each after a barrier and among the
         * other series' calls (--forced: the forced graphs' too); what
         * learning costs is --learning's figure.  The series in turns
         * (series_at: its stride changes every `series` rounds) */
        for (int k = -160; k < reps; k++)
            for (int i = 0; i < series; i++) {
                int round = k + 160, j = series_at(round, i, series, series);
                MPI_Barrier(graph);
                double us = j >= 2 && forced
                                ? timed(&nhood, f, 0, 0, sbuf, rbuf, bytes, fg[j - 2])
                                : timed(sides[j % 2], f, j >= 2 ? compute : 0, every, sbuf, rbuf,
                                        bytes, graph);
                if (k >= 0)
                    t[j * reps + k] = us;
            }
        MPI_Reduce(t, m, reps * series, MPI_DOUBLE, MPI_MAX, 0, graph);
        /* --forced, regular calls: one call more of each variant, checked
         * against the standard's result (a wrong one is no choice) */
        int bad[NVARIANTS] = {0}, anybad[NVARIANTS];
        for (int v = 0; forced && vc.op == VOP_NONE && v < NVARIANTS; v++) {
            memset(rbuf, 0xa5, rblk);
            timed(v < 2 ? sides[v] : &nhood, f, 0, 0, sbuf, rbuf, bytes, v < 2 ? graph : fg[v - 2]);
            bad[v] = memcmp(rbuf, ref, rblk) != 0;
        }
        MPI_Reduce(bad, anybad, NVARIANTS, MPI_INT, MPI_MAX, 0, graph);
        if (f == PERSISTENT) {
            PMPI_Request_free(&native.preq);
            MPI_Request_free(&nhood.preq);
        }
        char algo[32] = "pmpi";
        if (algo_for)
            algo_for(graph, opname, bytes, algo, sizeof(algo));
        if (rank == 0) {
            double a = robust_median(m, reps), b = robust_median(m + reps, reps);
            printf("%s,%s,%d,%d,%d,%s,%s,%.2f,%.2f,%.3f", opname, nbhd, d, r, p, bytes_col, algo, a,
                   b, b / a);
            if (compute > 0) {
                double ac = robust_median(m + 2 * reps, reps),
                       bc = robust_median(m + 3 * reps, reps);
                printf(",%.1f,%.2f,%.2f,%.2f,%.2f", compute, ac, bc, overlap(a, compute, ac),
                       overlap(b, compute, bc));
            }
            if (nforced) { /* the fastest forced choice with right results */
                int fb = -1;
                double fv[NVARIANTS];
                char wrong[160];
                for (int v = 0; v < nforced; v++) {
                    fv[v] = robust_median(m + (size_t)(2 + v) * reps, reps);
                    if (!anybad[v + 2] && (fb < 0 || fv[v] < fv[fb]))
                        fb = v;
                }
                fb = fb < 0 ? 0 : fb;
                wrong_list(anybad, NVARIANTS, wrong, sizeof(wrong));
                printf(",%s,%.2f,%.3f,%s", variants[fb + 2], fv[fb], b / fv[fb], wrong);
                int group[NVARIANTS];
                double pus;
                char pname[96];
                alike_forced(vc.op == VOP_NONE ? phases_for : NULL, fg, nforced, op, bytes, group);
                if (pooled_forced(fv, anybad + 2, group, nforced, &pus, pname, sizeof(pname)) >= 0)
                    printf(",%s,%.2f,%.3f", pname, pus, b / pus);
                else
                    printf(",-,-,-");
            }
            printf("\n");
            fflush(stdout);
        }
        free(sbuf);
        free(rbuf);
        free(ref);
    }
    free(t);
    free(m);
    free(off);
    free(vc.scounts);
    free(vc.sdispls);
    free(vc.rcounts);
    free(vc.rdispls);
    free(vc.sbdispls);
    free(vc.rbdispls);
    free(vc.stypes);
    free(vc.rtypes);
    for (int v = 0; v < nforced; v++)
        MPI_Comm_free(&fg[v]);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
