/* Helpers of the matgen files: error messages, int order, and the
 * triplet lists the R-MAT generator and the readers turn into CSR. */
#include "matgen_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nh_mat_seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int nh_mat_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
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

int nh_trip_add(triplets *t, int i, int j, double v)
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

void nh_trip_free(triplets *t)
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
int nh_trip_to_csr(const triplets *t, int nrows, int ncols, nh_csr *out)
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
