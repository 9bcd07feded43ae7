/* Fortran entry points (table in fortran.h).
 *
 * MPICH 4.0.2's mpif.h / `use mpi` bindings call the C MPI_* functions, so
 * a preloaded nhood sees Fortran callers there anyway; Open MPI 4.1's call
 * PMPI_* and bypass it.  Exporting the Fortran names from libnhood makes
 * both behave the same: a Fortran call lands here, its arguments are
 * converted as the MPI library's own binding would, and the C MPI_* entry
 * point runs (nhood's intercept, or the library's for calls nhood does not
 * handle).
 *
 * Sentinels.  In Fortran MPI_IN_PLACE, MPI_BOTTOM, MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY are variables in common blocks, recognized by address,
 * and each library finds them its own way, which we copy:
 *  - MPICH: pointers MPIR_F_MPI_IN_PLACE etc. in libmpichfort, filled by
 *    mpirinitf_ the first time any binding runs (MPIR_F_NeedInit);
 *  - Open MPI: the common blocks themselves, mpi_fortran_in_place_ etc.,
 *    in each of the four manglings (OMPI_IS_FORTRAN_IN_PLACE).
 * Both are looked up with dlsym, so libnhood links no Fortran library and
 * C programs are unaffected.  MPI_STATUS(ES)_IGNORE likewise (MPICH: the
 * standard's MPI_F_STATUS(ES)_IGNORE pointers, set by the same routine).
 *
 * Requests.  A Fortran request is converted to C (MPI_Request_f2c) for
 * the call and back (MPI_Request_c2f) after it, statuses with
 * MPI_Status_c2f, indices from 0-based to 1-based.
 *
 * Start-up.  mpi_init / mpi_init_thread forward to the library's own
 * Fortran routine (found with RTLD_NEXT: it may set up Fortran state),
 * then make sure nhood started: MPICH's routine calls the C MPI_Init,
 * which nhood intercepts, Open MPI's calls PMPI_Init, which it does not.
 *
 * mpi_f08.  Both libraries name the Fortran 2008 routines mpi_<name>_f08_
 * and pass what the converters take: a handle type(MPI_Comm) etc. is one
 * integer, passed by reference like a Fortran handle, type(MPI_Status)
 * has the layout of a Fortran status, and the optional ierror is a null
 * pointer where the call leaves it out (F_IERR).  Every entry of the
 * table therefore also gets its _f08_ name, an alias of the same
 * converter; MPI_Init's and MPI_Init_thread's forward to the library's
 * own _f08_ routine.  Both libraries' mpi_f08 routines call PMPI_* (MPICH's
 * pass buffer arguments, as descriptors, to its mpi_<name>_f08ts_
 * routines, which call the C MPI_* functions: nhood sees those without an
 * entry of its own).  MPICH's mpi_f08 sentinels are other variables
 * (MPIR_F08_MPI_IN_PLACE, its module's MPI_UNWEIGHTED, ...); Open MPI's
 * are the common blocks above. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nh.h"

#define NH_EXPORT __attribute__((visibility("default")))

/* Integer arrays (counts, ranks, weights) are passed through unconverted. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "nhood's Fortran entry points assume "
                                                "MPI_Fint is int");

enum {
    F_IN_PLACE = 0,
    F_BOTTOM,
    F_UNWEIGHTED,
    F_WEIGHTS_EMPTY,
    F_STATUS_IGNORE,
    F_STATUSES_IGNORE,
    F_NSENTINELS
};
/* MPICH's pointer (mpif.h, use mpi), Open MPI's four manglings (every
 * binding), MPICH's mpi_f08 object */
enum { F_NADDR = 6 };

static void *sentinel[F_NSENTINELS][F_NADDR];
static pthread_once_t sentinel_once = PTHREAD_ONCE_INIT;

