/* Every MPI function nhood does not otherwise interpose: a fence for
 * NHOOD_OVERLAP: the next MPI call of any kind ends the watches and
 * completes a deferred operation before MPI runs (the call may hand the
 * protected buffers to MPI, and a deferred operation's data is due at
 * any synchronization).  The list is generated at build time from the
 * MPI library's own mpi.h (scripts/gen-fence.sh), so it matches the
 * library nhood is built against. */
#include "api/below.h"
#include "exec/progress.h"
#include "exec/request.h"
#include "overlap/ov_int.h"

/* The same wrappers carry the thread backend of NHOOD_PROGRESS=auto
 * (exec/progress.c): while a forwarding operation of nhood's runs, any
 * MPI call may block, and the helper thread progresses the operation
 * until the call returns.  Where neither is live, a wrapper is one test
 * and a tail call: everything else is out of line. */
/* Both names, as for nhood's own entry points (intercept/intercept.c):
 * PMPI_X is the fence, MPI_X the layer below it (util/mpilib.h): a tool
 * loaded after nhood where there is one, else the fence inline.  A tool in front of
 * nhood that calls PMPI_X therefore still lets the helper thread progress
 * nhood's operations while the program blocks in that call. */
#define NH_FENCE_FN(ret, name, lib, params, args)                                                       \
    __attribute__((noinline, cold)) static ret nh_fence_slow_##name params                         \
    {                                                                                              \
        if (nh_ov_pending() && !nh_guard)                                                          \
            nh_ov_fence(#name);                                                                    \
        if (__atomic_load_n(&nh_prog_hot, __ATOMIC_RELAXED) && !nh_guard) {                        \
            nh_prog_enter();                                                                       \
            ret rc = lib args;                                                            \
            nh_prog_leave();                                                                       \
            return rc;                                                                             \
        }                                                                                          \
        return lib args;                                                                  \
    }                                                                                              \
    static ret nh_fence_##name params                                                              \
    {                                                                                              \
        if (__builtin_expect(__atomic_load_n(&nh_ov_live, __ATOMIC_RELAXED) |                      \
                                 __atomic_load_n(&nh_prog_hot, __ATOMIC_RELAXED),                  \
                             0))                                                                   \
            return nh_fence_slow_##name args;                                                      \
        return lib args;                                                                  \
    }                                                                                              \
    __attribute__((visibility("default"))) ret P##name params                                     \
        __attribute__((alias("nh_fence_" #name)));                                                 \
    NH_MPI_BELOW(ret, name, lib, params, args, nh_fence_##name, 0)
/* A program may still call what MPI-2 deprecated (MPI_Attr_get, ...). */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "overlap/fence_gen.h"
