/* Unit tests without MPI for the store-and-forward builder (core/stfw.c):
 * VPT dimension sizes (powers of two as in the paper, other counts,
 * primes, a fixed first dimension), and delivery on random irregular
 * graphs with empty lists, self edges, duplicate edges and ranks without
 * neighbors, for every VPT dimension, both operations, with identity and
 * permuted rank placement: all ranks' schedules are simulated and every
 * block must land once in the slot MPI's definition gives it.  The
 * schedule built for one rank alone must equal that rank's schedule from
 * the all-ranks build (the library builds only its own). */
#include "../check.h"
#include "core/stfw.h"

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

typedef struct graph {
    int K;
    int *outdeg, *indeg;
    int **dst, **src;
} graph;

static void graph_free(graph *g)
{
    for (int r = 0; r < g->K; r++) {
        free(g->dst[r]);
        free(g->src[r]);
    }
    free(g->dst);
    free(g->src);
    free(g->outdeg);
    free(g->indeg);
}

/* A random consistent graph: ~avg edges per rank, some ranks isolated,
 * a few heavy ranks, self edges and duplicates; each rank's source list
 * shuffled (MPI matches duplicates by order, not by position). */
static void graph_random(graph *g, int K, int avg, int heavy)
{
    g->K = K;
    g->outdeg = calloc((size_t)K, sizeof(int));
    g->indeg = calloc((size_t)K, sizeof(int));
    g->dst = calloc((size_t)K, sizeof(int *));
    g->src = calloc((size_t)K, sizeof(int *));
    for (int s = 0; s < K; s++) {
        int deg = rnd() % 5 == 0 ? 0 : (int)(rnd() % (unsigned)(2 * avg + 1));
        if (s < heavy)
            deg = K + (int)(rnd() % (unsigned)K);
        g->dst[s] = malloc(((size_t)deg + 1) * sizeof(int));
        for (int j = 0; j < deg; j++) {
            unsigned x = rnd() % 16;
            int d = x == 0 ? s : x == 1 && j > 0 ? g->dst[s][j - 1] : (int)(rnd() % (unsigned)K);
            g->dst[s][j] = d;
            g->indeg[d]++;
        }
        g->outdeg[s] = deg;
    }
    int *fill = calloc((size_t)K, sizeof(int));
    for (int d = 0; d < K; d++)
        g->src[d] = malloc(((size_t)g->indeg[d] + 1) * sizeof(int));
    for (int s = 0; s < K; s++)
        for (int j = 0; j < g->outdeg[s]; j++) {
            int d = g->dst[s][j];
            g->src[d][fill[d]++] = s;
        }
    for (int d = 0; d < K; d++)
        for (int i = g->indeg[d] - 1; i > 0; i--) {
            int k = (int)(rnd() % (unsigned)(i + 1)), t = g->src[d][i];
            g->src[d][i] = g->src[d][k];
            g->src[d][k] = t;
        }
    free(fill);
}

static int same_sched(const nh_sched *a, const nh_sched *b)
{
    if (a->nrounds != b->nrounds || a->ntemp != b->ntemp || a->nphases != b->nphases)
        return 0;
    for (int i = 0; i < a->nrounds; i++) {
        const nh_round *x = &a->rounds[i], *y = &b->rounds[i];
        if (x->phase != y->phase || x->copy != y->copy || x->sendpeer != y->sendpeer ||
            x->recvpeer != y->recvpeer || x->nsend != y->nsend || x->nrecv != y->nrecv)
            return 0;
        for (int k = 0; k < x->nsend; k++)
            if (x->send[k].buf != y->send[k].buf || x->send[k].slot != y->send[k].slot)
                return 0;
        for (int k = 0; k < x->nrecv; k++)
            if (x->recv[k].buf != y->recv[k].buf || x->recv[k].slot != y->recv[k].slot)
                return 0;
    }
    return 1;
}

