/* A stand-in for ROCm 6's HIP runtime in nhood's tests (stub.h): built as
 * test/gpu/stub/libamdhip64.so.6.  As the real runtime, every HIP call
 * starts it (opening the KFD, <NHOOD_GPU_DEV_DIR>/kfd) where it has not
 * started yet, and counts as early where the test did not start it
 * (nhstub_start(1) is the program's hipInit).  hipPointerGetAttributes
 * answers from the table of ranges in ROCm 6's layout and values
 * (hip_runtime_api.h): hipMemoryTypeDevice 2, hipMemoryTypeManaged 3;
 * unregistered memory is type 0. */
#include "stub.h"

enum { hipSuccess = 0 };
enum { TYPE_DEVICE = 2, TYPE_MANAGED = 3 };

static int started;

/* Every HIP call: the runtime starts here if it has not. */
static void stub_hip_call(void)
{
    if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
        return;
    stub_open_node("kfd");
}

EXPORT void nhstub_start(int on)
{
    if (on)
        stub_hip_call();
}

static void stub_hip_api(void)
{
    if (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        __atomic_add_fetch(&early, 1, __ATOMIC_RELAXED);
    stub_hip_call();
}

EXPORT int hipInit(unsigned flags)
{
    (void)flags;
    stub_hip_api();
    return hipSuccess;
}

EXPORT int hipRuntimeGetVersion(int *v)
{
    stub_hip_api();
    *v = 60200000;
    return hipSuccess;
}

/* ROCm 6's hipPointerAttribute_t */
typedef struct {
    int type, device;
    void *devicePointer, *hostPointer;
    int isManaged;
    unsigned allocationFlags;
} stub_hip_attrs;

EXPORT int hipPointerGetAttributes(stub_hip_attrs *a, const void *ptr)
{
    stub_hip_api();
    int kind = stub_kind((uintptr_t)ptr);
    a->type = kind == 1 ? TYPE_DEVICE : kind == 2 ? TYPE_MANAGED : 0;
    a->device = 0;
    a->devicePointer = kind ? (void *)ptr : NULL;
    a->hostPointer = NULL;
    a->isManaged = kind == 2;
    a->allocationFlags = 0;
    return hipSuccess;
}
