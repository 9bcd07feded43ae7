/* GPU memory classification (util/gpu.h).
 *
 * nhood links no GPU library and starts no GPU runtime.  Device memory
 * needs a device: where the machine has none of a runtime's device nodes
 * (NVIDIA's nvidiactl or nvidia0, AMD's kfd, a DRM render node
 * dri/renderD<N> for Level Zero), that runtime is not looked for at all,
 * loaded or not (Debian 13's MPI packages load Level Zero and ROCm's
 * libraries into every process through hwloc's and UCX's plugins, on
 * machines without any GPU).  Elsewhere a runtime the program already
 * loaded is found among the loaded objects by its file name
 * (util/objects.h), opened with dlopen(RTLD_LAZY | RTLD_NOLOAD), which
 * never loads one (RTLD_NOW would bind every lazy symbol of a large
 * library: a graph creation's worth of time), and its queries taken with
 * dlsym.  The few types and values used are declared here from the
 * vendors' public headers:
 *  - CUDA driver (libcuda.so.1): cuPointerGetAttributes with
 *    CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) and CU_POINTER_ATTRIBUTE_IS_MANAGED
 *    (8); CUmemorytype HOST 1, DEVICE 2, ARRAY 3, UNIFIED 4.  Memory the
 *    driver does not know (plain malloc) comes back as type 0.  As Open MPI
 *    does, CUDA_ERROR_INVALID_VALUE (1) and CUDA_ERROR_NOT_INITIALIZED (3)
 *    mean host memory (no context yet: nothing is device memory), and so
 *    does any other error (a wrong "device" would stop a promised job).
 *    Pinned host memory (cuMemAllocHost, cudaMallocHost) is host memory.
 *    None of these calls initializes the driver.
 *  - HIP (libamdhip64.so.<ROCm major>): hipPointerGetAttributes, whose
 *    structure and hipMemoryType values changed in ROCm 6: ROCm 5
 *    {memoryType; device; devicePointer; hostPointer; isManaged; ...} with
 *    Host 0, Device 1, Array 2, Unified 3, Managed 4; ROCm 6 {type; device;
 *    devicePointer; hostPointer; ...} with Unregistered 0, Host 1, Device 2,
 *    Managed 3, Array 10, Unified 11.  The layout is told by the library's
 *    version suffix, not by hipRuntimeGetVersion: every HIP call, queries
 *    included, initializes the runtime.  So HIP is asked only once it is
 *    initialized, which shows as the KFD (AMD's kernel driver, <dev>/kfd)
 *    open in the process: ROCm's runtime opens it at initialization and
 *    never closes it.  An error (ROCm 5: unregistered memory) means host
 *    memory.
 *  - Level Zero (libze_loader.so.1): zeMemGetAllocProperties needs the
 *    context the memory was allocated in, which only the program has; a
 *    Level Zero whose driver is initialized (a render node open: the GPU
 *    driver's initialization opens it) counts for the agreement
 *    (plan/detect.c), but its buffers are not classified (docs/gpu.md). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static hip_version_fn hip_version;
static int hip_layout; /* the ROCm major version's layout: 5, 6, or 0 (ask once initialized) */
static int live;       /* NH_GPU_HIP, NH_GPU_ZE: seen initialized (they stay so) */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;

/* The loaded objects whose file names start with a runtime's library
 * name: a walk over the loader's list, no file system search (dlopen of a
 * bare name with RTLD_NOLOAD would look in the library path first). */
enum { RT_CUDA, RT_HIP, RT_ZE, RT_COUNT };
static const char *const rt_names[RT_COUNT] = {"libcuda.so", "libamdhip64.so",
                                               "libze_loader.so"};

/* The device nodes' folder (canonical, for comparing with open files'
 * names) and which runtimes have a device there (NH_GPU_* bits), looked
 * at once. */
static char dev_dir[PATH_MAX] = "/dev";
static pthread_once_t nodes_once = PTHREAD_ONCE_INIT;
static int nodes;

void nh_gpu_set_dev_dir(const char *dir)
{
    char real[PATH_MAX];
    if (!dir || !*dir)
        return;
    snprintf(dev_dir, sizeof(dev_dir), "%s", realpath(dir, real) ? real : dir);
}

/* Does dir/name exist? */
static int has_node(const char *dir, const char *name)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Does folder dir hold a render node (renderD<N>)?  (A small folder,
 * where there is one: reading /dev itself costs tens of microseconds.) */
static int has_render_node(const char *dir)
{
    char sub[PATH_MAX + 8];
    snprintf(sub, sizeof(sub), "%s/dri", dir);
    DIR *d = opendir(sub);
    struct dirent *e;
    int found = 0;
    if (!d)
        return 0;
    while (!found && (e = readdir(d)))
        found = strncmp(e->d_name, "renderD", 7) == 0 && e->d_name[7] >= '0' && e->d_name[7] <= '9';
    closedir(d);
    return found;
}

