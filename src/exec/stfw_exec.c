/* Store-and-forward neighborhood collectives: set-up at graph creation
 * and the blocking executor.
 *
 * Set-up (collective, once per communicator): two reductions settle
 * whether STFW runs for each operation, identically on every rank: the
 * largest out- and in-degree, the total edge count, the requests
 * (NHOOD_ALGO / nhood_algorithm, NHOOD_STFW_DIMS / nhood_stfw_dims) as
 * their minimum and maximum, so ranks that disagree are detected rather
 * than left in different collectives.  The cost model compares one
 * message per neighbor with each VPT dimension; where STFW wins (or is
 * forced) every rank gathers all neighbor lists (an allgatherv of the
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

/* Block size in bytes at which the creation-time cost model compares the
 * schemes (latency-bound halo exchanges send small blocks; the choice
 * cannot depend on the size of later calls, which may differ per rank). */
#define NH_STFW_MODEL_BYTES 256.0

typedef struct nh_stfw {
    nh_vpt v;
    int node_aware;
    nh_sched *sched[NH_OP_COUNT]; /* this rank's schedule; NULL: op not under STFW */
    long mmax[NH_OP_COUNT], bl_mmax;
    double mavg[NH_OP_COUNT], bl_mavg;
    MPI_Comm comm; /* private duplicate */
    /* run-time buffers, grown as needed and reused */
    char *sbuf, *rbuf, *store;
    size_t scap, rcap, storecap;
    size_t *toff, *tlen;
    int ntemp_cap;
    MPI_Request *reqs;
    int nreqs_cap;
} nh_stfw;

/* ---- set-up ---- */

