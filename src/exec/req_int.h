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
} nh_req;

extern int nh_req_nmulti; /* running ones that forward (more than one message phase) */

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
