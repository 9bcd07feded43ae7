/* Named neighborhoods as offset lists (no MPI): shared by the MPI tests,
 * the benchmark and nhood-sched. */
#ifndef NH_TEST_NBHD_H
#define NH_TEST_NBHD_H

#include <stdlib.h>
#include <string.h>

#define TC_MAXD 5

/* Offsets of a named neighborhood in d dimensions with radius r:
 * moore (Chebyshev distance 1..r), vonneumann (L1 distance 1..r), octant
 * (non-negative coordinates, Chebyshev 1..r), shales (Chebyshev distance
 * exactly r or exactly r2; tc_offsets uses r2 = 2r + 1, the paper's 3 and 7
 * for r = 3).  Returns count, fills off (caller frees), or -1 for an
 * unknown name. */
static inline int tc_offsets(const char *nbhd, int d, int r, int **off)
{
    int r2 = 2 * r + 1, big = strcmp(nbhd, "shales") == 0 ? r2 : r;
    int side = 2 * big + 1, total = 1, n = 0;
    for (int j = 0; j < d; j++)
        total *= side;
    *off = malloc(sizeof(int) * (size_t)total * d + 1);
    for (int i = 0; i < total; i++) {
        int c[TC_MAXD], x = i, cheb = 0, l1 = 0, neg = 0;
        for (int j = d - 1; j >= 0; j--) {
            c[j] = x % side - big;
            x /= side;
            cheb = abs(c[j]) > cheb ? abs(c[j]) : cheb;
            l1 += abs(c[j]);
            neg |= c[j] < 0;
        }
        int keep;
        if (strcmp(nbhd, "moore") == 0)
            keep = cheb > 0 && cheb <= r;
        else if (strcmp(nbhd, "vonneumann") == 0)
            keep = l1 > 0 && l1 <= r;
        else if (strcmp(nbhd, "octant") == 0)
            keep = cheb > 0 && cheb <= r && !neg;
        else if (strcmp(nbhd, "shales") == 0)
            keep = cheb == r || cheb == r2;
        else {
            free(*off);
            return -1;
        }
        if (keep)
            memcpy(*off + (size_t)n++ * d, c, sizeof(int) * d);
    }
    return n;
}

#endif
