/* Running a schedule on user buffers.
 *
 * A binding attaches a schedule to one call's buffers, counts and types.
 * Two kinds:
 *  - pack: a multi-block message is gathered into a contiguous buffer
 *    (memcpy for contiguous types, MPI_Pack otherwise) and sent as
 *    MPI_PACKED; temp slots hold packed bytes.
 *  - zcopy: a multi-block message is described by an MPI struct datatype
 *    over absolute addresses of the send, receive and temp blocks (the
 *    paper's Algorithm 1), so nhood copies no bytes itself; temp slots are
 *    laid out like receive blocks.
 * A single-block message is sent straight from, or received straight into,
 * its block with the user's count and type under both kinds.  Both kinds
 * put the same bytes on the wire (any message may be received as
 * MPI_PACKED and a packed one with any matching type), so ranks may bind
 * differently.
 *
 * Bindings of calls whose types are predefined are cached per plan, keyed
 * by buffers, counts and types: a cached binding is only ever reused for
 * the same addresses.  Derived types are bound per call, because a freed
 * and recreated type can come back with the same handle. */
#include <stdlib.h>
#include <string.h>

#include "nh.h"

#define NH_BIND_CACHE 8

struct nh_bind {
    nh_bind *next;
    const nh_sched *s;
    nh_binding kind;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Aint sext, rext, rtlb;
    size_t m;  /* bytes per receive or temp block */
    size_t ms; /* bytes per send block (differs from m only without coupling, see select.c) */
    int scontig, rcontig;
    char *temp;
    size_t tstride;
    MPI_Datatype *stypes, *rtypes; /* zcopy: per round */
    char *msg;                     /* pack: per-round message buffers */
    size_t *soff, *roff;
    MPI_Request *reqs;
    MPI_Status *stats; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    char *scratch; /* one packed block, for local copies */
};

/* Contiguous means the packed form is the memory image: a predefined type
 * with no gaps, or contiguous/dup of one.  Other derived types may permute
 * bytes even when they have no holes. */
static int type_contig(MPI_Datatype t)
{
    int ni, na, nd, comb, size;
    MPI_Aint lb, ext, tlb, text;
    if (PMPI_Type_size(t, &size) || PMPI_Type_get_extent(t, &lb, &ext) ||
        PMPI_Type_get_true_extent(t, &tlb, &text))
        return 0;
    if (lb != 0 || tlb != 0 || ext != size || text != size)
        return 0;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb))
        return 0;
    if (comb == MPI_COMBINER_NAMED)
        return 1;
    if ((comb != MPI_COMBINER_CONTIGUOUS && comb != MPI_COMBINER_DUP) || nd != 1 || ni > 1)
        return 0;
    int ints[1];
    MPI_Aint a[1];
    MPI_Datatype inner;
    if (PMPI_Type_get_contents(t, ni, na, nd, ints, a, &inner))
        return 0;
    int r = type_contig(inner);
    int ic;
    if (PMPI_Type_get_envelope(inner, &ni, &na, &nd, &ic) == MPI_SUCCESS && ic != MPI_COMBINER_NAMED)
        PMPI_Type_free(&inner);
    return r;
}

static int type_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    return PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb == MPI_COMBINER_NAMED;
}

static char *blk_addr(const nh_bind *b, nh_blk k)
{
    switch (k.buf) {
    case NH_BUF_SEND:
        return (char *)b->sbuf + (MPI_Aint)k.slot * b->scount * b->sext;
    case NH_BUF_RECV:
        return (char *)b->rbuf + (MPI_Aint)k.slot * b->rcount * b->rext;
    default:
        return b->temp + (size_t)k.slot * b->tstride - (b->kind == NH_BIND_ZCOPY ? b->rtlb : 0);
    }
}

/* The (count, type) a block is described by where it lives. */
static void blk_type(const nh_bind *b, nh_blk k, int *count, MPI_Datatype *type)
{
    if (k.buf == NH_BUF_SEND) {
        *count = b->scount;
        *type = b->stype;
    } else if (k.buf == NH_BUF_RECV || b->kind == NH_BIND_ZCOPY) {
        *count = b->rcount;
        *type = b->rtype;
    } else {
        *count = (int)b->m;
        *type = MPI_PACKED;
    }
}

