/* Executor of the sparse-reduction schedules (src/core/reduce.h) for
 * Iso_neighbor_reduce and Iso_neighbor_scatter_reduce.
 *
 * Accumulators are temp blocks of count x datatype laid out by extent.
 * Per step: every message is posted at once (receives into a temp area,
 * sends straight from the user's blocks and the accumulators, several
 * blocks as one struct datatype at MPI_BOTTOM), then the received blocks
 * and the local contributions are reduced with MPI_Reduce_local.  The first
 * contribution to an accumulator is copied (an MPI_Op has no identity).
 * Traffic goes over a private duplicate of the communicator, message i of
 * the schedule with tag i; each call completes all its messages, so
 * consecutive calls cannot cross. */
#include <stdlib.h>
#include <string.h>

#include "iso/iso.h"
#include "util/copy.h"

typedef struct rctx {
    const nh_iso *I;
    int scatter;
    const void *sendbuf;
    const int *sendcount;
    const MPI_Aint *senddisp;
    const MPI_Datatype *sendtype;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Aint blk, span, tlb; /* stride between blocks, bytes of one block, true lb */
    char *acc;               /* accumulator k at acc + k*blk */
    int *valid;
    char *scratch; /* one block: a leaf in count x datatype form */
    char *pack;
    int packsize;
    MPI_Comm comm;
} rctx;

static char *acc_at(const rctx *c, int k)
{
    return c->acc + (MPI_Aint)k * c->blk;
}

/* Where a node lives, as (address, count, type). */
static void node_block(const rctx *c, int node, const void **addr, int *count, MPI_Datatype *type)
{
    if (!NH_RIS_LEAF(node)) {
        *addr = acc_at(c, node);
        *count = c->count;
        *type = c->type;
    } else if (c->scatter) {
        int i = NH_RLEAF_IDX(node);
        *addr = (const char *)c->sendbuf + c->senddisp[i];
        *count = c->sendcount[i];
        *type = c->sendtype[i];
    } else {
        *addr = c->sendbuf;
        *count = c->count;
        *type = c->type;
    }
}

static int reduce_into(rctx *c, int k, const char *src)
{
    if (!c->valid[k]) {
        nh_copy(acc_at(c, k) + c->tlb, src + c->tlb, (size_t)c->span);
        c->valid[k] = 1;
        return MPI_SUCCESS;
    }
    return nh_mpi_Reduce_local(src, acc_at(c, k), c->count, c->type, c->op);
}

/* A block of another type signature-equal to count x datatype, copied
 * into the form of dst (count x datatype). */
static int typed_copy(rctx *c, const void *src, int scount, MPI_Datatype stype, void *dst)
{
    int pos = 0, rc = nh_pack(src, scount, stype, c->pack, c->packsize, &pos, c->comm);
    int size = pos;
    pos = 0;
    return rc ? rc : nh_unpack(c->pack, size, &pos, dst, c->count, c->type, c->comm);
}

static int send_node_list(rctx *c, const nh_rmsg *m, int tag, MPI_Request *req, MPI_Datatype *made)
{
    const void *addr;
    int count, rc;
    MPI_Datatype type;
    *made = MPI_DATATYPE_NULL;
    if (m->nsend == 1) {
        node_block(c, m->send[0], &addr, &count, &type);
        return nh_isend(addr, count, type, m->sendpeer, tag, c->I->pcomm, req);
    }
    int *lens = malloc(sizeof(int) * (size_t)m->nsend);
    MPI_Aint *disps = malloc(sizeof(MPI_Aint) * (size_t)m->nsend);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)m->nsend);
    rc = lens && disps && types ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int b = 0; b < m->nsend && !rc; b++) {
        node_block(c, m->send[b], &addr, &lens[b], &types[b]);
        rc = nh_mpi_Get_address(addr, &disps[b]);
    }
    if (!rc)
        rc = nh_type_create_struct(m->nsend, lens, disps, types, made);
    if (!rc && (rc = nh_isend(MPI_BOTTOM, 1, *made, m->sendpeer, tag, c->I->pcomm, req))) {
        nh_type_free(made);
        *made = MPI_DATATYPE_NULL;
    }
    free(lens);
    free(disps);
    free(types);
    return rc;
}

