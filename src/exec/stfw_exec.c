/* Store-and-forward neighborhood collectives: set-up at graph creation
 * and the blocking executor.
 *
 * Set-up (collective, once per communicator): two reductions settle
 * whether STFW runs for each operation, identically on every rank: the
 * largest out- and in-degree, the total edge count, the requests
 * (NHOOD_ALGO / nhood_algorithm, NHOOD_STFW_DIMS / nhood_stfw_dims) as
 * their minimum and maximum, so ranks that disagree are detected rather
 * than left in different collectives.  The cost model compares one
 * message per neighbor with each VPT dimension; where STFW can win (or
 * is forced) every rank gathers all neighbor lists (an allgatherv of the
 * destination and source lists: O(edges) memory at creation only), runs
 * the pure builder for itself, and caches its schedule.  A last reduction
 * confirms every rank built it (an allocation failure on one rank turns
 * STFW off everywhere) and yields the message counts for the report.
 *
 * Execution (blocking): stage by stage, every message of the stage is
 * packed (a header of block lengths in bytes, then the blocks, so counts
 * may change from call to call) and sent, then each expected message is
 * probed by source and received with MPI_Mprobe/MPI_Mrecv (its length is
 * known only from the probe), and its blocks are unpacked into the
 * receive buffer or kept in the rank's forward store.  All traffic goes
 * over a private duplicate of the communicator with the stage as tag.
 * Receives name their source: a peer that already finished this call may
 * have sent a message of the next call with the same tag, which matching
 * by source keeps in order behind the current one (MPI's non-overtaking
 * rule).  Buffers grow to the largest call seen and are reused. */
#include "exec/stfw_exec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block sizes are unknown at graph creation.  The VPT dimension is the
 * model's best for blocks of NH_STFW_MODEL_BYTES (latency-bound halo
 * exchanges send small blocks), and so is the choice that nonblocking and
 * persistent calls made before the first blocking call get.  The
 * schedules are built wherever STFW wins for blocks of NH_STFW_ARM_BYTES:
 * STFW sends at least the bytes of one message per neighbor, so its lead
 * shrinks as blocks grow, and a graph where it loses even for one-byte
 * blocks never needs them.  Under auto, the first blocking call of an
 * operation decides again with the mean block it moves (recheck below),
 * either way, for every later call of that operation. */
#define NH_STFW_MODEL_BYTES 256.0
#define NH_STFW_ARM_BYTES 1.0

/* Run-time buffers of one execution (a blocking call, or one nonblocking
 * or persistent operation), grown as needed and reused. */
typedef struct xbuf {
    char *sbuf, *rbuf, *store;
    size_t scap, rcap, storecap, storeused;
    size_t *toff, *tlen;
    int ntemp_cap;
    MPI_Request *reqs;
    MPI_Status *stats; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    int nreqs_cap;
} xbuf;

static void xbuf_free(xbuf *xb)
{
    free(xb->sbuf);
    free(xb->rbuf);
    free(xb->store);
    free(xb->toff);
    free(xb->tlen);
    free(xb->reqs);
    free(xb->stats);
    memset(xb, 0, sizeof(*xb));
}

typedef struct nh_stfw {
    nh_vpt v;
    int node_aware;
    nh_sched *sched[NH_OP_COUNT]; /* this rank's schedule; NULL: op not under STFW */
    long mmax[NH_OP_COUNT], bl_mmax;
    double mavg[NH_OP_COUNT], bl_mavg;
    /* auto's re-check at the first blocking call of each operation: the
     * graph's figures for the model, whether it is still due, its mean
     * block in bytes (0: not made), and off: one message per neighbor (the
     * choice for NH_STFW_MODEL_BYTES until the re-check, its outcome after;
     * the schedule stays for requests made before) */
    double maxout, maxin, avg, edges;
    int recheck[NH_OP_COUNT], off[NH_OP_COUNT];
    double block[NH_OP_COUNT];
    MPI_Comm comm; /* private duplicate */
    xbuf xb;       /* blocking calls' buffers, grown as needed and reused */
} nh_stfw;

/* ---- set-up ---- */

/* Modeled time of one call for blocks of `bytes`, for the busiest rank.
 * One message per neighbor: one phase (alpha), then the larger of o per
 * message and beta per byte: every message is posted at once, so the
 * network carries earlier messages while the later ones pay their
 * overhead.  STFW: a stage cost per stage (a dependent latency plus
 * probing and matching), o per message and beta plus the forwarding work
 * (pack, send on, unpack) per byte, added: each stage's few messages
 * wait for the previous stage's.  NHOOD_COST_STAGE and NHOOD_COST_FWD
 * default to values fitted on the simulated experiments
 * (docs/simulation.md, "Calibration"). */
static double model_bl(double maxout, double maxin, double bytes)
{
    const nh_cost *c = &nh_cfg.cost;
    double deg = maxout > maxin ? maxout : maxin;
    double over = c->o * deg, wire = c->beta * bytes * deg;
    return c->alpha + (over > wire ? over : wire);
}

static double model_stfw(const nh_vpt *v, double maxout, double maxin, double avg, double bytes)
{
    const nh_cost *c = &nh_cfg.cost;
    double msgs = nh_stfw_est_msgs(v, maxout, maxin, avg);
    double vol = avg * nh_stfw_est_hops(v);
    if (maxout > vol)
        vol = maxout;
    if (maxin > vol)
        vol = maxin;
    return c->stage * v->n + c->o * msgs + (c->beta + c->fwd) * bytes * vol;
}

