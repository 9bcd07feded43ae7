/* Neighborhood capture and isomorphism detection, once per communicator.
 *
 * At graph creation every rank turns its neighbor lists into sorted
 * relative offsets for each candidate grid (Cartesian parent, info hint,
 * or MPI_Dims_create factorizations), then three small collectives settle
 * it: MAXLOC picks the rank with the largest out-degree, a broadcast sends
 * its offsets as the common template, and a MIN reduction tells which
 * candidates every rank's lists fit (the template filtered to the peers
 * that exist).  The first candidate that fits everywhere wins; otherwise
 * the communicator is left to PMPI.  The plan is cached as an attribute
 * whose delete callback frees it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/stfw_setup.h"
#include "nh.h"
#include "core/parse.h"
#include "util/sync.h"
#include "util/window.h"

#define NH_MAXCAND 24

static int plan_keyval = MPI_KEYVAL_INVALID;
static int next_plan_id;
int nh_window_mine(void)
{
    return nh_cfg.window >= 0 ? nh_win_bucket_of(nh_cfg.window) : nh_win_bucket();
}

static int tag_ub = 32767; /* MPI_TAG_UB, read at nh_plan_init; the least MPI allows */

static int plan_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    nh_plan_unref(attr);
    return MPI_SUCCESS;
}

/* Requests still running on a freed communicator keep its plan, schedules
 * and private communicator alive (MPI_Comm_free lets pending operations
 * complete). */
void nh_plan_unref(nh_plan *p)
{
    if (nh_atomic_add(&p->refs, -1) > 0) /* requests of other threads hold references */
        return;
    if (p->bcache_free)
        p->bcache_free(p); /* the engine's bindings point into the schedules */
    if (p->pcomm != MPI_COMM_NULL)
        nh_comm_free(&p->pcomm);
    if (p->root) { /* a copy: the analysis is the original's */
        free(p->stfw);
        nh_plan_unref(p->root);
    } else {
        for (int o = 0; o < NH_OP_COUNT; o++)
            for (int a = 0; a < NH_ALGO_COUNT; a++)
                nh_sched_free(p->sched[o][a]);
        for (int a = 0; a < NH_ALGO_COUNT; a++)
            nh_sched_free(p->split[a]);
        for (int o = 0; o < NH_OP_COUNT; o++)
            for (int k = 0; k < NH_MAX_PORTS; k++)
                nh_sched_free(p->bruck[o][k]);
        nh_nbhd_fini(&p->nb);
        free(p->pend_srcs);
        nh_stfw_free(p);
        free(p->node_of);
        free(p->node_scratch);
    }
    free(p);
    nh_res_add(NH_RES_PLAN, -1);
}

/* MPI_Comm_dup, _dup_with_info and _idup of an analyzed communicator:
 * the copy shares the original's analysis (neighborhood, schedules,
 * store-and-forward set-up, node map; the original lives while copies
 * do) and has its own report id, decisions, binding cache, tag slots and
 * private communicator.  MPI runs this callback inside the duplication,
 * where nhood cannot start a collective of its own, so the private
 * communicator is made at the copy's first collective (nh_plan_ready). */
static int plan_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    const nh_plan *from = in;
    nh_plan *root = from->root ? from->root : (nh_plan *)from;
    if (nh_in_dup) { /* nhood's own private communicator: a plain one */
        *flag = 0;
        return MPI_SUCCESS;
    }
    nh_plan *p = calloc(1, sizeof(*p));
    nh_stfw *st = from->stfw ? malloc(sizeof(*st)) : NULL;
    *flag = 0;
    if (!p || (from->stfw && !st)) {
        free(p);
        free(st);
        return MPI_ERR_NO_MEM;
    }
    nh_res_add(NH_RES_PLAN, 1);
    p->id = nh_atomic_add(&next_plan_id, 1) - 1;
    p->dup_of = from->id;
    p->root = root;
    nh_atomic_add(&root->refs, 1);
    p->refs = 1;
    p->isomorphic = from->isomorphic;
    p->source = from->source;
    p->coupled = from->coupled;
    p->native_ok = from->native_ok;
    p->nb = root->nb;
    p->pcomm = MPI_COMM_NULL;
    p->lazy_pcomm = from->pcomm != MPI_COMM_NULL || from->lazy_pcomm;
    p->tag_ub = from->tag_ub;
    memcpy(p->algo_info, from->algo_info, sizeof(p->algo_info));
    p->ports = from->ports;
    p->outdeg = from->outdeg;
    p->indeg = from->indeg;
    p->hinted = from->hinted;
    p->window = from->window; /* agreed at the original's creation */
    if (st)                   /* the re-check's state so far: the same on every rank at the copy */
        *st = *from->stfw;
    p->stfw = st;
    p->node_of = root->node_of;
    p->create_us = from->create_us;
    p->create_mpi_us = from->create_mpi_us;
    *(nh_plan **)out = p;
    *flag = 1;
    return MPI_SUCCESS;
}

