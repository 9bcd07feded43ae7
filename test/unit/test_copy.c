/* nh_copy (src/util/copy.h): every relative offset that takes the backward
 * path and its neighbours, lengths around the short limit and the step
 * (with and without a remainder), against a byte by byte copy; the bytes
 * around the destination stay untouched. */
#include <stdio.h>
#include <stdlib.h>

#include "util/copy.h"

int main(void)
{
    enum { PAGE = 4096, LEN = 3 * NH_COPY_SHORT + 4 * PAGE };
    int tried = 0;
    /* (aligned_alloc's size a multiple of the alignment: C11, and ASan checks it) */
    size_t room = (LEN + PAGE - 1) / PAGE * PAGE;
    unsigned char *src = aligned_alloc(PAGE, room), *dst = aligned_alloc(PAGE, room);
    size_t lens[] = {0,
                     1,
                     NH_COPY_STEP - 1,
                     NH_COPY_SHORT - 1,
                     NH_COPY_SHORT,
                     NH_COPY_SHORT + 1,
                     NH_COPY_SHORT + NH_COPY_STEP - 1,
                     NH_COPY_SHORT + NH_COPY_STEP,
                     2 * NH_COPY_SHORT + 7,
                     3 * NH_COPY_SHORT + PAGE - 3};
    if (!src || !dst)
        return 1;
    for (size_t i = 0; i < LEN; i++)
        src[i] = (unsigned char)(i * 131 + 7);
    for (int ahead = -8; ahead <= 72; ahead++)
        for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
            size_t n = lens[l], s0 = 100, d0 = s0 + PAGE + (size_t)ahead;
            memset(dst, 0xEE, LEN);
            nh_copy(dst + d0, src + s0, n);
            tried++;
            for (size_t i = 0; i < LEN; i++) {
                unsigned char want = i >= d0 && i < d0 + n ? src[s0 + i - d0] : 0xEE;
                if (dst[i] != want) {
                    fprintf(stderr, "ahead %d, %zu bytes: byte %zu is %d, not %d\n", ahead, n,
                            i, dst[i], want);
                    return 1;
                }
            }
        }
    free(src);
    free(dst);
    printf("test_copy: %d copies ok\n", tried);
    return 0;
}
