/* Thin MPI entry points, generated from functions.h.  Calls nhood makes
 * itself go to PMPI_* directly; the thread-local guard additionally sends
 * any MPI call made while nhood is active (an MPI library calling its own
 * MPI_* entry points, a tool below us) straight to PMPI. */
#include "api/api.h"
#include "exec/request.h"

#define NH_EXPORT __attribute__((visibility("default")))

#define NH_FN(name, params, args) int nh_impl_##name params;
#define NH_FN_DONE NH_FN
#include "functions.h"
#undef NH_FN
#undef NH_FN_DONE

#define NH_FN(name, params, args)                                                                  \
    NH_EXPORT int name params                                                                      \
    {                                                                                              \
        if (nh_guard)                                                                              \
            return P##name args;                                                                   \
        nh_guard = 1;                                                                              \
        int rc = nh_impl_##name args;                                                              \
        nh_guard = 0;                                                                              \
        return rc;                                                                                 \
    }
/* The completion calls go to MPI before the guard is touched when no
 * operation of nhood's is live (the request cannot be nhood's): what a
 * program pays for interposition where nhood does not accelerate
 * (nhood-overhead). */
#define NH_FN_DONE(name, params, args)                                                             \
    NH_EXPORT int name params                                                                      \
    {                                                                                              \
        if (nh_guard || !nh_req_live_any())                                                        \
            return P##name args;                                                                   \
        nh_guard = 1;                                                                              \
        int rc = nh_impl_##name args;                                                              \
        nh_guard = 0;                                                                              \
        return rc;                                                                                 \
    }
#include "functions.h"
#undef NH_FN
#undef NH_FN_DONE
