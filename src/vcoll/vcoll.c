/* Entry points of MPI_Neighbor_alltoallv / alltoallw / allgatherv, the
 * choice of algorithm and executor, and NHOOD_CHECK.
 *
 * The choice must be the same on every rank without communication.  Block
 * sizes may differ per rank, per neighbor and per call, so without a
 * promise only size-independent data decide: the configuration and the
 * plan.  `auto` is then `direct` (zero-copy, always legal: every block
 * goes straight to its final receiver, which describes it itself); a
 * forced `torus`/`torus_direct` runs with size headers.  With the
 * isomorphic=true hint every process uses the same block size per
 * template entry (the paper's assumption), so the mean block size is the
 * same everywhere: `auto` picks by the cost model, and forwarding
 * schedules run zero-copy with blocks in transit described by the
 * intermediate's own arguments.  That needs every rank to have every
 * template entry (no mesh boundary); otherwise the header executor runs.
 * NHOOD_CHECK=1 verifies the promise on every call (two reductions). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vcoll.h"
#include "exec/stfw_exec.h"

/* Every rank holds every template entry: each dimension that offsets can
 * leave is periodic (size 1 dimensions have nothing to leave). */
static int full_template(const nh_plan *p)
{
    for (int j = 0; j < p->nb.g.ndims; j++)
        if (p->nb.g.dims[j] > 1 && !p->nb.g.periods[j])
            return 0;
    return 1;
}

static int type_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    return PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
}

/* Fills a block; returns -1 for arguments nhood leaves to MPI (negative
 * counts, invalid types), so MPI reports them. */
/* Facts about the type of the previous block (w calls mostly repeat one type). */
typedef struct tmemo {
    MPI_Datatype type;
    int valid, size, contig, named;
} tmemo;

static int desc_init(nh_vdesc *d, const void *buf, MPI_Aint disp, int count, MPI_Datatype type,
                     tmemo *m)
{
    if (count < 0 || type == MPI_DATATYPE_NULL)
        return -1;
    if (!m->valid || m->type != type) {
        MPI_Aint lb, ext;
        if (PMPI_Type_size(type, &m->size) || PMPI_Type_get_extent(type, &lb, &ext))
            return -1;
        m->type = type;
        m->valid = 1;
        m->named = type_named(type);
        m->contig = lb == 0 && ext == m->size && m->named;
    }
    d->addr = (char *)buf + disp;
    d->count = count;
    d->type = type;
    d->bytes = (size_t)m->size * (size_t)count;
    d->contig = m->contig;
    return 0;
}

typedef struct vargs {
    const void *sbuf;
    const int *scounts, *sdispls; /* allgatherv: scount in scounts[0] */
    const MPI_Datatype *stypes;   /* w: per block; else stypes[0] */
    void *rbuf;
    const int *rcounts, *rdispls;
    const MPI_Datatype *rtypes;
    const MPI_Aint *sdispls_w, *rdispls_w; /* w: byte displacements */
} vargs;

/* The call's blocks; returns 0, -1 (to PMPI) or an MPI error. */
static int call_init(nh_plan *p, nh_vop vop, const vargs *a, nh_vcall *c)
{
    int w = vop == NH_VOP_ALLTOALLW;
    MPI_Aint lb, sext = 1, rext = 1;
    c->vop = vop;
    c->op = vop == NH_VOP_ALLGATHERV ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    c->ns = vop == NH_VOP_ALLGATHERV ? 1 : p->outdeg;
    c->nr = p->indeg;
    c->s = malloc(((size_t)c->ns + 1) * sizeof(nh_vdesc));
    c->r = malloc(((size_t)c->nr + 1) * sizeof(nh_vdesc));
    if (!c->s || !c->r)
        return MPI_ERR_NO_MEM;
    if (!w && ((c->ns > 0 && PMPI_Type_get_extent(a->stypes[0], &lb, &sext)) ||
               (c->nr > 0 && PMPI_Type_get_extent(a->rtypes[0], &lb, &rext))))
        return -1;
    c->named = 1;
    tmemo memo = {0};
    for (int i = 0; i < c->ns; i++) {
        MPI_Datatype t = a->stypes[w ? i : 0];
        MPI_Aint disp = vop == NH_VOP_ALLGATHERV ? 0
                        : w                      ? a->sdispls_w[i]
                                                 : (MPI_Aint)a->sdispls[i] * sext;
        if (desc_init(&c->s[i], a->sbuf, disp, a->scounts[i], t, &memo))
            return -1;
        c->named &= memo.named;
    }
    for (int j = 0; j < c->nr; j++) {
        MPI_Datatype t = a->rtypes[w ? j : 0];
        MPI_Aint disp = w ? a->rdispls_w[j] : (MPI_Aint)a->rdispls[j] * rext;
        if (desc_init(&c->r[j], a->rbuf, disp, a->rcounts[j], t, &memo))
            return -1;
        c->named &= memo.named;
    }
    return 0;
}

