/* Test matrices, partitions and SpMV communication graphs (matgen.h).
 * Randomness comes from splitmix64 seeded per row (or per edge block), so an
 * instance depends only on its spec, never on call order or libc. */
#define _POSIX_C_SOURCE 200809L
#include "matgen.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NH_HAVE_METIS
#include <metis.h>
#endif

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- randomness ---- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double unif(uint64_t *s)
{
    return ((double)(splitmix64(s) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
}

static uint64_t stream(uint64_t seed, uint64_t idx)
{
    uint64_t s = seed ^ (idx * 0xd1342543de82ef95ULL + 0x2545f4914f6cdd1dULL);
    splitmix64(&s);
    return s;
}

/* ---- spec fields ---- */

/* Splits spec (after the kind and ':') at ':' into at most max fields. */
static int split_fields(char *s, char **f, int max)
{
    int n = 0;
    for (;;) {
        if (n == max)
            return max + 1;
        f[n++] = s;
        char *c = strchr(s, ':');
        if (!c)
            return n;
        *c = 0;
        s = c + 1;
    }
}

static int field_long(const char *kind, int idx, const char *name, const char *txt, long lo,
                      long hi, long *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long x = strtol(txt, &end, 10);
    if (!*txt || *end || errno || x < lo || x > hi) {
        seterr(err, errlen, "%s: field %d (%s) must be an integer in [%ld, %ld], got '%s'", kind,
               idx, name, lo, hi, txt);
        return -1;
    }
    *v = x;
    return 0;
}

static int field_double(const char *kind, int idx, const char *name, const char *txt, double lo,
                        double hi, int lo_open, double *v, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double x = strtod(txt, &end);
    if (!*txt || *end || errno || !isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) {
        seterr(err, errlen, "%s: field %d (%s) must be a number in %c%g, %g], got '%s'", kind, idx,
               name, lo_open ? '(' : '[', lo, hi, txt);
        return -1;
    }
    *v = x;
    return 0;
}

static int field_seed(const char *kind, int idx, const char *txt, uint64_t *v, char *err,
                      size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(txt, &end, 10);
    if (!*txt || *end || errno || *txt == '-') {
        seterr(err, errlen, "%s: field %d (SEED) must be a non-negative integer, got '%s'", kind,
               idx, txt);
        return -1;
    }
    *v = (uint64_t)x;
    return 0;
}

/* ---- growable CSR ---- */

typedef struct builder {
    nh_csr m;
    long cap;
} builder;

static int reserve(builder *b, long more)
{
    if (b->m.nnz + more <= b->cap)
        return 0;
    long cap = b->cap ? b->cap : 1024;
    while (cap < b->m.nnz + more)
        cap *= 2;
    int *c = realloc(b->m.col, (size_t)cap * sizeof(int));
    if (!c)
        return -1;
    b->m.col = c;
    double *v = realloc(b->m.val, (size_t)cap * sizeof(double));
    if (!v)
        return -1;
    b->m.val = v;
    b->cap = cap;
    return 0;
}

void nh_csr_free(nh_csr *m)
{
    if (!m)
        return;
    free(m->rowptr);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof(*m));
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Sorts c[0..n) and drops repeats; returns the new length. */
static long sort_unique(int *c, long n)
{
    if (n < 2)
        return n;
    qsort(c, (size_t)n, sizeof(int), cmp_int);
    long k = 1;
    for (long i = 1; i < n; i++)
        if (c[i] != c[k - 1])
            c[k++] = c[i];
    return k;
}

/* ---- power-law generator ---- */

/* Pattern of A + A^T in place of A (values left undefined). */
static int symmetrize(nh_csr *m)
{
    int rc = -1, n = m->nrows;
    long *tptr = calloc((size_t)n + 1, sizeof(long)), *fill = NULL, *nptr = NULL;
    int *tcol = malloc((size_t)(m->nnz ? m->nnz : 1) * sizeof(int)), *ncol = NULL;
    double *nval = NULL;
    if (!tptr || !tcol)
        goto done;
    for (long e = 0; e < m->nnz; e++)
        tptr[m->col[e] + 1]++;
    for (int i = 0; i < n; i++)
        tptr[i + 1] += tptr[i];
    fill = malloc(((size_t)n + 1) * sizeof(long));
    nptr = malloc(((size_t)n + 1) * sizeof(long));
    if (!fill || !nptr)
        goto done;
    memcpy(fill, tptr, ((size_t)n + 1) * sizeof(long));
    /* Rows scanned ascending: each transposed row comes out sorted. */
    for (int i = 0; i < n; i++)
        for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
            tcol[fill[m->col[e]]++] = i;
    for (int pass = 0; pass < 2; pass++) {
        long w = 0;
        for (int i = 0; i < n; i++) {
            long a = m->rowptr[i], ae = m->rowptr[i + 1], b = tptr[i], be = tptr[i + 1];
            nptr[i] = w;
            while (a < ae || b < be) {
                int c;
                if (b == be || (a < ae && m->col[a] < tcol[b])) {
                    c = m->col[a++];
                } else if (a == ae || tcol[b] < m->col[a]) {
                    c = tcol[b++];
                } else {
                    c = m->col[a++];
                    b++;
                }
                if (pass)
                    ncol[w] = c;
                w++;
            }
        }
        nptr[n] = w;
        if (!pass) {
            ncol = malloc((size_t)(w ? w : 1) * sizeof(int));
            nval = malloc((size_t)(w ? w : 1) * sizeof(double));
            if (!ncol || !nval)
                goto done;
        }
    }
    free(m->rowptr);
    free(m->col);
    free(m->val);
    m->rowptr = nptr;
    m->col = ncol;
    m->val = nval;
    m->nnz = nptr[n];
    nptr = NULL;
    ncol = NULL;
    nval = NULL;
    rc = 0;
done:
    free(tptr);
    free(tcol);
    free(fill);
    free(nptr);
    free(ncol);
    free(nval);
    return rc;
}

static int gen_powerlaw(char *args, nh_csr *out, char *err, size_t errlen)
{
    const char *K = "powerlaw";
    char *f[6];
    int nf = split_fields(args, f, 5);
    if (nf < 3 || nf > 5) {
        seterr(err, errlen,
               "powerlaw: expected powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]], got %d fields", nf);
        return -1;
    }
    long n, dense = 0;
    double avg, ex;
    uint64_t seed = 1;
    if (field_long(K, 1, "ROWS", f[0], 1, INT_MAX / 2, &n, err, errlen) ||
        field_double(K, 2, "AVGDEG", f[1], 1, (double)n, 0, &avg, err, errlen) ||
        field_double(K, 3, "EXP", f[2], 1, 100, 1, &ex, err, errlen))
        return -1;
    if (nf > 3 && field_long(K, 4, "DENSE", f[3], 0, n, &dense, err, errlen))
        return -1;
    if (nf > 4 && field_seed(K, 5, f[4], &seed, err, errlen))
        return -1;

    int rc = -1;
    builder b = {0};
    double *w = malloc((size_t)n * sizeof(double));
    char *isdense = calloc((size_t)n, 1);
    int *dcols = malloc((size_t)(dense ? dense : 1) * sizeof(int));
    int *tmp = NULL;
    long tmpcap = 0;
    b.m.rowptr = malloc((size_t)(n + 1) * sizeof(long));
    if (!w || !isdense || !dcols || !b.m.rowptr)
        goto oom;
    b.m.nrows = b.m.ncols = (int)n;

    /* Dense rows/columns spread evenly, so that different parts own them. */
    for (long k = 0; k < dense; k++) {
        dcols[k] = (int)(((2 * k + 1) * n) / (2 * dense));
        isdense[dcols[k]] = 1;
    }
    /* Row lengths: Pareto weights u^(-1/(EXP-1)) (density ~ w^-EXP), scaled
     * so that the clipped lengths average AVGDEG (a few fixed-point steps,
     * since clipping at n removes mass). */
    for (long i = 0; i < n; i++) {
        uint64_t s = stream(seed, (uint64_t)i);
        w[i] = pow(unif(&s), -1.0 / (ex - 1.0));
    }
    double scale = 1.0, target = avg * (double)n;
    for (int it = 0; it < 8; it++) {
        double sum = 0;
        for (long i = 0; i < n; i++) {
            double l = w[i] * scale;
            sum += l < 1 ? 1 : l > (double)n ? (double)n : l;
        }
        scale *= target / sum;
    }

    b.m.rowptr[0] = 0;
    for (long i = 0; i < n; i++) {
        uint64_t s = stream(seed ^ 0x5bd1e995ULL, (uint64_t)i);
        double lf = w[i] * scale;
        long len = lf >= (double)n ? n : (long)lf;
        if (unif(&s) <= lf - (double)len)
            len++; /* stochastic rounding keeps the mean */
        if (len < 1)
            len = 1;
        if (len > n)
            len = n;
        if (isdense[i] || len > n / 2) {
            /* Dense rows take every column; very long rows each column with
             * probability len/n (cheaper than rejection sampling). */
            if (reserve(&b, n))
                goto oom;
            double p = isdense[i] ? 2.0 : (double)len / (double)n;
            for (long j = 0; j < n; j++)
                if (j == i || p >= 1.0 || unif(&s) < p)
                    b.m.col[b.m.nnz++] = (int)j;
        } else {
            /* The diagonal and len - 1 columns at
             * heavy-tailed distances from the diagonal (wrapping around):
             * P(|i - j| > x) ~ (spread / x)^1.5 keeps most entries near the
             * diagonal while long rows reach far. */
            long want = len;
            if (tmpcap < 2 * want + 2) {
                tmpcap = 2 * want + 2;
                int *t = realloc(tmp, (size_t)tmpcap * sizeof(int));
                if (!t)
                    goto oom;
                tmp = t;
            }
            long k = 0;
            tmp[k++] = (int)i;
            long have = k;
            double spread = (len > avg ? (double)len : avg) * 0.5;
            for (int round = 0; round < 64 && have < want; round++) {
                long need = want - have;
                for (long t = 0; t < need; t++) {
                    double off = floor(spread * (pow(unif(&s), -1.0 / 1.5) - 1.0)) + 1.0;
                    if (off >= (double)n)
                        off = (double)(splitmix64(&s) % (uint64_t)n);
                    long o = (long)off % n;
                    long j = (splitmix64(&s) & 1) ? i + o : i - o;
                    j = ((j % n) + n) % n;
                    tmp[have + t] = (int)j;
                }
                have = sort_unique(tmp, have + need);
            }
            if (reserve(&b, have))
                goto oom;
            memcpy(b.m.col + b.m.nnz, tmp, (size_t)have * sizeof(int));
            b.m.nnz += have;
        }
        b.m.rowptr[i + 1] = b.m.nnz;
    }
    /* Structurally symmetric like the paper's test matrices: long rows
     * become long columns too, so their owners send to many parts. */
    if (symmetrize(&b.m))
        goto oom;
    for (long i = 0; i < n; i++)
        for (long e = b.m.rowptr[i]; e < b.m.rowptr[i + 1]; e++) {
            long j = b.m.col[e];
            uint64_t s = stream(seed ^ 0x27d4eb2fULL, (uint64_t)(i < j ? i : j) * (uint64_t)n +
                                                          (uint64_t)(i < j ? j : i));
            b.m.val[e] = 0.5 + unif(&s);
        }
    *out = b.m;
    b.m.rowptr = NULL;
    b.m.col = NULL;
    b.m.val = NULL;
    rc = 0;
    goto done;
oom:
    seterr(err, errlen, "powerlaw: out of memory");
done:
    nh_csr_free(&b.m);
    free(tmp);
    free(dcols);
    free(isdense);
    free(w);
    return rc;
}

/* ---- triplets to CSR (R-MAT, Matrix Market, edge lists) ---- */

typedef struct triplets {
    long n, cap;
    int *i, *j;
    double *v;
} triplets;

static int trip_add(triplets *t, int i, int j, double v)
{
    if (t->n == t->cap) {
        long cap = t->cap ? 2 * t->cap : 4096;
        int *a = realloc(t->i, (size_t)cap * sizeof(int));
        if (!a)
            return -1;
        t->i = a;
        a = realloc(t->j, (size_t)cap * sizeof(int));
        if (!a)
            return -1;
        t->j = a;
        double *d = realloc(t->v, (size_t)cap * sizeof(double));
        if (!d)
            return -1;
        t->v = d;
        t->cap = cap;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->v[t->n] = v;
    t->n++;
    return 0;
}

static void trip_free(triplets *t)
{
    free(t->i);
    free(t->j);
    free(t->v);
    memset(t, 0, sizeof(*t));
}

typedef struct cv {
    int c;
    long ord;
    double v;
} cv;

static int cmp_cv(const void *a, const void *b)
{
    const cv *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Rows bucketed in input order, then each row sorted by column with
 * duplicates summed in input order (deterministic). */
static int trip_to_csr(const triplets *t, int nrows, int ncols, nh_csr *out)
{
    int rc = -1;
    nh_csr m = {0};
    cv *row = NULL;
    long *fill = NULL;
    m.nrows = nrows;
    m.ncols = ncols;
    m.rowptr = calloc((size_t)nrows + 1, sizeof(long));
    fill = malloc(((size_t)nrows + 1) * sizeof(long));
    m.col = malloc((size_t)(t->n ? t->n : 1) * sizeof(int));
    m.val = malloc((size_t)(t->n ? t->n : 1) * sizeof(double));
    if (!m.rowptr || !fill || !m.col || !m.val)
        goto done;
    for (long e = 0; e < t->n; e++)
        m.rowptr[t->i[e] + 1]++;
    long maxlen = 0;
    for (int r = 0; r < nrows; r++) {
        long l = m.rowptr[r + 1];
        if (l > maxlen)
            maxlen = l;
        m.rowptr[r + 1] += m.rowptr[r];
    }
    memcpy(fill, m.rowptr, ((size_t)nrows + 1) * sizeof(long));
    for (long e = 0; e < t->n; e++) {
        long p = fill[t->i[e]]++;
        m.col[p] = t->j[e];
        m.val[p] = t->v[e];
    }
    row = malloc((size_t)(maxlen ? maxlen : 1) * sizeof(cv));
    if (!row)
        goto done;
    long w = 0;
    for (int r = 0; r < nrows; r++) {
        long b = m.rowptr[r], e = m.rowptr[r + 1], l = e - b;
        for (long k = 0; k < l; k++)
            row[k] = (cv){m.col[b + k], k, m.val[b + k]};
        qsort(row, (size_t)l, sizeof(cv), cmp_cv);
        m.rowptr[r] = w;
        for (long k = 0; k < l; k++) {
            if (k > 0 && row[k].c == m.col[w - 1]) {
                m.val[w - 1] += row[k].v;
            } else {
                m.col[w] = row[k].c;
                m.val[w] = row[k].v;
                w++;
            }
        }
    }
    m.rowptr[nrows] = w;
    m.nnz = w;
    *out = m;
    memset(&m, 0, sizeof(m));
    rc = 0;
done:
    nh_csr_free(&m);
    free(row);
    free(fill);
    return rc;
}

static int gen_rmat(char *args, nh_csr *out, char *err, size_t errlen)
{
    const char *K = "rmat";
    char *f[4];
    int nf = split_fields(args, f, 3);
    if (nf < 2 || nf > 3) {
        seterr(err, errlen, "rmat: expected rmat:SCALE:EDGEFACTOR[:SEED], got %d fields", nf);
        return -1;
    }
    long scl, ef;
    uint64_t seed = 1;
    if (field_long(K, 1, "SCALE", f[0], 1, 30, &scl, err, errlen) ||
        field_long(K, 2, "EDGEFACTOR", f[1], 1, 1024, &ef, err, errlen))
        return -1;
    if (nf > 2 && field_seed(K, 3, f[2], &seed, err, errlen))
        return -1;
    long n = 1L << scl, m = ef * n;
    if (m > (1L << 31)) {
        seterr(err, errlen, "rmat: EDGEFACTOR * 2^SCALE = %ld edges exceeds 2^31", m);
        return -1;
    }
    triplets t = {0};
    const double a = 0.57, ab = 0.76, abc = 0.95;
    for (long e = 0; e < m; e++) {
        uint64_t s = stream(seed, (uint64_t)e);
        long i = 0, j = 0;
        for (long bit = n >> 1; bit; bit >>= 1) {
            double u = unif(&s);
            if (u > abc) {
                i |= bit;
                j |= bit;
            } else if (u > ab) {
                i |= bit;
            } else if (u > a) {
                j |= bit;
            }
        }
        if (trip_add(&t, (int)i, (int)j, 0.5 + unif(&s))) {
            trip_free(&t);
            seterr(err, errlen, "rmat: out of memory");
            return -1;
        }
    }
    int rc = trip_to_csr(&t, (int)n, (int)n, out);
    trip_free(&t);
    if (rc)
        seterr(err, errlen, "rmat: out of memory");
    return rc;
}

/* ---- readers ---- */

static int read_mtx(const char *path, nh_csr *out, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        seterr(err, errlen, "mtx: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0;
    triplets t = {0};
    char obj[64], fmt[64], field[64], sym[64];
    if (getline(&line, &lcap, fp) < 0) {
        seterr(err, errlen, "mtx: %s: empty file", path);
        goto done;
    }
    lineno = 1;
    if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4) {
        seterr(err, errlen,
               "mtx: %s:1: expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'", path);
        goto done;
    }
    for (char *p = obj; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = fmt; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = field; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = sym; *p; p++)
        *p = (char)(*p | 0x20);
    if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate")) {
        seterr(err, errlen, "mtx: %s:1: only 'matrix coordinate' is supported, got '%s %s'", path,
               obj, fmt);
        goto done;
    }
    int pattern = !strcmp(field, "pattern");
    if (!pattern && strcmp(field, "real") && strcmp(field, "integer")) {
        seterr(err, errlen, "mtx: %s:1: field '%s' not supported (real, integer, pattern)", path,
               field);
        goto done;
    }
    int mirror = !strcmp(sym, "symmetric") ? 1 : !strcmp(sym, "skew-symmetric") ? -1 : 0;
    if (!mirror && strcmp(sym, "general")) {
        seterr(err, errlen,
               "mtx: %s:1: symmetry '%s' not supported (general, symmetric, skew-symmetric)", path,
               sym);
        goto done;
    }
    long nr = -1, nc = -1, nz = -1, got = 0;
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '%' || *p == '\n' || *p == '\r' || !*p)
            continue;
        if (nr < 0) {
            char extra;
            if (sscanf(p, "%ld %ld %ld %c", &nr, &nc, &nz, &extra) != 3 || nr < 1 || nc < 1 ||
                nz < 0 || nr > INT_MAX / 2 || nc > INT_MAX / 2) {
                seterr(err, errlen, "mtx: %s:%ld: expected the size line 'ROWS COLS NNZ'", path,
                       lineno);
                goto done;
            }
            continue;
        }
        long i, j;
        double v = 1.0;
        char *end;
        errno = 0;
        i = strtol(p, &end, 10);
        int ok = end != p;
        p = end;
        j = strtol(p, &end, 10);
        ok = ok && end != p && !errno;
        p = end;
        if (ok && !pattern) {
            v = strtod(p, &end);
            ok = end != p;
            p = end;
        }
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || *p) {
            seterr(err, errlen, "mtx: %s:%ld: expected 'I J%s'", path, lineno,
                   pattern ? "" : " VALUE");
            goto done;
        }
        if (i < 1 || i > nr || j < 1 || j > nc) {
            seterr(err, errlen, "mtx: %s:%ld: index (%ld, %ld) outside 1..%ld x 1..%ld", path,
                   lineno, i, j, nr, nc);
            goto done;
        }
        if (++got > nz) {
            seterr(err, errlen, "mtx: %s:%ld: more entries than the %ld announced", path, lineno,
                   nz);
            goto done;
        }
        if (mirror && j > i) {
            seterr(err, errlen, "mtx: %s:%ld: entry (%ld, %ld) above the diagonal in a %s file",
                   path, lineno, i, j, sym);
            goto done;
        }
        if (trip_add(&t, (int)(i - 1), (int)(j - 1), v) ||
            (mirror && i != j && trip_add(&t, (int)(j - 1), (int)(i - 1), mirror * v))) {
            seterr(err, errlen, "mtx: %s: out of memory", path);
            goto done;
        }
    }
    if (nr < 0) {
        seterr(err, errlen, "mtx: %s: no size line", path);
        goto done;
    }
    if (got < nz) {
        seterr(err, errlen, "mtx: %s:%ld: %ld entries, the size line announced %ld", path, lineno,
               got, nz);
        goto done;
    }
    if (trip_to_csr(&t, (int)nr, (int)nc, out)) {
        seterr(err, errlen, "mtx: %s: out of memory", path);
        goto done;
    }
    rc = 0;
done:
    trip_free(&t);
    free(line);
    fclose(fp);
    return rc;
}