/* The VPT dimension for K ranks: want if > 0 (clamped to what K allows),
 * else the best by the model among 2..max for NH_STFW_MODEL_BYTES blocks
 * (1 if K allows no more); *gain tells whether it beats one message per
 * neighbor for such blocks, *arm whether it does for NH_STFW_ARM_BYTES. */
static int choose_dims(int K, int want, double maxout, double maxin, double avg, int *gain,
                       int *arm)
{
    int nmax = nh_vpt_max_dims(K);
    nh_vpt v, bv;
    *gain = *arm = 0;
    if (nmax < 1)
        nmax = 1;
    double bl = model_bl(maxout, maxin, NH_STFW_MODEL_BYTES), best = -1;
    int bn = 1;
    int lo = want > 0 ? (want < nmax ? want : nmax) : (nmax >= 2 ? 2 : 1);
    int hi = want > 0 ? lo : nmax;
    for (int n = lo; n <= hi; n++) {
        if (nh_vpt_init(&v, K, n, 0))
            continue;
        double t = model_stfw(&v, maxout, maxin, avg, NH_STFW_MODEL_BYTES);
        if (best < 0 || t < best) {
            best = t;
            bn = n;
            bv = v;
        }
    }
    if (best < 0 || bn < 2)
        return bn;
    *gain = best < bl;
    *arm = *gain || model_stfw(&bv, maxout, maxin, avg, NH_STFW_ARM_BYTES) <
                        model_bl(maxout, maxin, NH_STFW_ARM_BYTES);
    return bn;
}

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

/* Every rank's lists, gathered (counts first, then the lists) on every
 * rank, or on rank 0 only when root0 is set (the others get NULLs). */
static int gather_lists(MPI_Comm graph, int K, int deg, const int *list, int root0,
                        int **degs_out, int **all_out, int ***rows_out)
{
    int rank, rc;
    if ((rc = PMPI_Comm_rank(graph, &rank)))
        return rc;
    if (root0 && rank != 0) {
        *degs_out = NULL;
        *all_out = NULL;
        *rows_out = NULL;
        if ((rc = PMPI_Gather(&deg, 1, MPI_INT, NULL, 1, MPI_INT, 0, graph)))
            return rc;
        return PMPI_Gatherv(list, deg, MPI_INT, NULL, NULL, NULL, MPI_INT, 0, graph);
    }
    rc = MPI_ERR_NO_MEM;
    int *degs = malloc((size_t)K * sizeof(int)), *displs = malloc((size_t)K * sizeof(int));
    int *all = NULL, **rows = malloc((size_t)K * sizeof(int *));
    if (!degs || !displs || !rows)
        goto out;
    if ((rc = root0 ? PMPI_Gather(&deg, 1, MPI_INT, degs, 1, MPI_INT, 0, graph)
                    : PMPI_Allgather(&deg, 1, MPI_INT, degs, 1, MPI_INT, graph)))
        goto out;
    long tot = 0;
    for (int r = 0; r < K; r++) {
        displs[r] = (int)tot;
        tot += degs[r];
    }
    rc = MPI_ERR_NO_MEM;
    if (tot > INT32_MAX || !(all = malloc(((size_t)tot + 1) * sizeof(int))))
        goto out;
    if ((rc = root0 ? PMPI_Gatherv(list, deg, MPI_INT, all, degs, displs, MPI_INT, 0, graph)
                    : PMPI_Allgatherv(list, deg, MPI_INT, all, degs, displs, MPI_INT, graph)))
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

/* Simulation (SimGrid SMPI) only: every simulated rank lives in one
 * address space, and K ranks each building its schedule from all K
 * ranks' lists costs the simulator O(K * edges).  There rank 0 alone
 * gathers the lists and builds every rank's schedule in one pass of the
 * same builder (me < 0), and hands each rank its own by address.  The
 * schedules are the ones each rank would have built. */
#ifdef NHOOD_SMPI
#define NH_STFW_BUILD_ON_0 1
static int build_on_0(MPI_Comm graph, const nh_stfw_graph *g, const nh_vpt *v, nh_op op,
                      int rank, int *ok, nh_sched **mine)
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
    if ((rc = PMPI_Bcast(&addr, 1, MPI_AINT, 0, graph)))
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
    rc = PMPI_Barrier(graph);
    if (rank == 0 && addr)
        free(all);
    return rc;
}
#else
#define NH_STFW_BUILD_ON_0 0
#endif

void nh_stfw_free(nh_plan *p)
{
    nh_stfw *st = p->stfw;
    if (!st)
        return;
    for (int o = 0; o < NH_OP_COUNT; o++)
        nh_sched_free(st->sched[o]);
    nh_vpt_fini(&st->v);
    if (st->comm != MPI_COMM_NULL)
        nh_comm_free(&st->comm);
    xbuf_free(&st->xb);
    free(st);
    p->stfw = NULL;
}

