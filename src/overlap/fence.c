/* Every MPI function nhood does not otherwise interpose, as a fence for
 * NHOOD_OVERLAP: the next MPI call of any kind ends the watches and
 * completes a deferred operation before MPI runs (the call may hand the
 * protected buffers to MPI, and a deferred operation's data is due at
 * any synchronization).  The list is generated at build time from the
 * MPI library's own mpi.h (scripts/gen-fence.sh), so it matches the
 * library nhood is built against. */
#include "overlap/ov_int.h"

#define NH_FENCE_FN(ret, name, params, args)                                                       \
    __attribute__((visibility("default"))) ret name params                                        \
    {                                                                                              \
        if (nh_ov_pending() && !nh_guard)                                                          \
            nh_ov_fence(#name);                                                                    \
        return P##name args;                                                                       \
    }
/* A program may still call what MPI-2 deprecated (MPI_Attr_get, ...). */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "overlap/fence_gen.h"
