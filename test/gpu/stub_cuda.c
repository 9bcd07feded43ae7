/* A stand-in for the CUDA driver in nhood's tests (never installed): built
 * as test/gpu/stub/libcuda.so.1 with that soname, so that nhood, which
 * looks for a loaded libcuda.so.1 (src/util/gpu.c), takes it for the real
 * one.  It answers cuPointerGetAttributes from a table of host ranges the
 * test declared device or managed memory (nhstub_cuda_mark); any other
 * address is memory the driver does not know (type 0), as the real driver
 * answers for malloc'ed memory.  It has one device, whose primary context
 * is current until the test says there is none (nhstub_cuda_context: a
 * driver loaded only to enumerate devices, as hwloc's plugins load it).
 * Values from CUDA's cuda.h. */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };
enum { ATTR_MEMORY_TYPE = 2, ATTR_IS_MANAGED = 8 };
enum { MEMORYTYPE_DEVICE = 2 };

#define MAX_RANGES 64
static struct {
    uintptr_t lo, hi;
    int kind; /* 1 device, 2 managed */
} ranges[MAX_RANGES];
static int nranges;
static long queries;
static int context = 1;

/* Declares [p, p + len) device (kind 1) or managed (2) memory, or forgets
 * it (0).  Returns 0, or -1 when the table is full. */
EXPORT int nhstub_cuda_mark(const void *p, size_t len, int kind)
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

/* Whether the device's primary context exists (and is current). */
EXPORT void nhstub_cuda_context(int active)
{
    context = active;
}

EXPORT int cuCtxGetCurrent(void **ctx)
{
    *ctx = context ? (void *)&context : NULL;
    return CUDA_SUCCESS;
}

EXPORT int cuDeviceGetCount(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

EXPORT int cuDevicePrimaryCtxGetState(int dev, unsigned *flags, int *active)
{
    if (dev != 0)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    *active = context;
    return CUDA_SUCCESS;
}

/* How many pointers were asked about. */
EXPORT long nhstub_cuda_queries(void)
{
    return __atomic_load_n(&queries, __ATOMIC_RELAXED);
}

EXPORT int cuPointerGetAttributes(unsigned n, const int *attrs, void **data,
                                  unsigned long long ptr)
{
    int kind = 0;
    __atomic_add_fetch(&queries, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < nranges; i++)
        if (ptr >= ranges[i].lo && ptr < ranges[i].hi)
            kind = ranges[i].kind;
    for (unsigned k = 0; k < n; k++) {
        if (attrs[k] == ATTR_MEMORY_TYPE)
            *(unsigned *)data[k] = kind ? MEMORYTYPE_DEVICE : 0;
        else if (attrs[k] == ATTR_IS_MANAGED)
            *(int *)data[k] = kind == 2;
        else
            return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}
