/* Store-and-forward schedules: the builder (see stfw.h). */
#include "stfw.h"

#include <stdlib.h>

/* ---- edge matching ---- */

typedef struct trip {
    int d, s, k; /* destination, source, list index */
} trip;

static int trip_cmp(const void *a, const void *b)
{
    const trip *x = a, *y = b;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* MPI's matching: the k-th edge s -> d in s's destination list meets the
 * k-th entry s in d's source list.  Fills rslot[off[s] + j] (the receive
 * slot at dst[s][j] of s's j-th block).  Returns 0, or NH_STFW_* . */
static int match_edges(const nh_stfw_graph *g, const long *off, long E, int *rslot)
{
    long Ein = 0;
    for (int r = 0; r < g->K; r++)
        Ein += g->indeg[r];
    if (Ein != E)
        return NH_STFW_INCONSISTENT;
    trip *o = malloc(((size_t)E + 1) * sizeof(trip)), *in = malloc(((size_t)E + 1) * sizeof(trip));
    int rc = NH_STFW_OOM;
    if (!o || !in)
        goto out;
    rc = NH_STFW_INCONSISTENT;
    long n = 0;
    for (int s = 0; s < g->K; s++)
        for (int j = 0; j < g->outdeg[s]; j++) {
            int d = g->dst[s][j];
            if (d < 0 || d >= g->K)
                goto out;
            o[n++] = (trip){d, s, j};
        }
    n = 0;
    for (int d = 0; d < g->K; d++)
        for (int i = 0; i < g->indeg[d]; i++) {
            int s = g->src[d][i];
            if (s < 0 || s >= g->K)
                goto out;
            in[n++] = (trip){d, s, i};
        }
    qsort(o, (size_t)E, sizeof(trip), trip_cmp);
    qsort(in, (size_t)E, sizeof(trip), trip_cmp);
    for (long e = 0; e < E; e++) {
        if (o[e].d != in[e].d || o[e].s != in[e].s)
            goto out;
        rslot[off[o[e].s] + o[e].k] = in[e].k;
    }
    rc = NH_STFW_OK;
out:
    free(o);
    free(in);
    return rc;
}

/* ---- builder ---- */

typedef struct target {
    int d, slot;
} target;

typedef struct holder {
    int loc, buf, slot, lo, hi;
} holder;

typedef struct bctx {
    const nh_vpt *v;
    long stride[NH_STFW_MAXDIMS];
    long wkey[NH_STFW_MAXDIMS];
} bctx;

static inline int posof(const nh_vpt *v, int r)
{
    return v->pos ? v->pos[r] : r;
}

static inline int rankat(const nh_vpt *v, int x)
{
    return v->rank ? v->rank[x] : x;
}

static inline int coord(const bctx *b, int x, int c)
{
    return (int)((x / b->stride[c]) % b->v->dims[c]);
}

/* ---- routes: a grid's stages, or node aggregation's (nh_vpt_agg) ---- */

static inline int node_of(const nh_vpt *v, int r)
{
    return v->nodeof[r];
}

static inline int local_of(const nh_vpt *v, int r)
{
    return v->pos[r] - v->nstart[v->nodeof[r]];
}

/* The rank of node n that serves node m: local index m mod n's size. */
static inline int agent(const nh_vpt *v, int n, int m)
{
    return v->rank[v->nstart[n] + m % (v->nstart[n + 1] - v->nstart[n])];
}

/* Keys in stage c (< nkeys): the blocks a holder has for targets of equal
 * key go to one next hop (several keys may share one); rkey tells the
 * peers of a rank in a stage apart, senders and receivers alike. */
static int nkeys(const bctx *b, int c)
{
    const nh_vpt *v = b->v;
    return !v->agg ? v->dims[c] : c == 1 ? v->nnodes : c == 0 ? v->nnodes + v->maxppn : v->maxppn;
}

static int key(const bctx *b, int c, int L, int d)
{
    const nh_vpt *v = b->v;
    if (!v->agg)
        return coord(b, posof(v, d), c);
    if (c == 0) /* off-node: the node; on-node: the rank itself */
        return node_of(v, d) != node_of(v, L) ? node_of(v, d) : v->nnodes + local_of(v, d);
    return c == 1 ? node_of(v, d) : local_of(v, d);
}

static int rkey(const bctx *b, int c, int L)
{
    const nh_vpt *v = b->v;
    if (!v->agg)
        return coord(b, posof(v, L), c);
    return c == 1 ? node_of(v, L) : local_of(v, L);
}

/* The next hop from L in stage c for a target d (L itself: it stays). */
static int hop(const bctx *b, int c, int L, int d)
{
    const nh_vpt *v = b->v;
    if (!v->agg) {
        int x = posof(v, L);
        return rankat(v,
                      (int)(x + (long)(coord(b, posof(v, d), c) - coord(b, x, c)) * b->stride[c]));
    }
    int n = node_of(v, L), m = node_of(v, d);
    if (c == 0)
        return m != n ? agent(v, n, m) : d;
    if (c == 1)
        return m != n ? agent(v, m, n) : L;
    return d;
}

/* Sort key: grid coordinates with the first dimension most significant,
 * or (node, local index), so the targets sharing a route prefix are
 * contiguous in every stage. */
static long route_key(const bctx *b, int r)
{
    if (b->v->agg)
        return (long)node_of(b->v, r) * b->v->maxppn + local_of(b->v, r);
    int x = posof(b->v, r);
    long k = 0;
    for (int c = 0; c < b->v->n; c++)
        k += coord(b, x, c) * b->wkey[c];
    return k;
}

static const bctx *sort_ctx;

static int target_cmp(const void *a, const void *c)
{
    long x = route_key(sort_ctx, ((const target *)a)->d),
         y = route_key(sort_ctx, ((const target *)c)->d);
    return (x > y) - (x < y);
}

/* Schedule index of rank r, or -1 when it is not built. */
static inline int built(int me, int r)
{
    return me < 0 ? r : (r == me ? 0 : -1);
}

static int copy_round(nh_sched *s, int *cr, int phase)
{
    if (*cr < 0)
        *cr = nh_sched_add_round(s, phase, NH_NONE, NH_NONE, 1);
    return *cr;
}

int nh_stfw_build(const nh_stfw_graph *g, const nh_vpt *v, nh_op op, int me, nh_sched **out)
{
    int K = g->K, n = v->n, nb = me < 0 ? K : 1, rc = NH_STFW_OOM;
    long E = 0;
    long *off = malloc(((size_t)K + 1) * sizeof(long));
    int *rslot = NULL, *cround = NULL, *sround = NULL, *rround = NULL;
    target *tg = NULL;
    holder *h = NULL, *h2 = NULL;
    nh_sched **sch = calloc((size_t)nb, sizeof(nh_sched *));
    bctx b;
    if (!off || !sch || v->K != K)
        goto fail;
    b.v = v;
    b.stride[0] = 1;
    for (int c = 1; c < n; c++)
        b.stride[c] = b.stride[c - 1] * v->dims[c - 1];
    b.wkey[n - 1] = 1;
    for (int c = n - 2; c >= 0; c--)
        b.wkey[c] = b.wkey[c + 1] * v->dims[c + 1];
    for (int r = 0; r < K; r++) {
        off[r] = E;
        E += g->outdeg[r];
    }
    off[K] = E;
    rslot = malloc(((size_t)E + 1) * sizeof(int));
    tg = malloc(((size_t)E + 1) * sizeof(target));
    h = malloc(((size_t)E + 1) * sizeof(holder));
    h2 = malloc(((size_t)E + 1) * sizeof(holder));
    cround = malloc((size_t)nb * sizeof(int));
    if (!rslot || !tg || !h || !h2 || !cround)
        goto fail;
    if ((rc = match_edges(g, off, E, rslot)) != NH_STFW_OK)
        goto fail;
    rc = NH_STFW_OOM;
    for (int i = 0; i < nb; i++) {
        cround[i] = -1;
        if (!(sch[i] = nh_sched_new(NH_ALGO_STFW, op)))
            goto fail;
    }
    const int cphase = n + 1;
    long nh = 0, nt = 0;
    if (op == NH_OP_ALLTOALL) {
        for (int s = 0; s < K; s++)
            for (int j = 0; j < g->outdeg[s]; j++) {
                int d = g->dst[s][j], slot = rslot[off[s] + j];
                if (d == s) {
                    int bi = built(me, s);
                    if (bi >= 0) {
                        int r = copy_round(sch[bi], &cround[bi], cphase);
                        nh_sched_add_send(sch[bi], r, NH_BUF_SEND, j);
                        nh_sched_add_recv(sch[bi], r, NH_BUF_RECV, slot);
                    }
                    continue;
                }
                tg[nt] = (target){d, slot};
                h[nh++] = (holder){s, NH_BUF_SEND, j, (int)nt, (int)nt + 1};
                nt++;
            }
    } else {
        /* Distinct destinations per source, each with its first receive
         * slot; further slots listing the same source are copies. */
        trip *pr = malloc(((size_t)E + 1) * sizeof(trip));
        if (!pr)
            goto fail;
        for (int s = 0; s < K; s++)
            for (int j = 0; j < g->outdeg[s]; j++)
                pr[off[s] + j] = (trip){g->dst[s][j], s, rslot[off[s] + j]};
        for (int s = 0; s < K; s++) {
            trip *ps = pr + off[s];
            qsort(ps, (size_t)g->outdeg[s], sizeof(trip), trip_cmp);
            long lo = nt;
            for (int j = 0; j < g->outdeg[s]; j++) {
                int d = ps[j].d, first = j == 0 || ps[j - 1].d != d;
                int bi = built(me, d);
                if (d == s || !first) {
                    if (bi >= 0) {
                        int r = copy_round(sch[bi], &cround[bi], cphase);
                        if (d == s)
                            nh_sched_add_send(sch[bi], r, NH_BUF_SEND, 0);
                        else
                            nh_sched_add_send(sch[bi], r, NH_BUF_RECV, tg[nt - 1].slot);
                        nh_sched_add_recv(sch[bi], r, NH_BUF_RECV, ps[j].k);
                    }
                    continue;
                }
                tg[nt++] = (target){d, ps[j].k};
            }
            if (nt > lo) {
                sort_ctx = &b;
                qsort(tg + lo, (size_t)(nt - lo), sizeof(target), target_cmp);
                h[nh++] = (holder){s, NH_BUF_SEND, 0, (int)lo, (int)nt};
            }
        }
        free(pr);
    }

    for (int c = 0; c < n; c++) {
        int kc = nkeys(&b, c);
        long nmap = (long)nb * kc;
        free(sround);
        free(rround);
        sround = malloc((size_t)nmap * sizeof(int));
        rround = malloc((size_t)nmap * sizeof(int));
        if (!sround || !rround)
            goto fail;
        for (long i = 0; i < nmap; i++)
            sround[i] = rround[i] = -1;
        long nh2 = 0;
        for (long q = 0; q < nh; q++) {
            holder hq = h[q];
            int lc = rkey(&b, c, hq.loc);
            for (int i = hq.lo; i < hq.hi;) {
                int x = key(&b, c, hq.loc, tg[i].d), j = i;
                while (j < hq.hi && key(&b, c, hq.loc, tg[j].d) == x)
                    j++;
                int B = hop(&b, c, hq.loc, tg[i].d);
                if (B == hq.loc) {
                    if (!(j - i == 1 && tg[i].d == hq.loc))
                        h2[nh2++] = (holder){hq.loc, hq.buf, hq.slot, i, j};
                    i = j;
                    continue;
                }
                int ba = built(me, hq.loc), bb = built(me, B), buf = NH_BUF_TEMP, slot = -1;
                for (int t = i; t < j; t++)
                    if (tg[t].d == B) {
                        buf = NH_BUF_RECV;
                        slot = tg[t].slot;
                        break;
                    }
                if (ba >= 0) {
                    int *r = &sround[(long)ba * kc + rkey(&b, c, B)]; /* one message per peer */
                    if (*r < 0)
                        *r = nh_sched_add_round(sch[ba], c + 1, B, NH_NONE, 0);
                    nh_sched_add_send(sch[ba], *r, hq.buf, hq.slot);
                }
                if (bb >= 0) {
                    int *r = &rround[(long)bb * kc + lc];
                    if (*r < 0)
                        *r = nh_sched_add_round(sch[bb], c + 1, NH_NONE, hq.loc, 0);
                    if (buf == NH_BUF_TEMP)
                        slot = nh_sched_temp(sch[bb]);
                    nh_sched_add_recv(sch[bb], *r, buf, slot);
                }
                if (!(j - i == 1 && tg[i].d == B))
                    h2[nh2++] = (holder){B, buf, slot, i, j};
                i = j;
            }
        }
        holder *t = h;
        h = h2;
        h2 = t;
        nh = nh2;
    }
    if (nh != 0) { /* cannot happen: after n stages every block is home */
        rc = NH_STFW_INCONSISTENT;
        goto fail;
    }
    for (int i = 0; i < nb; i++) {
        nh_sched *s = sch[i];
        if (s->oom)
            goto fail;
        s->nphases = n + 2;
        s->ntags = n + 2;
        int last = -1;
        for (int k = 0; k < s->nrounds; k++) {
            nh_round *r = &s->rounds[k];
            r->tag = r->phase; /* one message per pair of ranks and stage */
            r->tmpl_blocks = r->copy ? r->nsend : r->sendpeer != NH_NONE ? r->nsend : 0;
            if (r->copy) {
                s->tmpl_copies += r->nsend;
            } else if (r->sendpeer != NH_NONE) {
                s->tmpl_msgs++;
                s->tmpl_blocks += r->nsend;
                if (r->nsend > 1)
                    s->tmpl_multi += r->nsend;
                if (r->phase != last) {
                    last = r->phase;
                    s->tmpl_rounds++;
                }
            }
        }
    }
    for (int i = 0; i < nb; i++)
        out[i] = sch[i];
    free(sch);
    sch = NULL;
    rc = NH_STFW_OK;
fail:
    if (sch)
        for (int i = 0; i < nb; i++)
            nh_sched_free(sch[i]);
    free(sch);
    free(off);
    free(rslot);
    free(tg);
    free(h);
    free(h2);
    free(cround);
    free(sround);
    free(rround);
    return rc;
}

long nh_stfw_sched_msgs(const nh_sched *s)
{
    return s->tmpl_msgs;
}
