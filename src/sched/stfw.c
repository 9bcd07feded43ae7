/* Store-and-forward schedules: VPT formation, the builder, the simulator
 * and the metrics (see stfw.h). */
#include "stfw.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- virtual process topology ---- */

static int prime_factors(int K, int *f, int max)
{
    int n = 0;
    for (int p = 2; (long)p * p <= K; p++)
        while (K % p == 0 && n < max) {
            f[n++] = p;
            K /= p;
        }
    if (K > 1 && n < max)
        f[n++] = K;
    return n; /* ascending */
}

int nh_vpt_max_dims(int K)
{
    int f[64];
    if (K < 1)
        return 0;
    int n = prime_factors(K, f, 64);
    return n < NH_STFW_MAXDIMS ? n : NH_STFW_MAXDIMS;
}

/* Balanced split of K into n factors >= 2 (largest first). */
static int balance(int K, int n, int *dims)
{
    int f[64];
    int nf = prime_factors(K, f, 64);
    if (n < 1 || n > nf)
        return -1;
    for (int c = 0; c < n; c++)
        dims[c] = 1;
    for (int i = nf - 1; i >= 0; i--) {
        /* Every dimension needs one factor: the first n factors (largest
         * first) go one per dimension, the rest to the smallest product. */
        int best = 0;
        for (int c = 1; c < n; c++)
            if (dims[c] < dims[best])
                best = c;
        dims[best] *= f[i];
    }
    for (int a = 1; a < n; a++) /* largest first */
        for (int b = a; b > 0 && dims[b] > dims[b - 1]; b--) {
            int t = dims[b];
            dims[b] = dims[b - 1];
            dims[b - 1] = t;
        }
    return 0;
}

int nh_vpt_init(nh_vpt *v, int K, int n, int first)
{
    memset(v, 0, sizeof(*v));
    if (K < 1 || n < 1 || n > NH_STFW_MAXDIMS)
        return -1;
    v->K = K;
    v->n = n;
    if (K == 1) {
        if (n != 1)
            return -1;
        v->dims[0] = 1;
        return 0;
    }
    if (first > 0) {
        if (first < 2 || K % first != 0)
            return -1;
        v->dims[0] = first;
        if (n == 1)
            return first == K ? 0 : -1;
        return balance(K / first, n - 1, v->dims + 1);
    }
    return balance(K, n, v->dims);
}

int nh_vpt_set_order(nh_vpt *v, const int *order)
{
    int *pos = malloc((size_t)v->K * sizeof(int)), *rank = malloc((size_t)v->K * sizeof(int));
    if (!pos || !rank) {
        free(pos);
        free(rank);
        return -1;
    }
    for (int r = 0; r < v->K; r++)
        pos[r] = -1;
    for (int i = 0; i < v->K; i++) {
        int r = order[i];
        if (r < 0 || r >= v->K || pos[r] >= 0) {
            free(pos);
            free(rank);
            return -1;
        }
        pos[r] = i;
        rank[i] = r;
    }
    free(v->pos);
    free(v->rank);
    v->pos = pos;
    v->rank = rank;
    return 0;
}

typedef struct place {
    int node, numa, rank;
} place;

static int place_cmp(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->numa != y->numa)
        return x->numa < y->numa ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int nh_vpt_grouped(nh_vpt *v, int K, int n, const int *loc)
{
    int rc = -1, g = 0, nodes = 0, best = 0;
    place *all = malloc(((size_t)K + 1) * sizeof(place));
    int *order = malloc(((size_t)K + 1) * sizeof(int));
    nh_vpt plain, t;
    if (!all || !order)
        goto out;
    rc = 0;
    if (n < 2 || nh_vpt_init(&plain, K, n, 0))
        goto out;
    for (int r = 0; r < K; r++)
        all[r] = (place){loc[2 * r], loc[2 * r + 1], r};
    qsort(all, (size_t)K, sizeof(place), place_cmp);
    for (int i = 0; i < K;) {
        int j = i;
        while (j < K && all[j].node == all[i].node)
            j++;
        g = gcd(g, j - i);
        nodes++;
        i = j;
    }
    if (nodes < 2 || g < 2)
        goto out;
    /* k_1 among the divisors of g: the closest to the balanced VPT's
     * largest dimension (ties: the larger). */
    double target = log((double)plain.dims[0]), bd = 0;
    for (int f = 2; f <= g; f++) {
        if (g % f || nh_vpt_init(&t, K, n, f))
            continue;
        double d = fabs(log((double)f) - target);
        if (!best || d <= bd) {
            best = f;
            bd = d;
        }
    }
    if (!best)
        goto out;
    for (int i = 0; i < K; i++)
        order[i] = all[i].rank;
    if (nh_vpt_init(v, K, n, best) || nh_vpt_set_order(v, order)) {
        rc = -1;
        goto out;
    }
    rc = 1;
out:
    free(all);
    free(order);
    return rc;
}

