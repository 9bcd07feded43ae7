/* Unit tests without MPI: for a catalog of neighborhoods, grids and
 * per-rank neighbor orders, canonicalize every rank's lists the way
 * detection does, build every algorithm's schedule for every rank, run
 * them in the simulator and check that every block lands exactly once in
 * the slot MPI's semantics assign; on large enough tori also check the
 * round and volume formulas. */
#include "../check.h"
#include "core/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct nbhd_def {
    char name[64];
    int d, s;
    int off[4096 * 4];
} nbhd_def;

static unsigned long long rng = 88172645463325252ULL;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 11);
}

/* Enumerate all offsets in [-r, r]^d satisfying a predicate. */
static void gen_box(nbhd_def *n, int d, int r, int (*keep)(const int *c, int d, int r, int r2),
                    int r2, const char *name)
{
    int c[4] = {0};
    snprintf(n->name, sizeof(n->name), "%s d=%d r=%d", name, d, r);
    n->d = d;
    n->s = 0;
    int total = 1;
    for (int j = 0; j < d; j++)
        total *= 2 * (r2 > r ? r2 : r) + 1;
    int R = r2 > r ? r2 : r;
    for (int i = 0; i < total; i++) {
        int x = i;
        for (int j = d - 1; j >= 0; j--) {
            c[j] = x % (2 * R + 1) - R;
            x /= 2 * R + 1;
        }
        if (keep(c, d, r, r2)) {
            memcpy(n->off + n->s * d, c, sizeof(int) * d);
            n->s++;
        }
    }
}

static int cheb(const int *c, int d)
{
    int m = 0;
    for (int j = 0; j < d; j++)
        m = abs(c[j]) > m ? abs(c[j]) : m;
    return m;
}
static int keep_moore(const int *c, int d, int r, int r2)
{
    (void)r2;
    int m = cheb(c, d);
    return m > 0 && m <= r;
}
static int keep_vn(const int *c, int d, int r, int r2)
{
    (void)r2;
    int s = 0;
    for (int j = 0; j < d; j++)
        s += abs(c[j]);
    return s > 0 && s <= r;
}
static int keep_octant(const int *c, int d, int r, int r2)
{
    (void)r2;
    for (int j = 0; j < d; j++)
        if (c[j] < 0)
            return 0;
    return cheb(c, d) > 0 && cheb(c, d) <= r;
}
static int keep_shales(const int *c, int d, int r, int r2)
{
    int m = cheb(c, d);
    return m == r || m == r2;
}

typedef struct result {
    long msgs, blocks, nphases, rounds;
} result;

/* Runs one (neighborhood, grid, order, op, algo) case; returns 0 if ok.
 * A mesh too small for any rank to see the whole neighborhood is left to
 * PMPI by detection; that counts as ok with out->msgs = -1. */
static int run_case(const nbhd_def *n, const nh_grid *g, int permute, nh_op op, nh_algo algo,
                    int ports, result *out)
{
    nh_sim_result res;
    nh_sched_stats st;
    int rc = nh_sim_offsets(g, n->s, n->off, permute ? rnd() | 1 : 0, op, algo, ports, 1, NULL,
                            &res, &st);
    if (rc == 1) {
        out->msgs = -1;
        return 0;
    }
    if (rc != 0 || !res.ok) {
        printf("  %s grid %dx.. %s %s ports=%d: %s\n", n->name, g->dims[0], nh_op_name(op),
               nh_algos[algo].name, ports, rc ? "setup failed" : res.why);
        return 1;
    }
    out->msgs = st.msgs;
    out->blocks = st.blocks;
    out->nphases = st.nphases;
    out->rounds = st.rounds;
    return 0;
}