int nh_stfw_setup(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                  const int *dsts, int hint_dims)
{
    int rc, K, rank;
    if ((rc = PMPI_Comm_size(graph, &K)) || (rc = PMPI_Comm_rank(graph, &rank)))
        return rc;
    /* What this rank asks for: forced (2), automatic on an irregular graph
     * (1), or not (0), per op; and the dimension. */
    int want[NH_OP_COUNT], dims_req = hint_dims > 0 ? hint_dims : nh_cfg.stfw_dims;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        nh_algo a = nh_requested_algo(p, (nh_op)o);
        want[o] = a == NH_ALGO_STFW ? 2 : a == NH_ALGO_AUTO && !p->isomorphic ? 1 : 0;
    }
    /* MPI_PROC_NULL neighbors (legal, they move no data) have no place
     * in the routing: such a communicator keeps the other algorithms. */
    long procnull = 0;
    for (int j = 0; j < outdeg; j++)
        procnull |= dsts[j] == MPI_PROC_NULL;
    for (int j = 0; j < indeg; j++)
        procnull |= srcs[j] == MPI_PROC_NULL;
    long mx[4 + 2 * NH_OP_COUNT + 2] = {outdeg, indeg}, sum = outdeg;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        mx[2 + 2 * o] = want[o];
        mx[3 + 2 * o] = -want[o];
    }
    mx[2 + 2 * NH_OP_COUNT] = dims_req;
    mx[3 + 2 * NH_OP_COUNT] = -dims_req;
    mx[4 + 2 * NH_OP_COUNT] = procnull;
    int nmx = 5 + 2 * NH_OP_COUNT;
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, mx, nmx, MPI_LONG, MPI_MAX, graph)) ||
        (rc = PMPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG, MPI_SUM, graph)))
        return rc;
    int agree = mx[2 + 2 * NH_OP_COUNT] == -mx[3 + 2 * NH_OP_COUNT];
    for (int o = 0; o < NH_OP_COUNT; o++)
        agree &= mx[2 + 2 * o] == -mx[3 + 2 * o];
    if (!agree) {
        nh_warn("communicator %d: ranks differ in NHOOD_ALGO, nhood_algorithm, NHOOD_STFW_DIMS "
                "or nhood_stfw_dims; store-and-forward is off for it",
                p->id);
        return MPI_SUCCESS;
    }
    if (mx[4 + 2 * NH_OP_COUNT]) {
        if ((want[0] == 2 || want[1] == 2) && nh_cfg.fallback == NH_FALLBACK_WARN && !p->warned) {
            p->warned = 1;
            nh_warn("communicator %d has MPI_PROC_NULL neighbors, which store-and-forward does "
                    "not route; using the other algorithms",
                    p->id);
        }
        return MPI_SUCCESS;
    }
    double maxout = (double)mx[0], maxin = (double)mx[1], avg = K ? (double)sum / K : 0;
    int gain, arm, n = choose_dims(K, dims_req, maxout, maxin, avg, &gain, &arm);
    if (dims_req > 0 && n != dims_req && (want[0] == 2 || want[1] == 2 || arm))
        nh_warn("communicator %d: NHOOD_STFW_DIMS/nhood_stfw_dims=%d is more than %d processes "
                "allow; using %d",
                p->id, dims_req, K, n);
    int use[NH_OP_COUNT], any = 0;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        use[o] = want[o] == 2 || (want[o] == 1 && arm);
        any |= use[o];
    }
    if (!any || sum == 0)
        return MPI_SUCCESS;

    nh_stfw *st = calloc(1, sizeof(*st));
    int *odeg = NULL, *oall = NULL, **orow = NULL, *ideg = NULL, *iall = NULL, **irow = NULL;
    int ok = 0;
    long mine[NH_OP_COUNT + 2] = {0}, msum[NH_OP_COUNT + 1] = {0};
    if (!st)
        return MPI_ERR_NO_MEM;
    st->comm = MPI_COMM_NULL;
    if ((rc = gather_lists(graph, K, outdeg, dsts, NH_STFW_BUILD_ON_0, &odeg, &oall, &orow)) ||
        (rc = gather_lists(graph, K, indeg, srcs, NH_STFW_BUILD_ON_0, &ideg, &iall, &irow)))
        goto out;
    /* A local failure of the node-aware placement (memory) must not leave
     * this rank with another VPT than the others: it fails the build
     * here, and the reduction below turns STFW off everywhere. */
    int applied = 0, nrc = nh_vpt_node(graph, n, &st->v, &applied);
    st->node_aware = applied;
    ok = nrc == MPI_SUCCESS && (applied || nh_vpt_init(&st->v, K, n, 0) == 0);
    nh_stfw_graph g = {K, odeg, ideg, orow, irow};
    for (int o = 0; o < NH_OP_COUNT; o++)
        if (use[o]) {
#if NH_STFW_BUILD_ON_0
            if ((rc = build_on_0(graph, &g, &st->v, (nh_op)o, rank, &ok, &st->sched[o])))
                goto out;
#else
            ok = ok && nh_stfw_build(&g, &st->v, (nh_op)o, rank, &st->sched[o]) == NH_STFW_OK;
#endif
            if (ok)
                mine[o] = nh_stfw_sched_msgs(st->sched[o]);
        }
    mine[NH_OP_COUNT] = distinct_peers(outdeg, dsts, rank);
    mine[NH_OP_COUNT + 1] = -ok;
    for (int o = 0; o <= NH_OP_COUNT; o++)
        msum[o] = mine[o];
    if ((rc = PMPI_Allreduce(MPI_IN_PLACE, mine, NH_OP_COUNT + 2, MPI_LONG, MPI_MAX, graph)) ||
        (rc = PMPI_Allreduce(MPI_IN_PLACE, msum, NH_OP_COUNT + 1, MPI_LONG, MPI_SUM, graph)))
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
    st->maxout = maxout;
    st->maxin = maxin;
    st->avg = avg;
    st->edges = (double)sum;
    st->bl_mmax = mine[NH_OP_COUNT];
    st->bl_mavg = (double)msum[NH_OP_COUNT] / K;
    if ((rc = nh_comm_dup(graph, &st->comm)))
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

