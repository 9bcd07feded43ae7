/* A benchmarks' aid, not part of nhood: where ranks outnumber cores,
 * MPICH over UCX (Debian's builds: ch4:ucx) polls without ever giving up
 * its core, so every synchronization waits for the scheduler's quantum
 * (4 to 8 ms) and nothing shorter can be timed: a 3-D Moore graph's
 * creation at 4 ranks on 2 cores takes 8,000 µs, 55 with this.  Preloaded
 * in front of the MPI library (scripts/run-create-bench.sh, YIELD=1), it
 * makes UCX's progress call give up the core when it found nothing to
 * do, as Open MPI's mpi_yield_when_idle does; native and nhood's calls,
 * made in the same processes, run under it alike.  MPICH's own
 * MPIR_CVAR_POLLS_BEFORE_YIELD does not reach ch4's progress loop. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <string.h>

typedef struct ucp_worker *ucp_worker_h;
typedef unsigned (*progress_fn)(ucp_worker_h);

unsigned ucp_worker_progress(ucp_worker_h worker);

unsigned ucp_worker_progress(ucp_worker_h worker)
{
    static progress_fn real;
    progress_fn f = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (!f) {
        void *sym = dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (!sym)
            return 0;
        memcpy(&f, &sym, sizeof(f)); /* (an object pointer into a function pointer) */
        __atomic_store_n(&real, f, __ATOMIC_RELAXED);
    }
    unsigned n = f(worker);
    if (!n)
        sched_yield();
    return n;
}
