/* MPI-4's large-count forms: MPI_Neighbor_*_c in every form (api/colls_c.h)
 * and the in-place MPI_Alltoall*_c.  nhood's machinery counts in int, so a
 * call runs there with its counts narrowed where they fit, and goes to
 * MPI's own _c function where they do not, the report saying why
 * (why=large_count; why=large_count_vw for a v or w call without the
 * promise below).  The decision must be the same on every rank (ranks
 * that decide differently never meet), without communication:
 *  - regular forms (alltoall, allgather): a block's size in bytes is the
 *    same on every rank (sender's and receiver's type signatures match),
 *    so nhood runs the call where the blocks' bytes fit an int (a type of
 *    size 0 moves nothing at any count: count 0);
 *  - v and w forms: each rank sees only its own counts, and one rank's
 *    block beyond int says nothing to the others, so nhood runs them only
 *    under the program's promise that every count and displacement fits
 *    (NHOOD_LARGE_COUNT=fits), and a rank that finds it broken stops the
 *    job with an error naming the call; by default they go to MPI.
 * The narrowed arrays live for the call only: nhood's requests keep their
 * own description of the blocks, and a call nhood hands back goes to MPI
 * with the program's own arrays. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "nh_impl.h"

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_C

static nh_plan *plan_of(MPI_Comm comm)
{
    return nh_active ? nh_plan_get(comm) : NULL;
}

/* The call goes to MPI's _c function for its counts (why: a block beyond
 * int, or a v/w call without the promise): in the report. */
static int passed(MPI_Comm comm, nh_coll coll, nh_form form, nh_why why)
{
    nh_plan *p = plan_of(comm);
    int rc;
    /* counted as every call is, so the analysis comes at the same call everywhere */
    if (p && p->cold && (rc = nh_neighbor_cold(p, coll, form, comm)))
        return rc;
    nh_report_rec *r = p ? nh_report_rec_get(p, coll, form) : NULL;
    if (r) {
        r->calls[NH_ALGO_PMPI]++;
        r->why = why;
    }
    return NH_TO_PMPI;
}

/* A regular block as an int count where its bytes fit an int. */
static int regular(MPI_Count count, MPI_Datatype type, int *out)
{
    MPI_Count size = 0;
    if (count == 0) {
        *out = 0;
        return 1;
    }
    if (count < 0 || type == MPI_DATATYPE_NULL || nh_mpi_Type_size_c(type, &size) || size < 0)
        return 0;
    if (size > 0 && count > INT_MAX / size)
        return 0;
    *out = size > 0 ? (int)count : 0;
    return 1;
}

/* The overlap layer's hook for blocking calls (the arrays outlive the
 * call), else nhood's run; NH_TO_PMPI where nhood hands the call back. */
static int run(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    if (nh_coll_hook && form == NH_FORM_BLOCKING)
        return nh_coll_hook(coll, form, a, comm, req, nh_caller);
    return nh_neighbor_started(form, nh_neighbor(coll, form, a, comm, req), comm, req);
}

static int regular_c(nh_coll coll, nh_form form, const void *sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    int s, r;
    if (!plan_of(comm))
        return NH_TO_PMPI;
    if (!regular(sendcount, sendtype, &s) || !regular(recvcount, recvtype, &r))
        return passed(comm, coll, form, NH_WHY_LARGE_COUNT);
    nh_args a = {.sbuf = sendbuf,
                 .scount = s,
                 .stype = sendtype,
                 .rbuf = recvbuf,
                 .rcount = r,
                 .rtype = recvtype};
    return run(coll, form, &a, comm, req);
}

/* ---- v and w forms: under the promise only ---- */

/* n counts (c) or displacements (d) as ints in out[n + 1]: MPI_SUCCESS,
 * MPI_ERR_NO_MEM, or MPI_ERR_COUNT with the value that does not fit in
 * *bad. */
static int narrow(int n, const MPI_Count *c, const MPI_Aint *d, int **out, long long *bad)
{
    if (!(*out = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(int))))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        long long v = c ? (long long)c[i] : (long long)d[i];
        if (v < INT_MIN || v > INT_MAX) {
            *bad = v;
            return MPI_ERR_COUNT;
        }
        (*out)[i] = (int)v;
    }
    return MPI_SUCCESS;
}

