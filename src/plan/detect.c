/* Neighborhood capture and isomorphism detection, once per communicator.
 *
 * At graph creation every rank turns its neighbor lists into sorted
 * relative offsets for each candidate grid (Cartesian parent, info hint,
 * or MPI_Dims_create factorizations: plan/candidates.c), then the
 * agreement (plan/agree.c) settles which grid fits every rank's lists:
 * one collective where every rank's own offsets agree (a torus), one
 * allgather on up to NH_DET_GATHER ranks, elsewhere reductions that pick
 * the rank with the largest out-degree, broadcast its offsets as the
 * common template and tell which candidates every rank's lists fit (the
 * template filtered to the peers that exist).  Where none fits the plan
 * is not isomorphic (the calls then go to MPI unless store-and-forward
 * runs them: plan/stfw_setup.c).  The plan is cached as an attribute
 * whose delete callback frees it; its parts made on first use are
 * plan_sched.c's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/detect_int.h"
#include "plan/stfw_setup.h"
#include "plan/plan.h"
#include "core/parse.h"
#include "util/gpu.h"
#include "util/memo.h"
#include "util/mpilib.h"
#include "util/sync.h"
#include "util/window.h"

static int plan_keyval = MPI_KEYVAL_INVALID;
static int next_plan_id;
int nh_window_mine(void)
{
    return nh_cfg.window >= 0 ? nh_win_bucket_of(nh_cfg.window) : nh_win_bucket();
}

static int tag_ub = 32767; /* MPI_TAG_UB, read at nh_plan_init; the least MPI allows */

/* nh_plan_get's last answers per thread (util/memo.h), a communicator
 * with no plan among them (NULL); plan_gen bumped where a plan leaves a
 * communicator or joins one. */
static unsigned long plan_gen;
static __thread nh_comm_memo got NH_TLS_FAST;

static int plan_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    nh_memo_bump(&plan_gen);
    ((nh_plan *)attr)->released = 1;
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
    for (int k = 0; k < NH_EXT_COUNT; k++) { /* the engine's bindings point into the schedules */
        if (p->ext_fini[k])
            p->ext_fini[k](p, p->ext[k]);
        free(p->ext[k]);
    }
    if (p->pcomm != MPI_COMM_NULL)
        nh_comm_free(&p->pcomm);
    /* a plan that never left the cold tier and was never analyzed has no
     * schedules, neighborhood or store-and-forward set-up */
    int bare = p->cold && !p->cold->analyzed;
    if (p->cold)
        nh_plan_cold_end(p);
    free(p->lists); /* (a copy makes its own) */
    if (p->root) { /* a copy: the analysis is the original's */
        free(p->stfw);
        nh_plan_unref(p->root);
    } else if (!bare) {
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
        nh_stfw_pend_free(p);
        free(p->node_of);
    }
    free(p);
    nh_res_add(NH_RES_PLAN, -1);
}

void *nh_plan_ext_new(nh_plan *p, nh_ext_id id, size_t size, nh_ext_fini fini)
{
    if (!(p->ext[id] = nh_zalloc(size)))
        return NULL;
    p->ext_fini[id] = fini;
    return p->ext[id];
}

/* What makes a copy its own communicator's plan: a report id, one
 * reference (the attribute's), no private communicator yet. */
static void copy_identity(nh_plan *p, const nh_plan *from)
{
    nh_res_add(NH_RES_PLAN, 1);
    p->id = nh_atomic_add(&next_plan_id, 1) - 1;
    p->dup_of = from->id;
    p->refs = 1;
    p->pcomm = MPI_COMM_NULL;
    /* what the original's creation gave it (plan_new, api's creation) */
    p->tag_ub = from->tag_ub;
    memcpy(p->algo_info, from->algo_info, sizeof(p->algo_info));
    p->ports = from->ports;
    p->host_promised = from->host_promised;
    p->indeg = from->indeg;
    p->outdeg = from->outdeg;
    p->no_forward = from->no_forward;
    p->create_us = from->create_us;
    p->create_mpi_us = from->create_mpi_us;
}

/* A copy of a cold plan is cold too, with its own record and count: each
 * communicator is analyzed at its own call (no analysis is shared). */
