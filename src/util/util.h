/* What every layer above core shares (util/): handing a call to MPI
 * (NH_TO_PMPI), the rank for messages, warnings and errors (log.c), and
 * packing that accepts MPI_BOTTOM (pack.c).  Each layer above has its own
 * header: config/config.h, plan/plan.h, exec/engine.h, exec/inplace.h,
 * select/select.h, api/api.h, api/report.h, iso/iso.h (docs/layout.md). */
#ifndef NH_UTIL_H
#define NH_UTIL_H

#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/facts.h"
#include "util/mpilib.h"
#include "util/resource.h"

/* ---- handing a call to MPI ----
 * A function that runs an MPI call nhood intercepted, or may leave it to
 * the MPI library, returns MPI_SUCCESS, an MPI error code (positive), or
 * NH_TO_PMPI: nhood declines the call, and the code that received it
 * from the program (an nh_impl_* entry point, an Iso_* function, the
 * overlap layer's hook) makes the MPI library's own call with the
 * program's arguments.  It is the one way every layer says so (exec's
 * nh_inplace; api's nh_neighbor, nh_inplace_try and their helpers; iso's
 * calls of nh_neighbor), and each passes it up unchanged.
 *
 * NH_ALGO_PMPI (core/sched.h) is another thing: an algorithm, MPI's own
 * exchange, as selection's choice (NHOOD_ALGO=pmpi, auto's cost model,
 * the autotuner's candidate), carried in nh_choice.algo (select/select.h)
 * and counted in the report like nhood's own algorithms.  nh_neighbor
 * (api/neighbor.c) is where that choice becomes NH_TO_PMPI, except in an
 * autotune trial, which times MPI's exchange itself.  The in-place
 * all-to-all's order NH_INPLACE_PMPI (core/inplace.h) is the same kind of
 * choice, which nh_inplace turns into NH_TO_PMPI. */
#define NH_TO_PMPI (-1)

/* ---- the calls' own path ----
 * NH_HOT marks the functions every intercepted call runs where nhood
 * passes it to MPI or repeats a decision (the entry points, the plan's
 * look-up, the decision's memo, the report's count): gcc places them
 * together (.text.hot), so that such a call touches a few pages of
 * nhood's code rather than one per file.  Where ranks outnumber cores, or
 * the program works between calls, each page is a TLB miss and each line
 * a cache miss per call (docs/benchmarks.md).  Mark no function off that
 * path: each pushes the others apart. */
#define NH_HOT __attribute__((hot))

/* Thread-local state every call reads (the reentry guard, the memos of
 * util/memo.h): initial-exec, a plain %fs-relative access, not a
 * __tls_get_addr call (a preloaded library gets static TLS).  Not in the
 * SMPI build, where SimGrid loads one copy of the program per simulated
 * rank and static TLS would run out. */
#ifdef NHOOD_SMPI
#define NH_TLS_FAST
#else
#define NH_TLS_FAST __attribute__((tls_model("initial-exec")))
#endif

extern int nh_world_rank; /* set at start-up (api/lifecycle.c); Sessions: the rank in the
                            * communicator nhood started on */
/* nhood started in a program that uses only MPI-4 Sessions (no MPI_Init):
 * MPI_COMM_WORLD is not valid there (api/lifecycle.c, util/log.c). */
extern int nh_no_world;
/* Messages on stderr (util/log.c): warnings from rank 0, errors from any. */
void nh_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The report's lines (util/log.c), FMT's newline included: each in one
 * write, on stderr or appended to the file nh_log_to names (NULL: stderr). */
void nh_log_to(const char *path);
void nh_log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* MPI_Pack / MPI_Unpack that also accept a block at MPI_BOTTOM (util/pack.c). */
int nh_pack(const void *in, int count, MPI_Datatype type, void *out, int outsize, int *pos,
            MPI_Comm comm);
int nh_unpack(const void *in, int insize, int *pos, void *out, int count, MPI_Datatype type,
              MPI_Comm comm);

/* size bytes zeroed, as calloc(1, size) gives them, but from malloc's
 * per-thread cache, which glibc's calloc skips (2.36: 22 ns against 5 for
 * a kilobyte, paid twice by each graph creation); NULL if out of memory.
 * The empty asm hides p's origin from the compiler, which would otherwise
 * fold malloc and memset back into calloc (gcc 12 -O2 did, in every
 * caller). */
static inline void *nh_zalloc(size_t size)
{
    void *p = malloc(size);
    __asm__("" : "+r"(p));
    return p ? memset(p, 0, size) : NULL;
}

/* ---- agreed facts ----
 * Every rank's values val of the facts f (core/facts.h) combined over
 * comm into out (which may be val): one MPI_MIN reduction, and one
 * MPI_SUM where f has SUM facts; collective over comm (util/agree.c). */
int nh_facts_allreduce(const nh_fact *f, int n, const long long *val, long long *out,
                       MPI_Comm comm);

#endif
