/* What nhood's stand-ins for GPU runtimes share (never installed;
 * stub_cuda.c, stub_hip.c, stub_ze.c): each is built under its runtime's
 * library name and soname, so that nhood (src/util/gpu.c) takes it for
 * the real one, and each exports the same calls for the tests:
 *  - nhstub_mark(p, len, kind): [p, p + len) is device (kind 1) or
 *    managed (2) memory from now on, or forgotten (0); 0, or -1 when the
 *    table is full;
 *  - nhstub_start(on): the program starts the runtime (on = 1: the CUDA
 *    driver's primary context, hipInit, zeInit; each opens its device
 *    node where the real one does) or leaves it only loaded (0, as
 *    hwloc's plugins leave it);
 *  - nhstub_queries(): how many pointers were asked about;
 *  - nhstub_early(): calls made before the runtime was started that
 *    would have started the real one (HIP: every call; Level Zero: every
 *    call but zeInit).  nhood must make none.
 * Device nodes are opened in NHOOD_GPU_DEV_DIR (the tests' fake /dev). */
#ifndef NH_TEST_GPU_STUB_H
#define NH_TEST_GPU_STUB_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

#define MAX_RANGES 64
static struct {
    uintptr_t lo, hi;
    int kind; /* 1 device, 2 managed */
} ranges[MAX_RANGES];
static int nranges;
static long queries, early;

EXPORT int nhstub_mark(const void *p, size_t len, int kind)
{
    uintptr_t lo = (uintptr_t)p;
    for (int i = 0; i < nranges; i++)
        if (ranges[i].lo == lo) {
            ranges[i].hi = lo + len;
            ranges[i].kind = kind;
            return 0;
        }
    if (nranges == MAX_RANGES)
        return -1;
    ranges[nranges].lo = lo;
    ranges[nranges].hi = lo + len;
    ranges[nranges++].kind = kind;
    return 0;
}

/* What the table says of ptr (0: memory the runtime does not know), one
 * query counted. */
static int stub_kind(uintptr_t ptr)
{
    int kind = 0;
    __atomic_add_fetch(&queries, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < nranges; i++)
        if (ptr >= ranges[i].lo && ptr < ranges[i].hi)
            kind = ranges[i].kind;
    return kind;
}

EXPORT long nhstub_queries(void)
{
    return __atomic_load_n(&queries, __ATOMIC_RELAXED);
}

EXPORT long nhstub_early(void)
{
    return __atomic_load_n(&early, __ATOMIC_RELAXED);
}

/* Opens node (kfd, dri/renderD128) under the fake /dev, as a runtime's
 * initialization opens its device; the descriptor stays open. */
static void stub_open_node(const char *node)
{
    char path[4096];
    const char *dir = getenv("NHOOD_GPU_DEV_DIR");
    snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "/dev", node);
    if (open(path, O_RDONLY | O_CLOEXEC) < 0)
        perror(path);
}

#endif