static int copy_cold(const nh_plan *from, void *out, int *flag)
{
    const struct nh_plan_cold *k = from->cold;
    nh_plan *p = nh_zalloc(sizeof(*p) + sizeof(*k));
    char *msg = k->msg ? strdup(k->msg) : NULL;
    *flag = 0;
    if (!p || (k->msg && !msg)) {
        free(p);
        free(msg);
        return MPI_ERR_NO_MEM;
    }
    /* what a cold plan holds (copy_identity, the record): not an analysis
     * the original may already have made at a parent's point, waiting for
     * its switch */
    copy_identity(p, from);
    p->cold = (struct nh_plan_cold *)(p + 1);
    memcpy(p->cold, k, sizeof(*k));
    p->cold->msg = msg;
    p->cold->calls = 0;
    p->cold->ripe = 0;
    p->cold->switch_at = 0;
    p->cold->analyzed = 0;
    *(nh_plan **)out = p;
    *flag = 1;
    return MPI_SUCCESS;
}

/* MPI_Comm_dup, _dup_with_info and _idup of an analyzed communicator:
 * the copy shares the original's analysis (neighborhood, schedules,
 * store-and-forward set-up, node map; the original lives while copies
 * do) and has its own report id, decisions, binding cache, tag slots and
 * private communicator.  MPI runs this callback inside the duplication,
 * where nhood cannot start a collective of its own, so the private
 * communicator is made at the copy's first blocking collective
 * (nh_plan_ready; api/neighbor.c sends its starts to MPI until then where
 * MPI's exchange is right on it). */
static int plan_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    const nh_plan *from = in;
    nh_plan *root = from->root ? from->root : (nh_plan *)from;
    nh_memo_bump(&plan_gen); /* the copy's handle may be one remembered without a plan */
    if (nh_in_dup) { /* nhood's own private communicator: a plain one */
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (from->cold)
        return copy_cold(from, out, flag);
    nh_plan *p = nh_zalloc(sizeof(*p));
    nh_stfw *st = from->stfw ? nh_stfw_share(from->stfw) : NULL;
    *flag = 0;
    if (!p || (from->stfw && !st)) {
        free(p);
        free(st);
        return MPI_ERR_NO_MEM;
    }
    copy_identity(p, from);
    p->root = root;
    nh_atomic_add(&root->refs, 1);
    p->isomorphic = from->isomorphic;
    p->source = from->source;
    p->coupled = from->coupled;
    p->native_ok = from->native_ok;
    p->nb = root->nb;
    p->lazy_pcomm = from->pcomm != MPI_COMM_NULL || from->lazy_pcomm;
    p->hinted = from->hinted;
    p->window = from->window; /* agreed at the original's creation */
    p->gpu = from->gpu;
    p->stfw_wait = from->stfw_wait;
    p->stfw_when = from->stfw_when;
    p->stfw = st; /* the re-check's state so far: the same on every rank at the copy */
    p->node_of = root->node_of;
    p->nnodes = root->nnodes;
    p->node_ranks = root->node_ranks;
    *(nh_plan **)out = p;
    *flag = 1;
    return MPI_SUCCESS;
}

/* One finished creation's state is kept for the next: calloc'ing its
 * 6.6 KB per creation made glibc consolidate its fast bins each time
 * (7000 instructions, a tenth of a creation's cost at 2 ranks), and only
 * its first kilobyte needs zeroing (detect_int.h). */
static nh_plan_start *spare;

int nh_plan_init(MPI_Comm scope)
{
    int *ub, flag = 0;
    if (nh_mpi_Comm_get_attr(scope, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag)
        tag_ub = *ub;
    return nh_mpi_Comm_create_keyval(plan_copy, plan_delete, &plan_keyval, NULL);
}

void nh_plan_fini(void)
{
    free(__atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL));
    if (plan_keyval != MPI_KEYVAL_INVALID)
        nh_mpi_Comm_free_keyval(&plan_keyval);
}

/* p becomes graph's plan; graph's handle may be one nh_plan_get
 * remembered without a plan (freed and made again). */
static int plan_attach(MPI_Comm graph, nh_plan *p)
{
    int rc = nh_mpi_Comm_set_attr(graph, plan_keyval, p);
    if (!rc)
        nh_memo_bump(&plan_gen);
    return rc;
}

