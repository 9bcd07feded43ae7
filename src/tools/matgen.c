/* Test matrices, partitions and SpMV communication graphs (matgen.h).
 * Randomness comes from splitmix64 seeded per row (or per edge block), so an
 * instance depends only on its spec, never on call order or libc. */
#define _POSIX_C_SOURCE 200809L
#include "matgen_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
        nh_mat_seterr(err, errlen, "%s: field %d (%s) must be an integer in [%ld, %ld], got '%s'",
                      kind, idx, name, lo, hi, txt);
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
        nh_mat_seterr(err, errlen, "%s: field %d (%s) must be a number in %c%g, %g], got '%s'",
                      kind, idx, name, lo_open ? '(' : '[', lo, hi, txt);
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
        nh_mat_seterr(err, errlen, "%s: field %d (SEED) must be a non-negative integer, got '%s'",
                      kind, idx, txt);
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

/* Sorts c[0..n) and drops repeats; returns the new length. */
static long sort_unique(int *c, long n)
{
    if (n < 2)
        return n;
    qsort(c, (size_t)n, sizeof(int), nh_mat_cmp_int);
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
        nh_mat_seterr(err, errlen,
                      "powerlaw: expected powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]], got %d fields",
                      nf);
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
    nh_mat_seterr(err, errlen, "powerlaw: out of memory");
done:
    nh_csr_free(&b.m);
    free(tmp);
    free(dcols);
    free(isdense);
    free(w);
    return rc;
}

/* ---- R-MAT (triplets to CSR: triplets.c) ---- */

static int gen_rmat(char *args, nh_csr *out, char *err, size_t errlen)
{
    const char *K = "rmat";
    char *f[4];
    int nf = split_fields(args, f, 3);
    if (nf < 2 || nf > 3) {
        nh_mat_seterr(err, errlen, "rmat: expected rmat:SCALE:EDGEFACTOR[:SEED], got %d fields",
                      nf);
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
        nh_mat_seterr(err, errlen, "rmat: EDGEFACTOR * 2^SCALE = %ld edges exceeds 2^31", m);
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
        if (nh_trip_add(&t, (int)i, (int)j, 0.5 + unif(&s))) {
            nh_trip_free(&t);
            nh_mat_seterr(err, errlen, "rmat: out of memory");
            return -1;
        }
    }
    int rc = nh_trip_to_csr(&t, (int)n, (int)n, out);
    nh_trip_free(&t);
    if (rc)
        nh_mat_seterr(err, errlen, "rmat: out of memory");
    return rc;
}

int nh_matgen(const char *spec, nh_csr *out, char *err, size_t errlen)
{
    if (!spec || !out) {
        nh_mat_seterr(err, errlen, "matgen: no spec");
        return -1;
    }
    memset(out, 0, sizeof(*out));
    if (!strncmp(spec, "mtx:", 4))
        return nh_read_mtx(spec + 4, out, err, errlen);
    if (!strncmp(spec, "edges:", 6))
        return nh_read_edges(spec + 6, out, err, errlen);
    char *copy = strdup(spec);
    if (!copy) {
        nh_mat_seterr(err, errlen, "matgen: out of memory");
        return -1;
    }
    int rc;
    if (!strncmp(copy, "powerlaw:", 9)) {
        rc = gen_powerlaw(copy + 9, out, err, errlen);
    } else if (!strncmp(copy, "rmat:", 5)) {
        rc = gen_rmat(copy + 5, out, err, errlen);
    } else {
        nh_mat_seterr(
            err, errlen,
            "matgen: unknown matrix kind in '%s' (powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]], "
            "rmat:SCALE:EDGEFACTOR[:SEED], mtx:PATH, edges:PATH)",
            spec);
        rc = -1;
    }
    free(copy);
    return rc;
}
