/* A block of memory kept for the next caller that needs as much: memory
 * of megabytes allocated afresh at every call costs more in page faults
 * than the work done in it, and a malloc and free of a few KiB at every
 * call of a graph used once were a tenth of nhood's part of it (MPICH
 * 4.2.1, 2 ranks, 3-D Moore).  One block is kept for each use, so that
 * a call's state never takes the block its data needs (util/spare.c). */
#ifndef NH_UTIL_SPARE_H
#define NH_UTIL_SPARE_H

#include <stddef.h>

typedef enum nh_spare_use {
    NH_SPARE_STATE, /* a call's state and arrays (api/cold.c's op) */
    NH_SPARE_DATA,  /* a call's data regions */
    NH_SPARE_USES
} nh_spare_use;

/* bytes of memory (or more), uninitialized: the block kept for use where
 * it is as large (taken: another caller gets its own meanwhile), else a
 * fresh one.  NULL without memory. */
char *nh_spare_take(nh_spare_use use, size_t bytes);
/* Gives back what nh_spare_take gave (NULL: nothing): kept for its use
 * where no block is, or it is the larger, else freed. */
void nh_spare_give(char *mem);
/* Frees the kept blocks (MPI_Finalize). */
void nh_spare_fini(void);

#endif
