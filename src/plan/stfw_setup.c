/* Store-and-forward neighborhood collectives: the set-up.
 *
 * The agreement (collective, once per communicator) settles whether STFW
 * runs for each operation, identically on every rank: the largest out-
 * and in-degree, the total edge count, the requests (NHOOD_ALGO /
 * nhood_algorithm, NHOOD_STFW_DIMS / nhood_stfw_dims), which must be the
 * same on every rank, so ranks that disagree are detected rather than
 * left in different collectives, and the evidence that a set-up pays
 * back: the facts nh_stfw_facts declares (core/facts.h).  Graph creation
 * carries them in its own collective on up to 64 ranks (plan/agree.c),
 * in two reductions beyond.  The cost model compares one
 * message per neighbor with each VPT dimension; where STFW can win (or
 * is forced) every rank gathers all neighbor lists (an allgatherv of the
 * destination and source lists: O(edges) memory), runs the pure builder
 * for itself, and caches its schedule.  A last reduction confirms every
 * rank built it (an allocation failure on one rank turns STFW off
 * everywhere) and yields the message counts for the report.
 *
 * When.  That set-up costs about eight collectives and the lists' volume:
 * it runs at creation where it is forced or pays back by the evidence
 * (the calls this process made per graph communicator it called, agreed as
 * their minimum, times the modeled gain per call, at least the modeled
 * set-up cost: amortized()), else at the communicator's first blocking
 * call (nh_stfw_lazy), where every rank is sure to take part; a
 * nonblocking or persistent call never waits for other ranks, so until
 * then they run the other algorithms (the report: stfw_setup=waiting,
 * why=stfw_waiting).  A graph created, used once and freed pays nothing.
 *
 * The schedules run on the engine (exec/engine.h) with header framing:
 * counts may change from call to call, and intermediates learn the sizes
 * of blocks in transit from the messages. */
#include "plan/stfw_setup.h"
#include "util/host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The block sizes the set-up prices (core/stfw.h: NH_STFW_DIMS_BYTES and
 * the others).  Under auto, the first blocking call of an operation
 * decides again with the mean block it moves (select/stfw_choice.c),
 * either way, for every later call of that operation. */

/* ---- set-up ---- */

static int distinct_peers(int n, const int *list, int self)
{
    int c = 0;
    for (int j = 0; j < n; j++) {
        int seen = list[j] == self;
        for (int k = 0; k < j && !seen; k++)
            seen = list[k] == list[j];
        c += !seen;
    }
    return c;
}

/* Simulation (nh_host_simulated) only: rank 0 reads every rank's list
 * where it lies, since all simulated ranks share one address space.  A
 * gather into one rank is the simulator's slowest collective (K flows
 * through one link, each re-solved at every other's start and end: 21 s
 * of a 2048-rank run for the four of the lists), and the set-up is not
 * what a simulation times.  Rank 0 broadcasts the addresses of its
 * degree and row arrays, each rank writes its own entries there, and
 * after a barrier rank 0 has them; each list stays where it is while its
 * rank is in the set-up (build_on_0's barrier comes after rank 0 has
 * built).  Where rank 0 has no memory it gets no lists, and the build
 * fails on it. */
static int lists_by_address(MPI_Comm graph, int K, int rank, int deg, const int *list,
                            int **degs_out, int ***rows_out)
{
    int rc, *degs = NULL, **rows = NULL;
    MPI_Aint addr[2] = {0, 0};
    *degs_out = NULL;
    *rows_out = NULL;
    if (rank == 0) {
        degs = malloc((size_t)K * sizeof(int));
        rows = malloc((size_t)K * sizeof(int *));
        if (degs && rows) {
            addr[0] = (MPI_Aint)(uintptr_t)degs;
            addr[1] = (MPI_Aint)(uintptr_t)rows;
        }
    }
    if ((rc = nh_mpi_Bcast(addr, 2, MPI_AINT, 0, graph)))
        goto out;
    if (addr[0]) {
        ((int *)(uintptr_t)addr[0])[rank] = deg;
        ((int **)(uintptr_t)addr[1])[rank] = (int *)(uintptr_t)list;
    }
    if ((rc = nh_mpi_Barrier(graph)) || !addr[0])
        goto out;
    *degs_out = degs; /* (rank 0; NULL elsewhere) */
    *rows_out = rows;
    return MPI_SUCCESS;
out:
    free(degs);
    free(rows);
    return rc;
}

