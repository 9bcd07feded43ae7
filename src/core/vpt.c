/* Store-and-forward's virtual process topology: its formation, the
 * node-aware placement, and the cost-model estimates over it (stfw.h). */
#include "stfw.h"
#include "parse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- virtual process topology ---- */

int nh_parse_stfw_dims(const char *s, int *out)
{
    if (strcmp(s, "agg") == 0) {
        *out = NH_STFW_AGG;
        return 0;
    }
    return nh_parse_uint_list(s, out, 1, 1, NH_STFW_MAXDIMS) == 1 ? 0 : -1;
}

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

/* Ranks sorted by (node, NUMA domain, rank) from loc (nh_vpt_grouped);
 * NULL when out of memory. */
static place *sorted_places(int K, const int *loc)
{
    place *all = malloc(((size_t)K + 1) * sizeof(place));
    if (!all)
        return NULL;
    for (int r = 0; r < K; r++)
        all[r] = (place){loc[2 * r], loc[2 * r + 1], r};
    qsort(all, (size_t)K, sizeof(place), place_cmp);
    return all;
}

int nh_vpt_grouped(nh_vpt *v, int K, int n, const int *loc)
{
    int rc = -1, g = 0, nodes = 0, best = 0;
    place *all = sorted_places(K, loc);
    int *order = malloc(((size_t)K + 1) * sizeof(int));
    nh_vpt plain, t;
    if (!all || !order)
        goto out;
    rc = 0;
    if (n < 2 || nh_vpt_init(&plain, K, n, 0))
        goto out;
    for (int i = 0; i < K;) {
        int j = i;
        while (j < K && all[j].node == all[i].node)
            j++;
        g = nh_gcd(g, j - i);
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

int nh_vpt_agg(nh_vpt *v, int K, const int *loc)
{
    int rc = -1, nodes = 0, big = 0;
    place *all = sorted_places(K, loc);
    int *order = malloc(((size_t)K + 1) * sizeof(int));
    int *nstart = malloc(((size_t)K + 2) * sizeof(int)),
        *nodeof = malloc(((size_t)K + 1) * sizeof(int));
    nh_vpt t;
    if (!all || !order || !nstart || !nodeof)
        goto out;
    for (int i = 0; i < K;) {
        int j = i;
        while (j < K && all[j].node == all[i].node)
            nodeof[all[j++].rank] = nodes;
        nstart[nodes++] = i;
        big = j - i > big ? j - i : big;
        i = j;
    }
    nstart[nodes] = K;
    rc = 0;
    if (nodes < 2 || big < 2)
        goto out;
    memset(&t, 0, sizeof(t));
    t.K = K;
    t.n = 3;
    t.dims[0] = big;
    t.dims[1] = nodes;
    t.dims[2] = big;
    for (int i = 0; i < K; i++)
        order[i] = all[i].rank;
    if (nh_vpt_set_order(&t, order)) {
        rc = -1;
        goto out;
    }
    t.agg = 1;
    t.nnodes = nodes;
    t.maxppn = big;
    t.nstart = nstart;
    t.nodeof = nodeof;
    nstart = nodeof = NULL;
    *v = t;
    rc = 1;
out:
    free(all);
    free(order);
    free(nstart);
    free(nodeof);
    return rc;
}

void nh_vpt_fini(nh_vpt *v)
{
    free(v->pos);
    free(v->rank);
    free(v->nstart);
    free(v->nodeof);
    v->pos = v->rank = v->nstart = v->nodeof = NULL;
}

void nh_vpt_format(const nh_vpt *v, char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = '\0';
    if (v->agg) { /* nodes x most ranks on a node */
        snprintf(buf, len, "agg:%dx%d", v->nnodes, v->maxppn);
        return;
    }
    for (int c = 0; c < v->n && k < len; c++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", c ? "x" : "", v->dims[c]);
}

/* ---- cost-model estimates ---- */

/* Distinct values among b uniform draws from k - 1 peers (and self). */
static double distinct(double k, double b)
{
    if (k <= 1 || b <= 0)
        return 0;
    return (k - 1) * (1 - pow(1 - 1 / k, b));
}

/* Stage c's messages from a rank, at most (spread: the product of the
 * earlier stages' sizes).  Stage 1: the rank with the most destinations
 * spreads them over its k_1 - 1 neighbors.  Later stages: a holder
 * carries about the average degree plus its share of the heavy rank's
 * blocks. */
static double stage_msgs(const nh_vpt *v, int c, double spread, double maxout, double avgdeg)
{
    return distinct(v->dims[c], c == 0 ? maxout : avgdeg + maxout / spread);
}

double nh_stfw_est_msgs(const nh_vpt *v, double maxout, double maxin, double avgdeg)
{
    double t = 0, spread = 1;
    (void)maxin;
    for (int c = 0; c < v->n; c++) {
        t += stage_msgs(v, c, spread, maxout, avgdeg);
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

/* Share of a stage's peers on other nodes where ppn consecutive positions
 * share a node and the stage's peers lie `stride` positions apart, k of
 * them in a line: all of them when stride >= ppn, none when the line fits
 * in a node; ppn <= 1 (unknown) prices no node traffic. */
static double off_node(double ppn, double stride, double k)
{
    if (ppn <= 1 || k <= 1)
        return 0;
    double q = ppn / stride; /* the line's ranks on one node */
    if (q <= 1)
        return 1;
    return q >= k ? 0 : 1 - (q - 1) / (k - 1);
}

double nh_stfw_model_bl(const nh_cost *c, const nh_stfw_shape *g, double bytes)
{
    double off = off_node(g->ppn, 1, g->K); /* uniform destinations */
    return nh_cost_exchange_node(c, 1, g->maxout, g->maxin, bytes * g->maxout, off > 0,
                                 g->ppn * off * g->avg * bytes);
}

double nh_stfw_model(const nh_cost *c, const nh_vpt *v, const nh_stfw_shape *g, double bytes)
{
    double hops = nh_stfw_est_hops(v), vol = g->avg * hops, t = 0, stride = 1;
    if (g->maxout > vol)
        vol = g->maxout;
    if (g->maxin > vol)
        vol = g->maxin;
    for (int s = 0; s < v->n && hops > 0; s++) {
        double k = v->dims[s], share = (k - 1) / k; /* of a block's hops: this stage's */
        double msgs = stage_msgs(v, s, stride, g->maxout, g->avg);
        /* node aggregation: only its middle stage leaves the nodes */
        double off = v->agg ? s == 1 : off_node(g->ppn, stride, k);
        t += c->stage + nh_cost_exchange_node(c, 0, msgs, msgs, bytes * vol * share / hops, off > 0,
                                              g->ppn * off * g->avg * share * bytes);
        stride *= k;
    }
    return t + c->fwd * bytes * vol;
}

int nh_stfw_choose_dims(const nh_cost *c, const nh_stfw_shape *g, int want, int *gain, int *arm)
{
    int nmax = nh_vpt_max_dims(g->K), bn = 1;
    nh_vpt v, bv;
    *gain = *arm = 0;
    if (nmax < 1)
        nmax = 1;
    double best = -1;
    int lo = want > 0 ? (want < nmax ? want : nmax) : (nmax >= 2 ? 2 : 1);
    int hi = want > 0 ? lo : nmax;
    for (int n = lo; n <= hi; n++) {
        if (nh_vpt_init(&v, g->K, n, 0))
            continue;
        double t = nh_stfw_model(c, &v, g, NH_STFW_DIMS_BYTES);
        if (best < 0 || t < best) {
            best = t;
            bn = n;
            bv = v;
        }
    }
    if (best < 0 || bn < 2)
        return bn;
    *gain = nh_stfw_beats_bl(c, &bv, g, NH_STFW_MODEL_BYTES);
    *arm = *gain || nh_stfw_beats_bl(c, &bv, g, NH_STFW_ARM_BYTES);
    return bn;
}

int nh_stfw_beats_bl(const nh_cost *c, const nh_vpt *v, const nh_stfw_shape *g, double bytes)
{
    return nh_stfw_model(c, v, g, bytes) < nh_stfw_model_bl(c, g, bytes);
}

int nh_stfw_agg_beats(const nh_cost *c, const nh_vpt *agg, const nh_vpt *v, const nh_stfw_shape *g)
{
    return nh_stfw_model(c, agg, g, NH_STFW_DIMS_BYTES) <
           nh_stfw_model(c, v, g, NH_STFW_DIMS_BYTES);
}
