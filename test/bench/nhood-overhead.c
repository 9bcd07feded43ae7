/* What nhood adds where it does not accelerate: each measurement runs the
 * MPI_* entry point (nhood's when preloaded) and the PMPI_* one
 * alternately, ROUNDS times, in one run, and reports the medians
 * (stats.h), their ratio and their difference.
 *  - pingpong: an 8-byte ping-pong between ranks 0 and 1 with
 *    Isend/Irecv/Waitall (time per round trip; other ranks idle);
 *  - test_null: MPI_Test on MPI_REQUEST_NULL (time per call);
 *  - create: MPI_Dist_graph_create_adjacent of the 3-D Moore
 *    neighborhood (r=1, periodic, MPI_Dims_create grid) and MPI_Comm_free
 *    (time per creation, rank 0's, after WARM_CREATIONS pairs; nhood
 *    analyzes the graph here);
 *  - malloc_free, write64: what the preloaded libraries add to the C
 *    library's calls: malloc(64) + free, and a 64-byte write to
 *    /dev/null, through their names (a preloaded wrapper's, if any)
 *    against glibc's own entry points (__libc_malloc, __libc_free,
 *    __write), which no wrapper interposes (scripts/run-libc-cost.sh);
 *  - gpu_none: nhood's test of a call's send and receive buffers for GPU
 *    memory (src/util/gpu.h, compiled in here) with no GPU runtime loaded,
 *    against the same loop without it (time per call);
 *  - gpu_query (with --gpu-stub PATH: that stub driver loaded and the
 *    buffer declared device memory, test/gpu/stub_cuda.c; with
 *    NHOOD_GPU_DEV_DIR naming a folder with the driver's device node, as
 *    test/gpu/dev): the same test of one buffer, through the driver's
 *    query (time per buffer).
 * Usage: nhood-overhead [--iters N] [--rounds R] [--no-header] [--level single|multiple]
 *        [--gpu-stub PATH]
 * (--level: the thread level asked of MPI_Init_thread; default MPI_Init.
 * scripts/run-progress-cost.sh compares levels across runs.)
 * Prints CSV: what,procs,mpi_ns,pmpi_ns,ratio,diff_ns (rank 0; for malloc_free
 * and write64, mpi_ns is through the names, pmpi_ns glibc's own). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"
#include "stats.h"
#include "util/gpu.h"

#define MAX_ROUNDS 1000
/* MPICH 4.0.2 takes about 25 graph creations to settle (3-4x slower
 * before, with or without nhood): creation pairs run this often first. */
#define WARM_CREATIONS 40

static int rank, size;

/* One ping-pong round trip, N times, through the MPI_ or PMPI_ names. */
#define PINGPONG(P)                                                                                \
    static double pingpong_##P(int n, char *buf)                                                   \
    {                                                                                              \
        MPI_Request req[2];                                                                        \
        MPI_Status st[2];                                                                          \
        int peer = rank ^ 1;                                                                       \
        P##MPI_Barrier(MPI_COMM_WORLD);                                                            \
        double t0 = MPI_Wtime();                                                                   \
        for (int i = 0; i < n && rank < 2; i++) {                                                  \
            if (rank == 0) {                                                                       \
                P##MPI_Isend(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);                  \
                P##MPI_Waitall(1, req, st);                                                        \
                P##MPI_Irecv(buf + 8, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);              \
                P##MPI_Waitall(1, req + 1, st + 1);                                                \
            } else {                                                                               \
                P##MPI_Irecv(buf + 8, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[1]);              \
                P##MPI_Waitall(1, req + 1, st + 1);                                                \
                P##MPI_Isend(buf, 8, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &req[0]);                  \
                P##MPI_Waitall(1, req, st);                                                        \
            }                                                                                      \
        }                                                                                          \
        return (MPI_Wtime() - t0) / n;                                                             \
    }

PINGPONG()
PINGPONG(P)

/* MPI_Test on MPI_REQUEST_NULL, N times, through the MPI_ or PMPI_ name;
 * -1 if a call did not report completion. */