/* Does STFW over st's VPT beat one message per neighbor for blocks of
 * `bytes`?  (auto's re-check, and its prediction) */
static int stfw_wins(const nh_stfw *st, double bytes)
{
    return model_stfw(&st->v, st->maxout, st->maxin, st->avg, bytes) <
           model_bl(st->maxout, st->maxin, bytes);
}

/* Is op under STFW on p?  Before auto's re-check (the first blocking
 * call), a blocking call of uniform blocks of block_bytes (< 0: unknown)
 * is predicted as the re-check would decide it. */
static int stfw_on(const nh_plan *p, nh_op op, double block_bytes)
{
    const nh_stfw *st = p ? p->stfw : NULL;
    if (!st || !st->sched[op])
        return 0;
    if (st->recheck[op] && block_bytes >= 0)
        return stfw_wins(st, block_bytes);
    return !st->off[op];
}

int nh_stfw_dims_for(const nh_plan *p, nh_op op)
{
    return stfw_on(p, op, -1) ? p->stfw->v.n : 0;
}

int nh_stfw_predict(const nh_plan *p, nh_op op, int block_bytes)
{
    return stfw_on(p, op, block_bytes) ? p->stfw->v.n : 0;
}

void nh_stfw_report_fill(const nh_plan *p, nh_op op, nh_report_rec *r)
{
    const nh_stfw *st = p->stfw;
    if (!st || !st->sched[op] || r->stfw_dims)
        return;
    r->stfw_dims = st->v.n;
    nh_vpt_format(&st->v, r->stfw_vpt, sizeof(r->stfw_vpt));
    if (st->node_aware) {
        size_t k = strlen(r->stfw_vpt);
        snprintf(r->stfw_vpt + k, sizeof(r->stfw_vpt) - k, ",node");
    }
    r->stfw_mmax = st->mmax[op];
    r->stfw_mavg = st->mavg[op];
    r->bl_mmax = st->bl_mmax;
    r->bl_mavg = st->bl_mavg;
    r->rounds[NH_ALGO_STFW] = st->v.n;
    r->msgs[NH_ALGO_STFW] = st->sched[op]->tmpl_msgs;
    r->stfw_block = st->block[op];
    r->stfw_off = st->off[op];
}

/* ---- execution ---- */

typedef struct xargs {
    nh_op op;
    int v; /* alltoallv / allgatherv */
    const char *sbuf;
    int scount;
    const int *scounts, *sdispls;
    MPI_Datatype stype;
    MPI_Aint sext;
    char *rbuf;
    int rcount;
    const int *rcounts, *rdispls;
    MPI_Datatype rtype;
    MPI_Aint rext;
    MPI_Comm comm; /* the private duplicate */
} xargs;

/* Auto's re-check, at the first blocking call of op (collective: every
 * rank makes that call, and makes it before the next blocking call of op):
 * one reduction of the bytes this rank sends gives the mean block of the
 * call, and the model compares STFW with one message per neighbor again
 * at that size.  Identical on every rank (reduced inputs); the outcome
 * holds for every later call of op.  nhood's own nonblocking operations
 * are progressed while the reduction completes: another rank may wait
 * for one of them, which needs this rank's forwarding, before it makes
 * this call.  (Every rank must use the same kind of reduction: blocking
 * and nonblocking collectives do not match.) */
static int recheck(nh_plan *p, nh_op op, const xargs *a)
{
    nh_stfw *st = p->stfw;
    int tsize, rc;
    if ((rc = PMPI_Type_size(a->stype, &tsize)))
        return rc;
    double mine = 0, total = 0;
    if (a->scounts) /* alltoallv */
        for (int j = 0; j < p->outdeg; j++)
            mine += (double)a->scounts[j] * tsize;
    else
        mine = (double)a->scount * tsize * p->outdeg;
#ifdef NHOOD_SMPI
    /* simulation: no pending operations of nhood's (simbench), and SMPI's
     * nonblocking reduction is slow to simulate */
    if ((rc = PMPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, st->comm)))
        return rc;
#else
    MPI_Request req;
    MPI_Status status;
    int done = 0;
    if ((rc = nh_iallreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, st->comm, &req)))
        return rc;
    while (!done) {
        if ((rc = nh_testall(1, &req, &done, &status)))
            return rc;
        if (!done)
            nh_req_progress();
    }
#endif
    double block = total / st->edges;
    st->recheck[op] = 0;
    st->block[op] = block > 0 ? block : 0;
    st->off[op] = !stfw_wins(st, block);
    return MPI_SUCCESS;
}

/* A user block: address, count, type. */
static void user_block(const xargs *a, int buf, int slot, const char **ptr, int *count,
                       MPI_Datatype *type)
{
    if (buf == NH_BUF_SEND) {
        *type = a->stype;
        if (a->op == NH_OP_ALLGATHER) {
            *ptr = a->sbuf;
            *count = a->scount;
        } else if (a->v) {
            *ptr = a->sbuf + (MPI_Aint)a->sdispls[slot] * a->sext;
            *count = a->scounts[slot];
        } else {
            *ptr = a->sbuf + (MPI_Aint)slot * a->scount * a->sext;
            *count = a->scount;
        }
    } else {
        *type = a->rtype;
        if (a->v) {
            *ptr = a->rbuf + (MPI_Aint)a->rdispls[slot] * a->rext;
            *count = a->rcounts[slot];
        } else {
            *ptr = a->rbuf + (MPI_Aint)slot * a->rcount * a->rext;
            *count = a->rcount;
        }
    }
}

