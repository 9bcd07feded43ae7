/* Watches and deferred operations: the slots, page protection, the fault
 * handler and the fence (see overlap.h).
 *
 * Who ends a slot.  Exactly one thread moves a slot from ARMED to ENDING
 * (compare-and-swap): the fault handler of the first access, or a fence
 * (an MPI call, an allocation, an I/O call, MPI_Finalize).  Everyone else
 * who meets an ENDING slot waits until it is ENDED, so no access proceeds
 * before the pages are given back and a deferred operation's data is in
 * place.  The handler does only that for a watch (a clock read, two
 * mprotect calls: async-signal-safe); for a deferred operation it also
 * completes the operation, which calls MPI: safe because the faulting
 * access is the program's own (every MPI call, allocation and I/O call
 * fences first, so none of them can be inside when the fault happens).
 *
 * Faults on other addresses go to the handler the program had, or
 * installs later (hooks.c keeps nhood's handler first and chains). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "exec/request.h"
#include "nh_impl.h"
#include "overlap/ov_int.h"

nh_ov_slot nh_ov_slots[NH_OV_SLOTS];
size_t nh_ov_page;

static struct sigaction chained; /* the program's SIGSEGV action */
static int installed;
/* Fences may come from several threads (allocations under FUNNELED). */
static int fence_lock;

double nh_ov_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* async-signal-safe */
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int state(const nh_ov_slot *s)
{
    return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
}

static void set_state(nh_ov_slot *s, int st)
{
    __atomic_store_n(&s->state, st, __ATOMIC_RELEASE);
}

