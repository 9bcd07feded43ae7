/* nhood-sched: schedule statistics without MPI, at any process count.
 *
 * For a named neighborhood on a balanced periodic grid (or a mesh), builds
 * every algorithm's schedule as nhood would and prints per-rank rounds,
 * messages, volume (blocks sent), local copies and temp slots; --verify
 * also builds every rank's schedule and runs the simulator, which checks
 * that every block lands exactly once in the right slot; --ppn K adds what
 * leaves a node with K consecutive ranks per node (the cost model's node
 * terms): phases in which some message does, and the most blocks one node
 * sends off it.  --cost FILE (with --ppn) prices each schedule for blocks
 * of --bytes M (default 8) with that cost file's model, over its network
 * (rings or tiers), and MPI's own exchange beside direct's: what auto
 * weighs, without running anything.  bruck is listed once per port count
 * (`bruck` with one port, `bruck:K` with K messages per phase; --ports K:
 * that one only).  CSV:
 * nbhd,dims,radius,procs,grid,periodic,op,algorithm,neighbors,rounds,messages,volume,copies,temp,verified
 * (with --ppn: ,ppn,node_phases,node_blocks,link_blocks; with --cost:
 * ,bytes,model_us,model_native_us, the last empty but on direct's rows)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/nbhd.h"
#include "core/inplace.h"
#include "core/kvfile.h"
#include "core/model.h"
#include "core/sched.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: nhood-sched --nbhd moore|vonneumann|octant|shales --dims D --radius R\n"
            "                   --procs P[,P...] [--mesh] [--verify] [--ppn K] [--ports K]\n"
            "                   [--cost FILE [--bytes M]] [--no-header]\n"
            "       nhood-sched --inplace --procs P[,P...] [--no-header]\n");
}

/* One CSV row: algorithm a (with k ports) on grid g; 1 if it fails. */
static int row(const char *nbhd, int d, int r, int p, const nh_grid *g, const char *gs, int s,
               const int *off, nh_op op, nh_algo a, int k, int verify, const nh_sim_nodes *nodes,
               int mesh, const char *name)
{
    nh_sim_result res;
    nh_sched_stats st;
    int ppn = nodes->ppn, rc = nh_sim_offsets(g, s, off, 0, op, a, k, verify, nodes, &res, &st);
    if (rc == 1) {
        printf("%s,%d,%d,%d,%s,%d,%s,%s,%d,,,,,,declined%s%s\n", nbhd, d, r, p, gs, !mesh,
               nh_op_name(op), name, s, ppn ? ",,,," : "", nodes->cost ? ",,," : "");
        return 0;
    }
    if (rc || !res.ok) {
        fprintf(stderr, "nhood-sched: %s %s on %s: %s\n", nh_op_name(op), name, gs,
                rc ? "build failed" : res.why);
        return 1;
    }
    printf("%s,%d,%d,%d,%s,%d,%s,%s,%d,%d,%ld,%ld,%ld,%d,%s", nbhd, d, r, p, gs, !mesh,
           nh_op_name(op), name, s, st.rounds, st.msgs, st.blocks, st.copies, st.ntemp,
           verify ? "yes" : "no");
    if (ppn)
        printf(",%d,%d,%ld,%g", ppn, st.node_phases, st.node_blocks, st.node_link_blocks);
    if (nodes->cost) {
        printf(",%zu,%.3f,", nodes->bytes, st.model_us);
        if (st.model_native_us >= 0)
            printf("%.3f", st.model_native_us);
    }
    printf("\n");
    return 0;
}

/* The cost file at path into *c (over nhood's defaults) and its network
 * into *net (nh_cost_net, as the library reads them).  0, or -1 with a
 * message. */
static int load_cost(const char *path, nh_cost *c, nh_net *net)
{
    FILE *f = fopen(path, "r");
    char *text = NULL, msg[256];
    long n = -1;
    nh_fingerprint fp;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n)
        text[n] = '\0';
    else
        n = -1;
    if (f)
        fclose(f);
    if (n < 0) {
        fprintf(stderr, "nhood-sched: cannot read the cost file %s\n", path);
        free(text);
        return -1;
    }
    int rc = nh_cost_file_parse(text, path, &nh_cost_defaults, c, &fp, msg, sizeof(msg));
    free(text);
    if (rc) {
        fprintf(stderr, "nhood-sched: %s\n", msg);
        return -1;
    }
    nh_cost_net(c, net);
    return 0;
}

