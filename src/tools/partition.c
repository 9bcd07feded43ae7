/* Row partitions (METIS, a file, or blocks) and the SpMV communication
 * graph and halo columns they give (matgen.h). */
#define _POSIX_C_SOURCE 200809L
#include "matgen_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NH_HAVE_METIS
#include <metis.h>
#endif

/* ---- partitioning ---- */

#ifdef NH_HAVE_METIS
static int cmp_idx(const void *a, const void *b)
{
    idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;
    return x < y ? -1 : x > y;
}

static int part_metis(const nh_csr *m, int K, int *owner, char *err, size_t errlen)
{
    int n = m->nrows, rc = -1;
    if (m->nrows != m->ncols) {
        nh_mat_seterr(err, errlen, "partition metis: the matrix must be square");
        return -1;
    }
    if (K == 1) {
        memset(owner, 0, (size_t)n * sizeof(int));
        return 0;
    }
    /* Pattern of A + A^T without the diagonal, as METIS wants it. */
    long *deg = calloc((size_t)n + 1, sizeof(long));
    idx_t *xadj = NULL, *adj = NULL, *part = NULL;
    long *fill = NULL;
    if (!deg)
        goto oom;
    for (int i = 0; i < n; i++)
        for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
            if (m->col[e] != i) {
                deg[i]++;
                deg[m->col[e]]++;
            }
    xadj = malloc(((size_t)n + 1) * sizeof(idx_t));
    fill = malloc(((size_t)n + 1) * sizeof(long));
    part = malloc((size_t)n * sizeof(idx_t));
    if (!xadj || !fill || !part)
        goto oom;
    long tot = 0;
    for (int i = 0; i < n; i++) {
        fill[i] = tot;
        tot += deg[i];
    }
    adj = malloc((size_t)(tot ? tot : 1) * sizeof(idx_t));
    if (!adj)
        goto oom;
    for (int i = 0; i < n; i++)
        for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
            if (m->col[e] != i) {
                adj[fill[i]++] = m->col[e];
                adj[fill[m->col[e]]++] = i;
            }
    /* Sort each list and drop the repeats (entries in both A and A^T). */
    long w = 0, b = 0;
    for (int i = 0; i < n; i++) {
        long e = b + deg[i];
        qsort(adj + b, (size_t)(e - b), sizeof(idx_t), cmp_idx);
        xadj[i] = w;
        for (long k = b; k < e; k++)
            if (k == b || adj[k] != adj[k - 1])
                adj[w++] = adj[k];
        b = e;
    }
    xadj[n] = w;
    idx_t nv = n, ncon = 1, nparts = K, objval;
    idx_t opts[METIS_NOPTIONS];
    METIS_SetDefaultOptions(opts);
    opts[METIS_OPTION_SEED] = 1;
    int mr = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &nparts, NULL, NULL, opts,
                                 &objval, part);
    if (mr != METIS_OK) {
        nh_mat_seterr(err, errlen, "partition metis: METIS_PartGraphKway failed (%d)", mr);
        goto done;
    }
    for (int i = 0; i < n; i++)
        owner[i] = (int)part[i];
    rc = 0;
    goto done;
oom:
    nh_mat_seterr(err, errlen, "partition metis: out of memory");
done:
    free(deg);
    free(xadj);
    free(adj);
    free(part);
    free(fill);
    return rc;
}
#endif