int nh_plan_init(void)
{
    int *ub, flag = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag)
        tag_ub = *ub;
    return PMPI_Comm_create_keyval(plan_copy, plan_delete, &plan_keyval, NULL);
}

void nh_plan_fini(void)
{
    if (plan_keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&plan_keyval);
}

nh_plan *nh_plan_get(MPI_Comm comm)
{
    void *v;
    int flag = 0;
    if (plan_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL)
        return NULL;
    if (PMPI_Comm_get_attr(comm, plan_keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return v;
}

/* ---- detection ---- */

typedef struct cand {
    nh_grid g;
    const char *source;
    int mesh; /* inferred with a dimension that has no period: tried after the tori */
} cand;

static int add_cand(cand *c, int n, const nh_grid *g, const char *source)
{
    for (int i = 0; i < n; i++)
        if (nh_grid_equiv(&c[i].g, g))
            return n;
    c[n].g = *g;
    c[n].source = source;
    c[n].mesh = 0;
    return n + 1;
}

/* MPI_Dims_create's factorizations of size into 1 to NH_MAXDIMS
 * dimensions (those that differ in more than size-1 dimensions), first
 * periodic (tori), then the same grids without periods (meshes: domains
 * with walls, whose boundary ranks list the template's neighbors that
 * exist), then those of 2 and 3 dimensions periodic in some dimensions
 * only (a channel: walls in one direction), kept for the last size asked
 * (programs create their graphs on one size). */
static int inferred(int size, cand *c)
{
    static struct {
        int size, n;
        cand c[NH_MAXCAND];
    } last;
    int n = 0, dims[NH_MAXDIMS];
    nh_grid g;
    nh_lock(NH_LOCK_MISC);
    if (last.size == size && last.n > 0) {
        n = last.n;
        memcpy(c, last.c, (size_t)n * sizeof(*c));
    }
    nh_unlock(NH_LOCK_MISC);
    if (n > 0)
        return n;
    int per[NH_MAXDIMS];
    for (int d = 1; d <= NH_MAXDIMS && n < NH_MAXCAND / 3; d++) {
        memset(dims, 0, sizeof(dims));
        if (PMPI_Dims_create(size, d, dims) == MPI_SUCCESS && nh_grid_init(&g, d, dims, NULL) == 0)
            n = add_cand(c, n, &g, "inferred");
    }
    /* mask 0: no periods; 1 .. 2^d - 2: some (2 and 3 dimensions); a grid
     * of 1 or 2 ranks is its torus */
    for (int mask = 0, nt = n; mask < 7 && size > 2; mask++)
        for (int k = 0; k < nt && n < NH_MAXCAND; k++) {
            int d = c[k].g.ndims;
            if (mask && (d < 2 || d > 3 || mask >= (1 << d) - 1))
                continue;
            for (int j = 0; j < d; j++)
                per[j] = (mask >> j) & 1;
            if (nh_grid_init(&g, d, c[k].g.dims, per) == 0 && add_cand(c, n, &g, "inferred") > n)
                c[n++].mesh = 1;
        }
    nh_lock(NH_LOCK_MISC);
    last.size = size;
    last.n = n;
    memcpy(last.c, c, (size_t)n * sizeof(*c));
    nh_unlock(NH_LOCK_MISC);
    return n;
}

static int candidates(MPI_Comm comm_old, int size, const nh_hint *h, cand *c)
{
    int n = 0, topo, dims[NH_MAXDIMS], periods[NH_MAXDIMS], coords[NH_MAXDIMS], nd;
    nh_grid g;
    if (PMPI_Topo_test(comm_old, &topo) == MPI_SUCCESS && topo == MPI_CART &&
        PMPI_Cartdim_get(comm_old, &nd) == MPI_SUCCESS && nd >= 1 && nd <= NH_MAXDIMS &&
        PMPI_Cart_get(comm_old, nd, dims, periods, coords) == MPI_SUCCESS &&
        nh_grid_init(&g, nd, dims, periods) == 0 && g.size == size)
        n = add_cand(c, n, &g, "cart");
    if (h->ndims > 0 &&
        nh_grid_init(&g, h->ndims, h->dims, h->has_periods ? h->periods : NULL) == 0 &&
        g.size == size)
        n = add_cand(c, n, &g, "hint");
    if (n == 0 && h->ndims == 0)
        n = inferred(size, c);
    return n;
}

/* Of the candidates fit[] marks, the one to keep: the first, or among
 * inferred grids (several factorizations of one size) whose templates name
 * every peer once, the cheapest: the torus schedule's rounds and messages
 * (nh_nbhd_torus_cost) priced by the cost model's alpha and o.  A grid
 * that folds the neighborhood into few dimensions (a ring of 27 for a
 * 3x3x3 Moore neighborhood: 13 rounds, 26 messages) is dear; the grid it
 * was built on (3 rounds, 6 messages) cheap.  Where a grid's template
 * repeats an offset (-1 and +1 on a dimension of 2), which user offset an
 * entry stands for can differ from rank to rank on a grid other than the
 * user's, and v/w calls under isomorphic=true take a block's size from its
 * entry: there the first fit stays.  The same templates give the same
 * choice on every rank. */
static int repeats_offset(const nh_nbhd *nb)
{
    int d = nb->g.ndims, rep = 0;
    for (int t = 1; t < nb->s && !rep; t++) /* sorted: repeats are neighbors */
        rep = nh_offset_cmp(d, nb->off + (size_t)(t - 1) * d, nb->off + (size_t)t * d) == 0;
    return rep;
}

static int pick(const cand *c, int n, const int *fit, const nh_nbhd *nbs)
{
    int best = -1, first = -1, torus = 0;
    double bc = 0;
    for (int k = 0; k < n; k++) /* an inferred torus that fits wins over meshes */
        torus |= fit[k] && !c[k].mesh;
    for (int k = 0; k < n; k++) {
        if (!fit[k] || (torus && c[k].mesh))
            continue;
        if (strcmp(c[k].source, "inferred") != 0)
            return best >= 0 ? best : k;
        first = first < 0 ? k : first;
        if (repeats_offset(&nbs[k]))
            continue;
        long rounds, msgs;
        nh_nbhd_torus_cost(&nbs[k], &rounds, &msgs);
        double x = nh_cfg.cost.alpha * (double)rounds + nh_cfg.cost.o * (double)msgs;
        if (best < 0 || x < bc) {
            best = k;
            bc = x;
        }
    }
    return best >= 0 ? best : first;
}

static unsigned cand_hash(const cand *c, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c[i].g.ndims; j++) {
            h = (h ^ (unsigned)c[i].g.dims[j]) * 16777619u;
            h = (h ^ (unsigned)c[i].g.periods[j]) * 16777619u;
        }
    return (h ^ (unsigned)n) & 0x3fffffff;
}

/* Where the cost model charges traffic that leaves nodes (NHOOD_COST_NODE
 * or NHOOD_COST_LINK) and auto chooses by block size: every rank's node.
 * Collective over graph; every rank gets a map, or none (a failed
 * allocation anywhere), so decisions stay identical. */
static int node_map(nh_plan *p, MPI_Comm graph, int size)
{
    if ((nh_cfg.cost.node <= 0 && nh_cfg.cost.link <= 0) || !nh_plan_coupled(p))
        return MPI_SUCCESS;
    int rc, node, ok;
    if ((rc = nh_node_leader(graph, &node)))
        return rc;
    int *map = malloc((size_t)size * sizeof(int));
    long *scratch = malloc((size_t)size * sizeof(long));
    ok = map && scratch;
    if (!(rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, graph)) && ok &&
        !(rc = PMPI_Allgather(&node, 1, MPI_INT, map, 1, MPI_INT, graph))) {
        p->node_of = map;
        p->node_scratch = scratch;
        return MPI_SUCCESS;
    }
    free(map);
    free(scratch);
    return rc;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Does a rank appear twice in the list?  (1 also when out of memory.) */
static int repeats(const int *ranks, int n)
{
    int small[64], *v = n <= 64 ? small : malloc((size_t)n * sizeof(int)), r = 0;
    if (!v)
        return 1;
    if (n > 0)
        memcpy(v, ranks, (size_t)n * sizeof(int));
    if (v == small) /* short lists: insertion sort */
        for (int i = 1; i < n; i++) {
            int x = v[i], j = i;
            for (; j > 0 && x < v[j - 1]; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    else
        qsort(v, (size_t)n, sizeof(int), cmp_int);
    for (int i = 1; i < n && !r; i++)
        r = v[i] == v[i - 1];
    if (v != small)
        free(v);
    return r;
}

/* FNV-1a over 64 bits of n ints, continuing from a. */
static unsigned long long fnv64(unsigned long long a, const int *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a = (a ^ (unsigned)v[i]) * 0x100000001b3ull;
    return a;
}

#define M62 ((1ull << 62) - 1)

/* A 62-bit hash, never 0: a finalizer spreads every bit of a over the
 * bits kept. */
static uint64_t hash62(unsigned long long a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    a *= 0xc4ceb9fe1a85ec53ull;
    a ^= a >> 33;
    uint64_t h = a & M62;
    return h ? h : 1;
}

/* Equality of a value x across ranks in a MIN reduction: x and -x enter,
 * and all are equal iff min(x) == -min(-x). */
static int all_same(const long long *v, int i)
{
    return v[i] == -v[i + 1];
}

/* The general agreement, where the fast one did not settle it (meshes,
 * graphs whose ranks see different offsets, malformed hints): one MIN
 * reduction for what must agree plus the rank with the largest
 * out-degree (its offsets are the full template), its broadcast, and a
 * MIN reduction over which candidates every rank fits. */
enum { SL_BAD, SL_ORDER, SL_CH, SL_NCH, SL_NATIVE, SL_NOSTFW, SL_TOP, SL_WIN, SL_COUNT };

/* One creation's analysis state. */
typedef struct det {
    MPI_Comm graph;
    int rank, size, indeg, outdeg, ncand;
    const int *srcs, *dsts;
    cand c[NH_MAXCAND];
    int done;                 /* candidates whose local offsets are known */
    int local_ok[NH_MAXCAND]; /* this rank's lists lie on candidate k's grid */
    int fit[NH_MAXCAND];      /* nbs[k] holds a neighborhood */
    int pending[NH_MAXCAND];  /* ... whose sources' half waits (nh_nbhd_torus_dests) */
    nh_nbhd nbs[NH_MAXCAND];
    int *mine; /* per candidate: this rank's sorted destination offsets */
    int *perm;
    int win; /* the window bucket: this rank's, then the largest (util/window.h) */
} det;

static int *own_offsets(det *d, int k)
{
    return d->mine + (size_t)k * d->outdeg * NH_MAXDIMS;
}

/* The general agreement's inputs, for every candidate. */
static int local_offsets(det *d)
{
    if (!d->mine) {
        d->perm = malloc(((size_t)d->outdeg + 1) * sizeof(int));
        d->mine = malloc(((size_t)NH_MAXCAND * d->outdeg * NH_MAXDIMS + 1) * sizeof(int));
        if (!d->perm || !d->mine)
            return MPI_ERR_NO_MEM;
    }
    for (; d->done < d->ncand; d->done++)
        d->local_ok[d->done] = nh_local_offsets(&d->c[d->done].g, d->rank, d->outdeg, d->dsts, +1,
                                                own_offsets(d, d->done), d->perm) == 0;
    return MPI_SUCCESS;
}

static void drop_fits(det *d)
{
    for (int k = 0; k < NH_MAXCAND; k++)
        if (d->fit[k]) {
            d->pending[k] = 0;
            nh_nbhd_fini(&d->nbs[k]);
            memset(&d->nbs[k], 0, sizeof(d->nbs[k]));
            d->fit[k] = 0;
        }
}

static int general_agree(det *d, const nh_hint *h, int order, unsigned hash, int *native,
                         int *no_stfw, int *chosen, int *s)
{
    long long v[SL_COUNT];
    int rc, *tbuf = NULL;
    v[SL_BAD] = h->bad ? d->rank : d->size;
    v[SL_ORDER] = order;
    v[SL_CH] = hash;
    v[SL_NCH] = -(long long)hash;
    v[SL_NATIVE] = *native;
    v[SL_NOSTFW] = *no_stfw;
    v[SL_TOP] = -((long long)d->outdeg * d->size + (d->size - 1 - d->rank)); /* max deg, min rank */
    v[SL_WIN] = -d->win;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, v, SL_COUNT, MPI_LONG_LONG, MPI_MIN, d->graph)))
        return rc;
    if (v[SL_BAD] <
        d->size) { /* a malformed hint (api/lifecycle.c): the first such rank says why */
        if (d->rank == v[SL_BAD])
            nh_error("%s", h->msg);
        return MPI_ERR_INFO_VALUE;
    }
    *native = (int)v[SL_NATIVE];
    *no_stfw = (int)v[SL_NOSTFW];
    d->win = (int)-v[SL_WIN];
    if (!v[SL_ORDER] || !all_same(v, SL_CH))
        return MPI_SUCCESS;
    int top = d->size - 1 - (int)(-v[SL_TOP] % d->size);
    *s = (int)(-v[SL_TOP] / d->size);
    /* Collective from here on: a rank short of memory still takes part
     * (it fits nothing). */
    int mem = local_offsets(d);
    /* The top rank broadcasts its sorted offsets for every candidate. */
    size_t per = (size_t)*s * NH_MAXDIMS;
    tbuf = malloc((NH_MAXCAND * per + NH_MAXCAND) * sizeof(int));
    if (!tbuf)
        return MPI_ERR_NO_MEM;
    if (mem)
        for (int k = 0; k < NH_MAXCAND; k++)
            d->local_ok[k] = 0;
    if (d->rank == top)
        for (int k = 0; k < NH_MAXCAND; k++) {
            tbuf[NH_MAXCAND * per + k] = k < d->ncand && d->local_ok[k];
            if (k < d->ncand && d->local_ok[k])
                memcpy(tbuf + k * per, own_offsets(d, k),
                       (size_t)*s * d->c[k].g.ndims * sizeof(int));
        }
    if ((rc = PMPI_Bcast(tbuf, (int)(NH_MAXCAND * per + NH_MAXCAND), MPI_INT, top, d->graph)))
        goto out;
    /* Does every rank fit?  One MIN reduction over the fit flags. */
    int agree[NH_MAXCAND];
    for (int k = 0; k < NH_MAXCAND; k++) {
        agree[k] = 0;
        if (k < d->ncand && d->local_ok[k] && tbuf[NH_MAXCAND * per + k])
            agree[k] = nh_nbhd_init(&d->nbs[k], &d->c[k].g, d->rank, *s, tbuf + k * per, d->outdeg,
                                    d->dsts, d->indeg, d->srcs) == 0;
        d->fit[k] = agree[k];
    }
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, agree, NH_MAXCAND, MPI_INT, MPI_MIN, d->graph)))
        goto out;
    *chosen = pick(d->c, d->ncand, agree, d->nbs);
