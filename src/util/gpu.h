/* GPU memory: may nhood's CPU touch a buffer?  (util/gpu.c)
 *
 * Only GPU runtimes already loaded in the process are consulted (the CUDA
 * driver, HIP, Level Zero: dlopen with RTLD_NOLOAD, never linked, never
 * loaded by nhood), and only where the machine has the runtime's device
 * nodes.  Where none is, every buffer is host memory and the test is one
 * predictable branch on nh_gpu_runtimes. */
#ifndef NH_GPU_H
#define NH_GPU_H

/* What a buffer is to the CPU.  Managed (unified) memory counts as device
 * memory: the CPU may fault it in, but the GPU may be using it. */
typedef enum { NH_MEM_HOST = 0, NH_MEM_DEVICE, NH_MEM_MANAGED } nh_mem;

/* The runtimes nh_gpu_probe found loaded, on a machine with their device
 * nodes (bits); 0: none. */
enum { NH_GPU_CUDA = 1, NH_GPU_HIP = 2, NH_GPU_ZE = 4 };
extern int nh_gpu_runtimes;

/* Where the device nodes are (NHOOD_GPU_DEV_DIR, config/config.c; /dev
 * unless set).  Before the first nh_gpu_probe. */
void nh_gpu_set_dev_dir(const char *dir);

/* Looks for GPU runtimes loaded since the last look (cheap: a few dlopen
 * calls with RTLD_NOLOAD; nothing at all on a machine with no GPU device
 * node); returns nh_gpu_runtimes.  A runtime once found stays (nhood
 * holds a reference to it). */
int nh_gpu_probe(void);

/* Whether a loaded runtime may hold device memory now, without starting
 * any runtime: the CUDA driver where it has a context (the calling
 * thread's current one or a device's primary one); HIP where the process
 * has AMD's kernel driver (the KFD) open, which its initialization opens;
 * Level Zero where the process has a GPU render node open, which its
 * driver's initialization opens.  A runtime only loaded (hwloc's plugins
 * load them into every MPI process) holds none.  Call after
 * nh_gpu_probe. */
int nh_gpu_in_use(void);

/* The driver's answer for buf (a runtime is loaded).  Level Zero alone
 * cannot be asked without the program's context: host. */
nh_mem nh_gpu_query(const void *buf);

static inline nh_mem nh_gpu_kind(const void *buf)
{
    if (__builtin_expect(!__atomic_load_n(&nh_gpu_runtimes, __ATOMIC_RELAXED), 1))
        return NH_MEM_HOST;
    return nh_gpu_query(buf);
}

/* "host memory", "GPU device memory", "GPU managed memory". */
const char *nh_gpu_mem_name(nh_mem m);
/* Whether buffers can be classified where runtimes are loaded (not with
 * Level Zero alone). */
int nh_gpu_can_classify(void);

#endif
