/* The collectives of the isomorphic sparse collectives interface
 * (include/nhood.h): blocking and persistent all-to-all and allgather in
 * their regular, v and w forms.  Each becomes one prepared call of nhood's
 * neighborhood collective on the graph communicator Iso_neighborhood_create
 * made (iso.c), with the blocks of absent (MPI_PROC_NULL) neighbors left
 * out; where nhood does not run it, the same call goes to MPI. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "exec/request.h"
#include "iso/iso.h"
#include "nh_impl.h"
#include "nhood.h"

/* ---- the collectives: one prepared call ---- */

typedef enum { C_ALLTOALL, C_ALLGATHER, C_ALLTOALLV, C_ALLGATHERV, C_ALLTOALLW } call_kind;

/* A neighborhood collective on the graph with its (compressed) arguments:
 * nhood's (call_nhood) or MPI's (call_mpi). */
typedef struct call {
    call_kind kind;
    MPI_Comm comm;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int *scounts, *rcounts, *sdispls, *rdispls; /* v: in extents */
    MPI_Aint *sdisplsa, *rdisplsa;              /* w: in bytes */
    MPI_Datatype *stypes, *rtypes;
    int indeg, outdeg; /* the graph's (nh_iso) */
} call;

static void call_free(call *c)
{
    free(c->scounts);
    free(c->rcounts);
    free(c->sdispls);
    free(c->rdispls);
    free(c->sdisplsa);
    free(c->rdisplsa);
    free(c->stypes);
    free(c->rtypes);
    memset(c, 0, sizeof(*c));
}

/* Where nhood hands an Iso w call to MPI (nhood disabled, algorithm
 * pmpi, a graph it does not run, such as a mesh too small for any rank to
 * see the whole neighborhood), MPICH 4.0.2's MPI_Neighbor_alltoallw would
 * get it wrong: it swaps the in- and out-degree when they differ (fixed in
 * MPICH 4.1), so at a mesh boundary a rank with more sources than targets
 * receives too few blocks or reads past the arrays.  Where a rank's
 * degrees differ the Iso layer therefore packs every block into bytes and
 * runs the library's
 * MPI_Neighbor_alltoallv, which MPICH gets right; nhood's
 * MPI_Neighbor_alltoallw for applications still passes such calls to the
 * library's MPI_Neighbor_alltoallw unchanged.  Type signatures match pairwise, so
 * a block's packed size is its type size times its count at both ends
 * (homogeneous MPI). */
static int packed_sizes(int n, const int *counts, const MPI_Datatype *types, int *bytes, int *offs,
                        int *total)
{
    long long pos = 0;
    for (int k = 0; k < n; k++) {
        int sz, rc = nh_mpi_Type_size(types[k], &sz);
        if (rc)
            return rc;
        long long b = (long long)sz * counts[k];
        if (counts[k] < 0 || pos + b > INT_MAX)
            return MPI_ERR_COUNT;
        bytes[k] = (int)b;
        offs[k] = (int)pos;
        pos += b;
    }
    *total = (int)pos;
    return MPI_SUCCESS;
}

static int alltoallw_packed(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            int indeg, int outdeg)
{
    int rc, stot = 0, rtot = 0, pos;
    if (indeg == outdeg) /* the library's own is right there */
        return nh_mpi_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, comm);
    int *sb = malloc(sizeof(int) * ((size_t)outdeg + 1)),
        *so = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int *rb = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *ro = malloc(sizeof(int) * ((size_t)indeg + 1));
    char *sp = NULL, *rp = NULL;
    if (!sb || !so || !rb || !ro)
        rc = MPI_ERR_NO_MEM;
    else if (!(rc = packed_sizes(outdeg, sendcounts, sendtypes, sb, so, &stot)) &&
             !(rc = packed_sizes(indeg, recvcounts, recvtypes, rb, ro, &rtot)) &&
             (!(sp = malloc((size_t)stot + 1)) || !(rp = malloc((size_t)rtot + 1))))
        rc = MPI_ERR_NO_MEM;
    if (rc) /* found here, not by an MPI call on comm */
        nh_mpi_Comm_call_errhandler(comm, rc);
    for (int k = 0; k < outdeg && !rc; k++) {
        pos = so[k];
        if (sendcounts[k] > 0)
            rc = nh_pack((const char *)sendbuf + sdispls[k], sendcounts[k], sendtypes[k], sp, stot,
                         &pos, comm);
    }
    if (!rc)
        rc = nh_mpi_Neighbor_alltoallv(sp, sb, so, MPI_BYTE, rp, rb, ro, MPI_BYTE, comm);
    for (int k = 0; k < indeg && !rc; k++) {
        pos = ro[k];
        if (recvcounts[k] > 0)
            rc = nh_unpack(rp, rtot, &pos, (char *)recvbuf + rdispls[k], recvcounts[k],
                           recvtypes[k], comm);
    }
    free(sb);
    free(so);
    free(rb);
    free(ro);
    free(sp);
    free(rp);
    return rc;
}

