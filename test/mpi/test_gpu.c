/* GPU buffers (docs/gpu.md) with a stub GPU runtime that nhood takes for
 * the real one (test/gpu/stub.h: the CUDA driver, HIP, Level Zero):
 *   test_gpu STUB LOAD MEM [promise|idle]
 * STUB: the stub's library (libcuda.so.1, libamdhip64.so.6,
 * libze_loader.so.1); LOAD: the ranks that load it (dlopen after
 * MPI_Init, before the graphs are created): all, none, or 1 (rank 1
 * only; rank 0 at one rank); MEM: what the stub says the buffers are on
 * those ranks (device, managed, host); promise: the graphs are created
 * with the info key nhood_host_buffers=true; idle: the program never
 * starts the runtime (no CUDA context, no hipInit, no zeInit: loaded only,
 * as hwloc's plugins load them).  At the end nhood must have made no call
 * that would have started a runtime the program did not start.
 *
 * Every neighborhood collective in every form (blocking, nonblocking,
 * persistent; regular, v, w; alltoall_c and ialltoallv_c where MPI has the
 * large-count forms) on a ring graph (offsets +1 and +2, isomorphic=true),
 * each result against the point-to-point reference (reference.h), then an
 * in-place MPI_Alltoall on MPI_COMM_WORLD.
 *
 * Where MEM is not host the buffers are guarded: PROT_NONE pages whose
 * first access faults.  The handler names who made it by the innermost
 * frame of the faulting stack outside the C library (and the
 * sanitizers' runtimes): nhood (libnhood.so: its own CPU copies,
 * which device memory would not survive: a failure) or anything else
 * (MPI's exchange, which a GPU-aware MPI runs on the GPU), opens the page
 * and lets the access go on.  With LOAD=none and MEM=device nhood sees
 * host memory and runs its schedules on guarded buffers: run-mpi-tests.sh
 * expects that run to fail ("nhood touched"), which shows the guard sees
 * nhood's copies. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "../check.h"
#include "../reference.h"
#include "gpu_ring.h"

enum { N = 3, DEG = 2, NBUF = 4 }; /* ints per block, ring degree, guarded buffers */
static int rank, p;
static size_t page, len;
static char *buf[NBUF]; /* send, receive, in-place, spare */
static int guarded;
static volatile sig_atomic_t touched, strays;
static char culprit[128];

/* The faulting instruction's address, or NULL where not known here. */
static void *fault_pc(void *uc)
{
#if defined(__x86_64__)
    return (void *)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)((ucontext_t *)uc)->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    char *a = si->si_addr;
    int ours = -1;
    for (int i = 0; i < NBUF; i++)
        if (a >= buf[i] && a < buf[i] + len)
            ours = i;
    if (ours < 0) { /* a real crash: let it happen */
        signal(sig, SIG_DFL);
        return;
    }
    void *fr[64], *pc = fault_pc(uc);
    int n = backtrace(fr, 64), from = 1; /* 0: this handler */
    /* from the faulting frame on: a sanitizer's runtime calls this
     * handler from its own, so more frames may precede it */
    for (int i = 0; pc && i < n; i++)
        if (fr[i] == pc) {
            from = i;
            break;
        }
    const char *who = "?";
    for (int i = from; i < n; i++) { /* the C library's frames first */
        Dl_info di;
        if (!dladdr(fr[i], &di) || !di.dli_fname)
            continue;
        const char *b = strrchr(di.dli_fname, '/');
        b = b ? b + 1 : di.dli_fname;
        /* the C library, and the sanitizers' runtimes, whose interceptors
         * stand in for its functions (memcpy, memmove) in a sanitizer build */
        if (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0 ||
            strncmp(b, "libasan", 7) == 0 || strncmp(b, "libubsan", 8) == 0)
            continue;
        who = b;
        break;
    }
    if (strstr(who, "libnhood")) {
        touched++;
        if (!culprit[0])
            snprintf(culprit, sizeof(culprit), "%s (buffer %d)", who, ours);
    } else if (!strstr(who, "libmpi") && !strstr(who, "libuc") && !strstr(who, "libfabric") &&
               !strstr(who, "libopen-pal") && !strstr(who, "mca_")) {
        strays++; /* this program's own access while guarded: a bug here */
        if (!culprit[0])
            snprintf(culprit, sizeof(culprit), "%s (buffer %d, not MPI)", who, ours);
    }
    mprotect((void *)((uintptr_t)a & ~(uintptr_t)(page - 1)), page, PROT_READ | PROT_WRITE);
}