static void test_dims(void)
{
    nh_vpt v;
    CHECK(nh_vpt_max_dims(256) == 8 && nh_vpt_max_dims(12) == 3 && nh_vpt_max_dims(7) == 1 &&
              nh_vpt_max_dims(1) == 0,
          "max dims");
    CHECK(nh_vpt_init(&v, 256, 4, 0) == 0 && v.dims[0] == 4 && v.dims[1] == 4 && v.dims[2] == 4 &&
              v.dims[3] == 4,
          "256 in 4 dims");
    /* Paper: the first (lg K mod n) dimensions get 2^(floor+1). */
    CHECK(nh_vpt_init(&v, 512, 2, 0) == 0 && v.dims[0] == 32 && v.dims[1] == 16, "512 in 2 dims");
    CHECK(nh_vpt_init(&v, 128, 3, 0) == 0 && v.dims[0] == 8 && v.dims[1] == 4 && v.dims[2] == 4,
          "128 in 3 dims");
    CHECK(nh_vpt_init(&v, 12, 2, 0) == 0 && v.dims[0] == 4 && v.dims[1] == 3, "12 in 2 dims");
    CHECK(nh_vpt_init(&v, 7, 2, 0) == -1 && nh_vpt_init(&v, 7, 1, 0) == 0 && v.dims[0] == 7,
          "prime: only one dimension");
    CHECK(nh_vpt_init(&v, 24, 2, 3) == 0 && v.dims[0] == 3 && v.dims[1] == 8, "first fixed");
    CHECK(nh_vpt_init(&v, 24, 2, 5) == -1, "first must divide K");
    CHECK(nh_vpt_init(&v, 16, 5, 0) == -1, "too many dims");
}

/* All dimensions, both ops, identity and a random placement. */
static void test_delivery(int K, int avg, int heavy)
{
    graph g;
    graph_random(&g, K, avg, heavy);
    nh_stfw_graph sg = {K, g.outdeg, g.indeg, g.dst, g.src};
    int nmax = nh_vpt_max_dims(K);
    if (nmax < 1)
        nmax = 1;
    for (int n = 1; n <= nmax; n++)
        for (int perm = 0; perm < 2; perm++)
            for (int op = 0; op < NH_OP_COUNT; op++) {
                nh_vpt v;
                if (nh_vpt_init(&v, K, n, 0)) {
                    CHECK(0, "K=%d n=%d: no VPT", K, n);
                    continue;
                }
                if (perm) {
                    int *order = malloc((size_t)K * sizeof(int));
                    for (int i = 0; i < K; i++)
                        order[i] = i;
                    for (int i = K - 1; i > 0; i--) {
                        int k = (int)(rnd() % (unsigned)(i + 1)), t = order[i];
                        order[i] = order[k];
                        order[k] = t;
                    }
                    CHECK(nh_vpt_set_order(&v, order) == 0, "set order");
                    free(order);
                }
                nh_sched **s = calloc((size_t)K, sizeof(*s));
                int rc = nh_stfw_build(&sg, &v, (nh_op)op, -1, s);
                CHECK(rc == NH_STFW_OK, "K=%d n=%d %s: build %d", K, n, nh_op_name((nh_op)op), rc);
                if (rc == NH_STFW_OK) {
                    char why[256];
                    nh_stfw_metrics m;
                    int ok = nh_stfw_simulate(&sg, (nh_op)op, s, NULL, &m, why, sizeof(why));
                    CHECK(ok == 1, "K=%d n=%d perm=%d %s: %s", K, n, perm, nh_op_name((nh_op)op),
                          why);
                    /* Bound: sum over dimensions of k_c - 1. */
                    long bound = 0;
                    for (int c = 0; c < n; c++)
                        bound += v.dims[c] - 1;
                    CHECK(m.mmax <= bound, "K=%d n=%d: %ld messages > bound %ld", K, n, m.mmax,
                          bound);
                    int me = (int)(rnd() % (unsigned)K);
                    nh_sched *one = NULL;
                    CHECK(nh_stfw_build(&sg, &v, (nh_op)op, me, &one) == NH_STFW_OK &&
                              same_sched(one, s[me]),
                          "K=%d n=%d: rank %d alone differs", K, n, me);
                    nh_sched_free(one);
                    for (int r = 0; r < K; r++)
                        nh_sched_free(s[r]);
                }
                free(s);
                nh_vpt_fini(&v);
            }
    graph_free(&g);
}

