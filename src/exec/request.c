/* Nonblocking and persistent neighborhood collectives: nhood's requests.
 *
 * Handles.  The handle the user holds is a real MPI request that nhood
 * owns: an inactive persistent receive on MPI_COMM_SELF (in a program that
 * uses only Sessions, where that is not valid: from this rank on the
 * plan's private communicator), never started, one per operation; those
 * on MPI_COMM_SELF are kept for later operations once theirs has ended
 * (spare, below).  (From rank 0, not MPI_PROC_NULL: with MPICH 4.0.2,
 * freeing a never-started MPI_PROC_NULL persistent receive makes the next
 * persistent collective started on any communicator hang.)  It is unique
 * while the operation lives, and an MPI call nhood does not intercept
 * sees a valid inactive request rather than garbage.  nhood finds its
 * operation by looking the handle up (a short list: only nhood's live
 * operations are in it, and with none the completion calls go straight
 * to PMPI).
 *
 * Completion calls (MPI_Wait/Test and their all/any/some forms,
 * MPI_Request_get_status, MPI_Request_free, MPI_Start/Startall,
 * MPI_Cancel) are intercepted: they progress every nhood operation,
 * complete nhood's entries themselves and give PMPI the rest of the array
 * with nhood's entries replaced by MPI_REQUEST_NULL, so arrays may mix
 * nhood's requests with any others.
 *
 * Progress.  A schedule whose messages all belong to one phase (direct)
 * posts everything at start; MPI moves the data on its own and nhood only
 * unpacks and copies at completion, so it needs no help from the other
 * ranks' nhood.  A multi-phase schedule (torus, torus_direct, bruck,
 * store-and-forward) forwards data at intermediate ranks, which happens
 * only while nhood runs there: in the completion calls and
 * nhood_progress(), which step every operation, or through a progress
 * backend.  A legal program may block in MPI_Recv (or any call nhood does
 * not see) between start and completion and wait for a rank that needs
 * our forwarding, so nonblocking and persistent operations forward only
 * where something steps them meanwhile: under the default
 * NHOOD_PROGRESS=auto, a progress backend on every rank (exec/progress.c:
 * the MPI library's progress hook, or a helper thread under
 * MPI_THREAD_MULTIPLE); under NHOOD_PROGRESS=poll, the program's promise
 * to stay in completion calls (or call nhood_progress()) while they are
 * outstanding.  NHOOD_PROGRESS=safe, and auto without a backend, keep
 * them to single-phase schedules (select/select.c decides).  Where a
 * running operation may need this rank's forwarding, nhood's blocking
 * completion calls poll every operation instead of blocking in PMPI
 * (nh_req_wait_done, completion.c).
 * Whether an operation forwards is a property of this rank's binding:
 * more than one phase with messages.
 *
 * Tags.  Operations on one plan take tag slots 1..NH_SLOTS-1 in creation
 * order (identical on every rank: collectives start in the same order
 * everywhere); blocking calls use slot 0.  Before an operation starts in a
 * slot, the previous local operation in that slot is completed, so every
 * rank posts a slot's messages operation by operation and MPI's
 * non-overtaking order matches them correctly.
 *
 * Threads (MPI_THREAD_MULTIPLE).  Everything below runs under
 * NH_LOCK_REQ (util/sync.h), which is never held across a blocking MPI
 * call: under nh_mt, waits on nhood's operations poll and let other
 * threads in between steps (nh_lock_yield), and blocking PMPI waits on
 * the rest of an array run unlocked.  A thread keeps pointers only to
 * operations whose handles it holds; no other thread may destroy those
 * (MPI forbids completing one request in two threads at once). */
#include <stdlib.h>
#include <string.h>

#include "exec/progress.h"
#include "exec/req_int.h"
#include "util/host.h"

