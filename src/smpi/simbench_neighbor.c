/* nhood-simbench: the neighborhood operations (see simbench.c). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/bench/stats.h"
#include "../../test/common.h"
#include "plan/stfw_setup.h"
#include "select/select.h"
#include "nhood.h"
#include "sync.h"
#include "smpi/simbench.h"

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
        if ((t[k] = call_time(t0)) < 0)
            k--; /* disturbed: again */
    }
    double lo = t[0], hi = t[0];
    for (int k = 1; k < reps; k++) {
        lo = t[k] < lo ? t[k] : lo;
        hi = t[k] > hi ? t[k] : hi;
    }
    if (sb_rank == 0 && hi > lo * 1.001)
        fprintf(stderr, "nhood-simbench: %s %d B: repetitions differ (%.3f to %.3f us)\n",
                native ? "native" : "nhood", m, lo, hi);
    double med = robust_median(t, reps);
    free(t);
    return med;
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

/* The grid: balanced dims, periodic unless o->mesh. */
static void grid(const opts *o, int *dims, int *periods)
{
    for (int j = 0; j < TC_MAXD; j++) {
        dims[j] = 0;
        periods[j] = !o->mesh;
    }
    MPI_Dims_create(sb_p, o->d, dims);
}

/* The communicator the grid's ranks are numbered on: MPI_COMM_WORLD
 * (block placement), or, with node boxes of K = o->place ranks, WORLD
 * reordered so that node q's K ranks (WORLD ranks qK .. qK + K - 1) hold
 * one sub-box of the grid.  The box's sides divide the grid's, growing
 * the shortest side first (a dimension that divides it, the longest
 * remaining first): 4x2x2 for 16 ranks on a 16x16x8 grid.  Boxes and the
 * ranks within each are row-major. */
static MPI_Comm grid_comm; /* place_ranks sets it */

static int node_box(const opts *o, const int *dims, int *box)
{
    int k = o->place;
    for (int j = 0; j < o->d; j++)
        box[j] = 1;
    for (int f = 2; k > 1;) {
        if (k % f) {
            f++;
            continue;
        }
        int best = -1;
        for (int j = 0; j < o->d; j++)
            if ((dims[j] / box[j]) % f == 0 &&
                (best < 0 || box[j] < box[best] ||
                 (box[j] == box[best] && dims[j] / box[j] > dims[best] / box[best])))
                best = j;
        if (best < 0)
            return -1;
        box[best] *= f;
        k /= f;
    }
    return 0;
}

static int place_ranks(const opts *o)
{
    int dims[TC_MAXD], periods[TC_MAXD], box[TC_MAXD], nd[TC_MAXD], c[TC_MAXD];
    grid_comm = MPI_COMM_WORLD;
    if (o->place <= 0)
        return 0;
    grid(o, dims, periods);
    if (node_box(o, dims, box)) {
        if (sb_rank == 0)
            fprintf(stderr, "nhood-simbench: no box of %d ranks divides the grid\n", o->place);
        return 1;
    }
    int q = sb_rank / o->place, l = sb_rank % o->place, key = 0;
    for (int j = o->d - 1; j >= 0; j--) {
        nd[j] = dims[j] / box[j];
        c[j] = (q % nd[j]) * box[j] + l % box[j];
        q /= nd[j];
        l /= box[j];
    }
    for (int j = 0; j < o->d; j++)
        key = key * dims[j] + c[j];
    if (sb_rank == 0) {
        fprintf(stderr, "# placement: node boxes of");
        for (int j = 0; j < o->d; j++)
            fprintf(stderr, "%s%d", j ? "x" : " ", box[j]);
        fprintf(stderr, " ranks on a");
        for (int j = 0; j < o->d; j++)
            fprintf(stderr, "%s%d", j ? "x" : " ", dims[j]);
        fprintf(stderr, " grid\n");
    }
    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &grid_comm);
    MPI_Comm_rank(grid_comm, &sb_grank);
    return 0;
}

