/* GPU memory classification (util/gpu.h).
 *
 * nhood links no GPU library.  A runtime the program already loaded is
 * found among the loaded objects by its file name (util/objects.h),
 * opened with dlopen(RTLD_NOW | RTLD_NOLOAD), which never loads one, and
 * its pointer query taken with dlsym.  The few types and values used are
 * declared here from the vendors' public headers:
 *  - CUDA driver (libcuda.so.1): cuPointerGetAttributes with
 *    CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) and CU_POINTER_ATTRIBUTE_IS_MANAGED
 *    (8); CUmemorytype HOST 1, DEVICE 2, ARRAY 3, UNIFIED 4.  Memory the
 *    driver does not know (plain malloc) comes back as type 0.  As Open MPI
 *    does, CUDA_ERROR_INVALID_VALUE (1) and CUDA_ERROR_NOT_INITIALIZED (3)
 *    mean host memory (no context yet: nothing is device memory), and so
 *    does any other error (a wrong "device" would stop a promised job).
 *    Pinned host memory (cuMemAllocHost, cudaMallocHost) is host memory.
 *  - HIP (libamdhip64.so): hipPointerGetAttributes, whose structure and
 *    hipMemoryType values changed in ROCm 6 (hipRuntimeGetVersion tells
 *    which): ROCm 5 {memoryType; device; devicePointer; hostPointer;
 *    isManaged; ...} with Host 0, Device 1, Array 2, Unified 3, Managed 4;
 *    ROCm 6 {type; device; devicePointer; hostPointer; ...} with
 *    Unregistered 0, Host 1, Device 2, Managed 3, Array 10, Unified 11.
 *    An error (ROCm 5: unregistered memory) means host memory.
 *  - Level Zero (libze_loader.so.1): zeMemGetAllocProperties needs the
 *    context the memory was allocated in, which only the program has; a
 *    loaded Level Zero counts for the agreement (plan/detect.c), but its
 *    buffers are not classified (docs/gpu.md). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/gpu.h"
#include "util/objects.h"

int nh_gpu_runtimes;

typedef int (*cu_attrs_fn)(unsigned n, int *attrs, void **data, unsigned long long ptr);
typedef int (*cu_ctx_current_fn)(void **ctx);
typedef int (*cu_count_fn)(int *n);
typedef int (*cu_primary_state_fn)(int dev, unsigned *flags, int *active);
typedef int (*hip_attrs_fn)(void *attr, const void *ptr);
typedef int (*hip_version_fn)(int *v);

static cu_attrs_fn cu_attrs;
static cu_ctx_current_fn cu_ctx_current;
static cu_count_fn cu_count;
static cu_primary_state_fn cu_primary_state;
static hip_attrs_fn hip_attrs;
static int hip_v6; /* ROCm 6 or later: the new structure and values */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* The loaded objects whose file names start with a runtime's library
 * name: a walk over the loader's list, no file system search (dlopen of a
 * bare name with RTLD_NOLOAD would look in the library path first). */
enum { RT_CUDA, RT_HIP, RT_ZE, RT_COUNT };
static const char *const rt_names[RT_COUNT] = {"libcuda.so", "libamdhip64.so",
                                               "libze_loader.so"};

int nh_gpu_probe(void)
{
    int all = NH_GPU_CUDA | NH_GPU_HIP | NH_GPU_ZE;
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    if (found == all)
        return found;
    /* Nothing loaded or unloaded since the last look: nothing new (every
     * graph's creation asks; the walk of the objects' names costs more
     * than MPI's own creation of a small graph). */
    static unsigned long long seen = ~0ull;
    unsigned long long gen = nh_loaded_generation();
    if (gen != 0 && gen == __atomic_load_n(&seen, __ATOMIC_ACQUIRE))
        return found;
    pthread_mutex_lock(&probe_lock);
    found = nh_gpu_runtimes;
    int want = all & ~found; /* NH_GPU_* bits still looked for */
    void *h[RT_COUNT] = {0};
    char **names = nh_loaded_objects();
    for (char **n = names; n && *n && want; n++) {
        const char *base = strrchr(*n, '/');
        base = base ? base + 1 : *n;
        for (int k = 0; k < RT_COUNT; k++)
            /* a reference of nhood's own: the runtime stays while its
             * functions are in use here */
            if ((want & (1 << k)) && strncmp(base, rt_names[k], strlen(rt_names[k])) == 0 &&
                (h[k] = dlopen(*n, RTLD_NOW | RTLD_NOLOAD)))
                want &= ~(1 << k);
    }
    free(names);
    if (h[RT_CUDA]) { /* loaded, if without the query: its buffers count as host */
        cu_attrs = (cu_attrs_fn)dlsym(h[RT_CUDA], "cuPointerGetAttributes");
        cu_ctx_current = (cu_ctx_current_fn)dlsym(h[RT_CUDA], "cuCtxGetCurrent");
        cu_count = (cu_count_fn)dlsym(h[RT_CUDA], "cuDeviceGetCount");
        cu_primary_state = (cu_primary_state_fn)dlsym(h[RT_CUDA], "cuDevicePrimaryCtxGetState");
        found |= NH_GPU_CUDA;
    }
    if (h[RT_HIP]) {
        hip_version_fn ver = (hip_version_fn)dlsym(h[RT_HIP], "hipRuntimeGetVersion");
        int v = 0;
        hip_v6 = ver && ver(&v) == 0 && v >= 60000000;
        hip_attrs = (hip_attrs_fn)dlsym(h[RT_HIP], "hipPointerGetAttributes");
        found |= NH_GPU_HIP;
    }
    if (h[RT_ZE])
        found |= NH_GPU_ZE;
    /* the functions are set before the flag that lets callers use them */
    __atomic_store_n(&nh_gpu_runtimes, found, __ATOMIC_RELEASE);
    __atomic_store_n(&seen, gen, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&probe_lock);
    return found;
}