/* failed: an earlier step's local reduction failed on this rank; the
 * messages still go (the peers wait for them), the reductions do not. */
static int run_step(rctx *c, const nh_rstep *st, char *rarea, int failed)
{
    int rc = MPI_SUCCESS, nreq = 0, nmade = 0;
    MPI_Request *req = malloc(sizeof(MPI_Request) * (2 * (size_t)st->nmsg + 1));
    MPI_Datatype *made = malloc(sizeof(MPI_Datatype) * ((size_t)st->nmsg + 1));
    int *first = malloc(sizeof(int) * ((size_t)st->nmsg + 1));
    if (!req || !made || !first) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    int pos = 0;
    for (int m = 0; m < st->nmsg && !rc; m++) {
        const nh_rmsg *mg = &st->msg[m];
        first[m] = pos;
        if (mg->nrecv == 0)
            continue;
        rc = nh_irecv(rarea + (MPI_Aint)pos * c->blk, mg->nrecv * c->count, c->type, mg->recvpeer,
                      st->first_tag + m, c->I->pcomm, &req[nreq]);
        if (!rc)
            nreq++;
        pos += mg->nrecv;
    }
    for (int m = 0; m < st->nmsg && !rc; m++) {
        const nh_rmsg *mg = &st->msg[m];
        if (mg->nsend == 0)
            continue;
        rc = send_node_list(c, mg, st->first_tag + m, &req[nreq], &made[nmade]);
        if (!rc) {
            nreq++;
            if (made[nmade] != MPI_DATATYPE_NULL)
                nmade++;
        }
    }
    /* Posted requests always complete (also after an error above: the
     * peers post the matching calls). */
    int wrc = nh_waitall(nreq, req, MPI_STATUSES_IGNORE);
    rc = rc ? rc : wrc;
    for (int k = 0; k < nmade; k++)
        nh_type_free(&made[k]);
    for (int m = 0; m < st->nmsg && !rc && !failed; m++) {
        const nh_rmsg *mg = &st->msg[m];
        for (int x = 0; x < mg->nred && !rc; x++)
            rc = reduce_into(c, mg->red_acc[x],
                             rarea + (MPI_Aint)(first[m] + mg->red_blk[x]) * c->blk);
    }
    for (int x = 0; x < st->nlocal && !rc && !failed; x++) {
        int node = st->local[x].src;
        if (NH_RIS_LEAF(node)) {
            const void *addr;
            int count;
            MPI_Datatype type;
            node_block(c, node, &addr, &count, &type);
            rc = typed_copy(c, addr, count, type, c->scratch);
            if (!rc)
                rc = reduce_into(c, st->local[x].acc, c->scratch);
        } else {
            rc = reduce_into(c, st->local[x].acc, acc_at(c, node));
        }
    }
out:
    free(req);
    free(made);
    free(first);
    return rc;
}

/* n blocks laid out by extent, shifted so that block 0 starts at the
 * returned pointer's true lb. */
static char *blocks_alloc(const rctx *c, int n, char **raw)
{
    size_t size = (size_t)(c->span + (MPI_Aint)(n > 0 ? n - 1 : 0) * c->blk);
    *raw = malloc(size + 1);
    return *raw ? *raw - c->tlb : NULL;
}

/* The reduction schedule for blocks of m bytes: NHOOD_ISO_REDUCE, or
 * (auto) the cheaper by nhood's cost model for an interior rank; m is the
 * same on every rank (count x datatype must match), so is the choice.
 * Returns -1 when out of memory. */