static int make_graph(const opts *o, int s, const int *off, const char *algo, nbr *n)
{
    int dims[TC_MAXD], periods[TC_MAXD];
    MPI_Info info = MPI_INFO_NULL;
    grid(o, dims, periods);
    if (strcmp(algo, "auto") != 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "nhood_algorithm", algo);
    }
    memset(n, 0, sizeof(*n));
    int rc =
        tc_graph(grid_comm, o->d, dims, periods, s, off, info, 0, &n->g, &n->outdeg, &n->indeg);
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

/* Box halos: bytes of the block in direction off (n^(D - k) doubles). */
static int box_bytes(const opts *o, const int *off, int n)
{
    int k = 0, c = 8;
    for (int j = 0; j < o->d; j++)
        k += off[j] != 0;
    for (int j = 0; j < o->d - k; j++)
        c *= n;
    return c;
}

/* One call's layout on n: box halos of edge edge, or blocks of m bytes;
 * the send and receive buffer sizes (+ 1) in *sb and *rb. */
static void box_layout(const opts *o, const int *off, int s, nbr *nb, int n, size_t *sb,
                       size_t *rb);
static void lay(const opts *o, const int *off, int s, nbr *n, int edge, int m, size_t *sb,
                size_t *rb)
{
    layout(n, m);
    if (o->box)
        box_layout(o, off, s, n, edge, sb, rb);
    else {
        *sb = (size_t)m * (o->op == OP_ALLGATHER ? 1 : n->outdeg);
        *rb = (size_t)m * n->indeg;
    }
    ++*sb;
    ++*rb;
}

/* Rank r's coordinates on the grid. */
static void coords_of(const opts *o, int r, int *dims, int *periods, int *coords)
{
    grid(o, dims, periods);
    for (int j = o->d - 1; j >= 0; j--) {
        coords[j] = r % dims[j];
        r /= dims[j];
    }
}

/* Box halos: the bytes rank r sends for offsets [0, t) (tc_graph lists
 * its blocks in offset order, leaving out neighbors beyond a wall; they
 * sit back to back): where its block for offset t starts. */
static size_t box_before(const opts *o, const int *off, int t, int r, int n)
{
    int dims[TC_MAXD], periods[TC_MAXD], coords[TC_MAXD];
    size_t at = 0;
    coords_of(o, r, dims, periods, coords);
    for (int k = 0; k < t; k++)
        if (tc_shift(o->d, dims, periods, coords, off + (size_t)k * o->d, +1) != MPI_PROC_NULL)
            at += (size_t)box_bytes(o, off + (size_t)k * o->d, n);
    return at;
}

/* Box halos: this rank's counts and displacements (its own list order on
 * both sides); the buffer sizes in *sb and *rb. */
static void box_layout(const opts *o, const int *off, int s, nbr *nb, int n, size_t *sb,
                       size_t *rb)
{
    int dims[TC_MAXD], periods[TC_MAXD], coords[TC_MAXD], ks = 0, kr = 0;
    *sb = *rb = 0;
    coords_of(o, sb_grank, dims, periods, coords);
    for (int t = 0; t < s; t++) {
        const int *v = off + (size_t)t * o->d;
        int b = box_bytes(o, v, n);
        if (tc_shift(o->d, dims, periods, coords, v, +1) != MPI_PROC_NULL) {
            nb->scounts[ks] = b;
            nb->sdispls[ks] = (int)*sb;
            nb->sdispw[ks++] = (MPI_Aint)*sb;
            *sb += (size_t)b;
        }
        if (tc_shift(o->d, dims, periods, coords, v, -1) != MPI_PROC_NULL) {
            nb->rcounts[kr] = b;
            nb->rdispls[kr] = (int)*rb;
            nb->rdispw[kr++] = (MPI_Aint)*rb;
            *rb += (size_t)b;
        }
    }
}

/* Box halos: what this rank receives: source i (the i-th offset t whose
 * source exists) sends its block for offset t. */
