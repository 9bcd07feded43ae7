/* Nonblocking and persistent neighborhood collectives: nhood's requests.
 *
 * Handles.  The handle the user holds is a real MPI request that nhood
 * owns: an inactive persistent receive on MPI_COMM_SELF, never started,
 * one per operation.  (From rank 0, not MPI_PROC_NULL: with MPICH 4.0.2,
 * freeing a never-started MPI_PROC_NULL persistent receive makes the next
 * persistent collective started on any communicator hang.)  It is unique while the operation
 * lives, and an MPI call nhood does not intercept sees a valid inactive
 * request rather than garbage.  nhood finds its operation by looking the
 * handle up (a short list: only nhood's live operations are in it, and
 * with none the completion calls go straight to PMPI).
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
 * ranks' nhood.  A multi-phase schedule (torus) forwards data at
 * intermediate ranks, which happens only while that rank is inside an MPI
 * call nhood intercepts.  A legal program may block in MPI_Recv (or any
 * call nhood does not see) between start and completion and wait for a
 * rank that needs our forwarding, so by default (NHOOD_PROGRESS=safe)
 * nonblocking and persistent operations use single-phase schedules only.
 * NHOOD_PROGRESS=poll allows multi-phase ones: the program promises to
 * stay in completion calls (or call nhood_progress()) while they are
 * outstanding, and nhood's blocking completion calls then poll every
 * operation instead of blocking in PMPI.  Store-and-forward operations
 * (irregular graphs) always forward: they exist only under poll.  Whether
 * an operation forwards is a property of this rank's binding: more than
 * one phase with messages.
 *
 * Tags.  Operations on one plan take tag slots 1..NH_SLOTS-1 in creation
 * order (identical on every rank: collectives start in the same order
 * everywhere); blocking calls use slot 0.  Before an operation starts in a
 * slot, the previous local operation in that slot is completed, so every
 * rank posts a slot's messages operation by operation and MPI's
 * non-overtaking order matches them correctly. */
#include <stdlib.h>
#include <string.h>

#include "exec/engine.h"
#include "exec/request.h"
#include "util/host.h"

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

static nh_req *live; /* all of nhood's operations */
static int nrunning; /* active and not done */
static int nmulti;   /* of those, multi-phase */

static void set_running(nh_req *r, int on)
{
    nrunning += on ? 1 : -1;
    if (r->multi)
        nmulti += on ? 1 : -1;
}

static nh_req *lookup(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return NULL;
    for (nh_req *r = live; r; r = r->next)
        if (r->handle == h)
            return r;
    return NULL;
}

static void destroy(nh_req *r)
{
    for (nh_req **pp = &live; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    nh_plan *p = r->run.p;
    nh_run_release(&r->run);
    if (r->handle != MPI_REQUEST_NULL)
        nh_request_free(&r->handle);
    nh_plan_unref(p);
    free(r);
}

static void step(nh_req *r, int block)
{
    int done = 0, rc = nh_run_progress(&r->run, block, &done);
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
    for (nh_req *r = live; r && nrunning; r = r->next)
        if (r->active && !r->done)
            step(r, 0);
}

/* progress_all, then destroys operations the user freed that are done.
 * Only at the top of a completion call: nothing there holds a pointer to a
 * freed operation (the user's handles to them are gone). */
void nh_req_progress(void)
{
    if (!nrunning)
        return;
    progress_all();
    for (nh_req *r = live, *next; r; r = next) {
        next = r->next;
        if (r->freed && r->done)
            destroy(r);
    }
}

/* Until r's schedule is done.  Blocking in PMPI is safe when no other
 * running operation needs this rank's forwarding. */
static void wait_done(nh_req *r)
{
    while (!r->done) {
        if (nmulti - (r->multi ? 1 : 0) == 0)
            step(r, 1);
        else
            progress_all();
    }
}

static int start(nh_req *r)
{
    nh_plan *p = r->run.p;
    for (;;) { /* complete the previous operation in this slot first */
        nh_req *q = live;
        while (q &&
               !(q != r && q->run.p == p && q->run.slot == r->run.slot && q->active && !q->done))
            q = q->next;
        if (!q)
            break;
        wait_done(q);
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
    p->refs++; /* the plan outlives a freed communicator while r lives */
    r->next = live;
    live = r;
    rc = nh_recv_init(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &r->handle);
    if (!rc && !persistent)
        rc = start(r);
    if (rc) {
        if (r->active && !r->done)
            set_running(r, 0);
        destroy(r);
        return rc;
    }
    *out = r->handle;
    return MPI_SUCCESS;
}

int nh_req_create(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                  int persistent, long *starts, int *zcopy, MPI_Request *out)
{
    nh_req *r = calloc(1, sizeof(*r));
    if (!r)
        return MPI_ERR_NO_MEM;
    int slot = 1 + (int)(p->seq++ % (NH_SLOTS - 1));
    int rc = nh_run_bind(&r->run, p, s, c, o, 1, persistent, slot);
    if (rc) {
        free(r);
        return rc;
    }
    *zcopy = nh_run_zcopy(&r->run);
    return enlist(r, p, persistent, nh_run_msg_phases(&r->run) > 1, starts, out);
}

int nh_req_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm)
{
    if (nh_host_simulated()) /* and SMPI's nonblocking reduction is slow to simulate */
        return PMPI_Allreduce(in, out, count, type, op, comm);
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
    while (live) {
        if (live->active && !live->done)
            set_running(live, 0);
        destroy(live);
    }
}

/* The status of a completed collective: empty. */
static void empty_status(MPI_Status *st, int err)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = err;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(st, 0);
}

