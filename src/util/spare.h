/* A block of memory kept for the next caller that needs as much: memory
 * of megabytes allocated afresh at every call costs more in page faults
 * than the work done in it, and a malloc and free of a few KiB at every
 * call of a graph used once were a tenth of nhood's part of it (MPICH
 * 4.2.1, 2 ranks, 3-D Moore).  One block is kept of at most NH_SPARE_MIN
 * bytes and one above (util/spare.c). */
#ifndef NH_UTIL_SPARE_H
#define NH_UTIL_SPARE_H

#include <stddef.h>

/* bytes of memory (or more), uninitialized: the kept block of bytes'
 * class where it is as large (taken: another caller gets its own
 * meanwhile), else a fresh one.  NULL without memory. */
char *nh_spare_take(size_t bytes);
/* Gives back what nh_spare_take gave (NULL: nothing): kept where no block
 * of its class is, or it is the larger, else freed. */
void nh_spare_give(char *mem);
/* Frees the kept blocks (MPI_Finalize). */
void nh_spare_fini(void);

#define NH_SPARE_MIN 65536

#endif