/* A random node among nn with places left (left[] counts them down). */
static int pick_node(int nn, int *left)
{
    int nd;
    do
        nd = (int)(rnd() % (unsigned)nn);
    while (!left[nd]);
    left[nd]--;
    return nd;
}

/* Every rank's schedule of op over v, checked by the simulator (what
 * names the case); 1 with s[0..K-1] to free, 0 when a check failed. */
static int build_checked(const nh_stfw_graph *sg, const nh_vpt *v, nh_op op, nh_sched **s,
                         const char *what)
{
    char why[256];
    int built = nh_stfw_build(sg, v, op, -1, s) == NH_STFW_OK;
    CHECK(built, "%s %s: build", what, nh_op_name(op));
    if (!built)
        return 0;
    int ok = nh_stfw_simulate(sg, op, s, NULL, NULL, why, sizeof(why)) == 1;
    CHECK(ok, "%s %s: %s", what, nh_op_name(op), why);
    return 1;
}

/* Node-aware placement: nodes of unequal sizes, ranks scattered over them;
 * every first-dimension group must lie in one node, and delivery holds. */
static void test_grouped(void)
{
    int K = 24, sizes[3] = {8, 4, 12}, loc[48], left[3];
    memcpy(left, sizes, sizeof(left));
    for (int r = 0; r < K; r++) {
        loc[2 * r] = pick_node(3, left) * 100; /* node ids need not be dense */
        loc[2 * r + 1] = (int)(rnd() % 2);
    }
    for (int n = 2; n <= 3; n++) {
        nh_vpt v;
        int got = nh_vpt_grouped(&v, K, n, loc);
        CHECK(got == 1, "grouped n=%d: not applied", n);
        if (got != 1)
            continue;
        CHECK(sizes[1] % v.dims[0] == 0, "grouped n=%d: k_1=%d does not divide 4", n, v.dims[0]);
        int same = 1;
        for (int x = 0; x < K; x++)
            same &= loc[2 * v.rank[x]] == loc[2 * v.rank[x - x % v.dims[0]]];
        CHECK(same, "grouped n=%d: a first-dimension group spans nodes", n);
        graph g;
        graph_random(&g, K, 6, 2);
        nh_stfw_graph sg = {K, g.outdeg, g.indeg, g.dst, g.src};
        for (int op = 0; op < NH_OP_COUNT; op++) {
            nh_sched *s[24];
            char what[32];
            snprintf(what, sizeof(what), "grouped n=%d", n);
            if (build_checked(&sg, &v, (nh_op)op, s, what))
                for (int r = 0; r < K; r++)
                    nh_sched_free(s[r]);
        }
        graph_free(&g);
        nh_vpt_fini(&v);
    }
    /* Coprime node sizes (3 and 5), a single node, one rank per node. */
    int l2[16], l1[16], l3[16];
    for (int r = 0; r < 8; r++) {
        l2[2 * r] = r < 3;
        l1[2 * r] = 0;
        l3[2 * r] = r;
        l2[2 * r + 1] = l1[2 * r + 1] = l3[2 * r + 1] = 0;
    }
    nh_vpt v;
    CHECK(nh_vpt_grouped(&v, 8, 3, l2) == 0, "coprime node sizes: plain VPT");
    CHECK(nh_vpt_grouped(&v, 8, 3, l1) == 0, "one node: plain VPT");
    CHECK(nh_vpt_grouped(&v, 8, 3, l3) == 0, "one rank per node: plain VPT");
}

/* Node aggregation: nodes of unequal sizes with ranks scattered over them,
 * every graph shape and op: delivery holds; stage 2 sends at most one
 * message per pair of nodes (node-pair traffic is combined); stages 1
 * and 3 stay on their node. */