int main(int argc, char **argv)
{
    const char *nbhd = "moore";
    char procs[256] = "480";
    int d = 3, r = 1, mesh = 0, verify = 0, header = 1, inplace = 0, ports = 0;
    const char *costfile = NULL;
    nh_sim_nodes nodes = {.bytes = 8};
    nh_cost cost;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--mesh") == 0)
            mesh = 1;
        else if (strcmp(a, "--verify") == 0)
            verify = 1;
        else if (strcmp(a, "--inplace") == 0)
            inplace = 1;
        else if (strcmp(a, "--no-header") == 0)
            header = 0;
        else if (v && strcmp(a, "--nbhd") == 0)
            nbhd = argv[++i];
        else if (v && strcmp(a, "--dims") == 0)
            d = atoi(argv[++i]);
        else if (v && strcmp(a, "--radius") == 0)
            r = atoi(argv[++i]);
        else if (v && strcmp(a, "--ppn") == 0 && atoi(v) > 0)
            nodes.ppn = atoi(argv[++i]);
        else if (v && strcmp(a, "--cost") == 0)
            costfile = argv[++i];
        else if (v && strcmp(a, "--bytes") == 0 && atoi(v) > 0)
            nodes.bytes = (size_t)atoi(argv[++i]);
        else if (v && strcmp(a, "--ports") == 0 && atoi(v) >= 1 && atoi(v) <= NH_MAX_PORTS)
            ports = atoi(argv[++i]);
        else if (v && strcmp(a, "--procs") == 0)
            snprintf(procs, sizeof(procs), "%s", argv[++i]);
        else {
            usage();
            return 2;
        }
    }
    if (costfile && !nodes.ppn) {
        fprintf(stderr, "nhood-sched: --cost prices a placement: give --ppn K (ranks per node)\n");
        return 2;
    }
    if (costfile && load_cost(costfile, &cost, &nodes.net))
        return 2;
    nodes.cost = costfile ? &cost : NULL;
    if (inplace) {
        if (header)
            printf("op,procs,algorithm,steps,swaps_per_rank,bound\n");
        static const nh_inplace_algo algos[] = {NH_INPLACE_MPICH, NH_INPLACE_LSA, NH_INPLACE_HSA};
        for (char *tok = strtok(procs, ","); tok; tok = strtok(NULL, ",")) {
            int p = atoi(tok), lg = 0;
            if (p < 1 || p > 8192) {
                fprintf(stderr, "nhood-sched: --inplace takes 1 to 8192 processes\n");
                return 2;
            }
            while ((1 << lg) < p)
                lg++;
            int *partners = malloc(sizeof(int) * 2 * (size_t)p);
            for (int k = 0; k < 3; k++) {
                int bound = k == 0 ? 2 * p - 1 : k == 1 ? p : p + lg - 2;
                printf("inplace_alltoallv,%d,%s,%d,%d,%d\n", p, nh_inplace_names[algos[k]],
                       nh_inplace_steps(algos[k], p),
                       nh_inplace_partners(algos[k], p, 0, partners) - (k == 0), bound);
            }
            free(partners);
        }
        return 0;
    }
    int *off, s;
    if (d < 1 || d > TC_MAXD || r < 1 || (s = tc_offsets(nbhd, d, r, &off)) < 0) {
        usage();
        return 2;
    }
    if (header)
        printf("nbhd,dims,radius,procs,grid,periodic,op,algorithm,neighbors,rounds,messages,volume,"
               "copies,temp,verified%s%s\n",
               nodes.ppn ? ",ppn,node_phases,node_blocks,link_blocks" : "",
               nodes.cost ? ",bytes,model_us,model_native_us" : "");
    int status = 0;
    for (char *tok = strtok(procs, ","); tok; tok = strtok(NULL, ",")) {
        int p = atoi(tok), dims[NH_MAXDIMS], per[NH_MAXDIMS];
        nh_grid g;
        nh_grid_balanced(p, d, dims);
        for (int j = 0; j < d; j++)
            per[j] = !mesh;
        if (p < 1 || nh_grid_init(&g, d, dims, per)) {
            fprintf(stderr, "nhood-sched: bad process count %s\n", tok);
            return 2;
        }
        char gs[64];
        nh_grid_format(&g, gs, sizeof(gs));
        for (int op = 0; op < NH_OP_COUNT; op++)
            for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
                if (!nh_algos[a].build)
                    continue; /* stfw: nhood-stfw-metrics */
                int k0 = 1, k1 = 1;
                if (a == NH_ALGO_BRUCK) {
                    k0 = ports ? ports : 1;
                    k1 = ports ? ports : NH_MAX_PORTS;
                }
                for (int k = k0; k <= k1; k++) {
                    char name[32];
                    snprintf(name, sizeof(name), k > 1 ? "%s:%d" : "%s", nh_algos[a].name, k);
                    if (row(nbhd, d, r, p, &g, gs, s, off, (nh_op)op, (nh_algo)a, k, verify, &nodes,
                            mesh, name))
                        status = 1;
                }
            }
    }
    free(off);
    return status;
}