/* Every rank's lists, gathered (counts first, then the lists) on every
 * rank; in a simulation (root0) on rank 0 only, by address (the others
 * get NULLs). */
static int gather_lists(MPI_Comm graph, int K, int deg, const int *list, int root0, int **degs_out,
                        int **all_out, int ***rows_out)
{
    int rank, rc;
    if ((rc = nh_mpi_Comm_rank(graph, &rank)))
        return rc;
    *all_out = NULL;
    if (root0)
        return lists_by_address(graph, K, rank, deg, list, degs_out, rows_out);
    rc = MPI_ERR_NO_MEM;
    int *degs = malloc((size_t)K * sizeof(int)), *displs = malloc((size_t)K * sizeof(int));
    int *all = NULL, **rows = malloc((size_t)K * sizeof(int *));
    if (!degs || !displs || !rows)
        goto out;
    if ((rc = nh_mpi_Allgather(&deg, 1, MPI_INT, degs, 1, MPI_INT, graph)))
        goto out;
    long tot = 0;
    for (int r = 0; r < K; r++) {
        displs[r] = (int)tot;
        tot += degs[r];
    }
    rc = MPI_ERR_NO_MEM;
    if (tot > INT32_MAX || !(all = malloc(((size_t)tot + 1) * sizeof(int))))
        goto out;
    if ((rc = nh_mpi_Allgatherv(list, deg, MPI_INT, all, degs, displs, MPI_INT, graph)))
        goto out;
    for (int r = 0; r < K; r++)
        rows[r] = all + displs[r];
    *degs_out = degs;
    *all_out = all;
    *rows_out = rows;
    degs = NULL;
    all = NULL;
    rows = NULL;
out:
    free(degs);
    free(displs);
    free(all);
    free(rows);
    return rc;
}

/* Simulation (nh_host_simulated) only: every simulated rank lives in one
 * address space, and K ranks each building its schedule from all K
 * ranks' lists costs the simulator O(K * edges).  There rank 0 alone
 * reads the lists (lists_by_address) and builds every rank's schedule in
 * one pass of the same builder (me < 0), and hands each rank its own by
 * address.  The schedules are the ones each rank would have built. */
static int build_on_0(MPI_Comm graph, const nh_stfw_graph *g, const nh_vpt *v, nh_op op, int rank,
                      int *ok, nh_sched **mine)
{
    nh_sched **all = NULL;
    MPI_Aint addr = 0;
    int rc;
    if (rank == 0 && *ok && (all = calloc((size_t)g->K, sizeof(*all)))) {
        if (nh_stfw_build(g, v, op, -1, all) == NH_STFW_OK)
            addr = (MPI_Aint)(uintptr_t)all;
        else
            free(all);
    }
    if ((rc = nh_mpi_Bcast(&addr, 1, MPI_AINT, 0, graph)))
        return rc;
    if (addr) {
        nh_sched *s = ((nh_sched **)(uintptr_t)addr)[rank];
        if (*ok)
            *mine = s;
        else /* this rank failed before; the reduction after turns STFW off */
            nh_sched_free(s);
    }
    *ok = *ok && addr != 0;
    /* every rank has taken its own before rank 0 frees the array */
    rc = nh_mpi_Barrier(graph);
    if (rank == 0 && addr)
        free(all);
    return rc;
}

void nh_stfw_free(nh_plan *p)
{
    if (p->stfw_built) { /* built at a copy's call, never adopted */
        nh_plan q = {.stfw = p->stfw_built};
        p->stfw_built = NULL;
        nh_stfw_free(&q);
    }
    nh_stfw *st = p->stfw;
    if (!st)
        return;
    for (int o = 0; o < NH_OP_COUNT; o++)
        nh_sched_free(st->sched[o]);
    nh_vpt_fini(&st->v);
    free(st);
    p->stfw = NULL;
}

/* Evidence that a set-up pays back: the neighborhood calls this process
 * made per graph communicator it called (relaxed counters: a figure, not
 * a synchronization). */
static long calls_seen, graphs_seen;

NH_HOT void nh_stfw_count_call(nh_plan *p)
{
    if (!p->called && !__atomic_exchange_n(&p->called, 1, __ATOMIC_RELAXED))
        __atomic_add_fetch(&graphs_seen, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&calls_seen, 1, __ATOMIC_RELAXED);
}