static void sentinel_lookup(void)
{
    static const char *const mpich[F_NSENTINELS] = {
        "MPIR_F_MPI_IN_PLACE",      "MPIR_F_MPI_BOTTOM",   "MPIR_F_MPI_UNWEIGHTED",
        "MPIR_F_MPI_WEIGHTS_EMPTY", "MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE"};
    static const char *const ompi[F_NSENTINELS] = {
        "mpi_fortran_in_place",      "mpi_fortran_bottom",        "mpi_fortran_unweighted",
        "mpi_fortran_weights_empty", "mpi_fortran_status_ignore", "mpi_fortran_statuses_ignore"};
    static const char *const mpich_f08[F_NSENTINELS] = {
        "MPIR_F08_MPI_IN_PLACE",
        "MPIR_F08_MPI_BOTTOM",
        "__mpi_f08_link_constants_MOD_mpi_unweighted",
        "__mpi_f08_link_constants_MOD_mpi_weights_empty",
        "MPIR_F08_MPI_STATUS_IGNORE_OBJ",
        "MPIR_F08_MPI_STATUSES_IGNORE_OBJ"};
    int *need_init = dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
    void (*mpich_initf)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "mpirinitf_");
    if (need_init && *need_init && mpich_initf) {
        mpich_initf();
        *need_init = 0;
    }
    for (int k = 0; k < F_NSENTINELS; k++) {
        void **p = dlsym(RTLD_DEFAULT, mpich[k]);
        char name[64];
        sentinel[k][0] = p ? *p : NULL;
        for (int v = 0; v < 4; v++) {
            snprintf(name, sizeof(name), "%s%s", ompi[k], v == 1 ? "_" : v == 2 ? "__" : "");
            if (v == 3)
                for (char *c = name; *c; c++)
                    *c = (char)toupper((unsigned char)*c);
            sentinel[k][1 + v] = dlsym(RTLD_DEFAULT, name);
        }
        sentinel[k][5] = dlsym(RTLD_DEFAULT, mpich_f08[k]);
    }
}

static int is_sentinel(const void *p, int k)
{
    pthread_once(&sentinel_once, sentinel_lookup);
    for (int i = 0; i < F_NADDR; i++)
        if (sentinel[k][i] && p == sentinel[k][i])
            return 1;
    return 0;
}

static void *f_buf(void *p)
{
    return is_sentinel(p, F_IN_PLACE) ? MPI_IN_PLACE : is_sentinel(p, F_BOTTOM) ? MPI_BOTTOM : p;
}

static const int *f_weights(const MPI_Fint *w)
{
    return is_sentinel(w, F_UNWEIGHTED)      ? MPI_UNWEIGHTED
           : is_sentinel(w, F_WEIGHTS_EMPTY) ? MPI_WEIGHTS_EMPTY
                                             : w;
}

#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else /* Open MPI 4.1: MPI_STATUS_SIZE integers hold the C struct */
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif
/* Fortran .TRUE. is 1 in gfortran and in both libraries' conversions. */
#define F_TRUE 1

/* Where a call found an error before reaching MPI (out of memory). */
static int f_fail(int rc)
{
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    return rc;
}

/* n C requests for Fortran handles (n + 1: never a zero-size allocation). */
static MPI_Request *f_reqs(int n, const MPI_Fint *f)
{
    MPI_Request *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(*c));
    for (int i = 0; c && i < n; i++)
        c[i] = PMPI_Request_f2c(f[i]);
    return c;
}

/* *c: C statuses for n Fortran ones, MPI_STATUSES_IGNORE for the sentinel
 * (Open MPI's is NULL); MPI_ERR_NO_MEM when out of memory. */
static int f_statuses(int n, const MPI_Fint *f, MPI_Status **c)
{
    if (is_sentinel(f, F_STATUSES_IGNORE)) {
        *c = MPI_STATUSES_IGNORE;
        return MPI_SUCCESS;
    }
    *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(MPI_Status));
    return *c ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static void f_statuses_free(MPI_Status *c)
{
    if (c != MPI_STATUSES_IGNORE)
        free(c);
}

/* After a multiple-completion call: every handle back to Fortran, and
 * the first n statuses (none where st is MPI_STATUSES_IGNORE). */
static void f_back(int nreq, const MPI_Request *c, MPI_Fint *f, int n, const MPI_Status *st,
                   MPI_Fint *fst)
{
    for (int i = 0; i < nreq; i++)
        f[i] = PMPI_Request_c2f(c[i]);
    for (int i = 0; st != MPI_STATUSES_IGNORE && i < n; i++)
        PMPI_Status_c2f(&st[i], fst + (size_t)i * F_STATUS_SIZE);
}

/* The C status for a Fortran status argument (MPI_STATUS_IGNORE for the
 * sentinel), and its conversion back. */
static MPI_Status *f_status(const MPI_Fint *f, MPI_Status *c)
{
    return is_sentinel(f, F_STATUS_IGNORE) ? MPI_STATUS_IGNORE : c;
}