/* Completion call on a done (or inactive persistent) r: frees a
 * nonblocking one, deactivates a persistent one. */
static int complete(nh_req *r, MPI_Request *h, MPI_Status *st)
{
    int err = r->err;
    empty_status(st, err);
    if (!r->persistent) {
        destroy(r);
        *h = MPI_REQUEST_NULL;
    } else {
        r->active = 0;
    }
    return err;
}

static MPI_Status *status_at(MPI_Status *sts, int i)
{
    return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
}

/* An array split into nhood's entries and a view for PMPI. */
typedef struct split {
    int n, mine;
    nh_req **r;
    MPI_Request *view;
    nh_req *r_small[32];
    MPI_Request view_small[32];
} split;

static int split_init(split *v, int n, const MPI_Request *arr)
{
    v->n = n;
    v->mine = 0;
    v->r = v->r_small;
    v->view = v->view_small;
    if (n > 32) {
        v->r = malloc((size_t)n * sizeof(*v->r));
        v->view = malloc((size_t)n * sizeof(*v->view));
        if (!v->r || !v->view) {
            if (v->r != v->r_small)
                free(v->r);
            if (v->view != v->view_small)
                free(v->view);
            return MPI_ERR_NO_MEM;
        }
    }
    for (int i = 0; i < n; i++) {
        v->r[i] = lookup(arr[i]);
        v->view[i] = v->r[i] ? MPI_REQUEST_NULL : arr[i];
        v->mine += v->r[i] != NULL;
    }
    return MPI_SUCCESS;
}

static void split_fini(split *v)
{
    if (v->r != v->r_small)
        free(v->r);
    if (v->view != v->view_small)
        free(v->view);
}

/* Copies PMPI's updates of the view back into the user's array. */
static void split_back(const split *v, MPI_Request *arr)
{
    for (int i = 0; i < v->n; i++)
        if (!v->r[i])
            arr[i] = v->view[i];
}