static int read_edges(const char *path, nh_csr *out, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        seterr(err, errlen, "edges: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0, n = 0;
    triplets t = {0};
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
            continue;
        char *end;
        errno = 0;
        long i = strtol(p, &end, 10);
        int ok = end != p;
        p = end;
        long j = strtol(p, &end, 10);
        ok = ok && end != p && !errno;
        p = end;
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || (*p && *p != '#')) {
            seterr(err, errlen, "edges: %s:%ld: expected 'I J' (0-based)", path, lineno);
            goto done;
        }
        if (i < 0 || j < 0 || i >= INT_MAX / 2 || j >= INT_MAX / 2) {
            seterr(err, errlen, "edges: %s:%ld: index out of range (0..%d)", path, lineno,
                   INT_MAX / 2 - 1);
            goto done;
        }
        if (i >= n)
            n = i + 1;
        if (j >= n)
            n = j + 1;
        if (trip_add(&t, (int)i, (int)j, 1.0)) {
            seterr(err, errlen, "edges: %s: out of memory", path);
            goto done;
        }
    }
    if (n == 0) {
        seterr(err, errlen, "edges: %s: no edges", path);
        goto done;
    }
    if (trip_to_csr(&t, (int)n, (int)n, out)) {
        seterr(err, errlen, "edges: %s: out of memory", path);
        goto done;
    }
    rc = 0;
