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
 * exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stfw.h"
#include "tools/matgen.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: nhood-stfw-metrics --matrix SPEC --procs K [--partition HOW] [--dims-max N] "
               "[--ppn P]\n"
               "                          [--op alltoall|allgather] [--csv] [--verify]\n"
               "  SPEC: powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]] | rmat:SCALE:EF[:SEED] |\n"
               "        mtx:PATH | edges:PATH                (see src/tools/matgen.h)\n"
               "  K: 1..16384 parts; HOW: rowblock (default) | nnz | metis | file:PATH\n"
               "  --dims-max N: largest VPT dimension (default: all K allows)\n"
               "  --op allgather: one block per part to all its neighbors (unit words)\n"
               "  --csv: comma-separated instead of an aligned table\n"
               "  --verify: exit 1 unless every simulated schedule delivers correctly\n");
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

static void row(int csv, const char *scheme, const char *vpt, const nh_stfw_metrics *m,
                double bl_vavg, const char *verified)
{
    double g = bl_vavg > 0 ? m->vavg / bl_vavg : 1.0;
    if (csv)
        printf("%s,%s,%ld,%.2f,%.1f,%.3f,%ld,%s\n", scheme, vpt, m->mmax, m->mavg, m->vavg, g,
               m->bufmax, verified);
    else
        printf("%-8s %-24s %8ld %9.2f %11.1f %8.3f %10ld  %s\n", scheme, vpt, m->mmax, m->mavg,
               m->vavg, g, m->bufmax, verified);
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *how = "rowblock";
    int K = 0, dmax = 0, csv = 0, verify = 0, status = 0, ppn = 0;
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
        } else if (!strcmp(a, "--csv"))
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
    for (int r = 0; r < K; r++)
        edges += cg.outdeg[r];
    printf("# matrix %s: %d x %d, %ld nonzeros; K=%d (%s); %ld messages; op %s\n", spec, m.nrows,
           m.ncols, m.nnz, K, how, edges, nh_op_name(op));
    if (csv)
        printf("scheme,vpt,mmax,mavg,vavg,vgrowth,bufmax,delivery\n");
    else
        printf("%-8s %-24s %8s %9s %11s %8s %10s  %s\n", "scheme", "vpt", "mmax", "mavg", "vavg",
               "vgrowth", "bufmax", "delivery");
    row(csv, "BL", "-", &bl, bl.vavg, "-");
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
        clock_t t0 = clock();
        int rc = nh_stfw_build(&g, &v, op, -1, s);
        if (rc != NH_STFW_OK) {
            fprintf(stderr, "nhood-stfw-metrics: %s: build failed (%d)\n", name, rc);
            status = 1;
            continue;
        }
        nh_stfw_metrics sm;
        int ok = nh_stfw_simulate(&g, op, s, words, &sm, why, sizeof(why));
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (ok != 1) {
            fprintf(stderr, "nhood-stfw-metrics: %s on %s: delivery failed: %s\n", name, vpt, why);
            status = 1;
        }
        char verdict[48];
        snprintf(verdict, sizeof(verdict), "%s (%.2fs)", ok == 1 ? "ok" : "FAILED", secs);
        row(csv, name, vpt, &sm, bl.vavg, verdict);
        for (int r = 0; r < K; r++) {
            nh_sched_free(s[r]);
            s[r] = NULL;
        }
        nh_vpt_fini(&v);
    }
    free(s);
    free(loc);
    free(owner);
    nh_cgraph_free(&cg);
    nh_csr_free(&m);
    return verify ? status : 0;
}