NH_HOT nh_plan *nh_plan_get(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    unsigned long gen = nh_memo_gen(&plan_gen);
    if (plan_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL)
        return NULL;
    if (nh_memo_find(&got, gen, comm, &v))
        return v;
    if (nh_mpi_Comm_get_attr(comm, plan_keyval, &v, &flag) != MPI_SUCCESS)
        return NULL;
    nh_memo_put(&got, comm, flag ? v : NULL);
    return flag ? v : NULL;
}

/* ---- detection ---- */

/* Where the cost model charges traffic that leaves nodes (NHOOD_COST_NODE
 * or NHOOD_COST_LINK) and auto chooses by block size: every rank's node.
 * Collective over graph; every rank gets a map, or none (a failed
 * allocation anywhere), so decisions stay identical. */
static int node_map(nh_plan *p, MPI_Comm graph, int size)
{
    if ((nh_cfg.cost.node <= 0 && nh_cfg.cost.link <= 0 && nh_cfg.cost.hop <= 0 &&
         nh_cfg.cost.hop_link <= 0) ||
        !nh_plan_coupled(p))
        return MPI_SUCCESS;
    int rc, node, ok;
    if ((rc = nh_node_leader(graph, &node)))
        return rc;
    /* the map, then room to number its nodes (one int per rank kept) */
    int *map = malloc((2 * (size_t)size + 1) * sizeof(int));
    ok = map != NULL;
    if (!(rc = nh_mpi_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, graph)) && ok &&
        !(rc = nh_mpi_Allgather(&node, 1, MPI_INT, map, 1, MPI_INT, graph))) {
        p->nnodes = nh_node_number(map, size, map + size);
        int *count = map + size; /* the numbering's room, free again */
        memset(count, 0, (size_t)p->nnodes * sizeof(int));
        for (int r = 0; r < size; r++)
            if (++count[map[r]] > p->node_ranks)
                p->node_ranks = count[map[r]];
        int *fit = realloc(map, ((size_t)size + 1) * sizeof(int));
        p->node_of = fit ? fit : map;
        return MPI_SUCCESS;
    }
    free(map);
    return rc;
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

/* A creation in progress: the plan, the analysis and the lists asked of
 * MPI (where the caller had none). */
struct nh_plan_start {
    nh_plan *p;
    int *srcs, *dsts, *sw, *dw;
    int detect, native, no_stfw;
    det d; /* last: start_alloc zeroes only up to its NH_DET_ZEROED */
};

static nh_plan_start *start_alloc(void)
{
    nh_plan_start *b = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);
    if (!b)
        return calloc(1, sizeof(*b));
    memset(b, 0, offsetof(nh_plan_start, d) + NH_DET_ZEROED);
    return b;
}

void nh_plan_abandon(nh_plan_start *b)
{
    if (!b)
        return;
    nh_det_fini(&b->d);
    if (b->p) /* not attached: its only reference */
        nh_plan_unref(b->p);
    free(b->srcs);
    free(b->dsts);
    free(b->sw);
    free(b->dw);
    free(__atomic_exchange_n(&spare, b, __ATOMIC_ACQ_REL));
}

/* A new plan: what creation knows before any analysis.  extra: bytes
 * after it in the same allocation (a cold plan's record). */
static nh_plan *plan_new(const nh_hint *h, size_t extra)
{
    nh_plan *p = nh_zalloc(sizeof(*p) + extra);
    if (!p)
        return NULL;
    nh_res_add(NH_RES_PLAN, 1);
    p->pcomm = MPI_COMM_NULL;
    p->refs = 1;
    p->dup_of = -1;
    p->tag_ub = tag_ub;
    p->id = nh_atomic_add(&next_plan_id, 1) - 1;
    for (int o = 0; o < NH_OP_COUNT; o++)
        p->algo_info[o] = h->algo;
    p->ports = h->ports ? h->ports : nh_cfg.ports;
    p->host_promised = h->host_buffers == 1                         ? NH_HOST_INFO
                       : h->host_buffers < 0 && nh_cfg.host_buffers ? NH_HOST_ENV
                                                                    : 0;
    return p;
}

/* The creation's local part and the start of its agreement on comm,
 * whose ranks are the graph's: comm_old before MPI creates the graph
 * (lists given, no reordering), else the graph or a communicator with
 * the graph's ranks in its order; topo (the graph) gives the lists where
 * lists is NULL.  k: a cold plan's record (b->p is that plan; comm_old
 * is not used), or NULL. */
