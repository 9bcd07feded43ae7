/* The completion calls (MPI_Wait/Test and their all/any/some forms,
 * MPI_Request_get_status and its all/any/some forms, MPICH's
 * MPIX_Request_is_complete, MPI_Request_free, MPI_Start/Startall,
 * MPI_Cancel) over nhood's requests and MPI's (see request.c for the
 * rules, threads included). */
#include <stdlib.h>

#include "exec/req_int.h"
#include "nh_impl.h"
#include "util/window.h"

/* A completion call names these requests: a sampled one's window ends
 * (util/window.h). */
#define SEEN(arr, n)                                                                               \
    do {                                                                                           \
        nh_req_clock();                                                                            \
        if (__atomic_load_n(&nh_win_pending, __ATOMIC_RELAXED))                                    \
            nh_win_seen(arr, n);                                                                   \
    } while (0)

static int testall_locked(int n, MPI_Request arr[], int *flag, MPI_Status sts[]);
static int startall_locked(int n, MPI_Request arr[]);

/* The status of a completed collective: empty. */
static void empty_status(MPI_Status *st, int err)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = err;
    nh_mpi_Status_set_elements(st, MPI_BYTE, 0);
    nh_mpi_Status_set_cancelled(st, 0);
}

/* Completion call on a done (or inactive persistent) r: frees a
 * nonblocking one, deactivates a persistent one. */