static void test_agg(void)
{
    const int sizes[][4] = {{8, 4, 12, 0}, {2, 2, 0, 0}, {3, 5, 1, 7}, {4, 4, 4, 4}};
    for (int t = 0; t < 4; t++) {
        int K = 0, nn = 0, left[4], loc[64];
        for (; nn < 4 && sizes[t][nn]; nn++)
            K += left[nn] = sizes[t][nn];
        for (int r = 0; r < K; r++) {
            loc[2 * r] = 7 * pick_node(nn, left) + 3; /* sparse node ids */
            loc[2 * r + 1] = 0;
        }
        nh_vpt v;
        int got = nh_vpt_agg(&v, K, loc);
        CHECK(got == 1 && v.n == 3 && v.agg && v.nnodes == nn, "agg %d: not applied", t);
        if (got != 1)
            continue;
        for (int heavy = 0; heavy < 2; heavy++) {
            graph g;
            graph_random(&g, K, 5, heavy * 2);
            nh_stfw_graph sg = {K, g.outdeg, g.indeg, g.dst, g.src};
            for (int op = 0; op < NH_OP_COUNT; op++) {
                nh_sched *s[32];
                char what[32];
                snprintf(what, sizeof(what), "agg %d", t);
                if (!build_checked(&sg, &v, (nh_op)op, s, what))
                    continue;
                /* messages per (source node, destination node) in stage 2;
                 * stages 1 and 3 within the node */
                int pair[4][4] = {{0}}, onnode = 1;
                for (int r = 0; r < K; r++) {
                    for (int k = 0; k < s[r]->nrounds; k++) {
                        const nh_round *rd = &s[r]->rounds[k];
                        if (rd->copy || rd->sendpeer == NH_NONE)
                            continue;
                        int a = v.nodeof[r], b = v.nodeof[rd->sendpeer];
                        if (rd->phase == 2)
                            pair[a][b]++;
                        else
                            onnode &= a == b;
                    }
                }
                int most = 0;
                for (int a = 0; a < nn; a++)
                    for (int b = 0; b < nn; b++)
                        most = pair[a][b] > most ? pair[a][b] : most;
                CHECK(most <= 1, "agg %d %s: %d messages between one pair of nodes", t,
                      nh_op_name((nh_op)op), most);
                CHECK(onnode, "agg %d %s: stage 1 or 3 leaves the node", t, nh_op_name((nh_op)op));
                int me = (int)(rnd() % (unsigned)K);
                nh_sched *one = NULL;
                CHECK(nh_stfw_build(&sg, &v, (nh_op)op, me, &one) == NH_STFW_OK &&
                          same_sched(one, s[me]),
                      "agg %d: rank %d alone differs", t, me);
                nh_sched_free(one);
                for (int r = 0; r < K; r++)
                    nh_sched_free(s[r]);
            }
            graph_free(&g);
        }
        nh_vpt_fini(&v);
    }
    int l1[16], l3[16];
    for (int r = 0; r < 8; r++) {
        l1[2 * r] = 0;
        l3[2 * r] = r;
        l1[2 * r + 1] = l3[2 * r + 1] = 0;
    }
    nh_vpt v;
    CHECK(nh_vpt_agg(&v, 8, l1) == 0, "agg: one node does not apply");
    CHECK(nh_vpt_agg(&v, 8, l3) == 0, "agg: one rank per node does not apply");
}

static void test_inconsistent(void)
{
    graph g;
    graph_random(&g, 8, 3, 0);
    /* Drop one source entry somewhere. */
    for (int d = 0; d < 8; d++)
        if (g.indeg[d] > 0) {
            g.indeg[d]--;
            break;
        }
    nh_stfw_graph sg = {8, g.outdeg, g.indeg, g.dst, g.src};
    nh_vpt v;
    nh_vpt_init(&v, 8, 3, 0);
    nh_sched *s[8];
    CHECK(nh_stfw_build(&sg, &v, NH_OP_ALLTOALL, -1, s) == NH_STFW_INCONSISTENT,
          "inconsistent lists rejected");
    graph_free(&g);
}

