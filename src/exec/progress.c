/* Progress of nhood's forwarding operations wherever the program is in
 * MPI: the default, NHOOD_PROGRESS=auto.
 *
 * A forwarding schedule (torus, torus_direct, bruck, store-and-forward)
 * sends a block on only after it arrived, so a rank must act between the
 * start of a nonblocking operation and its completion.  A legal program
 * may spend that time blocked in any MPI call (MPI_Recv, MPI_Barrier,
 * MPI_Comm_split, MPI_Win_fence, ...) waiting for a rank that itself
 * waits for this rank's forwarding.  MPI's own multi-round nonblocking
 * collectives are safe there because every blocking call runs the
 * library's progress engine.  nhood gets the same guarantee two ways:
 *
 *  - hook: where the MPI library lets a layer join its progress engine
 *    (Open MPI's opal_progress_register, found at run time), nhood's
 *    operations progress in every MPI call that waits, exactly as the
 *    library's own nonblocking collectives (libnbc) do.  Nothing is paid
 *    while no forwarding operation runs: the hook is registered at the
 *    first one, and returns at once while none runs.
 *  - async: MPICH 4.3 and later run the poll functions given to
 *    MPIX_Async_start (looked up at run time) in their progress engine,
 *    in every call that waits or tests: the same guarantee as the hook.
 *    The poll function is registered when a forwarding operation starts
 *    and removes itself (MPIX_ASYNC_DONE) at the first poll with none
 *    running, so a program with no operation outstanding pays nothing.
 *    Below MPI_THREAD_MULTIPLE only: MPICH's releases up to 5.0 hold a
 *    lock of their list of poll functions while running one, and the
 *    MPI calls nhood's poll makes run that list again (at
 *    MPI_THREAD_MULTIPLE the lock is taken twice: MPICH 5.0.2 stops on
 *    an assertion); there the thread backend serves.  Below that level
 *    the list runs again without a lock, and nhood's poll returns at
 *    once where it is already running on this thread.
 *  - thread: elsewhere (MPICH before 4.3 has no such hook), where MPI runs at
 *    MPI_THREAD_MULTIPLE, every entry point (nhood's own and the
 *    generated ones of overlap/fence.c) that runs while a forwarding
 *    operation is live brackets its MPI call with nh_prog_enter /
 *    nh_prog_leave: a helper thread progresses nhood's operations while
 *    some program thread is inside MPI.  Outside MPI the helper sleeps, so
 *    the program's computation keeps its cores.  That level costs every
 *    MPI call a lock in MPICH (MPI_Test on a null request: 3.6 -> 15.7 ns
 *    here), so nhood asks for it only where a nonblocking call can
 *    forward: the program asked for it itself, or NHOOD_ALGO* forces a
 *    forwarding algorithm (auto forwards in nonblocking calls only where
 *    a backend exists, so it cannot ask for the level on its behalf).
 *
 * Blocking collectives cannot be replaced by their nonblocking forms on
 * some ranks only (MPI never matches a blocking collective with a
 * nonblocking one), and replacing them on every rank would double the
 * latency of every small MPI_Allreduce; a progress engine that runs inside
 * the blocking call is the only way that costs nothing where nothing
 * forwards.  Where neither backend is available (NHOOD_OVERLAP on, a
 * level below MPI_THREAD_MULTIPLE, simulation), auto behaves as safe:
 * nonblocking calls use single-phase schedules.  What neither covers: a
 * program that blocks outside MPI (a condition variable, a sleep on
 * another rank's file) while a forwarding operation is live, as with
 * MPI's own multi-round nonblocking collectives. */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "exec/progress.h"
#include "exec/engine.h"
#include "util/host.h"
#ifdef HAVE_VALGRIND_HELGRIND_H
#include <valgrind/helgrind.h>
#else
#define VALGRIND_HG_DISABLE_CHECKING(addr, len)
#endif

nh_prog_kind nh_prog;
int nh_prog_hot;

typedef int (*opal_cb)(void);
static int (*hook_register)(opal_cb);
static int (*hook_unregister)(opal_cb);
/* MPIX_Async_start(poll_fn, extra_state, stream): poll_fn gets an opaque
 * pointer and returns MPIX_ASYNC_NOPROGRESS (0) or MPIX_ASYNC_DONE (1);
 * the stream is MPIX_STREAM_NULL (MPICH's own header says where it has
 * streams at all). */
enum { ASYNC_NOPROGRESS = 0, ASYNC_DONE = 1 };
typedef int (*async_poll_fn)(void *thing);
#ifdef MPIX_STREAM_NULL
static int (*async_start)(async_poll_fn, void *, MPIX_Stream);
#else
static void *async_start; /* never found */
#endif
static void (*prog_fn)(void);
static int running; /* forwarding operations running (any backend) */
static int armed;   /* 1: hook or poll function registered, or helper started; -1: that failed
                       (async: under mu, and back to 0 where the poll function removed itself) */