/* The prepared call as nhood's arguments. */
static nh_coll call_args(const call *c, nh_args *a)
{
    static const nh_coll colls[] = {[C_ALLTOALL] = NH_COLL_ALLTOALL,
                                    [C_ALLGATHER] = NH_COLL_ALLGATHER,
                                    [C_ALLTOALLV] = NH_COLL_ALLTOALLV,
                                    [C_ALLGATHERV] = NH_COLL_ALLGATHERV,
                                    [C_ALLTOALLW] = NH_COLL_ALLTOALLW};
    *a = (nh_args){.sbuf = c->sbuf,
                   .rbuf = c->rbuf,
                   .scount = c->scount,
                   .rcount = c->rcount,
                   .stype = c->stype,
                   .rtype = c->rtype,
                   .scounts = c->scounts,
                   .rcounts = c->rcounts,
                   .sdispls = c->sdispls,
                   .rdispls = c->rdispls,
                   .sdisplsw = c->sdisplsa,
                   .rdisplsw = c->rdisplsa,
                   .stypes = c->stypes,
                   .rtypes = c->rtypes};
    return colls[c->kind];
}

/* Where nhood hands the call to MPI. */
NH_HOT static int call_mpi(const call *c)
{
    switch (c->kind) {
    case C_ALLTOALL:
        return nh_mpi_Neighbor_alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                        c->comm);
    case C_ALLGATHER:
        return nh_mpi_Neighbor_allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                         c->comm);
    case C_ALLTOALLV:
        return nh_mpi_Neighbor_alltoallv(c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf,
                                         c->rcounts, c->rdispls, c->rtype, c->comm);
    case C_ALLGATHERV:
        return nh_mpi_Neighbor_allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->rcounts,
                                          c->rdispls, c->rtype, c->comm);
    case C_ALLTOALLW:
        return alltoallw_packed(c->sbuf, c->scounts, c->sdisplsa, c->stypes, c->rbuf, c->rcounts,
                                c->rdisplsa, c->rtypes, c->comm, c->indeg, c->outdeg);
    }
    return MPI_ERR_INTERN;
}

/* Runs the call (form blocking), or makes nhood's persistent request for
 * it (*req); NH_TO_PMPI where nhood does not run it. */
NH_HOT static int call_nhood(const call *c, nh_form form, MPI_Request *req)
{
    nh_args a;
    nh_coll coll = call_args(c, &a);
    return nh_neighbor(coll, form, &a, c->comm, req);
}

NH_HOT static int call_run(const call *c)
{
    int rc = call_nhood(c, NH_FORM_BLOCKING, NULL);
    return rc != NH_TO_PMPI ? rc : call_mpi(c);
}

static int to_int(const char *fn, long long v, int *out)
{
    if (v < INT_MIN || v > INT_MAX) {
        nh_error("%s: displacement %lld does not fit the MPI call's int", fn, v);
        return MPI_ERR_ARG;
    }
    *out = (int)v;
    return MPI_SUCCESS;
}

/* Which of the user's arrays are given (NULL: the regular form). */
typedef struct uargs {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
} uargs;