/* The store-and-forward model (core/vpt.c): node traffic where ppn ranks
 * share a node, stage by stage as the VPT places them; the dimension
 * chosen at NH_STFW_DIMS_BYTES. */
static int near(double a, double b)
{
    return a > b - 1e-9 * (1 + b) && a < b + 1e-9 * (1 + b);
}

static void test_model(void)
{
    nh_cost c = {0};
    nh_vpt v;
    c.o = c.o_recv = 0.1;
    c.alpha = 1;
    c.node = 0.5;
    c.link = 0.001;
    /* one message per neighbor: 16 of 64 ranks per node, uniform peers */
    nh_stfw_shape g = {10, 10, 10, 64, 16}, alone = g;
    double off = 1 - 15.0 / 63;
    /* (the receives come as the link drains: only the last one's follows
     * it; the link drains from the first posting, its last byte arrives a
     * latency, o + alpha + node, later) */
    CHECK(near(nh_stfw_model_bl(&c, &g, 1000), 0.001 * 16 * off * 10 * 1000 + 1.6 + 0.1),
          "BL: the node's link bounds the phase: %g", nh_stfw_model_bl(&c, &g, 1000));
    alone.ppn = 0;
    CHECK(near(nh_stfw_model_bl(&c, &alone, 1000), nh_cost_exchange(&c, 1, 10, 10, 10 * 1000)),
          "BL without node knowledge: one plain phase");
    /* 4x4x4: stages 1 and 2 stay on the node (16 consecutive positions),
     * stage 3 leaves it, carrying 3/4 of the blocks */
    nh_cost l = {0};
    l.link = 0.001;
    CHECK(nh_vpt_init(&v, 64, 3, 0) == 0 && v.dims[0] == 4 && v.dims[2] == 4, "4x4x4");
    CHECK(near(nh_stfw_model(&l, &v, &g, 100), 0.001 * 16 * 10 * 0.75 * 100),
          "VPT: only the last stage uses the link: %g", nh_stfw_model(&l, &v, &g, 100));
    nh_vpt_fini(&v);
    /* 8x8: stage 1 stays within a 16-rank node; stage 2's line (stride
     * 8) has 2 of its 8 ranks on the node, so 6 of the 7 peers are off it */
    CHECK(nh_vpt_init(&v, 64, 2, 0) == 0, "8x8");
    CHECK(near(nh_stfw_model(&l, &v, &g, 100), 0.001 * 16 * 10 * (7.0 / 8) * (6.0 / 7) * 100),
          "8x8: the stride-8 stage leaves the node: %g", nh_stfw_model(&l, &v, &g, 100));
    nh_vpt_fini(&v);
    CHECK(nh_vpt_init(&v, 64, 2, 0) == 0, "8x8 again");
    l.stage = 2;
    l.fwd = 0.01;
    double hops = nh_stfw_est_hops(&v), vol = 10 * hops > 10 ? 10 * hops : 10;
    CHECK(near(nh_stfw_model(&l, &v, &alone, 100), 2 * 2 + 0.01 * 100 * vol),
          "without node knowledge: stages and forwarding only: %g",
          nh_stfw_model(&l, &v, &alone, 100));
    nh_vpt_fini(&v);
    /* node aggregation: only its middle stage leaves the nodes */
    int loc[2 * 64];
    for (int r = 0; r < 64; r++) {
        loc[2 * r] = r / 16;
        loc[2 * r + 1] = -1;
    }
    nh_cost a = {0};
    a.link = 0.001;
    CHECK(nh_vpt_agg(&v, 64, loc) == 1 && v.agg, "agg over 4 nodes of 16");
    CHECK(near(nh_stfw_model(&a, &v, &g, 100), 0.001 * 16 * 10 * (3.0 / 4) * 100),
          "agg: the exchange between nodes alone uses the link: %g",
          nh_stfw_model(&a, &v, &g, 100));
    nh_vpt_fini(&v);
    /* the dimension: the model's best at NH_STFW_DIMS_BYTES; the gain at
     * NH_STFW_MODEL_BYTES */
    nh_cost d = nh_cost_defaults;
    nh_stfw_shape big = {509, 511, 40, 512, 16};
    int gain, arm, n = nh_stfw_choose_dims(&d, &big, 0, &gain, &arm), best = 0;
    double tb = 0;
    for (int k = 2; k <= nh_vpt_max_dims(512); k++) {
        CHECK(nh_vpt_init(&v, 512, k, 0) == 0, "512 in %d dimensions", k);
        double t = nh_stfw_model(&d, &v, &big, NH_STFW_DIMS_BYTES);
        if (!best || t < tb) {
            best = k;
            tb = t;
        }
        if (k == n)
            CHECK(gain == (nh_stfw_model(&d, &v, &big, NH_STFW_MODEL_BYTES) <
                           nh_stfw_model_bl(&d, &big, NH_STFW_MODEL_BYTES)),
                  "gain at the model's block");
        nh_vpt_fini(&v);
    }
    CHECK(n == best && n > 2 && gain && arm, "512 ranks: %d dimensions (model's best %d)", n, best);
    CHECK(nh_stfw_choose_dims(&d, &big, 3, &gain, &arm) == 3, "a dimension asked for is kept");
}

