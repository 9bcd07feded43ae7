/* Fuzz target: a neighborhood given as an offset list on a small grid,
 * run end to end through nh_sim_offsets (the neighbor lists every rank
 * would pass, shuffled per rank; canonicalization and template agreement
 * as detection does them; every algorithm's schedule on every rank; the
 * simulator).  Invariants:
 *  - if some rank sees the whole neighborhood, detection accepts it;
 *  - an accepted neighborhood's schedules deliver every block exactly once
 *    to the slot MPI's semantics assign (the simulator's check);
 *  - nothing fails to build on inputs this small. */
#include "fuzz.h"

#define FZ_MAXS 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz f = {data, size};
    nh_grid g;
    int off[FZ_MAXS * 4], coords[NH_MAXDIMS];
    fz_grid(&f, &g, 64);
    unsigned seed = fz_u32(&f);
    int s = fz_range(&f, 0, FZ_MAXS), d = g.ndims;
    /* Coordinates up to one past the dimension: offsets that alias on a
     * periodic dimension, and ones that leave a mesh. */
    for (int t = 0; t < s; t++)
        for (int j = 0; j < d; j++)
            off[t * d + j] = fz_range(&f, -g.dims[j] - 1, g.dims[j] + 1);
    int full = 0;
    for (int r = 0; r < g.size && !full; r++) {
        nh_grid_coords(&g, r, coords);
        full = 1;
        for (int t = 0; t < s && full; t++)
            full = nh_grid_shift(&g, coords, off + t * d, +1) != NH_NONE &&
                   nh_grid_shift(&g, coords, off + t * d, -1) != NH_NONE;
    }
    (void)nh_sizes_coupled(&g, s, off);
    for (int op = 0; op < NH_OP_COUNT; op++)
        for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
            if (!nh_algos[a].build) /* stfw: test_stfw */
                continue;
            nh_sim_result res;
            nh_sched_stats st;
            /* k-ported builders: a port count from the input too */
            int ports = 1 + (int)(seed % NH_MAX_PORTS);
            int rc =
                nh_sim_offsets(&g, s, off, seed, (nh_op)op, (nh_algo)a, ports, 1, NULL, &res, &st);
            if (rc < 0)
                FZ_FAIL("%s %s: setup or build failed", nh_op_name((nh_op)op), nh_algos[a].name);
            if (rc == 1 && full)
                FZ_FAIL("%s %s: declined although some rank sees all %d offsets",
                        nh_op_name((nh_op)op), nh_algos[a].name, s);
            if (rc == 0 && !res.ok)
                FZ_FAIL("%s %s: %s", nh_op_name((nh_op)op), nh_algos[a].name, res.why);
        }
    return 0;
}
