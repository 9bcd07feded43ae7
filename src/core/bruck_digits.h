/* Digit systems for bruck (src/core/bruck.c): per direction, which scalar
 * hops each phase offers so that every coordinate value a neighborhood
 * needs is a sum of at most one hop per phase.  Pure. */
#ifndef NH_BRUCK_DIGITS_H
#define NH_BRUCK_DIGITS_H

#include "core/grid.h"

#define BR_MAXPH 64 /* phases of a plan (a digit system per dimension) */

/* A digit system along one direction: per phase the scalar hops. */
typedef struct sys1 {
    int nph;
    int nhop[BR_MAXPH];
    int hop[BR_MAXPH][NH_MAX_PORTS];
} sys1;

/* Reachable sums after each phase: the fewest hops taken to reach x and
 * the hop taken in the last phase (-1: stayed), for backtracking. */
typedef struct dp1 {
    int lo, w; /* sums in [lo, lo + w) */
    short *cost; /* (nph + 1) * w, -1 unreachable */
    signed char *via;
} dp1;

/* Fills d over the sums reachable with y, restricted to hops of sign sgn
 * (0: any).  0, or -1 (memory). */
int nh_br_dp_run(const sys1 *y, int sgn, dp1 *d);
/* The hop of each phase (index, -1: none) that writes v into choice;
 * 0, or -1 if v is not written. */
int nh_br_dp_path(const sys1 *y, const dp1 *d, int v, int *choice);
void nh_br_dp_free(dp1 *d);
/* The cheapest digit system with k ports that writes every value of
 * vals[0..n) (monotone: with hops of the value's own sign only): fewest
 * phases, then messages, then hops taken.  0, or -1 (memory). */
int nh_br_best_sys(const int *vals, int n, int k, int monotone, sys1 *out);

#endif