/* NHOOD_CHECK: the isomorphic=true promise is that every process uses the
 * same block size for each template entry (the same size per neighbor
 * index when all processes list their neighbors in one order).  One
 * reduction of [size, -size] per entry and direction with MPI_MAX gives
 * the largest and smallest size; a rank without that entry (mesh
 * boundary) contributes neutral values. */
static int check_promise(nh_plan *p, const nh_vcall *c, MPI_Comm comm)
{
    int s = p->nb.s, n = 4 * s, rc, rank;
    long *v = malloc(((size_t)n + 1) * sizeof(long)), *res = malloc(((size_t)n + 1) * sizeof(long));
    if (!v || !res) {
        free(v);
        free(res);
        return MPI_ERR_NO_MEM;
    }
    for (int t = 0; t < s; t++)
        for (int dir = 0; dir < 2; dir++) {
            int slot = dir ? p->nb.recv_slot[t] : p->nb.send_slot[t];
            const nh_vdesc *d = slot == NH_NONE            ? NULL
                                : dir                      ? &c->r[slot]
                                : c->op == NH_OP_ALLGATHER ? &c->s[0]
                                                           : &c->s[slot];
            v[4 * t + 2 * dir] = d ? (long)d->bytes : LONG_MIN;
            v[4 * t + 2 * dir + 1] = d ? -(long)d->bytes : LONG_MIN;
        }
    rc = PMPI_Allreduce(v, res, n, MPI_LONG, MPI_MAX, p->pcomm);
    if (!rc)
        rc = PMPI_Comm_rank(p->pcomm, &rank);
    int bad = -1, dir = 0;
    for (int t = 0; t < s && !rc && bad < 0; t++)
        for (dir = 0; dir < 2; dir++) {
            long hi = res[4 * t + 2 * dir], lo = -res[4 * t + 2 * dir + 1];
            if (hi != LONG_MIN && hi != lo) {
                bad = t;
                break;
            }
        }
    if (!rc && bad >= 0) {
        if (rank == 0) {
            char off[96];
            size_t k = 0;
            for (int j = 0; j < p->nb.g.ndims && k < sizeof(off); j++)
                k += (size_t)snprintf(off + k, sizeof(off) - k, "%s%d", j ? "," : "",
                                      p->nb.off[(size_t)bad * p->nb.g.ndims + j]);
            int idx = dir ? p->nb.recv_slot[bad] : p->nb.send_slot[bad];
            nh_error("NHOOD_CHECK: communicator %d, MPI_Neighbor_%s: the isomorphic=true hint "
                     "promises equal block sizes on every process, but %s neighbor index %d "
                     "(offset (%s)) has %ld to %ld bytes across processes",
                     p->id, nh_vop_name(c->vop), dir ? "source" : "destination",
                     c->op == NH_OP_ALLGATHER && !dir ? 0 : idx, off, -res[4 * bad + 2 * dir + 1],
                     res[4 * bad + 2 * dir]);
            fflush(stderr);
        }
        PMPI_Barrier(p->pcomm); /* the message is out before anyone aborts */
        PMPI_Abort(comm, MPI_ERR_ARG);
        rc = MPI_ERR_ARG;
    }
    free(v);
    free(res);
    return rc;
}

/* Mean block bytes over the template: identical on every rank under the
 * promise (and only used then). */
static size_t mean_block(const nh_plan *p, const nh_vcall *c)
{
    double sum = 0;
    int n = 0;
    for (int t = 0; t < p->nb.s; t++)
        if (p->nb.recv_slot[t] != NH_NONE) {
            sum += (double)c->r[p->nb.recv_slot[t]].bytes;
            n++;
        }
    return n ? (size_t)(sum / n) : 0;
}

/* The algorithm for a call; *header: use the header executor.  m is the
 * mean block size (used only on hinted plans). */
static int vselect(nh_plan *p, nh_vop vop, size_t m, nh_algo *algo, int *header)
{
    nh_op op = vop == NH_VOP_ALLGATHERV ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    nh_algo forced = nh_forced_algo(p, op);
    int zfwd = p->hinted && full_template(p);
    *algo = NH_ALGO_PMPI;
    *header = 0;
    if (forced == NH_ALGO_PMPI)
        return MPI_SUCCESS;
    if (!p->isomorphic)
        return nh_forced_not_isomorphic(p, forced, nh_vop_name(vop));
    if (forced != NH_ALGO_AUTO) {
        *algo = forced;
    } else {
        *algo = NH_ALGO_DIRECT;
        double best = -1;
        for (int a = NH_ALGO_DIRECT; zfwd && a < NH_ALGO_COUNT; a++) {
            const nh_sched *s = nh_plan_sched(p, op, (nh_algo)a);
            double cost = s ? nh_cost_of(s, NH_BIND_ZCOPY, m) : -1;
            if (s && (best < 0 || cost < best)) {
                best = cost;
                *algo = (nh_algo)a;
            }
        }
    }
    *header = *algo != NH_ALGO_DIRECT && !zfwd;
    return MPI_SUCCESS;
}