static void guard(int on)
{
    for (int i = 0; guarded && i < NBUF; i++)
        mprotect(buf[i], len, on ? PROT_NONE : PROT_READ | PROT_WRITE);
}

static void fill(int *s, int n, int seed)
{
    for (int i = 0; i < n; i++)
        s[i] = rank * 100000 + i * 7 + seed;
}

/* One call of op (0 alltoall, 1 allgather, 2 alltoallv, 3 alltoallw,
 * 4 allgatherv, 5 alltoall_c, 6 alltoallv_c) in form (0 blocking,
 * 1 nonblocking, 2 persistent) with the regular forms' layout. */
static void call(MPI_Comm g, int op, int form, const void *s, void *r)
{
    int c[DEG] = {N, N}, d[DEG] = {0, N};
    MPI_Aint db[DEG] = {0, N * sizeof(int)};
    MPI_Datatype t[DEG] = {MPI_INT, MPI_INT};
    MPI_Request req = MPI_REQUEST_NULL;
    guard(1);
    switch (op * 3 + form) {
#define FORMS(k, blocking, nonblocking, persistent)                                                \
    case 3 * (k):                                                                                  \
        blocking;                                                                                  \
        break;                                                                                     \
    case 3 * (k) + 1:                                                                              \
        nonblocking;                                                                               \
        break;                                                                                     \
    case 3 * (k) + 2:                                                                              \
        persistent;                                                                                \
        break;
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
#define INIT(x) x
#else
#define INIT(x) (void)0
#endif
        FORMS(
            0, MPI_Neighbor_alltoall(s, N, MPI_INT, r, N, MPI_INT, g),
            MPI_Ineighbor_alltoall(s, N, MPI_INT, r, N, MPI_INT, g, &req),
            INIT(MPI_Neighbor_alltoall_init(s, N, MPI_INT, r, N, MPI_INT, g, MPI_INFO_NULL, &req)))
        FORMS(
            1, MPI_Neighbor_allgather(s, N, MPI_INT, r, N, MPI_INT, g),
            MPI_Ineighbor_allgather(s, N, MPI_INT, r, N, MPI_INT, g, &req),
            INIT(MPI_Neighbor_allgather_init(s, N, MPI_INT, r, N, MPI_INT, g, MPI_INFO_NULL, &req)))
        FORMS(2, MPI_Neighbor_alltoallv(s, c, d, MPI_INT, r, c, d, MPI_INT, g),
              MPI_Ineighbor_alltoallv(s, c, d, MPI_INT, r, c, d, MPI_INT, g, &req),
              INIT(MPI_Neighbor_alltoallv_init(s, c, d, MPI_INT, r, c, d, MPI_INT, g, MPI_INFO_NULL,
                                               &req)))
        FORMS(3, MPI_Neighbor_alltoallw(s, c, db, t, r, c, db, t, g),
              MPI_Ineighbor_alltoallw(s, c, db, t, r, c, db, t, g, &req),
              INIT(MPI_Neighbor_alltoallw_init(s, c, db, t, r, c, db, t, g, MPI_INFO_NULL, &req)))
        FORMS(4, MPI_Neighbor_allgatherv(s, N, MPI_INT, r, c, d, MPI_INT, g),
              MPI_Ineighbor_allgatherv(s, N, MPI_INT, r, c, d, MPI_INT, g, &req),
              INIT(MPI_Neighbor_allgatherv_init(s, N, MPI_INT, r, c, d, MPI_INT, g, MPI_INFO_NULL,
                                                &req)))
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_C
    case 15:
        MPI_Neighbor_alltoall_c(s, N, MPI_INT, r, N, MPI_INT, g);
        break;
    case 19: {
        MPI_Count cc[DEG] = {N, N};
        MPI_Aint dc[DEG] = {0, N};
        MPI_Ineighbor_alltoallv_c(s, cc, dc, MPI_INT, r, cc, dc, MPI_INT, g, &req);
        break;
    }
#endif
    }
    if (form == 2 && req != MPI_REQUEST_NULL)
        MPI_Start(&req);
    if (req != MPI_REQUEST_NULL)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (form == 2 && req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
    guard(0);
}

static void run_all(MPI_Comm g, const char *mem)
{
    int *s = (int *)buf[0], *r = (int *)buf[1];
    int sref[DEG * N], rref[DEG * N];
    static const char *const names[] = {"alltoall",  "allgather",  "alltoallv",  "alltoallw",
                                        "allgatherv", "alltoall_c", "alltoallv_c"};
    for (int op = 0; op < 7; op++)
        for (int form = 0; form < 3; form++) {
            int have = op < 5 || (op == 5 && form == 0) || (op == 6 && form == 1);
#ifndef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
            have &= form != 2;
#endif
#ifndef HAVE_MPI_NEIGHBOR_ALLTOALL_C
            have &= op < 5;
#endif
            if (!have)
                continue;
            int gather = op == 1 || op == 4;
            fill(s, DEG * N, op * 3 + form);
            memcpy(sref, s, sizeof(sref));
            memset(r, 0xff, DEG * N * sizeof(int));
            memset(rref, 0xfe, sizeof(rref));
            call(g, op, form, s, r);
            reference(!gather, g, sref, N, MPI_INT, rref, N, MPI_INT);
            CHECK(memcmp(r, rref, sizeof(rref)) == 0, "%s form %d (%s buffers): wrong result",
                  names[op], form, mem);
        }
}

/* In-place MPI_Alltoall on MPI_COMM_WORLD: block j of rank r becomes
 * block r of rank j. */
static void run_inplace(void)
{
    int *b = (int *)buf[2], ok = 1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < N; i++)
            b[j * N + i] = rank * 1000 + j * 10 + i;
    guard(1);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, N, MPI_INT, MPI_COMM_WORLD);
    guard(0);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < N; i++)
            ok &= b[j * N + i] == j * 1000 + rank * 10 + i;
    CHECK(ok, "in-place MPI_Alltoall: wrong result");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: test_gpu STUB all|none|1 device|managed|host [promise|idle]\n");
        MPI_Finalize();
        return 2;
    }
    const char *load = argv[2], *mem = argv[3];
    int promise = argc > 4 && strcmp(argv[4], "promise") == 0,
        idle = argc > 4 && strcmp(argv[4], "idle") == 0;
    int loads = strcmp(load, "all") == 0 || (strcmp(load, "1") == 0 && rank == (p > 1 ? 1 : 0));
    int kind = strcmp(mem, "device") == 0 ? 1 : strcmp(mem, "managed") == 0 ? 2 : 0;
    page = (size_t)sysconf(_SC_PAGESIZE);
    len = ((size_t)(p > DEG ? p : DEG) * N * sizeof(int) + page - 1) / page * page;
    for (int i = 0; i < NBUF; i++) {
        buf[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf[i] == MAP_FAILED) {
            fprintf(stderr, "mmap failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    long (*early)(void) = NULL;
    if (loads) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
        typedef int (*mark_fn)(const void *, size_t, int);
        mark_fn mark = h ? (mark_fn)dlsym(h, "nhstub_mark") : NULL;
        void (*start)(int) = h ? (void (*)(int))dlsym(h, "nhstub_start") : NULL;
        early = h ? (long (*)(void))dlsym(h, "nhstub_early") : NULL;
        if (!mark || !start || !early) {
            fprintf(stderr, "test_gpu: cannot load the stub %s: %s\n", argv[1], dlerror());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int i = 0; i < NBUF && kind; i++)
            mark(buf[i], len, kind);
        start(!idle);
    }
    if (kind) { /* guarded on every rank, the stub loaded or not */
        guarded = 1;
        void *warm[4];
        backtrace(warm, 4); /* loads the unwinder now, not in the handler */
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, NULL);
    }
    MPI_Comm g = gpu_ring(DEG, promise);
    run_all(g, mem);
    run_inplace();
    CHECK(!touched, "nhood touched guarded (%s) buffers %d times, first from %s", mem,
          (int)touched, culprit);
    CHECK(!strays, "this program touched guarded buffers %d times, first from %s", (int)strays,
          culprit);
    CHECK(!early || early() == 0, "nhood made %ld calls that start the GPU runtime %s",
          early ? early() : 0L, idle ? "the program never started" : "before the program did");
    MPI_Comm_free(&g);
    return check_finish_mpi();
}