/* c: the graph call for the user's (Iso) call, its arrays its own. */
static int prepare(const char *fn, nh_iso *I, MPI_Comm comm, call_kind user, const uargs *a,
                   call *c)
{
    int rc = MPI_SUCCESS;
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    c->indeg = I->indeg;
    c->outdeg = I->outdeg;
    c->sbuf = a->sbuf;
    c->rbuf = a->rbuf;
    c->scount = a->scount;
    c->rcount = a->rcount;
    c->stype = a->stype;
    c->rtype = a->rtype;
    if (a->sbuf == MPI_IN_PLACE) {
        nh_error("%s: MPI_IN_PLACE is not applicable", fn);
        return MPI_ERR_BUFFER;
    }
    if ((user == C_ALLTOALL || user == C_ALLGATHER) && !I->nulls) {
        c->kind = user;
        return MPI_SUCCESS;
    }
    int no = I->outdeg, ni = I->indeg;
    /* Receive side: v (extents) unless per-block types are given (w). */
    int w = a->rtypes != NULL || a->stypes != NULL;
    if (!ALLOC(c->rcounts, ni))
        return MPI_ERR_NO_MEM;
    if (w ? !ALLOC(c->rdisplsa, ni) || !ALLOC(c->rtypes, ni) : !ALLOC(c->rdispls, ni))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < ni && !rc; k++) {
        int i = I->sidx[k];
        long long disp = a->rcounts ? (long long)a->rdispls[i] : (long long)i * a->rcount;
        c->rcounts[k] = a->rcounts ? a->rcounts[i] : a->rcount;
        if (w) {
            c->rdisplsa[k] = (MPI_Aint)disp;
            c->rtypes[k] = a->rtypes ? a->rtypes[i] : a->rtype;
        } else {
            rc = to_int(fn, disp, &c->rdispls[k]);
        }
    }
    if (rc)
        return rc;
    if (user == C_ALLGATHER || (user == C_ALLGATHERV && !w)) {
        c->kind = C_ALLGATHERV;
        return MPI_SUCCESS;
    }
    /* Send side (all-to-all forms, and allgatherw as an all-to-all of the
     * same block). */
    int gather = user == C_ALLGATHERV;
    if (!ALLOC(c->scounts, no))
        return MPI_ERR_NO_MEM;
    if (w ? !ALLOC(c->sdisplsa, no) || !ALLOC(c->stypes, no) : !ALLOC(c->sdispls, no))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < no && !rc; k++) {
        int i = I->tidx[k];
        long long disp = gather       ? 0
                         : a->scounts ? (long long)a->sdispls[i]
                                      : (long long)i * a->scount;
        c->scounts[k] = a->scounts ? a->scounts[i] : a->scount;
        if (w) {
            c->sdisplsa[k] = (MPI_Aint)disp;
            c->stypes[k] = a->stypes ? a->stypes[i] : a->stype;
        } else {
            rc = to_int(fn, disp, &c->sdispls[k]);
        }
    }
    c->kind = w ? C_ALLTOALLW : C_ALLTOALLV;
    return rc;
}