/* Paper formulas on a torus large enough that no offsets alias. */
static void check_formulas(const nbhd_def *n)
{
    int dims[4], per[4] = {1, 1, 1, 1}, maxc = 0;
    for (int i = 0; i < n->s * n->d; i++)
        maxc = abs(n->off[i]) > maxc ? abs(n->off[i]) : maxc;
    for (int j = 0; j < n->d; j++)
        dims[j] = 2 * maxc + 1 + (j == 0); /* odd and even sizes */
    nh_grid g;
    nh_grid_init(&g, n->d, dims, per);
    if (g.size > 4096)
        return;
    long D = 0, V = 0, rounds_td = 0, vol_td = 0, phases = 0, classes = 0;
    for (int j = 0; j < n->d; j++) {
        int mp = 0, mn = 0, seen[64] = {0}, nv = 0;
        for (int t = 0; t < n->s; t++) {
            int c = n->off[t * n->d + j];
            mp = c > mp ? c : mp;
            mn = -c > mn ? -c : mn;
            if (c != 0 && !seen[c + 32]++)
                nv++;
        }
        D += mp + mn;
        phases += mp > mn ? mp : mn;
        rounds_td += nv;
    }
    int zero = 0;
    for (int t = 0; t < n->s; t++) {
        int nz = 0, l1 = 0, dup = 0;
        for (int j = 0; j < n->d; j++) {
            nz += n->off[t * n->d + j] != 0;
            l1 += abs(n->off[t * n->d + j]);
        }
        V += l1;
        vol_td += nz;
        zero |= nz == 0;
        for (int u = 0; u < t && !dup; u++)
            dup = memcmp(n->off + u * n->d, n->off + t * n->d, sizeof(int) * n->d) == 0;
        classes += !dup && nz;
    }
    result r;
    if (run_case(n, &g, 0, NH_OP_ALLTOALL, NH_ALGO_TORUS, 1, &r) == 0) {
        CHECK(r.msgs == D && r.blocks == V && r.nphases == phases + zero && r.rounds == phases,
              "%s torus: msgs %ld (D=%ld) blocks %ld (V=%ld) phases %ld (%ld)", n->name, r.msgs, D,
              r.blocks, V, r.nphases, phases + zero);
    }
    result ag;
    if (run_case(n, &g, 0, NH_OP_ALLGATHER, NH_ALGO_TORUS, 1, &ag) == 0)
        CHECK(ag.msgs == D && ag.blocks <= V, "%s torus allgather: msgs %ld blocks %ld > V=%ld",
              n->name, ag.msgs, ag.blocks, V);
    if (run_case(n, &g, 0, NH_OP_ALLTOALL, NH_ALGO_TORUS_DIRECT, 1, &r) == 0)
        CHECK(r.msgs == rounds_td && r.blocks == vol_td,
              "%s torus_direct: msgs %ld (%ld) blocks %ld (%ld)", n->name, r.msgs, rounds_td,
              r.blocks, vol_td);
    if (run_case(n, &g, 0, NH_OP_ALLTOALL, NH_ALGO_DIRECT, 1, &r) == 0)
        CHECK(r.msgs == classes && r.nphases == (classes > 0) + zero && r.rounds == (classes > 0),
              "%s direct: msgs %ld (%ld classes)", n->name, r.msgs, classes);
    /* bruck, one port: one message per round, and per dimension the
     * fewest rounds any digit system has, ceil(log2(values spanned)). */
    long lg = 0;
    for (int j = 0; j < n->d; j++) {
        int lo = 0, hi = 0, lgj = 0;
        for (int t = 0; t < n->s; t++) {
            lo = n->off[t * n->d + j] < lo ? n->off[t * n->d + j] : lo;
            hi = n->off[t * n->d + j] > hi ? n->off[t * n->d + j] : hi;
        }
        while ((1L << lgj) < hi - lo + 1)
            lgj++;
        lg += lgj;
    }
    for (int op = 0; op < NH_OP_COUNT; op++)
        if (run_case(n, &g, 0, (nh_op)op, NH_ALGO_BRUCK, 1, &r) == 0)
            CHECK(r.msgs == r.rounds &&
                      (strncmp(n->name, "moore", 5) == 0 ? r.rounds == lg : r.rounds <= lg),
                  "%s bruck %s: %ld messages in %ld rounds (%ld)", n->name,
                  nh_op_name((nh_op)op), r.msgs, r.rounds, lg);
}

static void sweep(const nbhd_def *n, int ndims, const int *dims, const int *periods)
{
    nh_grid g;
    if (nh_grid_init(&g, ndims, dims, periods)) {
        CHECK(0, "bad grid");
        return;
    }
    for (int op = 0; op < NH_OP_COUNT; op++)
        for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++)
            for (int permute = 0; permute < 2 && nh_algos[a].build; permute++) {
                /* k-ported builders: every port count, two per order */
                for (int k = 1 + permute; k <= (a == NH_ALGO_BRUCK ? NH_MAX_PORTS : 1); k += 2) {
                    result r;
                    CHECK(run_case(n, &g, permute, (nh_op)op, (nh_algo)a, k, &r) == 0,
                          "%s on %dD grid %d..%d periodic=%d: %s %s ports=%d permute=%d", n->name,
                          ndims, dims[0], dims[ndims - 1], periods[0], nh_op_name((nh_op)op),
                          nh_algos[a].name, k, permute);
                }
            }
}

static nbhd_def N;

