/* A neighbor list's places grouped by peer: for each place, the first
 * place of its peer and the peer's next place, in list order.  The grouped
 * form of MPI's exchange (plan/cold.c, api/cold.c) sends a peer's blocks
 * as one message from these.  Pure, no MPI: null is the library's
 * MPI_PROC_NULL (negative, below every rank). */
#ifndef NH_CORE_PLACES_H
#define NH_CORE_PLACES_H

/* first[k]: the first place of list[k]'s peer (-1 for null); next[k]: its
 * next place (-1 after the last); *self: the first place of rank me (-1:
 * none); *nulls: null's places.  Returns whether some peer other than
 * null has two places, or -1 without memory. */
int nh_places(const int *list, int n, int me, int null, int *first, int *next, int *self,
              int *nulls);

#endif