static int start(nh_plan_start *b, MPI_Comm comm_old, MPI_Comm comm, MPI_Comm topo,
                 const nh_hint *h, const nh_lists *lists, const struct nh_plan_cold *k)
{
    int rc, old_rank, old_size, weighted;
    det *d = &b->d;
    nh_plan *p = b->p ? b->p : (b->p = plan_new(h, 0));
    d->req = MPI_REQUEST_NULL;
    if (!p)
        return MPI_ERR_NO_MEM;
    d->graph = comm;
    d->win = p->window = nh_window_mine();
    if ((rc = nh_mpi_Comm_rank(comm, &d->rank)) || (rc = nh_mpi_Comm_size(comm, &d->size)))
        return rc;
    old_rank = d->rank, old_size = d->size;
    if (!k && comm != comm_old &&
        ((rc = nh_mpi_Comm_rank(comm_old, &old_rank)) ||
         (rc = nh_mpi_Comm_size(comm_old, &old_size))))
        return rc;
    if (lists) { /* the caller's own lists, in the graph's ranks */
        d->indeg = lists->indeg;
        d->outdeg = lists->outdeg;
        d->srcs = lists->srcs;
        d->dsts = lists->dsts;
    } else {
        if ((rc = nh_mpi_Dist_graph_neighbors_count(topo, &d->indeg, &d->outdeg, &weighted)))
            return rc;
        b->srcs = malloc(((size_t)d->indeg + 1) * sizeof(int));
        b->sw = malloc(((size_t)d->indeg + 1) * sizeof(int));
        b->dsts = malloc(((size_t)d->outdeg + 1) * sizeof(int));
        b->dw = malloc(((size_t)d->outdeg + 1) * sizeof(int));
        if (!b->srcs || !b->sw || !b->dsts || !b->dw)
            return MPI_ERR_NO_MEM;
        if ((rc = nh_mpi_Dist_graph_neighbors(topo, d->indeg, b->srcs, b->sw, d->outdeg, b->dsts,
                                              b->dw)))
            return rc;
        d->srcs = b->srcs;
        d->dsts = b->dsts;
    }
    p->indeg = d->indeg;
    p->outdeg = d->outdeg;
    /* GPU buffers: where a runtime is loaded here (looked for now: it may
     * have come after MPI_Init) and in use (a CUDA context: util/gpu.h),
     * and host buffers are not promised, nhood's
     * CPU must keep off this graph's buffers; agreed below (any rank). */
    d->gpu = p->gpu = nh_active && nh_gpu_probe() && nh_gpu_in_use() && !p->host_promised;
    nh_stfw_pre(p, d->indeg, d->srcs, d->outdeg, d->dsts, h, d->stfw);
    /* Everyone takes the same branch: MPI_THREAD_MULTIPLE is a global
     * property, and nothing here branches on the hint (one that differs
     * across ranks fails the agreement: F_HINT, agree.c). */
    int forces = 0;
    for (int o = 0; o < NH_OP_COUNT; o++)
        forces |= nh_requested_algo(p, (nh_op)o) == NH_ALGO_STFW;
    b->no_stfw = !forces;
    /* isomorphic=false: no candidate, but the agreement all the same (a
     * rank that gave it takes the other ranks' collectives, and the hint
     * is agreed there: F_HINT, agree.c) */
    if (!(b->detect = nh_active))
        return MPI_SUCCESS;
    nh_grid parent;
    int order = k ? k->order : old_rank == d->rank && old_size == d->size;
    int has_parent = k ? k->has_parent : nh_det_parent(comm_old, &parent);
    if (k)
        parent = k->parent;
    d->ncand = h->iso == 0
                   ? 0
                   : nh_det_candidates(has_parent && parent.size == d->size ? &parent : NULL,
                                       d->size, h, d->c);
    return nh_det_agree_start(d, h, order, &b->native, b->no_stfw, comm);
}

int nh_plan_begin(MPI_Comm comm_old, const nh_hint *h, const nh_lists *lists, nh_plan_start **out)
{
    nh_plan_start *b = start_alloc();
    int rc = b ? start(b, comm_old, comm_old, comm_old, h, lists, NULL) : MPI_ERR_NO_MEM;
    if (rc) {
        nh_plan_abandon(b);
        b = NULL;
    }
    *out = b;
    return rc;
}