#define TEST_NULL(P)                                                                               \
    static double test_null_##P(int n)                                                             \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        MPI_Status st;                                                                             \
        int flag, all = 1;                                                                         \
        double t0 = MPI_Wtime();                                                                   \
        for (int i = 0; i < n; i++) {                                                              \
            P##MPI_Test(&r, &flag, &st);                                                           \
            all &= flag;                                                                           \
        }                                                                                          \
        return all ? (MPI_Wtime() - t0) / n : -1;                                                  \
    }
TEST_NULL()
TEST_NULL(P)

/* glibc's own entry points (exported, never interposed). */
extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern ssize_t __write(int fd, const void *buf, size_t n);

/* malloc(64) and free, N times, through the names (own = 0) or glibc's. */
static double malloc_free(int n, int own)
{
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        char *volatile p = own ? __libc_malloc(64) : malloc(64);
        p[0] = (char)i;
        if (own)
            __libc_free(p);
        else
            free(p);
    }
    return (MPI_Wtime() - t0) / n;
}

/* 64-byte writes to fd, N times, through write (own = 0) or __write. */
static double write64(int n, int fd, int own)
{
    static const char msg[64];
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        if ((own ? __write(fd, msg, sizeof(msg)) : write(fd, msg, sizeof(msg))) != sizeof(msg))
            return -1;
    return (MPI_Wtime() - t0) / n;
}

/* The 3-D Moore graph's neighbor lists on this rank. */
static int moore_lists(int *dst, int *src)
{
    int *off, s = tc_offsets("moore", 3, 1, &off), dims[3] = {0}, periods[3] = {1, 1, 1};
    int coords[3], x = rank, n = 0;
    MPI_Dims_create(size, 3, dims);
    for (int j = 2; j >= 0; j--) {
        coords[j] = x % dims[j];
        x /= dims[j];
    }
    for (int t = 0; t < s; t++, n++) {
        dst[n] = tc_shift(3, dims, periods, coords, off + 3 * t, +1);
        src[n] = tc_shift(3, dims, periods, coords, off + 3 * t, -1);
    }
    free(off);
    return n;
}

static double create_mpi(int n, const int *dst, const int *src)
{
    MPI_Comm g;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, src, MPI_UNWEIGHTED, n, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    MPI_Comm_free(&g);
    return MPI_Wtime() - t0;
}

static double create_pmpi(int n, const int *dst, const int *src)
{
    MPI_Comm g;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    PMPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, src, MPI_UNWEIGHTED, n, dst, MPI_UNWEIGHTED,
                                    MPI_INFO_NULL, 0, &g);
    PMPI_Comm_free(&g);
    return MPI_Wtime() - t0;
}

static void row(const char *what, double *a, double *b, int rounds)
{
    double ma = robust_median(a, rounds) * 1e9, mb = robust_median(b, rounds) * 1e9;
    if (rank == 0)
        printf("%s,%d,%.2f,%.2f,%.4f,%.2f\n", what, size, ma, mb, ma / mb, ma - mb);
}

/* nb buffers tested for GPU memory per call (nb 0: the loop alone),
 * N calls; the result is kept from the optimizer. */
static double gpu_check(int n, int nb, char *s, char *r)
{
    int sum = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        __asm__ volatile("" : "+r"(s), "+r"(r)::"memory");
        if (nb > 0)
            sum += (int)nh_gpu_kind(s);
        if (nb > 1)
            sum += (int)nh_gpu_kind(r);
    }
    volatile int sink = sum;
    (void)sink;
    return (MPI_Wtime() - t0) / n;
}

/* gpu_none, and with the stub loaded gpu_query (see the top). */
static void gpu_rows(int iters, int rounds, const char *stub, double *a, double *b)
{
    static char s[64], r[64];
    for (int k = 0; k < (stub ? 2 : 1); k++) {
        int nb = k ? 1 : 2, n = iters * (k ? 50 : 500);
        if (k) {
            void *h = dlopen(stub, RTLD_NOW | RTLD_GLOBAL);
            int (*mark)(const void *, size_t, int) =
                h ? (int (*)(const void *, size_t, int))dlsym(h, "nhstub_mark") : NULL;
            nh_gpu_set_dev_dir(getenv("NHOOD_GPU_DEV_DIR")); /* libnhood's reads it at MPI_Init */
            if (!mark || !nh_gpu_probe() ||
                (mark(s, sizeof(s), 1), nh_gpu_kind(s)) != NH_MEM_DEVICE) {
                if (rank == 0)
                    fprintf(stderr,
                            "nhood-overhead: the stub %s does not answer (is NHOOD_GPU_DEV_DIR "
                            "a folder with an nvidia0?)\n",
                            stub);
                return;
            }
        }
        for (int x = 0; x < rounds; x++) {
            if (x % 2) {
                a[x] = gpu_check(n, nb, s, r);
                b[x] = gpu_check(n, 0, s, r);
            } else {
                b[x] = gpu_check(n, 0, s, r);
                a[x] = gpu_check(n, nb, s, r);
            }
        }
        row(k ? "gpu_query" : "gpu_none", a, b, rounds);
    }
}

