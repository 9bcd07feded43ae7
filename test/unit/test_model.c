/* The cost model's parameter table (src/core/model.h): one row per
 * parameter, terms first in NH_TERM_* order, each key its field's name,
 * each variable NHOOD_COST_ and the key in upper case, the defaults the
 * rows'; the parameter vector, a phase's price (each branch of its max, and
 * the branch's terms pricing it exactly) and the oversubscription excess. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "core/model.h"
#include "core/sched.h"

typedef struct got {
    int n;
    double ph[8][NH_NTERMS];
} got;

static void take(void *ctx, const double n[NH_NTERMS])
{
    got *g = ctx;
    if (g->n < 8)
        memcpy(g->ph[g->n], n, sizeof(g->ph[0]));
    g->n++;
}

/* Through the gateways a link drains from the last message that puts
 * blocks between the groups on it: posting +1 (two blocks between the
 * groups) before +5 (ten), the busiest link, which carries +5's, starts
 * after one message; spread over every router (no gateway), from the
 * first message on it, at once. */
static void check_gateway_last(const nh_grid *g, const int *node_of, const nh_net *spread,
                               const nh_net *gate)
{
    int tmpl[2] = {1, 5}, src[2] = {15, 11}, after[2] = {-1, -1};
    nh_nbhd nb;
    nh_sched *s = NULL;
    int ok = nh_nbhd_init(&nb, g, 0, 2, tmpl, 2, tmpl, 2, src) == 0;
    if (ok && nh_build_direct(&nb, NH_OP_ALLTOALL, &s) == 0)
        for (int k = 0; k < 2; k++) {
            nh_sched_node_stats(s, g, node_of, 16, k ? gate : spread);
            after[k] = s->node_ph ? s->node_ph[0].link_after : -1;
        }
    nh_sched_free(s);
    if (ok)
        nh_nbhd_fini(&nb);
    CHECK(after[0] == 0 && after[1] == 1,
          "+1 then +5: the busiest link starts after %d messages spread, %d through the "
          "gateways (want 0, 1)",
          after[0], after[1]);
}

/* SimGrid's dragonfly joins two groups by one router pair (tier3_gateway):
 * 16 nodes of one rank, a router each, chassis of 4 routers, groups of 2
 * chassis; every node sends a block to the node 5 on.  Spread over every
 * router (0) the busiest link carries one block (5 between the groups,
 * each way, on a bundle of 5); through the gateways, nodes 4 to 7 reach
 * router 1 (group 0's for group 1) by the black link from router 5, and
 * nodes 12 to 15 router 8 from 12: four blocks.  Hops: 4 -> 9 is green,
 * black, blue, green (5 with the node's own), one fewer spread; the
 * farthest, 15 -> 4, adds a black link at the end (6; spread 4). */
static void check_gateway(void)
{
    int dims[1] = {16}, per[1] = {1}, tmpl[1] = {5}, src[1] = {11}, node_of[16];
    nh_grid g;
    nh_nbhd nb;
    nh_sched *s = NULL;
    for (int q = 0; q < 16; q++)
        node_of[q] = q;
    nh_net spread = {0, {1, 4, 8}, {1, 1, 5}, 0}, gate = spread;
    gate.gateway = 1;
    CHECK(nh_tier_hops(&spread, 4, 9) == 4 && nh_tier_hops(&gate, 4, 9) == 5 &&
              nh_tier_hops(&gate, 1, 8) == 2 && nh_tier_hops(&gate, 4, 6) == 2 &&
              nh_tier_hops(&spread, 4, 6) == 2,
          "hops spread 4->9 %d (want 4); gateway 4->9 %d, 1->8 %d, 4->6 %d (want 5, 2, 2)",
          nh_tier_hops(&spread, 4, 9), nh_tier_hops(&gate, 4, 9), nh_tier_hops(&gate, 1, 8),
          nh_tier_hops(&gate, 4, 6));
    CHECK(nh_grid_init(&g, 1, dims, per) == 0 &&
              nh_nbhd_init(&nb, &g, 0, 1, tmpl, 1, tmpl, 1, src) == 0 &&
              nh_build_direct(&nb, NH_OP_ALLTOALL, &s) == 0,
          "a direct schedule to +5");
    if (!s)
        return;
    nh_sched_node_stats(s, &g, node_of, 16, &spread);
    double wide = s->node_ph ? s->node_ph[0].link_blocks : -1;
    int far = s->node_ph ? s->node_ph[0].far : -1;
    nh_sched_node_stats(s, &g, node_of, 16, &gate);
    double one = s->node_ph ? s->node_ph[0].link_blocks : -1;
    CHECK(wide == 1 && one == 4 && far == 3 && s->node_ph && s->node_ph[0].far == 5,
          "busiest link spread %g, through the gateways %g (want 1, 4); far %d, %d (want 3, 5)",
          wide, one, far, s->node_ph ? s->node_ph[0].far : -1);
    nh_sched_free(s);
    nh_nbhd_fini(&nb);
    check_gateway_last(&g, node_of, &spread, &gate);
}

