/* nhood-copy: what a block copy costs at each relative offset of its
 * destination from its source modulo the page (src/util/copy.h), three
 * ways in turn: one memcpy, memcpy in 2 KiB pieces forward (nh_copy
 * before 2026-12-07), and nh_copy.  No MPI.
 * Usage: nhood-copy [BYTES...] (default 4096 65536 262144)
 * CSV on stdout: bytes,ahead,memcpy_us,pieces_us,nh_copy_us, each the
 * least of 40 rounds, the three alternating within a round; then, per
 * size, the slowest of the offsets 1 to 63 each way against its aligned
 * copy (ahead 0), on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/copy.h"

#define PIECE 2048
#define ROUNDS 40

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pieces(char *t, const char *f, size_t n)
{
    for (; n > PIECE; t += PIECE, f += PIECE, n -= PIECE)
        memcpy(t, f, PIECE);
    memcpy(t, f, n);
}

int main(int argc, char **argv)
{
    size_t dflt[] = {4096, 65536, 262144}, nsizes = argc > 1 ? (size_t)argc - 1 : 3;
    size_t *sizes = argc > 1 ? calloc(nsizes, sizeof(size_t)) : dflt, most = 0;
    for (size_t k = 0; sizes && k < nsizes; k++) {
        char *end = NULL;
        if (argc > 1)
            sizes[k] = strtoul(argv[k + 1], &end, 10);
        if ((end && *end) || sizes[k] == 0 || sizes[k] > ((size_t)1 << 30)) {
            fprintf(stderr,
                    "nhood-copy: a size is a byte count from 1 to 2^30, not '%s'\n"
                    "usage: nhood-copy [BYTES...]\n",
                    argv[k + 1]);
            return 2;
        }
        most = sizes[k] > most ? sizes[k] : most;
    }
    size_t room = (most + 3 * 4096) / 4096 * 4096;
    char *src = aligned_alloc(4096, room), *dst = aligned_alloc(4096, room);
    if (!sizes || !src || !dst)
        return 1;
    memset(src, 1, room);
    memset(dst, 2, room);
    printf("bytes,ahead,memcpy_us,pieces_us,nh_copy_us\n");
    for (size_t k = 0; k < nsizes; k++) {
        size_t n = sizes[k];
        double worst[3] = {0, 0, 0}, at0[3] = {0, 0, 0};
        for (int ahead = 0; ahead < 64; ahead++) {
            char *d = dst + 4096 + ahead;
            const char *f = src + 4096;
            double best[3] = {1e30, 1e30, 1e30};
            for (int r = 0; r < ROUNDS; r++) {
                double t0 = now();
                memcpy(d, f, n);
                double t1 = now();
                pieces(d, f, n);
                double t2 = now();
                nh_copy(d, f, n);
                double t3 = now(), t[3] = {t1 - t0, t2 - t1, t3 - t2};
                for (int w = 0; w < 3; w++)
                    best[w] = t[w] < best[w] ? t[w] : best[w];
            }
            printf("%zu,%d,%.3f,%.3f,%.3f\n", n, ahead, best[0] * 1e6, best[1] * 1e6,
                   best[2] * 1e6);
            for (int w = 0; w < 3; w++) {
                if (ahead == 0)
                    at0[w] = best[w];
                else if (best[w] > worst[w])
                    worst[w] = best[w];
            }
        }
        fprintf(stderr,
                "%zu bytes, offsets 1-63, slowest over aligned: memcpy %.2f, pieces %.2f, "
                "nh_copy %.2f\n",
                n, worst[0] / at0[0], worst[1] / at0[1], worst[2] / at0[2]);
    }
    if (sizes != dflt)
        free(sizes);
    free(src);
    free(dst);
    return 0;
}