const nh_fact nh_stfw_facts[NH_STFW_PRE] = {
    [NH_STFW_OUTDEG] = {NH_FACT_MAX, 0},   [NH_STFW_INDEG] = {NH_FACT_MAX, 0},
    [NH_STFW_WANT] = {NH_FACT_SAME, 0},    [NH_STFW_WANT + 1] = {NH_FACT_SAME, 0},
    [NH_STFW_DIMS] = {NH_FACT_SAME, 0},    [NH_STFW_PROCNULL] = {NH_FACT_MAX, 0},
    [NH_STFW_WINDOW] = {NH_FACT_MAX, 0},   [NH_STFW_CALLS] = {NH_FACT_MIN, 0},
    [NH_STFW_SETUP] = {NH_FACT_SAME, 0},   [NH_STFW_GPU] = {NH_FACT_MAX, 0},
    [NH_STFW_EDGES] = {NH_FACT_SUM, 0},
};
_Static_assert(NH_OP_COUNT == 2, "nh_stfw_facts lists two ops' NH_STFW_WANT");

void nh_stfw_pre(const nh_plan *p, int indeg, const int *srcs, int outdeg, const int *dsts,
                 const nh_hint *h, long long *pre)
{
    /* What this rank asks for: forced (2), automatic on an irregular graph
     * (1), or not (0), per op; the dimension; when to set up. */
    int dims_req = h->stfw_dims > 0 ? h->stfw_dims : nh_cfg.stfw_dims;
    int setup = h->stfw_setup >= 0 ? h->stfw_setup : nh_cfg.stfw_setup;
    memset(pre, 0, NH_STFW_PRE * sizeof(*pre));
    pre[NH_STFW_OUTDEG] = outdeg;
    pre[NH_STFW_INDEG] = indeg;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        nh_algo a = nh_requested_algo(p, (nh_op)o);
        int want = a == NH_ALGO_STFW ? 2 : a == NH_ALGO_AUTO && !p->isomorphic ? 1 : 0;
        pre[NH_STFW_WANT + o] = want;
    }
    pre[NH_STFW_DIMS] = dims_req;
    /* MPI_PROC_NULL neighbors (legal, they move no data) have no place
     * in the routing: such a communicator keeps the other algorithms. */
    for (int j = 0; j < outdeg; j++)
        pre[NH_STFW_PROCNULL] |= dsts[j] == MPI_PROC_NULL;
    for (int j = 0; j < indeg; j++)
        pre[NH_STFW_PROCNULL] |= srcs[j] == MPI_PROC_NULL;
    pre[NH_STFW_WINDOW] = p->window; /* the window's agreement (util/window.h) */
    long g = __atomic_load_n(&graphs_seen, __ATOMIC_RELAXED);
    pre[NH_STFW_CALLS] = g ? __atomic_load_n(&calls_seen, __ATOMIC_RELAXED) / g : 0;
    pre[NH_STFW_SETUP] = setup;
    pre[NH_STFW_GPU] = p->gpu; /* this rank's (plan/detect.c) */
    pre[NH_STFW_EDGES] = outdeg;
}

/* The agreed decision, kept where the set-up waits for the first blocking
 * call (on the original plan, with the neighbor lists). */
typedef struct nh_stfw_pend {
    int K, n, force_agg, hint_dims, gain, use[NH_OP_COUNT], want[NH_OP_COUNT];
    nh_stfw_shape shape; /* the model's view of the graph (core/vpt.c prices it) */
    double sum;
    int indeg, outdeg, *srcs, *dsts;
} nh_stfw_pend;

static int build(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                 const int *dsts, const nh_stfw_pend *d);

/* Does the set-up pay back by the evidence: the calls per graph
 * communicator (history, agreed), and at least the one call a graph is
 * created for?  It costs about eight collectives (log2 K latencies each)
 * and the allgather of every neighbor list (8 bytes per edge to every
 * rank); each call gains what the model says STFW saves for
 * NH_STFW_MODEL_BYTES blocks. */
static int amortized(const nh_stfw_pend *d, int K, long long history)
{
    const nh_cost *c = &nh_cfg.cost;
    nh_vpt v;
    if (!d->gain || nh_vpt_init(&v, K, d->n, 0))
        return 0;
    double gain = nh_stfw_model_bl(&nh_cfg.cost, &d->shape, NH_STFW_MODEL_BYTES) -
                  nh_stfw_model(&nh_cfg.cost, &v, &d->shape, NH_STFW_MODEL_BYTES);
    nh_vpt_fini(&v);
    int lg = 1;
    while ((1 << lg) < K)
        lg++;
    double cost = 8 * c->alpha * lg + 8 * c->beta * d->sum;
    return gain > 0 && (double)(history > 1 ? history : 1) * gain >= cost;
}