static void box_expected(const opts *o, const int *off, int s, const nbr *nb, int n, char *ref)
{
    int *src = malloc(sizeof(int) * ((size_t)nb->indeg + 1)),
        *dst = malloc(sizeof(int) * ((size_t)nb->outdeg + 1));
    int dims[TC_MAXD], periods[TC_MAXD], coords[TC_MAXD], i = 0;
    MPI_Dist_graph_neighbors(nb->g, nb->indeg, src, MPI_UNWEIGHTED, nb->outdeg, dst,
                             MPI_UNWEIGHTED);
    coords_of(o, sb_grank, dims, periods, coords);
    for (int t = 0; t < s && i < nb->indeg; t++) {
        if (tc_shift(o->d, dims, periods, coords, off + (size_t)t * o->d, -1) == MPI_PROC_NULL)
            continue;
        size_t x0 = box_before(o, off, t, src[i], n);
        for (int b = 0; b < nb->rcounts[i]; b++)
            ref[nb->rdispls[i] + b] = (char)(src[i] * 31 + (x0 + (size_t)b) * 7);
        i++;
    }
    free(src);
    free(dst);
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

int run_neighbor(const opts *o)
{
    int *off, s = tc_offsets(o->nbhd, o->d, o->r, &off), bad = 0;
    char *algos[16], *save = NULL, alist[256];
    int nalgo = 0;
    snprintf(alist, sizeof(alist), "%s", o->algos);
    for (char *a = strtok_r(alist, ",", &save); a && nalgo < 16; a = strtok_r(NULL, ",", &save))
        algos[nalgo++] = a;
    if (place_ranks(o)) {
        free(off);
        return 1;
    }
    nbr *g = calloc((size_t)nalgo + 1, sizeof(nbr));
    for (int a = 0; a < nalgo; a++)
        make_graph(o, s, off, algos[a], &g[a]);
    /* alltoallv/alltoallw run the alltoall schedules (the engine). */
    nh_op nop = o->op == OP_ALLGATHER ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    save = NULL;
    for (char *tok = strtok_r((char *)o->bytes, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int m = atoi(tok), edge = m;
        size_t sb, rb;
        if (o->box) { /* m: the mean block, for nhood_algorithm_for */
            size_t sum = 0;
            for (int t = 0; t < s; t++)
                sum += (size_t)box_bytes(o, off + (size_t)t * o->d, edge);
            m = (int)(sum / (size_t)(s ? s : 1));
        }
        lay(o, off, s, &g[0], edge, m, &sb, &rb);
        char *sbuf = malloc(sb), *rbuf = malloc(rb), *ref = malloc(rb);
        for (size_t i = 0; i < sb; i++)
            sbuf[i] = (char)(sb_grank * 31 + i * 7);
        /* native, once per size, on the first communicator, checked like
         * the others; with --no-native not called at all */
        if (o->box)
            box_expected(o, off, s, &g[0], edge, ref);
        else
            expected(o->op, &g[0], m, ref);
        double native = 0;
        if (!o->no_native) {
            memset(rbuf, 0x5a, rb);
            for (int w = 0; w < o->warmup; w++)
                call(o->op, 1, &g[0], sbuf, rbuf, m);
            native = time_calls(o->op, 1, &g[0], sbuf, rbuf, m, o->reps);
            int anywrong = differs_anywhere(rbuf, ref, rb - 1);
            bad |= anywrong;
            if (anywrong && sb_rank == 0)
                fprintf(stderr,
                        "nhood-simbench: %s native %d B: result differs from the expected\n",
                        op_names[o->op], m);
        }
        long nmsgs = max_long(g[0].outdeg),
             nvol = max_long(o->box ? (long)sb - 1 : (long)g[0].outdeg * m);
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
                lay(o, off, s, n, edge, m, &sb, &rb);
                double us = -1;
                int anywrong = 0;
                /* what the timed call runs, asked before it: asked after,
                 * a learning graph names its next call, which may be a
                 * re-check's first, MPI's own */
                char ran[32] = "";
                if (pass == 1) {
                    char pick[32];
                    nhood_algorithm_for(n->g, op_names[o->op], m, pick, sizeof(pick));
                    for (int k = 0; k < ndone; k++)
                        if (strcmp(done_name[k], pick) == 0)
                            us = done_us[k];
                    if (us >= 0 && sb_rank == 0)
                        fprintf(stderr, "nhood-simbench: %d B: auto chose %s, simulated above\n", m,
                                pick);
                }
                if (us < 0) {
                    memset(rbuf, 0x5a, rb);
                    call(o->op, 0, n, sbuf, rbuf, m); /* builds schedules; checked */
                    anywrong = differs_anywhere(rbuf, ref, rb - 1);
                    bad |= anywrong;
                    /* each warm-up call started together, as the timed
                     * ones are: the learning's trials run here and time
                     * the calls the rows report (back to back, the 3-D
                     * Moore alltoall of 512 B on the 480-rank dragonfly
                     * timed torus at 121 us and bruck at 203, which take
                     * 64 and 57 started together) */
                    for (int w = 1; w < o->warmup; w++) {
                        sync_start(n->g);
                        call(o->op, 0, n, sbuf, rbuf, m);
                    }
                    nhood_algorithm_for(n->g, op_names[o->op], m, ran, sizeof(ran));
                    us = time_calls(o->op, 0, n, sbuf, rbuf, m, o->reps);
                }
                char name[48] = "pmpi";
                long rounds = 1, msgs = nmsgs, vol = nvol;
                {
                    char chosen[32];
                    if (ran[0])
                        memcpy(chosen, ran, sizeof(chosen));
                    else
                        nhood_algorithm_for(n->g, op_names[o->op], m, chosen, sizeof(chosen));
                    nh_plan *pl = nh_plan_get(n->g);
                    nh_algo al;
                    /* A graph nhood does not detect may get store-and-forward. */
                    stfw_figures(n->g, chosen, sizeof(chosen), &rounds, &msgs);
                    /* the schedule the call ran (bruck: at the port count
                     * the model picks, as forced and auto run it) */
                    const nh_sched *sc = pl && nh_parse_algo(chosen, &al) == 0 && nh_algos[al].build
                                             ? nh_sched_forced(pl, nop, al, (size_t)m)
                                             : NULL;
                    if (sc) {
                        long mm, vv;
                        sched_counts(sc, (size_t)m, &mm, &vv);
                        rounds = sc->tmpl_rounds;
                        msgs = max_long(mm);
                        vol = max_long(vv);
                    }
                    if (o->box) /* block sizes differ: only MPI's own are known here */
                        msgs = vol = -1;
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
                if (sb_rank == 0) {
                    char nbhd[64];
                    snprintf(nbhd, sizeof(nbhd), "%s%s%s%s", o->nbhd, o->box ? "-box" : "",
                             o->mesh ? "-mesh" : "", o->place ? "-nodebox" : "");
                    printf("%s,%s,%d,%d,%d,%d,%s,%.3f,%.3f,%.3f,%s,%ld,%ld,%ld\n", op_names[o->op],
                           nbhd, o->d, o->r, sb_p, edge, name, native, us,
                           native > 0 ? us / native : 0, o->platform, rounds, msgs, vol);
                    fflush(stdout);
                }
                if (sb_rank == 0 && !o->box) { /* the model's price beside it (the log) */
                    double terms[NHOOD_COST_TERMS], par[NH_NTERMS], t = 0;
                    char alg[32], bind[16];
                    snprintf(alg, sizeof(alg), "%s",
                             strchr(name, ':') ? strchr(name, ':') + 1 : name);
                    nh_cost_vec(&nh_cfg.cost, par);
                    if (nhood_cost_terms(n->g, op_names[o->op], alg, m, terms, bind,
                                         (int)sizeof(bind)) == MPI_SUCCESS) {
                        for (int i = 0; i < NH_NTERMS; i++)
                            t += terms[i] * par[i];
                        fprintf(stderr, "# model %s %d B: %.3f us (simulated %.3f)\n", alg, m, t,
                                us);
                    }
                }
                if (anywrong && sb_rank == 0)
                    fprintf(stderr,
                            "nhood-simbench: %s %s %d B: result differs from the expected\n",
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
    if (grid_comm != MPI_COMM_WORLD)
        MPI_Comm_free(&grid_comm);
    return bad;
}
