/* Fuzz target: detection's soundness on graphs that are almost isomorphic.
 * The input names a grid and an offset template; every rank's lists are
 * built from it, then a few edits (add, remove or redirect an edge, kept
 * consistent between the two ends as MPI requires) break the symmetry, and
 * each rank's lists are shuffled.  Then, as detection does: the first rank
 * with the largest out-degree provides the sorted template, every rank
 * canonicalizes and matches its lists (nh_local_offsets,
 * nh_match_template via nh_nbhd_init).  Invariant: if every rank fits,
 * every algorithm's schedules, simulated over all ranks, deliver exactly
 * what MPI's point-to-point definition does for the edited lists. */
#include <string.h>

#include "fuzz.h"

#define FZ_MAXS 12
#define FZ_MAXEDITS 4

static unsigned next_rand(unsigned *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static void shuffle(int *v, int n, unsigned *seed)
{
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(next_rand(seed) % (unsigned)(i + 1)), t = v[i];
        v[i] = v[k];
        v[k] = t;
    }
}

static void remove_at(int *v, int *n, int i)
{
    memmove(v + i, v + i + 1, (size_t)(*n - i - 1) * sizeof(int));
    (*n)--;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz f = {data, size};
    nh_grid g;
    int off[FZ_MAXS * 4], coords[NH_MAXDIMS];
    fz_grid(&f, &g, 27);
    int p = g.size, d = g.ndims;
    unsigned seed = fz_u32(&f) | 1;
    int s = fz_range(&f, 0, FZ_MAXS);
    for (int t = 0; t < s; t++)
        for (int j = 0; j < d; j++)
            off[t * d + j] = fz_range(&f, -g.dims[j] - 1, g.dims[j] + 1);
    int cap = s + FZ_MAXEDITS + 1;
    int *dests = calloc((size_t)p * cap, sizeof(int)), *srcs = calloc((size_t)p * cap, sizeof(int));
    int *outdeg = calloc((size_t)p, sizeof(int)), *indeg = calloc((size_t)p, sizeof(int));
    int **dp = calloc((size_t)p, sizeof(int *)), **sp = calloc((size_t)p, sizeof(int *));
    nh_nbhd *nbs = calloc((size_t)p, sizeof(nh_nbhd));
    nh_sched **sch = calloc((size_t)p, sizeof(nh_sched *));
    int *tmpl = malloc(sizeof(int) * ((size_t)cap * d)), *perm = malloc(sizeof(int) * cap);
    int ninit = 0;
    if (!dests || !srcs || !outdeg || !indeg || !dp || !sp || !nbs || !sch || !tmpl || !perm)
        FZ_FAIL("out of memory");
    for (int r = 0; r < p; r++) {
        dp[r] = dests + (size_t)r * cap;
        sp[r] = srcs + (size_t)r * cap;
    }
    /* Lists from the template: r sends to r + c, receives from r - c. */
    for (int r = 0; r < p; r++) {
        nh_grid_coords(&g, r, coords);
        for (int t = 0; t < s; t++) {
            int q = nh_grid_shift(&g, coords, off + t * d, +1);
            if (q != NH_NONE) {
                dp[r][outdeg[r]++] = q;
                sp[q][indeg[q]++] = r;
            }
        }
    }
    int nedits = fz_range(&f, 0, FZ_MAXEDITS);
    for (int e = 0; e < nedits; e++) {
        int kind = fz_range(&f, 0, 2), r = fz_range(&f, 0, p - 1), q = fz_range(&f, 0, p - 1);
        if (kind != 0 && outdeg[r] > 0) { /* remove one edge r -> x */
            int i = fz_range(&f, 0, outdeg[r] - 1), x = dp[r][i];
            remove_at(dp[r], &outdeg[r], i);
            for (int k = 0; k < indeg[x]; k++)
                if (sp[x][k] == r) {
                    remove_at(sp[x], &indeg[x], k);
                    break;
                }
        }
        if (kind != 1) { /* add r -> q */
            dp[r][outdeg[r]++] = q;
            sp[q][indeg[q]++] = r;
        }
    }
    for (int r = 0; r < p; r++) {
        shuffle(dp[r], outdeg[r], &seed);
        shuffle(sp[r], indeg[r], &seed);
    }

    int root = 0;
    for (int r = 1; r < p; r++)
        if (outdeg[r] > outdeg[root])
            root = r;
    int S = outdeg[root];
    if (nh_local_offsets(&g, root, S, dp[root], +1, tmpl, perm))
        FZ_FAIL("rank %d: offsets of in-range ranks rejected", root);
    for (ninit = 0; ninit < p; ninit++) {
        int rc = nh_nbhd_init(&nbs[ninit], &g, ninit, S, tmpl, outdeg[ninit], dp[ninit],
                              indeg[ninit], sp[ninit]);
        if (rc < 0)
            FZ_FAIL("nh_nbhd_init failed");
        if (rc == 1)
            goto out; /* declined: left to PMPI */
    }
    (void)nh_sizes_coupled(&g, S, tmpl);
    for (int op = 0; op < NH_OP_COUNT; op++)
        for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
            if (!nh_algos[a].build) /* stfw: test_stfw */
                continue;
            for (int r = 0; r < p; r++)
                if (nh_algos[a].build(&nbs[r], (nh_op)op, &sch[r]))
                    FZ_FAIL("%s %s: build failed on rank %d", nh_op_name((nh_op)op),
                            nh_algos[a].name, r);
            nh_sim_result res;
            nh_sim_run(p, nbs, sch, dp, outdeg, sp, indeg, (nh_op)op, &res);
            if (!res.ok)
                FZ_FAIL("%s %s after %d edits: %s", nh_op_name((nh_op)op), nh_algos[a].name, nedits,
                        res.why);
            for (int r = 0; r < p; r++) {
                nh_sched_free(sch[r]);
                sch[r] = NULL;
            }
        }
out:
    for (int r = 0; r < ninit; r++)
        nh_nbhd_fini(&nbs[r]);
    free(dests);
    free(srcs);
    free(outdeg);
    free(indeg);
    free(dp);
    free(sp);
    free(nbs);
    free(sch);
    free(tmpl);
    free(perm);
    return 0;
}