static int part_file(const nh_csr *m, int K, const char *path, int *owner, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        nh_mat_seterr(err, errlen, "partition file: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0, row = 0;
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        char *p = line, *end;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
            continue;
        errno = 0;
        long v = strtol(p, &end, 10);
        while (end != p && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
            end++;
        if (end == p || *end || errno || v < 0 || v >= K) {
            nh_mat_seterr(err, errlen, "partition file: %s:%ld: expected a part in [0, %d)", path,
                          lineno, K);
            goto done;
        }
        if (row >= m->nrows) {
            nh_mat_seterr(err, errlen, "partition file: %s:%ld: more lines than the %d rows", path,
                          lineno, m->nrows);
            goto done;
        }
        owner[row++] = (int)v;
    }
    if (row < m->nrows) {
        nh_mat_seterr(err, errlen, "partition file: %s: %ld parts for %d rows", path, row,
                      m->nrows);
        goto done;
    }
    rc = 0;
done:
    free(line);
    fclose(fp);
    return rc;
}

int nh_partition(const nh_csr *m, int K, const char *how, int *owner, char *err, size_t errlen)
{
    if (!m || !owner || !how) {
        nh_mat_seterr(err, errlen, "partition: no matrix");
        return -1;
    }
    if (K < 1) {
        nh_mat_seterr(err, errlen, "partition: K must be >= 1, got %d", K);
        return -1;
    }
    long n = m->nrows;
    if (!strcmp(how, "rowblock")) {
        for (long i = 0; i < n; i++)
            owner[i] = (int)((i * K) / n);
        return 0;
    }
    if (!strcmp(how, "nnz")) {
        /* Part of a row = where its middle falls in the nonzero prefix sum:
         * nondecreasing in i, so the parts are contiguous. */
        double tot = m->nnz ? (double)m->nnz : 1.0;
        for (long i = 0; i < n; i++) {
            double mid = (double)m->rowptr[i] + 0.5 * (double)(m->rowptr[i + 1] - m->rowptr[i]);
            long p = (long)(mid * K / tot);
            owner[i] = (int)(p < 0 ? 0 : p >= K ? K - 1 : p);
        }
        return 0;
    }
    if (!strcmp(how, "metis")) {
#ifdef NH_HAVE_METIS
        return part_metis(m, K, owner, err, errlen);
#else
        nh_mat_seterr(err, errlen,
                      "partition: 'metis' needs a build configured --with-metis (libmetis-dev)");
        return -1;
#endif
    }
    if (!strncmp(how, "file:", 5))
        return part_file(m, K, how + 5, owner, err, errlen);
    nh_mat_seterr(err, errlen, "partition: unknown method '%s' (rowblock, nnz, metis, file:PATH)",
                  how);
    return -1;
}

/* ---- communication graph ---- */

void nh_cgraph_free(nh_cgraph *g)
{
    if (!g)
        return;
    for (int p = 0; p < g->K; p++) {
        if (g->dst)
            free(g->dst[p]);
        if (g->src)
            free(g->src[p]);
        if (g->words)
            free(g->words[p]);
        if (g->inwords)
            free(g->inwords[p]);
    }
    free(g->dst);
    free(g->src);
    free(g->words);
    free(g->inwords);
    free(g->outdeg);
    free(g->indeg);
    memset(g, 0, sizeof(*g));
}

/* Rows grouped by part (counting sort): rows of part p are
 * rows[first[p]..first[p+1]). */
static int rows_by_part(const nh_csr *m, int K, const int *owner, long **first, int **rows)
{
    long *f = calloc((size_t)K + 1, sizeof(long));
    int *r = malloc((size_t)(m->nrows ? m->nrows : 1) * sizeof(int));
    long *fill = malloc(((size_t)K + 1) * sizeof(long));
    if (!f || !r || !fill) {
        free(f);
        free(r);
        free(fill);
        return -1;
    }
    for (int i = 0; i < m->nrows; i++)
        f[owner[i] + 1]++;
    for (int p = 0; p < K; p++)
        f[p + 1] += f[p];
    memcpy(fill, f, ((size_t)K + 1) * sizeof(long));
    for (int i = 0; i < m->nrows; i++)
        r[fill[owner[i]]++] = i;
    free(fill);
    *first = f;
    *rows = r;
    return 0;
}

int nh_comm_graph(const nh_csr *m, int K, const int *owner, nh_cgraph *g)
{
    if (!m || !owner || !g || K < 1 || m->nrows != m->ncols)
        return -1;
    memset(g, 0, sizeof(*g));
    for (int i = 0; i < m->nrows; i++)
        if (owner[i] < 0 || owner[i] >= K)
            return -1;
    int rc = -1;
    long *first = NULL, *cnt = NULL;
    int *rows = NULL, *mark = NULL, *touched = NULL;
    int *outfill = NULL;
    g->K = K;
    g->outdeg = calloc((size_t)K, sizeof(int));
    g->indeg = calloc((size_t)K, sizeof(int));
    g->dst = calloc((size_t)K, sizeof(int *));
    g->src = calloc((size_t)K, sizeof(int *));
    g->words = calloc((size_t)K, sizeof(long *));
    g->inwords = calloc((size_t)K, sizeof(long *));
    cnt = calloc((size_t)K, sizeof(long));
    touched = malloc((size_t)K * sizeof(int));
    outfill = calloc((size_t)K, sizeof(int));
    mark = malloc((size_t)(m->ncols ? m->ncols : 1) * sizeof(int));
    if (!g->outdeg || !g->indeg || !g->dst || !g->src || !g->words || !g->inwords || !cnt ||
        !touched || !outfill || !mark || rows_by_part(m, K, owner, &first, &rows))
        goto done;
    for (int j = 0; j < m->ncols; j++)
        mark[j] = -1;
    /* Incoming side, part by part: the distinct columns its rows touch,
     * counted by the owner of the column. */
    for (int d = 0; d < K; d++) {
        int nt = 0;
        for (long r = first[d]; r < first[d + 1]; r++) {
            int i = rows[r];
            for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++) {
                int j = m->col[e];
                if (mark[j] == d)
                    continue;
                mark[j] = d;
                int s = owner[j];
                if (s == d)
                    continue;
                if (!cnt[s]++)
                    touched[nt++] = s;
            }
        }
        qsort(touched, (size_t)nt, sizeof(int), nh_mat_cmp_int);
        g->indeg[d] = nt;
        g->src[d] = malloc((size_t)(nt ? nt : 1) * sizeof(int));
        g->inwords[d] = malloc((size_t)(nt ? nt : 1) * sizeof(long));
        if (!g->src[d] || !g->inwords[d])
            goto done;
        for (int k = 0; k < nt; k++) {
            g->src[d][k] = touched[k];
            g->inwords[d][k] = cnt[touched[k]];
            cnt[touched[k]] = 0;
            g->outdeg[touched[k]]++;
        }
    }
    /* Outgoing side by transposition; walking d ascending keeps each
     * dst list ascending. */
    for (int s = 0; s < K; s++) {
        g->dst[s] = malloc((size_t)(g->outdeg[s] ? g->outdeg[s] : 1) * sizeof(int));
        g->words[s] = malloc((size_t)(g->outdeg[s] ? g->outdeg[s] : 1) * sizeof(long));
        if (!g->dst[s] || !g->words[s])
            goto done;
    }
    for (int d = 0; d < K; d++)
        for (int k = 0; k < g->indeg[d]; k++) {
            int s = g->src[d][k];
            g->dst[s][outfill[s]] = d;
            g->words[s][outfill[s]] = g->inwords[d][k];
            outfill[s]++;
        }
    rc = 0;
done:
    if (rc)
        nh_cgraph_free(g);
    free(first);
    free(rows);
    free(mark);
    free(cnt);
    free(touched);
    free(outfill);
    return rc;
}