/* The private communicator, where the plan needs one: at the end of an
 * analysis, which every rank is inside (a start must not make it). */
static int make_pcomm(nh_plan *p, MPI_Comm comm)
{
    if (!p->lazy_pcomm)
        return MPI_SUCCESS;
    p->lazy_pcomm = 0;
    return p->pcomm != MPI_COMM_NULL ? MPI_SUCCESS : nh_comm_dup(comm, &p->pcomm);
}

/* The rest of the analysis b started: the agreement, the neighborhood,
 * the node map, store-and-forward's set-up; collective over graph. */
static int finish(nh_plan_start *b, MPI_Comm graph, const nh_hint *h)
{
    int rc, chosen = -1, s = 0;
    det *d = &b->d;
    nh_plan *p = b->p;
    d->graph = graph; /* the rest of the agreement is the graph's */
    if (b->detect && (rc = nh_det_agree_finish(d, h, &b->native, &b->no_stfw, &chosen, &s)))
        return rc;
    p->window = d->win;
    p->gpu = b->detect ? d->gpu : 0; /* agreed; without detection store-and-forward's words say */
    if (chosen >= 0) {
        p->isomorphic = 1;
        p->native_ok = b->native;
        p->hinted = h->iso == 1;
        p->source = d->c[chosen].source;
        p->nb = d->nbs[chosen];
        d->fit[chosen] = 0; /* ownership moves to the plan */
        if ((rc = pend_sources(p, d, chosen)))
            return rc;
        p->coupled = -1;   /* nh_plan_coupled */
        p->lazy_pcomm = 1; /* made as the analysis ends (make_pcomm) */
        if ((rc = node_map(p, graph, d->size)))
            return rc;
    } else if (b->detect && !(p->native_ok = b->native)) {
        /* A graph that is not isomorphic on which some rank lists a source
         * twice: where nhood would hand an all-to-all to MPI, its direct
         * exchange over the lists stands in, as MPICH 4.0 to 4.2 order a
         * repeated source's blocks wrongly (select.c) */
        p->lazy_pcomm = 1;
        if (nh_build_direct_lists(d->rank, d->indeg, d->srcs, d->outdeg, d->dsts, NH_OP_ALLTOALL,
                                  &p->sched[NH_OP_ALLTOALL][NH_ALGO_DIRECT]))
            return MPI_ERR_NO_MEM;
    }
    /* Store-and-forward for irregular graphs (or where forced): every
     * rank gets here together (nh_active is global); an isomorphic graph
     * on which no rank forces it skips the set-up's reductions. */
    if (!nh_active || (p->isomorphic && b->no_stfw))
        return MPI_SUCCESS;
    return d->stfw_agreed ? nh_stfw_setup_agreed(p, graph, d->indeg, d->srcs, d->outdeg, d->dsts,
                                                 h->stfw_dims, d->stfw)
                          : nh_stfw_setup(p, graph, d->indeg, d->srcs, d->outdeg, d->dsts,
                                          h->stfw_dims, d->stfw);
}

int nh_plan_create(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h, const nh_lists *lists,
                   nh_plan_start *b, nh_plan **out)
{
    int rc = MPI_SUCCESS;
    *out = NULL;
    if ((!b && (!(b = start_alloc()) || (rc = start(b, comm_old, graph, graph, h, lists, NULL)))) ||
        (rc = finish(b, graph, h)) || (rc = make_pcomm(b->p, graph)) ||
        (rc = plan_attach(graph, b->p)))
        goto fail;
    *out = b->p;
    b->p = NULL;
fail:
    nh_plan_abandon(b);
    return rc;
}

