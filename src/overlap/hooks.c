/* libnhood-overlap.so: the C library calls that end overlap watches and
 * deferred operations first (NHOOD_OVERLAP), and nhood's SIGSEGV handler
 * kept in front of the program's.  A library of its own, preloaded beside
 * libnhood.so only when NHOOD_OVERLAP is report or defer (nhood-run does
 * it; docs/overlap.md), so that a program that does not ask for the
 * advisor keeps its allocator, I/O and signal calls untouched; it calls
 * libnhood.so through overlap/hooks.h.
 *
 * Allocation.  A deferred operation's receive pages are the whole pages
 * its buffer touches, so the allocator's bookkeeping of a neighboring
 * block may lie on them; the allocator must never meet them protected
 * (its fault would complete the operation with the allocator's lock
 * held).  So every allocation call fences first.  The wrappers find the
 * next definitions with dlsym(RTLD_NEXT); dlsym's own allocations during
 * that are served from a static arena.  Defer mode checks at MPI_Init
 * that these wrappers are the process's (overlap/hookapi.c).
 *
 * I/O.  The kernel does not fault on a protected page handed to a system
 * call: it fails the call with EFAULT.  So the common calls that take a
 * user buffer fence first, and so do munmap and madvise (a range given
 * back to the system must not be protected again later by nhood).  Others
 * (process_vm_readv, io_uring, splice, mmap'd I/O) do not: see
 * docs/overlap.md, "Risks".
 *
 * Signals.  A program that installs its own SIGSEGV handler after
 * MPI_Init (sigaction or signal) gets it installed behind nhood's: faults
 * on nhood's pages are nhood's, everything else reaches the program's
 * handler as before. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "overlap/hooks.h"

#define NH_EXPORT __attribute__((visibility("default")))

/* libnhood's side (overlap/hooks.h), found in the process at start-up:
 * this library does not link libnhood, so that an installation under any
 * prefix needs no relinking; without libnhood it passes every call on.
 * live: libnhood's flag, nonzero while a watch or deferred operation is
 * outstanding (NULL before the constructor ran, or without libnhood). */
/* libnhood's function NAME (overlap/hooks.h), with its type, or NULL */
#define NH_HOOK(name) ((__typeof__(&name))dlsym(RTLD_DEFAULT, #name))

static int *live;
static __typeof__(&nhood_overlap_hook_fence) fence;
static __typeof__(&nhood_overlap_hook_segv) segv;

__attribute__((constructor)) static void hooks_init(void)
{
    __typeof__(&nhood_overlap_hook_live) live_of = NH_HOOK(nhood_overlap_hook_live);
    __typeof__(&nhood_overlap_hook_register) reg = NH_HOOK(nhood_overlap_hook_register);
    fence = NH_HOOK(nhood_overlap_hook_fence);
    segv = NH_HOOK(nhood_overlap_hook_segv);
    if (live_of && reg && fence && segv) {
        reg((const void *)hooks_init);
        live = live_of();
    }
}

/* Fence while something is outstanding; libnhood passes the calls of
 * nhood or MPI (not the program's: MPI entry points fenced already). */
#define NH_OV_FENCE(what)                                                                          \
    do {                                                                                           \
        if (live && __builtin_expect(__atomic_load_n(live, __ATOMIC_RELAXED), 0))                  \
            fence(what);                                                                           \
    } while (0)

/* ---- allocation ---- */

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
} real;

static _Alignas(16) char boot[1 << 16];
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > sizeof(boot) - boot_used)
        return NULL;
    void *p = boot + boot_used; /* static storage: already zero */
    boot_used += n;
    return p;
}

