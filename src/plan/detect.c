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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/stfw_setup.h"
#include "nh.h"
#include "core/parse.h"
#include "util/sync.h"

#define NH_MAXCAND 6

static int plan_keyval = MPI_KEYVAL_INVALID;
static int next_plan_id;

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
        nh_nbhd_fini(&p->nb);
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
    p->outdeg = from->outdeg;
    p->indeg = from->indeg;
    p->hinted = from->hinted;
    if (st) /* the re-check's state so far: the same on every rank at the copy */
        *st = *from->stfw;
    p->stfw = st;
    p->node_of = root->node_of;
    p->create_us = from->create_us;
    p->create_mpi_us = from->create_mpi_us;
    *(nh_plan **)out = p;
    *flag = 1;
    return MPI_SUCCESS;
}

int nh_plan_ready(nh_plan *p, MPI_Comm comm)
{
    if (!p->lazy_pcomm)
        return MPI_SUCCESS;
    p->lazy_pcomm = 0;
    return p->pcomm != MPI_COMM_NULL ? MPI_SUCCESS : nh_comm_dup(comm, &p->pcomm);
}

int nh_plan_init(void)
{
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
} cand;

static int add_cand(cand *c, int n, const nh_grid *g, const char *source)
{
    for (int i = 0; i < n; i++)
        if (nh_grid_equiv(&c[i].g, g))
            return n;
    c[n].g = *g;
    c[n].source = source;
    return n + 1;
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
    if (n == 0 && h->ndims == 0) {
        for (int d = 1; d <= 4 && n < NH_MAXCAND; d++) {
            memset(dims, 0, sizeof(dims));
            if (PMPI_Dims_create(size, d, dims) == MPI_SUCCESS &&
                nh_grid_init(&g, d, dims, NULL) == 0)
                n = add_cand(c, n, &g, "inferred");
        }
    }
    return n;
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
    if (!p->coupled || (nh_cfg.cost.node <= 0 && nh_cfg.cost.link <= 0))
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
    int *v = malloc(((size_t)n + 1) * sizeof(int)), r = 0;
    if (!v)
        return 1;
    memcpy(v, ranks, (size_t)n * sizeof(int));
    qsort(v, (size_t)n, sizeof(int), cmp_int);
    for (int i = 1; i < n && !r; i++)
        r = v[i] == v[i - 1];
    free(v);
    return r;
}

/* Two independent 30-bit hashes of n ints (as non-negative ints, so that
 * -h is representable). */
static void hash2(const int *v, size_t n, int *h1, int *h2)
{
    unsigned a = 2166136261u, b = 0x9747b28cu;
    for (size_t i = 0; i < n; i++) {
        a = (a ^ (unsigned)v[i]) * 16777619u;
        b = (b ^ (unsigned)v[i]) * 0x5bd1e995u;
        b ^= b >> 15;
    }
    *h1 = (int)(a & 0x3fffffff);
    *h2 = (int)(b & 0x3fffffff);
}

/* The fast agreement: one MIN reduction over what each rank knows alone.
 * Where every rank's own sorted offsets on a candidate grid are the same
 * (tori: equal hashes and degrees everywhere) and fit its lists, they are
 * the common template and no broadcast is needed.  The reduction also
 * carries the first rank with a malformed hint, the reorder and
 * candidate-list checks, repeated sources, and whether any rank forces
 * store-and-forward.  Values v enter as v and -v where all ranks must
 * agree (equal iff min(v) == -min(-v)). */
enum { FA_BAD, FA_ORDER, FA_CH, FA_NCH, FA_DEG, FA_NDEG, FA_NATIVE, FA_NOSTFW, FA_CAND };
#define FA_PER 5 /* per candidate: fits, h1, -h1, h2, -h2 */

static int fast_agree(MPI_Comm graph, int *v, int n)
{
    return PMPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MIN, graph);
}

static int fast_same(const int *v, int i)
{
    return v[i] == -v[i + 1];
}