static size_t blk_bytes(const nh_bind *b, nh_blk k)
{
    return k.buf == NH_BUF_SEND ? b->ms : b->m;
}

static int blk_contig(const nh_bind *b, nh_blk k)
{
    if (k.buf == NH_BUF_SEND)
        return b->scontig;
    if (k.buf == NH_BUF_RECV || b->kind == NH_BIND_ZCOPY)
        return b->rcontig;
    return 1;
}

static int pack_blk(const nh_bind *b, nh_blk k, char *out, MPI_Comm comm)
{
    size_t n = blk_bytes(b, k);
    if (blk_contig(b, k)) {
        memcpy(out, blk_addr(b, k), n);
        return MPI_SUCCESS;
    }
    int count, pos = 0;
    MPI_Datatype type;
    blk_type(b, k, &count, &type);
    int rc = PMPI_Pack(blk_addr(b, k), count, type, out, (int)n, &pos, comm);
    return rc ? rc : (pos == (int)n ? MPI_SUCCESS : MPI_ERR_INTERN);
}

static int unpack_blk(const nh_bind *b, nh_blk k, const char *in, MPI_Comm comm)
{
    if (blk_contig(b, k)) {
        memcpy(blk_addr(b, k), in, b->m);
        return MPI_SUCCESS;
    }
    int count, pos = 0;
    MPI_Datatype type;
    blk_type(b, k, &count, &type);
    return PMPI_Unpack(in, (int)b->m, &pos, blk_addr(b, k), count, type, comm);
}

static int build_struct(const nh_bind *b, const nh_blk *blks, int n, MPI_Datatype *out)
{
    int *len = malloc((size_t)n * sizeof(int)), rc = MPI_ERR_NO_MEM;
    MPI_Aint *disp = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((size_t)n * sizeof(MPI_Datatype));
    if (len && disp && types) {
        rc = MPI_SUCCESS;
        for (int i = 0; i < n && !rc; i++) {
            blk_type(b, blks[i], &len[i], &types[i]);
            rc = PMPI_Get_address(blk_addr(b, blks[i]), &disp[i]);
        }
        if (!rc)
            rc = PMPI_Type_create_struct(n, len, disp, types, out);
        if (!rc && (rc = PMPI_Type_commit(out)))
            PMPI_Type_free(out);
    }
    free(len);
    free(disp);
    free(types);
    return rc;
}