static void grids_for(const nbhd_def *n)
{
    static const int g1[][1] = {{1}, {2}, {3}, {7}};
    static const int g2[][2] = {{2, 3}, {4, 5}, {1, 4}, {2, 2}};
    static const int g3[][3] = {{2, 2, 2}, {3, 4, 2}, {1, 2, 3}};
    static const int g4[][4] = {{2, 3, 2, 2}, {1, 2, 1, 3}};
    int per_all[4] = {1, 1, 1, 1}, per_none[4] = {0, 0, 0, 0}, per_mix[4] = {1, 0, 1, 0};
    const int *pers[3] = {per_all, per_none, per_mix};
    for (int k = 0; k < 3; k++) {
        if (n->d == 1)
            for (size_t i = 0; i < sizeof(g1) / sizeof(g1[0]); i++)
                sweep(n, 1, g1[i], pers[k]);
        if (n->d == 2)
            for (size_t i = 0; i < sizeof(g2) / sizeof(g2[0]); i++)
                sweep(n, 2, g2[i], pers[k]);
        if (n->d == 3)
            for (size_t i = 0; i < sizeof(g3) / sizeof(g3[0]); i++)
                sweep(n, 3, g3[i], pers[k]);
        if (n->d == 4)
            for (size_t i = 0; i < sizeof(g4) / sizeof(g4[0]); i++)
                sweep(n, 4, g4[i], pers[k]);
    }
}

static void test_catalog(int maxd)
{
    for (int d = 1; d <= maxd; d++)
        for (int r = 1; r <= 3; r++) {
            if (d == 4 && r > 2)
                continue;
            gen_box(&N, d, r, keep_moore, 0, "moore");
            grids_for(&N);
            check_formulas(&N);
            gen_box(&N, d, r, keep_vn, 0, "vonneumann");
            grids_for(&N);
            check_formulas(&N);
        }
    for (int r = 1; r <= 3 && maxd >= 3; r += 2) {
        gen_box(&N, 3, r, keep_octant, 0, "octant");
        grids_for(&N);
        check_formulas(&N);
    }
    gen_box(&N, 2, 1, keep_shales, 3, "shales r1=1 r2=3");
    grids_for(&N);
    check_formulas(&N);
}

static void test_random(int iters)
{
    /* Random lists with duplicates and the zero offset. */
    for (int iter = 0; iter < iters; iter++) {
        int d = 1 + (int)(rnd() % 3);
        N.d = d;
        N.s = 1 + (int)(rnd() % 12);
        snprintf(N.name, sizeof(N.name), "random#%d d=%d s=%d", iter, d, N.s);
        for (int t = 0; t < N.s; t++)
            for (int j = 0; j < d; j++)
                N.off[t * d + j] = (int)(rnd() % 7) - 3;
        if (N.s > 2) /* force a duplicate and a zero offset */
            memcpy(N.off + (N.s - 1) * d, N.off, sizeof(int) * d);
        if (iter % 3 == 0)
            memset(N.off, 0, sizeof(int) * d);
        grids_for(&N);
        check_formulas(&N);
    }
}

static void test_canon(void)
{
    /* Lists that are not isomorphic must be rejected. */
    int dims[2] = {4, 4}, per[2] = {1, 1};
    nh_grid g;
    nh_grid_init(&g, 2, dims, per);
    int tmpl[4] = {0, 1, 1, 0}; /* sorted: (0,1), (1,0) */
    int dests[2] = {1, 4}, srcs[2] = {3, 12};
    nh_nbhd nb;
    CHECK(nh_nbhd_init(&nb, &g, 0, 2, tmpl, 2, dests, 2, srcs) == 0, "plain 2-D fits");
    nh_nbhd_fini(&nb);
    int bad_srcs[2] = {3, 13};
    CHECK(nh_nbhd_init(&nb, &g, 0, 2, tmpl, 2, dests, 2, bad_srcs) == 1,
          "sources that are not negated offsets are rejected");
    int bad_dests[2] = {1, 5};
    CHECK(nh_nbhd_init(&nb, &g, 0, 2, tmpl, 2, bad_dests, 2, srcs) == 1, "wrong offset rejected");
    int out_of_range[2] = {1, 16};
    CHECK(nh_nbhd_init(&nb, &g, 0, 2, tmpl, 2, out_of_range, 2, srcs) == 1, "rank 16 rejected");
    /* Normalization: -1 and +1 alias on a periodic dimension of size 2. */
    int off[2] = {-1, 3};
    int dims2[2] = {2, 4};
    nh_grid g2;
    nh_grid_init(&g2, 2, dims2, per);
    nh_grid_normalize(&g2, off);
    CHECK(off[0] == 1 && off[1] == -1, "normalize (-1,3) on 2x4 -> (1,-1), got (%d,%d)", off[0],
          off[1]);
    nh_grid a, b;
    int da[3] = {4, 1, 2}, db[2] = {4, 2};
    int per3[3] = {1, 1, 1};
    nh_grid_init(&a, 3, da, per3);
    nh_grid_init(&b, 2, db, per);
    CHECK(nh_grid_equiv(&a, &b), "size-1 dims are irrelevant to grid equivalence");
    /* Coupling: a single offset leaves block sizes free per rank. */
    int one[2] = {0, 1};
    CHECK(!nh_sizes_coupled(&g, 1, one), "single offset is not size-coupled");
    int moore[16] = {-1, -1, -1, 0, -1, 1, 0, -1, 0, 1, 1, -1, 1, 0, 1, 1};
    CHECK(nh_sizes_coupled(&g, 8, moore), "2-D Moore is size-coupled");
}

