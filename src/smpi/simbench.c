/* nhood-simbench: driver of the simulated experiments (SMPI build only;
 * scripts/nhood-sim runs it).  Everything it reports is simulated time on
 * the SimGrid platform the run was given, never a measurement.
 *
 * Neighborhood operations (alltoall, allgather, alltoallv, alltoallw): one
 * distributed-graph communicator per algorithm, created with the info key
 * nhood_algorithm (none for auto), so every algorithm runs in the same
 * simulation.  native is PMPI_Neighbor_*: under SMPI that is MPICH's linear
 * algorithm as supplied by src/smpi/compat.c (SMPI has no distributed-graph
 * communicators of its own).  The first call of each size is checked byte
 * for byte against native.
 *
 * inplace_alltoallv: native is MPICH 4.0.2's in-place order (pairs (i, j),
 * i <= j, self-swap included) run here with MPI_Sendrecv_replace, as MPICH
 * runs it; the algorithms are nhood's lsa and hsa through MPI_Alltoallv
 * with MPI_IN_PLACE.  Counts are random and symmetric per pair (mean
 * bytes / 8 / p doubles), as in nhood-bench-inplace.
 *
 * spmv: the halo exchange of a row-parallel SpMV (MPI_Neighbor_alltoallv
 * of doubles, counts = words) on the communication graph of --matrix SPEC
 * (src/tools/matgen.h) partitioned with --part over the simulated ranks;
 * see run_spmv.
 *
 * Method: all ranks start a measured call at the same simulated instant
 * (sync_start), the time of a call is the maximum over ranks of its
 * completion, the median over the repetitions after Tukey's fences is
 * reported.  nhood-bench on a real machine starts calls after a barrier,
 * whose exit skew (several microseconds at hundreds of ranks) would enter
 * every measurement; the simulated clock is global, so here the start can
 * be exact.  With computation simulation off the simulator is
 * deterministic: few repetitions suffice, and native is measured once per
 * size (shared by all rows).
 *
 * CSV: op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,
 *      platform,rounds,max_msgs,max_volume
 * algorithm: the one forced, or auto:<chosen>; rounds: communication
 * rounds (phases) of that schedule; max_msgs, max_volume: messages and
 * bytes sent by the busiest rank in one call (native: one per neighbor).
 * Every result, native's too, is checked against what each rank computes
 * it must receive (expected, spmv_word); --no-native: native does not run
 * (native_us and ratio are 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/bench/stats.h"
#include "../../test/common.h"
#include "exec/stfw_exec.h"
#include "nh.h"
#include "select/select.h"
#include "nhood.h"
#include "sync.h"
#include "tools/matgen.h"

enum { OP_ALLTOALL, OP_ALLGATHER, OP_ALLTOALLV, OP_ALLTOALLW, OP_INPLACE, OP_SPMV };
static const char *const op_names[] = {"alltoall",  "allgather",         "alltoallv",
                                       "alltoallw", "inplace_alltoallv", "spmv"};

static int rank, p;

typedef struct opts {
    int op;
    const char *nbhd, *platform, *matrix, *part;
    int d, r, reps, warmup, header, no_native;
    char bytes[256], algos[256];
} opts;

typedef struct result {
    double us;
    long rounds, msgs, volume;
} result;

static double max_time(double t)
{
    double m;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* Does got differ from ref (n bytes) on any rank?  Collective. */
