/* nhood-stfw-metrics: the store-and-forward paper's communication metrics
 * without MPI.  Reads or generates a matrix (src/tools/matgen.h specs),
 * partitions its rows over K parts, takes the communication graph of
 * y = A x (part s sends part d the x entries d needs), and prints for the
 * baseline (BL: one message per neighbor) and STFW with VPT dimensions
 * 2..max: the largest and average number of messages a part sends, the
 * average volume a part sends (words) and its growth over BL, and the
 * largest buffer (a part's own send and receive data plus what it stores
 * and forwards, words): the columns of the paper's Table 2.  Every
 * scheme's schedules for all K parts are simulated on symbolic data
 * (delivery: every block once in its slot); --verify makes a failure the
 * exit status.
 *
 * With --bytes B it also prints the cost model's time for each scheme
 * (blocks of B bytes; --ppn P ranks per node for its node terms) and what
 * auto chooses (core/vpt.c: the VPT dimension by the model at the
 * set-up's block size, node aggregation where it models faster, then
 * store-and-forward or one message per neighbor at B), under the
 * defaults, a cost file (--cost FILE) and single parameters (--set
 * KEY=VALUE); --model-only skips building and simulating the schedules.
 * scripts/sim-stfw-replay.sh sets these beside simulated times. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/parse.h"
#include "core/stfw.h"
#include "tools/matgen.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: nhood-stfw-metrics --matrix SPEC --procs K [--partition HOW] [--dims-max N] "
               "[--ppn P]\n"
               "                          [--op alltoall|allgather] [--csv] [--verify]\n"
               "                          [--bytes B [--cost FILE] [--set KEY=VALUE]... "
               "[--model-only]]\n"
               "  SPEC: powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]] | rmat:SCALE:EF[:SEED] |\n"
               "        mtx:PATH | edges:PATH                (see src/tools/matgen.h)\n"
               "  K: 1..16384 parts; HOW: rowblock (default) | nnz | metis | file:PATH\n"
               "  --dims-max N: largest VPT dimension (default: all K allows)\n"
               "  --op allgather: one block per part to all its neighbors (unit words)\n"
               "  --csv: comma-separated instead of an aligned table\n"
               "  --verify: exit 1 unless every simulated schedule delivers correctly\n"
               "  --bytes B: the cost model's time per scheme for blocks of B bytes, and "
               "auto's choice\n"
               "  --cost FILE: its parameters from a cost file (KEY = VALUE lines); --set: one\n"
               "  --model-only: the model alone, no schedules built (their columns 0)\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

/* KEY=VALUE (or KEY = VALUE, a cost file's line) into c; 1 if the line
 * sets nothing (blank, comment, another section's key), -1 if malformed. */
static int set_param(nh_cost *c, const char *line)
{
    char key[64], val[64];
    const char *eq = strchr(line, '=');
    if (!eq || line[0] == '#')
        return 1;
    size_t kl = (size_t)(eq - line);
    while (kl > 0 && line[kl - 1] == ' ')
        kl--;
    const char *v = eq + 1;
    while (*v == ' ')
        v++;
    size_t vl = strcspn(v, " #\n");
    if (kl == 0 || kl >= sizeof(key) || vl == 0 || vl >= sizeof(val))
        return -1;
    memcpy(key, line, kl);
    key[kl] = 0;
    memcpy(val, v, vl);
    val[vl] = 0;
    for (int i = 0; i < nh_cost_nparams; i++)
        if (!strcmp(nh_cost_params[i].key, key))
            return nh_parse_real(val, nh_cost_at(c, &nh_cost_params[i])) ? -1 : 0;
    return 1;
}

static int read_cost(nh_cost *c, const char *path)
{
    char line[512];
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    for (int no = 1; fgets(line, sizeof(line), f); no++)
        if (set_param(c, line) < 0) {
            fprintf(stderr, "nhood-stfw-metrics: %s:%d: malformed line\n", path, no);
            fclose(f);
            return -1;
        }
    fclose(f);
    return 0;
}