/* Node statistics (the cost model's node terms), 2-D Moore on a 4x4 torus.
 * Rows of 4 ranks per node: 6 of each rank's 8 neighbors are off its node
 * (24 blocks per node), and the torus schedule's hops along rows stay in.
 * Pairs of ranks per node: 7 of 8 are off (14 per node), and both of the
 * torus schedule's phases leave nodes. */
/* Graph creation's split builder (destinations now, sources when first
 * needed) gives what the whole one gives, on tori with and without
 * aliased offsets (sizes 1 and 2), in random list orders; and the sources'
 * half rejects lists that do not match (an inconsistent graph). */
static void test_split_nbhd(void)
{
    const int shapes[][3] = {{2, 1, 1}, {2, 2, 2}, {3, 4, 1}, {5, 3, 2}, {4, 4, 4}, {1, 1, 1}};
    int per[3] = {1, 1, 1}, checked = 0;
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        nh_grid g;
        nh_grid_init(&g, 3, shapes[k], per);
        for (int rank = 0; rank < g.size; rank += 1 + g.size / 5) {
            int me[3], dst[26], src[26], n = 0;
            nh_grid_coords(&g, rank, me);
            for (int a = -1; a <= 1; a++) /* 3-D Moore, r = 1 */
                for (int b = -1; b <= 1; b++)
                    for (int c = -1; c <= 1; c++) {
                        int o[3] = {a, b, c};
                        if (!a && !b && !c)
                            continue;
                        dst[n] = nh_grid_shift(&g, me, o, +1);
                        src[n++] = nh_grid_shift(&g, me, o, -1);
                    }
            for (int i = n - 1; i > 0; i--) { /* the same shuffle of both lists */
                int j = (int)(rnd() % (unsigned)(i + 1)), t = dst[i];
                dst[i] = dst[j];
                dst[j] = t;
                t = src[i];
                src[i] = src[j];
                src[j] = t;
            }
            nh_nbhd whole, split;
            CHECK(nh_nbhd_init(&whole, &g, rank, n, NULL, n, dst, n, src) == 0,
                  "%dx%dx%d rank %d: own template fits", shapes[k][0], shapes[k][1], shapes[k][2],
                  rank);
            CHECK(nh_nbhd_torus_dests(&split, &g, rank, n, dst, n) == 0 &&
                      nh_nbhd_fill_recv(&split, src) == 0,
                  "%dx%dx%d rank %d: split builder fits", shapes[k][0], shapes[k][1], shapes[k][2],
                  rank);
            CHECK(memcmp(whole.off, split.off, sizeof(int) * 3 * (size_t)n) == 0 &&
                      memcmp(whole.send_slot, split.send_slot, sizeof(int) * (size_t)n) == 0 &&
                      memcmp(whole.recv_slot, split.recv_slot, sizeof(int) * (size_t)n) == 0,
                  "%dx%dx%d rank %d: split builder gives the same template and slots", shapes[k][0],
                  shapes[k][1], shapes[k][2], rank);
            int rep = 0;
            for (int i = 0; i < n; i++)
                for (int j = 0; j < i; j++)
                    rep |= src[i] == src[j];
            CHECK(split.src_repeats == rep, "%dx%dx%d rank %d: repeated sources %d, said %d",
                  shapes[k][0], shapes[k][1], shapes[k][2], rank, rep, split.src_repeats);
            CHECK(split.summary == nh_offsets_summary(&g, n, whole.off) && whole.summary == 0,
                  "%dx%dx%d rank %d: the split builder's summary is its offsets' summary",
                  shapes[k][0], shapes[k][1], shapes[k][2], rank);
            nh_nbhd_fini(&whole);
            nh_nbhd_fini(&split);
            checked++;
        }
    }
    CHECK(checked > 10, "split builder checked on %d ranks", checked);
    /* A ring whose sources are its destinations (r + 1 both ways): the
     * destinations alone look fine, the sources do not fit. */
    int dims[1] = {8}, ring = 0;
    nh_grid g;
    nh_grid_init(&g, 1, dims, per);
    nh_nbhd nb;
    int dst[1] = {3}, src[1] = {3};
    CHECK(nh_nbhd_torus_dests(&nb, &g, 2, 1, dst, 1) == 0, "ring destinations fit");
    CHECK((ring = nh_nbhd_fill_recv(&nb, src)) == 1, "inconsistent sources rejected (%d)", ring);
    nh_nbhd_fini(&nb);
    int mesh_per[1] = {0};
    nh_grid_init(&g, 1, dims, mesh_per);
    CHECK(nh_nbhd_torus_dests(&nb, &g, 2, 1, dst, 1) == 1, "not for meshes");
}