static int differs_anywhere(const void *got, const void *ref, size_t n)
{
    int wrong = memcmp(got, ref, n) != 0, any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static long max_long(long v)
{
    long m;
    MPI_Allreduce(&v, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* ---- neighborhood operations ---- */

typedef struct nbr {
    MPI_Comm g;
    int indeg, outdeg;
    int *scounts, *rcounts, *sdispls, *rdispls;
    MPI_Aint *sdispw, *rdispw;
    MPI_Datatype *stypes, *rtypes;
} nbr;

/* One call of op with blocks of m bytes; native: PMPI, else MPI (nhood). */
static int call(int op, int native, const nbr *n, const char *sbuf, char *rbuf, int m)
{
    switch (op) {
    case OP_ALLTOALL:
        return (native ? PMPI_Neighbor_alltoall : MPI_Neighbor_alltoall)(sbuf, m, MPI_BYTE, rbuf, m,
                                                                         MPI_BYTE, n->g);
    case OP_ALLGATHER:
        return (native ? PMPI_Neighbor_allgather : MPI_Neighbor_allgather)(sbuf, m, MPI_BYTE, rbuf,
                                                                           m, MPI_BYTE, n->g);
    case OP_ALLTOALLV:
        return (native ? PMPI_Neighbor_alltoallv : MPI_Neighbor_alltoallv)(
            sbuf, n->scounts, n->sdispls, MPI_BYTE, rbuf, n->rcounts, n->rdispls, MPI_BYTE, n->g);
    default:
        return (native ? PMPI_Neighbor_alltoallw : MPI_Neighbor_alltoallw)(
            sbuf, n->scounts, n->sdispw, n->stypes, rbuf, n->rcounts, n->rdispw, n->rtypes, n->g);
    }
}

static double time_calls(int op, int native, const nbr *n, const char *sbuf, char *rbuf, int m,
                         int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < reps; k++) {
        double t0 = sync_start(n->g);
        call(op, native, n, sbuf, rbuf, m);
        t[k] = max_time((MPI_Wtime() - t0) * 1e6);
    }
    double lo = t[0], hi = t[0];
    for (int k = 1; k < reps; k++) {
        lo = t[k] < lo ? t[k] : lo;
        hi = t[k] > hi ? t[k] : hi;
    }
    if (rank == 0 && hi > lo * 1.001)
        fprintf(stderr, "nhood-simbench: %s %d B: repetitions differ (%.3f to %.3f us)\n",
                native ? "native" : "nhood", m, lo, hi);
    double med = robust_median(t, reps);
    free(t);
    return med;
}

/* If comm runs store-and-forward (chosen "stfw"): chosen becomes
 * "stfw:N", rounds its N stages and msgs the most messages a rank sends. */
static void stfw_figures(MPI_Comm comm, char *chosen, size_t len, long *rounds, long *msgs)
{
    nh_plan *pl = nh_plan_get(comm);
    int sd = pl ? nh_stfw_predict(pl, NH_OP_ALLTOALL, -1) : 0;
    if (sd > 0 && strcmp(chosen, "stfw") == 0) {
        *rounds = sd;
        *msgs = pl->stfw->mmax[NH_OP_ALLTOALL];
        snprintf(chosen, len, "stfw:%d", sd);
    }
}

/* Rounds, messages and bytes this rank sends per call under schedule s. */
static void sched_counts(const nh_sched *s, size_t m, long *msgs, long *volume)
{
    *msgs = *volume = 0;
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        if (r->copy || r->nsend == 0)
            continue;
        int k = nh_eager_chunk(m, r->nsend, nh_cfg.cost.eager);
        *msgs += (r->nsend + k - 1) / k;
        *volume += (long)r->nsend * (long)m;
    }
}

static int make_graph(const opts *o, int s, const int *off, const char *algo, nbr *n)
{
    int dims[TC_MAXD] = {0}, periods[TC_MAXD] = {1, 1, 1, 1, 1};
    MPI_Info info = MPI_INFO_NULL;
    MPI_Dims_create(p, o->d, dims);
    if (strcmp(algo, "auto") != 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "nhood_algorithm", algo);
    }
    memset(n, 0, sizeof(*n));
    int rc = tc_graph(MPI_COMM_WORLD, o->d, dims, periods, s, off, info, 0, &n->g, &n->outdeg,
                      &n->indeg);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    return rc;
}

static void layout(nbr *n, int m)
{
    int deg = n->indeg > n->outdeg ? n->indeg : n->outdeg;
    free(n->scounts);
    free(n->rcounts);
    free(n->sdispls);
    free(n->rdispls);
    free(n->sdispw);
    free(n->rdispw);
    free(n->stypes);
    free(n->rtypes);
    n->scounts = malloc(sizeof(int) * (deg + 1));
    n->rcounts = malloc(sizeof(int) * (deg + 1));
    n->sdispls = malloc(sizeof(int) * (deg + 1));
    n->rdispls = malloc(sizeof(int) * (deg + 1));
    n->sdispw = malloc(sizeof(MPI_Aint) * (deg + 1));
    n->rdispw = malloc(sizeof(MPI_Aint) * (deg + 1));
    n->stypes = malloc(sizeof(MPI_Datatype) * (deg + 1));
    n->rtypes = malloc(sizeof(MPI_Datatype) * (deg + 1));
    for (int k = 0; k < deg; k++) {
        n->scounts[k] = n->rcounts[k] = m;
        n->sdispls[k] = n->rdispls[k] = k * m;
        n->sdispw[k] = n->rdispw[k] = (MPI_Aint)k * m;
        n->stypes[k] = n->rtypes[k] = MPI_BYTE;
    }
}