nh_req *nh_req_live; /* all of nhood's operations */
/* Handles of ended operations kept for the next ones (on MPI_COMM_SELF
 * only): making and freeing a persistent receive costs more than the
 * rest of nhood's request (MPICH 4.2.1: about 1,300 instructions of
 * MPI_Recv_init and MPI_Request_free against 1,900 for the request's
 * whole life), at every nonblocking call.  A kept handle is inactive and
 * owned by no operation, as a new one would be. */
#define SPARE_HANDLES 16
static MPI_Request spare[SPARE_HANDLES];
static int nspare;
static int nrunning; /* active and not done */
int nh_req_nmulti;   /* of those, multi-phase */
int nh_req_ntimed;   /* timed trials not yet completed */
__thread double nh_req_t0;

static void set_running(nh_req *r, int on)
{
    __atomic_add_fetch(&nrunning, on ? 1 : -1, __ATOMIC_RELAXED); /* read unlocked */
    if (r->multi) {
        nh_req_nmulti += on ? 1 : -1;
        nh_prog_running(on ? 1 : -1);
    }
}

static void set_live(nh_req *head)
{
    __atomic_store_n(&nh_req_live, head, __ATOMIC_RELEASE);
}

nh_req *nh_req_lookup(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    for (nh_req *r = nh_req_live; r; r = r->next)
        if (r->handle == h)
            return r;
    return NULL;
}

void nh_req_destroy(nh_req *r)
{
    if (nh_req_live == r)
        set_live(r->next);
    else
        for (nh_req *q = nh_req_live; q; q = q->next)
            if (q->next == r) {
                q->next = r->next;
                break;
            }
    nh_plan *p = r->run.p;
    nh_run_release(&r->run);
    if (r->wrapped && r->persistent && r->inner != MPI_REQUEST_NULL)
        nh_mpi_Request_free(&r->inner);
    if (r->ops)
        r->ops->fini(r->ctx);
    if (r->paid) /* never completed: its trial stays unmeasured */
        __atomic_sub_fetch(&nh_req_ntimed, 1, __ATOMIC_RELAXED);
    if (r->handle != MPI_REQUEST_NULL && !nh_no_world && nspare < SPARE_HANDLES) {
        spare[nspare++] = r->handle;    /* (made on MPI_COMM_SELF: see enlist) */
        nh_res_add(NH_RES_REQUEST, -1); /* no operation's (nhood_resource_counts) */
    } else if (r->handle != MPI_REQUEST_NULL)
        nh_request_free(&r->handle);
    nh_plan_unref(p);
    free(r);
}

static void step(nh_req *r, int block)
{
    int done = 0, rc;
    if (r->wrapped) {
        rc = block ? nh_mpi_Wait(&r->inner, MPI_STATUS_IGNORE)
                   : nh_mpi_Test(&r->inner, &done, MPI_STATUS_IGNORE);
        done |= block;
        if (done && !rc && r->ops && r->ops->done)
            rc = r->ops->done(r->ctx);
    } else {
        rc = nh_run_progress(&r->run, block, &done);
    }
    if (rc && !r->err)
        r->err = rc;
    if (done || rc) {
        r->done = 1;
        set_running(r, 0);
    }
}

/* One nonblocking step of every running operation. */
static void progress_all(void)
{
    for (nh_req *r = nh_req_live; r && nrunning; r = r->next)
        if (r->active && !r->done)
            step(r, 0);
}

/* progress_all, then destroys operations the user freed that are done.
 * Only at the top of a completion call: nothing there holds a pointer to a
 * freed operation (the user's handles to them are gone). */
void nh_req_progress_locked(void)
{
    if (!nrunning)
        return;
    progress_all();
    for (nh_req *r = nh_req_live, *next; r; r = next) {
        next = r->next;
        if (r->freed && r->done)
            nh_req_destroy(r);
    }
}

/* Progress is opportunistic: a thread that finds another one progressing
 * goes on. */
NH_HOT void nh_req_progress(void)
{
    if (!__atomic_load_n(&nrunning, __ATOMIC_RELAXED) || !nh_trylock(NH_LOCK_REQ))
        return;
    nh_req_progress_locked();
    nh_unlock(NH_LOCK_REQ);
}