/* The direct exchange over each rank's own lists (nh_build_direct_lists),
 * every rank's schedule simulated: MPI's definition of repeated edges and
 * self edges kept, one message per distinct destination other than self. */
static void test_direct_lists(int K, int avg, int heavy)
{
    graph g;
    graph_random(&g, K, avg, heavy);
    nh_stfw_graph sg = {K, g.outdeg, g.indeg, g.dst, g.src};
    for (int op = 0; op < NH_OP_COUNT; op++) {
        nh_sched **s = calloc((size_t)K, sizeof(*s));
        int built = 1;
        for (int r = 0; r < K; r++)
            built &= nh_build_direct_lists(r, g.indeg[r], g.src[r], g.outdeg[r], g.dst[r],
                                           (nh_op)op, &s[r]) == 0;
        CHECK(built, "direct lists K=%d %s: build", K, nh_op_name((nh_op)op));
        if (built) {
            char why[256];
            nh_stfw_metrics m;
            int ok = nh_stfw_simulate(&sg, (nh_op)op, s, NULL, &m, why, sizeof(why));
            CHECK(ok == 1, "direct lists K=%d %s: %s", K, nh_op_name((nh_op)op), why);
            for (int r = 0; r < K; r++) {
                int distinct = 0;
                for (int j = 0; j < g.outdeg[r]; j++) {
                    int first = g.dst[r][j] != r;
                    for (int k = 0; k < j && first; k++)
                        first = g.dst[r][k] != g.dst[r][j];
                    distinct += first;
                }
                CHECK(nh_stfw_sched_msgs(s[r]) == distinct,
                      "direct lists K=%d rank %d: %ld messages for %d destinations", K, r,
                      nh_stfw_sched_msgs(s[r]), distinct);
            }
        }
        for (int r = 0; r < K; r++)
            nh_sched_free(s[r]);
        free(s);
    }
    graph_free(&g);
}

int main(void)
{
    snprintf(check_prefix, sizeof(check_prefix), "test_stfw ");
    test_dims();
    for (int K = 1; K <= 16; K++)
        test_delivery(K, 3, K > 4);
    test_delivery(24, 5, 2);
    test_delivery(64, 8, 3);
    test_delivery(128, 4, 1);
    test_delivery(210, 6, 2);
    for (int K = 1; K <= 16; K++)
        test_direct_lists(K, 3, K > 4);
    test_direct_lists(64, 8, 3);
    test_grouped();
    test_agg();
    test_inconsistent();
    test_model();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
