/* Shared by the fuzz targets: a byte reader that turns the fuzzer's input
 * into bounded parameters (running out of input yields zeros, so every
 * input is valid), and the failure exit.  The targets are pure (no MPI):
 * they link libnhcore only, so `make check` can replay the committed
 * corpus with the normal compiler (replay.c). */
#ifndef NH_FUZZ_H
#define NH_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/sched.h"

typedef struct fz {
    const uint8_t *p;
    size_t n;
} fz;

static inline unsigned fz_byte(fz *f)
{
    if (f->n == 0)
        return 0;
    f->n--;
    return *f->p++;
}

/* A value in [lo, hi]. */
static inline int fz_range(fz *f, int lo, int hi)
{
    unsigned span = (unsigned)(hi - lo) + 1, v = fz_byte(f);
    if (span > 256)
        v = v << 8 | fz_byte(f);
    return lo + (int)(v % span);
}

static inline unsigned fz_u32(fz *f)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 8 | fz_byte(f);
    return v;
}

/* A grid of 1..4 dimensions with at most maxsize ranks; each dimension is
 * periodic or not. */
static inline void fz_grid(fz *f, nh_grid *g, int maxsize)
{
    int d = fz_range(f, 1, 4), dims[4], periods[4], size = 1;
    for (int j = 0; j < d; j++) {
        dims[j] = fz_range(f, 1, 6);
        while (dims[j] > 1 && size * dims[j] > maxsize)
            dims[j]--;
        size *= dims[j];
        periods[j] = (int)(fz_byte(f) & 1);
    }
    nh_grid_init(g, d, dims, periods);
}

/* A violated invariant: say what and where, then abort so the fuzzer
 * records the input and the replay test fails. */
#define FZ_FAIL(...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "fuzz: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        abort();                                                                                   \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
