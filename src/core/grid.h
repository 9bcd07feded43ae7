/* Grids and neighborhoods: pure functions, no MPI.
 *
 * A grid is a d-dimensional torus or mesh with row-major rank order (the
 * order MPI Cartesian communicators use).  A neighborhood is a canonical
 * template of relative offsets that every rank shares, plus per-rank slot
 * maps that tie template entries to the user's buffer slots. */
#ifndef NH_GRID_H
#define NH_GRID_H

#include <stddef.h>
#include <stdint.h>

#define NH_MAXDIMS 8
#define NH_NONE (-1) /* no rank / no slot (MPI_PROC_NULL semantics) */
#define NH_MAX_PORTS 8 /* messages a rank may send at once in k-ported schedules */

typedef struct nh_grid {
    int ndims;
    int dims[NH_MAXDIMS];
    int periods[NH_MAXDIMS];
    int size; /* product of dims */
} nh_grid;

/* The greatest common divisor of |a| and |b| (0 where both are 0). */
static inline int nh_gcd(int a, int b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Fills size; returns 0 if dims are all >= 1 and ndims in 1..NH_MAXDIMS. */
int nh_grid_init(nh_grid *g, int ndims, const int *dims, const int *periods);
void nh_grid_coords(const nh_grid *g, int rank, int *coords);
/* Rank of coords + sign*off; NH_NONE if it leaves a non-periodic dimension. */
int nh_grid_shift(const nh_grid *g, const int *coords, const int *off, int sign);
/* Rank of coords + k*e_dim (k may be negative). */
int nh_grid_step(const nh_grid *g, const int *coords, int dim, int k);
/* Periodic dimensions: map each coordinate to (-p/2, p/2], so offsets that
 * name the same rank become equal and hop counts are minimal. */
void nh_grid_normalize(const nh_grid *g, int *off);
/* The edges a grid neighborhood with template tmpl (s offsets of
 * g->ndims ints) has over all ranks: each offset once per rank it leads
 * to a rank from, p where every dimension is periodic. */
long long nh_grid_edges(const nh_grid *g, int s, const int *tmpl);
/* Is every dimension periodic (a torus: every rank an interior one)? */
int nh_grid_periodic(const nh_grid *g);
/* Removes size-1 dimensions; two grids are equivalent if reduced equal. */
int nh_grid_equiv(const nh_grid *a, const nh_grid *b);
void nh_grid_format(const nh_grid *g, char *buf, size_t len); /* "4x4x2" */
/* Balanced factorization of p into d non-increasing factors (what
 * MPI_Dims_create returns for all-zero dims), for tools without MPI. */
void nh_grid_balanced(int p, int d, int *dims);

typedef struct nh_nbhd {
    nh_grid g;
    int rank;
    int coords[NH_MAXDIMS];
    int s;          /* template size */
    int *off;       /* s * g.ndims offsets, normalized, sorted lexicographically */
    int *send_slot; /* template t -> user send block index, NH_NONE if target out of range */
    int *recv_slot; /* template t -> user recv block index, NH_NONE if source out of range */
    int outdeg, indeg;
    int src_repeats; /* a rank appears twice among the sources: 1, 0, or -1 (not known) */
    int ports;       /* k-ported builders (bruck): messages per phase, 1..NH_MAX_PORTS (0: 1) */
    uint64_t summary; /* nh_offsets_summary of off where its builder found it on the way
                       * (nh_nbhd_torus_dests), else 0 */
} nh_nbhd;

int nh_offset_cmp(int ndims, const int *a, const int *b);

/* Offsets of a rank's neighbor list relative to its own coordinates
 * (sign=+1 for destinations: off = dst - me; sign=-1 for sources:
 * off = me - src), normalized and sorted stably.  perm[k] is the list index
 * of the k-th sorted entry.  Returns 0, or -1 if a rank is out of range,
 * the list holds 2^24 entries or more, or memory runs out. */
int nh_local_offsets(const nh_grid *g, int rank, int n, const int *ranks, int sign, int *off_sorted,
                     int *perm);

/* A summary of the set of a rank's destination offsets (as
 * nh_local_offsets normalizes them), order and repeats aside: one of bits
 * 0-62 per distinct offset, bit 63 set; 0 where a rank is out of range.
 * nh_dests_summaries fills sum[i] for each of ng grids g[i] with the
 * same dimensions (periods may differ: the ranks' coordinates are found
 * once); nh_offsets_summary summarizes n offsets already computed. */
void nh_dests_summaries(const nh_grid *const *g, int ng, int rank, int n, const int *dests,
                        uint64_t *sum);
uint64_t nh_offsets_summary(const nh_grid *g, int n, const int *off);

/* Checks that a rank's sorted offsets equal the template filtered to the
 * entries whose peer (me + sign*off) exists, and fills slot[t].  The k-th
 * template entry of an offset class maps to the k-th occurrence of that peer
 * in the user's list, which is MPI's matching order for repeated edges. */
int nh_match_template(const nh_grid *g, const int *coords, int s, const int *tmpl, int n,
                      const int *off_sorted, const int *perm, int sign, int *slot);

/* Builds a neighborhood for one rank from its neighbor lists and a template
 * (all ranks must pass the same template; NULL: this rank's own sorted
 * destination offsets, s = outdeg).  Returns 0 on success, 1 if the lists
 * do not fit the template, -1 on allocation failure. */
int nh_nbhd_init(nh_nbhd *nb, const nh_grid *g, int rank, int s, const int *tmpl, int outdeg,
                 const int *dests, int indeg, const int *srcs);
void nh_nbhd_fini(nh_nbhd *nb);
/* The torus schedule's rounds and messages in closed form: per dimension
 * the farthest step each way (max c_j, max -c_j; the paper's D). */
void nh_nbhd_torus_cost(const nh_nbhd *nb, long *rounds, long *msgs);
/* The destination half of nh_nbhd_init with this rank's own template, on
 * a torus with at most 64 neighbors: recv_slot is left NH_NONE for
 * nh_nbhd_fill_recv, and src_repeats is read off the destinations (where
 * every rank has this template, a consistent graph gives each rank the
 * sources r - t, which repeat where r + t do).  Returns 0, 1 if it does
 * not apply or a rank is out of range, -1 on allocation failure. */
int nh_nbhd_torus_dests(nh_nbhd *nb, const nh_grid *g, int rank, int outdeg, const int *dests,
                        int indeg);
/* The other half: recv_slot from the sources.  0, 1 if they do not fit
 * the template, -1 on allocation failure. */
int nh_nbhd_fill_recv(nh_nbhd *nb, const int *srcs);

/* 1 if MPI's type-signature matching forces every rank to use the same
 * block size for this template (sizes are "coupled" through shared
 * targets), so a size-dependent algorithm choice is identical everywhere.
 * Pure computation over the whole grid: O(size * s). */
int nh_sizes_coupled(const nh_grid *g, int s, const int *tmpl);

#endif