static pthread_t helper;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int inside; /* program threads inside an MPI call that may block */

/* The MPI library's ways into its progress engine, looked up once. */
static void find_backends(void)
{
    static int looked;
    if (looked || nh_host_simulated())
        return;
    looked = 1;
    hook_register = (int (*)(opal_cb))dlsym(RTLD_DEFAULT, "opal_progress_register");
    hook_unregister = (int (*)(opal_cb))dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    if (!hook_unregister)
        hook_register = NULL;
#ifdef MPIX_STREAM_NULL
    async_start = (int (*)(async_poll_fn, void *, MPIX_Stream))nh_mpilib_lookup(
        "PMPIX_Async_start");
#endif
}

/* Does NHOOD_ALGO, NHOOD_ALGO_ALLTOALL or NHOOD_ALGO_ALLGATHER force an
 * algorithm that forwards (every one after direct)?  Only then does nhood
 * ask for the thread level a backend needs (auto forwards in nonblocking
 * calls only where one exists, select/select.c). */
static int forced_forwarding(void)
{
    int fwd = nh_cfg.algo > NH_ALGO_DIRECT;
    for (int o = 0; o < NH_OP_COUNT; o++)
        fwd |= nh_cfg.algo_op[o] > NH_ALGO_DIRECT;
    return fwd;
}

int nh_prog_level(int required)
{
    find_backends();
    if (hook_register || async_start || nh_host_simulated() || required == MPI_THREAD_MULTIPLE ||
        nh_cfg.progress != NH_PROGRESS_AUTO || nh_cfg.disable || nh_cfg.overlap != NH_OVERLAP_OFF ||
        !forced_forwarding())
        return required;
    return MPI_THREAD_MULTIPLE;
}

int nh_prog_init(int provided, void (*fn)(void))
{
    prog_fn = fn;
    nh_prog = NH_PROG_NONE;
    if (nh_cfg.progress != NH_PROGRESS_AUTO)
        return 1; /* nothing to agree on */
    find_backends();
    /* The flags the helper and the program threads share without a lock
     * are atomics, which helgrind does not model (a no-op outside it). */
    VALGRIND_HG_DISABLE_CHECKING(&nh_prog_hot, sizeof(nh_prog_hot));
    VALGRIND_HG_DISABLE_CHECKING(&inside, sizeof(inside));
    VALGRIND_HG_DISABLE_CHECKING(&running, sizeof(running));
    if (nh_cfg.overlap != NH_OVERLAP_OFF || nh_host_simulated())
        return 0; /* the advisor's watches and wrappers assume no progress from below */
    if (hook_register)
        nh_prog = NH_PROG_HOOK;
    else if (async_start && provided != MPI_THREAD_MULTIPLE)
        nh_prog = NH_PROG_ASYNC; /* not at that level: see the top of this file */
    else if (provided == MPI_THREAD_MULTIPLE)
        nh_prog = NH_PROG_THREAD;
    return nh_prog != NH_PROG_NONE;
}

void nh_prog_agree(int ok)
{
    if (!ok)
        nh_prog = NH_PROG_NONE;
}

int nh_prog_forwarding(void)
{
    return nh_cfg.progress == NH_PROGRESS_POLL ||
           (nh_cfg.progress == NH_PROGRESS_AUTO && nh_prog != NH_PROG_NONE);
}

const char *nh_prog_name(void)
{
    switch (nh_cfg.progress) {
    case NH_PROGRESS_SAFE:
        return "safe";
    case NH_PROGRESS_POLL:
        return "poll";
    default:
        return nh_prog == NH_PROG_HOOK     ? "auto:hook"
               : nh_prog == NH_PROG_ASYNC  ? "auto:async"
               : nh_prog == NH_PROG_THREAD ? "auto:thread"
                                           : "auto:none";
    }
}

const char *nh_prog_backends(void)
{
    find_backends();
    if (nh_host_simulated())
        return "none (simulated)";
    return hook_register ? "hook thread" : async_start ? "async thread" : "thread";
}

/* The MPI library's progress engine calls this in every wait. */
static int hook(void)
{
    if (__atomic_load_n(&running, __ATOMIC_RELAXED))
        prog_fn();
    return 0;
}

static int quit;

#ifdef MPIX_STREAM_NULL
/* MPICH's progress engine calls this in every wait and test while it is
 * registered (arm_async); it removes itself at the first call with
 * nothing running (checked under mu, which arm_async also takes after
 * counting the new operation, so one of the two always sees the other). */