int nh_stfw_setup_agreed(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                         const int *dsts, int hint_dims, const long long *mx)
{
    int rc, K;
    if ((rc = nh_mpi_Comm_size(graph, &K)))
        return rc;
    nh_stfw_pend d = {.K = K, .hint_dims = hint_dims, .indeg = indeg, .outdeg = outdeg};
    int dims_req = (int)mx[NH_STFW_DIMS];
    p->window = (int)mx[NH_STFW_WINDOW];
    p->gpu |= mx[NH_STFW_GPU] != 0; /* where the graph's detection did not agree on it */
    int agree = mx[NH_STFW_DIMS] != NH_FACT_DIFFER && mx[NH_STFW_SETUP] != NH_FACT_DIFFER;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        agree &= mx[NH_STFW_WANT + o] != NH_FACT_DIFFER;
        d.want[o] = (int)mx[NH_STFW_WANT + o];
    }
    if (!agree) {
        nh_warn("communicator %d: ranks differ in NHOOD_ALGO, nhood_algorithm, NHOOD_STFW_DIMS, "
                "nhood_stfw_dims, NHOOD_STFW_SETUP or nhood_stfw_setup; store-and-forward is "
                "off for it",
                p->id);
        return MPI_SUCCESS;
    }
    if (mx[NH_STFW_PROCNULL]) {
        if ((d.want[0] == 2 || d.want[1] == 2) && nh_cfg.fallback == NH_FALLBACK_WARN &&
            !p->warned) {
            p->warned = 1;
            nh_warn("communicator %d has MPI_PROC_NULL neighbors, which store-and-forward does "
                    "not route; using the other algorithms",
                    p->id);
        }
        return MPI_SUCCESS;
    }
    /* ranks per node: the most on one node of the start-up's scope (agreed
     * there), at most K */
    d.sum = (double)mx[NH_STFW_EDGES];
    d.shape = (nh_stfw_shape){(double)mx[NH_STFW_OUTDEG], (double)mx[NH_STFW_INDEG],
                              K ? d.sum / K : 0, K, nh_node_max < K ? nh_node_max : K};
    /* agg: node aggregation where it applies, else the VPT auto chooses */
    d.force_agg = dims_req == NH_STFW_AGG;
    if (d.force_agg)
        dims_req = 0;
    int arm, forced = 0, any = 0;
    d.n = nh_stfw_choose_dims(&nh_cfg.cost, &d.shape, dims_req, &d.gain, &arm);
    if (dims_req > 0 && d.n != dims_req && (d.want[0] == 2 || d.want[1] == 2 || arm))
        nh_warn("communicator %d: NHOOD_STFW_DIMS/nhood_stfw_dims=%d is more than %d processes "
                "allow; using %d",
                p->id, dims_req, K, d.n);
    for (int o = 0; o < NH_OP_COUNT; o++) {
        d.use[o] = d.want[o] == 2 || (d.want[o] == 1 && arm);
        forced |= d.want[o] == 2;
        any |= d.use[o];
    }
    if (!any || d.sum == 0)
        return MPI_SUCCESS;
    int setup = (int)mx[NH_STFW_SETUP];
    if (forced || setup == NH_SETUP_CREATION ||
        (setup == NH_SETUP_AUTO && amortized(&d, K, mx[NH_STFW_CALLS]))) {
        p->stfw_when = 1;
        return build(p, graph, indeg, srcs, outdeg, dsts, &d);
    }
    /* The first blocking call sets it up; the lists wait in the plan. */
    nh_stfw_pend *w = malloc(sizeof(*w));
    if (w) {
        *w = d;
        w->srcs = malloc(((size_t)indeg + 1) * sizeof(int));
        w->dsts = malloc(((size_t)outdeg + 1) * sizeof(int));
    }
    if (!w || !w->srcs || !w->dsts) {
        if (w) {
            free(w->srcs);
            free(w->dsts);
        }
        free(w);
        return MPI_ERR_NO_MEM;
    }
    memcpy(w->srcs, srcs, (size_t)indeg * sizeof(int));
    memcpy(w->dsts, dsts, (size_t)outdeg * sizeof(int));
    p->stfw_pend = w;
    p->stfw_wait = 1;
    return MPI_SUCCESS;
}

