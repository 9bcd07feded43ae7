/* nhood-calibrate's fit (src/tools/calib_fit.c) on synthetic training
 * calls whose times are the model's (src/core/model.h) under known
 * parameters.  The phase's parameters are taken as measured and stay; the
 * copies' start 30 times too large (so that the model picks a slower
 * candidate somewhere), the call at 0: the fit must find parameters with
 * which it picks the fastest candidate of every call, recover them within
 * the grid's resolution (2^(1/4) for the group, the call's value
 * likewise), leave the measured ones alone, and the evaluation and the
 * table must say so.  cal_phase_fit
 * must recover a phase's latency and receive overhead from exchanges of
 * k = 1 ... 32 messages, and cal_ring_fit the rings and latency per hop
 * behind one-way times to the other nodes (none on a crossbar); and
 * the --rows file (calib_io.c) must keep the tiers' links and gateway. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sched.h"
#include "tools/calib.h"

enum { A = NH_TERM_ALPHA, O = NH_TERM_O, OR = NH_TERM_O_RECV, B = NH_TERM_BETA };

/* One phase of msgs messages carrying blocks blocks of m bytes, packed
 * where a message holds several. */
static void phase(double *n, double msgs, double blocks, double m)
{
    n[A] = 1;
    n[O] = n[OR] = msgs;
    n[B] = blocks * m;
    n[NH_TERM_PACK] = blocks > msgs ? 2 * blocks * m : 0;
    n[NH_TERM_RNDV] = blocks * m / msgs > 8192 ? msgs : 0;
}

