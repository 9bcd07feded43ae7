/* The overlap advisor and deferred completion (NHOOD_OVERLAP).
 *
 * After the dynamic analysis of "Maximizing Communication Overlap with
 * Dynamic Program Analysis" (Saillard, Sen, Lavrijsen, Iancu; HPC Asia
 * 2018, HAL hal-01937407), applied to MPI's neighborhood
 * collectives: the latest point where an operation's completion is still
 * needed is the first access to its data, which page protection finds
 * without instrumenting the program.
 *
 *  - report: when a neighborhood collective completes (a blocking call
 *    returns, or a nonblocking one's request completes), the pages wholly
 *    inside its receive buffer lose all access and those inside its send
 *    buffer become read-only.  The first access faults; the handler
 *    records when and where, gives the pages back and returns.  Any MPI
 *    call, memory allocation or I/O call ends the watch first (a
 *    synchronization point, the paper's "local" view).  Per call site,
 *    MPI_Finalize prints the window and the bound on what completing at
 *    the first access could save.
 *  - defer: an eligible blocking call starts the operation and returns at
 *    once; receives land in nhood's staging buffer, the receive buffer's
 *    pages lose all access and the send buffer's become read-only, and
 *    the operation completes at the first of: a fault on those pages, the
 *    next MPI call of any kind, a memory allocation or I/O call, or
 *    MPI_Finalize.
 *
 * Files: watch.c (the slots, page protection, the fault handler, the
 * fence), advisor.c (per-site figures, symbols, the table), coll.c (the
 * neighborhood collectives' entry points under a mode, eligibility,
 * staging), track.c (nonblocking calls' requests through the completion
 * calls), fence.c (every other MPI function, generated from mpi.h by
 * scripts/gen-fence.sh), hookapi.c (what libnhood-overlap.so calls:
 * hooks.h), and hooks.c, which is libnhood-overlap.so (allocation and I/O
 * calls as fences, the SIGSEGV handler kept first). */
#ifndef NH_OVERLAP_H
#define NH_OVERLAP_H

#include "api/api.h"

/* nh_ov_live (api/api.h) is nonzero while a watch or deferred operation
 * is outstanding: every MPI entry point, allocation and I/O call then
 * calls nh_ov_fence first. */
/* The mode in force (0 until MPI_Init has read NHOOD_OVERLAP). */
extern int nh_ov_mode;

static inline int nh_ov_pending(void)
{
    return __builtin_expect(__atomic_load_n(&nh_ov_live, __ATOMIC_RELAXED), 0);
}

/* Ends every watch and completes every deferred operation; what names the
 * call that got there first ("MPI_Allreduce", "malloc"). */
void nh_ov_fence(const char *what);

/* Start-up (after the MPI library's) and shut-down (before it). */
int nh_ov_init(int provided);
void nh_ov_finalize(void);

/* A blocking neighborhood collective under a mode; site: the caller's
 * return address. */
int nh_ov_blocking(nh_coll coll, const nh_args *a, MPI_Comm comm, void *site);
/* A nonblocking one under report: runs it and follows its request. */
int nh_ov_nonblocking(nh_coll coll, const nh_args *a, MPI_Comm comm, MPI_Request *req,
                      void *site);

/* A nonblocking call's request freed before completion (MPI_Request_free). */
void nh_ov_forget(MPI_Request h);

/* The completion calls under a mode (track.c). */
int nh_ov_MPI_Wait(MPI_Request *request, MPI_Status *status);
int nh_ov_MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int nh_ov_MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]);
int nh_ov_MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);
int nh_ov_MPI_Waitany(int count, MPI_Request reqs[], int *indx, MPI_Status *status);
int nh_ov_MPI_Testany(int count, MPI_Request reqs[], int *indx, int *flag, MPI_Status *status);
int nh_ov_MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]);
int nh_ov_MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]);

#endif