static int grow(char **b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2;
    char *n = realloc(*b, c);
    if (!n)
        return -1;
    *b = n;
    *cap = c;
    return 0;
}

/* Upper bound of a block's packed size. */
static int block_bound(const xbuf *xb, const xargs *a, const nh_blk *b, size_t *out)
{
    if (b->buf == NH_BUF_TEMP) {
        *out = xb->tlen[b->slot];
        return MPI_SUCCESS;
    }
    const char *ptr;
    int count, sz, rc;
    MPI_Datatype t;
    user_block(a, b->buf, b->slot, &ptr, &count, &t);
    if ((rc = PMPI_Pack_size(count, t, a->comm, &sz)))
        return rc;
    *out = (size_t)sz;
    return MPI_SUCCESS;
}

/* Packs a block at out (room bytes); *len gets its packed length. */
static int block_pack(const xbuf *xb, const xargs *a, const nh_blk *b, char *out, size_t room,
                      size_t *len)
{
    if (b->buf == NH_BUF_TEMP) {
        memcpy(out, xb->store + xb->toff[b->slot], xb->tlen[b->slot]);
        *len = xb->tlen[b->slot];
        return MPI_SUCCESS;
    }
    const char *ptr;
    int count, pos = 0, rc;
    MPI_Datatype t;
    user_block(a, b->buf, b->slot, &ptr, &count, &t);
    if (room > INT32_MAX)
        room = INT32_MAX;
    if ((rc = nh_pack(ptr, count, t, out, (int)room, &pos, a->comm)))
        return rc;
    *len = (size_t)pos;
    return MPI_SUCCESS;
}

/* Unpacks len bytes into a receive slot; they must be exactly its data. */
static int block_unpack(const xargs *a, int slot, const char *in, size_t len)
{
    const char *ptr;
    int count, pos = 0, rc;
    MPI_Datatype t;
    user_block(a, NH_BUF_RECV, slot, &ptr, &count, &t);
    if (len > INT32_MAX)
        return MPI_ERR_TRUNCATE;
    if ((rc = nh_unpack(in, (int)len, &pos, (void *)(uintptr_t)ptr, count, t, a->comm)))
        return rc;
    return (size_t)pos == len ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

/* Sizes the per-schedule arrays and empties the forward store. */
static int xbuf_prepare(xbuf *xb, const nh_sched *s)
{
    if (s->ntemp > xb->ntemp_cap) {
        size_t *o = realloc(xb->toff, (size_t)s->ntemp * sizeof(size_t));
        if (o)
            xb->toff = o;
        size_t *l = realloc(xb->tlen, (size_t)s->ntemp * sizeof(size_t));
        if (l)
            xb->tlen = l;
        if (!o || !l)
            return MPI_ERR_NO_MEM;
        xb->ntemp_cap = s->ntemp;
    }
    if (s->nrounds > xb->nreqs_cap) {
        MPI_Request *r = realloc(xb->reqs, (size_t)s->nrounds * sizeof(MPI_Request));
        if (r)
            xb->reqs = r;
        MPI_Status *t = realloc(xb->stats, (size_t)s->nrounds * sizeof(MPI_Status));
        if (t)
            xb->stats = t;
        if (!r || !t)
            return MPI_ERR_NO_MEM;
        xb->nreqs_cap = s->nrounds;
    }
    xb->storeused = 0;
    return MPI_SUCCESS;
}

/* Packs and sends a stage's messages: the header (one 8-byte length per
 * block), then the blocks.  *nreq gets the number of send requests (in
 * xb->reqs). */
static int post_sends(xbuf *xb, const nh_sched *s, const xargs *a, int stage, int tag, int *nreq)
{
    int rc = MPI_SUCCESS;
    size_t need = 0;
    *nreq = 0;
    for (int k = 0; k < s->nrounds && !rc; k++) {
        const nh_round *r = &s->rounds[k];
        if (r->phase != stage || r->copy || r->sendpeer == NH_NONE)
            continue;
        need += 8 * (size_t)r->nsend;
        for (int i = 0; i < r->nsend && !rc; i++) {
            size_t b;
            rc = block_bound(xb, a, &r->send[i], &b);
            need += b;
        }
    }
    if (rc)
        return rc;
    if (grow(&xb->sbuf, &xb->scap, need + 8))
        return MPI_ERR_NO_MEM;
    size_t at = 0;
    for (int k = 0; k < s->nrounds && !rc; k++) {
        const nh_round *r = &s->rounds[k];
        if (r->phase != stage || r->copy || r->sendpeer == NH_NONE)
            continue;
        size_t start = at, hdr = at;
        at += 8 * (size_t)r->nsend;
        for (int i = 0; i < r->nsend && !rc; i++) {
            size_t len;
            rc = block_pack(xb, a, &r->send[i], xb->sbuf + at, xb->scap - at, &len);
            uint64_t l64 = len;
            memcpy(xb->sbuf + hdr + 8 * (size_t)i, &l64, 8);
            at += len;
        }
        if (!rc && at - start > INT32_MAX)
            rc = MPI_ERR_COUNT;
        if (!rc)
            rc = nh_isend(xb->sbuf + start, (int)(at - start), MPI_BYTE, r->sendpeer, tag, a->comm,
                          &xb->reqs[(*nreq)++]);
    }
    return rc;
}

/* Receives the matched message of round r and unpacks its blocks into the
 * receive buffer or the forward store.  A block that does not fit its
 * receive slot sets *uerr (first only). */
static int recv_round(xbuf *xb, const xargs *a, const nh_round *r, MPI_Message *msg,
                      MPI_Status *status, int *uerr)
{
    int bytes, rc;
    if ((rc = PMPI_Get_count(status, MPI_BYTE, &bytes)))
        return rc;
    if (grow(&xb->rbuf, &xb->rcap, (size_t)bytes + 8)) {
        /* The matched message must still be received. */
        char dummy[1];
        PMPI_Mrecv(dummy, 0, MPI_BYTE, msg, MPI_STATUS_IGNORE);
        return MPI_ERR_NO_MEM;
    }
    if ((rc = PMPI_Mrecv(xb->rbuf, bytes, MPI_BYTE, msg, MPI_STATUS_IGNORE)))
        return rc;
    size_t at2 = 8 * (size_t)r->nrecv;
    if ((size_t)bytes < at2)
        return MPI_ERR_TRUNCATE;
    for (int i = 0; i < r->nrecv && !rc; i++) {
        uint64_t l64;
        memcpy(&l64, xb->rbuf + 8 * (size_t)i, 8);
        if (l64 > (uint64_t)bytes - at2)
            return MPI_ERR_TRUNCATE;
        size_t len = (size_t)l64;
        const nh_blk *b = &r->recv[i];
        if (b->buf == NH_BUF_RECV) {
            int e = block_unpack(a, b->slot, xb->rbuf + at2, len);
            if (e && !*uerr)
                *uerr = e;
        } else if (b->buf == NH_BUF_TEMP) {
            if (grow(&xb->store, &xb->storecap, xb->storeused + len + 1))
                return MPI_ERR_NO_MEM;
            memcpy(xb->store + xb->storeused, xb->rbuf + at2, len);
            xb->toff[b->slot] = xb->storeused;
            xb->tlen[b->slot] = len;
            xb->storeused += len;
        } else {
            rc = MPI_ERR_INTERN;
        }
        at2 += len;
    }
    return rc;
}

/* Local copies (self edges; allgather's repeated sources), done last. */
static int local_copies(xbuf *xb, const nh_sched *s, const xargs *a, int *uerr)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < s->nrounds && !rc; k++) {
        const nh_round *r = &s->rounds[k];
        if (!r->copy)
            continue;
        for (int i = 0; i < r->nsend && i < r->nrecv && !rc; i++) {
            size_t b, len;
            if ((rc = block_bound(xb, a, &r->send[i], &b)))
                break;
            if (grow(&xb->sbuf, &xb->scap, b + 8)) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            if (!(rc = block_pack(xb, a, &r->send[i], xb->sbuf, xb->scap, &len))) {
                int e = block_unpack(a, r->recv[i].slot, xb->sbuf, len);
                if (e && !*uerr)
                    *uerr = e;
            }
        }
    }
    return rc;
}