static void row(int csv, const char *scheme, const char *vpt, const nh_stfw_metrics *m,
                double bl_vavg, const char *verified, double model_us)
{
    double g = bl_vavg > 0 ? m->vavg / bl_vavg : 1.0;
    char mod[32] = "";
    if (model_us >= 0)
        snprintf(mod, sizeof(mod), csv ? ",%.3f" : " %10.3f", model_us);
    if (csv)
        printf("%s,%s,%ld,%.2f,%.1f,%.3f,%ld,%s%s\n", scheme, vpt, m->mmax, m->mavg, m->vavg, g,
               m->bufmax, verified, mod);
    else
        printf("%-8s %-24s %8ld %9.2f %11.1f %8.3f %10ld %s %s\n", scheme, vpt, m->mmax, m->mavg,
               m->vavg, g, m->bufmax, mod, verified);
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *how = "rowblock";
    int K = 0, dmax = 0, csv = 0, verify = 0, status = 0, ppn = 0, model_only = 0;
    double bytes = -1;
    nh_cost cost = nh_cost_defaults;
    nh_op op = NH_OP_ALLTOALL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--matrix") && v)
            spec = argv[++i];
        else if (!strcmp(a, "--procs") && v) {
            if (parse_int(argv[++i], 1, 16384, &K)) {
                fprintf(stderr, "nhood-stfw-metrics: --procs %s: expected 1..16384\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--ppn") && v) {
            if (parse_int(argv[++i], 1, 16384, &ppn)) {
                fprintf(stderr, "nhood-stfw-metrics: --ppn %s: expected 1..16384\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--partition") && v)
            how = argv[++i];
        else if (!strcmp(a, "--dims-max") && v) {
            if (parse_int(argv[++i], 1, NH_STFW_MAXDIMS, &dmax)) {
                fprintf(stderr, "nhood-stfw-metrics: --dims-max %s: expected 1..%d\n", v,
                        NH_STFW_MAXDIMS);
                return 2;
            }
        } else if (!strcmp(a, "--op") && v) {
            i++;
            if (!strcmp(v, "alltoall"))
                op = NH_OP_ALLTOALL;
            else if (!strcmp(v, "allgather"))
                op = NH_OP_ALLGATHER;
            else {
                fprintf(stderr, "nhood-stfw-metrics: --op %s: expected alltoall|allgather\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--bytes") && v) {
            if (nh_parse_real(argv[++i], &bytes)) {
                fprintf(stderr, "nhood-stfw-metrics: --bytes %s: expected a number\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--cost") && v) {
            if (read_cost(&cost, argv[++i]))
                return 2;
        } else if (!strcmp(a, "--set") && v) {
            if (set_param(&cost, argv[++i])) {
                fprintf(stderr,
                        "nhood-stfw-metrics: --set %s: expected KEY=VALUE, KEY a cost "
                        "parameter (docs/tuning.md)\n",
                        v);
                return 2;
            }
        } else if (!strcmp(a, "--model-only"))
            model_only = 1;
        else if (!strcmp(a, "--csv"))
            csv = 1;
        else if (!strcmp(a, "--verify"))
            verify = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "nhood-stfw-metrics: unknown or incomplete option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!spec || K < 1) {
        usage(stderr);
        return 2;
    }
    char err[256];
    nh_csr m;
    nh_cgraph cg;
    if (nh_matgen(spec, &m, err, sizeof(err))) {
        fprintf(stderr, "nhood-stfw-metrics: %s\n", err);
        return 2;
    }
    int *owner = malloc(((size_t)m.nrows + 1) * sizeof(int));
    if (!owner || nh_partition(&m, K, how, owner, err, sizeof(err))) {
        fprintf(stderr, "nhood-stfw-metrics: %s\n", owner ? err : "out of memory");
        return 2;
    }
    if (nh_comm_graph(&m, K, owner, &cg)) {
        fprintf(stderr, "nhood-stfw-metrics: cannot build the communication graph\n");
        return 2;
    }
    nh_stfw_graph g = {K, cg.outdeg, cg.indeg, cg.dst, cg.src};
    long *const *words = op == NH_OP_ALLTOALL ? cg.words : NULL;
    nh_stfw_metrics bl;
    nh_stfw_baseline(&g, words, &bl);
    if (op == NH_OP_ALLGATHER) { /* one word per part, sent once per neighbor */
        bl.bufmax = 0;
        for (int r = 0; r < K; r++)
            if (1 + cg.indeg[r] > bl.bufmax)
                bl.bufmax = 1 + cg.indeg[r];
    }
    long edges = 0;
    int maxout = 0, maxin = 0;
    for (int r = 0; r < K; r++) {
        edges += cg.outdeg[r];
        maxout = cg.outdeg[r] > maxout ? cg.outdeg[r] : maxout;
        maxin = cg.indeg[r] > maxin ? cg.indeg[r] : maxin;
    }
    /* the library's view (plan/stfw_setup.c): degrees, ranks per node */
    nh_stfw_shape shape = {maxout, maxin, (double)edges / K, K, ppn < K ? ppn : K};
    int model = bytes >= 0;
    printf("# matrix %s: %d x %d, %ld nonzeros; K=%d (%s); %ld messages; op %s\n", spec, m.nrows,
           m.ncols, m.nnz, K, how, edges, nh_op_name(op));
    if (csv)
        printf("scheme,vpt,mmax,mavg,vavg,vgrowth,bufmax,delivery%s\n", model ? ",model_us" : "");
    else
        printf("%-8s %-24s %8s %9s %11s %8s %10s %s  %s\n", "scheme", "vpt", "mmax", "mavg", "vavg",
               "vgrowth", "bufmax", model ? "  model_us" : "", "delivery");
    row(csv, "BL", "-", &bl, bl.vavg, "-", model ? nh_stfw_model_bl(&cost, &shape, bytes) : -1);
    int nmax = nh_vpt_max_dims(K);
    if (dmax > 0 && dmax < nmax)
        nmax = dmax;
    nh_sched **s = calloc((size_t)K, sizeof(*s));
    int *loc = malloc(2 * (size_t)K * sizeof(int));
    if (!s || !loc)
        return 2;
    for (int r = 0; r < K; r++) { /* block placement, ppn ranks per node */
        loc[2 * r] = ppn > 0 ? r / ppn : 0;
        loc[2 * r + 1] = -1;
    }
    int gain, arm, pick = model ? nh_stfw_choose_dims(&cost, &shape, 0, &gain, &arm) : 0;
    for (int n = 2; n <= nmax; n++) {
        nh_vpt v;
        char vpt[64], name[16], why[256];
        int grouped = ppn > 0 ? nh_vpt_grouped(&v, K, n, loc) : 0;
        if (grouped < 0)
            return 2;
        if (!grouped && nh_vpt_init(&v, K, n, 0))
            continue;
        nh_vpt_format(&v, vpt, sizeof(vpt));
        if (grouped)
            strncat(vpt, "+node", sizeof(vpt) - strlen(vpt) - 1);
        snprintf(name, sizeof(name), "STFW%d", n);
        double t = model ? nh_stfw_model(&cost, &v, &shape, bytes) : -1;
        nh_stfw_metrics sm = {0};
        char verdict[48] = "-";
        if (!model_only) {
            clock_t t0 = clock();
            int rc = nh_stfw_build(&g, &v, op, -1, s);
            if (rc != NH_STFW_OK) {
                fprintf(stderr, "nhood-stfw-metrics: %s: build failed (%d)\n", name, rc);
                status = 1;
                nh_vpt_fini(&v);
                continue;
            }
            int ok = nh_stfw_simulate(&g, op, s, words, &sm, why, sizeof(why));
            double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
            if (ok != 1) {
                fprintf(stderr, "nhood-stfw-metrics: %s on %s: delivery failed: %s\n", name, vpt,
                        why);
                status = 1;
            }
            snprintf(verdict, sizeof(verdict), "%s (%.2fs)", ok == 1 ? "ok" : "FAILED", secs);
            for (int r = 0; r < K; r++) {
                nh_sched_free(s[r]);
                s[r] = NULL;
            }
        }
        row(csv, name, vpt, &sm, bl.vavg, verdict, t);
        nh_vpt_fini(&v);
    }
    /* auto: the set-up builds where the VPT wins for ARM_BYTES blocks,
     * with node aggregation where it models faster than the VPT; the
     * first blocking call keeps it where it wins at the mean block */
    if (model) {
        nh_vpt v, agg;
        int got = 0, use_agg = 0;
        char what[32] = "pmpi";
        if (pick >= 2 && arm) {
            int grouped = ppn > 0 ? nh_vpt_grouped(&v, K, pick, loc) : 0;
            got = grouped == 1 || (grouped == 0 && nh_vpt_init(&v, K, pick, 0) == 0);
        }
        if (ppn > 0 && nh_vpt_agg(&agg, K, loc) == 1) {
            char vpt[64];
            nh_stfw_metrics none = {0};
            nh_vpt_format(&agg, vpt, sizeof(vpt));
            row(csv, "AGG", vpt, &none, bl.vavg, "-", nh_stfw_model(&cost, &agg, &shape, bytes));
            use_agg = got && nh_stfw_agg_beats(&cost, &agg, &v, &shape);
            if (use_agg) {
                nh_vpt_fini(&v);
                v = agg;
            } else
                nh_vpt_fini(&agg);
        }
        if (got && nh_stfw_beats_bl(&cost, &v, &shape, bytes)) {
            if (use_agg)
                snprintf(what, sizeof(what), "stfw:agg");
            else
                snprintf(what, sizeof(what), "stfw:%d", pick);
        }
        if (got)
            nh_vpt_fini(&v);
        printf("# auto: %s (VPT dimension %d by the model at %.0f B blocks)\n", what, pick,
               NH_STFW_DIMS_BYTES);
    }
    free(s);
    free(loc);
    free(owner);
    nh_cgraph_free(&cg);
    nh_csr_free(&m);
    return verify ? status : 0;
}
