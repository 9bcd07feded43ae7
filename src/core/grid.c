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
    for (int j = g->ndims - 1; j >= 0; j--) {
        coords[j] = rank % g->dims[j];
        rank /= g->dims[j];
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

/* Insertion-free stable sort of indices by (offset, index): a merge sort,
 * since neighbor lists can hold thousands of entries. */
static void sort_perm(int d, const int *off, int *perm, int *tmp, int n)
{
    if (n < 2)
        return;
    int h = n / 2;
    sort_perm(d, off, perm, tmp, h);
    sort_perm(d, off, perm + h, tmp, n - h);
    int i = 0, k = h, o = 0;
    while (i < h && k < n) {
        if (nh_offset_cmp(d, off + (size_t)perm[k] * d, off + (size_t)perm[i] * d) < 0)
            tmp[o++] = perm[k++];
        else
            tmp[o++] = perm[i++];
    }
    while (i < h)
        tmp[o++] = perm[i++];
    while (k < n)
        tmp[o++] = perm[k++];
    memcpy(perm, tmp, (size_t)n * sizeof(int));
}

int nh_local_offsets(const nh_grid *g, int rank, int n, const int *ranks, int sign, int *off_sorted,
                     int *perm)
{
    int d = g->ndims, me[NH_MAXDIMS], c[NH_MAXDIMS];
    int *raw = calloc((size_t)n * d + 1, sizeof(int));
    int *tmp = malloc(((size_t)n + 1) * sizeof(int));
    int rc = -1;
    if (!raw || !tmp)
        goto out;
    nh_grid_coords(g, rank, me);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            goto out;
        nh_grid_coords(g, ranks[i], c);
        for (int j = 0; j < d; j++)
            raw[(size_t)i * d + j] = sign * (c[j] - me[j]);
        nh_grid_normalize(g, raw + (size_t)i * d);
        perm[i] = i;
    }
    sort_perm(d, raw, perm, tmp, n);
    for (int i = 0; i < n; i++)
        memcpy(off_sorted + (size_t)i * d, raw + (size_t)perm[i] * d, (size_t)d * sizeof(int));
    rc = 0;
out:
    free(raw);
    free(tmp);
    return rc;
}

int nh_match_template(const nh_grid *g, const int *coords, int s, const int *tmpl, int n,
                      const int *off_sorted, const int *perm, int sign, int *slot)
{
    int d = g->ndims, k = 0;
    for (int t = 0; t < s; t++) {
        const int *c = tmpl + (size_t)t * d;
        if (nh_grid_shift(g, coords, c, sign) == NH_NONE) {
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
    free(nb->off);
    free(nb->send_slot);
    free(nb->recv_slot);
    nb->off = nb->send_slot = nb->recv_slot = NULL;
}

int nh_nbhd_init(nh_nbhd *nb, const nh_grid *g, int rank, int s, const int *tmpl, int outdeg,
                 const int *dests, int indeg, const int *srcs)
{
    int d = g->ndims, rc = -1;
    size_t nmax = (size_t)(outdeg > indeg ? outdeg : indeg) + 1;
    int *off = malloc(nmax * d * sizeof(int)), *perm = malloc(nmax * sizeof(int));
    memset(nb, 0, sizeof(*nb));
    nb->g = *g;
    nb->rank = rank;
    nb->s = s;
    nb->outdeg = outdeg;
    nb->indeg = indeg;
    nh_grid_coords(g, rank, nb->coords);
    nb->off = malloc(((size_t)s * d + 1) * sizeof(int));
    nb->send_slot = malloc(((size_t)s + 1) * sizeof(int));
    nb->recv_slot = malloc(((size_t)s + 1) * sizeof(int));
    if (!off || !perm || !nb->off || !nb->send_slot || !nb->recv_slot)
        goto out;
    memcpy(nb->off, tmpl, (size_t)s * d * sizeof(int));
    rc = 1;
    if (nh_local_offsets(g, rank, outdeg, dests, +1, off, perm) ||
        !nh_match_template(g, nb->coords, s, tmpl, outdeg, off, perm, +1, nb->send_slot))
        goto out;
    if (nh_local_offsets(g, rank, indeg, srcs, -1, off, perm) ||
        !nh_match_template(g, nb->coords, s, tmpl, indeg, off, perm, -1, nb->recv_slot))
        goto out;
    rc = 0;
out:
    free(off);
    free(perm);
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
     * own arguments (nh_block_bytes).  Pure, O(size * s). */
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