out:
    free(tbuf);
    return rc;
}

/* v[0..2] become their bitwise AND over all ranks.  On up to
 * NH_GATHER_MAX ranks an allgather and a local AND: on MPICH 4.0.2 at 2
 * ranks it costs half what MPI_Allreduce does (0.6 against 1.0 us). */
#define NH_GATHER_MAX 256

static int and_all(uint64_t *v, MPI_Comm comm, int size)
{
    if (size > NH_GATHER_MAX)
        return PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_BAND, comm);
    uint64_t all[3 * NH_GATHER_MAX];
    int rc = PMPI_Allgather(v, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm);
    for (int i = 0; !rc && i < size; i++)
        for (int j = 0; j < 3; j++)
            v[j] &= all[3 * i + j];
    return rc;
}

/* Which candidate grid (if any) every rank's lists fit, identically
 * everywhere.  The fast agreement settles tori in one collective of 24
 * bytes a rank (and_all).  Each rank takes the first candidate its own
 * lists fit with its own sorted destination offsets as the template and
 * hashes that choice with everything that must agree (the candidate list,
 * the isomorphic hint, the degree, the offsets; 62 bits); 0 where it has
 * none, a malformed hint or a reordered communicator.  A bitwise AND of
 * the hash h and its complement gives AND(h) and ~OR(h): equal iff every
 * h is.  Where every rank has one template, MPI's graph consistency gives
 * rank r the sources r - t, so on a torus they are matched to the
 * template when first needed (nh_nbhd_torus_dests, plan_sched.c) and
 * repeat where the destinations do.  The spare bits carry whether no
 * rank's sources repeat (MPI's own exchange may then stand in; MPICH
 * orders repeated edges wrongly) and whether no rank forces
 * store-and-forward.  A third word agrees on the largest window bucket
 * (util/window.h): bucket b as the bits b and up, whose AND keeps the
 * bits from the largest b up.  Anything else takes the general
 * agreement. */
