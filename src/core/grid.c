/* Grid arithmetic and neighborhood canonicalization (pure, no MPI). */
#include "grid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int nh_grid_init(nh_grid *g, int ndims, const int *dims, const int *periods)
{
    if (ndims < 1 || ndims > NH_MAXDIMS)
        return -1;
    memset(g, 0, sizeof(*g));
    g->ndims = ndims;
    g->size = 1;
    for (int j = 0; j < ndims; j++) {
        if (dims[j] < 1)
            return -1;
        g->dims[j] = dims[j];
        g->periods[j] = periods ? (periods[j] != 0) : 1;
        if (g->size > (1 << 30) / dims[j])
            return -1;
        g->size *= dims[j];
    }
    return 0;
}

void nh_grid_coords(const nh_grid *g, int rank, int *coords)
{
    for (int j = g->ndims - 1; j >= 0; j--) { /* divide only where needed */
        int p = g->dims[j], q = j == 0 || p == 1 ? rank : rank / p;
        coords[j] = j == 0 ? rank : p == 1 ? 0 : rank - q * p;
        rank = q;
    }
}

static int wrap(int c, int p)
{
    c %= p;
    return c < 0 ? c + p : c;
}

int nh_grid_shift(const nh_grid *g, const int *coords, const int *off, int sign)
{
    int rank = 0;
    for (int j = 0; j < g->ndims; j++) {
        int c = coords[j] + sign * off[j];
        if (g->periods[j])
            c = wrap(c, g->dims[j]);
        else if (c < 0 || c >= g->dims[j])
            return NH_NONE;
        rank = rank * g->dims[j] + c;
    }
    return rank;
}

long long nh_grid_edges(const nh_grid *g, int s, const int *tmpl)
{
    long long e = 0;
    for (int t = 0; t < s; t++) {
        long long n = 1;
        for (int j = 0; j < g->ndims; j++) {
            int c = tmpl[(size_t)t * g->ndims + j], a = c < 0 ? -c : c;
            n *= g->periods[j] ? g->dims[j] : a < g->dims[j] ? g->dims[j] - a : 0;
        }
        e += n;
    }
    return e;
}

int nh_grid_step(const nh_grid *g, const int *coords, int dim, int k)
{
    int off[NH_MAXDIMS] = {0};
    off[dim] = k;
    return nh_grid_shift(g, coords, off, 1);
}

void nh_grid_normalize(const nh_grid *g, int *off)
{
    for (int j = 0; j < g->ndims; j++) {
        if (!g->periods[j])
            continue;
        int p = g->dims[j];
        int v = wrap(off[j], p);
        off[j] = v > p / 2 ? v - p : v;
    }
}

int nh_grid_periodic(const nh_grid *g)
{
    for (int j = 0; j < g->ndims; j++)
        if (!g->periods[j])
            return 0;
    return 1;
}

int nh_grid_equiv(const nh_grid *a, const nh_grid *b)
{
    int i = 0, k = 0;
    for (;;) {
        while (i < a->ndims && a->dims[i] == 1)
            i++;
        while (k < b->ndims && b->dims[k] == 1)
            k++;
        if (i == a->ndims || k == b->ndims)
            return i == a->ndims && k == b->ndims;
        if (a->dims[i] != b->dims[k] || a->periods[i] != b->periods[k])
            return 0;
        i++, k++;
    }
}

void nh_grid_format(const nh_grid *g, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int j = 0; j < g->ndims && n < len; j++)
        n += (size_t)snprintf(buf + n, len - n, "%s%d", j ? "x" : "", g->dims[j]);
}

void nh_grid_balanced(int p, int d, int *dims)
{
    /* Largest prime factors first, each onto the currently smallest dim. */
    int f[32], nf = 0;
    for (int q = 2; (long)q * q <= p; q++)
        while (p % q == 0 && nf < 32) {
            f[nf++] = q;
            p /= q;
        }
    if (p > 1)
        f[nf++] = p;
    for (int j = 0; j < d; j++)
        dims[j] = 1;
    for (int i = nf - 1; i >= 0; i--) {
        int k = 0;
        for (int j = 1; j < d; j++)
            if (dims[j] < dims[k])
                k = j;
        dims[k] *= f[i];
    }
    for (int i = 1; i < d; i++) /* non-increasing */
        for (int j = i; j > 0 && dims[j] > dims[j - 1]; j--) {
            int t = dims[j];
            dims[j] = dims[j - 1];
            dims[j - 1] = t;
        }
}

int nh_offset_cmp(int ndims, const int *a, const int *b)
{
    for (int j = 0; j < ndims; j++)
        if (a[j] != b[j])
            return a[j] < b[j] ? -1 : 1;
    return 0;
}

