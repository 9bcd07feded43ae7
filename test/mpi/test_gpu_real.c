/* GPU buffers with the real CUDA driver (docs/gpu.md), where a machine has
 * one: test_gpu.c's stub stands in for it everywhere else.
 *   test_gpu_real [promise [managed|device]]
 * Loads libcuda.so.1 after MPI_Init (exit 77 when it cannot, or when the
 * driver finds no device) and makes the primary context current, so every
 * rank has a GPU runtime loaded when the ring graph (offsets +1 and +2,
 * isomorphic=true) is created.  Then MPI_Neighbor_alltoall and
 * MPI_Ineighbor_allgather run on managed memory (cuMemAllocManaged) and on
 * pinned host memory (cuMemAllocHost), each result checked against the
 * point-to-point reference:
 *  - without arguments every call goes to MPI (the report: calls=2,
 *    why=gpu_runtime);
 *  - with promise the graph is created with nhood_host_buffers=true and
 *    only the pinned buffers are exchanged: nhood's schedule runs, and
 *    under NHOOD_CHECK=1 the driver's answer for them (host) lets it;
 *  - promise managed|device then passes that memory as the send buffer:
 *    NHOOD_CHECK=1 must stop the job with an error naming it, before
 *    nhood's CPU touches it (device memory would fault).
 * Device memory is not exchanged otherwise: the MPI libraries tested
 * here are not CUDA-aware, and their own exchange would read it with the
 * CPU.  run-mpi-tests.sh reads the report and the error. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../reference.h"
#include "gpu_ring.h"

enum { N = 5, DEG = 2 };

/* The few driver entry points used, with cuda.h's types and values. */
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_ctx_retain_fn)(void **, int);
typedef int (*cu_ctx_set_fn)(void *);
typedef int (*cu_alloc_managed_fn)(unsigned long long *, size_t, unsigned);
typedef int (*cu_alloc_host_fn)(void **, size_t);
typedef int (*cu_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_attr_fn)(void *, int, unsigned long long);
enum { CU_MEM_ATTACH_GLOBAL = 1, CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, CU_MEMORYTYPE_DEVICE = 2 };

static void *sym(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f) {
        fprintf(stderr, "test_gpu_real: the driver has no %s\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return f;
}

/* Both collectives on g with send buffer s and receive buffer r, each
 * checked against the reference; kind names the memory in messages. */
static void exchange(MPI_Comm g, int rank, int *s, int *r, const char *kind)
{
    int want[DEG * N];
    char what[96];
    for (int i = 0; i < DEG * N; i++)
        s[i] = rank * 1000 + i;
    memset(r, 0xff, DEG * N * sizeof(int));
    MPI_Neighbor_alltoall(s, N, MPI_INT, r, N, MPI_INT, g);
    reference(1, g, s, N, MPI_INT, want, N, MPI_INT);
    snprintf(what, sizeof(what), "MPI_Neighbor_alltoall, %s", kind);
    CHECK(memcmp(r, want, sizeof(want)) == 0, "%s", what);

    MPI_Request req;
    memset(r, 0xff, DEG * N * sizeof(int));
    MPI_Ineighbor_allgather(s, N, MPI_INT, r, N, MPI_INT, g, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    reference(0, g, s, N, MPI_INT, want, N, MPI_INT);
    snprintf(what, sizeof(what), "MPI_Ineighbor_allgather, %s", kind);
    CHECK(memcmp(r, want, sizeof(want)) == 0, "%s", what);
}

int main(int argc, char **argv)
{
    int rank, size, dev = 0;
    void *ctx = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    int usable = h && ((cu_init_fn)sym(h, "cuInit"))(0) == 0 &&
                 ((cu_device_get_fn)sym(h, "cuDeviceGet"))(&dev, 0) == 0;
    int all;
    MPI_Allreduce(&usable, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            fprintf(stderr, "test_gpu_real: no CUDA driver with a device here: skipped\n");
        MPI_Finalize();
        return 77;
    }
    CHECK(((cu_ctx_retain_fn)sym(h, "cuDevicePrimaryCtxRetain"))(&ctx, dev) == 0 &&
              ((cu_ctx_set_fn)sym(h, "cuCtxSetCurrent"))(ctx) == 0,
          "the primary context is current");

    int promise = argc > 1 && strcmp(argv[1], "promise") == 0;
    const char *bad = argc > 2 ? argv[2] : NULL;
    MPI_Comm g = gpu_ring(DEG, promise);

    size_t bytes = DEG * N * sizeof(int);
    unsigned long long ms = 0, mr = 0, d = 0;
    int *hs = NULL, *hr = NULL;
    cu_alloc_managed_fn managed = (cu_alloc_managed_fn)sym(h, "cuMemAllocManaged");
    cu_alloc_host_fn pinned = (cu_alloc_host_fn)sym(h, "cuMemAllocHost_v2");
    CHECK(managed(&ms, bytes, CU_MEM_ATTACH_GLOBAL) == 0 &&
              managed(&mr, bytes, CU_MEM_ATTACH_GLOBAL) == 0,
          "cuMemAllocManaged");
    CHECK(pinned((void **)&hs, bytes) == 0 && pinned((void **)&hr, bytes) == 0, "cuMemAllocHost");
    CHECK(((cu_alloc_fn)sym(h, "cuMemAlloc_v2"))(&d, bytes) == 0, "cuMemAlloc");
    unsigned type = 0;
    CHECK(((cu_attr_fn)sym(h, "cuPointerGetAttribute"))(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                                        d) == 0 &&
              type == CU_MEMORYTYPE_DEVICE,
          "the driver calls cuMemAlloc's memory device memory");

    if (!promise)
        exchange(g, rank, (int *)(size_t)ms, (int *)(size_t)mr, "managed memory");
    exchange(g, rank, hs, hr, "pinned host memory");
    if (bad) {
        /* NHOOD_CHECK=1 stops this call; returning from it is the failure */
        void *sb = strcmp(bad, "device") == 0 ? (void *)(size_t)d : (void *)(size_t)ms;
        MPI_Neighbor_alltoall(sb, N, MPI_INT, hr, N, MPI_INT, g);
        CHECK(0, "MPI_Neighbor_alltoall on %s memory promised host returned", bad);
    }
    MPI_Comm_free(&g);
    return check_finish_mpi();
}