/* Checks the arrays a form needs. */
NH_HOT static int args_ok(const char *fn, call_kind user, const uargs *a, int w)
{
    int v = user == C_ALLTOALLV || user == C_ALLTOALLW || user == C_ALLGATHERV;
    if (v && (!a->rcounts || !a->rdispls || (w && !a->rtypes))) {
        nh_error("%s: NULL receive arrays", fn);
        return MPI_ERR_ARG;
    }
    if ((user == C_ALLTOALLV || user == C_ALLTOALLW) &&
        (!a->scounts || !a->sdispls || (w && !a->stypes))) {
        nh_error("%s: NULL send arrays", fn);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* A blocking call whose graph call takes the user's own arguments: every
 * neighbor present (block k is offset k), in the regular forms and w
 * (whose displacements are bytes on both).  nhood's, else MPI's. */
NH_HOT static int as_given(MPI_Comm comm, call_kind user, const uargs *a)
{
    nh_args x = {.sbuf = a->sbuf,
                 .rbuf = a->rbuf,
                 .scount = a->scount,
                 .rcount = a->rcount,
                 .stype = a->stype,
                 .rtype = a->rtype,
                 .scounts = a->scounts,
                 .rcounts = a->rcounts,
                 .sdisplsw = a->sdispls,
                 .rdisplsw = a->rdispls,
                 .stypes = a->stypes,
                 .rtypes = a->rtypes};
    nh_coll coll = user == C_ALLTOALL    ? NH_COLL_ALLTOALL
                   : user == C_ALLGATHER ? NH_COLL_ALLGATHER
                                         : NH_COLL_ALLTOALLW;
    int rc = nh_neighbor(coll, NH_FORM_BLOCKING, &x, comm, NULL);
    if (rc != NH_TO_PMPI)
        return rc;
    if (user == C_ALLTOALL)
        return nh_mpi_Neighbor_alltoall(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                                        comm);
    if (user == C_ALLGATHER)
        return nh_mpi_Neighbor_allgather(a->sbuf, a->scount, a->stype, a->rbuf, a->rcount, a->rtype,
                                         comm);
    /* (in- and out-degree equal: alltoallw_packed would pass it as is) */
    return nh_mpi_Neighbor_alltoallw(a->sbuf, a->scounts, a->sdispls, a->stypes, a->rbuf,
                                     a->rcounts, a->rdispls, a->rtypes, comm);
}

NH_HOT static int blocking(const char *fn, MPI_Comm comm, call_kind user, int w, const uargs *a)
{
    int g0 = nh_guard_enter(), rc;
    call c; /* (prepare fills it) */
    nh_iso *I = nh_iso_get(comm, fn);
    if (!I) {
        rc = MPI_ERR_TOPOLOGY;
    } else if (!(rc = args_ok(fn, user, a, w))) {
        int ran;
        if (!I->nulls && a->sbuf != MPI_IN_PLACE &&
            (user == C_ALLTOALL || user == C_ALLGATHER || user == C_ALLTOALLW)) {
            ran = 1; /* (the errors of both went through the error handler already) */
            rc = as_given(comm, user, a);
        } else if ((ran = !(rc = prepare(fn, I, comm, user, a, &c)))) {
            rc = call_run(&c);
            call_free(&c);
        }
        if (ran) {
            nh_guard_leave(g0);
            return rc;
        }
    }
    nh_guard_leave(g0);
    return nh_iso_fail(comm, rc);
}

NH_EXPORT NH_HOT int Iso_neighbor_alltoall(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype, MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return blocking("Iso_neighbor_alltoall", isocomm, C_ALLTOALL, 0, &a);
}

NH_EXPORT NH_HOT int Iso_neighbor_allgather(const void *sendbuf, int sendcount,
                                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                            MPI_Datatype recvtype, MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return blocking("Iso_neighbor_allgather", isocomm, C_ALLGATHER, 0, &a);
}

NH_EXPORT NH_HOT int Iso_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                            const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const int recvcounts[],
                                            const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                            MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .stype = sendtype,
               .rtype = recvtype,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls};
    return blocking("Iso_neighbor_alltoallv", isocomm, C_ALLTOALLV, 0, &a);
}

NH_EXPORT NH_HOT int Iso_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                            const MPI_Aint senddispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf,
                                            const int recvcounts[], const MPI_Aint recvdispls[],
                                            const MPI_Datatype recvtypes[], MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls,
               .stypes = sendtypes,
               .rtypes = recvtypes};
    return blocking("Iso_neighbor_alltoallw", isocomm, C_ALLTOALLW, 1, &a);
}

NH_EXPORT NH_HOT int Iso_neighbor_allgatherv(const void *sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const int recvcounts[], const MPI_Aint recvdispls[],
                                             MPI_Datatype recvtype, MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rtype = recvtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls};
    return blocking("Iso_neighbor_allgatherv", isocomm, C_ALLGATHERV, 0, &a);
}

NH_EXPORT NH_HOT int Iso_neighbor_allgatherw(const void *sendbuf, int sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const int recvcounts[], const MPI_Aint recvdispls[],
                                             const MPI_Datatype recvtypes[], MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls,
               .rtypes = recvtypes};
    return blocking("Iso_neighbor_allgatherw", isocomm, C_ALLGATHERV, 1, &a);
}

/* ---- persistent forms ---- */

struct Iso_request_s {
    int mpi;         /* req is a persistent request (nhood's, or MPI's) */
    MPI_Request req; /* mpi */
    call c;          /* otherwise: the prepared call, run by every Iso_start */
};