/* The promise broken (or no memory): one error, the job stopped. */
static int broken(MPI_Comm comm, const char *what, int rc, long long bad)
{
    if (rc == MPI_ERR_COUNT) {
        nh_error("NHOOD_LARGE_COUNT=fits promises that the counts and displacements of large-count "
                 "v and w calls fit an int, but this rank's %s_c has %lld",
                 what, bad);
        fflush(stderr);
        nh_mpi_Abort(comm, MPI_ERR_COUNT);
    }
    nh_mpi_Comm_call_errhandler(comm, rc);
    return rc;
}

static const char *name_of(nh_coll coll, nh_form form, char *buf, size_t len)
{
    snprintf(buf, len, "MPI_%s_%s%s", form == NH_FORM_NONBLOCKING ? "Ineighbor" : "Neighbor",
             nh_coll_name(coll), form == NH_FORM_PERSISTENT ? "_init" : "");
    return buf;
}

/* A v/w call's arrays: its counts (and v displacements) are narrowed
 * into int arrays that live for the call (degrees from nhood's plan), a
 * is filled with them and the call run.  allgatherv: sc is its one send
 * count. */
typedef struct vw {
    const MPI_Count *sc, *rc;
    const MPI_Aint *sd, *rd; /* v: in extents (narrowed); w: in bytes (kept) */
    int w, gv;
} vw;

static int vw_run(nh_coll coll, nh_form form, const vw *v, nh_args *a, MPI_Comm comm,
                  MPI_Request *req)
{
    nh_plan *p = plan_of(comm);
    int *arr[4] = {NULL, NULL, NULL, NULL}, rc = MPI_SUCCESS;
    long long bad = 0;
    char what[48];
    if (!p)
        return NH_TO_PMPI;
    if (nh_cfg.large_count != NH_LARGE_FITS)
        return passed(comm, coll, form, NH_WHY_LARGE_COUNT_VW);
    int ns = v->gv ? 1 : p->outdeg;
    if ((rc = narrow(ns, v->sc, NULL, &arr[0], &bad)) ||
        (rc = narrow(p->indeg, v->rc, NULL, &arr[1], &bad)) ||
        (!v->w && v->sd && (rc = narrow(ns, NULL, v->sd, &arr[2], &bad))) ||
        (!v->w && (rc = narrow(p->indeg, NULL, v->rd, &arr[3], &bad)))) {
        rc = broken(comm, name_of(coll, form, what, sizeof(what)), rc, bad);
        goto out;
    }
    if (v->gv)
        a->scount = arr[0][0];
    else
        a->scounts = arr[0];
    a->rcounts = arr[1];
    if (v->w) {
        a->sdisplsw = v->sd;
        a->rdisplsw = v->rd;
    } else {
        a->sdispls = arr[2]; /* allgatherv: none */
        a->rdispls = arr[3];
    }
    rc = run(coll, form, a, comm, req);
out:
    for (int i = 0; i < 4; i++)
        free(arr[i]);
    return rc;
}

static int v_c(nh_coll coll, nh_form form, const void *sendbuf, const MPI_Count sendcounts[],
               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
               const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
               MPI_Comm comm, MPI_Request *req)
{
    vw v = {.sc = sendcounts, .rc = recvcounts, .sd = sdispls, .rd = rdispls};
    nh_args a = {.sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype};
    return vw_run(coll, form, &v, &a, comm, req);
}

static int w_c(nh_coll coll, nh_form form, const void *sendbuf, const MPI_Count sendcounts[],
               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
               const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *req)
{
    vw v = {.sc = sendcounts, .rc = recvcounts, .sd = sdispls, .rd = rdispls, .w = 1};
    nh_args a = {.sbuf = sendbuf, .stypes = sendtypes, .rbuf = recvbuf, .rtypes = recvtypes};
    return vw_run(coll, form, &v, &a, comm, req);
}

static int gv_c(nh_coll coll, nh_form form, const void *sendbuf, MPI_Count sendcount,
                MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req)
{
    vw v = {.sc = &sendcount, .rc = recvcounts, .rd = displs, .gv = 1};
    nh_args a = {.sbuf = sendbuf, .stype = sendtype, .rbuf = recvbuf, .rtype = recvtype};
    return vw_run(coll, form, &v, &a, comm, req);
}

/* The entry points: nhood's run, or MPI's _c function with the caller's
 * arguments. */