void nh_vpt_fini(nh_vpt *v)
{
    free(v->pos);
    free(v->rank);
    v->pos = v->rank = NULL;
}

void nh_vpt_format(const nh_vpt *v, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int c = 0; c < v->n && k < len; c++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", c ? "x" : "", v->dims[c]);
}

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

/* Sort key: coordinates with the first dimension most significant, so the
 * targets sharing a route prefix are contiguous. */
static long route_key(const bctx *b, int r)
{
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
        int kc = v->dims[c];
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
            int L = posof(v, hq.loc), lc = coord(&b, L, c);
            for (int i = hq.lo; i < hq.hi;) {
                int x = coord(&b, posof(v, tg[i].d), c), j = i;
                while (j < hq.hi && coord(&b, posof(v, tg[j].d), c) == x)
                    j++;
                if (x == lc) {
                    if (!(j - i == 1 && tg[i].d == hq.loc))
                        h2[nh2++] = (holder){hq.loc, hq.buf, hq.slot, i, j};
                    i = j;
                    continue;
                }
                int B = rankat(v, (int)(L + (long)(x - lc) * b.stride[c]));
                int ba = built(me, hq.loc), bb = built(me, B), buf = NH_BUF_TEMP, slot = -1;
                for (int t = i; t < j; t++)
                    if (tg[t].d == B) {
                        buf = NH_BUF_RECV;
                        slot = tg[t].slot;
                        break;
                    }
                if (ba >= 0) {
                    int *r = &sround[(long)ba * kc + x];
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

/* ---- simulator ---- */

typedef struct simmsg {
    int to, from, round;
    long val0; /* first value in vals */
} simmsg;

static int msg_cmp(const void *a, const void *b)
{
    const simmsg *x = a, *y = b;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return (x->from > y->from) - (x->from < y->from);
}

static void why_set(char *why, size_t len, int *ok, const char *fmt, ...)
{
    if (!*ok)
        return;
    *ok = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static int long_pair_cmp(const void *a, const void *b)
{
    const long *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int nh_stfw_simulate(const nh_stfw_graph *g, nh_op op, nh_sched *const *scheds, long *const *words,
                     nh_stfw_metrics *m, char *why, size_t whylen)
{
    int K = g->K, ok = 1, rc = -1, nph = 0;
    long E = 0;
    for (int r = 0; r < K; r++) {
        E += g->outdeg[r];
        if (scheds[r]->nphases > nph)
            nph = scheds[r]->nphases;
    }
    long *off = malloc(((size_t)K + 1) * sizeof(long));
    long **val[3] = {calloc((size_t)K, sizeof(long *)), calloc((size_t)K, sizeof(long *)),
                     calloc((size_t)K, sizeof(long *))};
    int **writes = calloc((size_t)K, sizeof(int *));
    long *msgs = calloc((size_t)K, sizeof(long)), *vol = calloc((size_t)K, sizeof(long)),
         *buf = calloc((size_t)K, sizeof(long)), *wflat = malloc(((size_t)E + 1) * sizeof(long));
    simmsg *mv = NULL;
    long *vals = NULL, *pairs = NULL;
    int *cnt = NULL;
    size_t capm = 0, capv = 0;
    if (why && whylen)
        why[0] = '\0';
    if (!off || !val[0] || !val[1] || !val[2] || !writes || !msgs || !vol || !buf || !wflat)
        goto out;
    E = 0;
    for (int r = 0; r < K; r++) {
        off[r] = E;
        for (int j = 0; j < g->outdeg[r]; j++)
            wflat[E + j] = op == NH_OP_ALLTOALL && words ? words[r][j] : 1;
        E += g->outdeg[r];
    }
    off[K] = E;
    for (int r = 0; r < K; r++) {
        int ns = op == NH_OP_ALLTOALL ? g->outdeg[r] : 1, ni = g->indeg[r];
        int nt = scheds[r]->ntemp;
        val[NH_BUF_SEND][r] = malloc(((size_t)ns + 1) * sizeof(long));
        val[NH_BUF_RECV][r] = malloc(((size_t)ni + 1) * sizeof(long));
        val[NH_BUF_TEMP][r] = malloc(((size_t)nt + 1) * sizeof(long));
        writes[r] = calloc((size_t)ni + 1, sizeof(int));
        if (!val[0][r] || !val[1][r] || !val[2][r] || !writes[r])
            goto out;
        for (int j = 0; j < ns; j++)
            val[NH_BUF_SEND][r][j] = op == NH_OP_ALLTOALL ? off[r] + j : r;
        for (int i = 0; i < ni; i++)
            val[NH_BUF_RECV][r][i] = -1;
        for (int t = 0; t < nt; t++)
            val[NH_BUF_TEMP][r][t] = -1;
    }
#define LEN(r, bf)                                                                                 \
    ((bf) == NH_BUF_SEND   ? (op == NH_OP_ALLTOALL ? g->outdeg[r] : 1)                             \
     : (bf) == NH_BUF_RECV ? g->indeg[r]                                                           \
                           : scheds[r]->ntemp)
#define WEIGHT(v) (op == NH_OP_ALLTOALL ? wflat[v] : 1)
    for (int ph = 0; ph < nph && ok; ph++) {
        /* Sends first: a message carries its blocks as they are when the
         * phase starts (the executor packs every send before it receives). */
        size_t nm = 0, nv = 0;
        for (int r = 0; r < K && ok; r++) {
            const nh_sched *s = scheds[r];
            for (int k = 0; k < s->nrounds && ok; k++) {
                const nh_round *rd = &s->rounds[k];
                if (rd->phase != ph || rd->copy || rd->sendpeer == NH_NONE)
                    continue;
                if (rd->sendpeer < 0 || rd->sendpeer >= K || rd->sendpeer == r) {
                    why_set(why, whylen, &ok, "rank %d phase %d: bad peer %d", r, ph, rd->sendpeer);
                    break;
                }
                if (nm == capm) {
                    capm = capm ? 2 * capm : 1024;
                    simmsg *t = realloc(mv, capm * sizeof(*mv));
                    if (!t)
                        goto out;
                    mv = t;
                }
                mv[nm++] = (simmsg){rd->sendpeer, r, k, (long)nv};
                msgs[r]++;
                for (int i = 0; i < rd->nsend; i++) {
                    const nh_blk *bk = &rd->send[i];
                    if (bk->buf < 0 || bk->buf > 2 || bk->slot < 0 || bk->slot >= LEN(r, bk->buf)) {
                        why_set(why, whylen, &ok, "rank %d: send block out of range", r);
                        break;
                    }
                    long x = val[bk->buf][r][bk->slot];
                    if (x < 0) {
                        why_set(why, whylen, &ok,
                                "rank %d phase %d: sends (buf %d, slot %d) before it holds data", r,
                                ph, bk->buf, bk->slot);
                        break;
                    }
                    if (nv == capv) {
                        capv = capv ? 2 * capv : 4096;
                        long *t = realloc(vals, capv * sizeof(long));
                        if (!t)
                            goto out;
                        vals = t;
                    }
                    vals[nv++] = x;
                    vol[r] += WEIGHT(x);
                }
            }
        }
        qsort(mv, nm, sizeof(*mv), msg_cmp);
        for (size_t i = 1; i < nm && ok; i++)
            if (mv[i].to == mv[i - 1].to && mv[i].from == mv[i - 1].from)
                why_set(why, whylen, &ok, "phase %d: two messages %d -> %d", ph, mv[i].from,
                        mv[i].to);
        size_t matched = 0;
        for (int r = 0; r < K && ok; r++) {
            const nh_sched *s = scheds[r];
            for (int k = 0; k < s->nrounds && ok; k++) {
                const nh_round *rd = &s->rounds[k];
                if (rd->phase != ph)
                    continue;
                if (rd->copy) {
                    for (int i = 0; i < rd->nsend && i < rd->nrecv && ok; i++) {
                        const nh_blk *a = &rd->send[i], *bk = &rd->recv[i];
                        if (a->slot < 0 || a->slot >= LEN(r, a->buf) || bk->buf != NH_BUF_RECV ||
                            bk->slot < 0 || bk->slot >= LEN(r, bk->buf)) {
                            why_set(why, whylen, &ok, "rank %d: copy block out of range", r);
                            break;
                        }
                        val[NH_BUF_RECV][r][bk->slot] = val[a->buf][r][a->slot];
                        writes[r][bk->slot]++;
                    }
                    continue;
                }
                if (rd->recvpeer == NH_NONE)
                    continue;
                simmsg key = {r, rd->recvpeer, 0, 0};
                simmsg *hit = bsearch(&key, mv, nm, sizeof(*mv), msg_cmp);
                if (!hit) {
                    why_set(why, whylen, &ok, "phase %d: rank %d waits for %d, which sends nothing",
                            ph, r, rd->recvpeer);
                    break;
                }
                const nh_round *sd = &scheds[hit->from]->rounds[hit->round];
                if (sd->nsend != rd->nrecv) {
                    why_set(why, whylen, &ok, "phase %d: %d -> %d sends %d blocks, %d expected", ph,
                            hit->from, r, sd->nsend, rd->nrecv);
                    break;
                }
                matched++;
                for (int i = 0; i < rd->nrecv; i++) {
                    const nh_blk *bk = &rd->recv[i];
                    if (bk->buf == NH_BUF_SEND || bk->slot < 0 || bk->slot >= LEN(r, bk->buf)) {
                        why_set(why, whylen, &ok, "rank %d: receive block out of range", r);
                        break;
                    }
                    long x = vals[hit->val0 + i];
                    if (bk->buf == NH_BUF_TEMP) {
                        if (val[NH_BUF_TEMP][r][bk->slot] >= 0) {
                            why_set(why, whylen, &ok, "rank %d: temporary slot %d reused", r,
                                    bk->slot);
                            break;
                        }
                        buf[r] += WEIGHT(x);
                    } else {
                        writes[r][bk->slot]++;
                    }
                    val[bk->buf][r][bk->slot] = x;
                }
            }
        }
        if (ok && matched != nm)
            why_set(why, whylen, &ok, "phase %d: %zu messages sent, %zu received", ph, nm, matched);
    }
    /* Expected contents, computed independently of the builder: per source
     * its (destination, index) pairs sorted; slot i of d listing s for the
     * k-th time gets the k-th pair (d, .) of s. */
    pairs = malloc(((size_t)E + 1) * 2 * sizeof(long));
    cnt = calloc((size_t)K, sizeof(int));
    if (!pairs || !cnt)
        goto out;
    for (int s = 0; s < K; s++) {
        for (int j = 0; j < g->outdeg[s]; j++) {
            pairs[2 * (off[s] + j)] = g->dst[s][j];
            pairs[2 * (off[s] + j) + 1] = j;
        }
        qsort(pairs + 2 * off[s], (size_t)g->outdeg[s], 2 * sizeof(long), long_pair_cmp);
    }
    for (int d = 0; d < K && ok; d++) {
        for (int i = 0; i < g->indeg[d] && ok; i++) {
            int s = g->src[d][i], k = cnt[s]++;
            long lo = off[s], hi = off[s + 1];
            while (lo < hi) { /* first pair with destination >= d */
                long mid = (lo + hi) / 2;
                if (pairs[2 * mid] < d)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            long e = lo + k;
            if (e >= off[s + 1] || pairs[2 * e] != d) {
                why_set(why, whylen, &ok, "rank %d lists source %d more often than %d lists it", d,
                        s, s);
                break;
            }
            long want = op == NH_OP_ALLTOALL ? off[s] + pairs[2 * e + 1] : s;
            if (writes[d][i] != 1)
                why_set(why, whylen, &ok, "rank %d: receive slot %d written %d times", d, i,
                        writes[d][i]);
            else if (val[NH_BUF_RECV][d][i] != want)
                why_set(why, whylen, &ok, "rank %d: receive slot %d holds block %ld, not %ld", d, i,
                        val[NH_BUF_RECV][d][i], want);
            buf[d] += WEIGHT(want);
        }
        for (int i = 0; i < g->indeg[d]; i++)
            cnt[g->src[d][i]] = 0;
    }
    if (m) {
        memset(m, 0, sizeof(*m));
        double sm = 0, sv = 0;
        for (int r = 0; r < K; r++) {
            long own = 0;
            for (int j = 0; j < g->outdeg[r]; j++)
                own += op == NH_OP_ALLTOALL ? wflat[off[r] + j] : (j == 0);
            buf[r] += own;
            if (msgs[r] > m->mmax)
                m->mmax = msgs[r];
            if (vol[r] > m->vmax)
                m->vmax = vol[r];
            if (buf[r] > m->bufmax)
                m->bufmax = buf[r];
            sm += (double)msgs[r];
            sv += (double)vol[r];
            m->total_msg += msgs[r];
        }
        m->mavg = K ? sm / K : 0;
        m->vavg = K ? sv / K : 0;
    }
    rc = ok;
#undef LEN
#undef WEIGHT
out:
    if (rc < 0 && why && whylen)
        snprintf(why, whylen, "out of memory");
    for (int bf = 0; bf < 3; bf++) {
        for (int r = 0; val[bf] && r < K; r++)
            free(val[bf][r]);
        free(val[bf]);
    }
    for (int r = 0; writes && r < K; r++)
        free(writes[r]);
    free(writes);
    free(off);
    free(msgs);
    free(vol);
    free(buf);
    free(wflat);
    free(mv);
    free(vals);
    free(pairs);
    free(cnt);
    return rc;
}

void nh_stfw_baseline(const nh_stfw_graph *g, long *const *words, nh_stfw_metrics *m)
{
    memset(m, 0, sizeof(*m));
    long *inw = calloc((size_t)g->K + 1, sizeof(long));
    double sm = 0, sv = 0;
    for (int s = 0; s < g->K; s++)
        for (int j = 0; j < g->outdeg[s]; j++) {
            int d = g->dst[s][j];
            if (inw && d >= 0 && d < g->K)
                inw[d] += words ? words[s][j] : 1;
        }
    for (int s = 0; s < g->K; s++) {
        long msgs = 0, vol = 0, own = 0;
        for (int j = 0; j < g->outdeg[s]; j++) {
            int d = g->dst[s][j], seen = 0;
            long w = words ? words[s][j] : 1;
            own += w;
            if (d == s)
                continue;
            vol += w;
            for (int k = 0; k < j && !seen; k++)
                seen = g->dst[s][k] == d;
            msgs += !seen;
        }
        long b = own + (inw ? inw[s] : 0);
        if (msgs > m->mmax)
            m->mmax = msgs;
        if (vol > m->vmax)
            m->vmax = vol;
        if (b > m->bufmax)
            m->bufmax = b;
        sm += (double)msgs;
        sv += (double)vol;
        m->total_msg += msgs;
    }
    free(inw);
    m->mavg = g->K ? sm / g->K : 0;
    m->vavg = g->K ? sv / g->K : 0;
}

/* ---- cost-model estimates ---- */

/* Distinct values among b uniform draws from k - 1 peers (and self). */
static double distinct(double k, double b)
{
    if (k <= 1 || b <= 0)
        return 0;
    return (k - 1) * (1 - pow(1 - 1 / k, b));
}

double nh_stfw_est_msgs(const nh_vpt *v, double maxout, double maxin, double avgdeg)
{
    /* Stage 1: the rank with the most destinations spreads them over its
     * k_1 - 1 neighbors.  Later stages: a holder carries about the average
     * degree plus its share of the heavy rank's blocks; the last stage
     * also delivers the heaviest receiver's blocks. */
    double t = 0, spread = 1;
    (void)maxin;
    for (int c = 0; c < v->n; c++) {
        double load = c == 0 ? maxout : avgdeg + maxout / spread;
        t += distinct(v->dims[c], load);
        spread *= v->dims[c];
    }
    return t;
}

double nh_stfw_est_hops(const nh_vpt *v)
{
    double h = 0;
    for (int c = 0; c < v->n; c++)
        h += (v->dims[c] - 1.0) / v->dims[c];
    return h;
}