int nh_plan_create(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h)
{
    int rc, rank, size, old_rank, old_size, indeg, outdeg, weighted;
    int *srcs = NULL, *dsts = NULL, *sw = NULL, *dw = NULL, *tbuf = NULL, *mine = NULL,
        *perm = NULL;
    nh_nbhd nbs[NH_MAXCAND];
    int fit[NH_MAXCAND] = {0}, no_stfw = 0;
    cand c[NH_MAXCAND];
    nh_plan *p = calloc(1, sizeof(*p));
    if (!p)
        return MPI_ERR_NO_MEM;
    nh_res_add(NH_RES_PLAN, 1);
    memset(nbs, 0, sizeof(nbs));
    p->pcomm = MPI_COMM_NULL;
    p->refs = 1;
    p->dup_of = -1;
    int *ub, flag = 0;
    p->tag_ub = 32767; /* the least MPI allows */
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag)
        p->tag_ub = *ub;
    p->id = nh_atomic_add(&next_plan_id, 1) - 1;
    for (int o = 0; o < NH_OP_COUNT; o++)
        p->algo_info[o] = h->algo;

    if ((rc = PMPI_Comm_rank(graph, &rank)) || (rc = PMPI_Comm_size(graph, &size)) ||
        (rc = PMPI_Comm_rank(comm_old, &old_rank)) || (rc = PMPI_Comm_size(comm_old, &old_size)) ||
        (rc = PMPI_Dist_graph_neighbors_count(graph, &indeg, &outdeg, &weighted)))
        goto fail;
    p->indeg = indeg;
    p->outdeg = outdeg;
    srcs = malloc(((size_t)indeg + 1) * sizeof(int));
    sw = malloc(((size_t)indeg + 1) * sizeof(int));
    dsts = malloc(((size_t)outdeg + 1) * sizeof(int));
    dw = malloc(((size_t)outdeg + 1) * sizeof(int));
    perm = malloc(((size_t)outdeg + 1) * sizeof(int));
    mine = malloc(((size_t)NH_MAXCAND * outdeg * NH_MAXDIMS + 1) * sizeof(int));
    rc = MPI_ERR_NO_MEM;
    if (!srcs || !sw || !dsts || !dw || !perm || !mine)
        goto fail;
    if ((rc = PMPI_Dist_graph_neighbors(graph, indeg, srcs, sw, outdeg, dsts, dw)))
        goto fail;

    /* Everyone takes the same branch: the hint and MPI_THREAD_MULTIPLE are
     * global properties (a hint that differs across ranks fails the
     * candidate hash below). */
    if (!nh_active || h->iso == 0)
        goto attach;

    int ncand = candidates(comm_old, size, h, c);
    int local_ok[NH_MAXCAND];
    for (int k = 0; k < ncand; k++)
        local_ok[k] = nh_local_offsets(&c[k].g, rank, outdeg, dsts, +1,
                                       mine + (size_t)k * outdeg * NH_MAXDIMS, perm) == 0;

    /* 0. The fast agreement (fast_agree): tori settle here. */
    /* The full length always: ranks with different hints have different
     * candidate counts (and then different candidate hashes). */
    int fa[FA_CAND + FA_PER * NH_MAXCAND] = {0}, nfa = FA_CAND + FA_PER * NH_MAXCAND, forces = 0;
    unsigned hash = cand_hash(c, ncand) ^ (h->iso == 1 ? 0x2545f491u : 0);
    for (int o = 0; o < NH_OP_COUNT; o++)
        forces |= nh_requested_algo(p, (nh_op)o) == NH_ALGO_STFW;
    fa[FA_BAD] = h->bad ? rank : size;
    fa[FA_ORDER] = old_rank == rank && old_size == size; /* no reordering */
    fa[FA_CH] = (int)hash;
    fa[FA_NCH] = -(int)hash;
    fa[FA_DEG] = outdeg;
    fa[FA_NDEG] = -outdeg;
    fa[FA_NATIVE] = !repeats(srcs, indeg);
    fa[FA_NOSTFW] = !forces;
    for (int k = 0; k < ncand; k++) {
        int *own = mine + (size_t)k * outdeg * NH_MAXDIMS, *v = fa + FA_CAND + FA_PER * k;
        v[0] = fit[k] = local_ok[k] && nh_nbhd_init(&nbs[k], &c[k].g, rank, outdeg, own, outdeg,
                                                    dsts, indeg, srcs) == 0;
        hash2(own, (size_t)outdeg * c[k].g.ndims, &v[1], &v[3]);
        v[2] = -v[1];
        v[4] = -v[3];
    }
    if ((rc = fast_agree(graph, fa, nfa)))
        goto fail;
    if (fa[FA_BAD] < size) { /* a malformed hint (api/lifecycle.c): the first such rank says why */
        if (rank == fa[FA_BAD])
            nh_error("%s", h->msg);
        rc = MPI_ERR_INFO_VALUE;
        goto fail;
    }
    int chosen = -1, s = outdeg, native = fa[FA_NATIVE];
    no_stfw = fa[FA_NOSTFW];
    if (fa[FA_ORDER] && fast_same(fa, FA_CH) && fast_same(fa, FA_DEG))
        for (int k = 0; k < ncand && chosen < 0; k++) {
            const int *v = fa + FA_CAND + FA_PER * k;
            if (v[0] && fast_same(v, 1) && fast_same(v, 3))
                chosen = k;
        }
    for (int k = 0; chosen < 0 && k < ncand; k++)
        if (fit[k]) { /* the general agreement builds them again */
            nh_nbhd_fini(&nbs[k]);
            memset(&nbs[k], 0, sizeof(nbs[k]));
            fit[k] = 0;
        }
    if (chosen < 0 && fa[FA_ORDER] && fast_same(fa, FA_CH)) {
        /* 1. The rank with the largest out-degree holds the full template. */
        struct {
            int deg, rank;
        } in = {outdeg, rank}, top;
        if ((rc = PMPI_Allreduce(&in, &top, 1, MPI_2INT, MPI_MAXLOC, graph)))
            goto fail;
        s = top.deg;
        /* 2. It broadcasts its sorted offsets for every candidate. */
        size_t per = (size_t)s * NH_MAXDIMS;
        tbuf = malloc((NH_MAXCAND * per + NH_MAXCAND) * sizeof(int));
        rc = MPI_ERR_NO_MEM;
        if (!tbuf)
            goto fail;
        if (rank == top.rank)
            for (int k = 0; k < NH_MAXCAND; k++) {
                tbuf[NH_MAXCAND * per + k] = k < ncand && local_ok[k];
                if (k < ncand)
                    memcpy(tbuf + k * per, mine + (size_t)k * outdeg * NH_MAXDIMS,
                           (size_t)s * c[k].g.ndims * sizeof(int));
            }
        if ((rc = PMPI_Bcast(tbuf, (int)(NH_MAXCAND * per + NH_MAXCAND), MPI_INT, top.rank,
                             graph)))
            goto fail;
        /* 3. Does every rank fit?  One MIN reduction over the fit flags. */
        int agree[NH_MAXCAND];
        for (int k = 0; k < NH_MAXCAND; k++) {
            agree[k] = 0;
            if (k < ncand && local_ok[k] && tbuf[NH_MAXCAND * per + k])
                agree[k] = nh_nbhd_init(&nbs[k], &c[k].g, rank, s, tbuf + k * per, outdeg, dsts,
                                        indeg, srcs) == 0;
            fit[k] = agree[k];
        }
        if ((rc = PMPI_Allreduce(MPI_IN_PLACE, agree, NH_MAXCAND, MPI_INT, MPI_MIN, graph)))
            goto fail;
        for (int k = 0; k < ncand && chosen < 0; k++)
            if (agree[k])
                chosen = k;
    }
    if (chosen >= 0) {
        p->isomorphic = 1;
        p->native_ok = native;
        p->hinted = h->iso == 1;
        p->source = c[chosen].source;
        p->nb = nbs[chosen];
        fit[chosen] = 0; /* ownership moves to the plan */
        /* The coupling test walks the whole grid; skip it (and stay with a
         * size-independent choice) where that would be slow. */
        p->coupled =
            (long)size * (s + 1) <= 50000000L && nh_sizes_coupled(&c[chosen].g, s, p->nb.off);
        p->lazy_pcomm = 1; /* made at the first collective (nh_plan_ready) */
        if ((rc = node_map(p, graph, size)))
            goto fail;
    }
