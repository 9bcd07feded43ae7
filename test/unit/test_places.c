/* A neighbor list's places grouped by peer (core/places.h), against a
 * plain quadratic reference: random lists with repeated peers, null
 * (MPICH's -1 and Open MPI's -2) and the rank itself, through both paths
 * (ranks below 64 in one pass; any rank above 63 sorts), and the same
 * lists relabeled above 63 (the sort path) must give the same places.
 * Ranks up to INT_MAX - 1 sort in order. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/places.h"

#define NMAX 80

static unsigned long long seed = 88172645463325252ull;

static unsigned rnd(unsigned m)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (unsigned)(seed % m);
}

typedef struct {
    int first[NMAX], next[NMAX], self, nulls, rep;
} result;

static void reference(const int *list, int n, int me, int null, result *x)
{
    x->self = -1;
    x->nulls = x->rep = 0;
    for (int k = 0; k < n; k++) {
        x->first[k] = x->next[k] = -1;
        if (list[k] == null) {
            x->nulls++;
            continue;
        }
        for (int j = 0; j < n && x->first[k] < 0; j++)
            if (list[j] == list[k])
                x->first[k] = j;
        for (int j = k + 1; j < n && x->next[k] < 0; j++)
            if (list[j] == list[k])
                x->next[k] = j;
        x->rep |= x->first[k] != k;
        if (list[k] == me && x->self < 0)
            x->self = k;
    }
}

static int same(const result *a, const result *b, int n)
{
    return a->self == b->self && a->nulls == b->nulls && a->rep == b->rep &&
           memcmp(a->first, b->first, sizeof(int) * (size_t)n) == 0 &&
           memcmp(a->next, b->next, sizeof(int) * (size_t)n) == 0;
}

/* nh_places against the reference; its places in *got. */
static void run(const int *list, int n, int me, int null, const char *what, int trial, result *got)
{
    result want;
    reference(list, n, me, null, &want);
    got->rep = nh_places(list, n, me, null, got->first, got->next, &got->self, &got->nulls);
    CHECK(same(&want, got, n), "%s, trial %d (n=%d, me=%d, null=%d): places differ", what, trial, n,
          me, null);
}

int main(void)
{
    int list[NMAX], big[NMAX];
    result a, b;
    for (int t = 0; t < 20000; t++) {
        int n = (int)rnd(NMAX + 1), alphabet = 1 + (int)rnd(t % 2 ? 8 : 80);
        int null = t % 3 ? -1 : -2, me = (int)rnd((unsigned)alphabet + 1);
        for (int k = 0; k < n; k++)
            list[k] = rnd(8) == 0 ? null : (int)rnd((unsigned)alphabet);
        run(list, n, me, null, "as drawn", t, &a);
        /* the same list above 63 (the sort path): the same places */
        int shift = t % 2 ? 64 : INT_MAX - alphabet - 1;
        for (int k = 0; k < n; k++)
            big[k] = list[k] == null ? null : list[k] + shift;
        run(big, n, me + shift, null, "relabeled", t, &b);
        CHECK(same(&a, &b, n), "trial %d: relabeling changed the places", t);
    }
    /* the edges: nothing; only null; a list that turns to sorting at its
     * last place */
    int edge[4] = {3, 3, 99, 3};
    run(edge, 0, 0, -1, "empty", 0, &a);
    int nulls[3] = {-2, -2, -2};
    run(nulls, 3, 0, -2, "only null", 0, &a);
    run(edge, 4, 3, -1, "late sort", 0, &a);
    run(edge, 4, 99, -1, "late sort, self above 63", 0, &a);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