static void bind_free(nh_bind *b)
{
    if (!b)
        return;
    for (int i = 0; b->stypes && i < b->s->nrounds; i++) {
        if (b->stypes[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&b->stypes[i]);
        if (b->rtypes[i] != MPI_DATATYPE_NULL)
            PMPI_Type_free(&b->rtypes[i]);
    }
    free(b->stypes);
    free(b->rtypes);
    free(b->temp);
    free(b->msg);
    free(b->soff);
    free(b->roff);
    free(b->reqs);
    free(b->stats);
    free(b->scratch);
    free(b);
}

static int bind_new(const nh_sched *s, nh_binding kind, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, nh_bind **out)
{
    int rc, tsize, ssize;
    MPI_Aint lb, text;
    nh_bind *b = calloc(1, sizeof(*b));
    if (!b)
        return MPI_ERR_NO_MEM;
    b->s = s;
    b->sbuf = sbuf;
    b->rbuf = rbuf;
    b->scount = scount;
    b->rcount = rcount;
    b->stype = stype;
    b->rtype = rtype;
    if ((rc = PMPI_Type_get_extent(stype, &lb, &b->sext)) ||
        (rc = PMPI_Type_get_extent(rtype, &lb, &b->rext)) ||
        (rc = PMPI_Type_get_true_extent(rtype, &b->rtlb, &text)) || (rc = PMPI_Type_size(rtype, &tsize)) ||
        (rc = PMPI_Type_size(stype, &ssize)))
        goto fail;
    b->m = (size_t)tsize * (size_t)rcount;
    b->ms = (size_t)ssize * (size_t)scount;
    b->scontig = type_contig(stype);
    b->rcontig = type_contig(rtype);
    if (kind == NH_BIND_PACK) {
        /* Packing relies on the packed size being the data size. */
        int ps;
        if ((!b->scontig && (PMPI_Pack_size(scount, stype, MPI_COMM_SELF, &ps) || (size_t)ps != b->ms)) ||
            (!b->rcontig && (PMPI_Pack_size(rcount, rtype, MPI_COMM_SELF, &ps) || (size_t)ps != b->m)))
            kind = NH_BIND_ZCOPY;
    }
    b->kind = kind;
    if (kind == NH_BIND_ZCOPY)
        b->tstride = rcount ? (size_t)((rcount - 1) * b->rext + text) : 0;
    else
        b->tstride = b->m;
    b->tstride = (b->tstride + 15) & ~(size_t)15;
    rc = MPI_ERR_NO_MEM;
    b->temp = malloc(b->tstride * (size_t)s->ntemp + 1);
    b->scratch = malloc((b->m > b->ms ? b->m : b->ms) + 1);
    b->reqs = malloc(2 * ((size_t)s->nrounds + 1) * sizeof(MPI_Request));
    b->stats = malloc(2 * ((size_t)s->nrounds + 1) * sizeof(MPI_Status));
    if (!b->temp || !b->scratch || !b->reqs || !b->stats)
        goto fail;
    if (kind == NH_BIND_ZCOPY) {
        b->stypes = malloc(((size_t)s->nrounds + 1) * sizeof(MPI_Datatype));
        b->rtypes = malloc(((size_t)s->nrounds + 1) * sizeof(MPI_Datatype));
        if (!b->stypes || !b->rtypes)
            goto fail;
        for (int i = 0; i < s->nrounds; i++)
            b->stypes[i] = b->rtypes[i] = MPI_DATATYPE_NULL;
        for (int i = 0; i < s->nrounds; i++) {
            const nh_round *r = &s->rounds[i];
            if (r->copy)
                continue;
            if (r->nsend > 1 && (rc = build_struct(b, r->send, r->nsend, &b->stypes[i])))
                goto fail;
            if (r->nrecv > 1 && (rc = build_struct(b, r->recv, r->nrecv, &b->rtypes[i])))
                goto fail;
        }
    } else {
        size_t total = 0;
        b->soff = malloc(((size_t)s->nrounds + 1) * sizeof(size_t));
        b->roff = malloc(((size_t)s->nrounds + 1) * sizeof(size_t));
        if (!b->soff || !b->roff)
            goto fail;
        for (int i = 0; i < s->nrounds; i++) {
            b->soff[i] = total;
            for (int k = 0; s->rounds[i].nsend > 1 && k < s->rounds[i].nsend; k++)
                total += blk_bytes(b, s->rounds[i].send[k]);
            b->roff[i] = total;
            total += s->rounds[i].nrecv > 1 ? s->rounds[i].nrecv * b->m : 0;
        }
        if (!(b->msg = malloc(total + 1)))
            goto fail;
    }
    *out = b;
    return MPI_SUCCESS;
fail:
    bind_free(b);
    return rc;
}

void nh_bind_cache_free(nh_plan *p)
{
    while (p->bcache) {
        nh_bind *n = p->bcache->next;
        bind_free(p->bcache);
        p->bcache = n;
    }
}

/* Cached binding for these exact arguments, or a new one (cached when the
 * types are predefined).  *owned tells the caller to free it after use. */
static int bind_get(nh_plan *p, const nh_sched *s, nh_binding kind, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, nh_bind **out,
                    int *owned)
{
    nh_bind **pp = &p->bcache, *b;
    int n = 0;
    for (; (b = *pp); pp = &b->next, n++) {
        if (b->s == s && b->sbuf == sbuf && b->rbuf == rbuf && b->scount == scount &&
            b->rcount == rcount && b->stype == stype && b->rtype == rtype &&
            (b->kind == kind || kind == NH_BIND_PACK)) {
            *pp = b->next; /* move to front */
            b->next = p->bcache;
            p->bcache = b;
            *out = b;
            *owned = 0;
            return MPI_SUCCESS;
        }
    }
    int rc = bind_new(s, kind, sbuf, scount, stype, rbuf, rcount, rtype, &b);
    if (rc)
        return rc;
    *out = b;
    *owned = !(type_named(stype) && type_named(rtype));
    if (!*owned) {
        b->next = p->bcache;
        p->bcache = b;
        if (++n > NH_BIND_CACHE) { /* drop the least recently used */
            nh_bind **q = &p->bcache;
            while ((*q)->next)
                q = &(*q)->next;
            bind_free(*q);
            *q = NULL;
        }
    }
    return MPI_SUCCESS;
}

static int run(nh_plan *p, nh_bind *b)
{
    const nh_sched *s = b->s;
    MPI_Comm comm = p->pcomm;
    int rc = MPI_SUCCESS;
    for (int i0 = 0; i0 < s->nrounds && !rc;) {
        int i1 = i0, nreq = 0;
        while (i1 < s->nrounds && s->rounds[i1].phase == s->rounds[i0].phase)
            i1++;
        /* Receives first, then sends; the round index is the tag, so two
         * rounds of a phase with the same peer (the + and - neighbor on a
         * periodic dimension of size 2) cannot cross-match. */
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            int tag = i % (p->tag_ub + 1), count;
            MPI_Datatype type;
            if (r->copy || r->nrecv == 0)
                continue;
            if (r->nrecv == 1) {
                blk_type(b, r->recv[0], &count, &type);
                rc = PMPI_Irecv(blk_addr(b, r->recv[0]), count, type, r->recvpeer, tag, comm,
                                &b->reqs[nreq++]);
            } else if (b->kind == NH_BIND_ZCOPY) {
                rc = PMPI_Irecv(MPI_BOTTOM, 1, b->rtypes[i], r->recvpeer, tag, comm, &b->reqs[nreq++]);
            } else {
                rc = PMPI_Irecv(b->msg + b->roff[i], (int)(r->nrecv * b->m), MPI_PACKED, r->recvpeer,
                                tag, comm, &b->reqs[nreq++]);
            }
        }
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            int tag = i % (p->tag_ub + 1), count;
            MPI_Datatype type;
            if (r->copy || r->nsend == 0)
                continue;
            if (r->nsend == 1) {
                blk_type(b, r->send[0], &count, &type);
                rc = PMPI_Isend(blk_addr(b, r->send[0]), count, type, r->sendpeer, tag, comm,
                                &b->reqs[nreq++]);
            } else if (b->kind == NH_BIND_ZCOPY) {
                rc = PMPI_Isend(MPI_BOTTOM, 1, b->stypes[i], r->sendpeer, tag, comm, &b->reqs[nreq++]);
            } else {
                char *m = b->msg + b->soff[i];
                size_t len = 0;
                for (int k = 0; k < r->nsend && !rc; k++) {
                    rc = pack_blk(b, r->send[k], m + len, comm);
                    len += blk_bytes(b, r->send[k]);
                }
                if (!rc)
                    rc = PMPI_Isend(m, (int)len, MPI_PACKED, r->sendpeer, tag, comm, &b->reqs[nreq++]);
            }
        }
        if (nreq) {
            int wrc = PMPI_Waitall(nreq, b->reqs, b->stats);
            rc = rc ? rc : wrc;
        }
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            if (r->copy) {
                for (int k = 0; k < r->nsend && !rc; k++) {
                    if (blk_contig(b, r->send[k]) && blk_contig(b, r->recv[k])) {
                                memcpy(blk_addr(b, r->recv[k]), blk_addr(b, r->send[k]), b->m);
                    } else if (!(rc = pack_blk(b, r->send[k], b->scratch, comm))) {
                        rc = unpack_blk(b, r->recv[k], b->scratch, comm);
                    }
                }
            } else if (r->nrecv > 1 && b->kind == NH_BIND_PACK) {
                const char *m = b->msg + b->roff[i];
                for (int k = 0; k < r->nrecv && !rc; k++)
                    rc = unpack_blk(b, r->recv[k], m + k * b->m, comm);
            }
        }
        i0 = i1;
    }
    return rc;
}

int nh_exec_blocking(nh_plan *p, const nh_sched *s, nh_binding kind, nh_op op, const void *sbuf,
                     int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
    (void)op;
    nh_bind *b;
    int owned, rc = bind_get(p, s, kind, sbuf, scount, stype, rbuf, rcount, rtype, &b, &owned);
    if (rc)
        return rc;
    rc = run(p, b);
    if (owned)
        bind_free(b);
    return rc;
}
