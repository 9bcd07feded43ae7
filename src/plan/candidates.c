/* Detection's candidate grids: which grids a graph communicator's lists
 * are tried on, in which order, and which fit wins (plan/detect.c runs
 * the agreement). */
#include <stdlib.h>
#include <string.h>

#include "plan/detect_int.h"
#include "util/sync.h"

static int add_cand(cand *c, int n, const nh_grid *g, const char *source)
{
    for (int i = 0; i < n; i++)
        if (nh_grid_equiv(&c[i].g, g))
            return n;
    c[n].g = *g;
    c[n].source = source;
    c[n].mesh = 0;
    return n + 1;
}

/* MPI_Dims_create's factorizations of size into 1 to NH_MAXDIMS
 * dimensions (those that differ in more than size-1 dimensions), first
 * periodic (tori), then the same grids without periods (meshes: domains
 * with walls, whose boundary ranks list the template's neighbors that
 * exist), then those of 2 and 3 dimensions periodic in some dimensions
 * only (a channel: walls in one direction), kept for the last size asked
 * (programs create their graphs on one size). */
static int inferred(int size, cand *c)
{
    static struct {
        int size, n;
        cand c[NH_MAXCAND];
    } last;
    int n = 0, dims[NH_MAXDIMS];
    nh_grid g;
    nh_lock(NH_LOCK_MISC);
    if (last.size == size && last.n > 0) {
        n = last.n;
        memcpy(c, last.c, (size_t)n * sizeof(*c));
    }
    nh_unlock(NH_LOCK_MISC);
    if (n > 0)
        return n;
    int per[NH_MAXDIMS];
    for (int d = 1; d <= NH_MAXDIMS && n < NH_MAXCAND / 3; d++) {
        memset(dims, 0, sizeof(dims));
        if (nh_mpi_Dims_create(size, d, dims) == MPI_SUCCESS && nh_grid_init(&g, d, dims, NULL) == 0)
            n = add_cand(c, n, &g, "inferred");
    }
    /* mask 0: no periods; 1 .. 2^d - 2: some (2 and 3 dimensions); a grid
     * of 1 or 2 ranks is its torus */
    for (int mask = 0, nt = n; mask < 7 && size > 2; mask++)
        for (int k = 0; k < nt && n < NH_MAXCAND; k++) {
            int d = c[k].g.ndims;
            if (mask && (d < 2 || d > 3 || mask >= (1 << d) - 1))
                continue;
            for (int j = 0; j < d; j++)
                per[j] = (mask >> j) & 1;
            if (nh_grid_init(&g, d, c[k].g.dims, per) == 0 && add_cand(c, n, &g, "inferred") > n)
                c[n++].mesh = 1;
        }
    nh_lock(NH_LOCK_MISC);
    last.size = size;
    last.n = n;
    memcpy(last.c, c, (size_t)n * sizeof(*c));
    nh_unlock(NH_LOCK_MISC);
    return n;
}

int nh_det_parent(MPI_Comm comm_old, nh_grid *g)
{
    int topo, dims[NH_MAXDIMS], periods[NH_MAXDIMS], coords[NH_MAXDIMS], nd;
    return comm_old != MPI_COMM_WORLD && /* (which has no topology: no call) */
           nh_mpi_Topo_test(comm_old, &topo) == MPI_SUCCESS && topo == MPI_CART &&
           nh_mpi_Cartdim_get(comm_old, &nd) == MPI_SUCCESS && nd >= 1 && nd <= NH_MAXDIMS &&
           nh_mpi_Cart_get(comm_old, nd, dims, periods, coords) == MPI_SUCCESS &&
           nh_grid_init(g, nd, dims, periods) == 0;
}

int nh_det_candidates(const nh_grid *parent, int size, const nh_hint *h, cand *c)
{
    int n = 0;
    nh_grid g;
    if (parent)
        n = add_cand(c, n, parent, "cart");
    if (h->ndims > 0 &&
        nh_grid_init(&g, h->ndims, h->dims, h->has_periods ? h->periods : NULL) == 0 &&
        g.size == size)
        n = add_cand(c, n, &g, "hint");
    if (n == 0 && h->ndims == 0)
        n = inferred(size, c);
    return n;
}

/* Of the candidates fit[] marks, the one to keep: the first, or among
 * inferred grids (several factorizations of one size) whose templates name
 * every peer once, the cheapest: the torus schedule's rounds and messages
 * (nh_nbhd_torus_cost) priced by the cost model's alpha and o.  A grid
 * that folds the neighborhood into few dimensions (a ring of 27 for a
 * 3x3x3 Moore neighborhood: 13 rounds, 26 messages) is dear; the grid it
 * was built on (3 rounds, 6 messages) cheap.  Where a grid's template
 * repeats an offset (-1 and +1 on a dimension of 2), which user offset an
 * entry stands for can differ from rank to rank on a grid other than the
 * user's, and v/w calls under isomorphic=true take a block's size from its
 * entry: there the first fit stays.  The same templates give the same
 * choice on every rank. */
int nh_det_repeats_offset(const nh_nbhd *nb)
{
    int d = nb->g.ndims, rep = 0;
    for (int t = 1; t < nb->s && !rep; t++) /* sorted: repeats are neighbors */
        rep = nh_offset_cmp(d, nb->off + (size_t)(t - 1) * d, nb->off + (size_t)t * d) == 0;
    return rep;
}

int nh_det_pick(const cand *c, int n, const int *fit, const nh_nbhd *nbs)
{
    int best = -1, first = -1, torus = 0;
    double bc = 0;
    for (int k = 0; k < n; k++) /* an inferred torus that fits wins over meshes */
        torus |= fit[k] && !c[k].mesh;
    for (int k = 0; k < n; k++) {
        if (!fit[k] || (torus && c[k].mesh))
            continue;
        if (strcmp(c[k].source, "inferred") != 0)
            return best >= 0 ? best : k;
        first = first < 0 ? k : first;
        if (nh_det_repeats_offset(&nbs[k]))
            continue;
        long rounds, msgs;
        nh_nbhd_torus_cost(&nbs[k], &rounds, &msgs);
        /* rounds phases of msgs / rounds messages each */
        double x = nh_cost_exchange(&nh_cfg.cost, (double)rounds, (double)msgs, (double)msgs, 0);
        if (best < 0 || x < bc) {
            best = k;
            bc = x;
        }
    }
    return best >= 0 ? best : first;
}

unsigned nh_det_cand_hash(const cand *c, int n)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < c[i].g.ndims; j++) {
            h = (h ^ (unsigned)c[i].g.dims[j]) * 16777619u;
            h = (h ^ (unsigned)c[i].g.periods[j]) * 16777619u;
        }
    return (h ^ (unsigned)n) & 0x3fffffff;
}