int nh_stfw_setup(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                  const int *dsts, int hint_dims, long long *pre)
{
    int rc = nh_facts_allreduce(nh_stfw_facts, NH_STFW_PRE, pre, pre, graph);
    if (rc)
        return rc;
    return nh_stfw_setup_agreed(p, graph, indeg, srcs, outdeg, dsts, hint_dims, pre);
}

nh_stfw *nh_stfw_share(const nh_stfw *st)
{
    nh_stfw *c = malloc(sizeof(*c));
    if (c)
        *c = *st;
    return c;
}

void nh_stfw_pend_free(nh_plan *p)
{
    if (!p->stfw_pend)
        return;
    free(p->stfw_pend->srcs);
    free(p->stfw_pend->dsts);
    free(p->stfw_pend);
    p->stfw_pend = NULL;
}

int nh_stfw_lazy(nh_plan *p, MPI_Comm comm)
{
    nh_plan *root = p->root ? p->root : p;
    int rc = MPI_SUCCESS;
    p->stfw_wait = 0;
    p->stfw_when = 2;
    if (root->stfw_pend) { /* the first of the communicator and its copies to get here */
        nh_stfw_pend *d = root->stfw_pend;
        rc = build(p, comm, d->indeg, d->srcs, d->outdeg, d->dsts, d);
        nh_stfw_pend_free(root);
        if (p != root && p->stfw) { /* the original owns the schedules */
            root->stfw_built = p->stfw;
            if (!(p->stfw = nh_stfw_share(root->stfw_built)))
                return MPI_ERR_NO_MEM;
        }
        return rc;
    }
    /* Built at another copy's first blocking call: shared from now on, on
     * this communicator's own private duplicate. */
    if (p == root && root->stfw_built) {
        root->stfw = root->stfw_built;
        root->stfw_built = NULL;
    } else if (p != root && (root->stfw || root->stfw_built) &&
               !(p->stfw = nh_stfw_share(root->stfw ? root->stfw : root->stfw_built))) {
        return MPI_ERR_NO_MEM;
    }
    if (p->stfw && p->pcomm == MPI_COMM_NULL)
        rc = nh_comm_dup(comm, &p->pcomm);
    return rc;
}

const char *nh_stfw_when(const nh_plan *p)
{
    static const char *const w[] = {"-", "creation", "first_blocking_call"};
    return p->stfw_wait ? "waiting" : w[p->stfw_when];
}

/* Gathers the lists, builds this rank's schedules, confirms on every rank
 * (collective over graph). */
