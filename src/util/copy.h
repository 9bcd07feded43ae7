/* Block copies for packing, unpacking and local copies.
 *
 * glibc 2.36's memcpy moves more than about 2 KiB with `rep movsb`.  On
 * AMD EPYC hosts (this project's test box among them) that instruction
 * is 20-30x slower when the destination sits 1-31 bytes past the source
 * modulo the page: 2.5 us instead of 0.1 us for 4 KiB, 40 us instead of
 * 1.8 us for 64 KiB.  Such copies go in pieces of 2 KiB, which stay on
 * glibc's vector path; all others are one memcpy. */
#ifndef NH_COPY_H
#define NH_COPY_H

#include <stdint.h>
#include <string.h>

#define NH_COPY_PIECE 2048

static inline void nh_copy(void *to, const void *from, size_t n)
{
    uintptr_t ahead = ((uintptr_t)to - (uintptr_t)from) & 4095;
    char *t = to;
    const char *f = from;
    while (ahead > 0 && ahead < 64 && n > NH_COPY_PIECE) {
        memcpy(t, f, NH_COPY_PIECE);
        t += NH_COPY_PIECE;
        f += NH_COPY_PIECE;
        n -= NH_COPY_PIECE;
    }
    memcpy(t, f, n);
}

#endif