/* Whether the CUDA driver has a context here: the calling thread's
 * current one, or a device's primary context (the runtime API's, whatever
 * thread made it).  Without one no memory is device memory.  A driver
 * loaded only to enumerate devices (hwloc's OpenCL and NVML plugins load
 * it into every process of a GPU node, when MPI builds its topology) has
 * none.  Where the driver lacks a query: a context, to be safe. */
static int cuda_in_use(void)
{
    enum { NOT_INITIALIZED = 3 };
    void *ctx = NULL;
    int n = 0, active = 0, rc;
    unsigned flags = 0;
    if (!cu_ctx_current || !cu_count || !cu_primary_state)
        return 1;
    if ((rc = cu_ctx_current(&ctx)) == 0 && ctx)
        return 1;
    if (rc == NOT_INITIALIZED || (rc = cu_count(&n)) == NOT_INITIALIZED)
        return 0; /* cuInit never ran: no context can exist */
    if (rc)
        return 1;
    for (int d = 0; d < n; d++)
        if (cu_primary_state(d, &flags, &active) != 0 || active)
            return 1;
    return 0;
}

static nh_mem cuda_kind(const void *buf)
{
    enum { MEMORY_TYPE = 2, IS_MANAGED = 8 };
    enum { TYPE_DEVICE = 2, TYPE_ARRAY = 3, TYPE_UNIFIED = 4 };
    int attrs[2] = {MEMORY_TYPE, IS_MANAGED};
    unsigned type = 0;
    int managed = 0; /* a bool in the driver: zeroed, any byte it sets counts */
    void *data[2] = {&type, &managed};
    if (cu_attrs(2, attrs, data, (unsigned long long)(uintptr_t)buf) != 0)
        return NH_MEM_HOST;
    if (managed)
        return NH_MEM_MANAGED;
    return type == TYPE_DEVICE || type == TYPE_ARRAY || type == TYPE_UNIFIED ? NH_MEM_DEVICE
                                                                             : NH_MEM_HOST;
}

static nh_mem hip_kind(const void *buf)
{
    /* room for either structure (ROCm 5's is 40 bytes, 6's 32) */
    union {
        struct {
            int type, device;
            void *dptr, *hptr;
            int managed; /* ROCm 5 only */
        } s;
        char room[256];
    } a = {0};
    if (hip_attrs(&a, buf) != 0)
        return NH_MEM_HOST;
    int t = a.s.type;
    if (hip_v6)
        return t == 3 ? NH_MEM_MANAGED : t == 2 || t == 10 || t == 11 ? NH_MEM_DEVICE : NH_MEM_HOST;
    if (a.s.managed || t == 4)
        return NH_MEM_MANAGED;
    return t >= 1 && t <= 3 ? NH_MEM_DEVICE : NH_MEM_HOST;
}

nh_mem nh_gpu_query(const void *buf)
{
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    nh_mem m = NH_MEM_HOST;
    if (!buf)
        return m;
    if ((found & NH_GPU_CUDA) && cu_attrs)
        m = cuda_kind(buf);
    if (m == NH_MEM_HOST && (found & NH_GPU_HIP) && hip_attrs)
        m = hip_kind(buf);
    return m;
}

int nh_gpu_in_use(void)
{
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    if (found & (NH_GPU_HIP | NH_GPU_ZE))
        return 1;
    return (found & NH_GPU_CUDA) && cuda_in_use();
}

int nh_gpu_can_classify(void)
{
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    return ((found & NH_GPU_CUDA) && cu_attrs) || ((found & NH_GPU_HIP) && hip_attrs);
}

const char *nh_gpu_mem_name(nh_mem m)
{
    return m == NH_MEM_DEVICE    ? "GPU device memory"
           : m == NH_MEM_MANAGED ? "GPU managed memory"
                                 : "host memory";
}