static __thread int in_poll; /* this thread is inside async_poll */

static int async_poll(void *thing)
{
    (void)thing;
    if (in_poll)
        return ASYNC_NOPROGRESS; /* run again from an MPI call of its own: nothing to do */
    if (__atomic_load_n(&running, __ATOMIC_ACQUIRE) && !__atomic_load_n(&quit, __ATOMIC_RELAXED)) {
        in_poll = 1;
        prog_fn();
        in_poll = 0;
        return ASYNC_NOPROGRESS;
    }
    pthread_mutex_lock(&mu);
    int done = !__atomic_load_n(&running, __ATOMIC_ACQUIRE) || quit;
    if (done)
        armed = 0;
    pthread_mutex_unlock(&mu);
    return done ? ASYNC_DONE : ASYNC_NOPROGRESS;
}
#endif

static int busy(void)
{
    return __atomic_load_n(&inside, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&nh_prog_hot, __ATOMIC_ACQUIRE);
}

static void *helper_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!quit && !busy())
            pthread_cond_wait(&cv, &mu);
        if (quit)
            break;
        pthread_mutex_unlock(&mu);
        while (busy()) {
            prog_fn();
            sched_yield(); /* ranks may share cores (MPICH busy-polls) */
        }
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void wake(void)
{
    pthread_mutex_lock(&mu);
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}

/* First forwarding operation: register the hook or start the helper
 * (with every signal blocked: the program's handlers stay on its own
 * threads).  Under NH_LOCK_REQ, outside the MPI library's progress. */
static void arm(void)
{
    int rc;
    armed = 1;
    if (nh_prog == NH_PROG_HOOK) {
        rc = hook_register(hook);
    } else {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&helper, NULL, helper_main, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    /* The choice to forward stays as agreed (every rank must keep choosing
     * alike): this rank's operations then progress in nhood's own calls
     * only, as under poll. */
    if (rc) {
        nh_warn("NHOOD_PROGRESS=auto: no %s on this rank (error %d); its forwarding operations "
                "progress only in completion calls",
                nh_prog == NH_PROG_HOOK ? "progress hook" : "helper thread", rc);
        armed = -1;
    }
}

/* A forwarding operation under the async backend: the poll function
 * registered unless it is (it may have removed itself since). */
static void arm_async(void)
{
#ifdef MPIX_STREAM_NULL
    pthread_mutex_lock(&mu);
    int need = __atomic_load_n(&armed, __ATOMIC_RELAXED) == 0;
    if (need)
        __atomic_store_n(&armed, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&mu);
    int rc = need ? async_start(async_poll, NULL, MPIX_STREAM_NULL) : 0;
    if (rc) {
        nh_warn("NHOOD_PROGRESS=auto: MPIX_Async_start failed on this rank (error %d); its "
                "forwarding operations progress only in completion calls",
                rc);
        __atomic_store_n(&armed, -1, __ATOMIC_RELAXED);
    }
#endif
}

void nh_prog_running(int delta)
{
    if (nh_prog == NH_PROG_NONE || __atomic_load_n(&armed, __ATOMIC_RELAXED) < 0)
        return;
    if (nh_prog == NH_PROG_ASYNC) { /* counted first: async_poll reads it under mu */
        __atomic_add_fetch(&running, delta, __ATOMIC_ACQ_REL);
        if (delta > 0)
            arm_async();
        return;
    }
    if (delta > 0 && !armed)
        arm();
    if (armed < 0)
        return;
    int n = __atomic_add_fetch(&running, delta, __ATOMIC_ACQ_REL);
    if (nh_prog != NH_PROG_THREAD)
        return;
    __atomic_store_n(&nh_prog_hot, n, __ATOMIC_RELEASE);
    if (delta > 0 && n == 1 && __atomic_load_n(&inside, __ATOMIC_ACQUIRE))
        wake();
}

void nh_prog_enter(void)
{
    if (__atomic_fetch_add(&inside, 1, __ATOMIC_ACQ_REL) == 0)
        wake();
}

void nh_prog_leave(void)
{
    __atomic_sub_fetch(&inside, 1, __ATOMIC_ACQ_REL);
}

void nh_prog_fini(void)
{
    if (nh_prog == NH_PROG_ASYNC) { /* MPI_Finalize polls until it removes itself */
        __atomic_store_n(&quit, 1, __ATOMIC_RELAXED);
        return;
    }
    if (armed <= 0)
        return;
    armed = 0;
    if (nh_prog == NH_PROG_HOOK) {
        hook_unregister(hook);
        return;
    }
    pthread_mutex_lock(&mu);
    quit = 1;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(helper, NULL);
}
