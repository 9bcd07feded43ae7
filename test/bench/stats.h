/* Benchmark statistics shared by nhood-bench and nhood-bench-inplace:
 * Tukey's fences (3 inter-quartile ranges), then the median of what
 * remains, as in the isomorphic-collectives paper's methodology. */
#ifndef NH_BENCH_STATS_H
#define NH_BENCH_STATS_H

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double robust_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    double q1 = v[n / 4], q3 = v[(3 * n) / 4], iqr = q3 - q1;
    int lo = 0, hi = n;
    while (lo < n && v[lo] < q1 - 3 * iqr)
        lo++;
    while (hi > lo && v[hi - 1] > q3 + 3 * iqr)
        hi--;
    int m = hi - lo;
    return m % 2 ? v[lo + m / 2] : 0.5 * (v[lo + m / 2 - 1] + v[lo + m / 2]);
}

#endif
