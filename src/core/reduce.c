/* Reduction schedules: direct and dimension-wise combining (see reduce.h). */
#include "core/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const nh_red_algo_names[NH_RED_COUNT] = {"direct", "dimwise"};

static int add_int(int **a, int *n, int *cap, int v)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 4;
        int *t = realloc(*a, (size_t)nc * sizeof(int));
        if (!t)
            return -1;
        *a = t;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return 0;
}

void nh_rsched_free(nh_rsched *rs)
{
    if (!rs)
        return;
    for (int k = 0; k < rs->nsteps; k++) {
        nh_rstep *st = &rs->steps[k];
        for (int m = 0; m < st->nmsg; m++) {
            free(st->msg[m].send);
            free(st->msg[m].red_blk);
            free(st->msg[m].red_acc);
        }
        free(st->msg);
        free(st->local);
    }
    free(rs->steps);
    free(rs);
}

/* Builder state for one message. */
typedef struct mbuild {
    int capsend, capred, capred2;
} mbuild;

static int msg_send(nh_rmsg *m, mbuild *b, int node)
{
    return add_int(&m->send, &m->nsend, &b->capsend, node);
}

static int msg_red(nh_rmsg *m, mbuild *b, int blk, int acc)
{
    int n = m->nred;
    if (add_int(&m->red_blk, &n, &b->capred, blk))
        return -1;
    n = m->nred;
    if (add_int(&m->red_acc, &n, &b->capred2, acc))
        return -1;
    m->nred = n;
    return 0;
}

static int step_local(nh_rstep *st, int *cap, int src, int acc)
{
    if (st->nlocal == *cap) {
        int nc = *cap ? 2 * *cap : 4;
        nh_rlocal *t = realloc(st->local, (size_t)nc * sizeof(*t));
        if (!t)
            return -1;
        st->local = t;
        *cap = nc;
    }
    st->local[st->nlocal].src = src;
    st->local[st->nlocal].acc = acc;
    st->nlocal++;
    return 0;
}

/* Does coords + sign * (off restricted to dimensions lo..hi) exist? */
static int exists_part(const nh_grid *g, const int *coords, const int *off, int sign, int lo,
                       int hi)
{
    for (int j = lo; j <= hi; j++) {
        if (g->periods[j])
            continue;
        int c = coords[j] + sign * off[j];
        if (c < 0 || c >= g->dims[j])
            return 0;
    }
    return 1;
}

static int build_direct(const nh_grid *g, int rank, int s, const int *off, nh_rsched *rs)
{
    int d = g->ndims, coords[NH_MAXDIMS], caplocal = 0;
    nh_grid_coords(g, rank, coords);
    rs->nacc = 1;
    rs->root = 0;
    rs->nsteps = 1;
    if (!(rs->steps = calloc(1, sizeof(nh_rstep))))
        return -1;
    nh_rstep *st = &rs->steps[0];
    if (!(st->msg = calloc((size_t)s + 1, sizeof(nh_rmsg))))
        return -1;
    for (int i = 0; i < s; i++) {
        const int *c = off + (size_t)i * d;
        int zero = 1;
        for (int j = 0; j < d; j++)
            zero &= c[j] == 0;
        if (zero) { /* a process that is its own neighbor */
            if (step_local(st, &caplocal, NH_RLEAF(i), 0))
                return -1;
            continue;
        }
        nh_rmsg *m = &st->msg[st->nmsg++];
        mbuild b = {0};
        m->sendpeer = nh_grid_shift(g, coords, c, +1);
        m->recvpeer = nh_grid_shift(g, coords, c, -1);
        if (m->sendpeer != NH_NONE && msg_send(m, &b, NH_RLEAF(i)))
            return -1;
        if (m->recvpeer != NH_NONE) {
            m->nrecv = 1;
            if (msg_red(m, &b, 0, 0))
                return -1;
        }
    }
    rs->ntags = st->nmsg;
    return 0;
}