/* Graph creation's offset summaries: those of a rank's destinations,
 * computed for grids of one shape with different periods at once, equal
 * those of its offsets as nh_local_offsets normalizes them; a rank out of
 * range gives 0, and the summary of a sublist is a subset. */
static void test_summaries(void)
{
    const int shapes[][3] = {{4, 1, 1}, {2, 2, 1}, {3, 4, 1}, {5, 3, 2}, {4, 4, 4}};
    const int pers[][3] = {{1, 1, 1}, {0, 0, 0}, {1, 0, 1}, {0, 1, 0}};
    int checked = 0;
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        nh_grid gs[4];
        const nh_grid *gp[4];
        for (int p = 0; p < 4; p++) {
            nh_grid_init(&gs[p], 3, shapes[k], pers[p]);
            gp[p] = &gs[p];
        }
        for (int rank = 0; rank < gs[0].size; rank += 1 + gs[0].size / 7) {
            int dst[40], off[40 * 3], perm[40], n = 1 + (int)(rnd() % 40u);
            for (int i = 0; i < n; i++)
                dst[i] = (int)(rnd() % (unsigned)gs[0].size);
            uint64_t sum[4], part[4];
            nh_dests_summaries(gp, 4, rank, n, dst, sum);
            nh_dests_summaries(gp, 4, rank, n / 2, dst, part);
            for (int p = 0; p < 4; p++) {
                int ok = nh_local_offsets(&gs[p], rank, n, dst, +1, off, perm) == 0;
                uint64_t want = ok ? nh_offsets_summary(&gs[p], n, off) : 0;
                CHECK(ok && sum[p] == want && sum[p] >> 63 && !(part[p] & ~sum[p]),
                      "%dx%dx%d periods %d%d%d rank %d, %d destinations: summary %llx, of the "
                      "sorted offsets %llx, of half %llx",
                      shapes[k][0], shapes[k][1], shapes[k][2], pers[p][0], pers[p][1], pers[p][2],
                      rank, n, (unsigned long long)sum[p], (unsigned long long)want,
                      (unsigned long long)part[p]);
                checked++;
            }
            dst[n - 1] = gs[0].size; /* out of range */
            nh_dests_summaries(gp, 4, rank, n, dst, sum);
            CHECK(sum[0] == 0 && sum[3] == 0, "a rank out of range gives no summary");
        }
    }
    CHECK(checked > 40, "summaries checked on %d grids and ranks", checked);
}

static void test_node_stats(void)
{
    int dims[2] = {4, 4}, per[2] = {1, 1};
    int moore[16] = {-1, -1, -1, 0, -1, 1, 0, -1, 0, 1, 1, -1, 1, 0, 1, 1};
    nh_grid g;
    CHECK(nh_grid_init(&g, 2, dims, per) == 0, "4x4 grid");
    static const struct {
        nh_algo algo;
        int ppn, phases;
        long blocks;
    } cases[] = {{NH_ALGO_DIRECT, 4, 1, 24}, {NH_ALGO_DIRECT, 2, 1, 14},
                 {NH_ALGO_DIRECT, 16, 0, 0}, {NH_ALGO_TORUS, 4, 1, 24},
                 {NH_ALGO_TORUS, 2, 2, -1},  {NH_ALGO_TORUS_DIRECT, 4, 1, 24}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        nh_sim_result res;
        nh_sched_stats st;
        nh_sim_nodes nodes = {.ppn = cases[i].ppn};
        int rc =
            nh_sim_offsets(&g, 8, moore, 0, NH_OP_ALLTOALL, cases[i].algo, 1, 0, &nodes, &res, &st);
        CHECK(rc == 0 && st.node_phases == cases[i].phases &&
                  (cases[i].blocks < 0 || st.node_blocks == cases[i].blocks),
              "%s, %d ranks per node: %d phases leave nodes, %ld blocks per node (want %d, %ld)",
              nh_algos[cases[i].algo].name, cases[i].ppn, st.node_phases, st.node_blocks,
              cases[i].phases, cases[i].blocks);
    }
}

/* Distance: 16 ranks on a ring, 2 per node (8 nodes in one ring), and
 * 16 nodes in rings of 4. */