int nh_plan_create_cold(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h, const nh_lists *lists,
                        nh_plan **out)
{
    int rc, rank, old_rank, weighted;
    nh_plan *p = plan_new(h, sizeof(struct nh_plan_cold));
    *out = NULL;
    if (!p)
        return MPI_ERR_NO_MEM;
    struct nh_plan_cold *k = p->cold = (struct nh_plan_cold *)(p + 1);
    memcpy(k->hint, h, sizeof(k->hint));
    if (h->bad && !(k->msg = strdup(h->msg))) {
        rc = MPI_ERR_NO_MEM;
        goto fail;
    }
    k->repeats = nh_mpilib_dup_edges_wrong() ? -1 : 0; /* (only asked where that holds) */
    if (lists) { /* no reordering: the graph's ranks are comm_old's */
        p->indeg = lists->indeg;
        p->outdeg = lists->outdeg;
        k->order = 1;
        if (k->repeats) /* (MPI_PROC_NULL twice counts: that rank takes the longer way) */
            k->repeats = nh_det_repeats(lists->srcs, lists->indeg) ||
                         nh_det_repeats(lists->dsts, lists->outdeg);
    } else if ((rc = nh_mpi_Comm_rank(graph, &rank)) ||
               (rc = nh_mpi_Comm_rank(comm_old, &old_rank)) ||
               (rc = nh_mpi_Dist_graph_neighbors_count(graph, &p->indeg, &p->outdeg, &weighted))) {
        goto fail;
    } else { /* (a distributed graph has comm_old's group: only reordering moves ranks) */
        k->order = old_rank == rank;
    }
    k->has_parent = nh_det_parent(comm_old, &k->parent);
    if ((rc = plan_attach(graph, p)))
        goto fail;
    *out = p;
    return MPI_SUCCESS;
fail:
    nh_plan_unref(p);
    return rc;
}

int nh_plan_nripe;

int nh_plan_cold_due(nh_plan *p, int blocking)
{
    struct nh_plan_cold *k = p->cold;
    int due = ++k->calls > nh_cfg.warmup;
    if (k->switch_at) /* analyzed at a parent's point (nh_plan_analyze_at) */
        return k->calls >= k->switch_at ? NH_COLD_ENDS : 0;
    if (due && !blocking && !k->ripe) {
        k->ripe = 1;
        __atomic_add_fetch(&nh_plan_nripe, 1, __ATOMIC_RELAXED);
    }
    return due && blocking;
}

int nh_plan_cold_ripe(const nh_plan *p)
{
    return p->cold && p->cold->ripe;
}

int nh_plan_cold_calls(const nh_plan *p, int *bad)
{
    *bad = p->cold->msg != NULL;
    return p->cold->switch_at ? -1 : p->cold->calls;
}

void nh_plan_cold_end(nh_plan *p)
{
    struct nh_plan_cold *k = p->cold;
    free(k->msg);
    if (k->ripe)
        __atomic_sub_fetch(&nh_plan_nripe, 1, __ATOMIC_RELAXED);
    p->cold = NULL; /* (the rest of its memory is the plan's) */
}

/* A cold plan's analysis with its traffic on xcomm (the graph's ranks in
 * the graph's order; the graph itself, or a communicator of nhood's that
 * becomes the private one where the plan needs one, *xcomm then NULL). */
static int analyze(nh_plan *p, MPI_Comm graph, MPI_Comm *xcomm)
{
    struct nh_plan_cold *k = p->cold;
    nh_plan_start *b = start_alloc();
    nh_hint h;
    int rc = MPI_ERR_NO_MEM;
    k->analyzed = 1;
    memcpy(&h, k->hint, sizeof(k->hint));
    snprintf(h.msg, sizeof(h.msg), "%s", k->msg ? k->msg : "");
    if (b) {
        b->p = p;
        if (!(rc = start(b, *xcomm, *xcomm, graph, &h, NULL, k)) && !(rc = finish(b, *xcomm, &h))) {
            if (*xcomm != graph && p->lazy_pcomm && p->pcomm == MPI_COMM_NULL) {
                p->pcomm = *xcomm;
                *xcomm = MPI_COMM_NULL;
            }
            rc = make_pcomm(p, *xcomm);
        }
        b->p = NULL; /* the communicator's */
        nh_plan_abandon(b);
    }
    if (rc) /* the calls go to MPI (this one fails) */
        p->isomorphic = 0;
    return rc;
}

int nh_plan_analyze(nh_plan *p, MPI_Comm comm)
{
    int rc = analyze(p, comm, &comm);
    nh_plan_cold_end(p);
    return rc;
}

int nh_plan_analyze_at(nh_plan *p, MPI_Comm graph, MPI_Comm *xcomm, int switch_at)
{
    int rc = analyze(p, graph, xcomm);
    struct nh_plan_cold *k = p->cold;
    if (k->ripe) {
        k->ripe = 0;
        __atomic_sub_fetch(&nh_plan_nripe, 1, __ATOMIC_RELAXED);
    }
    k->switch_at = switch_at;
    return rc;
}