/* The trie: level j (0..d-1) nodes are the distinct suffixes
 * (c_{j+1}, ..., c_{d-1}) of the normalized offsets; nodeof[j*s + i] is
 * the accumulator of offset i's suffix at level j (level d-1: the root). */
typedef struct trie {
    int d, s;
    const int *no; /* normalized offsets */
    int *nodeof;
    int *first; /* first[acc]: a leaf under that accumulator */
    int *level; /* level[acc] */
    int nacc;
} trie;

static int trie_build(trie *t)
{
    int d = t->d, s = t->s;
    t->nodeof = malloc(sizeof(int) * ((size_t)d * s + 1));
    t->first = malloc(sizeof(int) * ((size_t)d * s + 1));
    t->level = malloc(sizeof(int) * ((size_t)d * s + 1));
    if (!t->nodeof || !t->first || !t->level)
        return -1;
    t->nacc = 0;
    for (int j = 0; j < d; j++)
        for (int i = 0; i < s; i++) {
            const int *ci = t->no + (size_t)i * d;
            int found = -1;
            for (int k = 0; k < i && found < 0; k++) {
                const int *ck = t->no + (size_t)k * d;
                if (memcmp(ci + j + 1, ck + j + 1, sizeof(int) * (size_t)(d - j - 1)) == 0)
                    found = t->nodeof[j * s + k];
            }
            if (found < 0) {
                found = t->nacc++;
                t->first[found] = i;
                t->level[found] = j;
            }
            t->nodeof[j * s + i] = found;
        }
    return 0;
}

static void trie_free(trie *t)
{
    free(t->nodeof);
    free(t->first);
    free(t->level);
}

/* Does the node (a leaf when level is -1) hold a contribution that exists
 * and has a destination at coords?  A contribution of offset i at level l
 * came from coords - (c_0..c_l); its destination is coords + (c_{l+1}..). */
static int contributes(const nh_grid *g, const trie *t, int node, const int *coords)
{
    int d = t->d, s = t->s;
    int l = NH_RIS_LEAF(node) ? -1 : t->level[node];
    int rep = NH_RIS_LEAF(node) ? NH_RLEAF_IDX(node) : t->first[node];
    if (!exists_part(g, coords, t->no + (size_t)rep * d, +1, l + 1, d - 1))
        return 0;
    if (l < 0)
        return 1;
    for (int i = 0; i < s; i++)
        if (t->nodeof[l * s + i] == node && exists_part(g, coords, t->no + (size_t)i * d, -1, 0, l))
            return 1;
    return 0;
}

