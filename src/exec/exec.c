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
 * its block with the user's count and type under both kinds.  A round
 * whose blocks would exceed the eager limit but fit it in groups is split
 * into eager-sized messages (nh_chunk_blocks); both ends derive the split
 * from the block count and size, which they share.  Both kinds
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

/* One message of a round: blocks [first, first + n) of its send or recv list. */
typedef struct nh_msg {
    int round, send, first, n, tag;
    MPI_Datatype type; /* zcopy struct when n > 1 */
    size_t off, bytes; /* pack buffer range when n > 1 */
} nh_msg;

struct nh_bind {
    nh_bind *next;
    const nh_sched *s;
    nh_binding kind;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Aint sext, rext, rtlb;
    int tag_ub;
    size_t m;  /* bytes per receive or temp block */
    size_t ms; /* bytes per send block (differs from m only without coupling, see select.c) */
    int scontig, rcontig;
    char *temp;
    size_t tstride;
    nh_msg *msgs; /* in round order, receives before sends within a round */
    int nmsgs;
    int *phase_start; /* first message of each phase, nphases + 1 entries */
    char *msg;        /* pack: message buffers */
    MPI_Request *reqs;
    MPI_Status *stats; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    char *scratch;     /* one packed block, for local copies */
    MPI_Request *preq; /* persistent bindings: one MPI persistent request per message */
    int busy;          /* in use by a run (cached bindings are shared by calls) */
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
    int ints[1], named;
    MPI_Aint a[1];
    MPI_Datatype inner;
    if (nh_type_inner(t, ni, na, nd, ints, a, &inner, &named))
        return 0;
    int r = type_contig(inner);
    if (!named)
        nh_type_free(&inner);
    return r;
}

static int type_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    return PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
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
    int rc = nh_pack(blk_addr(b, k), count, type, out, (int)n, &pos, comm);
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
    return nh_unpack(in, (int)b->m, &pos, blk_addr(b, k), count, type, comm);
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
            rc = nh_type_create_struct(n, len, disp, types, out);
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
    for (int i = 0; b->preq && i < b->nmsgs; i++)
        if (b->preq[i] != MPI_REQUEST_NULL)
            nh_request_free(&b->preq[i]);
    free(b->preq);
    for (int i = 0; i < b->nmsgs; i++)
        if (b->msgs[i].type != MPI_DATATYPE_NULL)
            nh_type_free(&b->msgs[i].type);
    free(b->msgs);
    free(b->phase_start);
    free(b->temp);
    free(b->msg);
    free(b->reqs);
    free(b->stats);
    free(b->scratch);
    free(b);
}

int nh_chunk_blocks(size_t m, int n)
{
    double eager = nh_cfg.cost.eager;
    if (m == 0 || eager <= 0 || (double)m * n <= eager)
        return n;
    /* Blocks larger than the limit travel one per message, as in the
     * native exchange: each pays the rendezvous either way, and MPI moves
     * a single block without packing it. */
    int k = (int)(eager / (double)m);
    return k >= 1 ? k : 1;
}

/* Splits every round into messages and prepares each one's datatype or
 * buffer range; msgs are appended in round order, so phases stay
 * contiguous. */