/* The progress backend's entry (exec/progress.c): from the MPI library's
 * progress engine or the helper thread, never from inside nhood's own
 * request code on this thread (that code steps the operations itself). */
void nh_req_progress_from_mpi(void)
{
    if (!nh_req_depth)
        nh_req_progress();
}

/* Until r's schedule is done.  Blocking in PMPI is safe when no other
 * running operation needs this rank's forwarding. */
void nh_req_wait_done(nh_req *r)
{
    while (!r->done) {
        if (!nh_mt && nh_req_nmulti - (r->multi ? 1 : 0) == 0) {
            step(r, 1);
        } else {
            progress_all();
            if (!r->done)
                nh_lock_yield(NH_LOCK_REQ);
        }
    }
}

int nh_req_start(nh_req *r)
{
    nh_plan *p = r->run.p;
    if (r->wrapped) { /* MPI's own operation: started by MPI, or here (persistent) */
        int rc = MPI_SUCCESS;
        if (r->persistent && !(rc = r->ops && r->ops->start ? r->ops->start(r->ctx) : 0))
            rc = nh_mpi_Start(&r->inner);
        if (rc)
            return rc;
        r->active = 1;
        r->done = 0;
        r->err = MPI_SUCCESS;
        set_running(r, 1);
        return MPI_SUCCESS;
    }
    for (;;) { /* complete the previous operation in this slot first */
        nh_req *q = nh_req_live;
        while (q &&
               !(q != r && q->run.p == p && q->run.slot == r->run.slot && q->active && !q->done))
            q = q->next;
        if (!q)
            break;
        if (!nh_mt) {
            nh_req_wait_done(q);
        } else { /* q belongs to another thread: look it up again after each step */
            progress_all();
            nh_lock_yield(NH_LOCK_REQ);
        }
    }
    r->active = 1;
    r->done = 0;
    r->err = MPI_SUCCESS;
    if (r->starts)
        (*r->starts)++;
    set_running(r, 1);
    int done = 0, rc = nh_run_start(&r->run, &done);
    if (done || rc) {
        r->done = 1;
        set_running(r, 0);
    }
    return rc;
}

/* Makes r live with its handle; a nonblocking one starts now. */
static int enlist(nh_req *r, nh_plan *p, int persistent, int multi, long *starts, MPI_Request *out)
{
    int rc;
    r->handle = MPI_REQUEST_NULL;
    r->persistent = persistent;
    r->starts = persistent ? starts : NULL;
    r->multi = multi;
    nh_atomic_add(&p->refs, 1); /* the plan outlives a freed communicator while r lives */
    r->next = nh_req_live;
    set_live(r);
    int self = 0;
    MPI_Comm on = !nh_no_world                ? MPI_COMM_SELF
                  : p->pcomm != MPI_COMM_NULL ? p->pcomm
                                              : r->home; /* a cold graph's (nh_req_wrap_ops) */
    rc = nh_no_world ? nh_mpi_Comm_rank(on, &self) : MPI_SUCCESS;
    if (!rc && !nh_no_world && nspare > 0) {
        r->handle = spare[--nspare];
        nh_res_add(NH_RES_REQUEST, 1);
    } else if (!rc)
        rc = nh_recv_init(NULL, 0, MPI_BYTE, self, 0, on, &r->handle);
    if (!rc && !persistent)
        rc = nh_req_start(r);
    if (rc) {
        if (r->active && !r->done)
            set_running(r, 0);
        nh_req_destroy(r);
        return rc;
    }
    *out = r->handle;
    return MPI_SUCCESS;
}

