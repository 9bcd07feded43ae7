/* Fortran entry points (table in fortran.h).
 *
 * nhood answers both C names of what it intercepts, so every library's
 * own Fortran binding reaches it: MPICH's mpif.h and `use mpi` call the C
 * MPI_X, Open MPI's bindings and both libraries' mpi_f08 call PMPI_X.
 * nhood's own Fortran names exist only for the calls some library's
 * binding gets wrong (measured with each library's own binding,
 * docs/fortran.md), and run their converter only where the library at
 * hand has that bug (NH_FBUG_*, util/mpilib.h; NHOOD_FORTRAN_FIXES):
 *  - Open MPI before 6.0 converts the datatype arrays of
 *    MPI_NEIGHBOR_ALLTOALLW (every form) by the communicator's size
 *    instead of the neighborhood's degrees, and its
 *    MPI_REQUEST_GET_STATUS answers flag = .false. without asking MPI
 *    where the status is MPI_STATUS_IGNORE (a loop on it never ends);
 *  - Open MPI 6.0 hangs the converted arrays of MPI_INEIGHBOR_ALLTOALLW and
 *    MPI_NEIGHBOR_ALLTOALLW_INIT on the request as on one of its own
 *    collective requests, writing into nhood's (its mpi_f08 passes the
 *    buffers as C descriptors, to mpi_<name>_f08ts_: NH_FORTRAN_TS);
 *  - MPICH before 4.2 returns MPI_UNDEFINED + 1 from MPI_WAITANY and
 *    MPI_TESTANY where no request is active, and 0-based indices from
 *    mpi_f08's MPI_Waitany, Testany, Waitsome and Testsome; MPICH 4.2
 *    returns the MPI_UNDEFINED + 1 from mpi_f08's.
 * Elsewhere the name hands the call to the library's own routine.  Each
 * converter turns Fortran handles, sentinels and logicals into C values
 * (fortran_conv.c) and calls the C entry point the library's own binding
 * would call (FC), so a C tool sees of a Fortran program what it would
 * see without nhood.  Each exported name first hands the call to a tool's
 * Fortran wrapper of that name loaded after nhood, where there is one
 * (f_next): exporting a Fortran name never hides a tool.
 *
 * Requests.  A Fortran request is converted to C (MPI_Request_f2c) for
 * the call and back (MPI_Request_c2f) after it, statuses with
 * MPI_Status_c2f, indices from 0-based to 1-based.
 *
 * mpi_f08.  Both libraries name the Fortran 2008 routines mpi_<name>_f08_
 * and pass what the converters take: a handle type(MPI_Comm) etc. is one
 * integer, passed by reference like a Fortran handle, type(MPI_Status)
 * has the layout of a Fortran status, and the optional ierror is a null
 * pointer where the call leaves it out (F_IERR).  Every entry of the
 * table therefore also gets its _f08_ name, running the same converter. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ISO_FORTRAN_BINDING_H
#include <ISO_Fortran_binding.h>
#endif

#include "api/api.h"
#include "intercept/fortran_int.h"

#define NH_EXPORT __attribute__((visibility("default")))

/* ierror is optional in mpi_f08 (a null pointer where the caller left it
 * out): every converter writes through this. */
#define F_IERR(ierr)                                                                               \
    MPI_Fint ierr_absent_ = MPI_SUCCESS;                                                           \
    if (!(ierr))                                                                                   \
    (ierr) = &ierr_absent_

#define F_BUF(p) f_buf(p)
#define F_COMM(h) nh_mpi_Comm_f2c(*(h))

/* The C entry point a Fortran call reaches, as the MPI library's own
 * binding reaches it, so that a C tool sees of a Fortran program what it
 * would see without nhood: MPICH's mpif.h and `use mpi` call MPI_X, Open
 * MPI's bindings and both libraries' mpi_f08 call nh_mpi_X (f_f08: the call
 * came in by its mpi_f08 name).  Either is looked up in the global scope,
 * as the binding's own call is: a tool's first, else nhood's. */