static int red_algo(nh_iso *I, int scatter, size_t m, nh_red_algo *out)
{
    if (I->red != NH_RED_COUNT) {
        *out = I->red;
        return 0;
    }
    /* phases * alpha + messages * o + bytes * beta on an interior rank */
    double best = 0;
    for (int a = 0; a < NH_RED_COUNT; a++) {
        if (I->tmpl[scatter][a].msgs < 0) {
            nh_grid torus = I->g;
            nh_rsched *rs;
            for (int j = 0; j < torus.ndims; j++)
                torus.periods[j] = 1;
            if (nh_rsched_build(&torus, 0, I->s, I->off, scatter, (nh_red_algo)a, &rs))
                return -1;
            I->tmpl[scatter][a].msgs = rs->msgs;
            I->tmpl[scatter][a].blocks = rs->blocks;
            I->tmpl[scatter][a].steps = rs->nsteps;
            nh_rsched_free(rs);
        }
        /* steps phases sharing the messages and bytes alike (core/model.h) */
        double cost = nh_cost_exchange(&nh_cfg.cost, I->tmpl[scatter][a].steps,
                                       I->tmpl[scatter][a].msgs, I->tmpl[scatter][a].msgs,
                                       (double)I->tmpl[scatter][a].blocks * (double)m);
        if (a == 0 || cost < best) {
            best = cost;
            *out = (nh_red_algo)a;
        }
    }
    return 0;
}

int nh_iso_reduce_run(nh_iso *I, MPI_Comm comm, int scatter, const void *sendbuf,
                      const int *sendcount, const MPI_Aint *senddisp, const MPI_Datatype *sendtype,
                      void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op)
{
    nh_red_algo algo;
    int rc, size;
    MPI_Aint lb, ext, tlb, text;
    if ((rc = nh_mpi_Type_get_extent(datatype, &lb, &ext)) ||
        (rc = nh_mpi_Type_get_true_extent(datatype, &tlb, &text)) ||
        (rc = nh_mpi_Type_size(datatype, &size)))
        return rc;
    if (red_algo(I, scatter, (size_t)size * (size_t)count, &algo))
        return MPI_ERR_NO_MEM;
    if (ext <= 0 && count > 1) {
        nh_error("Iso_neighbor_[scatter_]reduce: datatype with extent %ld", (long)ext);
        return MPI_ERR_TYPE;
    }
    if (!I->rs[scatter][algo] &&
        nh_rsched_build(&I->g, I->rank, I->s, I->off, scatter, algo, &I->rs[scatter][algo]))
        return MPI_ERR_NO_MEM;
    /* Collective: every rank makes its first reduction call together. */
    if (I->pcomm == MPI_COMM_NULL && (rc = nh_comm_dup(comm, &I->pcomm)))
        return rc;
    if (count == 0)
        return MPI_SUCCESS;
    const nh_rsched *rs = I->rs[scatter][algo];
    rctx c = {.I = I,
              .scatter = scatter,
              .sendbuf = sendbuf,
              .sendcount = sendcount,
              .senddisp = senddisp,
              .sendtype = sendtype,
              .count = count,
              .type = datatype,
              .op = op,
              .blk = ext * count,
              .span = text + (MPI_Aint)(count - 1) * ext,
              .tlb = tlb,
              .comm = comm};
    char *acc_raw = NULL, *recv_raw = NULL, *scratch_raw = NULL, *rarea;
    c.acc = blocks_alloc(&c, rs->nacc, &acc_raw);
    rarea = blocks_alloc(&c, rs->maxrecv, &recv_raw);
    c.scratch = blocks_alloc(&c, 1, &scratch_raw);
    c.valid = calloc((size_t)rs->nacc + 1, sizeof(int));
    rc = nh_mpi_Pack_size(count, datatype, comm, &c.packsize);
    if (!rc &&
        (!c.acc || !rarea || !c.scratch || !c.valid || !(c.pack = malloc((size_t)c.packsize + 1))))
        rc = MPI_ERR_NO_MEM;
    /* Once the buffers exist every step runs, whatever fails locally, so
     * that no peer waits forever for this rank's messages. */
    for (int k = 0, ready = rc == MPI_SUCCESS; k < rs->nsteps && ready; k++) {
        int r = run_step(&c, &rs->steps[k], rarea, rc != MPI_SUCCESS);
        rc = rc ? rc : r;
    }
    if (!rc && c.valid[rs->root])
        rc = typed_copy(&c, acc_at(&c, rs->root), count, datatype, recvbuf);
    free(acc_raw);
    free(recv_raw);
    free(scratch_raw);
    free(c.valid);
    free(c.pack);
    return rc;
}