/* A block that does not fit its receive slot (the program's counts or
 * types disagree) is an error of that call, but the rank still receives
 * and forwards everything else, so that other ranks complete: the first
 * such error is returned at the end (uerr).  Failures of MPI itself or of
 * memory stop the run.  Blocking calls use tag slot 0: the stage is the
 * tag. */
static int run(xbuf *xb, const nh_sched *s, const xargs *a)
{
    int rc, nreq = 0, uerr = MPI_SUCCESS;
    if ((rc = xbuf_prepare(xb, s)))
        return rc;
    for (int stage = 1; stage < s->nphases - 1 && !rc; stage++) {
        rc = post_sends(xb, s, a, stage, stage, &nreq);
        /* Receives, in schedule order, each from its named source. */
        for (int k = 0; k < s->nrounds && !rc; k++) {
            const nh_round *r = &s->rounds[k];
            if (r->phase != stage || r->copy || r->recvpeer == NH_NONE)
                continue;
            MPI_Message msg;
            MPI_Status status;
            if ((rc = PMPI_Mprobe(r->recvpeer, stage, a->comm, &msg, &status)))
                break;
            rc = recv_round(xb, a, r, &msg, &status, &uerr);
        }
        /* The send buffer is rewritten next stage.  On an error the sends
         * still complete (their data stays valid until then). */
        int rc2 = nreq ? nh_waitall(nreq, xb->reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
        nreq = 0;
        if (!rc)
            rc = rc2;
    }
    if (!rc)
        rc = local_copies(xb, s, a, &uerr);
    return rc ? rc : uerr;
}

static int try_run(nh_op op, xargs *a, MPI_Comm comm)
{
    nh_plan *p = nh_active ? nh_plan_get(comm) : NULL;
    MPI_Aint lb;
    int rc;
    if (!p || !p->stfw || !p->stfw->sched[op] || a->sbuf == MPI_IN_PLACE)
        return NH_STFW_PASS;
    if ((rc = PMPI_Type_get_extent(a->stype, &lb, &a->sext)) ||
        (rc = PMPI_Type_get_extent(a->rtype, &lb, &a->rext)) ||
        (p->stfw->recheck[op] && (rc = recheck(p, op, a))))
        return PMPI_Comm_call_errhandler(comm, rc), rc;
    nh_req_progress();
    nh_report_rec *rec = nh_report_rec_get(p, op, NH_FORM_BLOCKING);
    if (rec)
        nh_stfw_report_fill(p, op, rec);
    if (p->stfw->off[op])
        return NH_STFW_PASS;
    if (rec)
        rec->calls[NH_ALGO_STFW]++;
    a->op = op;
    a->comm = p->stfw->comm;
    rc = run(&p->stfw->xb, p->stfw->sched[op], a);
    if (rc)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int nh_stfw_try_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, MPI_Comm comm)
{
    xargs a = {.sbuf = sbuf,
               .scount = scount,
               .stype = stype,
               .rbuf = rbuf,
               .rcount = rcount,
               .rtype = rtype};
    return try_run(NH_OP_ALLTOALL, &a, comm);
}

int nh_stfw_try_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                          MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    xargs a = {.v = 1,
               .sbuf = sbuf,
               .scounts = scounts,
               .sdispls = sdispls,
               .stype = stype,
               .rbuf = rbuf,
               .rcounts = rcounts,
               .rdispls = rdispls,
               .rtype = rtype};
    return try_run(NH_OP_ALLTOALL, &a, comm);
}