static void f_status_back(const MPI_Status *c, MPI_Fint *f)
{
    if (c != MPI_STATUS_IGNORE)
        PMPI_Status_c2f(c, f);
}

/* The n C datatypes of Fortran handles; NULL when out of memory. */
static MPI_Datatype *f_types(int n, const MPI_Fint *f)
{
    MPI_Datatype *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(*c));
    for (int i = 0; c && i < n; i++)
        c[i] = PMPI_Type_f2c(f[i]);
    return c;
}

/* ierror is optional in mpi_f08 (a null pointer where the caller left it
 * out): every converter writes through this. */
#define F_IERR(ierr)                                                                               \
    MPI_Fint ierr_absent_ = MPI_SUCCESS;                                                           \
    if (!(ierr))                                                                                   \
    (ierr) = &ierr_absent_

#define F_BUF(p) f_buf(p)
#define F_TYPE(h) PMPI_Type_f2c(*(h))
#define F_COMM(h) PMPI_Comm_f2c(*(h))
/* Fortran .FALSE. is 0 in gfortran and in both libraries' conversions. */
#define F_LOGICAL(l) (*(l) != 0)

/* The library's own Fortran routine of this name, in any mangling. */
static void *next_fortran(const char *lower)
{
    char name[64];
    for (int v = 0; v < 4; v++) {
        snprintf(name, sizeof(name), "%s%s", lower,
                 v == 0   ? "_"
                 : v == 1 ? ""
                 : v == 2 ? "__"
                          : "");
        if (v == 3)
            for (char *c = name; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        void *f = dlsym(RTLD_NEXT, name);
        if (f)
            return f;
    }
    return NULL;
}

static void nh_f_mpi_init(MPI_Fint *ierr)
{
    F_IERR(ierr);
    void (*real)(MPI_Fint *) = (void (*)(MPI_Fint *))next_fortran("mpi_init");
    if (real)
        real(ierr);
    else
        *ierr = MPI_Init(NULL, NULL);
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

static void nh_f_mpi_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    F_IERR(ierr);
    void (*real)(MPI_Fint *, MPI_Fint *, MPI_Fint *) =
        (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))next_fortran("mpi_init_thread");
    if (real) {
        real(required, provided, ierr);
    } else {
        int p = 0;
        *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
        *provided = p;
    }
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

/* mpi_f08's start-up, as above with the library's own _f08_ routine. */
static void nh_f08_mpi_init(MPI_Fint *ierr)
{
    F_IERR(ierr);
    void (*real)(MPI_Fint *) = (void (*)(MPI_Fint *))dlsym(RTLD_NEXT, "mpi_init_f08_");
    if (real)
        real(ierr);
    else
        *ierr = MPI_Init(NULL, NULL);
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

static void nh_f08_mpi_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    F_IERR(ierr);
    void (*real)(MPI_Fint *, MPI_Fint *, MPI_Fint *) = (void (*)(
        MPI_Fint *, MPI_Fint *, MPI_Fint *))dlsym(RTLD_NEXT, "mpi_init_thread_f08_");
    if (real) {
        real(required, provided, ierr);
    } else {
        int p = 0;
        *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
        *provided = p;
    }
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

NH_EXPORT void mpi_init_f08_(MPI_Fint *ierr) __attribute__((alias("nh_f08_mpi_init")));
NH_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((alias("nh_f08_mpi_init_thread")));

static void nh_f_mpi_dist_graph_create_adjacent(MPI_Fint *comm_old, MPI_Fint *indegree,
                                                MPI_Fint *sources, MPI_Fint *sourceweights,
                                                MPI_Fint *outdegree, MPI_Fint *destinations,
                                                MPI_Fint *destweights, MPI_Fint *info,
                                                MPI_Fint *reorder, MPI_Fint *comm_dist_graph,
                                                MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Comm c;
    *ierr = MPI_Dist_graph_create_adjacent(
        F_COMM(comm_old), *indegree, sources, f_weights(sourceweights), *outdegree, destinations,
        f_weights(destweights), PMPI_Info_f2c(*info), F_LOGICAL(reorder), &c);
    if (*ierr == MPI_SUCCESS)
        *comm_dist_graph = PMPI_Comm_c2f(c);
}

static void nh_f_mpi_dist_graph_create(MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources,
                                       MPI_Fint *degrees, MPI_Fint *destinations, MPI_Fint *weights,
                                       MPI_Fint *info, MPI_Fint *reorder, MPI_Fint *comm_dist_graph,
                                       MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Comm c;
    *ierr = MPI_Dist_graph_create(F_COMM(comm_old), *n, sources, degrees, destinations,
                                  f_weights(weights), PMPI_Info_f2c(*info), F_LOGICAL(reorder), &c);
    if (*ierr == MPI_SUCCESS)
        *comm_dist_graph = PMPI_Comm_c2f(c);
}

/* One C handle per peer; MPI ignores the send types of an in-place call,
 * so they are not read. */
static void nh_f_mpi_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                               MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                               MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                               MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Comm c = F_COMM(comm);
    void *sbuf = F_BUF(sendbuf);
    MPI_Datatype *st = NULL, *rt = NULL;
    int inter = 0, n = 0, rc;
    if ((rc = PMPI_Comm_test_inter(c, &inter)) ||
        (rc = inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n))) {
        *ierr = rc;
        return;
    }
    rt = f_types(n, recvtypes);
    if (sbuf != MPI_IN_PLACE)
        st = f_types(n, sendtypes);
    if (!rt || (sbuf != MPI_IN_PLACE && !st)) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(c, rc);
    } else {
        rc = MPI_Alltoallw(sbuf, sendcounts, sdispls, st, F_BUF(recvbuf), recvcounts, rdispls, rt,
                           c);
    }
    free(st);
    free(rt);
    *ierr = rc;
}