/* What this rank must receive in one call with blocks of m bytes, when
 * rank r's send buffer holds (char)(r * 31 + x * 7) at byte x: slot i gets
 * source i's block i (alltoall[v|w]) or its only block (allgather).  Every
 * rank's lists follow one offset list (tc_graph: destinations rank + off_t,
 * sources rank - off_t), so the k-th message between a pair, in list order
 * at both ends, is the same offset t: MPI's pairing, duplicates included. */
static void expected(int op, const nbr *n, int m, char *ref)
{
    int *src = malloc(sizeof(int) * ((size_t)n->indeg + 1)),
        *dst = malloc(sizeof(int) * ((size_t)n->outdeg + 1));
    MPI_Dist_graph_neighbors(n->g, n->indeg, src, MPI_UNWEIGHTED, n->outdeg, dst, MPI_UNWEIGHTED);
    for (int i = 0; i < n->indeg; i++)
        for (int b = 0; b < m; b++) {
            size_t x = op == OP_ALLGATHER ? (size_t)b : (size_t)i * m + b;
            ref[(size_t)i * m + b] = (char)(src[i] * 31 + x * 7);
        }
    free(src);
    free(dst);
}

static void free_nbr(nbr *n)
{
    layout(n, 0);
    free(n->scounts);
    free(n->rcounts);
    free(n->sdispls);
    free(n->rdispls);
    free(n->sdispw);
    free(n->rdispw);
    free(n->stypes);
    free(n->rtypes);
    MPI_Comm_free(&n->g);
}