int nh_impl_MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    nh_req *r = live ? lookup(*req) : NULL;
    if (!r) {
        if (!nmulti)
            return PMPI_Wait(req, st);
        for (int flag = 0;;) {
            int rc = PMPI_Test(req, &flag, st);
            if (rc || flag)
                return rc;
            nh_req_progress();
        }
    }
    if (!r->active) {
        empty_status(st, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    wait_done(r);
    return complete(r, req, st);
}

int nh_impl_MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    nh_req_progress();
    nh_req *r = live ? lookup(*req) : NULL;
    if (!r)
        return PMPI_Test(req, flag, st);
    *flag = !r->active || r->done;
    if (!r->active) {
        empty_status(st, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    return r->done ? complete(r, req, st) : MPI_SUCCESS;
}

/* Completes nhood's entries of a split whose schedules are done; folds
 * their errors into rc as MPI_ERR_IN_STATUS does. */
static int complete_mine(split *v, MPI_Request *arr, MPI_Status *sts, int rc)
{
    for (int i = 0; i < v->n; i++) {
        nh_req *r = v->r[i];
        int err = MPI_SUCCESS;
        if (!r)
            continue;
        if (r->active)
            err = complete(r, &arr[i], status_at(sts, i)); /* may free r */
        else
            empty_status(status_at(sts, i), MPI_SUCCESS);
        if (err)
            rc = sts == MPI_STATUSES_IGNORE ? err : MPI_ERR_IN_STATUS;
    }
    return rc;
}

int nh_impl_MPI_Waitall(int n, MPI_Request arr[], MPI_Status sts[])
{
    if (!live)
        return PMPI_Waitall(n, arr, sts);
    split v;
    int rc = split_init(&v, n, arr);
    if (rc)
        return rc;
    if (!v.mine && !nmulti) {
        split_fini(&v);
        return PMPI_Waitall(n, arr, sts);
    }
    for (int i = 0; i < n; i++)
        if (v.r[i] && v.r[i]->active)
            wait_done(v.r[i]);
    if (!nmulti) {
        rc = PMPI_Waitall(n, v.view, sts);
    } else {
        for (int flag = 0; !rc && !flag;) {
            rc = PMPI_Testall(n, v.view, &flag, sts);
            if (!flag)
                nh_req_progress();
        }
    }
    split_back(&v, arr);
    rc = complete_mine(&v, arr, sts, rc);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testall(int n, MPI_Request arr[], int *flag, MPI_Status sts[])
{
    nh_req_progress();
    if (!live)
        return PMPI_Testall(n, arr, flag, sts);
    split v;
    int rc = split_init(&v, n, arr);
    if (rc)
        return rc;
    *flag = 1;
    for (int i = 0; i < n; i++)
        if (v.r[i] && v.r[i]->active && !v.r[i]->done)
            *flag = 0;
    /* All or nothing: PMPI may complete only if nhood's are done. */
    if (*flag && !(rc = PMPI_Testall(n, v.view, flag, sts)) && *flag) {
        split_back(&v, arr);
        rc = complete_mine(&v, arr, sts, rc);
    }
    split_fini(&v);
    return rc;
}

/* One pass of Waitany/Testany.  *idx = MPI_UNDEFINED with *flag = 1 when
 * no entry is active. */
static int any_pass(split *v, MPI_Request arr[], int *idx, int *flag, MPI_Status *st)
{
    int active = 0;
    nh_req_progress();
    for (int i = 0; i < v->n; i++) {
        nh_req *r = v->r[i];
        if (!r || !r->active)
            continue;
        active = 1;
        if (r->done) {
            *idx = i;
            *flag = 1;
            return complete(r, &arr[i], st);
        }
    }
    int k = MPI_UNDEFINED, rc = PMPI_Testany(v->n, v->view, &k, flag, st);
    if (rc == MPI_SUCCESS && *flag && k != MPI_UNDEFINED) {
        arr[k] = v->view[k];
        *idx = k;
        return MPI_SUCCESS;
    }
    *idx = MPI_UNDEFINED;
    if (*flag && active) /* PMPI saw no active request, but nhood's run */
        *flag = 0;
    return rc;
}

int nh_impl_MPI_Waitany(int n, MPI_Request arr[], int *idx, MPI_Status *st)
{
    if (!live)
        return PMPI_Waitany(n, arr, idx, st);
    split v;
    int rc = split_init(&v, n, arr), flag = 0;
    if (rc)
        return rc;
    if (!v.mine && !nmulti)
        rc = PMPI_Waitany(n, arr, idx, st);
    else
        while (!(rc = any_pass(&v, arr, idx, &flag, st)) && !flag)
            ;
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testany(int n, MPI_Request arr[], int *idx, int *flag, MPI_Status *st)
{
    if (!live) /* nothing of nhood's to progress */
        return PMPI_Testany(n, arr, idx, flag, st);
    split v;
    int rc = split_init(&v, n, arr);
    if (!rc)
        rc = any_pass(&v, arr, idx, flag, st);
    split_fini(&v);
    return rc;
}

/* One pass of Waitsome/Testsome. */
static int some_pass(split *v, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    int active = 0, k = 0, oc = 0, rc = MPI_SUCCESS;
    nh_req_progress();
    rc = PMPI_Testsome(v->n, v->view, &oc, idxs, sts);
    if (rc)
        return rc;
    if (oc != MPI_UNDEFINED) {
        for (int j = 0; j < oc; j++)
            arr[idxs[j]] = v->view[idxs[j]];
        k = oc;
    }
    for (int i = 0; i < v->n; i++) {
        nh_req *r = v->r[i];
        if (!r || !r->active)
            continue;
        active = 1;
        if (!r->done)
            continue;
        int err = complete(r, &arr[i], status_at(sts, k));
        idxs[k++] = i;
        if (err)
            rc = sts == MPI_STATUSES_IGNORE ? err : MPI_ERR_IN_STATUS;
    }
    *outcount = oc == MPI_UNDEFINED && !active ? MPI_UNDEFINED : k;
    return rc;
}

int nh_impl_MPI_Waitsome(int n, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    if (!live)
        return PMPI_Waitsome(n, arr, outcount, idxs, sts);
    split v;
    int rc = split_init(&v, n, arr);
    if (rc)
        return rc;
    if (!v.mine && !nmulti)
        rc = PMPI_Waitsome(n, arr, outcount, idxs, sts);
    else
        while (!(rc = some_pass(&v, arr, outcount, idxs, sts)) && *outcount == 0)
            ;
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testsome(int n, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    if (!live)
        return PMPI_Testsome(n, arr, outcount, idxs, sts);
    split v;
    int rc = split_init(&v, n, arr);
    if (!rc)
        rc = some_pass(&v, arr, outcount, idxs, sts);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    nh_req_progress();
    nh_req *r = live ? lookup(req) : NULL;
    if (!r)
        return PMPI_Request_get_status(req, flag, st);
    *flag = !r->active || r->done;
    if (*flag)
        empty_status(st, r->active ? r->err : MPI_SUCCESS);
    return MPI_SUCCESS;
}

int nh_impl_MPI_Request_free(MPI_Request *req)
{
    nh_req *r = live ? lookup(*req) : NULL;
    if (!r)
        return PMPI_Request_free(req);
    /* An operation still running completes in the background (progressed
     * by later completion calls, or at MPI_Finalize). */
    if (r->active && !r->done)
        r->freed = 1;
    else
        destroy(r);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int nh_impl_MPI_Cancel(MPI_Request *req)
{
    if (!live || !lookup(*req))
        return PMPI_Cancel(req);
    nh_error("MPI_Cancel on a neighborhood collective request is erroneous (MPI 4.0, 6.12)");
    return MPI_ERR_REQUEST;
}

static int start_mine(nh_req *r)
{
    if (r->active) {
        nh_error("MPI_Start on an active persistent neighborhood collective request");
        return MPI_ERR_REQUEST;
    }
    return start(r);
}

int nh_impl_MPI_Start(MPI_Request *req)
{
    nh_req *r = live ? lookup(*req) : NULL;
    return r ? start_mine(r) : PMPI_Start(req);
}

int nh_impl_MPI_Startall(int n, MPI_Request arr[])
{
    if (!live)
        return PMPI_Startall(n, arr);
    split v;
    int rc = split_init(&v, n, arr), nf = 0;
    if (rc)
        return rc;
    /* nhood's in array order; PMPI's compacted (Startall takes no null
     * entries).  The two sets use different communicators, so their
     * relative order does not matter. */
    for (int i = 0; i < n && !rc; i++)
        if (v.r[i])
            rc = start_mine(v.r[i]);
        else
            v.view[nf++] = arr[i];
    if (!rc && nf)
        rc = PMPI_Startall(nf, v.view);
    for (int i = 0, j = 0; !rc && i < n; i++)
        if (!v.r[i])
            arr[i] = v.view[j++];
    split_fini(&v);
    return rc;
}
