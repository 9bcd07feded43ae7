/* Store-and-forward: the simulator of all ranks' schedules and the
 * metrics against direct exchange (see stfw.h). */
#include "stfw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        if (nm > 1) /* (mv is NULL in a phase without messages) */
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