attach:
    /* Store-and-forward for irregular graphs (or where forced): every
     * rank gets here together (nh_active is global); an isomorphic graph
     * on which no rank forces it skips the set-up's reductions. */
    if (nh_active && !(p->isomorphic && no_stfw) &&
        (rc = nh_stfw_setup(p, graph, indeg, srcs, outdeg, dsts, h->stfw_dims)))
        goto fail;
    if ((rc = PMPI_Comm_set_attr(graph, plan_keyval, p)))
        goto fail;
    p = NULL;
    rc = MPI_SUCCESS;
fail:
    for (int k = 0; k < NH_MAXCAND; k++)
        if (fit[k])
            nh_nbhd_fini(&nbs[k]);
    if (p) /* not attached: its only reference */
        nh_plan_unref(p);
    free(srcs);
    free(dsts);
    free(sw);
    free(dw);
    free(tbuf);
    free(mine);
    free(perm);
    return rc;
}

const nh_sched *nh_plan_sched(nh_plan *p, nh_op op, nh_algo a)
{
    if (p->root) /* schedules belong to the analysis */
        p = p->root;
    /* Built once, on first use; duplicates used by other threads may ask
     * for the same schedule at the same time. */
    nh_sched *s = __atomic_load_n(&p->sched[op][a], __ATOMIC_ACQUIRE);
    if (s || !nh_algos[a].build)
        return s;
    nh_lock(NH_LOCK_MISC);
    if (!(s = p->sched[op][a])) {
        nh_algos[a].build(&p->nb, op, &s);
        if (s && p->node_of)
            nh_sched_node_stats(s, &p->nb.g, p->node_of, p->node_scratch);
        __atomic_store_n(&p->sched[op][a], s, __ATOMIC_RELEASE);
    }
    nh_unlock(NH_LOCK_MISC);
    return s;
}