/* Sorting offsets.  A normalized offset's coordinates lie in
 * [-(p-1), p-1], so reading them as digits of base 2p-1 gives an integer
 * key whose order is the lexicographic order of the offsets (below 2^39:
 * 2^ndims times the grid size).  Entries sort by (key, list index), which
 * keeps equal offsets in list order (MPI's order for repeated edges); the
 * pair is one 64-bit number (key * 2^24 + index) for lists shorter than
 * 2^24. */
#define NH_IDX_BITS 24

static int u64_cmp(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

static void key_sort(unsigned long long *v, int n)
{
    if (n > 32) {
        qsort(v, (size_t)n, sizeof(*v), u64_cmp);
        return;
    }
    for (int i = 1; i < n; i++) { /* short lists, the common case: insertion */
        unsigned long long x = v[i];
        int j = i;
        for (; j > 0 && x < v[j - 1]; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

#define NH_LOCAL_STACK 64 /* neighbor lists up to this long sort without malloc */

/* The coordinate differences from rank me (coordinates) to rank r (sign
 * +1) or from r (sign -1), not yet normalized, into x (in [-(p-1), p-1]). */
static void raw_offset(const nh_grid *g, const int *me, int r, int sign, int *x)
{
    for (int j = g->ndims - 1; j >= 0; j--) {
        int p = g->dims[j], q = j == 0 || p == 1 ? r : r / p; /* divide only where needed */
        x[j] = sign * ((j == 0 ? r : p == 1 ? 0 : r - q * p) - me[j]);
        r = q;
    }
}

/* x normalized on g (nh_grid_normalize; a normalized x stays as it is)
 * into c; returns its sort key, unique on g. */
static long long norm_key(const nh_grid *g, const int *x, int *c)
{
    long long key = 0, stride = 1;
    for (int j = g->ndims - 1; j >= 0; j--) {
        int p = g->dims[j], y = x[j];
        if (g->periods[j]) {
            y += y < 0 ? p : 0;
            y -= 2 * y > p ? p : 0;
        }
        c[j] = y;
        key += stride * (y + p - 1);
        stride *= 2LL * p - 1;
    }
    return key;
}

/* The offset from rank me to rank r (sign +1) or from r (sign -1),
 * normalized, into c; returns its sort key. */
static long long offset_key(const nh_grid *g, const int *me, int r, int sign, int *c)
{
    int x[NH_MAXDIMS];
    raw_offset(g, me, r, sign, x);
    return norm_key(g, x, c);
}

/* One bit of 0-62 for an offset's key. */
static uint64_t key_bit(long long key)
{
    uint64_t x = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return 1ull << ((x >> 32) % 63);
}

void nh_dests_summaries(const nh_grid *const *g, int ng, int rank, int n, const int *dests,
                        uint64_t *sum)
{
    int me[NH_MAXDIMS], x[NH_MAXDIMS], c[NH_MAXDIMS];
    nh_grid_coords(g[0], rank, me);
    for (int k = 0; k < ng; k++)
        sum[k] = 1ull << 63;
    for (int i = 0; i < n; i++) {
        if (dests[i] < 0 || dests[i] >= g[0]->size) {
            for (int k = 0; k < ng; k++)
                sum[k] = 0;
            return;
        }
        raw_offset(g[0], me, dests[i], +1, x); /* once for the grids of one shape */
        for (int k = 0; k < ng; k++)
            sum[k] |= key_bit(norm_key(g[k], x, c));
    }
}

uint64_t nh_offsets_summary(const nh_grid *g, int n, const int *off)
{
    uint64_t m = 1ull << 63;
    int c[NH_MAXDIMS];
    for (int i = 0; i < n; i++)
        m |= key_bit(norm_key(g, off + (size_t)i * g->ndims, c));
    return m;
}

int nh_local_offsets(const nh_grid *g, int rank, int n, const int *ranks, int sign, int *off_sorted,
                     int *perm)
{
    int d = g->ndims, me[NH_MAXDIMS], rc = -1;
    unsigned long long small[NH_LOCAL_STACK], *v = small;
    int raw_small[NH_LOCAL_STACK * NH_MAXDIMS], *raw = raw_small;
    if (n >= 1 << NH_IDX_BITS)
        return -1;
    if (n > NH_LOCAL_STACK &&
        (!(v = malloc((size_t)n * sizeof(*v))) || !(raw = malloc((size_t)n * d * sizeof(int)))))
        goto out;
    nh_grid_coords(g, rank, me);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            goto out;
        long long key = offset_key(g, me, ranks[i], sign, raw + (size_t)i * d);
        v[i] = (unsigned long long)key << NH_IDX_BITS | (unsigned)i;
    }
    key_sort(v, n);
    for (int i = 0; i < n; i++) {
        int k = perm[i] = (int)(v[i] & ((1u << NH_IDX_BITS) - 1));
        for (int j = 0; j < d; j++)
            off_sorted[(size_t)i * d + j] = raw[(size_t)k * d + j];
    }
    rc = 0;
out:
    if (v != small)
        free(v);
    if (raw != raw_small)
        free(raw);
    return rc;
}

int nh_match_template(const nh_grid *g, const int *coords, int s, const int *tmpl, int n,
                      const int *off_sorted, const int *perm, int sign, int *slot)
{
    int d = g->ndims, k = 0, torus = nh_grid_periodic(g);
    for (int t = 0; t < s; t++) {
        const int *c = tmpl + (size_t)t * d;
        if (!torus && nh_grid_shift(g, coords, c, sign) == NH_NONE) {
            slot[t] = NH_NONE;
            continue;
        }
        if (k >= n || nh_offset_cmp(d, c, off_sorted + (size_t)k * d) != 0)
            return 0;
        slot[t] = perm[k++];
    }
    return k == n;
}

void nh_nbhd_fini(nh_nbhd *nb)
{
    free(nb->off); /* one block: nbhd_alloc */
    nb->off = nb->send_slot = nb->recv_slot = NULL;
}

/* The template and both slot maps in one block (and NH_MAXDIMS ints of
 * slack: nh_nbhd_torus_dests copies whole raw offsets). */
static int nbhd_alloc(nh_nbhd *nb, const nh_grid *g, int rank, int s, int outdeg, int indeg)
{
    int d = g->ndims;
    memset(nb, 0, sizeof(*nb));
    nb->g = *g;
    nb->rank = rank;
    nb->s = s;
    nb->outdeg = outdeg;
    nb->indeg = indeg;
    nb->src_repeats = -1;
    nh_grid_coords(g, rank, nb->coords);
    if (!(nb->off = malloc(((size_t)s * (d + 2) + NH_MAXDIMS) * sizeof(int))))
        return -1;
    nb->send_slot = nb->off + (size_t)s * d;
    nb->recv_slot = nb->send_slot + s;
    return 0;
}

/* This rank's sorted offsets to (sign +1) or from (sign -1) the ranks of
 * a list, as keys (key_sort's order); raw: the offsets, stride
 * NH_MAXDIMS.  -1 if a rank is out of range. */
static int torus_keys(const nh_grid *g, const int *me, int n, const int *ranks, int sign,
                      unsigned long long *v, int *raw)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return -1;
        long long key = offset_key(g, me, ranks[i], sign, raw + (size_t)i * NH_MAXDIMS);
        v[i] = (unsigned long long)key << NH_IDX_BITS | (unsigned)i;
    }
    key_sort(v, n);
    return 0;
}

int nh_nbhd_torus_dests(nh_nbhd *nb, const nh_grid *g, int rank, int outdeg, const int *dests,
                        int indeg)
{
    unsigned long long a[NH_LOCAL_STACK];
    int raw[NH_LOCAL_STACK * NH_MAXDIMS], d = g->ndims;
    const unsigned mask = (1u << NH_IDX_BITS) - 1;
    for (int j = 0; j < d; j++)
        if (!g->periods[j])
            return 1;
    if (outdeg > NH_LOCAL_STACK || indeg != outdeg)
        return 1;
    if (nbhd_alloc(nb, g, rank, outdeg, outdeg, indeg))
        return -1;
    if (torus_keys(g, nb->coords, outdeg, dests, +1, a, raw)) {
        nh_nbhd_fini(nb);
        return 1;
    }
    for (int t = 0; t < outdeg; t++) /* entry t+1 overwrites what t copied past its d */
        memcpy(nb->off + (size_t)t * d, raw + (size_t)(a[t] & mask) * NH_MAXDIMS,
               sizeof(int) * NH_MAXDIMS);
    nb->src_repeats = 0; /* one offset names one rank; the sources repeat where these do */
    nb->summary = 1ull << 63;
    for (int t = 0; t < outdeg; t++) {
        nb->send_slot[t] = (int)(a[t] & mask);
        nb->recv_slot[t] = NH_NONE;
        nb->src_repeats |= t > 0 && a[t] >> NH_IDX_BITS == a[t - 1] >> NH_IDX_BITS;
        nb->summary |= key_bit((long long)(a[t] >> NH_IDX_BITS));
    }
    return 0;
}

int nh_nbhd_fill_recv(nh_nbhd *nb, const int *srcs)
{
    int n = nb->indeg, d = nb->g.ndims, rc = -1;
    int *off = malloc(((size_t)n * d + 1) * sizeof(int)),
        *perm = malloc(((size_t)n + 1) * sizeof(int));
    if (off && perm)
        rc =
            nh_local_offsets(&nb->g, nb->rank, n, srcs, -1, off, perm) ||
            !nh_match_template(&nb->g, nb->coords, nb->s, nb->off, n, off, perm, -1, nb->recv_slot);
    free(off);
    free(perm);
    return rc;
}

int nh_nbhd_init(nh_nbhd *nb, const nh_grid *g, int rank, int s, const int *tmpl, int outdeg,
                 const int *dests, int indeg, const int *srcs)
{
    int d = g->ndims, rc = -1;
    size_t nmax = (size_t)(outdeg > indeg ? outdeg : indeg) + 1;
    int off_small[NH_LOCAL_STACK * NH_MAXDIMS], perm_small[NH_LOCAL_STACK];
    int small = nmax <= NH_LOCAL_STACK;
    int *off = small ? off_small : malloc(nmax * d * sizeof(int));
    int *perm = small ? perm_small : malloc(nmax * sizeof(int));
    if (nbhd_alloc(nb, g, rank, s, outdeg, indeg) || !off || !perm)
        goto out;
    rc = 1;
    if (!tmpl) { /* this rank's own offsets: every entry is a destination */
        if (nh_local_offsets(g, rank, outdeg, dests, +1, nb->off, nb->send_slot))
            goto out;
        tmpl = nb->off;
    } else {
        memcpy(nb->off, tmpl, (size_t)s * d * sizeof(int));
        if (nh_local_offsets(g, rank, outdeg, dests, +1, off, perm) ||
            !nh_match_template(g, nb->coords, s, tmpl, outdeg, off, perm, +1, nb->send_slot))
            goto out;
    }
    if (nh_local_offsets(g, rank, indeg, srcs, -1, off, perm) ||
        !nh_match_template(g, nb->coords, s, tmpl, indeg, off, perm, -1, nb->recv_slot))
        goto out;
    rc = 0;
out:
    if (!small) {
        free(off);
        free(perm);
    }
    if (rc)
        nh_nbhd_fini(nb);
    return rc;
}

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

int nh_sizes_coupled(const nh_grid *g, int s, const int *tmpl)
{
    /* Node r is rank r's send size, node size+r its receive size.  An edge
     * r -> q forces send(r) == recv(q).  Sizes are coupled when every rank
     * has an edge and all used nodes (send nodes of ranks with out-edges,
     * receive nodes of ranks with in-edges) form one component: then every
     * block anywhere has one common size, and each rank can read it off its
     * own arguments (nh_call_block, api/call.c).  Pure, O(size * s). */
    int p = g->size, coords[NH_MAXDIMS], coupled = 0, root = -1;
    if (s == 0)
        return 0;
    int *parent = malloc(2 * (size_t)p * sizeof(int));
    unsigned char *used = calloc(2 * (size_t)p, 1);
    if (!parent || !used)
        goto out;
    for (int i = 0; i < 2 * p; i++)
        parent[i] = i;
    for (int r = 0; r < p; r++) {
        nh_grid_coords(g, r, coords);
        for (int t = 0; t < s; t++) {
            int q = nh_grid_shift(g, coords, tmpl + (size_t)t * g->ndims, +1);
            if (q == NH_NONE)
                continue;
            used[r] = used[p + q] = 1;
            int a = uf_find(parent, r), b = uf_find(parent, p + q);
            if (a != b)
                parent[a] = b;
        }
    }
    coupled = 1;
    for (int r = 0; r < p && coupled; r++)
        coupled = used[r] || used[p + r];
    for (int i = 0; i < 2 * p && coupled; i++) {
        if (!used[i])
            continue;
        if (root < 0)
            root = uf_find(parent, i);
        coupled = uf_find(parent, i) == root;
    }
out:
    free(parent);
    free(used);
    return coupled;
}

void nh_nbhd_torus_cost(const nh_nbhd *nb, long *rounds, long *msgs)
{
    int d = nb->g.ndims;
    *rounds = *msgs = 0;
    for (int j = 0; j < d; j++) {
        int pos = 0, neg = 0;
        for (int t = 0; t < nb->s; t++) {
            int c = nb->off[(size_t)t * d + j];
            pos = c > pos ? c : pos;
            neg = -c > neg ? -c : neg;
        }
        *rounds += pos > neg ? pos : neg;
        *msgs += pos + neg;
    }
}