static int complete(nh_req *r, MPI_Request *h, MPI_Status *st)
{
    int err = r->err;
    nh_req_paid(r);
    empty_status(st, err);
    if (!r->persistent) {
        nh_req_destroy(r);
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
        if (!v->r || !v->view) { /* split_fini stays safe */
            free(v->r);
            free(v->view);
            v->r = v->r_small;
            v->view = v->view_small;
            return MPI_ERR_NO_MEM;
        }
    }
    for (int i = 0; i < n; i++) {
        v->r[i] = nh_req_lookup(arr[i]);
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
/* The timed trials an array call leaves running pay for it too (those
 * it completed paid at completion: their handles are null now). */
static void charge_left(const split *v, const MPI_Request *arr)
{
    if (!__atomic_load_n(&nh_req_ntimed, __ATOMIC_RELAXED))
        return;
    for (int i = 0; i < v->n; i++)
        if (v->r[i] && arr[i] != MPI_REQUEST_NULL)
            nh_req_charge(v->r[i]);
}

static void split_back(const split *v, MPI_Request *arr)
{
    for (int i = 0; i < v->n; i++)
        if (!v->r[i])
            arr[i] = v->view[i];
}

NH_HOT int nh_impl_MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    SEEN(req, 1);
    if (!nh_req_live_any())
        return nh_mpi_Wait(req, st);
    nh_lock(NH_LOCK_REQ);
    nh_req *r = nh_req_lookup(*req);
    int rc = MPI_SUCCESS, multi = nh_req_nmulti;
    if (!r) {
        nh_unlock(NH_LOCK_REQ);
        if (!multi)
            return nh_mpi_Wait(req, st);
        for (int flag = 0;;) {
            rc = nh_mpi_Test(req, &flag, st);
            if (rc || flag)
                return rc;
            nh_req_progress();
        }
    }
    if (!r->active) {
        empty_status(st, MPI_SUCCESS);
    } else {
        nh_req_wait_done(r);
        rc = complete(r, req, st);
    }
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

int nh_impl_MPI_Test(MPI_Request *req, int *flag, MPI_Status *st)
{
    SEEN(req, 1);
    if (!nh_req_live_any())
        return nh_mpi_Test(req, flag, st);
    nh_lock(NH_LOCK_REQ);
    nh_req_progress_locked();
    nh_req *r = nh_req_lookup(*req);
    int rc = MPI_SUCCESS;
    if (!r) {
        rc = nh_mpi_Test(req, flag, st);
    } else {
        *flag = !r->active || r->done;
        if (!r->active)
            empty_status(st, MPI_SUCCESS);
        else if (r->done)
            rc = complete(r, req, st);
        else
            nh_req_charge(r);
    }
    nh_unlock(NH_LOCK_REQ);
    return rc;
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

NH_HOT int nh_impl_MPI_Waitall(int n, MPI_Request arr[], MPI_Status sts[])
{
    SEEN(arr, n);
    if (!nh_req_live_any())
        return nh_mpi_Waitall(n, arr, sts);
    split v;
    nh_lock(NH_LOCK_REQ);
    int rc = split_init(&v, n, arr);
    if (rc || (!v.mine && !nh_req_nmulti)) {
        nh_unlock(NH_LOCK_REQ);
        if (!rc)
            rc = nh_mpi_Waitall(n, arr, sts);
        split_fini(&v);
        return rc;
    }
    for (int i = 0; i < n; i++)
        if (v.r[i] && v.r[i]->active)
            nh_req_wait_done(v.r[i]);
    int multi = nh_req_nmulti;
    nh_unlock(NH_LOCK_REQ); /* the rest of the array: MPI's */
    if (!multi) {
        rc = nh_mpi_Waitall(n, v.view, sts);
    } else {
        for (int flag = 0; !rc && !flag;) {
            rc = nh_mpi_Testall(n, v.view, &flag, sts);
            if (!flag)
                nh_req_progress();
        }
    }
    nh_lock(NH_LOCK_REQ);
    split_back(&v, arr);
    rc = complete_mine(&v, arr, sts, rc);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testall(int n, MPI_Request arr[], int *flag, MPI_Status sts[])
{
    SEEN(arr, n);
    if (!nh_req_live_any())
        return nh_mpi_Testall(n, arr, flag, sts);
    nh_lock(NH_LOCK_REQ);
    int rc = testall_locked(n, arr, flag, sts);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

static int testall_locked(int n, MPI_Request arr[], int *flag, MPI_Status sts[])
{
    nh_req_progress_locked();
    split v;
    int rc = split_init(&v, n, arr);
    if (rc)
        return rc;
    *flag = 1;
    for (int i = 0; i < n; i++)
        if (v.r[i] && v.r[i]->active && !v.r[i]->done)
            *flag = 0;
    /* All or nothing: PMPI may complete only if nhood's are done. */
    if (*flag && !(rc = nh_mpi_Testall(n, v.view, flag, sts)) && *flag) {
        split_back(&v, arr);
        rc = complete_mine(&v, arr, sts, rc);
    } else {
        charge_left(&v, arr);
    }
    split_fini(&v);
    return rc;
}

/* One pass of Waitany/Testany.  *idx = MPI_UNDEFINED with *flag = 1 when
 * no entry is active. */
static int any_pass(split *v, MPI_Request arr[], int *idx, int *flag, MPI_Status *st)
{
    int active = 0;
    nh_req_progress_locked();
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
    int k = MPI_UNDEFINED, rc = nh_mpi_Testany(v->n, v->view, &k, flag, st);
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
    SEEN(arr, n);
    if (!nh_req_live_any())
        return nh_mpi_Waitany(n, arr, idx, st);
    split v;
    nh_lock(NH_LOCK_REQ);
    int rc = split_init(&v, n, arr), flag = 0;
    if (rc || (!v.mine && !nh_req_nmulti)) {
        nh_unlock(NH_LOCK_REQ);
        if (!rc)
            rc = nh_mpi_Waitany(n, arr, idx, st);
        split_fini(&v);
        return rc;
    }
    while (!(rc = any_pass(&v, arr, idx, &flag, st)) && !flag)
        nh_lock_yield(NH_LOCK_REQ);
    charge_left(&v, arr);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testany(int n, MPI_Request arr[], int *idx, int *flag, MPI_Status *st)
{
    SEEN(arr, n);
    if (!nh_req_live_any()) /* nothing of nhood's to progress */
        return nh_mpi_Testany(n, arr, idx, flag, st);
    split v;
    nh_lock(NH_LOCK_REQ);
    int rc = split_init(&v, n, arr);
    if (!rc)
        rc = any_pass(&v, arr, idx, flag, st);
    if (!rc)
        charge_left(&v, arr);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

/* One pass of Waitsome/Testsome. */
static int some_pass(split *v, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    int active = 0, k = 0, oc = 0, rc = MPI_SUCCESS;
    nh_req_progress_locked();
    rc = nh_mpi_Testsome(v->n, v->view, &oc, idxs, sts);
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
    SEEN(arr, n);
    if (!nh_req_live_any())
        return nh_mpi_Waitsome(n, arr, outcount, idxs, sts);
    split v;
    nh_lock(NH_LOCK_REQ);
    int rc = split_init(&v, n, arr);
    if (rc || (!v.mine && !nh_req_nmulti)) {
        nh_unlock(NH_LOCK_REQ);
        if (!rc)
            rc = nh_mpi_Waitsome(n, arr, outcount, idxs, sts);
        split_fini(&v);
        return rc;
    }
    while (!(rc = some_pass(&v, arr, outcount, idxs, sts)) && *outcount == 0)
        nh_lock_yield(NH_LOCK_REQ);
    charge_left(&v, arr);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Testsome(int n, MPI_Request arr[], int *outcount, int idxs[], MPI_Status sts[])
{
    SEEN(arr, n);
    if (!nh_req_live_any())
        return nh_mpi_Testsome(n, arr, outcount, idxs, sts);
    split v;
    nh_lock(NH_LOCK_REQ);
    int rc = split_init(&v, n, arr);
    if (!rc)
        rc = some_pass(&v, arr, outcount, idxs, sts);
    if (!rc)
        charge_left(&v, arr);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *st)
{
    if (!nh_req_live_any())
        return nh_mpi_Request_get_status(req, flag, st);
    nh_lock(NH_LOCK_REQ);
    nh_req_progress_locked();
    nh_req *r = nh_req_lookup(req);
    int rc = MPI_SUCCESS;
    if (!r) {
        rc = nh_mpi_Request_get_status(req, flag, st);
    } else {
        *flag = !r->active || r->done;
        if (*flag)
            empty_status(st, r->active ? r->err : MPI_SUCCESS);
    }
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

#ifdef HAVE_MPI_REQUEST_GET_STATUS_ALL
/* MPI 4.1's tests of an array that free and deactivate nothing: as
 * Testall, Testany and Testsome otherwise, nhood's entries answered by
 * nhood (after a step of progress), MPI's by MPI on the split's view. */
int nh_impl_MPI_Request_get_status_all(int n, NH_STATUS_ALL_CONST MPI_Request arr[], int *flag,
                                       MPI_Status sts[])
{
    if (!nh_req_live_any())
        return nh_mpi_Request_get_status_all(n, arr, flag, sts);
    split v;
    nh_lock(NH_LOCK_REQ);
    nh_req_progress_locked();
    int rc = split_init(&v, n, arr);
    if (!rc)
        rc = nh_mpi_Request_get_status_all(n, v.view, flag, sts);
    for (int i = 0; !rc && *flag && i < n; i++)
        *flag = !v.r[i] || !v.r[i]->active || v.r[i]->done;
    for (int i = 0; !rc && *flag && i < n; i++)
        if (v.r[i])
            empty_status(status_at(sts, i), v.r[i]->active ? v.r[i]->err : MPI_SUCCESS);
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Request_get_status_any(int n, NH_STATUS_ALL_CONST MPI_Request arr[], int *idx,
                                       int *flag, MPI_Status *st)
{
    if (!nh_req_live_any())
        return nh_mpi_Request_get_status_any(n, arr, idx, flag, st);
    split v;
    int active = 0;
    nh_lock(NH_LOCK_REQ);
    nh_req_progress_locked();
    int rc = split_init(&v, n, arr);
    for (int i = 0; !rc && i < n; i++) {
        nh_req *r = v.r[i];
        if (r && r->active && r->done) {
            *idx = i;
            *flag = 1;
            empty_status(st, r->err);
            goto done;
        }
        active |= r && r->active;
    }
    if (!rc && !(rc = nh_mpi_Request_get_status_any(n, v.view, idx, flag, st)) && *flag &&
        *idx == MPI_UNDEFINED && active)
        *flag = 0; /* MPI saw no active request, but nhood's run */
done:
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}

int nh_impl_MPI_Request_get_status_some(int n, NH_STATUS_ALL_CONST MPI_Request arr[], int *outcount,
                                        int idxs[], MPI_Status sts[])
{
    if (!nh_req_live_any())
        return nh_mpi_Request_get_status_some(n, arr, outcount, idxs, sts);
    split v;
    int oc = MPI_UNDEFINED, k = 0, active = 0;
    nh_lock(NH_LOCK_REQ);
    nh_req_progress_locked();
    int rc = split_init(&v, n, arr);
    if (!rc && !(rc = nh_mpi_Request_get_status_some(n, v.view, &oc, idxs, sts))) {
        k = oc == MPI_UNDEFINED ? 0 : oc;
        for (int i = 0; i < n; i++) {
            nh_req *r = v.r[i];
            if (!r || !r->active)
                continue;
            active = 1;
            if (!r->done)
                continue;
            empty_status(status_at(sts, k), r->err);
            if (r->err)
                rc = sts == MPI_STATUSES_IGNORE ? r->err : MPI_ERR_IN_STATUS;
            idxs[k++] = i;
        }
        *outcount = oc == MPI_UNDEFINED && !active ? MPI_UNDEFINED : k;
    }
    nh_unlock(NH_LOCK_REQ);
    split_fini(&v);
    return rc;
}
#endif

#ifdef HAVE_MPIX_REQUEST_IS_COMPLETE
/* MPICH's: complete or not, without progress, as MPICH's own (its result
 * is the answer). */
int nh_impl_MPIX_Request_is_complete(MPI_Request req)
{
    if (!nh_req_live_any())
        return nh_mpix_Request_is_complete(req);
    nh_lock(NH_LOCK_REQ);
    nh_req *r = nh_req_lookup(req);
    int done = r ? !r->active || r->done : -1;
    nh_unlock(NH_LOCK_REQ);
    return done >= 0 ? done : nh_mpix_Request_is_complete(req);
}
#endif

int nh_impl_MPI_Request_free(MPI_Request *req)
{
    if (__atomic_load_n(&nh_win_pending, __ATOMIC_RELAXED))
        nh_win_forget(*req);
    if (!nh_req_live_any())
        return nh_mpi_Request_free(req);
    nh_lock(NH_LOCK_REQ);
    nh_req *r = nh_req_lookup(*req);
    if (r) {
        /* An operation still running completes in the background
         * (progressed by later completion calls, or at MPI_Finalize). */
        if (r->active && !r->done)
            r->freed = 1;
        else
            nh_req_destroy(r);
        *req = MPI_REQUEST_NULL;
    }
    nh_unlock(NH_LOCK_REQ);
    return r ? MPI_SUCCESS : nh_mpi_Request_free(req);
}

int nh_impl_MPI_Cancel(MPI_Request *req)
{
    int mine = 0;
    if (nh_req_live_any()) {
        nh_lock(NH_LOCK_REQ);
        mine = nh_req_lookup(*req) != NULL;
        nh_unlock(NH_LOCK_REQ);
    }
    if (!mine)
        return nh_mpi_Cancel(req);
    nh_error("MPI_Cancel on a neighborhood collective request is erroneous (MPI 4.0, 6.12)");
    return MPI_ERR_REQUEST;
}

static int start_mine(nh_req *r)
{
    if (r->active) {
        nh_error("MPI_Start on an active persistent neighborhood collective request");
        return MPI_ERR_REQUEST;
    }
    int rc = nh_req_start(r);
    if (!rc)
        nh_win_started(r->handle);
    return rc;
}

int nh_impl_MPI_Start(MPI_Request *req)
{
    if (!nh_req_live_any())
        return nh_mpi_Start(req);
    nh_lock(NH_LOCK_REQ);
    nh_req *r = nh_req_lookup(*req);
    int rc = r ? start_mine(r) : nh_mpi_Start(req);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

int nh_impl_MPI_Startall(int n, MPI_Request arr[])
{
    if (!nh_req_live_any())
        return nh_mpi_Startall(n, arr);
    nh_lock(NH_LOCK_REQ);
    int rc = startall_locked(n, arr);
    nh_unlock(NH_LOCK_REQ);
    return rc;
}

static int startall_locked(int n, MPI_Request arr[])
{
    split v;
    int rc = split_init(&v, n, arr), nf = 0;
    if (rc)
        return rc;
    /* nhood's in array order; PMPI's compacted (Startall takes no null
     * entries).  The two sets use different communicators, so their
     * relative order does not matter, except where one of nhood's runs an
     * operation of MPI's on the program's communicator (a cold graph's,
     * api/cold.c): then each in array order, as MPI orders collective
     * starts. */
    int inner = 0;
    for (int i = 0; i < n; i++)
        inner |= v.r[i] && v.r[i]->wrapped;
    for (int i = 0; i < n && !rc && inner; i++)
        rc = v.r[i] ? start_mine(v.r[i]) : nh_mpi_Start(&arr[i]);
    for (int i = 0; i < n && !rc && !inner; i++)
        if (v.r[i])
            rc = start_mine(v.r[i]);
        else
            v.view[nf++] = arr[i];
    if (!rc && nf && !inner)
        rc = nh_mpi_Startall(nf, v.view);
    for (int i = 0, j = 0; !rc && !inner && i < n; i++)
        if (!v.r[i])
            arr[i] = v.view[j++];
    split_fini(&v);
    return rc;
}