void nh_cgraph_stats_of(const nh_cgraph *g, nh_cgraph_stats *st)
{
    memset(st, 0, sizeof(*st));
    long msgs = 0, vol = 0;
    for (int s = 0; s < g->K; s++) {
        long v = 0;
        for (int k = 0; k < g->outdeg[s]; k++)
            v += g->words[s][k];
        if (g->outdeg[s] > st->mmax)
            st->mmax = g->outdeg[s];
        if (v > st->vmax)
            st->vmax = v;
        msgs += g->outdeg[s];
        vol += v;
    }
    st->mavg = g->K ? (double)msgs / g->K : 0;
    st->vavg = g->K ? (double)vol / g->K : 0;
}

static int find_sorted(const int *a, int n, int v)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo] == v ? lo : -1;
}

int nh_halo_cols(const nh_csr *m, const int *owner, const nh_cgraph *g, int part, long **inoff,
                 int **recvcols, long **outoff, int **sendcols)
{
    int rc = -1, K = g->K, nin = g->indeg[part], nout = g->outdeg[part];
    long *first = NULL;
    int *rows = NULL;
    long *io = malloc(((size_t)nin + 1) * sizeof(long));
    long *oo = malloc(((size_t)nout + 1) * sizeof(long));
    long *fill = malloc(((size_t)(nin > nout ? nin : nout) + 1) * sizeof(long));
    int *rc_ = NULL, *sc = NULL, *mark = malloc((size_t)(m->ncols ? m->ncols : 1) * sizeof(int));
    if (!io || !oo || !fill || !mark)
        goto done;
    io[0] = oo[0] = 0;
    for (int k = 0; k < nin; k++)
        io[k + 1] = io[k] + g->inwords[part][k];
    for (int k = 0; k < nout; k++)
        oo[k + 1] = oo[k] + g->words[part][k];
    rc_ = malloc((size_t)(io[nin] ? io[nin] : 1) * sizeof(int));
    sc = malloc((size_t)(oo[nout] ? oo[nout] : 1) * sizeof(int));
    if (!rc_ || !sc)
        goto done;
    /* Received: columns of this part's rows owned elsewhere.  Scanning
     * columns ascending yields each source's list ascending. */
    for (int j = 0; j < m->ncols; j++)
        mark[j] = 0;
    for (int i = 0; i < m->nrows; i++)
        if (owner[i] == part)
            for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
                mark[m->col[e]] = 1;
    memcpy(fill, io, (size_t)nin * sizeof(long));
    for (int j = 0; j < m->ncols; j++)
        if (mark[j] && owner[j] != part) {
            int k = find_sorted(g->src[part], nin, owner[j]);
            if (k < 0 || fill[k] >= io[k + 1])
                goto done;
            rc_[fill[k]++] = j;
        }
    /* Sent: for each destination, its rows' columns owned here, marked
     * with the destination's index so nothing is reset between them. */
    if (rows_by_part(m, K, owner, &first, &rows))
        goto done;
    for (int j = 0; j < m->ncols; j++)
        mark[j] = -1;
    for (int k = 0; k < nout; k++) {
        int d = g->dst[part][k];
        long b = oo[k], w = b;
        for (long r = first[d]; r < first[d + 1]; r++) {
            int i = rows[r];
            for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++) {
                int j = m->col[e];
                if (owner[j] != part || mark[j] == k)
                    continue;
                mark[j] = k;
                if (w >= oo[k + 1])
                    goto done;
                sc[w++] = j;
            }
        }
        if (w != oo[k + 1])
            goto done;
        qsort(sc + b, (size_t)(w - b), sizeof(int), nh_mat_cmp_int);
    }
    *inoff = io;
    *outoff = oo;
    *recvcols = rc_;
    *sendcols = sc;
    io = oo = NULL;
    rc_ = sc = NULL;
    rc = 0;
done:
    free(io);
    free(oo);
    free(rc_);
    free(sc);
    free(fill);
    free(mark);
    free(first);
    free(rows);
    return rc;
}