static int run_neighbor(const opts *o)
{
    int *off, s = tc_offsets(o->nbhd, o->d, o->r, &off), bad = 0;
    char *algos[16], *save = NULL, alist[256];
    int nalgo = 0;
    snprintf(alist, sizeof(alist), "%s", o->algos);
    for (char *a = strtok_r(alist, ",", &save); a && nalgo < 16; a = strtok_r(NULL, ",", &save))
        algos[nalgo++] = a;
    nbr *g = calloc((size_t)nalgo + 1, sizeof(nbr));
    for (int a = 0; a < nalgo; a++)
        make_graph(o, s, off, algos[a], &g[a]);
    /* alltoallv/alltoallw run the alltoall schedules (src/vcoll). */
    nh_op nop = o->op == OP_ALLGATHER ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    save = NULL;
    for (char *tok = strtok_r((char *)o->bytes, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int m = atoi(tok);
        size_t sb = (size_t)m * (o->op == OP_ALLGATHER ? 1 : g[0].outdeg) + 1;
        size_t rb = (size_t)m * g[0].indeg + 1;
        char *sbuf = malloc(sb), *rbuf = malloc(rb), *ref = malloc(rb);
        for (size_t i = 0; i < sb; i++)
            sbuf[i] = (char)(rank * 31 + i * 7);
        /* native, once per size, on the first communicator, checked like
         * the others; with --no-native not called at all */
        layout(&g[0], m);
        expected(o->op, &g[0], m, ref);
        double native = 0;
        if (!o->no_native) {
            memset(rbuf, 0x5a, rb);
            for (int w = 0; w < o->warmup; w++)
                call(o->op, 1, &g[0], sbuf, rbuf, m);
            native = time_calls(o->op, 1, &g[0], sbuf, rbuf, m, o->reps);
            int anywrong = differs_anywhere(rbuf, ref, rb - 1);
            bad |= anywrong;
            if (anywrong && rank == 0)
                fprintf(stderr, "nhood-simbench: %s native %d B: result differs from the expected\n",
                        op_names[o->op], m);
        }
        long nmsgs = max_long(g[0].outdeg), nvol = max_long((long)g[0].outdeg * m);
        /* Forced algorithms first, auto last: when auto chooses an
         * algorithm this run already simulated, its row reuses that
         * simulation (same schedule, same code path; the simulation is
         * deterministic) instead of simulating it again. */
        char done_name[16][32];
        double done_us[16];
        int ndone = 0;
        for (int pass = 0; pass < 2; pass++)
            for (int a = 0; a < nalgo; a++) {
                if ((strcmp(algos[a], "auto") == 0) != pass)
                    continue;
                nbr *n = &g[a];
                layout(n, m);
                double us = -1;
                int anywrong = 0;
                if (pass == 1) {
                    char pick[32];
                    nhood_algorithm_for(n->g, op_names[o->op], m, pick, sizeof(pick));
                    for (int k = 0; k < ndone; k++)
                        if (strcmp(done_name[k], pick) == 0)
                            us = done_us[k];
                    if (us >= 0 && rank == 0)
                        fprintf(stderr, "nhood-simbench: %d B: auto chose %s, simulated above\n", m,
                                pick);
                }
                if (us < 0) {
                    memset(rbuf, 0x5a, rb);
                    call(o->op, 0, n, sbuf, rbuf, m); /* builds schedules; checked */
                    anywrong = differs_anywhere(rbuf, ref, rb - 1);
                    bad |= anywrong;
                    for (int w = 1; w < o->warmup; w++)
                        call(o->op, 0, n, sbuf, rbuf, m);
                    us = time_calls(o->op, 0, n, sbuf, rbuf, m, o->reps);
                }
                char name[48] = "pmpi";
                long rounds = 1, msgs = nmsgs, vol = nvol;
                {
                    char chosen[32];
                    nhood_algorithm_for(n->g, op_names[o->op], m, chosen, sizeof(chosen));
                    nh_plan *pl = nh_plan_get(n->g);
                    nh_algo al;
                    /* A graph nhood does not detect may get store-and-forward. */
                    stfw_figures(n->g, chosen, sizeof(chosen), &rounds, &msgs);
                    if (pl && nh_parse_algo(chosen, &al) == 0 && nh_algos[al].build) {
                        const nh_sched *sc = nh_plan_sched(pl, nop, al);
                        long mm, vv;
                        sched_counts(sc, (size_t)m, &mm, &vv);
                        rounds = sc->tmpl_rounds;
                        msgs = max_long(mm);
                        vol = max_long(vv);
                    }
                    if (strcmp(algos[a], "auto") == 0)
                        snprintf(name, sizeof(name), "auto:%s", chosen);
                    else if (strcmp(algos[a], chosen) == 0)
                        snprintf(name, sizeof(name), "%s", chosen);
                    else /* forced but not applicable: nhood fell back */
                        snprintf(name, sizeof(name), "%s>%s", algos[a], chosen);
                    if (pass == 0 && ndone < 16 && strcmp(algos[a], chosen) == 0) {
                        snprintf(done_name[ndone], sizeof(done_name[ndone]), "%s", chosen);
                        done_us[ndone++] = us;
                    }
                }
                if (rank == 0) {
                    printf("%s,%s,%d,%d,%d,%d,%s,%.3f,%.3f,%.3f,%s,%ld,%ld,%ld\n", op_names[o->op],
                           o->nbhd, o->d, o->r, p, m, name, native, us,
                           native > 0 ? us / native : 0, o->platform, rounds, msgs, vol);
                    fflush(stdout);
                }
                if (anywrong && rank == 0)
                    fprintf(stderr, "nhood-simbench: %s %s %d B: result differs from the expected\n",
                            op_names[o->op], algos[a], m);
            }
        free(sbuf);
        free(rbuf);
        free(ref);
    }
    for (int a = 0; a < nalgo; a++)
        free_nbr(&g[a]);
    free(g);
    free(off);
    return bad;
}

/* ---- in-place alltoallv ---- */

/* Symmetric count for the pair (i, j): mean +- 50 % (nhood-bench-inplace). */
static int pair_count(int i, int j, int mean)
{
    unsigned a = (unsigned)(i < j ? i : j), b = (unsigned)(i < j ? j : i);
    unsigned h = (a * 2654435761u) ^ (b * 40503u);
    h ^= h >> 13;
    return mean / 2 + (int)(h % (unsigned)(mean + 1));
}

/* MPICH 4.0.2's in-place MPI_Alltoallv, as it runs it. */
static int mpich_inplace(double *buf, const int *counts, const int *displs, MPI_Comm comm,
                         const int *partners, int n)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n && !rc; k++) {
        int j = partners[k];
        if (counts[j] > 0 && j != rank)
            rc = MPI_Sendrecv_replace(buf + displs[j], counts[j], MPI_DOUBLE, j, 0, j, 0, comm,
                                      MPI_STATUS_IGNORE);
    }
    return rc;
}