static int claim(nh_ov_slot *s)
{
    int armed = NH_OV_ARMED;
    return __atomic_compare_exchange_n(&s->state, &armed, NH_OV_ENDING, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static void wait_ended(const nh_ov_slot *s)
{
    while (state(s) == NH_OV_ENDING)
        sched_yield();
}

static int wait_armed(const nh_ov_slot *s)
{
    int st;
    while ((st = state(s)) == NH_OV_ARMING)
        sched_yield();
    return st;
}

nh_ov_slot *nh_ov_slot_take(void)
{
    for (int i = 0; i < NH_OV_SLOTS; i++)
        if (state(&nh_ov_slots[i]) == NH_OV_FREE) {
            nh_ov_slot *s = &nh_ov_slots[i];
            memset(s, 0, sizeof(*s));
            s->wait_us = -1;
            return s;
        }
    return NULL;
}

static int protect(nh_ov_slot *s, int side, int prot)
{
    if (s->pg[side] == s->pgend[side])
        return 0;
    return mprotect(s->pg[side], (size_t)(s->pgend[side] - s->pg[side]), prot);
}

int nh_ov_arm(nh_ov_slot *s)
{
    set_state(s, NH_OV_ARMING); /* a fault meanwhile waits for ARMED */
    if (protect(s, 0, PROT_NONE)) { /* receive pages */
        set_state(s, NH_OV_FREE);
        return -1;
    }
    if (protect(s, 1, PROT_READ)) { /* send pages */
        protect(s, 0, PROT_READ | PROT_WRITE);
        set_state(s, NH_OV_FREE);
        return -1;
    }
    s->t_armed = nh_ov_now(); /* after the protection's own cost */
    set_state(s, NH_OV_ARMED);
    __atomic_store_n(&nh_ov_live, 1, __ATOMIC_RELEASE);
    return 0;
}

/* A deferred operation: wait, then the received data into place. */
static void complete(nh_ov_slot *s)
{
    double t0 = nh_ov_now();
    int rc = nh_impl_MPI_Wait(&s->req, MPI_STATUS_IGNORE);
    memcpy(s->user, s->staging, s->len);
    s->call_us = (nh_ov_now() - t0) * 1e6; /* what completion still waited */
    if (rc) /* the call returned long ago: the communicator's handler is all that is left */
        nh_mpi_Comm_call_errhandler(s->comm, rc);
}

/* The pages were read-write before (heap and static data). */
void nh_ov_end(nh_ov_slot *s)
{
    protect(s, 0, PROT_READ | PROT_WRITE);
    protect(s, 1, PROT_READ | PROT_WRITE);
    if (s->deferred)
        complete(s);
    set_state(s, NH_OV_ENDED);
}

static int covers(const nh_ov_slot *s, const char *a)
{
    return (a >= s->pg[0] && a < s->pgend[0]) || (a >= s->pg[1] && a < s->pgend[1]);
}

static void *fault_pc(void *ctx)
{
    ucontext_t *uc = ctx;
#if defined(__x86_64__)
    return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)uc->uc_mcontext.pc;
#else
    (void)uc;
    return NULL;
#endif
}

static void chain(int sig, siginfo_t *si, void *ctx)
{
    if (chained.sa_flags & SA_SIGINFO) {
        if (chained.sa_sigaction) {
            chained.sa_sigaction(sig, si, ctx);
            return;
        }
    } else if (chained.sa_handler != SIG_DFL && chained.sa_handler != SIG_IGN) {
        chained.sa_handler(sig);
        return;
    }
    /* Default action: put it back; the access faults again and the
     * process ends as it would have without nhood. */
    installed = 0; /* first: hooks.c passes the call on only then */
    sigaction(SIGSEGV, &chained, NULL);
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    const char *a = si->si_addr;
    for (int i = 0; i < NH_OV_SLOTS; i++) {
        nh_ov_slot *s = &nh_ov_slots[i];
        int st = state(s);
        if (st == NH_OV_FREE || !covers(s, a))
            continue;
        st = wait_armed(s);
        if (st == NH_OV_ARMED && claim(s)) {
            s->t_touch = nh_ov_now();
            s->touch_pc = fault_pc(ctx);
            int g = nh_guard; /* a deferred completion's MPI calls go to PMPI */
            nh_guard = 1;     /* (not nh_guard_enter: no fence from here) */
            nh_ov_end(s);
            nh_guard = g;
        } else {
            wait_ended(s); /* another thread is giving the pages back */
        }
        errno = saved;
        return;
    }
    chain(sig, si, ctx);
    errno = saved;
}

int nh_ov_watch_init(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    nh_ov_page = (size_t)sysconf(_SC_PAGESIZE);
    if (sigaction(SIGSEGV, &sa, &chained))
        return MPI_ERR_OTHER;
    installed = 1;
    return MPI_SUCCESS;
}

void nh_ov_watch_fini(void)
{
    if (installed)
        installed = 0; /* first: hooks.c passes the call on only then */
    sigaction(SIGSEGV, &chained, NULL);
}

int nh_ov_segv_action(const struct sigaction *act, struct sigaction *old)
{
    if (!installed)
        return -1; /* not ours: the caller passes it on */
    if (old)
        *old = chained;
    if (act)
        chained = *act;
    return 0;
}

void nh_ov_fence(const char *what)
{
    /* First, so that what the fence itself calls (MPI, malloc) passes. */
    __atomic_store_n(&nh_ov_live, 0, __ATOMIC_RELEASE);
    while (__atomic_exchange_n(&fence_lock, 1, __ATOMIC_ACQUIRE))
        sched_yield();
    int g = nh_guard_enter();
    for (int i = 0; i < NH_OV_SLOTS; i++) {
        nh_ov_slot *s = &nh_ov_slots[i];
        if (wait_armed(s) == NH_OV_ARMED && claim(s)) {
            s->t_touch = nh_ov_now();
            s->touch_what = what;
            nh_ov_end(s);
        }
        wait_ended(s);
        if (state(s) == NH_OV_ENDED) {
            nh_ov_site_harvest(s);
            set_state(s, NH_OV_FREE);
        }
    }
    nh_guard_leave(g);
    __atomic_store_n(&fence_lock, 0, __ATOMIC_RELEASE);
}