static __thread int f_f08;
#ifdef MPICH_VERSION
#define F_MPIF_CALLS_MPI 1
#else
#define F_MPIF_CALLS_MPI 0
#endif
/* clang-format off */
#define F_C_FNS(X)                                                                                 \
    X(MPI_Neighbor_alltoallw)                                                                      \
    X(MPI_Ineighbor_alltoallw)                                                                     \
    F_C_INIT_FNS(X)                                                                                \
    X(MPI_Waitany)                                                                                 \
    X(MPI_Testany)                                                                                 \
    X(MPI_Waitsome)                                                                                \
    X(MPI_Testsome)                                                                                \
    X(MPI_Request_get_status)
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
#define F_C_INIT_FNS(X) X(MPI_Neighbor_alltoallw_init)
#else
#define F_C_INIT_FNS(X)
#endif
/* clang-format on */
#define F_C_MEMBER(name) __typeof__(&name) name;
static struct {
    F_C_FNS(F_C_MEMBER)
} f_pmpi;
#define F_STR_(s) #s
#define F_STR(s) F_STR_(s) /* after expansion: Open MPI 4.1's MPIX_ names */
static void f_pmpi_find(void)
{
#define F_C_FIND(name) f_pmpi.name = (__typeof__(&name))dlsym(RTLD_DEFAULT, "P" F_STR(name));
    F_C_FNS(F_C_FIND)
}
NH_MPILIB_AT_LOAD(f_pmpi_find)
#define FC(name) ((F_MPIF_CALLS_MPI && !f_f08) || !f_pmpi.name ? name : *f_pmpi.name)

/* A tool's Fortran routine of this exported name loaded after nhood, or
 * NULL: the next definition, unless it is the MPI library's binding,
 * which also defines the name's profiling twin (pmpi_x_, PMPI_X; MPICH's
 * mpi_f08: pmpir_x_f08_). */
static void *f_next(const char *name)
{
    char twin[80];
    void *next = dlsym(RTLD_NEXT, name), *lib = NULL;
    if (!next)
        return NULL;
    snprintf(twin, sizeof(twin), "%c%s", isupper((unsigned char)name[0]) ? 'P' : 'p', name);
    lib = dlsym(RTLD_NEXT, twin);
    if (!lib && !strncmp(name, "mpi_", 4)) {
        snprintf(twin, sizeof(twin), "pmpir_%s", name + 4);
        lib = dlsym(RTLD_NEXT, twin);
    }
    return lib && nh_mpilib_object_of(lib) == nh_mpilib_object_of(next) ? NULL : next;
}

/* The degrees of comm's neighborhood (Cartesian, graph or distributed
 * graph); 0 for other communicators, whose error MPI reports. */
static int f_degrees(MPI_Comm c, int *in, int *out)
{
    int st, rc, n = 0, rank, weighted;
    *in = *out = 0;
    if (c == MPI_COMM_NULL || (rc = nh_mpi_Topo_test(c, &st)))
        return MPI_SUCCESS; /* the C call reports it */
    if (st == MPI_DIST_GRAPH)
        return nh_mpi_Dist_graph_neighbors_count(c, in, out, &weighted);
    if (st == MPI_CART && !(rc = nh_mpi_Cartdim_get(c, &n)))
        n *= 2;
    else if (st == MPI_GRAPH && !(rc = nh_mpi_Comm_rank(c, &rank)))
        rc = nh_mpi_Graph_neighbors_count(c, rank, &n);
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
        nh_mpi_Comm_call_errhandler(c, rc);
        goto out;
    }
    if (form == NH_FORM_BLOCKING)
        rc = FC(MPI_Neighbor_alltoallw)(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                        recvcounts, rdispls, rt, c);
    else if (form == NH_FORM_NONBLOCKING)
        rc = FC(MPI_Ineighbor_alltoallw)(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                         recvcounts, rdispls, rt, c, &r);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    else
        rc =
            FC(MPI_Neighbor_alltoallw_init)(F_BUF(sendbuf), sendcounts, sdispls, st, F_BUF(recvbuf),
                                            recvcounts, rdispls, rt, c, nh_mpi_Info_f2c(*info), &r);
