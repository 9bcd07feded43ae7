/* MPI's entry points exported over nhood's own (intercept/intercept.c,
 * overlap/fence.c): the one macro that finds the layer below at load
 * time and keeps the MPI library's calls into itself away from tools.
 * In the api layer, since it reads the api layer's nh_guard (and the
 * engine's nh_req_live_any, below it). */
#ifndef NH_BELOW_H
#define NH_BELOW_H

#include "api/api.h"
#include "exec/request.h"
#include "util/mpilib.h"

/* Exports MPI_X over own (nhood's PMPI_X, defined by the including file,
 * intercept.c or fence.c; lib: the library's function, nh_mpi_X):
 * the layer below is found at the first call; where it is own, own runs
 * inline (one load and a compare more than own alone).  A call reaching
 * MPI_X while nhood runs (nh_guard: the MPI library calling its own entry
 * points) goes to the library, never to a tool.  kept (0 or 1, a
 * literal): the call may be one nhood keeps from a tool (nh_mpilib_next);
 * 0 compiles the test out. */
#define NH_MPI_BELOW(ret, name, lib, params, args, own, kept)                                           \
    static ret nh_below_first_##name params;                                                       \
    static ret (*nh_below_##name) params = nh_below_first_##name;                                  \
    static ret (*nh_bypass_##name) params;                                                         \
    static void nh_below_find_##name(void)                                                         \
    {                                                                                              \
        void *bypass;                                                                              \
        __typeof__(nh_below_##name) f =                                                            \
            (__typeof__(f))nh_mpilib_next(#name, (void *)own, &bypass);                            \
        __atomic_store_n(&nh_bypass_##name, (__typeof__(f))bypass, __ATOMIC_RELAXED);             \
        __atomic_store_n(&nh_below_##name, f, __ATOMIC_RELAXED);                                   \
    }                                                                                              \
    NH_MPILIB_AT_LOAD(nh_below_find_##name)                                                        \
    static ret nh_below_first_##name params                                                        \
    {                                                                                              \
        nh_below_find_##name();                                                                    \
        return name args; /* the first call as every later one */                                 \
    }                                                                                              \
    __attribute__((visibility("default"))) ret name params                                        \
    {                                                                                              \
        __typeof__(nh_below_##name) f = __atomic_load_n(&nh_below_##name, __ATOMIC_RELAXED);      \
        if (__builtin_expect(f == own, 1)) {                                                       \
            if (kept && __builtin_expect(nh_bypass_##name != NULL, 0) && !nh_guard &&              \
                !nh_req_live_any()) {                                                              \
                nh_mpilib_warn(); /* once, where MPI runs */                                       \
                return nh_bypass_##name args; /* no request of nhood's can be in the call */       \
            }                                                                                      \
            return own args;                                                                       \
        }                                                                                          \
        if (nh_guard)                                                                              \
            return lib args;                                                                       \
        return f args;                                                                             \
    }
#endif