static void test_node_distance(void)
{
    int up = -1;
    CHECK(nh_node_hops(0, 9, 16, &up) == 7 && up == 0, "the shorter way round a ring of 16");
    CHECK(nh_node_hops(0, 17, 16, &up) == 2 && up == 1, "one along and one ring on");
    CHECK(nh_node_hops(3, 35, 16, &up) == 2 && up == 1, "two rings on");
    CHECK(nh_node_hops(5, 4, 16, &up) == 1 && up == 0, "one down");
    int dims[1] = {16}, per[1] = {1};
    nh_grid g;
    CHECK(nh_grid_init(&g, 1, dims, per) == 0, "1-D grid of 16");
    static const struct {
        int off[2], n, far;
        double link_blocks;
        long blocks;
    } cases[] = {
        {{4, -4}, 2, 1, 4, 4}, /* 2 nodes up and down: each link carries 2 nodes' blocks */
        {{6, 0}, 1, 2, 6, 2},  /* 3 nodes up: 3 nodes' 2 blocks on each link */
        {{10, 0}, 1, 2, 6, 2}, /* 5 nodes up is 3 down */
        {{1, -1}, 2, 0, 1, 2}, /* the neighboring node only, one block each way */
        {{2, 4}, 2, 1, 6, 4},  /* one node up and two up: 2 + 2 + the node before's 2 */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        nh_sim_result res;
        nh_sched_stats st;
        nh_sim_nodes nodes = {.ppn = 2};
        int rc = nh_sim_offsets(&g, cases[i].n, cases[i].off, 0, NH_OP_ALLTOALL, NH_ALGO_DIRECT, 1,
                                0, &nodes, &res, &st);
        CHECK(rc == 0 && st.node_far == cases[i].far &&
                  st.node_link_blocks == cases[i].link_blocks && st.node_blocks == cases[i].blocks,
              "offsets %d,%d: far %d, busiest link %g, blocks %ld (want %d, %g, %ld)",
              cases[i].off[0], cases[i].off[1], st.node_far, st.node_link_blocks, st.node_blocks,
              cases[i].far, cases[i].link_blocks, cases[i].blocks);
    }
    /* 16 nodes of one rank in rings of 4, each sending to the node 5 on:
     * one along its ring, one ring on; the last ones wrap round to the
     * first rings (12 -> 1: 3 rings back at place 1); two of those cross
     * the link from ring 2 to ring 1 at place 0 (11 -> 0, 15 -> 4) */
    int tmpl[1] = {5}, src[1] = {11}, node_of[16];
    nh_nbhd nb;
    nh_sched *s = NULL;
    for (int q = 0; q < 16; q++)
        node_of[q] = q;
    CHECK(nh_nbhd_init(&nb, &g, 0, 1, tmpl, 1, tmpl, 1, src) == 0 &&
              nh_build_direct(&nb, NH_OP_ALLTOALL, &s) == 0,
          "a direct schedule to +5");
    if (s) {
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){4, {0, 0, 0}, {0, 0, 0}, 0});
        CHECK(s->node_ph && s->node_ph[0].far == 3 && s->node_ph[0].link_blocks == 2 &&
                  s->node_ph[0].blocks == 1,
              "rings of 4: far %d, busiest link %g, blocks %ld (want 3, 2, 1)",
              s->node_ph ? s->node_ph[0].far : -1, s->node_ph ? s->node_ph[0].link_blocks : -1,
              s->node_ph ? s->node_ph[0].blocks : -1);
        /* rings of twice the nodes or more never go the way round: a
         * million-node ring counts as one of 32 */
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){32, {0, 0, 0}, {0, 0, 0}, 0});
        nh_node_phase r32 = s->node_ph ? s->node_ph[0] : (nh_node_phase){0, 0, -1, 0, 0};
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){1000000, {0, 0, 0}, {0, 0, 0}, 0});
        CHECK(s->node_ph && r32.far == 10 && s->node_ph[0].far == r32.far &&
                  s->node_ph[0].link_blocks == r32.link_blocks && r32.link_blocks == 5,
              "a ring of 32 or a million: far %d, busiest link %g (want 10, 5)",
              s->node_ph ? s->node_ph[0].far : -1, s->node_ph ? s->node_ph[0].link_blocks : -1);
        /* tiers of 4 and 8 nodes (routers of 4, chassis of 2 routers):
         * 0 -> 5 differs in the first (one hop beyond the first), 3 -> 8
         * in both (two).  Routers 0 -> 1 carry nodes 0, 1, 2's blocks
         * (green); router 0's link to chassis 1 carries node 3's, and
         * node 4, 5, 6's after their green hop from router 1 to 0 (4) */
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){0, {4, 8, 0}, {0, 0, 0}, 0});
        nh_node_phase t48 = s->node_ph ? s->node_ph[0] : (nh_node_phase){0, 0, -1, 0, 0};
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){0, {4, 8, 0}, {1, 2, 0}, 0});
        nh_node_phase t48w = s->node_ph ? s->node_ph[0] : (nh_node_phase){0, 0, -1, 0, 0};
        nh_sched_node_stats(s, &g, node_of, 16, &(nh_net){0, {4, 0, 0}, {0, 0, 0}, 0});
        CHECK(s->node_ph && t48.far == 2 && t48.link_blocks == 4 && t48.blocks == 1 &&
                  t48w.link_blocks == 3 && s->node_ph[0].far == 1 && s->node_ph[0].link_blocks == 3,
              "tiers of 4 and 8: far %d, busiest link %g, blocks %ld (want 2, 4, 1), 2 links "
              "between chassis %g (want 3); of 4: far %d, busiest %g (want 1, 3)",
              t48.far, t48.link_blocks, t48.blocks, t48w.link_blocks,
              s->node_ph ? s->node_ph[0].far : -1, s->node_ph ? s->node_ph[0].link_blocks : -1);
        /* tiers of 2, 4 and 8 nodes: groups 0 and 1 trade 5 blocks each
         * way through one bundle; beside it the busiest link joins
         * chassis (2: nodes 1 and 2 from router 1), then routers (1) */
        double want[3] = {5, 2, 1}, got[3];
        static const nh_net t248[3] = {
            {0, {2, 4, 8}, {0, 0, 0}, 0},
            {0, {2, 4, 8}, {1, 1, 5}, 0},
            {0, {2, 4, 8}, {1, 2, 5}, 0}};
        for (int k = 0; k < 3; k++) {
            nh_sched_node_stats(s, &g, node_of, 16, &t248[k]);
            got[k] = s->node_ph ? s->node_ph[0].link_blocks : -1;
        }
        CHECK(got[0] == want[0] && got[1] == want[1] && got[2] == want[2],
              "tiers of 2, 4, 8: busiest link %g, %g, %g (want 5, 2, 1)", got[0], got[1], got[2]);
        nh_sched_free(s);
    }
    nh_nbhd_fini(&nb);
    /* When the busiest link starts, and what one rank receives over it: a
     * ring of 8 nodes of one rank, each sending to -1, +2 and +3 in one
     * phase.  Every upward link carries 2 + 3 blocks from the +2 and +3
     * messages (the -1 ones go down), so it starts with the first of those
     * the schedule posts; node 2 receives two over the link 0 -> 1 (from
     * nodes 0 and 7), as do the others over theirs. */
    int dims8[1] = {8}, per8[1] = {1}, tmpl3[3] = {-1, 2, 3}, dst3[3] = {7, 2, 3},
        src3[3] = {1, 6, 5};
    nh_grid g8;
    s = NULL;
    CHECK(nh_grid_init(&g8, 1, dims8, per8) == 0 &&
              nh_nbhd_init(&nb, &g8, 0, 3, tmpl3, 3, dst3, 3, src3) == 0 &&
              nh_build_direct(&nb, NH_OP_ALLTOALL, &s) == 0,
          "a direct schedule to -1, +2, +3");
    if (s) {
        int first = -1, k = 0;
        for (int i = 0; i < s->nrounds && first < 0; i++)
            if (!s->rounds[i].copy && s->rounds[i].has_hop)
                first = s->rounds[i].hop[0] > 0 ? k : (k++, -1);
        nh_sched_node_stats(s, &g8, node_of, 8, &(nh_net){0, {0, 0, 0}, {0, 0, 0}, 0});
        nh_node_phase ph = s->node_ph ? s->node_ph[0] : (nh_node_phase){0, 0, -1, -1, -1};
        CHECK(ph.link_blocks == 5 && ph.link_after == first && ph.link_recv == 2,
              "-1, +2, +3 round a ring of 8: busiest link %g after %d messages, %d received "
              "over it (want 5, %d, 2)",
              ph.link_blocks, ph.link_after, ph.link_recv, first);
        nh_sched_free(s);
    }
    nh_nbhd_fini(&nb);
    /* nodes named by their lowest ranks become 0, 1, ... in that order,
     * whatever the ranks' order on them */
    int leaders[8] = {0, 0, 2, 2, 0, 5, 5, 2}, want[8] = {0, 0, 1, 1, 0, 2, 2, 1}, ord[8], same = 1;
    int nn = nh_node_number(leaders, 8, ord);
    for (int q = 0; q < 8; q++)
        same &= leaders[q] == want[q];
    CHECK(nn == 3 && same, "node numbering: %d nodes (want 3), ranks in order %d", nn, same);
}

