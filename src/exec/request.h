/* Nonblocking and persistent neighborhood collectives: nhood's requests
 * (request.c) over the engine.  The completion calls that finish them
 * (completion.c) are entry points, declared in nh_impl.h. */
#ifndef NH_REQUEST_H
#define NH_REQUEST_H

#include "exec/engine.h"

/* Creates an operation running s on the call and its handle; a
 * nonblocking one starts now, a persistent one counts its starts in
 * *starts (if not NULL).  *zcopy: some message is a struct datatype. */
int nh_req_create(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                  int persistent, long *starts, int *zcopy, MPI_Request *out);
/* MPI's own nonblocking operation inner on p as one of nhood's
 * requests (*out), so that the completion calls see it end: a learning
 * trial of MPI's exchange (select/autotune.c). */
int nh_req_wrap(nh_plan *p, MPI_Request inner, MPI_Request *out);
/* MPI's own nonblocking or persistent operation inner with nhood's work
 * around it, as one of nhood's requests (*out): start (may be NULL) runs
 * before each start of a persistent one, which nhood then starts; done
 * (may be NULL) once inner completed, before the completion call
 * returns (an error it returns is the operation's); fini frees ctx when
 * the request goes.  comm: inner's communicator (under Sessions the
 * handle's, where p has no private one yet).  Where this fails, inner is
 * completed (nonblocking) or freed (persistent) and ctx freed. */
typedef struct nh_wrap_ops {
    int (*start)(void *ctx);
    int (*done)(void *ctx);
    void (*fini)(void *ctx);
} nh_wrap_ops;
int nh_req_wrap_ops(nh_plan *p, MPI_Request inner, int persistent, const nh_wrap_ops *ops,
                    void *ctx, MPI_Comm comm, MPI_Request *out);
/* Times the nonblocking operation behind h for the learning: start_s
 * seconds for its start, plus each completion call that names it (from
 * the call's beginning to its end, or to the operation's completion);
 * the total goes to *slot when the operation completes.  0 where h is
 * not nhood's request (nothing timed). */
int nh_req_time(MPI_Request h, double start_s, double *slot);
/* One nonblocking step of every running operation. */
void nh_req_progress(void);
/* The same, for the progress backend (exec/progress.c): nothing where this
 * thread is already inside nhood's request code. */
void nh_req_progress_from_mpi(void);
/* MPI_Allreduce that progresses nhood's operations while it waits:
 * another rank may be waiting for one of them, which needs this rank's
 * forwarding, before it joins the reduction. */
int nh_req_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm);
/* Frees every operation (MPI_Finalize). */
void nh_req_fini(void);

extern struct nh_req *nh_req_live; /* all of nhood's operations (req_int.h) */

/* Any operation at all?  The lock-free test of the completion calls' fast
 * paths: without one, MPI's request is MPI's. */
static inline int nh_req_live_any(void)
{
    return __atomic_load_n(&nh_req_live, __ATOMIC_ACQUIRE) != NULL;
}

#endif