static int in_boot(const void *p)
{
    return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void resolve(void)
{
    resolving = 1;
    real.malloc = dlsym(RTLD_NEXT, "malloc");
    real.calloc = dlsym(RTLD_NEXT, "calloc");
    real.realloc = dlsym(RTLD_NEXT, "realloc");
    real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = dlsym(RTLD_NEXT, "memalign");
    real.valloc = dlsym(RTLD_NEXT, "valloc");
    real.free = dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

#define NH_REAL(fn)                                                                                \
    do {                                                                                           \
        if (!real.fn && !resolving)                                                                \
            resolve();                                                                             \
    } while (0)

NH_EXPORT void *malloc(size_t n)
{
    NH_OV_FENCE("malloc");
    NH_REAL(malloc);
    return real.malloc ? real.malloc(n) : boot_alloc(n);
}

NH_EXPORT void *calloc(size_t k, size_t n)
{
    NH_OV_FENCE("calloc");
    NH_REAL(calloc);
    if (real.calloc)
        return real.calloc(k, n);
    return n && k > (size_t)-1 / n ? NULL : boot_alloc(k * n);
}

NH_EXPORT void free(void *p)
{
    NH_OV_FENCE("free");
    if (!p || in_boot(p))
        return;
    NH_REAL(free);
    if (real.free)
        real.free(p);
}

NH_EXPORT void *realloc(void *p, size_t n)
{
    NH_OV_FENCE("realloc");
    if (in_boot(p)) { /* a block dlsym took during start-up: move it out */
        void *q = malloc(n);
        size_t left = (size_t)(boot + sizeof(boot) - (char *)p);
        if (q)
            memcpy(q, p, n < left ? n : left);
        return q;
    }
    NH_REAL(realloc);
    return real.realloc ? real.realloc(p, n) : NULL;
}

NH_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    NH_OV_FENCE("posix_memalign");
    NH_REAL(posix_memalign);
    return real.posix_memalign ? real.posix_memalign(out, align, n) : ENOMEM;
}

NH_EXPORT void *aligned_alloc(size_t align, size_t n)
{
    NH_OV_FENCE("aligned_alloc");
    NH_REAL(aligned_alloc);
    return real.aligned_alloc ? real.aligned_alloc(align, n) : NULL;
}

NH_EXPORT void *memalign(size_t align, size_t n)
{
    NH_OV_FENCE("memalign");
    NH_REAL(memalign);
    return real.memalign ? real.memalign(align, n) : NULL;
}

NH_EXPORT void *valloc(size_t n)
{
    NH_OV_FENCE("valloc");
    NH_REAL(valloc);
    return real.valloc ? real.valloc(n) : NULL;
}

/* ---- I/O on user buffers ---- */

#define NH_IO(ret, name, params, args)                                                             \
    NH_EXPORT ret name params                                                                      \
    {                                                                                              \
        static ret(*next) params;                                                                  \
        NH_OV_FENCE(#name);                                                                        \
        if (!next)                                                                                 \
            next = (ret(*) params)dlsym(RTLD_NEXT, #name);                                         \
        return next args;                                                                          \
    }

NH_IO(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n))
NH_IO(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n))
NH_IO(ssize_t, pread, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
NH_IO(ssize_t, pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
NH_IO(ssize_t, pread64, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off))
NH_IO(ssize_t, pwrite64, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off))
NH_IO(ssize_t, readv, (int fd, const struct iovec *v, int n), (fd, v, n))
NH_IO(ssize_t, writev, (int fd, const struct iovec *v, int n), (fd, v, n))
NH_IO(ssize_t, recv, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags))
NH_IO(ssize_t, send, (int fd, const void *buf, size_t n, int flags), (fd, buf, n, flags))
NH_IO(ssize_t, recvfrom,
      (int fd, void *buf, size_t n, int flags, struct sockaddr *a, socklen_t *alen),
      (fd, buf, n, flags, a, alen))
NH_IO(ssize_t, sendto,
      (int fd, const void *buf, size_t n, int flags, const struct sockaddr *a, socklen_t alen),
      (fd, buf, n, flags, a, alen))
NH_IO(ssize_t, recvmsg, (int fd, struct msghdr *m, int flags), (fd, m, flags))
NH_IO(ssize_t, sendmsg, (int fd, const struct msghdr *m, int flags), (fd, m, flags))
NH_IO(size_t, fread, (void *buf, size_t size, size_t n, FILE *f), (buf, size, n, f))
NH_IO(size_t, fwrite, (const void *buf, size_t size, size_t n, FILE *f), (buf, size, n, f))
/* Unmapping: nhood must give pages back before the range can be reused. */
NH_IO(int, munmap, (void *addr, size_t n), (addr, n))
NH_IO(int, madvise, (void *addr, size_t n, int advice), (addr, n, advice))

/* ---- the program's SIGSEGV handler behind nhood's ---- */

NH_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    static int (*next)(int, const struct sigaction *, struct sigaction *);
    if (sig == SIGSEGV && segv && segv(act, old) == 0)
        return 0;
    if (!next)
        next = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT,
                                                                               "sigaction");
    return next(sig, act, old);
}

NH_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    static sighandler_t (*next)(int, sighandler_t);
    if (sig == SIGSEGV && segv) {
        struct sigaction act, old;
        memset(&act, 0, sizeof(act));
        act.sa_handler = handler;
        act.sa_flags = SA_RESTART;
        sigemptyset(&act.sa_mask);
        if (segv(&act, &old) == 0) /* SA_SIGINFO: as glibc, its address */
            return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction
                                               : old.sa_handler;
    }
    if (!next)
        next = (sighandler_t(*)(int, sighandler_t))dlsym(RTLD_NEXT, "signal");
    return next(sig, handler);
}