/* The degrees of comm's neighborhood (Cartesian, graph or distributed
 * graph); 0 for other communicators, whose error MPI reports. */
static int f_degrees(MPI_Comm c, int *in, int *out)
{
    int st, rc, n = 0, rank, weighted;
    *in = *out = 0;
    if (c == MPI_COMM_NULL || (rc = PMPI_Topo_test(c, &st)))
        return MPI_SUCCESS; /* the C call reports it */
    if (st == MPI_DIST_GRAPH)
        return PMPI_Dist_graph_neighbors_count(c, in, out, &weighted);
    if (st == MPI_CART && !(rc = PMPI_Cartdim_get(c, &n)))
        n *= 2;
    else if (st == MPI_GRAPH && !(rc = PMPI_Comm_rank(c, &rank)))
        rc = PMPI_Graph_neighbors_count(c, rank, &n);
    *in = *out = n;
    return rc;
}

/* MPI_NEIGHBOR_ALLTOALLW in any form: one C handle per neighbor.  The
 * converted type arrays are freed on return, also for nonblocking and
 * persistent calls, as the libraries' own bindings do: nhood's requests
 * keep their own description of the blocks. */
static void f_neighbor_w(nh_form form, void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                         MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                         MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *info,
                         MPI_Fint *request, MPI_Fint *ierr)
{
    MPI_Comm c = F_COMM(comm);
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Datatype *st = NULL, *rt = NULL;
    int in, out, rc = f_degrees(c, &in, &out);
    (void)info;
    if (rc)
        goto out;
    if (!(st = f_types(out, sendtypes)) || !(rt = f_types(in, recvtypes))) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(c, rc);
        goto out;
    }
    if (form == NH_FORM_BLOCKING)
        rc = MPI_Neighbor_alltoallw(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                    recvcounts, rdispls, rt, c);
    else if (form == NH_FORM_NONBLOCKING)
        rc = MPI_Ineighbor_alltoallw(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                     recvcounts, rdispls, rt, c, &r);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    else
        rc = MPI_Neighbor_alltoallw_init(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                         recvcounts, rdispls, rt, c, PMPI_Info_f2c(*info), &r);
#endif
    if (rc == MPI_SUCCESS && form != NH_FORM_BLOCKING)
        *request = PMPI_Request_c2f(r);
out:
    free(st);
    free(rt);
    *ierr = rc;
}

static void nh_f_mpi_neighbor_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                                        MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                                        MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                                        MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_neighbor_w(NH_FORM_BLOCKING, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                 rdispls, recvtypes, comm, NULL, NULL, ierr);
}

static void nh_f_mpi_ineighbor_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                                         MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                                         MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                                         MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_neighbor_w(NH_FORM_NONBLOCKING, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                 rdispls, recvtypes, comm, NULL, request, ierr);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
static void nh_f_mpi_neighbor_alltoallw_init(void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls,
                                             MPI_Fint *sendtypes, void *recvbuf,
                                             MPI_Fint *recvcounts, MPI_Aint *rdispls,
                                             MPI_Fint *recvtypes, MPI_Fint *comm, MPI_Fint *info,
                                             MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_neighbor_w(NH_FORM_PERSISTENT, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                 rdispls, recvtypes, comm, info, request, ierr);
}
#endif