/* --quick: 1-D and 2-D neighborhoods and a few random lists only, for
 * slow checkers (scripts/check-valgrind.sh). */
/* bruck's rounds and messages where they are known in closed form:
 * 3-D Moore on 8x8x8 (one port: ceil(log2(2r+1)) rounds per dimension,
 * one message each; two ports: ceil(log3(2r+1)), within the log-round
 * bound ceil(log2(s+1)) + 1), and a diagonal neighborhood, which is
 * one line (a linear embedding: ceil(log2 7) = 3 rounds on a torus, where
 * dimension by dimension takes 6; 2 + 2 on a mesh, whose paths must not
 * leave the line segment). */
static void test_bruck(void)
{
    /* rounds for ports 1..4; with 3 and 4 ports the shift phases of two
     * dimensions share a phase (r=2 and r=3 meet the bound only so) */
    static const int want[3][4] = {{6, 3, 3, 3}, {9, 6, 5, 3}, {9, 6, 5, 5}};
    int dims[3] = {8, 8, 8}, per[3] = {1, 1, 1};
    nh_grid g;
    nh_grid_init(&g, 3, dims, per);
    for (int r = 1; r <= 3; r++) {
        gen_box(&N, 3, r, keep_moore, 0, "moore");
        for (int k = 1; k <= NH_MAX_PORTS; k++) {
            /* ceil(log_{k+1}(s+1)) + 1 */
            int bound = 1;
            for (long v = 1; v < N.s + 1; v *= k + 1)
                bound++;
            /* one port, r=2: nine rounds (three binary digits per
             * dimension), one above the bound */
            int lim = k == 1 && r == 2 ? 9 : bound;
            for (int op = 0; op < NH_OP_COUNT; op++) {
                result res;
                int rc = run_case(&N, &g, 1, (nh_op)op, NH_ALGO_BRUCK, k, &res);
                int exact = k > 4 || res.rounds == want[r - 1][k - 1];
                CHECK(rc == 0 && exact && res.rounds <= lim && (k > 1 || res.msgs == res.rounds),
                      "bruck 3-D Moore r=%d %s ports=%d: %ld rounds, %ld messages (want %d; "
                      "bound %d)",
                      r, nh_op_name((nh_op)op), k, res.rounds, res.msgs,
                      k > 4 ? lim : want[r - 1][k - 1], bound);
            }
        }
    }
    N.d = 2;
    N.s = 6;
    snprintf(N.name, sizeof(N.name), "diagonal");
    for (int t = 0; t < 6; t++)
        N.off[2 * t] = N.off[2 * t + 1] = t < 3 ? t + 1 : 2 - t;
    for (int mesh = 0; mesh < 2; mesh++) {
        int d2[2] = {8, 8}, p2[2] = {!mesh, !mesh};
        nh_grid_init(&g, 2, d2, p2);
        result res;
        int rc = run_case(&N, &g, 1, NH_OP_ALLTOALL, NH_ALGO_BRUCK, 1, &res);
        CHECK(rc == 0 && res.rounds == (mesh ? 4 : 3),
              "bruck on a diagonal line, mesh=%d: %ld rounds (want %d)", mesh, res.rounds,
              mesh ? 4 : 3);
    }
}

