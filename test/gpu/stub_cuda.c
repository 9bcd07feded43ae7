/* A stand-in for the CUDA driver in nhood's tests (stub.h): built as
 * test/gpu/stub/libcuda.so.1.  It answers cuPointerGetAttributes from the
 * table of ranges the test declared device or managed memory; any other
 * address is memory the driver does not know (type 0), as the real driver
 * answers for malloc'ed memory.  It has one device, whose primary context
 * is current unless the test says there is none (nhstub_start(0): a
 * driver loaded only to enumerate devices, as hwloc's plugins load it).
 * None of the driver's calls that nhood makes starts it.  Values from
 * CUDA's cuda.h. */
#include "stub.h"

enum { CUDA_SUCCESS = 0, CUDA_ERROR_INVALID_VALUE = 1 };
enum { ATTR_MEMORY_TYPE = 2, ATTR_IS_MANAGED = 8 };
enum { MEMORYTYPE_DEVICE = 2 };

static int context = 1;

EXPORT void nhstub_start(int on)
{
    context = on;
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

EXPORT int cuPointerGetAttributes(unsigned n, const int *attrs, void **data,
                                  unsigned long long ptr)
{
    int kind = stub_kind((uintptr_t)ptr);
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