#define NH_UNWRAP(...) __VA_ARGS__
#define NH_COLL_C_BODY(conv, ID, form, args, req, pmpi)                                            \
    {                                                                                              \
        int rc = conv(NH_COLL_##ID, form, NH_UNWRAP args, comm, req);                              \
        return rc != NH_TO_PMPI ? rc : pmpi;                                                       \
    }
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
#define NH_COLL_C_INIT(name, ID, params, args, conv)                                               \
    int nh_impl_MPI_Neighbor_##name##_init_c(NH_UNWRAP params, MPI_Comm comm, MPI_Info info,       \
                                             MPI_Request *request)                                 \
        NH_COLL_C_BODY(conv, ID, NH_FORM_PERSISTENT, args, request,                                \
                       nh_mpi_Neighbor_##name##_init_c(NH_UNWRAP args, comm, info, request))
#else
#define NH_COLL_C_INIT(name, ID, params, args, conv)
#endif
#define NH_COLL_C(name, ID, params, args, conv)                                                    \
    int nh_impl_MPI_Neighbor_##name##_c(NH_UNWRAP params, MPI_Comm comm)                           \
        NH_COLL_C_BODY(conv, ID, NH_FORM_BLOCKING, args, NULL,                                     \
                       nh_mpi_Neighbor_##name##_c(NH_UNWRAP args, comm))                             \
    int nh_impl_MPI_Ineighbor_##name##_c(NH_UNWRAP params, MPI_Comm comm, MPI_Request *request)    \
        NH_COLL_C_BODY(conv, ID, NH_FORM_NONBLOCKING, args, request,                               \
                       nh_mpi_Ineighbor_##name##_c(NH_UNWRAP args, comm, request))                   \
    NH_COLL_C_INIT(name, ID, params, args, conv)
#include "api/colls_c.h"
#undef NH_COLL_C
#undef NH_COLL_C_INIT

/* ---- in-place all-to-all (alltoall.c's, narrowed) ---- */

int nh_impl_MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    int r;
    if (sendbuf == MPI_IN_PLACE && regular(recvcount, recvtype, &r)) {
        nh_inplace_args a = {
            .op = NH_INPLACE_ALLTOALL, .buf = recvbuf, .count = r, .type = recvtype};
        int rc = nh_inplace_try(sendbuf, comm, &a);
        if (rc != NH_TO_PMPI)
            return rc;
    }
    return nh_mpi_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

/* v and w: under the promise, as above. */
static int inplace_vw(nh_inplace_op op, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype,
                      const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int n = 0, *c = NULL, *d = NULL, rc;
    long long bad = 0;
    if (nh_cfg.large_count != NH_LARGE_FITS || !nh_active || nh_mpi_Comm_size(comm, &n))
        return NH_TO_PMPI;
    if ((rc = narrow(n, recvcounts, NULL, &c, &bad)) || (rc = narrow(n, NULL, rdispls, &d, &bad))) {
        rc = broken(comm, op == NH_INPLACE_ALLTOALLV ? "MPI_Alltoallv" : "MPI_Alltoallw", rc, bad);
    } else {
        nh_inplace_args a = {
            .op = op, .buf = recvbuf, .type = recvtype, .types = recvtypes, .counts = c, .displs = d};
        rc = nh_inplace_try(MPI_IN_PLACE, comm, &a);
    }
    free(c);
    free(d);
    return rc;
}

int nh_impl_MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                            const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    int rc = sendbuf != MPI_IN_PLACE ? NH_TO_PMPI
                                     : inplace_vw(NH_INPLACE_ALLTOALLV, recvbuf, recvcounts,
                                                  rdispls, recvtype, NULL, comm);
    return rc != NH_TO_PMPI ? rc
                            : nh_mpi_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                               recvcounts, rdispls, recvtype, comm);
}

int nh_impl_MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                            const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                            void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int rc = sendbuf != MPI_IN_PLACE ? NH_TO_PMPI
                                     : inplace_vw(NH_INPLACE_ALLTOALLW, recvbuf, recvcounts,
                                                  rdispls, MPI_DATATYPE_NULL, recvtypes, comm);
    return rc != NH_TO_PMPI ? rc
                            : nh_mpi_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                               recvcounts, rdispls, recvtypes, comm);
}

#endif