int nh_valgorithm_for(nh_plan *p, const char *op, int block_bytes, nh_algo *algo)
{
    nh_vop v;
    int header;
    if (strcmp(op, "alltoallv") == 0)
        v = NH_VOP_ALLTOALLV;
    else if (strcmp(op, "alltoallw") == 0)
        v = NH_VOP_ALLTOALLW;
    else if (strcmp(op, "allgatherv") == 0)
        v = NH_VOP_ALLGATHERV;
    else
        return -1;
    *algo = NH_ALGO_PMPI;
    if (p && vselect(p, v, block_bytes > 0 ? (size_t)block_bytes : 0, algo, &header))
        *algo = NH_ALGO_PMPI;
    return 0;
}

#define NH_TO_PMPI (-1)

static int vcoll(nh_vop vop, const vargs *a, MPI_Comm comm)
{
    nh_plan *p = nh_active ? nh_plan_get(comm) : NULL;
    nh_vcall c = {0};
    nh_algo algo;
    int header, rc;
    if (!p || a->sbuf == MPI_IN_PLACE)
        return NH_TO_PMPI;
    nh_req_progress();
    if ((rc = call_init(p, vop, a, &c)))
        goto out;
    if (p->isomorphic && p->hinted && nh_cfg.check && (rc = check_promise(p, &c, comm)))
        goto out;
    if ((rc = vselect(p, vop, p->hinted ? mean_block(p, &c) : 0, &algo, &header)))
        goto out;
    if (!p->v && !(p->v = calloc(1, sizeof(*p->v)))) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    nh_report_rec *rec = p->v->rec[vop];
    if (!rec)
        rec = p->v->rec[vop] = nh_report_rec_new(p, c.op, NH_FORM_BLOCKING, nh_vop_name(vop));
    if (rec)
        rec->calls[algo]++;
    if (algo == NH_ALGO_PMPI) {
        rc = NH_TO_PMPI;
        goto out;
    }
    const nh_sched *s = nh_plan_sched(p, c.op, algo);
    int zcopy = 0;
    if (!s)
        rc = MPI_ERR_NO_MEM;
    else if (header)
        rc = nh_vexec_header(p, s, &c);
    else
        rc = nh_vexec_zcopy(p, s, &c, &zcopy);
    if (rec) /* the header executor packs */
        rec->last_binding = zcopy ? NH_BIND_ZCOPY : NH_BIND_PACK;
out:
    free(c.s);
    free(c.r);
    if (rc > 0)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

int nh_impl_MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vargs a = {.sbuf = sendbuf,
               .scounts = sendcounts,
               .sdispls = sdispls,
               .stypes = &sendtype,
               .rbuf = recvbuf,
               .rcounts = recvcounts,
               .rdispls = rdispls,
               .rtypes = &recvtype};
    /* Irregular graphs: store-and-forward (exec/stfw_exec.c), if set up. */
    int rc = nh_stfw_try_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm);
    if (rc == NH_STFW_PASS)
        rc = vcoll(NH_VOP_ALLTOALLV, &a, comm);
    return rc != NH_TO_PMPI ? rc
                            : PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype,
                                                      recvbuf, recvcounts, rdispls, recvtype, comm);
}

int nh_valltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                  nh_alltoallw_fn to_mpi)
{
    vargs a = {.sbuf = sendbuf,
               .scounts = sendcounts,
               .sdispls_w = sdispls,
               .stypes = sendtypes,
               .rbuf = recvbuf,
               .rcounts = recvcounts,
               .rdispls_w = rdispls,
               .rtypes = recvtypes};
    int rc = vcoll(NH_VOP_ALLTOALLW, &a, comm);
    return rc != NH_TO_PMPI ? rc
                            : to_mpi(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                     rdispls, recvtypes, comm);
}

int nh_impl_MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return nh_valltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, PMPI_Neighbor_alltoallw);
}

int nh_impl_MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    vargs a = {.sbuf = sendbuf,
               .scounts = &sendcount,
               .stypes = &sendtype,
               .rbuf = recvbuf,
               .rcounts = recvcounts,
               .rdispls = displs,
               .rtypes = &recvtype};
    int rc = nh_stfw_try_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
    if (rc == NH_STFW_PASS)
        rc = vcoll(NH_VOP_ALLGATHERV, &a, comm);
    return rc != NH_TO_PMPI ? rc
                            : PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                                                       recvcounts, displs, recvtype, comm);
}