int main(void)
{
    double truth[CAL_NPARAM] = {0};
    truth[A] = 0.6;
    truth[O] = 0.1;
    truth[OR] = 0.15;
    truth[B] = 1e-4;
    truth[NH_TERM_PACK] = 3e-5;
    truth[NH_TERM_RNDV] = 3.0;
    truth[NH_TERM_CALL] = 0.5;
    static const char *const algos[3] = {"direct", "torus", "torus_direct"};
    cal_set train = {0};
    int fails = 0;
    /* groups: a block size m; candidates differ in phases, messages and bytes */
    const double sizes[] = {8, 64, 512, 4096, 32768, 262144};
    for (int i = 0; i < 6; i++) {
        double m = sizes[i];
        const double shape[3][3] = {{1, 26, 26}, {3, 2, 18}, {3, 2, 14}}; /* phases, msgs, blocks */
        for (int a = 0; a < 3; a++) {
            static cal_row r;
            memset(&r, 0, sizeof(r));
            snprintf(r.group, sizeof(r.group), "alltoall m=%g", m);
            snprintf(r.algo, sizeof(r.algo), "%s", algos[a]);
            for (int ph = 0; ph < shape[a][0]; ph++)
                phase(r.ph[r.nph++], shape[a][1], shape[a][2], m);
            r.ph[r.nph++][NH_TERM_CALL] = 1;
            r.us = cal_cost(truth, &r);
            if (cal_set_add(&train, &r))
                return 1;
        }
    }
    double p[CAL_NPARAM];
    memcpy(p, truth, sizeof(p));
    p[NH_TERM_PACK] *= 30;
    p[NH_TERM_CALL] = 0;
    cal_score before, after;
    cal_evaluate(p, &train, 0, &before);
    cal_fit(p, &train, 0.005, stdout);
    cal_evaluate(p, &train, 0, &after);
    printf("before: %d of %d groups fastest, worst %.3f; after: %d, worst %.3f, median error %.3f\n",
           before.hits, before.groups, before.worst, after.hits, after.groups == 6 ? after.worst : -1,
           after.err_med);
    if (before.hits == before.groups) {
        fprintf(stderr, "the wrong parameters already pick the fastest: the test tests nothing\n");
        fails++;
    }
    if (after.groups != 6 || after.hits != 6 || after.worst > 1.0001) {
        fprintf(stderr, "the fit does not pick the fastest everywhere\n");
        fails++;
    }
    const int params[] = {A, O, OR, B, NH_TERM_PACK, NH_TERM_RNDV, NH_TERM_CALL};
    for (int i = 0; i < 7; i++) {
        int k = params[i];
        double rel = fabs(p[k] / truth[k] - 1);
        printf("%s: %.4g (true %.4g)\n", nh_cost_params[k].key, p[k], truth[k]);
        if (rel > (nh_cost_params[k].group >= 3 ? 0.1 : 1e-12)) {
            fprintf(stderr, "%s is %.1f %% off\n", nh_cost_params[k].key, 100 * rel);
            fails++;
        }
    }
    if (after.err_med > 0.05) {
        fprintf(stderr, "modeled times %.0f %% off\n", 100 * after.err_med);
        fails++;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cal_print_table(mem, p, &train, "# ");
    fclose(mem);
    if (!buf || !strstr(buf, "# alltoall m=8: direct ") || !strstr(buf, "picks ")) {
        fprintf(stderr, "the table lacks its rows\n");
        fails++;
    }
    free(buf);
    free(train.rows);
    /* a phase of k messages: latency-bound for small k, posting-bound after */
    double k[6], T[6], L, o_r, par[CAL_NPARAM] = {0}, n[CAL_NPARAM] = {0};
    par[A] = 0.74;
    par[O] = par[OR] = 0.15;
    for (int i = 0; i < 6; i++) {
        k[i] = 1 << i;
        n[A] = 1;
        n[O] = n[OR] = k[i];
        T[i] = nh_cost_phase(par, n, NULL);
    }
    cal_phase_fit(k, T, 6, 0.15, &L, &o_r);
    printf("phase fit: alpha %.4f (true 0.74), o_recv %.4f (true 0.15)\n", L, o_r);
    if (fabs(L - 0.74) > 0.74 / 1000 + 1e-9 || fabs(o_r - 0.15) > 0.15 / 100) {
        fprintf(stderr, "the phase fit misses\n");
        fails++;
    }
    /* distance: one-way times to the other nodes along rings (a torus's
     * first dimension, then a hop per ring), on a crossbar (flat) and with
     * a growth under the noise: no tier fits them better */
    static const struct {
        int n, ring;
        double hop, grow; /* grow: the times' growth per node instead (not rings) */
        int want_ring;
        double want_hop;
    } rc[] = {{16, 16, 0.1, 0, 16, 0.1},
              {20, 6, 0.2, 0, 6, 0.2},
              {30, 8, 0.05, 0, 8, 0.05},
              {16, 0, 0, 0, 0, 0},
              {16, 0, 0, 0.001, 0, 0}};
    for (size_t i = 0; i < sizeof(rc) / sizeof(rc[0]); i++) {
        double t[64], hop;
        int up;
        nh_net net;
        for (int d = 1; d < rc[i].n; d++)
            t[d] = 1.0 + (rc[i].ring ? rc[i].hop * (nh_node_hops(0, d, rc[i].ring, &up) - 1)
                                     : rc[i].grow * d);
        cal_dist_fit(t, rc[i].n, 0.05, NULL, &hop, &net);
        printf("ring fit, %d nodes: ring %d hop %.4f (true %d, %.4f)\n", rc[i].n, net.ring, hop,
               rc[i].want_ring, rc[i].want_hop);
        if (net.ring != rc[i].want_ring || net.tier[0] != 0 || fabs(hop - rc[i].want_hop) > 1e-9) {
            fprintf(stderr, "the ring fit misses\n");
            fails++;
        }
    }
    /* a dragonfly's routers: 4 nodes each, 0.15 us more beyond (the
     * simulated platform's times); with the tiers given, the same hop, and
     * the tiers kept; a torus's times with tiers given still fit a line */
    {
        double t[11], hop;
        nh_net net;
        int given[NH_NET_TIERS] = {4, 64, 384};
        for (int d = 1; d < 11; d++)
            t[d] = d < 4 ? 0.909 : 1.059;
        cal_dist_fit(t, 11, 0.05, NULL, &hop, &net);
        printf("tier fit: ring %d, tier %d, hop %.4f (true 0, 4, 0.15)\n", net.ring, net.tier[0],
               hop);
        if (net.ring != 0 || net.tier[0] != 4 || net.tier[1] != 0 || fabs(hop - 0.15) > 1e-9) {
            fprintf(stderr, "the tier fit misses\n");
            fails++;
        }
        cal_dist_fit(t, 11, 0.05, given, &hop, &net);
        if (net.ring != 0 || net.tier[0] != 4 || net.tier[1] != 64 || net.tier[2] != 384 ||
            fabs(hop - 0.15) > 1e-9) {
            fprintf(stderr, "the given tiers' fit misses: tiers %d,%d,%d hop %.4f\n", net.tier[0],
                    net.tier[1], net.tier[2], hop);
            fails++;
        }
    }
    /* --rows and --refit: a dragonfly's links per tier and its gateway
     * come back from the rows file (a refit that lost them priced every
     * link between routers and groups as a single one); a file written
     * before the "# links" line reads as one link each, no gateway. */
    {
        static cal_result w, r, old;
        static cal_row row;
        char path[512], path2[520], line[16384];
        const char *tmp = getenv("TMPDIR");
        snprintf(path, sizeof(path), "%s/nhood-test-calib.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        int fd = mkstemp(path);
        snprintf(path2, sizeof(path2), "%s.old", path);
        snprintf(row.group, sizeof(row.group), "alltoall m=8");
        snprintf(row.algo, sizeof(row.algo), "direct");
        row.nph = 1;
        row.ph[0][A] = 1;
        row.us = 1.5;
        const double tier[3] = {4, 64, 384}, links[3] = {1, 3, 10};
        for (int k = 0; k < 3; k++) {
            w.tier[k] = tier[k];
            w.tier_links[k] = links[k];
        }
        w.gateway = 1;
        FILE *in = NULL, *out = NULL;
        int ok = fd >= 0 && close(fd) == 0 && cal_set_add(&w.train, &row) == 0 &&
                 cal_rows_write(path, &w) == 0 && cal_rows_read(path, &r) == 0;
        for (int k = 0; ok && k < 3; k++)
            ok = r.tier[k] == tier[k] && r.tier_links[k] == links[k];
        if (!ok || r.gateway != 1 || r.train.n != 1) {
            fprintf(stderr, "rows round trip: tier links %g,%g,%g gateway %d (want 1,3,10 and 1)\n",
                    r.tier_links[0], r.tier_links[1], r.tier_links[2], r.gateway);
            fails++;
        }
        /* the cost file the refit writes names them */
        char cost[530], text[65536];
        snprintf(cost, sizeof(cost), "%s.cost", path);
        FILE *c = NULL;
        size_t len = 0;
        if (cal_finish(&r, cost, " --refit") == 0 && (c = fopen(cost, "r"))) {
            len = fread(text, 1, sizeof(text) - 1, c);
            fclose(c);
        }
        text[len] = '\0';
        if (!strstr(text, "\ntier3 = 384\n") || !strstr(text, "\ntier2_links = 3\n") ||
            !strstr(text, "\ntier3_links = 10\n") || !strstr(text, "\ntier3_gateway = 1\n") ||
            strstr(text, "tier1_links")) {
            fprintf(stderr, "the refit's cost file lacks the tiers' links or gateway\n");
            fails++;
        }
        remove(cost);
        /* the same file without its "# links" line */
        ok = (in = fopen(path, "r")) && (out = fopen(path2, "w"));
        while (ok && fgets(line, sizeof(line), in))
            if (strncmp(line, "# links,", 8) != 0)
                fputs(line, out);
        ok = ok && fclose(out) == 0 && cal_rows_read(path2, &old) == 0;
        if (!ok || old.tier[2] != 384 || old.tier_links[1] != 0 || old.gateway != 0) {
            fprintf(stderr, "rows without links: tier3 %g links2 %g gateway %d\n", old.tier[2],
                    old.tier_links[1], old.gateway);
            fails++;
        }
        if (in)
            fclose(in);
        remove(path);
        remove(path2);
        free(w.train.rows);
        free(r.train.rows);
        free(old.train.rows);
    }
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails != 0;
}