static double time_inplace(int native, double *buf, const double *orig, int total, int *counts,
                           int *displs, MPI_Comm comm, const int *partners, int n, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < reps; k++) {
        memcpy(buf, orig, sizeof(double) * (size_t)total);
        double t0 = sync_start(comm);
        if (native)
            mpich_inplace(buf, counts, displs, comm, partners, n);
        else
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                          MPI_DOUBLE, comm);
        t[k] = max_time((MPI_Wtime() - t0) * 1e6);
    }
    double med = robust_median(t, reps);
    free(t);
    return med;
}

static int run_inplace(const opts *o)
{
    int bad = 0, *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
    int *mpich = malloc(sizeof(int) * 2 * (size_t)p + 1);
    int nmpich = nh_inplace_mpich(p, rank, mpich);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    char *save = NULL, alist[256];
    for (char *tok = strtok_r((char *)o->bytes, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int bytes = atoi(tok), mean = bytes / 8 / p, total = 0;
        if (mean < 1)
            mean = 1;
        for (int j = 0; j < p; j++) {
            counts[j] = pair_count(rank, j, mean);
            displs[j] = total;
            total += counts[j];
        }
        double *orig = malloc(sizeof(double) * total + 8),
               *buf = malloc(sizeof(double) * total + 8), *ref = malloc(sizeof(double) * total + 8);
        for (int i = 0; i < total; i++)
            orig[i] = rank * 1e6 + i;
        memcpy(ref, orig, sizeof(double) * (size_t)total);
        mpich_inplace(ref, counts, displs, comm, mpich, nmpich);
        double native =
            time_inplace(1, buf, orig, total, counts, displs, comm, mpich, nmpich, o->reps);
        long sent = 0;
        for (int j = 0; j < p; j++)
            sent += j == rank ? 0 : counts[j] * 8L;
        long vol = max_long(sent);
        char *save2 = NULL;
        snprintf(alist, sizeof(alist), "%s", o->algos);
        for (char *a = strtok_r(alist, ",", &save2); a; a = strtok_r(NULL, ",", &save2)) {
            nh_inplace_algo al = strcmp(a, "lsa") == 0   ? NH_INPLACE_LSA
                                 : strcmp(a, "auto") == 0 ? NH_INPLACE_AUTO
                                                          : NH_INPLACE_HSA;
            /* Per measurement, what NHOOD_INPLACE_ALGO sets for a whole run. */
            nh_cfg.inplace = al;
            memcpy(buf, orig, sizeof(double) * (size_t)total);
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                          MPI_DOUBLE, comm);
            int anywrong = differs_anywhere(buf, ref, sizeof(double) * (size_t)total);
            bad |= anywrong;
            int is_auto = al == NH_INPLACE_AUTO;
            if (is_auto) { /* decided by the call above */
                char chosen[32] = "";
                if (nhood_algorithm_for(comm, "inplace_alltoallv", 0, chosen, sizeof(chosen)))
                    bad = 1;
                al = strcmp(chosen, "lsa") == 0 ? NH_INPLACE_LSA : NH_INPLACE_HSA;
            }
            double us = time_inplace(0, buf, orig, total, counts, displs, comm, NULL, 0, o->reps);
            if (rank == 0) {
                printf("%s,-,0,0,%d,%d,%s%s,%.3f,%.3f,%.3f,%s,%d,%d,%ld\n", op_names[o->op], p,
                       bytes, is_auto ? "auto:" : "", nh_inplace_names[al], native, us, us / native,
                       o->platform, nh_inplace_steps(al, p), p - 1, vol);
                fflush(stdout);
                if (anywrong)
                    fprintf(stderr, "nhood-simbench: in-place %s %d B differs from MPICH's order\n",
                            a, bytes);
            }
        }
        free(orig);
        free(buf);
        free(ref);
    }
    MPI_Comm_free(&comm);
    free(counts);
    free(displs);
    free(mpich);
    return bad;
}

/* ---- SpMV halo exchange (store-and-forward paper, Tables 2 and 3) ---- */

/* The value of word w of the SpMV message from rank s to rank d. */
static double spmv_word(int s, int d, int w, int p)
{
    return ((double)s * p + d) * 1048576.0 + w;
}

/* Rank 0 builds the matrix, partition and communication graph (one copy in
 * the simulator's memory, not one per simulated rank) and hands every rank
 * its sources, destinations and word counts.  The exchange is
 * MPI_Neighbor_alltoallv of doubles with counts = words, as nhood-spmv does
 * it; native is PMPI_Neighbor_alltoallv (MPICH's linear algorithm from
 * compat.c).  The bytes column is the average message size, max_msgs and
 * max_volume are those of the communication graph (mmax and the busiest
 * rank's bytes). */