int nh_req_create(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                  int persistent, long *starts, int *zcopy, MPI_Request *out)
{
    nh_exec_state *e = nh_exec_state_of(p);
    nh_req *r = e ? nh_zalloc(sizeof(*r)) : NULL;
    if (!r)
        return MPI_ERR_NO_MEM;
    int slot = 1 + (int)(e->seq++ % (NH_SLOTS - 1));
    int rc = nh_run_bind(&r->run, p, s, c, o, 1, persistent, slot);
    if (rc) {
        free(r);
        return rc;
    }
    *zcopy = nh_run_zcopy(&r->run);
    nh_lock(NH_LOCK_REQ);
    rc = enlist(r, p, persistent, nh_run_msg_phases(&r->run) > 1, starts, out);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

int nh_req_wrap(nh_plan *p, MPI_Request inner, MPI_Request *out)
{
    nh_req *r = nh_zalloc(sizeof(*r));
    if (!r) { /* MPI's operation runs on: complete it, the trial is lost */
        nh_mpi_Wait(&inner, MPI_STATUS_IGNORE);
        return MPI_ERR_NO_MEM;
    }
    r->wrapped = 1;
    r->inner = inner;
    r->run.p = p;
    r->run.slot = -1; /* MPI orders its own operations */
    nh_lock(NH_LOCK_REQ);
    int rc = enlist(r, p, 0, 0, NULL, out);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

int nh_req_wrap_ops(nh_plan *p, MPI_Request inner, int persistent, const nh_wrap_ops *ops,
                    void *ctx, MPI_Comm comm, MPI_Request *out)
{
    nh_req *r = nh_zalloc(sizeof(*r));
    if (!r) {
        if (persistent)
            nh_mpi_Request_free(&inner);
        else
            nh_mpi_Wait(&inner, MPI_STATUS_IGNORE);
        ops->fini(ctx);
        return MPI_ERR_NO_MEM;
    }
    r->wrapped = 1;
    r->inner = inner;
    r->ops = ops;
    r->ctx = ctx;
    r->home = comm;
    r->run.p = p;
    r->run.slot = -1;
    nh_lock(NH_LOCK_REQ);
    int rc = enlist(r, p, persistent, 0, NULL, out);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

int nh_req_time(MPI_Request h, double start_s, double *slot)
{
    nh_lock(NH_LOCK_REQ);
    nh_req *r = nh_req_lookup(h);
    if (r && !r->paid) {
        r->acc = start_s;
        r->paid = slot;
        __atomic_add_fetch(&nh_req_ntimed, 1, __ATOMIC_RELAXED);
    }
    nh_unlock(NH_LOCK_REQ);
    return r != NULL;
}

void nh_req_charge(nh_req *r)
{
    if (r->paid)
        r->acc += nh_mpi_Wtime() - nh_req_t0;
}

void nh_req_paid(nh_req *r)
{
    if (!r->paid)
        return;
    nh_req_charge(r);
    *r->paid = r->acc;
    r->paid = NULL;
    __atomic_sub_fetch(&nh_req_ntimed, 1, __ATOMIC_RELAXED);
}

int nh_req_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm)
{
    if (nh_host_simulated()) /* and SMPI's nonblocking reduction is slow to simulate */
        return nh_mpi_Allreduce(in, out, count, type, op, comm);
    MPI_Request req;
    MPI_Status status;
    int done = 0, rc = nh_iallreduce(in, out, count, type, op, comm, &req);
    while (!rc && !done)
        if (!(rc = nh_testall(1, &req, &done, &status)) && !done)
            nh_req_progress();
    return rc;
}

void nh_req_fini(void)
{
    nh_lock(NH_LOCK_REQ);
    /* Operations the program freed while they ran must still end: other
     * ranks may need this rank's part (their own completion, forwarding). */
    for (nh_req *r = nh_req_live; r; r = r->next)
        if (r->freed && r->active)
            nh_req_wait_done(r);
    while (nh_req_live) {
        if (nh_req_live->active && !nh_req_live->done)
            set_running(nh_req_live, 0);
        nh_req_destroy(nh_req_live);
    }
    while (nspare > 0) /* (not counted: nh_req_destroy) */
        nh_mpi_Request_free(&spare[--nspare]);
    nh_unlock(NH_LOCK_REQ);
}
