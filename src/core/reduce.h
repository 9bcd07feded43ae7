/* Schedules for the isomorphic sparse reductions (Iso_neighbor_reduce,
 * Iso_neighbor_scatter_reduce): pure functions of the grid, the rank and
 * the offsets, no MPI.
 *
 * Process R must end with the reduction of the contributions of its
 * existing sources R - C_i (block i of that source's send buffer for
 * scatter_reduce, its one vector for reduce).  Two algorithms:
 *
 * direct   one message per offset: send the contribution to R + C_i,
 *          receive from R - C_i into a temp block, reduce locally.
 * dimwise  the allgather trie of the paper run in reverse: a contribution
 *          moves dimension by dimension (by its whole coordinate in one
 *          message, as torus_direct does), and contributions that have
 *          the same remaining route (the same suffix of coordinates) are
 *          reduced at the intermediate process before they go on.  A
 *          partial result at level j is an accumulator keyed by the
 *          suffix (c_{j+1}, ..., c_{d-1}); level d-1 is the result.  For
 *          reduce, the contributions at level 0 are all the same vector,
 *          so it is sent once per coordinate value and reduced into every
 *          accumulator that needs it.
 *
 * In a mesh, dimension-wise routes stay inside the grid exactly when both
 * ends exist (every intermediate coordinate is the source's or the
 * target's), so a partial result is sent only when some contribution in it
 * exists and its destination exists; both ends evaluate the same
 * predicate on the sender's coordinates, so they agree on every message
 * without communication.  Every rank builds the same sequence of messages
 * (only block lists differ at mesh boundaries); a message's index is its
 * tag. */
#ifndef NH_REDUCE_H
#define NH_REDUCE_H

#include <stddef.h>

#include "core/grid.h"

/* A node: >= 0 an accumulator (temp block), < 0 the contribution of offset
 * i (leaf) in the user's send buffer. */
#define NH_RLEAF(i) (-1 - (i))
#define NH_RIS_LEAF(r) ((r) < 0)
#define NH_RLEAF_IDX(r) (-1 - (r))

typedef struct nh_rmsg {
    int sendpeer, recvpeer; /* NH_NONE: nothing to send / receive */
    int nsend;
    int *send; /* nodes sent, in order */
    int nrecv; /* blocks received */
    int nred;
    int *red_blk, *red_acc; /* received block red_blk[k] is reduced into red_acc[k] */
} nh_rmsg;

typedef struct nh_rlocal {
    int src; /* node */
    int acc;
} nh_rlocal;

/* Messages of a step run concurrently; then the reductions of the step. */
typedef struct nh_rstep {
    int nmsg;
    nh_rmsg *msg; /* tag = first_tag + index */
    int first_tag;
    int nlocal;
    nh_rlocal *local;
} nh_rstep;

typedef enum { NH_RED_DIRECT = 0, NH_RED_DIMWISE, NH_RED_COUNT } nh_red_algo;

typedef struct nh_rsched {
    nh_red_algo algo;
    int scatter;
    int nacc;
    int root; /* the accumulator that ends with the result */
    int nsteps;
    nh_rstep *steps;
    int ntags;
    long msgs, blocks; /* this rank: messages and blocks sent */
    int maxrecv;       /* most blocks received in one step */
} nh_rsched;

extern const char *const nh_red_algo_names[NH_RED_COUNT];

/* off: s offsets of g->ndims ints in the user's order (block i of a
 * scatter_reduce send buffer goes to offset i).  Returns 0, or -1 when out
 * of memory. */
int nh_rsched_build(const nh_grid *g, int rank, int s, const int *off, int scatter,
                    nh_red_algo algo, nh_rsched **out);
void nh_rsched_free(nh_rsched *rs);

/* Runs every rank's schedule on symbolic data (a contribution is a unit
 * vector over (source rank, offset)) and checks that each rank's result
 * holds each of its contributions exactly once and nothing else, that
 * both ends of every message agree on peer and size, and that nothing is
 * sent before it was computed.  Returns 0 if so; 1 with why filled; -1
 * when out of memory.  msgs/blocks (may be NULL): most messages and blocks
 * any rank sends. */
int nh_rsched_simulate(const nh_grid *g, int s, const int *off, int scatter, nh_red_algo algo,
                       long *msgs, long *blocks, char *why, size_t len);

#endif