/* ---- completion ---- */

static void nh_f_mpi_wait(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status cs, *st = f_status(status, &cs);
    *ierr = MPI_Wait(&r, st);
    *request = PMPI_Request_c2f(r);
    if (*ierr == MPI_SUCCESS)
        f_status_back(st, status);
}

static void nh_f_mpi_test(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Request r = PMPI_Request_f2c(*request);
    MPI_Status cs, *st = f_status(status, &cs);
    int f = 0;
    *ierr = MPI_Test(&r, &f, st);
    *request = PMPI_Request_c2f(r);
    *flag = f ? F_TRUE : 0;
    if (*ierr == MPI_SUCCESS && f)
        f_status_back(st, status);
}

static void nh_f_mpi_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
                                        MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Status cs, *st = f_status(status, &cs);
    int f = 0;
    *ierr = MPI_Request_get_status(PMPI_Request_f2c(*request), &f, st);
    *flag = f ? F_TRUE : 0;
    if (*ierr == MPI_SUCCESS && f)
        f_status_back(st, status);
}

static void nh_f_mpi_waitall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses,
                             MPI_Fint *ierr)
{
    F_IERR(ierr);
    int n = *count;
    MPI_Request *r = f_reqs(n, requests);
    MPI_Status *st = NULL;
    if (f_statuses(n, statuses, &st) || !r)
        *ierr = f_fail(MPI_ERR_NO_MEM);
    else if ((*ierr = MPI_Waitall(n, r, st)) == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)
        f_back(n, r, requests, n, st, statuses);
    free(r);
    f_statuses_free(st);
}

static void nh_f_mpi_testall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                             MPI_Fint *statuses, MPI_Fint *ierr)
{
    F_IERR(ierr);
    int n = *count, f = 0;
    MPI_Request *r = f_reqs(n, requests);
    MPI_Status *st = NULL;
    if (f_statuses(n, statuses, &st) || !r)
        *ierr = f_fail(MPI_ERR_NO_MEM);
    else if ((*ierr = MPI_Testall(n, r, &f, st)) == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS)
        f_back(n, r, requests, f ? n : 0, st, statuses);
    *flag = f ? F_TRUE : 0;
    free(r);
    f_statuses_free(st);
}

/* MPI_WAITANY and MPI_TESTANY (flag NULL: wait). */
static void f_any(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr)
{
    int n = *count, i = MPI_UNDEFINED, f = 1;
    MPI_Request *r = f_reqs(n, requests);
    MPI_Status cs, *st = f_status(status, &cs);
    if (!r) {
        *ierr = f_fail(MPI_ERR_NO_MEM);
        return;
    }
    *ierr = flag ? MPI_Testany(n, r, &i, &f, st) : MPI_Waitany(n, r, &i, st);
    if (*ierr == MPI_SUCCESS) {
        f_back(n, r, requests, 0, NULL, NULL);
        *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
        if (f && i != MPI_UNDEFINED)
            f_status_back(st, status);
    }
    if (flag)
        *flag = f ? F_TRUE : 0;
    free(r);
}

static void nh_f_mpi_waitany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                             MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_any(count, requests, index, NULL, status, ierr);
}

static void nh_f_mpi_testany(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                             MPI_Fint *status, MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_any(count, requests, index, flag, status, ierr);
}

/* MPI_WAITSOME and MPI_TESTSOME. */
static void f_some(int test, MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    int n = *incount, out = MPI_UNDEFINED;
    MPI_Request *r = f_reqs(n, requests);
    MPI_Status *st = NULL;
    if (f_statuses(n, statuses, &st) || !r) {
        *ierr = f_fail(MPI_ERR_NO_MEM);
    } else {
        *ierr =
            test ? MPI_Testsome(n, r, &out, indices, st) : MPI_Waitsome(n, r, &out, indices, st);
        if (*ierr == MPI_SUCCESS || *ierr == MPI_ERR_IN_STATUS) {
            int k = out == MPI_UNDEFINED ? 0 : out;
            f_back(n, r, requests, k, st, statuses);
            for (int i = 0; i < k; i++)
                indices[i] += 1;
            *outcount = out;
        }
    }
    free(r);
    f_statuses_free(st);
}

