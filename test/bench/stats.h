/* Benchmark statistics shared by the benchmarks: Tukey's fences (3
 * inter-quartile ranges), then the median of what remains, as in the
 * isomorphic-collectives paper's methodology; and the order in which a
 * round runs the series it alternates (series_at). */
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

/* The series (of n) that round's i-th run takes: each round starts one
 * series later than the one before, and steps through the series by a
 * stride prime to n that changes every `every` rounds, so that every
 * series follows every other as often.  With the start alone rotating a
 * series followed the same one in all rounds but one, and a call after
 * one of the same schedule ran faster (MPICH 4.0.2, 2 ranks, 3-D Moore
 * allgather of 16 KiB, four graphs running the same one-message
 * schedule, seven runs: forced torus_direct, after forced torus, 11.8 to
 * 14.5 us; torus, after direct's message of 18 blocks, 14.9 to 19.8; the
 * default graph, after MPI's own, 12.3 to 15.2). */
static inline int series_at(int round, int i, int n, int every)
{
    int strides[8], nstrides = 0;
    for (int st = 1; st < n || nstrides == 0; st++) {
        int a = st, b = n;
        while (b) {
            int r = a % b;
            a = b;
            b = r;
        }
        if (a == 1 && nstrides < 8)
            strides[nstrides++] = st;
    }
    return (round + i * strides[round / every % nstrides]) % n;
}

#endif