/* NVIDIA's control node exists wherever its driver does (containers
 * given a GPU included); nvidia0 where it alone was passed in. */
static void find_nodes(void)
{
    nodes = (has_node(dev_dir, "nvidiactl") || has_node(dev_dir, "nvidia0") ? NH_GPU_CUDA : 0) |
            (has_node(dev_dir, "kfd") ? NH_GPU_HIP : 0) |
            (has_render_node(dev_dir) ? NH_GPU_ZE : 0);
}

/* The ROCm major version in a loaded HIP's file name (libamdhip64.so.6.2.1:
 * 6); 0 where the name has none. */
static int hip_major(const char *name)
{
    const char *v = strstr(name, ".so.");
    return v ? atoi(v + 4) : 0;
}

int nh_gpu_probe(void)
{
    pthread_once(&nodes_once, find_nodes);
    int all = nodes;
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    if (found == all)
        return found; /* every runtime with a device found, or no device at all */
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
    int hip_v = 0;
    char **names = nh_loaded_objects();
    for (char **n = names; n && *n && want; n++) {
        const char *base = strrchr(*n, '/');
        base = base ? base + 1 : *n;
        for (int k = 0; k < RT_COUNT; k++)
            /* a reference of nhood's own: the runtime stays while its
             * functions are in use here */
            if ((want & (1 << k)) && strncmp(base, rt_names[k], strlen(rt_names[k])) == 0 &&
                (h[k] = dlopen(*n, RTLD_LAZY | RTLD_NOLOAD))) {
                want &= ~(1 << k);
                if (k == RT_HIP)
                    hip_v = hip_major(base);
            }
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
        hip_layout = hip_v == 5 ? 5 : hip_v >= 6 ? 6 : 0;
        hip_version = (hip_version_fn)dlsym(h[RT_HIP], "hipRuntimeGetVersion");
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

/* Which of want (NH_GPU_HIP, NH_GPU_ZE) has its device node open in this
 * process (the KFD for HIP, a render node for Level Zero): its driver was
 * initialized.  Remembered, as neither runtime can be finalized. */
static int opened(int want)
{
    want &= ~__atomic_load_n(&live, __ATOMIC_ACQUIRE);
    if (!want)
        return __atomic_load_n(&live, __ATOMIC_ACQUIRE);
    char kfd[PATH_MAX + 8], render[PATH_MAX + 16], path[300], target[PATH_MAX];
    snprintf(kfd, sizeof(kfd), "%s/kfd", dev_dir);
    snprintf(render, sizeof(render), "%s/dri/renderD", dev_dir);
    size_t nr = strlen(render);
    int seen = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) && seen != want) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if ((want & NH_GPU_HIP) && strcmp(target, kfd) == 0)
            seen |= NH_GPU_HIP;
        if ((want & NH_GPU_ZE) && strncmp(target, render, nr) == 0)
            seen |= NH_GPU_ZE;
    }
    if (d)
        closedir(d);
    return __atomic_or_fetch(&live, seen, __ATOMIC_ACQ_REL);
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

/* HIP, initialized (opened): its answer. */
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
    int v = 0;
    if (!hip_layout) /* a file name without the version: the runtime's own answer */
        hip_layout = hip_version && hip_version(&v) == 0 && v < 60000000 ? 5 : 6;
    if (hip_attrs(&a, buf) != 0)
        return NH_MEM_HOST;
    int t = a.s.type;
    if (hip_layout >= 6)
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
    if (m == NH_MEM_HOST && (found & NH_GPU_HIP) && hip_attrs && (opened(NH_GPU_HIP) & NH_GPU_HIP))
        m = hip_kind(buf);
    return m;
}

int nh_gpu_in_use(void)
{
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    if ((found & (NH_GPU_HIP | NH_GPU_ZE)) && (opened(found & (NH_GPU_HIP | NH_GPU_ZE)) & found))
        return 1;
    return (found & NH_GPU_CUDA) && cuda_in_use();
}

int nh_gpu_can_classify(void)
{
    int found = __atomic_load_n(&nh_gpu_runtimes, __ATOMIC_ACQUIRE);
    if (((found & NH_GPU_CUDA) && cu_attrs) || ((found & NH_GPU_HIP) && hip_attrs))
        return 1;
    /* Level Zero alone: its buffers are host memory until its driver is
     * initialized, and cannot be told apart after */
    return !(found & NH_GPU_ZE) || !(opened(NH_GPU_ZE) & NH_GPU_ZE);
}

const char *nh_gpu_mem_name(nh_mem m)
{
    return m == NH_MEM_DEVICE    ? "GPU device memory"
           : m == NH_MEM_MANAGED ? "GPU managed memory"
                                 : "host memory";
}