done:
    trip_free(&t);
    free(line);
    fclose(fp);
    return rc;
}

int nh_matgen(const char *spec, nh_csr *out, char *err, size_t errlen)
{
    if (!spec || !out) {
        seterr(err, errlen, "matgen: no spec");
        return -1;
    }
    memset(out, 0, sizeof(*out));
    if (!strncmp(spec, "mtx:", 4))
        return read_mtx(spec + 4, out, err, errlen);
    if (!strncmp(spec, "edges:", 6))
        return read_edges(spec + 6, out, err, errlen);
    char *copy = strdup(spec);
    if (!copy) {
        seterr(err, errlen, "matgen: out of memory");
        return -1;
    }
    int rc;
    if (!strncmp(copy, "powerlaw:", 9)) {
        rc = gen_powerlaw(copy + 9, out, err, errlen);
    } else if (!strncmp(copy, "rmat:", 5)) {
        rc = gen_rmat(copy + 5, out, err, errlen);
    } else {
        seterr(err, errlen,
               "matgen: unknown matrix kind in '%s' (powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]], "
               "rmat:SCALE:EDGEFACTOR[:SEED], mtx:PATH, edges:PATH)",
               spec);
        rc = -1;
    }
    free(copy);
    return rc;
}

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
        seterr(err, errlen, "partition metis: the matrix must be square");
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
        seterr(err, errlen, "partition metis: METIS_PartGraphKway failed (%d)", mr);
        goto done;
    }
    for (int i = 0; i < n; i++)
        owner[i] = (int)part[i];
    rc = 0;
    goto done;