static nh_algo forced_algo(const nh_plan *p, nh_op op)
{
    nh_algo a = p->algo_info[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo_op[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo;
    return a;
}

/* Modeled time of one call for blocks of NH_STFW_MODEL_BYTES: alpha per
 * stage, o per message, beta (and pack and unpack for STFW) per byte a
 * rank sends at most. */
static double model_bl(double maxout, double maxin)
{
    const nh_cost *c = &nh_cfg.cost;
    double deg = maxout > maxin ? maxout : maxin;
    return c->alpha + c->o * deg + c->beta * NH_STFW_MODEL_BYTES * deg;
}

static double model_stfw(const nh_vpt *v, double maxout, double maxin, double avg)
{
    const nh_cost *c = &nh_cfg.cost;
    double msgs = nh_stfw_est_msgs(v, maxout, maxin, avg);
    double vol = avg * nh_stfw_est_hops(v);
    if (maxout > vol)
        vol = maxout;
    if (maxin > vol)
        vol = maxin;
    return c->alpha * v->n + c->o * msgs + (c->beta + 2 * c->pack) * NH_STFW_MODEL_BYTES * vol;
}

/* The VPT dimension for K ranks: want if > 0 (clamped to what K allows),
 * else the best by the model among 2..max (1 if K allows no more); *gain
 * tells whether it beats one message per neighbor. */
static int choose_dims(int K, int want, double maxout, double maxin, double avg, int *gain)
{
    int nmax = nh_vpt_max_dims(K);
    nh_vpt v;
    *gain = 0;
    if (nmax < 1)
        nmax = 1;
    double bl = model_bl(maxout, maxin), best = -1;
    int bn = 1;
    int lo = want > 0 ? (want < nmax ? want : nmax) : (nmax >= 2 ? 2 : 1);
    int hi = want > 0 ? lo : nmax;
    for (int n = lo; n <= hi; n++) {
        if (nh_vpt_init(&v, K, n, 0))
            continue;
        double t = model_stfw(&v, maxout, maxin, avg);
        if (best < 0 || t < best) {
            best = t;
            bn = n;
        }
    }
    *gain = best >= 0 && bn >= 2 && best < bl;
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

/* Every rank's lists, gathered (counts first, then the lists). */
static int gather_lists(MPI_Comm graph, int K, int deg, const int *list, int **degs_out,
                        int **all_out, int ***rows_out)
{
    int rc = MPI_ERR_NO_MEM;
    int *degs = malloc((size_t)K * sizeof(int)), *displs = malloc((size_t)K * sizeof(int));
    int *all = NULL, **rows = malloc((size_t)K * sizeof(int *));
    if (!degs || !displs || !rows)
        goto out;
    if ((rc = PMPI_Allgather(&deg, 1, MPI_INT, degs, 1, MPI_INT, graph)))
        goto out;
    long tot = 0;
    for (int r = 0; r < K; r++) {
        displs[r] = (int)tot;
        tot += degs[r];
    }
    rc = MPI_ERR_NO_MEM;
    if (tot > INT32_MAX || !(all = malloc(((size_t)tot + 1) * sizeof(int))))
        goto out;
    if ((rc = PMPI_Allgatherv(list, deg, MPI_INT, all, degs, displs, MPI_INT, graph)))
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
    free(st->sbuf);
    free(st->rbuf);
    free(st->store);
    free(st->toff);
    free(st->tlen);
    free(st->reqs);
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
        nh_algo a = forced_algo(p, (nh_op)o);
        want[o] = a == NH_ALGO_STFW ? 2 : a == NH_ALGO_AUTO && !p->isomorphic ? 1 : 0;
    }
    long mx[4 + 2 * NH_OP_COUNT + 2] = {outdeg, indeg}, sum = outdeg;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        mx[2 + 2 * o] = want[o];
        mx[3 + 2 * o] = -want[o];
    }
    mx[2 + 2 * NH_OP_COUNT] = dims_req;
    mx[3 + 2 * NH_OP_COUNT] = -dims_req;
    int nmx = 4 + 2 * NH_OP_COUNT;
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
    double maxout = (double)mx[0], maxin = (double)mx[1], avg = K ? (double)sum / K : 0;
    int gain, n = choose_dims(K, dims_req, maxout, maxin, avg, &gain);
    if (dims_req > 0 && n != dims_req && (want[0] == 2 || want[1] == 2 || gain))
        nh_warn("communicator %d: NHOOD_STFW_DIMS/nhood_stfw_dims=%d is more than %d processes "
                "allow; using %d",
                p->id, dims_req, K, n);
    int use[NH_OP_COUNT], any = 0;
    for (int o = 0; o < NH_OP_COUNT; o++) {
        use[o] = want[o] == 2 || (want[o] == 1 && gain);
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
    if ((rc = gather_lists(graph, K, outdeg, dsts, &odeg, &oall, &orow)) ||
        (rc = gather_lists(graph, K, indeg, srcs, &ideg, &iall, &irow)))
        goto out;
    /* A local failure of the node-aware placement (memory) must not leave
     * this rank with another VPT than the others: it fails the build
     * here, and the reduction below turns STFW off everywhere. */
    int applied = 0, nrc = nh_vpt_node(graph, n, &st->v, &applied);
    st->node_aware = applied;
    ok = nrc == MPI_SUCCESS && (applied || nh_vpt_init(&st->v, K, n, 0) == 0);
    nh_stfw_graph g = {K, odeg, ideg, orow, irow};
    for (int o = 0; o < NH_OP_COUNT && ok; o++)
        if (use[o]) {
            ok = nh_stfw_build(&g, &st->v, (nh_op)o, rank, &st->sched[o]) == NH_STFW_OK;
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
                "(out of memory); using the other algorithms",
                p->id);
        rc = MPI_SUCCESS;
        goto out;
    }
    for (int o = 0; o < NH_OP_COUNT; o++) {
        st->mmax[o] = mine[o];
        st->mavg[o] = (double)msum[o] / K;
    }
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

int nh_stfw_dims_for(const nh_plan *p, nh_op op)
{
    return p && p->stfw && p->stfw->sched[op] ? p->stfw->v.n : 0;
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
} xargs;

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
static int block_bound(nh_stfw *st, const xargs *a, const nh_blk *b, size_t *out)
{
    if (b->buf == NH_BUF_TEMP) {
        *out = st->tlen[b->slot];
        return MPI_SUCCESS;
    }
    const char *ptr;
    int count, sz, rc;
    MPI_Datatype t;
    user_block(a, b->buf, b->slot, &ptr, &count, &t);
    if ((rc = PMPI_Pack_size(count, t, st->comm, &sz)))
        return rc;
    *out = (size_t)sz;
    return MPI_SUCCESS;
}

/* Packs a block at out (room bytes); *len gets its packed length. */
static int block_pack(nh_stfw *st, const xargs *a, const nh_blk *b, char *out, size_t room,
                      size_t *len)
{
    if (b->buf == NH_BUF_TEMP) {
        memcpy(out, st->store + st->toff[b->slot], st->tlen[b->slot]);
        *len = st->tlen[b->slot];
        return MPI_SUCCESS;
    }
    const char *ptr;
    int count, pos = 0, rc;
    MPI_Datatype t;
    user_block(a, b->buf, b->slot, &ptr, &count, &t);
    if (room > INT32_MAX)
        room = INT32_MAX;
    if ((rc = nh_pack(ptr, count, t, out, (int)room, &pos, st->comm)))
        return rc;
    *len = (size_t)pos;
    return MPI_SUCCESS;
}

/* Unpacks len bytes into a receive slot; they must be exactly its data. */
static int block_unpack(nh_stfw *st, const xargs *a, int slot, const char *in, size_t len)
{
    const char *ptr;
    int count, pos = 0, rc;
    MPI_Datatype t;
    user_block(a, NH_BUF_RECV, slot, &ptr, &count, &t);
    if (len > INT32_MAX)
        return MPI_ERR_TRUNCATE;
    if ((rc = nh_unpack(in, (int)len, &pos, (void *)(uintptr_t)ptr, count, t, st->comm)))
        return rc;
    return (size_t)pos == len ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

/* A block that does not fit its receive slot (the program's counts or
 * types disagree) is an error of that call, but the rank still receives
 * and forwards everything else, so that other ranks complete: the first
 * such error is returned at the end (uerr).  Failures of MPI itself or of
 * memory stop the run. */
static int run(nh_stfw *st, const nh_sched *s, const xargs *a)
{
    int rc = MPI_SUCCESS, nreq = 0, uerr = MPI_SUCCESS;
    size_t storeused = 0;
    if (s->ntemp > st->ntemp_cap) {
        size_t *o = realloc(st->toff, (size_t)s->ntemp * sizeof(size_t));
        if (o)
            st->toff = o;
        size_t *l = realloc(st->tlen, (size_t)s->ntemp * sizeof(size_t));
        if (l)
            st->tlen = l;
        if (!o || !l)
            return MPI_ERR_NO_MEM;
        st->ntemp_cap = s->ntemp;
    }
    if (s->nrounds > st->nreqs_cap) {
        MPI_Request *r = realloc(st->reqs, (size_t)s->nrounds * sizeof(MPI_Request));
        if (!r)
            return MPI_ERR_NO_MEM;
        st->reqs = r;
        st->nreqs_cap = s->nrounds;
    }
    for (int stage = 1; stage < s->nphases - 1 && !rc; stage++) {
        /* Sends: the header (one 8-byte length per block), then the blocks. */
        size_t need = 0;
        for (int k = 0; k < s->nrounds && !rc; k++) {
            const nh_round *r = &s->rounds[k];
            if (r->phase != stage || r->copy || r->sendpeer == NH_NONE)
                continue;
            need += 8 * (size_t)r->nsend;
            for (int i = 0; i < r->nsend && !rc; i++) {
                size_t b;
                rc = block_bound(st, a, &r->send[i], &b);
                need += b;
            }
        }
        if (rc)
            break;
        if (grow(&st->sbuf, &st->scap, need + 8)) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        size_t at = 0;
        nreq = 0;
        for (int k = 0; k < s->nrounds && !rc; k++) {
            const nh_round *r = &s->rounds[k];
            if (r->phase != stage || r->copy || r->sendpeer == NH_NONE)
                continue;
            size_t start = at, hdr = at;
            at += 8 * (size_t)r->nsend;
            for (int i = 0; i < r->nsend && !rc; i++) {
                size_t len;
                rc = block_pack(st, a, &r->send[i], st->sbuf + at, st->scap - at, &len);
                uint64_t l64 = len;
                memcpy(st->sbuf + hdr + 8 * (size_t)i, &l64, 8);
                at += len;
            }
            if (!rc && at - start > INT32_MAX)
                rc = MPI_ERR_COUNT;
            if (!rc)
                rc = nh_isend(st->sbuf + start, (int)(at - start), MPI_BYTE, r->sendpeer, stage,
                              st->comm, &st->reqs[nreq++]);
        }
        /* Receives, in schedule order, each from its named source. */
        for (int k = 0; k < s->nrounds && !rc; k++) {
            const nh_round *r = &s->rounds[k];
            if (r->phase != stage || r->copy || r->recvpeer == NH_NONE)
                continue;
            MPI_Message msg;
            MPI_Status status;
            int bytes;
            if ((rc = PMPI_Mprobe(r->recvpeer, stage, st->comm, &msg, &status)) ||
                (rc = PMPI_Get_count(&status, MPI_BYTE, &bytes)))
                break;
            if (grow(&st->rbuf, &st->rcap, (size_t)bytes + 8)) {
                /* The matched message must still be received. */
                char dummy[1];
                PMPI_Mrecv(dummy, 0, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
                rc = MPI_ERR_NO_MEM;
                break;
            }
            if ((rc = PMPI_Mrecv(st->rbuf, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE)))
                break;
            size_t at2 = 8 * (size_t)r->nrecv;
            if ((size_t)bytes < at2) {
                rc = MPI_ERR_TRUNCATE;
                break;
            }
            for (int i = 0; i < r->nrecv && !rc; i++) {
                uint64_t l64;
                memcpy(&l64, st->rbuf + 8 * (size_t)i, 8);
                if (l64 > (uint64_t)bytes - at2) {
                    rc = MPI_ERR_TRUNCATE;
                    break;
                }
                size_t len = (size_t)l64;
                const nh_blk *b = &r->recv[i];
                if (b->buf == NH_BUF_RECV) {
                    int e = block_unpack(st, a, b->slot, st->rbuf + at2, len);
                    if (e && !uerr)
                        uerr = e;
                } else if (b->buf == NH_BUF_TEMP) {
                    if (grow(&st->store, &st->storecap, storeused + len + 1)) {
                        rc = MPI_ERR_NO_MEM;
                        break;
                    }
                    memcpy(st->store + storeused, st->rbuf + at2, len);
                    st->toff[b->slot] = storeused;
                    st->tlen[b->slot] = len;
                    storeused += len;
                } else {
                    rc = MPI_ERR_INTERN;
                }
                at2 += len;
            }
        }
        /* The send buffer is rewritten next stage.  On an error the sends
         * still complete (their data stays valid until then). */
        int rc2 = nreq ? nh_waitall(nreq, st->reqs, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
        nreq = 0;
        if (!rc)
            rc = rc2;
    }
    /* Local copies (self edges; allgather's repeated sources) last. */
    for (int k = 0; k < s->nrounds && !rc; k++) {
        const nh_round *r = &s->rounds[k];
        if (!r->copy)
            continue;
        for (int i = 0; i < r->nsend && i < r->nrecv && !rc; i++) {
            size_t b, len;
            if ((rc = block_bound(st, a, &r->send[i], &b)))
                break;
            if (grow(&st->sbuf, &st->scap, b + 8)) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            if (!(rc = block_pack(st, a, &r->send[i], st->sbuf, st->scap, &len))) {
                int e = block_unpack(st, a, r->recv[i].slot, st->sbuf, len);
                if (e && !uerr)
                    uerr = e;
            }
        }
    }
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
        (rc = PMPI_Type_get_extent(a->rtype, &lb, &a->rext)))
        return PMPI_Comm_call_errhandler(comm, rc), rc;
    nh_req_progress();
    nh_report_rec *rec = nh_report_rec_get(p, op, NH_FORM_BLOCKING);
    if (rec) {
        rec->calls[NH_ALGO_STFW]++;
        nh_stfw_report_fill(p, op, rec);
    }
    a->op = op;
    rc = run(p->stfw, p->stfw->sched[op], a);
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