static int build_dimwise(const nh_grid *g, int rank, int s, const int *off, int scatter,
                         nh_rsched *rs)
{
    int d = g->ndims, coords[NH_MAXDIMS], rc = -1;
    nh_grid_coords(g, rank, coords);
    int *no = malloc(sizeof(int) * ((size_t)d * s + 1));
    int *child = malloc(sizeof(int) * ((size_t)s + 1)),
        *hop = malloc(sizeof(int) * ((size_t)s + 1));
    int *done = malloc(sizeof(int) * ((size_t)s + 1));
    trie t = {.d = d, .s = s, .no = no};
    if (!no || !child || !hop || !done)
        goto out;
    memcpy(no, off, sizeof(int) * (size_t)d * s);
    for (int i = 0; i < s; i++)
        nh_grid_normalize(g, no + (size_t)i * d);
    if (trie_build(&t))
        goto out;
    rs->nacc = s > 0 ? t.nacc : 1;
    rs->root = s > 0 ? t.nodeof[(d - 1) * s] : 0;
    rs->nsteps = d;
    if (!(rs->steps = calloc((size_t)d, sizeof(nh_rstep))))
        goto out;
    int tag = 0;
    for (int j = 0; j < d; j++) {
        nh_rstep *st = &rs->steps[j];
        int nch = 0, caplocal = 0;
        st->first_tag = tag;
        /* Children of level j, in a rank-independent order: the leaves
         * (j = 0) or the level j-1 accumulators in creation order, with the
         * coordinate they move in dimension j. */
        for (int i = 0; i < s; i++) {
            int node = j == 0 ? NH_RLEAF(i) : t.nodeof[(j - 1) * s + i];
            int seen = 0;
            for (int k = 0; k < nch && !seen; k++)
                seen = child[k] == node;
            if (seen)
                continue;
            child[nch] = node;
            hop[nch++] = no[(size_t)i * d + j];
        }
        if (!(st->msg = calloc((size_t)nch + 1, sizeof(nh_rmsg))))
            goto out;
        memset(done, 0, sizeof(int) * (size_t)nch);
        for (int a = 0; a < nch; a++) {
            if (done[a])
                continue;
            int h = hop[a];
            if (h == 0) { /* no move: reduce here */
                for (int k = a; k < nch; k++) {
                    if (hop[k] != 0 || done[k])
                        continue;
                    done[k] = 1;
                    int leaf = NH_RIS_LEAF(child[k]) ? NH_RLEAF_IDX(child[k]) : t.first[child[k]];
                    if (contributes(g, &t, child[k], coords) &&
                        step_local(st, &caplocal, child[k], t.nodeof[j * s + leaf]))
                        goto out;
                }
                continue;
            }
            /* One message per coordinate value: to coords + h e_j, from
             * coords - h e_j. */
            nh_rmsg *m = &st->msg[st->nmsg++];
            mbuild b = {0};
            int there[NH_MAXDIMS];
            memcpy(there, coords, sizeof(int) * (size_t)d);
            there[j] -= h;
            int from_exists = g->periods[j] || (there[j] >= 0 && there[j] < g->dims[j]);
            if (g->periods[j])
                there[j] = ((there[j] % g->dims[j]) + g->dims[j]) % g->dims[j];
            int shared = !scatter && j == 0; /* reduce: one vector for all leaves */
            int nsend = 0, nrecv = 0;
            for (int k = a; k < nch; k++) {
                if (hop[k] != h || done[k])
                    continue;
                done[k] = 1;
                int leaf = NH_RIS_LEAF(child[k]) ? NH_RLEAF_IDX(child[k]) : t.first[child[k]];
                int parent = t.nodeof[j * s + leaf];
                if (contributes(g, &t, child[k], coords)) {
                    if ((!shared || nsend == 0) && msg_send(m, &b, child[k]))
                        goto out;
                    nsend = 1;
                }
                if (from_exists && contributes(g, &t, child[k], there)) {
                    int blk = shared ? 0 : nrecv;
                    if ((!shared || nrecv == 0))
                        nrecv++;
                    if (msg_red(m, &b, blk, parent))
                        goto out;
                }
            }
            m->nrecv = nrecv;
            m->sendpeer = m->nsend ? nh_grid_step(g, coords, j, h) : NH_NONE;
            m->recvpeer = m->nrecv ? nh_grid_step(g, coords, j, -h) : NH_NONE;
        }
        tag += st->nmsg;
    }
    rs->ntags = tag;
    rc = 0;
out:
    trie_free(&t);
    free(no);
    free(child);
    free(hop);
    free(done);
    return rc;
}

int nh_rsched_build(const nh_grid *g, int rank, int s, const int *off, int scatter,
                    nh_red_algo algo, nh_rsched **out)
{
    nh_rsched *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return -1;
    rs->algo = algo;
    rs->scatter = scatter;
    int rc = algo == NH_RED_DIRECT ? build_direct(g, rank, s, off, rs)
                                   : build_dimwise(g, rank, s, off, scatter, rs);
    if (rc) {
        nh_rsched_free(rs);
        return -1;
    }
    for (int k = 0; k < rs->nsteps; k++) {
        const nh_rstep *st = &rs->steps[k];
        int r = 0;
        for (int m = 0; m < st->nmsg; m++) {
            rs->msgs += st->msg[m].nsend > 0;
            rs->blocks += st->msg[m].nsend;
            r += st->msg[m].nrecv;
        }
        if (r > rs->maxrecv)
            rs->maxrecv = r;
    }
    *out = rs;
    return 0;
}