/* Rank 0's schedules of the 3-D Moore neighborhood (r = 1) on an 8x8x8
 * torus, one per algorithm (NULL where none is built). */
static void moore_scheds(nh_sched *s[NH_ALGO_COUNT])
{
    int dims[3] = {8, 8, 8}, per[3] = {1, 1, 1}, tmpl[26 * 3], dst[26], src[26], c0[3] = {0};
    int k = 0;
    nh_grid g;
    nh_nbhd nb;
    nh_grid_init(&g, 3, dims, per);
    for (int x = -1; x <= 1; x++)
        for (int y = -1; y <= 1; y++)
            for (int z = -1; z <= 1; z++)
                if (x || y || z) {
                    tmpl[3 * k] = x, tmpl[3 * k + 1] = y, tmpl[3 * k + 2] = z;
                    dst[k] = nh_grid_shift(&g, c0, tmpl + 3 * k, +1);
                    src[k] = nh_grid_shift(&g, c0, tmpl + 3 * k, -1);
                    k++;
                }
    for (int a = 0; a < NH_ALGO_COUNT; a++)
        s[a] = NULL;
    if (nh_nbhd_init(&nb, &g, 0, 26, tmpl, 26, dst, 26, src) != 0)
        return;
    for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++)
        if (nh_algos[a].build && nh_algos[a].build(&nb, NH_OP_ALLTOALL, &s[a]) != 0)
            s[a] = NULL;
    nh_nbhd_fini(&nb);
}

/* nh_sched_alike (the learning times one of alike schedules), on an
 * 8x8x8 torus: torus and torus_direct send the same blocks along the same
 * hops but post each dimension's two messages in the other order (the
 * cost model prices them apart), direct's one phase of 26 messages is
 * neither, nor bruck's six phases (one port); a schedule is alike itself.
 * Two schedules of one copy round of two blocks each, one copying both
 * from the send buffer, the other the second from the first's place in
 * the receive buffer: the same counts, not alike where the blocks are
 * compared (a torus, where every rank lists an interior rank's), and a
 * copy round is never alike where they may not be (a mesh). */
static void check_alike(void)
{
    nh_sched *s[NH_ALGO_COUNT];
    moore_scheds(s);
    CHECK(s[NH_ALGO_DIRECT] && s[NH_ALGO_TORUS] && s[NH_ALGO_TORUS_DIRECT] && s[NH_ALGO_BRUCK] &&
              !nh_sched_alike(s[NH_ALGO_TORUS], s[NH_ALGO_TORUS_DIRECT], 1) &&
              !nh_sched_alike(s[NH_ALGO_DIRECT], s[NH_ALGO_TORUS], 1) &&
              !nh_sched_alike(s[NH_ALGO_TORUS], s[NH_ALGO_BRUCK], 1),
          "8x8x8: direct, torus, torus_direct and bruck not alike");
    for (int a = 0; a < NH_ALGO_COUNT; a++)
        CHECK(!s[a] || nh_sched_alike(s[a], s[a], 1), "%s alike itself", nh_algos[a].name);
    for (int a = 0; a < NH_ALGO_COUNT; a++)
        nh_sched_free(s[a]);
    nh_sched *c[3];
    for (int k = 0; k < 3; k++) {
        nh_blk own = {NH_BUF_SEND, 0, -1}, got = {NH_BUF_RECV, 0, -1};
        c[k] = nh_sched_new(NH_ALGO_TORUS, NH_OP_ALLGATHER);
        int cr = c[k] ? nh_sched_add_round(c[k], 0, NH_NONE, NH_NONE, 1) : -1;
        if (cr >= 0) {
            nh_sched_add_copy(c[k], cr, 0, own, 0);
            nh_sched_add_copy(c[k], cr, 1, k == 2 ? got : own, 1);
        }
        if (cr < 0 || nh_sched_finish(c[k]) != 0) {
            nh_sched_free(c[k]);
            c[k] = NULL;
        }
    }
    CHECK(c[0] && c[1] && c[2] && c[0]->tmpl_copies == 2 && c[2]->tmpl_copies == 2 &&
              nh_sched_alike(c[0], c[1], 1) && !nh_sched_alike(c[0], c[2], 1) &&
              !nh_sched_alike(c[0], c[1], 0),
          "copies: alike with the same blocks on a torus only");
    for (int k = 0; k < 3; k++)
        nh_sched_free(c[k]);
}