static int agree(det *d, const nh_hint *h, int order, int *native, int *no_stfw, int *chosen,
                 int *s)
{
    int rc, kf = -1;
    unsigned hash = cand_hash(d->c, d->ncand) ^ (h->iso == 1 ? 0x2545f491u : 0);
    uint64_t x = 0;
    /* Inferred candidates are all tried (the cheapest fit wins), others
     * until the first fit, and inferred ones too where the lists repeat a
     * peer (a property of the lists: every grid's template repeats it, and
     * pick then keeps the first fit). */
    int every = d->ncand > 0 && strcmp(d->c[0].source, "inferred") == 0;
    for (int k = 0; k < d->ncand && (every || kf < 0); k++)
        if ((d->pending[k] = nh_nbhd_torus_dests(&d->nbs[k], &d->c[k].g, d->rank, d->outdeg,
                                                 d->dsts, d->indeg) == 0) ||
            nh_nbhd_init(&d->nbs[k], &d->c[k].g, d->rank, d->outdeg, NULL, d->outdeg, d->dsts,
                         d->indeg, d->srcs) == 0) {
            d->fit[kf = k] = 1;
            every = every && !repeats_offset(&d->nbs[k]);
        }
    if (kf >= 0)
        kf = pick(d->c, d->ncand, d->fit, d->nbs);
    /* Repeated sources: the fit saw them where it sorted its lists. */
    *native = kf >= 0 && d->nbs[kf].src_repeats >= 0 ? !d->nbs[kf].src_repeats
                                                     : !repeats(d->srcs, d->indeg);
    if (kf >= 0 && !h->bad && order) {
        int head[3] = {(int)hash, d->outdeg, kf};
        x = hash62(fnv64(fnv64(0xcbf29ce484222325ull, head, 3), d->nbs[kf].off,
                         (size_t)d->outdeg * d->c[kf].g.ndims));
    }
    uint64_t v[3] = {x << 1 | (*native != 0), (~x & M62) << 1 | (*no_stfw != 0), ~0ull << d->win};
    if ((rc = and_all(v, d->graph, d->size)))
        return rc;
    d->win = __builtin_ctzll(v[2]); /* bit 63 is set on every rank */
    uint64_t all = v[0] >> 1, any = ~(v[1] >> 1) & M62;
    if (all == any && all != 0) {
        *chosen = kf;
        *s = d->outdeg;
        *native = (int)(v[0] & 1);
        *no_stfw = (int)(v[1] & 1);
        return MPI_SUCCESS;
    }
    drop_fits(d);                          /* the general agreement builds them again */
    *native = !repeats(d->srcs, d->indeg); /* the sources themselves, templates may differ */
    return general_agree(d, h, order, hash, native, no_stfw, chosen, s);
}