/* ---- simulation ---- */

typedef struct simrank {
    nh_rsched *rs;
    int *acc;     /* nacc x width counts */
    int *written; /* nacc */
} simrank;

int nh_rsched_simulate(const nh_grid *g, int s, const int *off, int scatter, nh_red_algo algo,
                       long *msgs, long *blocks, char *why, size_t len)
{
    int p = g->size, d = g->ndims, rc = -1;
    size_t w = (size_t)p * (s > 0 ? s : 1);
    simrank *r = calloc((size_t)p, sizeof(*r));
    int *payload = NULL, *expect = malloc(sizeof(int) * w);
    long mm = 0, mb = 0;
    if (!r || !expect)
        goto out;
    for (int q = 0; q < p; q++) {
        if (nh_rsched_build(g, q, s, off, scatter, algo, &r[q].rs))
            goto out;
        r[q].acc = calloc((size_t)r[q].rs->nacc * w, sizeof(int));
        r[q].written = calloc((size_t)r[q].rs->nacc, sizeof(int));
        if (!r[q].acc || !r[q].written)
            goto out;
        if (r[q].rs->msgs > mm)
            mm = r[q].rs->msgs;
        if (r[q].rs->blocks > mb)
            mb = r[q].rs->blocks;
    }
    rc = 1;
    for (int q = 1; q < p; q++)
        if (r[q].rs->nsteps != r[0].rs->nsteps || r[q].rs->ntags != r[0].rs->ntags) {
            snprintf(why, len, "rank %d has %d steps / %d messages, rank 0 %d / %d", q,
                     r[q].rs->nsteps, r[q].rs->ntags, r[0].rs->nsteps, r[0].rs->ntags);
            goto out;
        }
    for (int k = 0; k < r[0].rs->nsteps; k++) {
        /* Payloads are read before any reduction of the step. */
        long total = 0;
        for (int q = 0; q < p; q++)
            for (int m = 0; m < r[q].rs->steps[k].nmsg; m++)
                total += r[q].rs->steps[k].msg[m].nsend;
        free(payload);
        payload = calloc((size_t)total * w + 1, sizeof(int));
        if (!payload) {
            rc = -1;
            goto out;
        }
        /* off_of[q][m]: where rank q's message m payload starts */
        long pos = 0;
        long *start = calloc((size_t)p * (r[0].rs->steps[k].nmsg + 1), sizeof(long));
        if (!start) {
            rc = -1;
            goto out;
        }
        for (int q = 0; q < p; q++) {
            const nh_rstep *st = &r[q].rs->steps[k];
            if (st->nmsg != r[0].rs->steps[k].nmsg) {
                snprintf(why, len, "step %d: rank %d has %d messages, rank 0 %d", k, q, st->nmsg,
                         r[0].rs->steps[k].nmsg);
                free(start);
                goto out;
            }
            for (int m = 0; m < st->nmsg; m++) {
                start[(size_t)q * st->nmsg + m] = pos;
                for (int b = 0; b < st->msg[m].nsend; b++, pos++) {
                    int node = st->msg[m].send[b];
                    int *dst = payload + (size_t)pos * w;
                    if (NH_RIS_LEAF(node)) {
                        int i = NH_RLEAF_IDX(node);
                        if (i < 0 || i >= s) {
                            snprintf(why, len, "rank %d sends leaf %d of %d", q, i, s);
                            free(start);
                            goto out;
                        }
                        dst[(size_t)q * s + (scatter ? i : 0)] = 1;
                    } else if (!r[q].written[node]) {
                        snprintf(why, len,
                                 "step %d: rank %d sends accumulator %d before it has a value", k,
                                 q, node);
                        free(start);
                        goto out;
                    } else {
                        memcpy(dst, r[q].acc + (size_t)node * w, sizeof(int) * w);
                    }
                }
            }
        }
        int nmsg = r[0].rs->steps[k].nmsg;
        for (int q = 0; q < p; q++) {
            const nh_rstep *st = &r[q].rs->steps[k];
            for (int m = 0; m < nmsg; m++) {
                const nh_rmsg *mg = &st->msg[m];
                if (mg->sendpeer != NH_NONE) {
                    const nh_rmsg *pm = &r[mg->sendpeer].rs->steps[k].msg[m];
                    if (pm->recvpeer != q || pm->nrecv != mg->nsend) {
                        snprintf(why, len,
                                 "step %d message %d: rank %d sends %d blocks to %d, which "
                                 "receives %d from %d",
                                 k, m, q, mg->nsend, mg->sendpeer, pm->nrecv, pm->recvpeer);
                        free(start);
                        goto out;
                    }
                }
                if (mg->recvpeer != NH_NONE) {
                    const nh_rmsg *pm = &r[mg->recvpeer].rs->steps[k].msg[m];
                    if (pm->sendpeer != q) {
                        snprintf(why, len,
                                 "step %d message %d: rank %d waits for %d, which sends to %d", k,
                                 m, q, mg->recvpeer, pm->sendpeer);
                        free(start);
                        goto out;
                    }
                    for (int x = 0; x < mg->nred; x++) {
                        int blk = mg->red_blk[x], a = mg->red_acc[x];
                        if (blk < 0 || blk >= mg->nrecv || a < 0 || a >= r[q].rs->nacc) {
                            snprintf(why, len, "rank %d: bad reduction %d -> %d", q, blk, a);
                            free(start);
                            goto out;
                        }
                        const int *src =
                            payload + (size_t)(start[(size_t)mg->recvpeer * nmsg + m] + blk) * w;
                        for (size_t e = 0; e < w; e++)
                            r[q].acc[(size_t)a * w + e] += src[e];
                        r[q].written[a] = 1;
                    }
                }
            }
            for (int x = 0; x < st->nlocal; x++) {
                int node = st->local[x].src, a = st->local[x].acc;
                if (NH_RIS_LEAF(node)) {
                    r[q].acc[(size_t)a * w + (size_t)q * s + (scatter ? NH_RLEAF_IDX(node) : 0)]++;
                } else {
                    if (!r[q].written[node]) {
                        snprintf(why, len, "rank %d reduces accumulator %d before it has a value",
                                 q, node);
                        free(start);
                        goto out;
                    }
                    for (size_t e = 0; e < w; e++)
                        r[q].acc[(size_t)a * w + e] += r[q].acc[(size_t)node * w + e];
                }
                r[q].written[a] = 1;
            }
        }
        free(start);
    }
    for (int q = 0; q < p; q++) {
        int coords[NH_MAXDIMS];
        nh_grid_coords(g, q, coords);
        memset(expect, 0, sizeof(int) * w);
        for (int i = 0; i < s; i++) {
            int src = nh_grid_shift(g, coords, off + (size_t)i * d, -1);
            if (src != NH_NONE)
                expect[(size_t)src * s + (scatter ? i : 0)]++;
        }
        int root = r[q].rs->root;
        const int *got = r[q].written[root] ? r[q].acc + (size_t)root * w : NULL;
        for (size_t e = 0; e < w; e++) {
            int v = got ? got[e] : 0;
            if (v != expect[e]) {
                snprintf(why, len,
                         "rank %d: contribution of rank %zu offset %zu reduced %d times, "
                         "expected %d",
                         q, e / (size_t)(s > 0 ? s : 1), e % (size_t)(s > 0 ? s : 1), v, expect[e]);
                goto out;
            }
        }
    }
    if (msgs)
        *msgs = mm;
    if (blocks)
        *blocks = mb;
    rc = 0;
out:
    if (r)
        for (int q = 0; q < p; q++) {
            nh_rsched_free(r[q].rs);
            free(r[q].acc);
            free(r[q].written);
        }
    free(r);
    free(payload);
    free(expect);
    return rc;
}
