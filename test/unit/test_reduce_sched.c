/* Unit tests without MPI for the sparse-reduction schedules
 * (src/core/reduce.c): for named and random neighborhoods (duplicates,
 * zero offsets, offsets larger than the grid) on periodic, non-periodic
 * and mixed grids with dimensions of size 1 and 2, both algorithms and
 * both operations are simulated on every rank with symbolic data: each
 * rank's result must hold the contribution of each existing source exactly
 * once (as often as its offset is listed) and nothing else.  On tori the
 * message and block counts of the combining schedule are checked against
 * the trie's closed forms. */
#include "../check.h"
#include "../nbhd.h"
#include "core/reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

static void sim(const char *what, const nh_grid *g, int s, const int *off)
{
    char why[256], gname[64];
    nh_grid_format(g, gname, sizeof(gname));
    for (int scatter = 0; scatter <= 1; scatter++)
        for (int a = 0; a < NH_RED_COUNT; a++) {
            int rc = nh_rsched_simulate(g, s, off, scatter, (nh_red_algo)a, NULL, NULL, why,
                                        sizeof(why));
            CHECK(rc == 0, "%s on %s (periods %d%d%d) %s %s: %s", what, gname, g->periods[0],
                  g->ndims > 1 ? g->periods[1] : 0, g->ndims > 2 ? g->periods[2] : 0,
                  scatter ? "scatter_reduce" : "reduce", nh_red_algo_names[a],
                  rc < 0 ? "out of memory" : why);
        }
}

/* Every periodicity pattern of the dimensions. */
static void sim_all_periods(const char *what, int d, const int *dims, int s, const int *off)
{
    for (int mask = 0; mask < (1 << d); mask++) {
        nh_grid g;
        int periods[NH_MAXDIMS];
        for (int j = 0; j < d; j++)
            periods[j] = (mask >> j) & 1;
        if (nh_grid_init(&g, d, dims, periods) || g.size > 300)
            continue;
        sim(what, &g, s, off);
    }
}

/* Interior counts on a large torus: dimwise sends one message per
 * distinct non-zero coordinate value per trie level; direct one per
 * non-zero offset. */
static void check_counts(const char *name, int d, int r)
{
    int *off, s = tc_offsets(name, d, r, &off);
    int dims[NH_MAXDIMS], periods[NH_MAXDIMS];
    for (int j = 0; j < d; j++) {
        dims[j] = 2 * (2 * r + 1) + 1;
        periods[j] = 1;
    }
    nh_grid g;
    nh_grid_init(&g, d, dims, periods);
    nh_rsched *dw = NULL, *dr = NULL, *sc = NULL;
    CHECK(nh_rsched_build(&g, 0, s, off, 0, NH_RED_DIMWISE, &dw) == 0, "build");
    CHECK(nh_rsched_build(&g, 0, s, off, 0, NH_RED_DIRECT, &dr) == 0, "build");
    CHECK(nh_rsched_build(&g, 0, s, off, 1, NH_RED_DIMWISE, &sc) == 0, "build");
    if (dw && dr && sc) {
        /* Moore r: per dimension 2r values -> 2rd messages; direct: s. */
        long want = strcmp(name, "moore") == 0 ? 2L * r * d : -1;
        if (want > 0)
            CHECK(dw->msgs == want && sc->msgs == want,
                  "%s d=%d r=%d: dimwise sends %ld/%ld messages, expected %ld", name, d, r,
                  dw->msgs, sc->msgs, want);
        CHECK(dr->msgs == s, "%s d=%d r=%d: direct sends %ld messages, expected %d", name, d, r,
              dr->msgs, s);
        CHECK(dw->msgs <= dr->msgs, "%s: dimwise sends more messages than direct", name);
        /* scatter_reduce moves every contribution at least once; reduce
         * shares the level-0 vector, so it sends no more blocks. */
        CHECK(sc->blocks >= s && dw->blocks <= sc->blocks,
              "%s d=%d r=%d: blocks %ld (reduce) %ld (scatter)", name, d, r, dw->blocks,
              sc->blocks);
        if (strcmp(name, "moore") == 0 && r == 1 && d == 3)
            CHECK(dw->blocks == 10 && sc->blocks == 26,
                  "3-D Moore r=1: %ld and %ld blocks, expected 10 (reduce) and 26 (scatter)",
                  dw->blocks, sc->blocks);
    }
    nh_rsched_free(dw);
    nh_rsched_free(dr);
    nh_rsched_free(sc);
    free(off);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    static const char *names[] = {"moore", "vonneumann", "octant"};
    /* Named neighborhoods on small grids, every periodicity. */
    for (int d = 1; d <= 3; d++)
        for (int r = 1; r <= (d == 3 ? 1 : 2); r++)
            for (int n = 0; n < 3; n++) {
                int *off, s = tc_offsets(names[n], d, r, &off);
                char what[64];
                snprintf(what, sizeof(what), "%s d=%d r=%d", names[n], d, r);
                static const int shapes[][3] = {{4, 3, 3}, {2, 5, 1}, {1, 2, 4}, {5, 1, 2}};
                for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
                    sim_all_periods(what, d, shapes[k], s, off);
                free(off);
            }
    /* Random offset lists: duplicates, zero offsets, coordinates beyond the
     * grid. */
    int rounds = quick ? 40 : 300;
    for (int t = 0; t < rounds; t++) {
        int d = 1 + (int)(rnd() % 3), dims[NH_MAXDIMS], s = (int)(rnd() % 9), off[64];
        for (int j = 0; j < d; j++)
            dims[j] = 1 + (int)(rnd() % 4);
        for (int i = 0; i < s * d; i++)
            off[i] = (int)(rnd() % 7) - 3;
        if (s > 1 && rnd() % 2) /* a duplicate */
            memcpy(off + (size_t)(s - 1) * d, off, sizeof(int) * (size_t)d);
        if (s > 2 && rnd() % 3 == 0) /* a zero offset */
            memset(off + (size_t)d, 0, sizeof(int) * (size_t)d);
        char what[64];
        snprintf(what, sizeof(what), "random #%d (s=%d)", t, s);
        sim_all_periods(what, d, dims, s, off);
    }
    for (int d = 1; d <= 3; d++)
        for (int r = 1; r <= 2; r++)
            for (int n = 0; n < 3; n++)
                check_counts(names[n], d, r);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