/* nh_grid_edges against a count over every rank, on random grids with
 * and without periods and random templates (repeats, zero, offsets as
 * long as a dimension and longer): the general agreement rules a
 * candidate out where the count differs from the graph's edges. */
static void test_grid_edges(void)
{
    for (int iter = 0; iter < 200; iter++) {
        int d = 1 + (int)(rnd() % 4), dims[NH_MAXDIMS], per[NH_MAXDIMS], s = (int)(rnd() % 9);
        int tmpl[8 * NH_MAXDIMS], coords[NH_MAXDIMS];
        nh_grid g;
        for (int j = 0; j < d; j++) {
            dims[j] = 1 + (int)(rnd() % 5);
            per[j] = (int)(rnd() % 2);
        }
        nh_grid_init(&g, d, dims, per);
        for (int t = 0; t < s * d; t++)
            tmpl[t] = (int)(rnd() % 11) - 5;
        long long want = 0;
        for (int r = 0; r < g.size; r++) {
            nh_grid_coords(&g, r, coords);
            for (int t = 0; t < s; t++)
                want += nh_grid_shift(&g, coords, tmpl + t * d, +1) != NH_NONE;
        }
        long long got = nh_grid_edges(&g, s, tmpl);
        CHECK(got == want, "grid edges #%d (d=%d s=%d): %lld, counted %lld", iter, d, s, got,
              want);
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    test_canon();
    test_grid_edges();
    test_split_nbhd();
    test_summaries();
    test_node_stats();
    test_node_distance();
    test_bruck();
    test_catalog(quick ? 2 : 4);
    test_random(quick ? 4 : 40);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