static int persistent(const char *fn, MPI_Comm comm, call_kind user, int w, const uargs *a,
                      Iso_request *request)
{
    int g0 = nh_guard_enter(), rc;
    struct Iso_request_s *r = NULL;
    nh_iso *I = nh_iso_get(comm, fn);
    if (!I) {
        rc = MPI_ERR_TOPOLOGY;
        goto out;
    }
    if (!request) {
        nh_error("%s: request is NULL", fn);
        rc = MPI_ERR_REQUEST;
        goto out;
    }
    if ((rc = args_ok(fn, user, a, w)))
        goto out;
    if (!(r = calloc(1, sizeof(*r)))) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if ((rc = prepare(fn, I, comm, user, a, &r->c)))
        goto out;
    /* Every form binds once: nhood's persistent request (schedule, struct
     * datatypes or pack buffers, persistent point-to-point requests),
     * started by Iso_start and completed by Iso_wait.  Where nhood does
     * not run the call (NHOOD_DISABLE, algorithm pmpi, a graph it does not
     * run), each Iso_start makes the blocking call. */
    rc = call_nhood(&r->c, NH_FORM_PERSISTENT, &r->req);
    if (rc == NH_TO_PMPI)
        rc = MPI_SUCCESS;
    else if (rc)
        goto out;
    else
        r->mpi = 1;
    *request = r;
    r = NULL;
out:
    if (r) {
        call_free(&r->c);
        free(r);
    }
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(comm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Iso_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return persistent("Iso_neighbor_alltoall_init", isocomm, C_ALLTOALL, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                          MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return persistent("Iso_neighbor_allgather_init", isocomm, C_ALLGATHER, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                          const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                          void *recvbuf, const int recvcounts[],
                                          const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                          MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .stype = sendtype,
               .rtype = recvtype,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls};
    return persistent("Iso_neighbor_alltoallv_init", isocomm, C_ALLTOALLV, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const int recvcounts[], const MPI_Aint recvdispls[],
                                           MPI_Datatype recvtype, MPI_Comm isocomm,
                                           Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rtype = recvtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls};
    return persistent("Iso_neighbor_allgatherv_init", isocomm, C_ALLGATHERV, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                          const MPI_Aint senddispls[],
                                          const MPI_Datatype sendtypes[], void *recvbuf,
                                          const int recvcounts[], const MPI_Aint recvdispls[],
                                          const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                          Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls,
               .stypes = sendtypes,
               .rtypes = recvtypes};
    return persistent("Iso_neighbor_alltoallw_init", isocomm, C_ALLTOALLW, 1, &a, request);
}

NH_EXPORT int Iso_neighbor_allgatherw_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const int recvcounts[], const MPI_Aint recvdispls[],
                                           const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                           Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls,
               .rtypes = recvtypes};
    return persistent("Iso_neighbor_allgatherw_init", isocomm, C_ALLGATHERV, 1, &a, request);
}

NH_EXPORT int Iso_start(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc;
    if (!request || !*request) {
        nh_error("Iso_start: no request");
        rc = MPI_ERR_REQUEST;
    } else if ((*request)->mpi) {
        rc = nh_impl_MPI_Start(&(*request)->req);
    } else {
        rc = call_run(&(*request)->c);
    }
    nh_guard_leave(g0);
    return rc;
}

NH_EXPORT int Iso_wait(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    if (!request || !*request) {
        nh_error("Iso_wait: no request");
        rc = MPI_ERR_REQUEST;
    } else if ((*request)->mpi) {
        rc = nh_impl_MPI_Wait(&(*request)->req, MPI_STATUS_IGNORE);
    }
    nh_guard_leave(g0);
    return rc;
}

NH_EXPORT int Iso_request_free(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    if (!request || !*request) {
        nh_error("Iso_request_free: no request");
        rc = MPI_ERR_REQUEST;
    } else {
        if ((*request)->mpi)
            rc = nh_impl_MPI_Request_free(&(*request)->req);
        call_free(&(*request)->c);
        free(*request);
        *request = NULL;
    }
    nh_guard_leave(g0);
    return rc;
}