/* A neighborhood built from the destinations alone (nh_nbhd_torus_dests)
 * takes its sources at the first collective (nh_plan_ready) or schedule
 * (nh_plan_sched): the plan keeps a copy of the list. */
static int pend_sources(nh_plan *p, const det *d, int k)
{
    if (!d->pending[k])
        return MPI_SUCCESS;
    if (!(p->pend_srcs = malloc(((size_t)d->indeg + 1) * sizeof(int))))
        return MPI_ERR_NO_MEM;
    memcpy(p->pend_srcs, d->srcs, (size_t)d->indeg * sizeof(int));
    return MPI_SUCCESS;
}

int nh_plan_create(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h, const nh_lists *lists,
                   nh_plan **out)
{
    int rc, old_rank, old_size, weighted;
    int *srcs = NULL, *dsts = NULL, *sw = NULL, *dw = NULL;
    det d;
    nh_plan *p = calloc(1, sizeof(*p));
    *out = NULL;
    if (!p)
        return MPI_ERR_NO_MEM;
    nh_res_add(NH_RES_PLAN, 1);
    memset(&d, 0, sizeof(d));
    d.graph = graph;
    d.win = p->window = nh_window_mine();
    p->pcomm = MPI_COMM_NULL;
    p->refs = 1;
    p->dup_of = -1;
    p->tag_ub = tag_ub;
    p->id = nh_atomic_add(&next_plan_id, 1) - 1;
    for (int o = 0; o < NH_OP_COUNT; o++)
        p->algo_info[o] = h->algo;
    p->ports = h->ports ? h->ports : nh_cfg.ports;

    if ((rc = PMPI_Comm_rank(graph, &d.rank)) || (rc = PMPI_Comm_size(graph, &d.size)) ||
        (rc = PMPI_Comm_rank(comm_old, &old_rank)) || (rc = PMPI_Comm_size(comm_old, &old_size)))
        goto fail;
    if (lists) { /* the caller's own lists, in the graph's ranks */
        d.indeg = lists->indeg;
        d.outdeg = lists->outdeg;
        d.srcs = lists->srcs;
        d.dsts = lists->dsts;
    } else {
        if ((rc = PMPI_Dist_graph_neighbors_count(graph, &d.indeg, &d.outdeg, &weighted)))
            goto fail;
        srcs = malloc(((size_t)d.indeg + 1) * sizeof(int));
        sw = malloc(((size_t)d.indeg + 1) * sizeof(int));
        dsts = malloc(((size_t)d.outdeg + 1) * sizeof(int));
        dw = malloc(((size_t)d.outdeg + 1) * sizeof(int));
        rc = MPI_ERR_NO_MEM;
        if (!srcs || !sw || !dsts || !dw)
            goto fail;
        if ((rc = PMPI_Dist_graph_neighbors(graph, d.indeg, srcs, sw, d.outdeg, dsts, dw)))
            goto fail;
        d.srcs = srcs;
        d.dsts = dsts;
    }
    p->indeg = d.indeg;
    p->outdeg = d.outdeg;

    /* Everyone takes the same branch: the hint and MPI_THREAD_MULTIPLE are
     * global properties (a hint that differs across ranks fails the
     * candidate hash). */
    int no_stfw = 0;
    if (!nh_active || h->iso == 0)
        goto attach;
    d.ncand = candidates(comm_old, d.size, h, d.c);
    int chosen = -1, s = 0, forces = 0, native = 0; /* agree() */
    for (int o = 0; o < NH_OP_COUNT; o++)
        forces |= nh_requested_algo(p, (nh_op)o) == NH_ALGO_STFW;
    no_stfw = !forces;
    if ((rc = agree(&d, h, old_rank == d.rank && old_size == d.size, &native, &no_stfw, &chosen,
                    &s)))
        goto fail;
    p->window = d.win;
    if (chosen >= 0) {
        p->isomorphic = 1;
        p->native_ok = native;
        p->hinted = h->iso == 1;
        p->source = d.c[chosen].source;
        p->nb = d.nbs[chosen];
        d.fit[chosen] = 0; /* ownership moves to the plan */
        if ((rc = pend_sources(p, &d, chosen)))
            goto fail;
        p->coupled = -1;   /* nh_plan_coupled */
        p->lazy_pcomm = 1; /* made at the first collective (nh_plan_ready) */
        if ((rc = node_map(p, graph, d.size)))
            goto fail;
    }
attach:
    /* Store-and-forward for irregular graphs (or where forced): every
     * rank gets here together (nh_active is global); an isomorphic graph
     * on which no rank forces it skips the set-up's reductions. */
    if (nh_active && !(p->isomorphic && no_stfw) &&
        (rc = nh_stfw_setup(p, graph, d.indeg, d.srcs, d.outdeg, d.dsts, h->stfw_dims)))
        goto fail;
    if ((rc = PMPI_Comm_set_attr(graph, plan_keyval, p)))
        goto fail;
    *out = p;
    p = NULL;
    rc = MPI_SUCCESS;
fail:
    drop_fits(&d);
    if (p) /* not attached: its only reference */
        nh_plan_unref(p);
    free(srcs);
    free(dsts);
    free(sw);
    free(dw);
    free(d.mine);
    free(d.perm);
    return rc;
}
