/* A block of memory kept for the next caller that needs as much: memory
 * of megabytes allocated afresh at every call costs more in page faults
 * than the work done in it (util/spare.c). */
#ifndef NH_UTIL_SPARE_H
#define NH_UTIL_SPARE_H

#include <stddef.h>

/* bytes of memory, uninitialized: the kept block where it is as large
 * (taken: another caller gets its own meanwhile), else a fresh one; *got:
 * its size, to give back.  NULL without memory. */
char *nh_spare_take(size_t bytes, size_t *got);
/* Gives back what nh_spare_take gave: kept where it is above
 * NH_SPARE_MIN bytes and larger than the block kept, else freed. */
void nh_spare_give(char *mem, size_t bytes);
/* Frees the kept block (MPI_Finalize). */
void nh_spare_fini(void);

#define NH_SPARE_MIN 65536

#endif