int nh_stfw_try_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm)
{
    xargs a = {.sbuf = sbuf,
               .scount = scount,
               .stype = stype,
               .rbuf = rbuf,
               .rcount = rcount,
               .rtype = rtype};
    return try_run(NH_OP_ALLGATHER, &a, comm);
}

int nh_stfw_try_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                           MPI_Comm comm)
{
    xargs a = {.v = 1,
               .sbuf = sbuf,
               .scount = scount,
               .stype = stype,
               .rbuf = rbuf,
               .rcounts = rcounts,
               .rdispls = rdispls,
               .rtype = rtype};
    return try_run(NH_OP_ALLGATHER, &a, comm);
}

/* ---- nonblocking and persistent operations (NHOOD_PROGRESS=poll) ----
 *
 * The same schedule as a state machine that request.c drives (see there
 * for handles, completion calls and the progress policy): entering a
 * stage packs and sends its messages; progress probes each expected
 * message with MPI_Improbe and receives what has arrived; the stage ends
 * when every message has arrived and the sends have completed (the send
 * buffer is rewritten next stage); the local copies end the operation.
 * The operation's tag slot (request.c) separates concurrent operations on
 * one communicator: its messages carry slot * NH_STFW_TAGS + stage, so
 * blocking calls (slot 0) keep the stage as tag.  Each operation has its
 * own buffers; a persistent one keeps its arguments and buffers from init
 * to free and restarts from stage 1 at each start. */
#define NH_STFW_TAGS 32

struct nh_stfw_op {
    const nh_sched *s;
    xargs a;
    xbuf xb;
    int tagbase;
    int stage;   /* current stage; s->nphases - 1 when done */
    int nreq;    /* the stage's send requests (in xb.reqs) */
    int pending; /* the stage's messages not yet received */
    char *got;   /* per round: its message of this stage was received */
    int uerr;
};

void nh_stfw_op_free(nh_stfw_op *x)
{
    if (!x)
        return;
    xbuf_free(&x->xb);
    free(x->got);
    free(x);
}

/* Posts the sends of x->stage and counts its expected messages. */
static int op_enter_stage(nh_stfw_op *x)
{
    const nh_sched *s = x->s;
    x->pending = 0;
    for (int k = 0; k < s->nrounds; k++) {
        const nh_round *r = &s->rounds[k];
        x->got[k] = 0;
        if (r->phase == x->stage && !r->copy && r->recvpeer != NH_NONE)
            x->pending++;
    }
    return post_sends(&x->xb, s, &x->a, x->stage, x->tagbase + x->stage, &x->nreq);
}

/* Is an earlier message of this stage from the same source still due?
 * Messages from one source are received in schedule order (MPI's
 * non-overtaking rule keeps them in that order). */
static int earlier_due(const nh_stfw_op *x, int k)
{
    const nh_sched *s = x->s;
    const nh_round *r = &s->rounds[k];
    for (int j = 0; j < k; j++) {
        const nh_round *q = &s->rounds[j];
        if (!x->got[j] && q->phase == r->phase && !q->copy && q->recvpeer == r->recvpeer)
            return 1;
    }
    return 0;
}

/* Receives what has arrived and moves on as far as possible without
 * blocking.  On an MPI or memory error the stage's sends are still
 * completed (their buffer is freed with the operation). */
int nh_stfw_op_progress(nh_stfw_op *x, int *done)
{
    const nh_sched *s = x->s;
    int rc = MPI_SUCCESS, last = s->nphases - 1;
    *done = 0;
    while (x->stage < last && !rc) {
        for (int k = 0; k < s->nrounds && x->pending && !rc; k++) {
            const nh_round *r = &s->rounds[k];
            if (x->got[k] || r->phase != x->stage || r->copy || r->recvpeer == NH_NONE ||
                earlier_due(x, k))
                continue;
            MPI_Message msg;
            MPI_Status status;
            int flag = 0;
            rc = PMPI_Improbe(r->recvpeer, x->tagbase + x->stage, x->a.comm, &flag, &msg, &status);
            if (rc || !flag)
                continue;
            x->got[k] = 1;
            x->pending--;
            rc = recv_round(&x->xb, &x->a, r, &msg, &status, &x->uerr);
        }
        if (rc)
            break;
        if (x->pending)
            return MPI_SUCCESS;
        if (x->nreq) {
            int flag = 0;
            if ((rc = nh_testall(x->nreq, x->xb.reqs, &flag, x->xb.stats)))
                break;
            if (!flag)
                return MPI_SUCCESS;
            x->nreq = 0;
        }
        if (++x->stage < last)
            rc = op_enter_stage(x);
    }
    if (rc) {
        if (x->nreq)
            nh_waitall(x->nreq, x->xb.reqs, MPI_STATUSES_IGNORE);
        x->nreq = 0;
        x->stage = last;
        *done = 1;
        return rc;
    }
    *done = 1;
    rc = local_copies(&x->xb, s, &x->a, &x->uerr);
    return rc ? rc : x->uerr;
}