#endif
    if (rc == MPI_SUCCESS && form != NH_FORM_BLOCKING)
        *request = nh_mpi_Request_c2f(r);
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

#ifdef HAVE_ISO_FORTRAN_BINDING_H
/* The buffers of C descriptors (Open MPI 6's _f08ts_ names): 1 where both
 * are contiguous, else 0 with MPI_ERR_BUFFER raised on comm, as the
 * library's own routine does, before any request exists. */
static int f_cfi_contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int k = 0; k < d->rank; k++) {
        if (d->dim[k].extent > 1 && d->dim[k].sm != want)
            return 0;
        want *= d->dim[k].extent;
    }
    return 1;
}

static int f_cfi_bufs(const CFI_cdesc_t *x1, const CFI_cdesc_t *x2, MPI_Fint *comm, MPI_Fint *ierr)
{
    if (f_cfi_contiguous(x1) && f_cfi_contiguous(x2))
        return 1;
    *ierr = MPI_ERR_BUFFER;
    nh_mpi_Comm_call_errhandler(F_COMM(comm), MPI_ERR_BUFFER);
    return 0;
}

static void nh_f_ts_mpi_ineighbor_alltoallw(CFI_cdesc_t *x1, MPI_Fint *sendcounts,
                                            MPI_Aint *sdispls, MPI_Fint *sendtypes,
                                            CFI_cdesc_t *x2, MPI_Fint *recvcounts,
                                            MPI_Aint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                                            MPI_Fint *request, MPI_Fint *ierr)
{
    F_IERR(ierr);
    if (f_cfi_bufs(x1, x2, comm, ierr))
        f_neighbor_w(NH_FORM_NONBLOCKING, x1->base_addr, sendcounts, sdispls, sendtypes,
                     x2->base_addr, recvcounts, rdispls, recvtypes, comm, NULL, request, ierr);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
static void nh_f_ts_mpi_neighbor_alltoallw_init(CFI_cdesc_t *x1, MPI_Fint *sendcounts,
                                                MPI_Aint *sdispls, MPI_Fint *sendtypes,
                                                CFI_cdesc_t *x2, MPI_Fint *recvcounts,
                                                MPI_Aint *rdispls, MPI_Fint *recvtypes,
                                                MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request,
                                                MPI_Fint *ierr)
{
    F_IERR(ierr);
    if (f_cfi_bufs(x1, x2, comm, ierr))
        f_neighbor_w(NH_FORM_PERSISTENT, x1->base_addr, sendcounts, sdispls, sendtypes,
                     x2->base_addr, recvcounts, rdispls, recvtypes, comm, info, request, ierr);
}
#endif
#endif

/* ---- completion ---- */

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
    *ierr = flag ? FC(MPI_Testany)(n, r, &i, &f, st) : FC(MPI_Waitany)(n, r, &i, st);
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
        *ierr = test ? FC(MPI_Testsome)(n, r, &out, indices, st)
                     : FC(MPI_Waitsome)(n, r, &out, indices, st);
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

static void nh_f_mpi_request_get_status(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
                                        MPI_Fint *ierr)
{
    F_IERR(ierr);
    MPI_Status cs, *st = f_status(status, &cs);
    int f = 0;
    *ierr = FC(MPI_Request_get_status)(nh_mpi_Request_f2c(*request), &f, st);
    *flag = f ? F_TRUE : 0;
    if (*ierr == MPI_SUCCESS && f)
        f_status_back(st, status);
}

/* The bugs this run mends (NH_FBUG_*): the library's, or as
 * NHOOD_FORTRAN_FIXES says; asked at the first Fortran call (after
 * MPI_Init, whose settings it reads). */
static int f_fixes(void)
{
    return nh_mpilib_fortran_fixes(nh_cfg.fortran_fixes);
}

/* One exported name of converter conv (f08: mpi_f08's name) mending bugs:
 * it hands the call to a tool's Fortran wrapper of that name loaded after
 * nhood, where there is one (f_next), else to the library's own routine
 * of that name where the library has none of those bugs, else runs
 * conv. */
#define NH_FORTRAN_NAME(sym, params, args, conv, f08, bugs)                                        \
    static void(*f_below_##sym) params;                                                            \
    static void(*f_lib_##sym) params;                                                              \
    static void f_find_##sym(void)                                                                 \
    {                                                                                              \
        f_below_##sym = (__typeof__(f_below_##sym))f_next(#sym);                                   \
        f_lib_##sym = (__typeof__(f_lib_##sym))dlsym(RTLD_NEXT, #sym);                             \
    }                                                                                              \
    NH_MPILIB_AT_LOAD(f_find_##sym)                                                                \
    NH_EXPORT void sym params; /* called from Fortran only: no header */                           \
    NH_EXPORT void sym params                                                                      \
    {                                                                                              \
        if (f_below_##sym) {                                                                       \
            f_below_##sym args;                                                                    \
            return;                                                                                \
        }                                                                                          \
        if (f_lib_##sym && !(f_fixes() & (bugs))) {                                                \
            f_lib_##sym args;                                                                      \
            return;                                                                                \
        }                                                                                          \
        int outer = f_f08;                                                                         \
        f_f08 = f08;                                                                               \
        conv args;                                                                                 \
        f_f08 = outer;                                                                             \
    }
#define NH_FORTRAN_NAMES(lower, UPPER, f77bugs, f08bugs, params, args, conv)                       \
    NH_FORTRAN_NAME(lower, params, args, conv, 0, f77bugs)                                         \
    NH_FORTRAN_NAME(lower##_, params, args, conv, 0, f77bugs)                                      \
    NH_FORTRAN_NAME(lower##__, params, args, conv, 0, f77bugs)                                     \
    NH_FORTRAN_NAME(UPPER, params, args, conv, 0, f77bugs)                                         \
    NH_FORTRAN_NAME(lower##_f08_, params, args, conv, 1, f08bugs)
#define NH_FORTRAN(lower, UPPER, f77bugs, f08bugs, params, args)                                   \
    NH_FORTRAN_NAMES(lower, UPPER, f77bugs, f08bugs, params, args, nh_f_##lower)
#define NH_FORTRAN_F08(lower, bugs, params, args)                                                  \
    NH_FORTRAN_NAME(lower##_f08_, params, args, nh_f_##lower, 1, bugs)
#define NH_FORTRAN_TS(lower, bugs, params, args)                                                   \
    NH_FORTRAN_NAME(lower##_f08ts_, params, args, nh_f_ts_##lower, 1, bugs)
#ifdef HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
#define NH_FORTRAN_INIT(name, NAME, f77bugs, f08bugs, params, args)                                \
    NH_FORTRAN_NAMES(mpix_##name, MPIX_##NAME, f77bugs, f08bugs, params, args, nh_f_mpi_##name)
#else
#define NH_FORTRAN_INIT(name, NAME, f77bugs, f08bugs, params, args)                                \
    NH_FORTRAN(mpi_##name, MPI_##NAME, f77bugs, f08bugs, params, args)
#endif
#include "fortran.h"
#undef NH_FORTRAN
#undef NH_FORTRAN_F08
#undef NH_FORTRAN_TS
#undef NH_FORTRAN_NAMES
#undef NH_FORTRAN_NAME
#undef NH_FORTRAN_INIT
