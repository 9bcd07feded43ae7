/* Thin MPI entry points, generated from functions.h, under both names.
 * PMPI_X runs nhood; MPI_X hands the call to the layer below it: a PMPI
 * tool loaded after nhood (which then calls PMPI_X, nhood's), or where
 * there is none, nhood's PMPI_X itself.  So a tool sees the program's
 * calls whatever the preload order, and a tool before nhood reaches nhood
 * through PMPI_X (docs/tools.md).  Calls nhood makes itself go to the MPI
 * library (util/mpilib.h); the thread-local guard additionally sends any
 * MPI call made while nhood is active (an MPI library calling its own
 * entry points) straight to the library.
 *
 * While a forwarding operation runs under the thread backend
 * (exec/progress.h), every entry point lets the helper thread progress it
 * for the duration of the call.
 *
 * Under NHOOD_OVERLAP (overlap/overlap.h) every entry point first ends
 * the outstanding watches and deferred operations, and records its
 * caller's return address (the advisor's call site). */
#include "api/api.h"
#include "api/below.h"
#include "exec/progress.h"
#include "exec/request.h"
#include "nh_impl.h"
#include "util/window.h"
#ifndef NHOOD_SMPI
#include "overlap/overlap.h"
#define NH_OV_ENTRY(name)                                                                          \
    do {                                                                                           \
        nh_caller = __builtin_return_address(0);                                                   \
        if (nh_ov_pending())                                                                       \
            nh_ov_fence(#name);                                                                    \
    } while (0)
#define NH_OV_ON nh_ov_mode
#define NH_OV_DONE(name, args)                                                                     \
    if (__builtin_expect(nh_ov_mode, 0)) {                                                         \
        nh_guard = 1;                                                                              \
        if (nh_ov_pending())                                                                       \
            nh_ov_fence(#name);                                                                    \
        int rc = nh_ov_##name args;                                                                \
        nh_guard = 0;                                                                              \
        return rc;                                                                                 \
    }
#else
#define NH_OV_ENTRY(name)
#define NH_OV_ON 0
#define NH_OV_DONE(name, args)
#endif

#define NH_EXPORT __attribute__((visibility("default")))

#ifndef NHOOD_SMPI
/* The overlap layer starts after nhood (it reads nhood's configuration)
 * and stops before it (its table comes before nhood's report). */
static int nh_ov_entry_Init(int *argc, char ***argv)
{
    int provided, rc = nh_impl_MPI_Init(argc, argv);
    if (!rc && !(rc = nh_mpi_Query_thread(&provided)))
        rc = nh_ov_init(provided);
    return rc;
}

static int nh_ov_entry_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = nh_impl_MPI_Init_thread(argc, argv, required, provided);
    return rc ? rc : nh_ov_init(*provided);
}

static int nh_ov_entry_Finalize(void)
{
    nh_ov_finalize();
    return nh_impl_MPI_Finalize();
}

static int nh_ov_entry_Request_free(MPI_Request *request)
{
    if (nh_ov_mode)
        nh_ov_forget(*request); /* its handle may come back for another request */
    return nh_impl_MPI_Request_free(request);
}
#else
#define nh_ov_entry_Init nh_impl_MPI_Init
#define nh_ov_entry_Init_thread nh_impl_MPI_Init_thread
#define nh_ov_entry_Finalize nh_impl_MPI_Finalize
#define nh_ov_entry_Request_free nh_impl_MPI_Request_free
#endif

/* name: the MPI function's name (MPI_Wait), lib: the MPI library's
 * function (nh_mpi_Wait), impl: nhood's (nh_impl_MPI_Wait). */
#define NH_FN_BODY(name, lib, impl, args)                                                                \
    {                                                                                              \
        if (nh_guard)                                                                              \
            return lib args;                                                                       \
        nh_guard = 1;                                                                              \
        NH_OV_ENTRY(name);                                                                         \
        int rc;                                                                                    \
        if (__builtin_expect(__atomic_load_n(&nh_prog_hot, __ATOMIC_RELAXED), 0)) {                \
            nh_prog_enter();                                                                       \
            rc = impl args;                                                                        \
            nh_prog_leave();                                                                       \
        } else {                                                                                   \
            rc = impl args;                                                                        \
        }                                                                                          \
        nh_guard = 0;                                                                              \
        return rc;                                                                                 \
    }
#ifndef NHOOD_SMPI
/* PMPI_X is nh_pmpi_X (body), MPI_X the layer below it (util/mpilib.h). */
#define NH_ENTRY(name, lib, params, args, body)                                                    \
    static int nh_pmpi_##name params body                                                          \
    NH_EXPORT int P##name params __attribute__((alias("nh_pmpi_" #name)));                         \
    NH_MPI_BELOW(int, name, lib, params, args, nh_pmpi_##name, 1)
#else /* SMPI binds at link time: MPI_X only, calling SimGrid's PMPI_X */
#define NH_ENTRY(name, lib, params, args, body) NH_EXPORT int name params body
#endif
/* From an entry's short name (Wait): its MPI name, expanded before use
 * (Open MPI 4.1's MPIX_ names for the persistent forms, util/init_forms.h),
 * the library's function and nhood's. */
#define NH_ENTRY_(name, lib, params, args, body) NH_ENTRY(name, lib, params, args, body)
#define NH_FN(s, params, args)                                                                     \
    NH_ENTRY_(MPI_##s, nh_mpi_##s, params, args, NH_FN_BODY(MPI_##s, nh_mpi_##s, nh_impl_MPI_##s, args))
#define NH_FNX(s, params, args)                                                                    \
    NH_ENTRY_(MPIX_##s, nh_mpix_##s, params, args,                                                 \
              NH_FN_BODY(MPIX_##s, nh_mpix_##s, nh_impl_MPIX_##s, args))
#define NH_FN_OV(s, params, args)                                                                  \
    NH_ENTRY_(MPI_##s, nh_mpi_##s, params, args, NH_FN_BODY(MPI_##s, nh_mpi_##s, nh_ov_entry_##s, args))
/* The completion calls go to MPI before the guard is touched when no
 * operation of nhood's is live (the request cannot be nhood's), no
 * overlap mode runs and no sampled window waits for its end: one test and a tail call, what a
 * program pays for interposition where nhood does not accelerate (nhood-overhead); the rest is out
 * of line. */
#define NH_FN_DONE(s, params, args)                                                                \
    __attribute__((noinline)) static int nh_done_##s params                                        \
    {                                                                                              \
        if (nh_guard)                                                                              \
            return nh_mpi_##s args;                                                                \
        NH_OV_DONE(MPI_##s, args)                                                                  \
        if (!nh_req_live_any() && !__atomic_load_n(&nh_win_pending, __ATOMIC_RELAXED))             \
            return nh_mpi_##s args;                                                                \
        nh_guard = 1;                                                                              \
        int rc = nh_impl_MPI_##s args;                                                             \
        nh_guard = 0;                                                                              \
        return rc;                                                                                 \
    }                                                                                              \
    NH_ENTRY_(MPI_##s, nh_mpi_##s, params, args, {                                                 \
        if (__builtin_expect(!nh_req_live_any() &&                                                 \
                                 !(NH_OV_ON | __atomic_load_n(&nh_win_pending, __ATOMIC_RELAXED)), \
                             1))                                                                   \
            return nh_mpi_##s args;                                                                \
        return nh_done_##s args;                                                                   \
    })
#include "functions.h"
#undef NH_FN
#undef NH_FNX
#undef NH_FN_DONE
#undef NH_FN_OV