oom:
    seterr(err, errlen, "partition metis: out of memory");
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
        seterr(err, errlen, "partition file: cannot open '%s': %s", path, strerror(errno));
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
            seterr(err, errlen, "partition file: %s:%ld: expected a part in [0, %d)", path, lineno,
                   K);
            goto done;
        }
        if (row >= m->nrows) {
            seterr(err, errlen, "partition file: %s:%ld: more lines than the %d rows", path, lineno,
                   m->nrows);
            goto done;
        }
        owner[row++] = (int)v;
    }
    if (row < m->nrows) {
        seterr(err, errlen, "partition file: %s: %ld parts for %d rows", path, row, m->nrows);
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
        seterr(err, errlen, "partition: no matrix");
        return -1;
    }
    if (K < 1) {
        seterr(err, errlen, "partition: K must be >= 1, got %d", K);
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
        seterr(err, errlen,
               "partition: 'metis' needs a build configured --with-metis (libmetis-dev)");
        return -1;
#endif
    }
    if (!strncmp(how, "file:", 5))
        return part_file(m, K, how + 5, owner, err, errlen);
    seterr(err, errlen, "partition: unknown method '%s' (rowblock, nnz, metis, file:PATH)", how);
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
        qsort(touched, (size_t)nt, sizeof(int), cmp_int);
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
        qsort(sc + b, (size_t)(w - b), sizeof(int), cmp_int);
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