static void nh_f_mpi_waitsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                              MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_some(0, incount, requests, outcount, indices, statuses, ierr);
}

static void nh_f_mpi_testsome(MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                              MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    F_IERR(ierr);
    f_some(1, incount, requests, outcount, indices, statuses, ierr);
}

static void nh_f_mpi_request_free(MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Request r = PMPI_Request_f2c(*request);
    if ((*ierr = MPI_Request_free(&r)) == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
}

static void nh_f_mpi_cancel(MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Request r = PMPI_Request_f2c(*request);
    *ierr = MPI_Cancel(&r);
}

static void nh_f_mpi_start(MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Request r = PMPI_Request_f2c(*request);
    if ((*ierr = MPI_Start(&r)) == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
}

static void nh_f_mpi_startall(MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr)
{
    F_IERR(ierr);
    int n = *count;
    MPI_Request *r = f_reqs(n, requests);
    if (!r)
        *ierr = f_fail(MPI_ERR_NO_MEM);
    else if ((*ierr = MPI_Startall(n, r)) == MPI_SUCCESS)
        f_back(n, r, requests, 0, NULL, NULL);
    free(r);
}

#define NH_FORTRAN_CALL(lower, UPPER, params, call)                                                \
    static void nh_f_##lower params                                                                \
    {                                                                                              \
        F_IERR(ierr);                                                                              \
        *ierr = call;                                                                              \
    }                                                                                              \
    NH_FORTRAN(lower, UPPER, params)
#define NH_FORTRAN_REQ_CONV(conv, params, call)                                                    \
    static void conv params                                                                        \
    {                                                                                              \
        MPI_Request r = MPI_REQUEST_NULL;                                                          \
        F_IERR(ierr);                                                                              \
        if ((*ierr = call) == MPI_SUCCESS)                                                         \
            *request = PMPI_Request_c2f(r);                                                        \
    }
#define NH_FORTRAN_REQ(lower, UPPER, params, call)                                                 \
    NH_FORTRAN_REQ_CONV(nh_f_##lower, params, call)                                                \
    NH_FORTRAN(lower, UPPER, params)
/* The names of converter conv (a string). */
#define NH_FORTRAN_NAMES(lower, UPPER, params, conv)                                               \
    NH_EXPORT void lower params __attribute__((alias(conv)));                                      \
    NH_EXPORT void lower##_ params __attribute__((alias(conv)));                                   \
    NH_EXPORT void lower##__ params __attribute__((alias(conv)));                                  \
    NH_EXPORT void UPPER params __attribute__((alias(conv)));                                      \
    NH_EXPORT void lower##_f08_ params __attribute__((alias(conv)));
#define NH_FORTRAN_F77(lower, UPPER, params)                                                       \
    NH_EXPORT void lower params __attribute__((alias("nh_f_" #lower)));                            \
    NH_EXPORT void lower##_ params __attribute__((alias("nh_f_" #lower)));                         \
    NH_EXPORT void lower##__ params __attribute__((alias("nh_f_" #lower)));                        \
    NH_EXPORT void UPPER params __attribute__((alias("nh_f_" #lower)));
#define NH_FORTRAN(lower, UPPER, params) NH_FORTRAN_NAMES(lower, UPPER, params, "nh_f_" #lower)
#ifdef HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
#define NH_FORTRAN_INIT(name, NAME, params)                                                        \
    NH_FORTRAN_NAMES(mpix_##name, MPIX_##NAME, params, "nh_f_mpi_" #name)
#else
#define NH_FORTRAN_INIT(name, NAME, params) NH_FORTRAN(mpi_##name, MPI_##NAME, params)
#endif
#define NH_FORTRAN_INIT_REQ(name, NAME, params, call)                                              \
    NH_FORTRAN_REQ_CONV(nh_f_mpi_##name, params, call)                                             \
    NH_FORTRAN_INIT(name, NAME, params)
#include "fortran.h"
#undef NH_FORTRAN
#undef NH_FORTRAN_F77
#undef NH_FORTRAN_NAMES
#undef NH_FORTRAN_INIT
#undef NH_FORTRAN_INIT_REQ
#undef NH_FORTRAN_CALL
#undef NH_FORTRAN_REQ
#undef NH_FORTRAN_REQ_CONV