static int plan_msgs(nh_bind *b)
{
    const nh_sched *s = b->s;
    size_t cap = 0, total = 0;
    for (int i = 0; i < s->nrounds; i++)
        cap += (size_t)s->rounds[i].nsend + s->rounds[i].nrecv;
    b->msgs = calloc(cap + 1, sizeof(nh_msg));
    b->phase_start = calloc((size_t)s->nphases + 1, sizeof(int));
    if (!b->msgs || !b->phase_start)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        int chunk = 0;
        if (r->copy)
            continue;
        for (int send = 0; send < 2; send++) {
            int n = send ? r->nsend : r->nrecv;
            const nh_blk *blks = send ? r->send : r->recv;
            if (n == 0)
                continue;
            /* Both ends see the same n; the sender's block size is the
             * receiver's (MPI signature matching), so the split agrees. */
            int k = nh_chunk_blocks(blk_bytes(b, blks[0]), n);
            chunk = 0;
            for (int first = 0; first < n; first += k, chunk++) {
                nh_msg *g = &b->msgs[b->nmsgs++];
                g->round = i;
                g->send = send;
                g->first = first;
                g->n = n - first < k ? n - first : k;
                g->type = MPI_DATATYPE_NULL;
                g->tag = chunk * s->nrounds + i;
                if (g->n == 1)
                    continue;
                if (b->kind == NH_BIND_ZCOPY) {
                    int rc = build_struct(b, blks + first, g->n, &g->type);
                    if (rc)
                        return rc;
                } else {
                    g->off = total;
                    for (int k2 = 0; k2 < g->n; k2++)
                        g->bytes += blk_bytes(b, blks[first + k2]);
                    total += g->bytes;
                }
            }
        }
    }
    /* Phase boundaries over the message list. */
    int ph = 0;
    for (int j = 0; j < b->nmsgs; j++)
        while (ph <= s->rounds[b->msgs[j].round].phase)
            b->phase_start[ph++] = j;
    while (ph <= s->nphases)
        b->phase_start[ph++] = b->nmsgs;
    b->reqs = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
    b->stats = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Status));
    b->msg = malloc(total + 1);
    return b->reqs && b->stats && b->msg ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int bind_new(const nh_sched *s, int tag_ub, nh_binding kind, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, nh_bind **out)
{
    int rc, tsize, ssize;
    MPI_Aint lb, text;
    nh_bind *b = calloc(1, sizeof(*b));
    if (!b)
        return MPI_ERR_NO_MEM;
    b->s = s;
    b->tag_ub = tag_ub;
    b->sbuf = sbuf;
    b->rbuf = rbuf;
    b->scount = scount;
    b->rcount = rcount;
    b->stype = stype;
    b->rtype = rtype;
    if ((rc = PMPI_Type_get_extent(stype, &lb, &b->sext)) ||
        (rc = PMPI_Type_get_extent(rtype, &lb, &b->rext)) ||
        (rc = PMPI_Type_get_true_extent(rtype, &b->rtlb, &text)) ||
        (rc = PMPI_Type_size(rtype, &tsize)) || (rc = PMPI_Type_size(stype, &ssize)))
        goto fail;
    b->m = (size_t)tsize * (size_t)rcount;
    b->ms = (size_t)ssize * (size_t)scount;
    b->scontig = type_contig(stype);
    b->rcontig = type_contig(rtype);
    if (kind == NH_BIND_PACK) {
        /* Packing relies on the packed size being the data size. */
        int ps;
        if ((!b->scontig &&
             (PMPI_Pack_size(scount, stype, MPI_COMM_SELF, &ps) || (size_t)ps != b->ms)) ||
            (!b->rcontig &&
             (PMPI_Pack_size(rcount, rtype, MPI_COMM_SELF, &ps) || (size_t)ps != b->m)))
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
    if (!b->temp || !b->scratch)
        goto fail;
    if ((rc = plan_msgs(b)))
        goto fail;
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
 * types are predefined).  *owned tells the caller to free it after use.
 * A cached binding in use by an outstanding nonblocking call is skipped. */
static int bind_get(nh_plan *p, const nh_sched *s, nh_binding kind, const void *sbuf, int scount,
                    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, nh_bind **out,
                    int *owned)
{
    nh_bind **pp = &p->bcache, *b;
    int n = 0;
    for (; (b = *pp); pp = &b->next, n++) {
        if (!b->busy && b->s == s && b->sbuf == sbuf && b->rbuf == rbuf && b->scount == scount &&
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
    int rc = bind_new(s, p->tag_ub, kind, sbuf, scount, stype, rbuf, rcount, rtype, &b);
    if (rc)
        return rc;
    *out = b;
    *owned = !(type_named(stype) && type_named(rtype));
    if (!*owned) {
        b->next = p->bcache;
        p->bcache = b;
        if (++n > NH_BIND_CACHE) { /* drop the least recently used idle one */
            nh_bind **q = &p->bcache, **last = NULL;
            for (; *q; q = &(*q)->next)
                if (!(*q)->busy)
                    last = q;
            if (last && *last != b) {
                nh_bind *victim = *last;
                *last = victim->next;
                bind_free(victim);
            }
        }
    }
    return MPI_SUCCESS;
}

/* Operations in flight at once on one plan use disjoint tags: the tag of a
 * message is its index in the schedule (chunk * rounds + round) times
 * NH_SLOTS plus the operation's slot. */
static int tag_of(const nh_bind *b, const nh_msg *g, int slot)
{
    return (int)(((long)g->tag * NH_SLOTS + slot) % ((long)b->tag_ub + 1));
}

/* Where a message is sent from or received into. */
static void msg_args(const nh_bind *b, const nh_msg *g, void **buf, int *count, MPI_Datatype *type,
                     int *peer)
{
    const nh_round *r = &b->s->rounds[g->round];
    const nh_blk *blks = (g->send ? r->send : r->recv) + g->first;
    *peer = g->send ? r->sendpeer : r->recvpeer;
    if (g->n == 1) {
        blk_type(b, blks[0], count, type);
        *buf = blk_addr(b, blks[0]);
    } else if (b->kind == NH_BIND_ZCOPY) {
        *buf = MPI_BOTTOM;
        *count = 1;
        *type = g->type;
    } else {
        *buf = b->msg + g->off;
        *count = (int)g->bytes;
        *type = MPI_PACKED;
    }
}

/* Persistent bindings: one MPI persistent request per message, created
 * once, so every start only packs (pack binding) and starts them. */
static int bind_persist(nh_bind *b, int slot, MPI_Comm comm)
{
    b->preq = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
    if (!b->preq)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < b->nmsgs; j++)
        b->preq[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < b->nmsgs; j++) {
        const nh_msg *g = &b->msgs[j];
        void *buf;
        int count, peer, rc;
        MPI_Datatype type;
        msg_args(b, g, &buf, &count, &type, &peer);
        rc = g->send ? nh_send_init(buf, count, type, peer, tag_of(b, g, slot), comm, &b->preq[j])
                     : nh_recv_init(buf, count, type, peer, tag_of(b, g, slot), comm, &b->preq[j]);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

static int post(nh_bind *b, int j, int slot, MPI_Comm comm, MPI_Request *req)
{
    const nh_msg *g = &b->msgs[j];
    int rc = MPI_SUCCESS;
    if (g->send && g->n > 1 && b->kind == NH_BIND_PACK) {
        const nh_blk *blks = b->s->rounds[g->round].send + g->first;
        for (int k = 0, pos = 0; k < g->n && !rc; k++) {
            rc = pack_blk(b, blks[k], b->msg + g->off + pos, comm);
            pos += (int)blk_bytes(b, blks[k]);
        }
        if (rc)
            return rc;
    }
    if (b->preq) {
        rc = PMPI_Start(&b->preq[j]);
        *req = b->preq[j];
        return rc;
    }
    void *buf;
    int count, peer;
    MPI_Datatype type;
    msg_args(b, g, &buf, &count, &type, &peer);
    return g->send ? nh_isend(buf, count, type, peer, tag_of(b, g, slot), comm, req)
                   : nh_irecv(buf, count, type, peer, tag_of(b, g, slot), comm, req);
}

/* After the messages of phase x->ph completed: unpack what arrived packed,
 * then the phase's local copies (copy rounds carry no messages). */
static int phase_finish(nh_run *x, MPI_Comm comm)
{
    nh_bind *b = x->b;
    const nh_sched *s = b->s;
    int rc = MPI_SUCCESS, ph = x->ph;
    for (int j = b->phase_start[ph]; j < b->phase_start[ph + 1] && !rc; j++) {
        const nh_msg *g = &b->msgs[j];
        if (g->send || g->n == 1 || b->kind != NH_BIND_PACK)
            continue;
        const nh_blk *blks = s->rounds[g->round].recv + g->first;
        for (int k = 0, pos = 0; k < g->n && !rc; k++) {
            rc = unpack_blk(b, blks[k], b->msg + g->off + pos, comm);
            pos += (int)b->m;
        }
    }
    int i1 = x->i0;
    while (i1 < s->nrounds && s->rounds[i1].phase == ph)
        i1++;
    for (int i = x->i0; i < i1 && !rc; i++) {
        const nh_round *r = &s->rounds[i];
        for (int k = 0; r->copy && k < r->nsend && !rc; k++) {
            if (blk_contig(b, r->send[k]) && blk_contig(b, r->recv[k]))
                memcpy(blk_addr(b, r->recv[k]), blk_addr(b, r->send[k]), b->m);
            else if (!(rc = pack_blk(b, r->send[k], b->scratch, comm)))
                rc = unpack_blk(b, r->recv[k], b->scratch, comm);
        }
    }
    x->i0 = i1;
    x->ph++;
    x->posted = 0;
    return rc;
}

int nh_run_progress(nh_run *x, int block, int *done)
{
    nh_bind *b = x->b;
    MPI_Comm comm = x->p->pcomm;
    int rc = MPI_SUCCESS;
    *done = 0;
    while (x->ph < b->s->nphases) {
        if (!x->posted) {
            /* Receives first, then sends.  Tags are per round and chunk,
             * so two messages of a phase with the same peer (the + and -
             * neighbor on a periodic dimension of size 2) cannot
             * cross-match. */
            int m0 = b->phase_start[x->ph], m1 = b->phase_start[x->ph + 1];
            x->nreq = 0;
            for (int send = 0; send < 2; send++)
                for (int j = m0; j < m1 && !rc; j++)
                    if (b->msgs[j].send == send)
                        rc = post(b, j, x->slot, comm, &b->reqs[x->nreq++]);
            x->posted = 1;
            if (rc) {
                x->ph = b->s->nphases; /* nothing more will be posted */
                return rc;
            }
        }
        if (x->nreq) {
            int flag = 1;
            rc = block ? nh_waitall(x->nreq, b->reqs, b->stats)
                       : nh_testall(x->nreq, b->reqs, &flag, b->stats);
            if (rc || !flag)
                return rc;
            x->nreq = 0;
        }
        if ((rc = phase_finish(x, comm)))
            return rc;
    }
    *done = 1;
    return MPI_SUCCESS;
}

int nh_run_bind(nh_run *x, nh_plan *p, const nh_sched *s, nh_binding kind, int persistent, int slot,
                const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype)
{
    int rc;
    memset(x, 0, sizeof(*x));
    x->p = p;
    x->slot = slot;
    if (persistent) {
        rc = bind_new(s, p->tag_ub, kind, sbuf, scount, stype, rbuf, rcount, rtype, &x->b);
        if (rc)
            return rc;
        x->owned = 1;
        if ((rc = bind_persist(x->b, slot, p->pcomm))) {
            nh_run_release(x);
            return rc;
        }
    } else if ((rc = bind_get(p, s, kind, sbuf, scount, stype, rbuf, rcount, rtype, &x->b,
                              &x->owned))) {
        return rc;
    }
    x->b->busy = 1;
    x->ph = s->nphases; /* not started */
    return MPI_SUCCESS;
}

int nh_run_start(nh_run *x, int *done)
{
    x->ph = 0;
    x->i0 = 0;
    x->posted = 0;
    x->nreq = 0;
    return nh_run_progress(x, 0, done);
}

void nh_run_release(nh_run *x)
{
    if (!x->b)
        return;
    x->b->busy = 0;
    if (x->owned)
        bind_free(x->b);
    x->b = NULL;
}

int nh_exec_blocking(nh_plan *p, const nh_sched *s, nh_binding kind, const void *sbuf, int scount,
                     MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
    nh_run x;
    int done, rc = nh_run_bind(&x, p, s, kind, 0, 0, sbuf, scount, stype, rbuf, rcount, rtype);
    if (rc)
        return rc;
    x.ph = 0;
    rc = nh_run_progress(&x, 1, &done);
    nh_run_release(&x);
    return rc;
}
