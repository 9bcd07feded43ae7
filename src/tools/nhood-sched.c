/* nhood-sched: schedule statistics without MPI, at any process count.
 *
 * For a named neighborhood on a balanced periodic grid (or a mesh), builds
 * every algorithm's schedule as nhood would and prints per-rank rounds,
 * messages, volume (blocks sent), local copies and temp slots; --verify
 * also builds every rank's schedule and runs the simulator, which checks
 * that every block lands exactly once in the right slot; --ppn K adds what
 * leaves a node with K consecutive ranks per node (the cost model's node
 * terms): phases in which some message does, and the most blocks one node
 * sends off it.
 * CSV:
 * nbhd,dims,radius,procs,grid,periodic,op,algorithm,neighbors,rounds,messages,volume,copies,temp,verified
 * (with --ppn: ,ppn,node_phases,node_blocks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/nbhd.h"
#include "core/inplace.h"
#include "core/sched.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: nhood-sched --nbhd moore|vonneumann|octant|shales --dims D --radius R\n"
            "                   --procs P[,P...] [--mesh] [--verify] [--ppn K] [--no-header]\n"
            "       nhood-sched --inplace --procs P[,P...] [--no-header]\n");
}

int main(int argc, char **argv)
{
    const char *nbhd = "moore";
    char procs[256] = "480";
    int d = 3, r = 1, mesh = 0, verify = 0, header = 1, inplace = 0, ppn = 0;
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
            ppn = atoi(argv[++i]);
        else if (v && strcmp(a, "--procs") == 0)
            snprintf(procs, sizeof(procs), "%s", argv[++i]);
        else {
            usage();
            return 2;
        }
    }
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
               "copies,temp,verified%s\n",
               ppn ? ",ppn,node_phases,node_blocks" : "");
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
                nh_sim_result res;
                nh_sched_stats st;
                int rc =
                    nh_sim_offsets(&g, s, off, 0, (nh_op)op, (nh_algo)a, verify, ppn, &res, &st);
                if (rc == 1) {
                    printf("%s,%d,%d,%d,%s,%d,%s,%s,%d,,,,,,declined%s\n", nbhd, d, r, p, gs, !mesh,
                           nh_op_name((nh_op)op), nh_algos[a].name, s, ppn ? ",,," : "");
                    continue;
                }
                if (rc || !res.ok) {
                    fprintf(stderr, "nhood-sched: %s %s on %s: %s\n", nh_op_name((nh_op)op),
                            nh_algos[a].name, gs, rc ? "build failed" : res.why);
                    status = 1;
                    continue;
                }
                printf("%s,%d,%d,%d,%s,%d,%s,%s,%d,%d,%ld,%ld,%ld,%d,%s", nbhd, d, r, p, gs, !mesh,
                       nh_op_name((nh_op)op), nh_algos[a].name, s, st.rounds, st.msgs, st.blocks,
                       st.copies, st.ntemp, verify ? "yes" : "no");
                if (ppn)
                    printf(",%d,%d,%ld", ppn, st.node_phases, st.node_blocks);
                printf("\n");
            }
    }
    free(off);
    return status;
}