static int run_spmv(const opts *o)
{
    int err_flag = 0, bad = 0;
    char err[512] = "";
    nh_csr m;
    nh_cgraph cg = {0};
    nh_cgraph_stats st = {0};
    int *sc = NULL, *sd = NULL, *packed = NULL;
    int deg[2] = {0, 0}, *degs = NULL;
    if (rank == 0) {
        int *owner = NULL;
        if (nh_matgen(o->matrix, &m, err, sizeof(err))) {
            err_flag = 1;
        } else {
            owner = malloc(((size_t)m.nrows + 1) * sizeof(int));
            if (!owner || nh_partition(&m, p, o->part, owner, err, sizeof(err)))
                err_flag = 1;
            else if (nh_comm_graph(&m, p, owner, &cg)) {
                snprintf(err, sizeof(err), "no communication graph (the matrix must be square)");
                err_flag = 1;
            }
            nh_csr_free(&m);
        }
        free(owner);
        if (err_flag)
            fprintf(stderr, "nhood-simbench: %s\n", err);
    }
    MPI_Bcast(&err_flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (err_flag)
        return 2;
    if (rank == 0) {
        nh_cgraph_stats_of(&cg, &st);
        degs = malloc(sizeof(int) * 2 * (size_t)p);
        sc = malloc(sizeof(int) * (size_t)p);
        sd = malloc(sizeof(int) * (size_t)p);
        long tot = 0;
        for (int r = 0; r < p; r++) {
            degs[2 * r] = cg.indeg[r];
            degs[2 * r + 1] = cg.outdeg[r];
            sc[r] = 2 * (cg.indeg[r] + cg.outdeg[r]);
            sd[r] = (int)tot;
            tot += sc[r];
        }
        packed = malloc(sizeof(int) * ((size_t)tot + 1));
        for (int r = 0; r < p; r++) {
            int *q = packed + sd[r];
            for (int k = 0; k < cg.indeg[r]; k++) {
                *q++ = cg.src[r][k];
                *q++ = (int)cg.inwords[r][k];
            }
            for (int k = 0; k < cg.outdeg[r]; k++) {
                *q++ = cg.dst[r][k];
                *q++ = (int)cg.words[r][k];
            }
        }
        nh_cgraph_free(&cg);
    }
    double stv[4] = {st.mmax, st.mavg, (double)st.vmax, st.vavg};
    MPI_Bcast(stv, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter(degs, 2, MPI_INT, deg, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int indeg = deg[0], outdeg = deg[1];
    int *mine = malloc(sizeof(int) * (2 * (size_t)(indeg + outdeg) + 1));
    MPI_Scatterv(packed, sc, sd, MPI_INT, mine, 2 * (indeg + outdeg), MPI_INT, 0, MPI_COMM_WORLD);
    free(degs);
    free(sc);
    free(sd);
    free(packed);
    int *src = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *dst = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int *rcounts = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *rdispls = malloc(sizeof(int) * ((size_t)indeg + 1));
    int *scounts = malloc(sizeof(int) * ((size_t)outdeg + 1)),
        *sdispls = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int nrecv = 0, nsend = 0;
    for (int k = 0; k < indeg; k++) {
        src[k] = mine[2 * k];
        rcounts[k] = mine[2 * k + 1];
        rdispls[k] = nrecv;
        nrecv += rcounts[k];
    }
    for (int k = 0; k < outdeg; k++) {
        dst[k] = mine[2 * (indeg + k)];
        scounts[k] = mine[2 * (indeg + k) + 1];
        sdispls[k] = nsend;
        nsend += scounts[k];
    }
    free(mine);
    /* Word w of the message s -> d carries spmv_word(s, d, w), so every
     * rank knows what it must receive without a reference exchange: the
     * graph has one message per pair (matgen.c), and the values are exact
     * and distinct for up to 2^16 ranks and 2^20 words per message. */
    double *sbuf = malloc(sizeof(double) * ((size_t)nsend + 1)),
           *rbuf = malloc(sizeof(double) * ((size_t)nrecv + 1)),
           *ref = malloc(sizeof(double) * ((size_t)nrecv + 1));
    for (int k = 0; k < outdeg; k++)
        for (int w = 0; w < scounts[k]; w++)
            sbuf[sdispls[k] + w] = spmv_word(rank, dst[k], w, p);
    for (int k = 0; k < indeg; k++)
        for (int w = 0; w < rcounts[k]; w++)
            ref[rdispls[k] + w] = spmv_word(src[k], rank, w, p);

    /* The label: the spec without a file's directory, no commas. */
    char label[256];
    const char *slash = strrchr(o->matrix, '/');
    if (slash)
        snprintf(label, sizeof(label), "%.*s%s", (int)(strchr(o->matrix, ':') - o->matrix + 1),
                 o->matrix, slash + 1);
    else
        snprintf(label, sizeof(label), "%s", o->matrix);
    for (char *c = label; *c; c++)
        if (*c == ',')
            *c = ';';
    int avgbytes = stv[1] > 0 ? (int)(8.0 * stv[3] / stv[1] + 0.5) : 0;
    if (rank == 0)
        fprintf(stderr,
                "# matrix %s, %s partition: mmax %.0f, mavg %.1f messages; vmax %.0f, vavg %.0f "
                "bytes per rank\n",
                label, o->part, stv[0], stv[1], 8 * stv[2], 8 * stv[3]);

    char *algos[16], *save = NULL, alist[256];
    int nalgo = 0;
    snprintf(alist, sizeof(alist), "%s", o->algos);
    for (char *a = strtok_r(alist, ",", &save); a && nalgo < 16; a = strtok_r(NULL, ",", &save))
        algos[nalgo++] = a;
    MPI_Comm *g = calloc((size_t)nalgo + 1, sizeof(MPI_Comm));
    for (int a = 0; a < nalgo; a++) {
        MPI_Info info = MPI_INFO_NULL;
        if (strcmp(algos[a], "auto") != 0) {
            /* stfw:N forces store-and-forward over an N-dimensional VPT */
            char *colon = strchr(algos[a], ':');
            MPI_Info_create(&info);
            if (colon && strncmp(algos[a], "stfw:", 5) == 0) {
                MPI_Info_set(info, "nhood_stfw_dims", colon + 1);
                MPI_Info_set(info, "nhood_algorithm", "stfw");
            } else {
                MPI_Info_set(info, "nhood_algorithm", algos[a]);
            }
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, src, MPI_UNWEIGHTED, outdeg, dst,
                                       MPI_UNWEIGHTED, info, 0, &g[a]);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    /* native, on the first communicator, checked like the others; with
     * --no-native not called at all (at 4096 ranks its hundreds of
     * thousands of concurrent messages are most of the simulation) */
    double native = 0;
    if (!o->no_native) {
        for (int w = 0; w < o->warmup; w++)
            PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                    MPI_DOUBLE, g[0]);
        for (int k = 0; k < o->reps; k++) {
            memset(rbuf, 0x5a, sizeof(double) * ((size_t)nrecv + 1));
            double t0 = sync_start(g[0]);
            PMPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                    MPI_DOUBLE, g[0]);
            t[k] = max_time((MPI_Wtime() - t0) * 1e6);
            int anywrong = differs_anywhere(rbuf, ref, sizeof(double) * (size_t)nrecv);
            bad |= anywrong;
            if (anywrong && rank == 0)
                fprintf(stderr, "nhood-simbench: spmv native: result differs from the expected\n");
        }
        native = robust_median(t, o->reps);
    }
    for (int a = 0; a < nalgo; a++) {
        memset(rbuf, 0x5a, sizeof(double) * ((size_t)nrecv + 1));
        MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                               MPI_DOUBLE, g[a]);
        int anywrong = differs_anywhere(rbuf, ref, sizeof(double) * (size_t)nrecv);
        bad |= anywrong;
        for (int w = 1; w < o->warmup; w++)
            MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                   MPI_DOUBLE, g[a]);
        for (int k = 0; k < o->reps; k++) {
            double t0 = sync_start(g[a]);
            MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                   MPI_DOUBLE, g[a]);
            t[k] = max_time((MPI_Wtime() - t0) * 1e6);
        }
        double us = robust_median(t, o->reps);
        char chosen[32] = "pmpi", name[48];
        nhood_algorithm_for(g[a], "alltoallv", avgbytes, chosen, sizeof(chosen));
        /* Store-and-forward: its stages and the most messages a rank sends
         * (the graph's own figures otherwise). */
        long rounds = 1, msgs = (long)stv[0];
        stfw_figures(g[a], chosen, sizeof(chosen), &rounds, &msgs);
        if (strcmp(algos[a], "auto") == 0)
            snprintf(name, sizeof(name), "auto:%s", chosen);
        else if (strcmp(algos[a], chosen) == 0)
            snprintf(name, sizeof(name), "%s", chosen);
        else
            snprintf(name, sizeof(name), "%s>%s", algos[a], chosen);
        if (rank == 0) {
            printf("spmv,%s,0,0,%d,%d,%s,%.3f,%.3f,%.3f,%s,%ld,%ld,%.0f\n", label, p, avgbytes,
                   name, native, us, native > 0 ? us / native : 0, o->platform, rounds, msgs,
                   8 * stv[2]);
            fflush(stdout);
            if (anywrong)
                fprintf(stderr, "nhood-simbench: spmv %s: result differs from the expected\n",
                        algos[a]);
        }
    }
    for (int a = 0; a < nalgo; a++)
        MPI_Comm_free(&g[a]);
    free(g);
    free(t);
    free(sbuf);
    free(rbuf);
    free(ref);
    free(src);
    free(dst);
    free(rcounts);
    free(rdispls);
    free(scounts);
    free(sdispls);
    return bad;
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: nhood-simbench --op alltoall|allgather|alltoallv|alltoallw|inplace_alltoallv|spmv\n"
        "         [--nbhd moore|vonneumann|octant|shales] [--dims D] [--radius R]\n"
        "         [--bytes 8,64] [--algos auto,direct,torus,torus_direct | auto,lsa,hsa]\n"
        "         [--reps N] [--warmup N] [--platform NAME] [--no-header] [--no-native]\n"
        "         [--matrix SPEC] [--part rowblock|nnz|metis|file:PATH]   (spmv)\n");
}