int main(int argc, char **argv)
{
    int iters = 2000, rounds = 41, header = 1, provided;
    const char *level = NULL, *stub = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--level"))
            level = argv[i + 1];
    if (!level)
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv,
                        !strcmp(level, "multiple") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                        &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-header"))
            header = 0;
        else if (!strcmp(argv[i], "--gpu-stub") && i + 1 < argc)
            stub = argv[++i];
        else if (!strcmp(argv[i], "--level") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "single") || !strcmp(argv[i + 1], "multiple")))
            i++;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: nhood-overhead [--iters N] [--rounds R] [--no-header] "
                                "[--level single|multiple] [--gpu-stub PATH]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 2 || iters < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        if (rank == 0)
            fprintf(stderr,
                    "nhood-overhead: needs 2 ranks or more, iters >= 1, 1 <= rounds <= %d\n",
                    MAX_ROUNDS);
        MPI_Finalize();
        return 2;
    }
    static double a[MAX_ROUNDS], b[MAX_ROUNDS];
    char buf[16] = {0};
    if (header && rank == 0)
        printf("what,procs,mpi_ns,pmpi_ns,ratio,diff_ns\n");
    pingpong_(iters / 10 + 1, buf);    /* warm-up */
    for (int r = 0; r < rounds; r++) { /* alternate, the first of each pair flipping */
        if (r % 2) {
            a[r] = pingpong_(iters, buf);
            b[r] = pingpong_P(iters, buf);
        } else {
            b[r] = pingpong_P(iters, buf);
            a[r] = pingpong_(iters, buf);
        }
    }
    row("pingpong", a, b, rounds);
    for (int r = 0; r < rounds; r++) {
        int n = iters * 500;
        if (r % 2) {
            a[r] = test_null_(n);
            b[r] = test_null_P(n);
        } else {
            b[r] = test_null_P(n);
            a[r] = test_null_(n);
        }
    }
    row("test_null", a, b, rounds);
    for (int r = 0; r < rounds; r++) {
        int n = iters * 50;
        if (r % 2) {
            a[r] = malloc_free(n, 0);
            b[r] = malloc_free(n, 1);
        } else {
            b[r] = malloc_free(n, 1);
            a[r] = malloc_free(n, 0);
        }
    }
    row("malloc_free", a, b, rounds);
    int fd = open("/dev/null", O_WRONLY);
    for (int r = 0; r < rounds && fd >= 0; r++) {
        int n = iters * 5;
        if (r % 2) {
            a[r] = write64(n, fd, 0);
            b[r] = write64(n, fd, 1);
        } else {
            b[r] = write64(n, fd, 1);
            a[r] = write64(n, fd, 0);
        }
    }
    if (fd >= 0) {
        row("write64", a, b, rounds);
        close(fd);
    }
    int dst[32], src[32], n = moore_lists(dst, src);
    for (int w = 0; w < WARM_CREATIONS; w++) { /* MPI's own warm-up (see WARM_CREATIONS) */
        create_mpi(n, dst, src);
        create_pmpi(n, dst, src);
    }
    for (int r = 0; r < rounds; r++) {
        if (r % 2) {
            a[r] = create_mpi(n, dst, src);
            b[r] = create_pmpi(n, dst, src);
        } else {
            b[r] = create_pmpi(n, dst, src);
            a[r] = create_mpi(n, dst, src);
        }
    }
    row("create", a, b, rounds);
    gpu_rows(iters, rounds, stub, a, b);
    MPI_Finalize();
    return 0;
}