int main(void)
{
    nh_cost d = NH_COST_DEFAULTS, probe;
    CHECK(nh_cost_nparams > NH_NTERMS, "terms and other parameters: %d rows", nh_cost_nparams);
    for (int i = 0; i < nh_cost_nparams; i++) {
        const nh_cost_param *p = &nh_cost_params[i];
        char env[64] = "NHOOD_COST_";
        for (size_t k = 0; p->key[k] && k + 12 < sizeof(env); k++)
            env[11 + k] = (char)toupper((unsigned char)p->key[k]);
        CHECK(strcmp(env, p->env) == 0, "%s: variable %s", p->key, p->env);
        CHECK(p->term == (i < NH_NTERMS ? i : -1), "%s: term %d at row %d", p->key, p->term, i);
        CHECK(*nh_cost_at(&d, p) == p->def &&
                  *nh_cost_at((nh_cost *)&nh_cost_defaults, p) == p->def,
              "%s: default %g", p->key, p->def);
        CHECK(p->offset % sizeof(double) == 0 && p->offset < sizeof(nh_cost), "%s: offset", p->key);
        CHECK(p->help && p->help[0], "%s: a description", p->key);
        CHECK(p->group >= -1 && p->group <= 4, "%s: fit group %d", p->key, p->group);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(nh_cost_params[j].key, p->key) != 0 &&
                      nh_cost_params[j].offset != p->offset,
                  "%s: unique", p->key);
    }
    CHECK(sizeof(nh_cost) == (size_t)nh_cost_nparams * sizeof(double), "every field has a row");
    /* the parameter vector puts term i's parameter at i alone */
    for (int i = 0; i < NH_NTERMS; i++) {
        double v[NH_NTERMS];
        memset(&probe, 0, sizeof(probe));
        *nh_cost_at(&probe, &nh_cost_params[i]) = 3;
        nh_cost_vec(&probe, v);
        int alone = 1;
        for (int j = 0; j < NH_NTERMS; j++)
            alone &= v[j] == (j == i ? 3 : 0);
        CHECK(alone, "vector: term %s", nh_cost_params[i].key);
    }
    /* an exchange of k equal phases costs k times one */
    CHECK(nh_cost_exchange(&d, 3, 30, 30, 3000) >
                  3 * nh_cost_exchange(&d, 1, 10, 10, 1000) - 1e-9 &&
              nh_cost_exchange(&d, 3, 30, 30, 3000) <
                  3 * nh_cost_exchange(&d, 1, 10, 10, 1000) + 1e-9,
          "k phases: k times one");
    /* A phase under the flat platform's numbers (docs/simulation.md):
     * o = o_recv = 0.15, alpha = 0.74: k messages of 8 B cost
     * max(0.15 k, 0.89) + 0.15 k: 1.19, 1.49, 2.4, 4.8, 9.6 us for
     * k = 2 ... 32 (the simulated exchange's 1.19, 1.49, 2.41, 4.81, 9.61). */
    double par[NH_NTERMS] = {0}, n[NH_NTERMS] = {0}, lin[NH_NTERMS];
    par[NH_TERM_ALPHA] = 0.74;
    par[NH_TERM_O] = par[NH_TERM_O_RECV] = 0.15;
    const double want[5] = {1.19, 1.49, 2.40, 4.80, 9.60};
    for (int k = 2, i = 0; k <= 32; k *= 2, i++) {
        n[NH_TERM_ALPHA] = 1;
        n[NH_TERM_O] = n[NH_TERM_O_RECV] = k;
        memset(lin, 0, sizeof(lin));
        double t = nh_cost_phase(par, n, lin), x = 0;
        for (int j = 0; j < NH_NTERMS; j++)
            x += lin[j] * par[j];
        CHECK(t > want[i] - 1e-9 && t < want[i] + 1e-9, "phase of %d messages: %g us", k, t);
        CHECK(x > t - 1e-12 && x < t + 1e-12, "k=%d: the branch's terms price it (%g)", k, x);
        CHECK(lin[NH_TERM_ALPHA] == (k <= 4) && lin[NH_TERM_O] == (k <= 4 ? 1 : k) &&
                  lin[NH_TERM_O_RECV] == k,
              "k=%d: %s bound", k, k <= 4 ? "latency" : "posting");
    }
    /* bytes post, the link limits, node adds latency, copies and cores after */
    memset(n, 0, sizeof(n));
    n[NH_TERM_ALPHA] = n[NH_TERM_O] = n[NH_TERM_O_RECV] = 1;
    n[NH_TERM_BETA] = 1e4;
    par[NH_TERM_BETA] = 1e-4;
    CHECK(nh_cost_phase(par, n, NULL) == 0.15 + 1 + 0.15, "posting 10 KB: %g",
          nh_cost_phase(par, n, NULL));
    n[NH_TERM_LINK] = 1e5;
    par[NH_TERM_LINK] = 1e-4;
    memset(lin, 0, sizeof(lin));
    /* it drains from the first posting; the last byte arrives a latency on */
    double tl = nh_cost_phase(par, n, lin);
    CHECK(tl > 10 + 0.89 + 0.15 - 1e-9 && tl < 10 + 0.89 + 0.15 + 1e-9 &&
              lin[NH_TERM_LINK] == 1e5 && lin[NH_TERM_BETA] == 0 && lin[NH_TERM_O] == 1 &&
              lin[NH_TERM_ALPHA] == 1,
          "the node's link bounds: %g", tl);
    /* behind the link, 8 messages are handled as they come: the last one's
     * overhead follows it, the others hide */
    n[NH_TERM_O] = n[NH_TERM_O_RECV] = 8;
    memset(lin, 0, sizeof(lin));
    tl = nh_cost_phase(par, n, lin);
    CHECK(tl > 10 + 0.89 + 0.15 - 1e-9 && tl < 10 + 0.89 + 0.15 + 1e-9 && lin[NH_TERM_O_RECV] == 1,
          "one receive after the link: %g", tl);
    n[NH_TERM_LINK] = 1e3; /* posting bounds again: every receive after it */
    memset(lin, 0, sizeof(lin));
    double t8 = nh_cost_phase(par, n, lin);
    CHECK(t8 > 8 * 0.15 + 1 + 8 * 0.15 - 1e-9 && t8 < 8 * 0.15 + 1 + 8 * 0.15 + 1e-9 &&
              lin[NH_TERM_O_RECV] == 8,
          "all receives after posting: %g", t8);
    /* distance: the farthest message's hops add latency, far bytes load the link */
    memset(n, 0, sizeof(n));
    n[NH_TERM_ALPHA] = n[NH_TERM_O] = n[NH_TERM_O_RECV] = 1;
    n[NH_TERM_HOP] = 3;
    par[NH_TERM_HOP] = 0.1;
    memset(lin, 0, sizeof(lin));
    double th = nh_cost_phase(par, n, lin);
    CHECK(th > 0.15 + 0.74 + 0.3 + 0.15 - 1e-9 && th < 0.15 + 0.74 + 0.3 + 0.15 + 1e-9 &&
              lin[NH_TERM_HOP] == 3,
          "three hops beyond the first: %g", th);
    n[NH_TERM_LINK] = 1e4;
    n[NH_TERM_HOP_LINK] = 2e4;
    par[NH_TERM_HOP_LINK] = 1e-4;
    memset(lin, 0, sizeof(lin));
    tl = nh_cost_phase(par, n, lin);
    CHECK(tl > 2 + 0.89 + 0.3 + 0.15 - 1e-9 && tl < 2 + 0.89 + 0.3 + 0.15 + 1e-9 &&
              lin[NH_TERM_HOP_LINK] == 2e4 && lin[NH_TERM_LINK] == 0 && lin[NH_TERM_HOP] == 3,
          "the busiest link between nodes bounds, not the node's own: %g", tl);
    /* that link starts after 5 messages are posted: it drains 5 o later */
    n[NH_TERM_LATE] = 5;
    par[NH_TERM_LATE] = 0.15;
    memset(lin, 0, sizeof(lin));
    double tlate = nh_cost_phase(par, n, lin), xl = 0;
    for (int j = 0; j < NH_NTERMS; j++)
        xl += lin[j] * par[j];
    CHECK(tlate > tl + 0.75 - 1e-9 && tlate < tl + 0.75 + 1e-9 && lin[NH_TERM_LATE] == 5 &&
              xl > tlate - 1e-12 && xl < tlate + 1e-12,
          "a link that starts late: %g", tlate);
    /* a link that costs nothing waits for nothing */
    par[NH_TERM_HOP_LINK] = 0;
    n[NH_TERM_LINK] = 0;
    memset(lin, 0, sizeof(lin));
    tlate = nh_cost_phase(par, n, lin);
    CHECK(tlate < 2 && lin[NH_TERM_LATE] == 0, "no late start without the link's cost: %g", tlate);
    n[NH_TERM_LATE] = par[NH_TERM_LATE] = 0;
    nh_node_phase np = {
        .blocks = 100, .link_blocks = 250, .far = 4, .link_after = 3, .link_recv = 4};
    memset(n, 0, sizeof(n));
    nh_cost_node_counts(&np, 8, n);
    CHECK(n[NH_TERM_NODE] == 1 && n[NH_TERM_LINK] == 800 && n[NH_TERM_HOP] == 4 &&
              n[NH_TERM_HOP_LINK] == 2000 && n[NH_TERM_LATE] == 3 + 3,
          "a phase's node counts");
    /* without a map of their ways, a node's bytes take the slower of its
     * own link and one between nodes; a phase whose latency another
     * parameter holds (a store-and-forward stage) adds none behind them */
    nh_cost c = nh_cost_defaults;
    c.link = 1e-4;
    c.hop_link = 2e-4;
    double te = nh_cost_exchange_node(&c, 0, 1, 1, 0, 1, 1e4);
    CHECK(te > 2 - 1e-9 && te < 2 + 1e-9, "unmapped bytes on one link between nodes: %g", te);
    te = nh_cost_exchange_node(&c, 1, 1, 1, 0, 1, 1e4);
    CHECK(te > 2 + c.o + c.alpha + c.o_recv - 1e-9 && te < 2 + c.o + c.alpha + c.o_recv + 1e-9,
          "and a latency on where the phase pays its own: %g", te);
    par[NH_TERM_HOP] = par[NH_TERM_HOP_LINK] = 0;
    memset(n, 0, sizeof(n));
    n[NH_TERM_ALPHA] = n[NH_TERM_NODE] = n[NH_TERM_O] = n[NH_TERM_O_RECV] = 1;
    par[NH_TERM_NODE] = 0.65;
    CHECK(nh_cost_phase(par, n, NULL) > 1.69 - 1e-9 && nh_cost_phase(par, n, NULL) < 1.69 + 1e-9,
          "leaving the node adds latency: %g", nh_cost_phase(par, n, NULL));
    memset(n, 0, sizeof(n));
    n[NH_TERM_GAMMA] = 100;
    n[NH_TERM_CORE] = 2;
    par[NH_TERM_GAMMA] = 0.01;
    par[NH_TERM_CORE] = 4;
    CHECK(nh_cost_phase(par, n, NULL) == 9, "copies and cores without a phase: %g",
          nh_cost_phase(par, n, NULL));
    double two[2][NH_NTERMS] = {{0}};
    memcpy(two[0], n, sizeof(n));
    two[1][NH_TERM_ALPHA] = 1;
    CHECK(nh_cost_phases(par, 2, (const double(*)[NH_NTERMS])two, NULL) > 9 + 0.89 - 1e-9,
          "phases add up");
    /* A schedule's phases: phase 0 two rounds (3 blocks, 1 block), phase 1
     * one round of 2 blocks, a copy round of 4; blocks of 4000 B with an
     * eager limit of 8192: the 3-block round splits into 2 messages (2 + 1
     * blocks), none above the limit */
    nh_sched *sc = nh_sched_new(NH_ALGO_TORUS, NH_OP_ALLTOALL);
    const int rp[4] = {0, 0, 1, 2}, rb[4] = {3, 1, 2, 4}, rc[4] = {0, 0, 0, 1};
    for (int i = 0; sc && i < 4; i++) {
        nh_sched_add_round(sc, rp[i], 1, 1, rc[i]);
        sc->rounds[i].tmpl_blocks = rb[i];
    }
    CHECK(sc && nh_sched_finish(sc) == 0, "a schedule by hand");
    got g = {0};
    if (sc) {
        nh_sched_phases(sc, 4000, 0, 8192, 0.5, take, &g);
        CHECK(g.n == 3, "two phases and the local vector: %d", g.n);
        CHECK(g.ph[0][NH_TERM_ALPHA] == 1 && g.ph[0][NH_TERM_O] == 3 &&
                  g.ph[0][NH_TERM_O_RECV] == 3 && g.ph[0][NH_TERM_BETA] == 16000 &&
                  g.ph[0][NH_TERM_RNDV] == 0 && g.ph[0][NH_TERM_DELTA] == 2 &&
                  g.ph[0][NH_TERM_GATHER_SMALL] == 8000 && g.ph[0][NH_TERM_CORE] == 0.5,
              "phase 0: 3 messages, 4 blocks, one of 2 blocks through the datatype engine");
        CHECK(g.ph[1][NH_TERM_O] == 1 && g.ph[1][NH_TERM_BETA] == 8000 &&
                  g.ph[1][NH_TERM_DELTA] == 2,
              "phase 1: one message of 2 blocks");
        CHECK(g.ph[2][NH_TERM_ALPHA] == 0 && g.ph[2][NH_TERM_GAMMA] == 16000 &&
                  g.ph[2][NH_TERM_CALL] == 1 && g.ph[2][NH_TERM_O] == 0,
              "the copies and the call, without a phase");
        g.n = 0;
        nh_sched_phases(sc, 4000, 1, 4000, 0, take, &g);
        CHECK(g.n == 3 && g.ph[0][NH_TERM_O] == 4 && g.ph[0][NH_TERM_RNDV] == 0 &&
                  g.ph[1][NH_TERM_O] == 2 && g.ph[0][NH_TERM_PACK] == 0,
              "an eager limit of one block: one message per block, none packed");
        nh_sched_free(sc);
    }
    /* split routes: a box halo's blocks (n = 32 doubles: 8 KiB faces,
     * 256-byte edges over 2 phases, 8-byte corners over 3) under the
     * simulated dragonfly's fit, 24 ranks per node, and the torus's, 16 */
    nh_cost df = d, tr = d;
    df.o = 0.3, df.o_recv = 0.301052, df.beta = df.link = df.hop_link = 0.000190476;
    df.pack = df.gamma = 0;
    tr.o = 0.5, tr.o_recv = 0.501819, tr.beta = 2.5e-5, tr.link = 0.000106383;
    tr.hop_link = 0.000212766, tr.pack = tr.gamma = 0;
    CHECK(nh_cost_split_limit(&df, 0, 24) == SIZE_MAX, "the rank itself: no limit");
    CHECK(nh_cost_split_limit(&df, 1, 24) == 1577 && nh_cost_split_limit(&df, 1, 0) == 1577,
          "one phase: the node's ranks change nothing (%zu)", nh_cost_split_limit(&df, 1, 24));
    CHECK(nh_cost_split_limit(&df, 2, 0) == 788,
          "two phases on one node: a 256-byte edge forwarded (limit %zu)",
          nh_cost_split_limit(&df, 2, 0));
    CHECK(nh_cost_split_limit(&df, 2, 24) == 112,
          "two phases, 24 ranks a node's link: the 256-byte edge alone, a 32-byte one "
          "forwarded (limit %zu)",
          nh_cost_split_limit(&df, 2, 24));
    CHECK(nh_cost_split_limit(&df, 3, 24) == 58, "three phases: an 8-byte corner forwarded (%zu)",
          nh_cost_split_limit(&df, 3, 24));
    CHECK(nh_cost_split_limit(&tr, 2, 16) == 460,
          "the torus's faster links: the 256-byte edge forwarded (limit %zu)",
          nh_cost_split_limit(&tr, 2, 16));
    nh_cost free_bytes = d;
    free_bytes.beta = free_bytes.link = free_bytes.hop_link = free_bytes.pack = 0;
    free_bytes.gamma = 0;
    CHECK(nh_cost_split_limit(&free_bytes, 3, 24) == SIZE_MAX, "bytes that cost nothing: no limit");
    CHECK(nh_cost_excess(27, 2) == 12.5 && nh_cost_excess(8, 2) == 3, "excess 27/2, 8/2");
    CHECK(nh_cost_excess(2, 2) == 0 && nh_cost_excess(1, 16) == 0, "no excess at one per CPU");
    CHECK(nh_cost_excess(0, 0) == 0 && nh_cost_excess(4, 0) == 0, "no excess where unknown");
    check_gateway();
    check_alike();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