int main(int argc, char **argv)
{
    opts o = {.op = OP_ALLTOALL,
              .nbhd = "moore",
              .platform = "-",
              .d = 3,
              .r = 1,
              .reps = 3,
              .warmup = 1,
              .header = 1,
              .matrix = "powerlaw:100000:8:2.2:2",
              .part = "rowblock"};
    int bad = 0, op_given = 0;
    const char *algos = NULL;
    snprintf(o.bytes, sizeof(o.bytes), "8");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            o.header = 0;
            continue;
        }
        if (strcmp(a, "--no-native") == 0) { /* native not run */
            o.no_native = 1;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        i++;
        if (strcmp(a, "--op") == 0) {
            o.op = -1;
            for (int k = 0; k < 6; k++)
                if (strcmp(v, op_names[k]) == 0)
                    o.op = k;
            bad |= o.op < 0;
            op_given = 1;
        } else if (strcmp(a, "--nbhd") == 0)
            o.nbhd = v;
        else if (strcmp(a, "--dims") == 0)
            o.d = atoi(v);
        else if (strcmp(a, "--radius") == 0)
            o.r = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            o.reps = atoi(v);
        else if (strcmp(a, "--warmup") == 0)
            o.warmup = atoi(v);
        else if (strcmp(a, "--platform") == 0)
            o.platform = v;
        else if (strcmp(a, "--bytes") == 0)
            snprintf(o.bytes, sizeof(o.bytes), "%s", v);
        else if (strcmp(a, "--algos") == 0)
            algos = v;
        else if (strcmp(a, "--matrix") == 0)
            o.matrix = v;
        else if (strcmp(a, "--part") == 0)
            o.part = v;
        else
            bad = 1;
    }
    int *off;
    if (bad || !op_given || o.reps < 1 || o.warmup < 0 || o.d < 1 || o.d > TC_MAXD || o.r < 1 ||
        (o.op < OP_INPLACE && tc_offsets(o.nbhd, o.d, o.r, &off) < 0)) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    if (o.op < OP_INPLACE)
        free(off);
    snprintf(o.algos, sizeof(o.algos), "%s",
             algos                ? algos
             : o.op == OP_INPLACE ? "auto,lsa,hsa"
             : o.op == OP_SPMV    ? "auto"
                                  : "auto,direct,torus,torus_direct");
    if (rank == 0 && o.header)
        printf("op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,"
               "max_msgs,max_volume\n");
    bad = o.op == OP_INPLACE ? run_inplace(&o) : o.op == OP_SPMV ? run_spmv(&o) : run_neighbor(&o);
    MPI_Finalize();
    return bad ? 1 : 0;
}
