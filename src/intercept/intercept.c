/* Thin MPI entry points, generated from functions.h.  Calls nhood makes
 * itself go to PMPI_* directly; the thread-local guard additionally sends
 * any MPI call made while nhood is active (an MPI library calling its own
 * MPI_* entry points, a tool below us) straight to PMPI. */
#include "api/api.h"

#define NH_EXPORT __attribute__((visibility("default")))

#define NH_FN(name, params, args) int nh_impl_##name params;
#include "functions.h"
#undef NH_FN

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
#include "functions.h"
#undef NH_FN