int nh_stfw_op_start(nh_stfw_op *x, int slot, int *done)
{
    int rc;
    *done = 0;
    x->tagbase = slot * NH_STFW_TAGS;
    x->uerr = MPI_SUCCESS;
    x->nreq = 0;
    x->pending = 0;
    x->stage = 1;
    if ((rc = xbuf_prepare(&x->xb, x->s)) ||
        (x->stage < x->s->nphases - 1 && (rc = op_enter_stage(x)))) {
        if (x->nreq)
            nh_waitall(x->nreq, x->xb.reqs, MPI_STATUSES_IGNORE);
        x->nreq = 0;
        x->stage = x->s->nphases - 1;
        *done = 1;
        return rc;
    }
    return nh_stfw_op_progress(x, done);
}

static int try_nb(nh_op op, int persistent, xargs *a, MPI_Comm comm, MPI_Request *req)
{
    nh_plan *p = nh_active ? nh_plan_get(comm) : NULL;
    MPI_Aint lb;
    int rc;
    if (!p || !p->stfw || !p->stfw->sched[op] || p->stfw->off[op] || a->sbuf == MPI_IN_PLACE ||
        p->stfw->sched[op]->nphases - 1 > NH_STFW_TAGS)
        return NH_STFW_PASS;
    /* Under NHOOD_PROGRESS=safe the call goes on to the other algorithms
     * (PMPI on irregular graphs): STFW forwards data, which would need
     * other ranks to stay in nhood's calls.  Forced, this is reported as
     * for torus (select.c). */
    if (nh_cfg.progress != NH_PROGRESS_POLL) {
        if (nh_requested_algo(p, op) != NH_ALGO_STFW || nh_cfg.fallback == NH_FALLBACK_SILENT)
            return NH_STFW_PASS;
        if (nh_cfg.fallback == NH_FALLBACK_ERROR) {
            nh_error("algorithm stfw was forced for nonblocking or persistent %s on communicator "
                     "%d; it forwards data and needs NHOOD_PROGRESS=poll (NHOOD_FALLBACK=error)",
                     nh_op_name(op), p->id);
            PMPI_Comm_call_errhandler(comm, MPI_ERR_UNSUPPORTED_OPERATION);
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        if (!p->warned_progress) {
            p->warned_progress = 1;
            nh_warn("algorithm stfw forwards data between ranks, which nonblocking and persistent "
                    "calls on communicator %d do only with NHOOD_PROGRESS=poll; using the "
                    "other algorithms",
                    p->id);
        }
        return NH_STFW_PASS;
    }
    if ((rc = PMPI_Type_get_extent(a->stype, &lb, &a->sext)) ||
        (rc = PMPI_Type_get_extent(a->rtype, &lb, &a->rext)))
        return PMPI_Comm_call_errhandler(comm, rc), rc;
    nh_req_progress();
    nh_report_rec *rec =
        nh_report_rec_get(p, op, persistent ? NH_FORM_PERSISTENT : NH_FORM_NONBLOCKING);
    if (rec) {
        if (!persistent) /* persistent requests count their starts */
            rec->calls[NH_ALGO_STFW]++;
        nh_stfw_report_fill(p, op, rec);
    }
    const nh_sched *s = p->stfw->sched[op];
    nh_stfw_op *x = calloc(1, sizeof(*x));
    char *got = s->nrounds > 0 ? calloc((size_t)s->nrounds, 1) : NULL;
    if (!x || (s->nrounds > 0 && !got)) {
        free(x);
        free(got);
        rc = MPI_ERR_NO_MEM;
    } else {
        x->s = s;
        x->a = *a;
        x->a.op = op;
        x->a.comm = p->stfw->comm;
        x->got = got;
        x->stage = s->nphases - 1; /* not started */
        rc = nh_req_create_stfw(p, x, persistent, rec ? &rec->calls[NH_ALGO_STFW] : NULL, req);
    }
    if (rc)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int nh_stfw_try_ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm, int persistent, MPI_Request *req)
{
    xargs a = {.sbuf = sbuf,
               .scount = scount,
               .stype = stype,
               .rbuf = rbuf,
               .rcount = rcount,
               .rtype = rtype};
    return try_nb(NH_OP_ALLTOALL, persistent, &a, comm, req);
}

int nh_stfw_try_iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, int persistent, MPI_Request *req)
{
    xargs a = {.sbuf = sbuf,
               .scount = scount,
               .stype = stype,
               .rbuf = rbuf,
               .rcount = rcount,
               .rtype = rtype};
    return try_nb(NH_OP_ALLGATHER, persistent, &a, comm, req);
}
