/* nhood's requests as the completion calls see them (request.c,
 * completion.c); private to src/exec/.  Everything here runs under
 * NH_LOCK_REQ except nh_req_live_any. */
#ifndef NH_REQ_INT_H
#define NH_REQ_INT_H

#include "exec/engine.h"
#include "exec/request.h"
#include "util/sync.h"

typedef struct nh_req {
    struct nh_req *next;
    MPI_Request handle;
    int persistent;
    int active;   /* started, not yet completed by a completion call */
    int done;     /* the schedule ran to the end */
    int freed;    /* handle freed by the user while active: destroy when done */
    int multi;    /* the schedule forwards (more than one message phase) */
    int err;      /* first error while progressing */
    long *starts; /* persistent: the report's call counter, or NULL */
    nh_run run;   /* the engine's run of the schedule */
    int wrapped;  /* MPI's own operation (inner), no run: a learning trial, or nh_req_wrap_ops */
    MPI_Request inner;
    const nh_wrap_ops *ops; /* nh_req_wrap_ops's, or NULL */
    void *ctx;
    MPI_Comm home; /* nh_req_wrap_ops's comm */
    double *paid; /* a timed trial: where its cost goes at completion (nh_req_time) */
    double acc;   /* seconds charged to it so far */
} nh_req;

extern int nh_req_nmulti;         /* running ones that forward (more than one message phase) */
extern int nh_req_ntimed;         /* live timed trials (nh_req_time) */
extern __thread double nh_req_t0; /* when this thread's completion call began, where some are */

/* A completion call charges a timed trial it names the seconds since it
 * began (nh_req_charge); at completion the total goes to the trial's slot
 * (nh_req_paid). */
static inline void nh_req_clock(void)
{
    if (__atomic_load_n(&nh_req_ntimed, __ATOMIC_RELAXED))
        nh_req_t0 = nh_mpi_Wtime();
}
void nh_req_charge(nh_req *r);
void nh_req_paid(nh_req *r);

/* The operation behind a handle, or NULL. */
nh_req *nh_req_lookup(MPI_Request h);
/* Removes r from the list and frees it. */
void nh_req_destroy(nh_req *r);
/* One step of every running operation; destroys freed ones that are done. */
void nh_req_progress_locked(void);
/* Until r's schedule is done (lets other threads in between steps). */
void nh_req_wait_done(nh_req *r);
/* Starts r (after the previous operation in its tag slot completed). */
int nh_req_start(nh_req *r);

#endif