static int build(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                 const int *dsts, const nh_stfw_pend *d)
{
    int rc, K, rank, n = d->n, gain = d->gain, hint_dims = d->hint_dims;
    int force_agg = d->force_agg;
    const nh_stfw_shape *sh = &d->shape;
    const int *use = d->use, *want = d->want;
    if ((rc = nh_mpi_Comm_size(graph, &K)) || (rc = nh_mpi_Comm_rank(graph, &rank)))
        return rc;
    nh_stfw *st = calloc(1, sizeof(*st));
    int *odeg = NULL, *oall = NULL, **orow = NULL, *ideg = NULL, *iall = NULL, **irow = NULL;
    int ok = 0, on_0 = nh_host_simulated();
    long mine[NH_OP_COUNT + 2] = {0}, msum[NH_OP_COUNT + 1] = {0};
    if (!st)
        return MPI_ERR_NO_MEM;
    if ((rc = gather_lists(graph, K, outdeg, dsts, on_0, &odeg, &oall, &orow)) ||
        (rc = gather_lists(graph, K, indeg, srcs, on_0, &ideg, &iall, &irow)))
        goto out;
    /* A local failure of the node-aware placement (memory) must not leave
     * this rank with another VPT than the others: it fails the build
     * here, and the reduction below turns STFW off everywhere.  Node
     * aggregation replaces the VPT where the model prices it lower (the
     * VPT dimension not forced; the same inputs on every rank). */
    nh_vpt agg;
    int applied = 0, agg_ok = 0, nrc = nh_vpt_node(graph, n, &st->v, &agg, &applied, &agg_ok);
    ok = nrc == MPI_SUCCESS && (applied || nh_vpt_init(&st->v, K, n, 0) == 0) &&
         (!on_0 || rank != 0 || (odeg && ideg)); /* (rank 0 of a simulation: the lists) */
    if (ok && agg_ok &&
        (force_agg || (hint_dims <= 0 && nh_cfg.stfw_dims <= 0 &&
                       nh_stfw_agg_beats(&nh_cfg.cost, &agg, &st->v, sh)))) {
        nh_vpt_fini(&st->v);
        st->v = agg;
        applied = 2;
        gain = nh_stfw_beats_bl(&nh_cfg.cost, &agg, sh, NH_STFW_MODEL_BYTES);
    } else if (agg_ok) {
        nh_vpt_fini(&agg);
    } else if (ok && force_agg && rank == 0) {
        nh_warn("communicator %d: node aggregation (stfw dims agg) needs two nodes and a node "
                "with two ranks; using a %d-dimensional VPT",
                p->id, n);
    }
    st->node_aware = applied;
    nh_stfw_graph g = {K, odeg, ideg, orow, irow};
    for (int o = 0; o < NH_OP_COUNT; o++)
        if (use[o]) {
            if (on_0) {
                if ((rc = build_on_0(graph, &g, &st->v, (nh_op)o, rank, &ok, &st->sched[o])))
                    goto out;
            } else
                ok = ok && nh_stfw_build(&g, &st->v, (nh_op)o, rank, &st->sched[o]) == NH_STFW_OK;
            if (ok)
                mine[o] = nh_stfw_sched_msgs(st->sched[o]);
        }
    mine[NH_OP_COUNT] = distinct_peers(outdeg, dsts, rank);
    mine[NH_OP_COUNT + 1] = -ok;
    for (int o = 0; o <= NH_OP_COUNT; o++)
        msum[o] = mine[o];
    if ((rc = nh_mpi_Allreduce(MPI_IN_PLACE, mine, NH_OP_COUNT + 2, MPI_LONG, MPI_MAX, graph)) ||
        (rc = nh_mpi_Allreduce(MPI_IN_PLACE, msum, NH_OP_COUNT + 1, MPI_LONG, MPI_SUM, graph)))
        goto out;
    ok = mine[NH_OP_COUNT + 1] == -1; /* every rank built its schedules */
    if (!ok) {
        nh_warn("communicator %d: store-and-forward schedules could not be built on every rank "
                "(out of memory, or neighbor lists that do not describe one graph); using the "
                "other algorithms",
                p->id);
        rc = MPI_SUCCESS;
        goto out;
    }
    for (int o = 0; o < NH_OP_COUNT; o++) {
        st->mmax[o] = mine[o];
        st->mavg[o] = (double)msum[o] / K;
        st->recheck[o] = use[o] && want[o] == 1;
        st->off[o] = st->recheck[o] && !gain;
    }
    st->shape = *sh;
    st->edges = d->sum;
    st->bl_mmax = mine[NH_OP_COUNT];
    st->bl_mavg = (double)msum[NH_OP_COUNT] / K;
    if (p->pcomm == MPI_COMM_NULL && (rc = nh_comm_dup(graph, &p->pcomm)))
        goto out;
    p->stfw = st;
    st = NULL;
out:
    if (st) {
        nh_plan q = {.stfw = st};
        nh_stfw_free(&q);
    }
    free(odeg);
    free(oall);
    free(orow);
    free(ideg);
    free(iall);
    free(irow);
    return rc;
}

int nh_stfw_wins_in_window(const nh_stfw *st, double bytes, double w)
{
    double t = nh_stfw_model(&nh_cfg.cost, &st->v, &st->shape, bytes), first = t / st->v.n;
    double bl = nh_stfw_model_bl(&nh_cfg.cost, &st->shape, bytes);
    return nh_cost_in_window(w, first, t) < nh_cost_in_window(w, bl, bl);
}

int nh_stfw_wins(const nh_stfw *st, double bytes)
{
    return nh_stfw_beats_bl(&nh_cfg.cost, &st->v, &st->shape, bytes);
}

int nh_stfw_predict_waiting(const nh_plan *p, nh_op op, int block_bytes)
{
    const nh_plan *root = p->root ? p->root : p;
    const nh_stfw_pend *d = root->stfw_pend;
    nh_vpt v;
    if (!d || !d->use[op] || nh_vpt_init(&v, d->K, d->n, 0))
        return 0;
    int win = d->want[op] == 2 || nh_stfw_beats_bl(&nh_cfg.cost, &v, &d->shape, block_bytes);
    nh_vpt_fini(&v);
    return win ? d->n : 0;
}
