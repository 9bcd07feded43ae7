/* Block copies for packing, unpacking and local copies.
 *
 * glibc's memcpy moves more than about 2 KiB with `rep movsb`, forward.
 * Where the destination sits a few bytes past the source modulo the
 * page, each load then waits on a store just made to an address with the
 * same low 12 bits (4K aliasing), and on AMD EPYC hosts the copy runs 4
 * to 30 times slower than an aligned one: on one host 2.5 us instead of
 * 0.1 for 4 KiB, 40 instead of 1.8 for 64 KiB (1-31 bytes past); on a
 * later one (Zen 4, glibc 2.36) 31-36 us instead of 1.4 for 64 KiB (1-15
 * bytes past) and 2.6 (16-31).  Copied in 2 KiB pieces forward, glibc's
 * vector path, the first host took 0.1 us for 4 KiB, the later one 4.4
 * to 6 us for 64 KiB, twice memcpy's time at 16-31 bytes.  Copies whose
 * destination is 1 to 31 bytes past therefore go backward in 64-byte
 * moves: the loads run ahead of the stores, below them, and never meet
 * one; 1.8 to 2.1 us for 64 KiB on the later host (memcpy 1.4 aligned;
 * test/bench/copy_offsets.c, nhood-copy).  From 32 bytes on memcpy is as
 * fast or faster on both hosts.  All others are one memcpy. */
#ifndef NH_COPY_H
#define NH_COPY_H

#include <stdint.h>
#include <string.h>

/* Copies of at most this many bytes are always one memcpy (glibc's vector
 * path below its rep movsb threshold). */
#define NH_COPY_SHORT 2048
#define NH_COPY_NEAR 32 /* destinations 1 to NH_COPY_NEAR - 1 bytes past go backward */
#define NH_COPY_STEP 64 /* ... in moves of this many bytes */

static inline void nh_copy(void *to, const void *from, size_t n)
{
    uintptr_t ahead = ((uintptr_t)to - (uintptr_t)from) & 4095;
    if (ahead == 0 || ahead >= NH_COPY_NEAR || n <= NH_COPY_SHORT) {
        memcpy(to, from, n);
        return;
    }
    char *t = to;
    const char *f = from;
    size_t i = n - n % NH_COPY_STEP;
    memcpy(t + i, f + i, n - i);
    while (i > 0) {
        i -= NH_COPY_STEP;
        memcpy(t + i, f + i, NH_COPY_STEP);
    }
}

#endif
