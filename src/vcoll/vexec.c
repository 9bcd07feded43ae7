/* Executors for the v/w neighborhood collectives (see vcoll.h).
 *
 * Zero-copy: a binding lists the messages of every round, each a single
 * block or an MPI struct datatype over absolute block addresses, plus the
 * phase boundaries; local copies go through MPI_Pack/MPI_Unpack (memcpy
 * for predefined types without gaps).  A round whose blocks together
 * exceed the eager limit is split into groups (a block larger than the
 * limit travels alone), by the same rule on both ends: block k of a
 * round has the same size at its sender and its receiver, so the groups
 * agree.  Bindings of calls whose types are all predefined are cached per
 * plan and reused only for identical arguments (addresses included);
 * others are built per call, because a freed and recreated datatype can
 * come back with the same handle.
 *
 * Header: each message is [size of block 0 .. size of block n-1 as 64-bit
 * integers][packed blocks].  The receiver learns the length from
 * MPI_Probe, keeps blocks in transit as packed bytes and unpacks final
 * blocks with its own counts and types (a size that differs from what it
 * expects is a truncation error, as in MPI).  All sends of a phase are
 * posted before the first probe, so every probe is matched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vcoll.h"

#define NH_VCACHE 4

typedef struct vmsg {
    int round, send, peer, tag, first, n;
    void *buf;
    int count;
    MPI_Datatype type;
    int owned;  /* type is a struct this binding created */
    int packed; /* packed into pbuf + off (bytes long) */
    size_t off, bytes;
} vmsg;

struct nh_vbind {
    nh_vbind *next;
    const nh_sched *s;
    nh_vcall c; /* copies of the call's block arrays */
    char *temp;
    size_t *toff; /* byte offset of each temp slot */
    vmsg *msgs;
    int nmsgs;
    int *phase_start;
    MPI_Request *reqs;
    MPI_Status *stats;
    char *scratch;
    size_t scratch_len;
    char *pbuf; /* packed messages */
    size_t plen;
    int zcopy; /* some message is a struct datatype (for the report) */
};

const char *nh_vop_name(nh_vop v)
{
    static const char *const names[NH_VOP_COUNT] = {"alltoallv", "alltoallw", "allgatherv"};
    return names[v];
}

static int tag_for(const nh_plan *p, long index)
{
    return (int)((index * NH_SLOTS) % ((long)p->tag_ub + 1)); /* blocking: tag slot 0 */
}

/* Span of a block's data relative to its address: [lo, hi). */
static int desc_span(const nh_vdesc *d, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, ext, tlb, text;
    int rc;
    *lo = *hi = 0;
    if (d->count == 0)
        return MPI_SUCCESS;
    if ((rc = PMPI_Type_get_extent(d->type, &lb, &ext)) ||
        (rc = PMPI_Type_get_true_extent(d->type, &tlb, &text)))
        return rc;
    MPI_Aint step = (MPI_Aint)(d->count - 1) * ext;
    *lo = tlb + (step < 0 ? step : 0);
    *hi = tlb + text + (step > 0 ? step : 0);
    return MPI_SUCCESS;
}

/* The description a temp block takes under the isomorphic=true promise:
 * the local arguments of its template entry (alltoall: the receive block
 * of that entry; allgather: the send block, which has the one size every
 * rank sends). */
static const nh_vdesc *temp_model(const nh_plan *p, const nh_vcall *c, nh_blk k)
{
    if (c->op == NH_OP_ALLGATHER)
        return c->ns > 0 ? &c->s[0] : NULL;
    if (k.key < 0 || k.key >= p->nb.s || p->nb.recv_slot[k.key] == NH_NONE)
        return NULL;
    return &c->r[p->nb.recv_slot[k.key]];
}

static int blk_desc(const nh_plan *p, const nh_vbind *b, nh_blk k, nh_vdesc *out)
{
    if (k.buf == NH_BUF_SEND) {
        *out = b->c.s[k.slot];
        return MPI_SUCCESS;
    }
    if (k.buf == NH_BUF_RECV) {
        *out = b->c.r[k.slot];
        return MPI_SUCCESS;
    }
    const nh_vdesc *m = temp_model(p, &b->c, k);
    MPI_Aint lo, hi;
    int rc;
    if (!m)
        return MPI_ERR_INTERN;
    if ((rc = desc_span(m, &lo, &hi)))
        return rc;
    *out = *m;
    out->addr = b->temp + b->toff[k.slot] - lo;
    return MPI_SUCCESS;
}

static void vbind_free(nh_vbind *b)
{
    if (!b)
        return;
    for (int i = 0; i < b->nmsgs; i++)
        if (b->msgs[i].owned)
            nh_type_free(&b->msgs[i].type);
    free(b->msgs);
    free(b->phase_start);
    free(b->reqs);
    free(b->stats);
    free(b->temp);
    free(b->toff);
    free(b->scratch);
    free(b->pbuf);
    free(b->c.s);
    free(b->c.r);
    free(b);
}

void nh_vplan_free(nh_plan *p)
{
    if (!p->v)
        return;
    while (p->v->cache) {
        nh_vbind *n = p->v->cache->next;
        vbind_free(p->v->cache);
        p->v->cache = n;
    }
    free(p->v); /* report records belong to the report list */
    p->v = NULL;
}

/* Temp storage: each slot as large as the largest block it ever holds. */
static int layout_temps(const nh_plan *p, nh_vbind *b)
{
    const nh_sched *s = b->s;
    size_t *need = calloc((size_t)s->ntemp + 1, sizeof(size_t)), total = 0;
    int rc = MPI_SUCCESS;
    b->toff = calloc((size_t)s->ntemp + 1, sizeof(size_t));
    if (!need || !b->toff) {
        free(need);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < s->nrounds && !rc; i++)
        for (int side = 0; side < 2 && !rc; side++) {
            const nh_round *r = &s->rounds[i];
            int n = side ? r->nsend : r->nrecv;
            const nh_blk *blks = side ? r->send : r->recv;
            for (int k = 0; k < n && !rc; k++) {
                if (blks[k].buf != NH_BUF_TEMP)
                    continue;
                const nh_vdesc *m = temp_model(p, &b->c, blks[k]);
                MPI_Aint lo, hi;
                if (!m)
                    rc = MPI_ERR_INTERN;
                else if (!(rc = desc_span(m, &lo, &hi)) && (size_t)(hi - lo) > need[blks[k].slot])
                    need[blks[k].slot] = (size_t)(hi - lo);
            }
        }
    for (int t = 0; t < s->ntemp; t++) {
        b->toff[t] = total;
        total += (need[t] + 15) & ~(size_t)15;
    }
    free(need);
    if (!rc && !(b->temp = malloc(total + 1)))
        rc = MPI_ERR_NO_MEM;
    return rc;
}

/* Pack binding for a multi-block message: nhood copies the blocks into
 * one buffer (memcpy for predefined types without gaps) and MPI sends it
 * as MPI_PACKED.  With MPICH over shared memory that is much cheaper than
 * a struct datatype for eager-sized messages (see the cost model's pack
 * and gather_small); above the eager limit the struct wins.  Each rank
 * decides per message from its own sizes: a packed message and a struct
 * over the same blocks carry the same bytes, and either end may use
 * either.  Blocks whose packed size is not their data size go by struct. */
static int use_pack(const nh_plan *p, const nh_vbind *b, const nh_blk *blks, int n, size_t *total)
{
    size_t sum = 0;
    if (nh_cfg.binding == NH_BIND_ZCOPY)
        return 0;
    for (int k = 0; k < n; k++) {
        nh_vdesc d;
        int ps;
        if (blk_desc(p, b, blks[k], &d))
            return 0;
        if (!d.contig && (PMPI_Pack_size(d.count, d.type, p->pcomm, &ps) || (size_t)ps != d.bytes))
            return 0;
        sum += d.bytes;
    }
    if (sum > INT32_MAX || (nh_cfg.binding == NH_BIND_AUTO && nh_cfg.cost.eager > 0 &&
                            (double)sum > nh_cfg.cost.eager))
        return 0;
    *total = sum;
    return 1;
}

static int add_msg(const nh_plan *p, nh_vbind *b, int round, int send, const nh_blk *blks, int n,
                   int chunk)
{
    const nh_round *r = &b->s->rounds[round];
    vmsg *g = &b->msgs[b->nmsgs];
    int rc;
    g->round = round;
    g->send = send;
    g->first = (int)(blks - (send ? r->send : r->recv));
    g->n = n;
    g->peer = send ? r->sendpeer : r->recvpeer;
    g->tag = tag_for(p, (long)chunk * b->s->nrounds + round);
    g->type = MPI_DATATYPE_NULL;
    if (n == 1) {
        nh_vdesc d;
        if ((rc = blk_desc(p, b, blks[0], &d)))
            return rc;
        g->buf = d.addr;
        g->count = d.count;
        g->type = d.type;
    } else if (use_pack(p, b, blks, n, &g->bytes)) {
        g->packed = 1;
        g->off = b->plen;
        g->count = (int)g->bytes;
        g->type = MPI_PACKED;
        b->plen += g->bytes;
    } else {
        b->zcopy = 1;
        int *len = malloc((size_t)n * sizeof(int));
        MPI_Aint *disp = malloc((size_t)n * sizeof(MPI_Aint));
        MPI_Datatype *types = malloc((size_t)n * sizeof(MPI_Datatype));
        rc = len && disp && types ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        for (int k = 0; k < n && !rc; k++) {
            nh_vdesc d;
            if (!(rc = blk_desc(p, b, blks[k], &d)))
                rc = PMPI_Get_address(d.addr, &disp[k]);
            len[k] = d.count;
            types[k] = d.type;
        }
        if (!rc && !(rc = nh_type_create_struct(n, len, disp, types, &g->type)))
            g->owned = 1;
        free(len);
        free(disp);
        free(types);
        if (rc)
            return rc;
        g->buf = MPI_BOTTOM;
        g->count = 1;
    }
    b->nmsgs++;
    return MPI_SUCCESS;
}

/* Splits each round's block lists into eager-sized groups (see top). */
static int plan_msgs(const nh_plan *p, nh_vbind *b)
{
    const nh_sched *s = b->s;
    size_t cap = 0;
    double eager = nh_cfg.cost.eager;
    for (int i = 0; i < s->nrounds; i++)
        cap += (size_t)s->rounds[i].nsend + s->rounds[i].nrecv;
    b->msgs = calloc(cap + 1, sizeof(vmsg));
    b->phase_start = calloc((size_t)s->nphases + 1, sizeof(int));
    if (!b->msgs || !b->phase_start)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        if (r->copy)
            continue;
        for (int send = 0; send < 2; send++) {
            int n = send ? r->nsend : r->nrecv, chunk = 0, rc;
            const nh_blk *blks = send ? r->send : r->recv;
            for (int first = 0; first < n; chunk++) {
                int k = 0;
                double bytes = 0;
                while (first + k < n) {
                    nh_vdesc d;
                    if ((rc = blk_desc(p, b, blks[first + k], &d)))
                        return rc;
                    if (k > 0 && eager > 0 && bytes + (double)d.bytes > eager)
                        break;
                    bytes += (double)d.bytes;
                    k++;
                }
                if ((rc = add_msg(p, b, i, send, blks + first, k, chunk)))
                    return rc;
                first += k;
            }
        }
    }
    int ph = 0;
    for (int j = 0; j < b->nmsgs; j++)
        while (ph <= s->rounds[b->msgs[j].round].phase)
            b->phase_start[ph++] = j;
    while (ph <= s->nphases)
        b->phase_start[ph++] = b->nmsgs;
    b->reqs = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
    b->stats = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Status));
    b->pbuf = malloc(b->plen + 1);
    for (int j = 0; j < b->nmsgs; j++)
        if (b->msgs[j].packed)
            b->msgs[j].buf = b->pbuf + b->msgs[j].off;
    return b->reqs && b->stats && b->pbuf ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

static int copy_call(const nh_vcall *c, nh_vcall *out)
{
    *out = *c;
    out->s = malloc(((size_t)c->ns + 1) * sizeof(nh_vdesc));
    out->r = malloc(((size_t)c->nr + 1) * sizeof(nh_vdesc));
    if (!out->s || !out->r)
        return MPI_ERR_NO_MEM;
    memcpy(out->s, c->s, (size_t)c->ns * sizeof(nh_vdesc));
    memcpy(out->r, c->r, (size_t)c->nr * sizeof(nh_vdesc));
    return MPI_SUCCESS;
}

static int vbind_new(const nh_plan *p, const nh_sched *s, const nh_vcall *c, nh_vbind **out)
{
    nh_vbind *b = calloc(1, sizeof(*b));
    int rc;
    if (!b)
        return MPI_ERR_NO_MEM;
    b->s = s;
    if ((rc = copy_call(c, &b->c)) || (rc = layout_temps(p, b)) || (rc = plan_msgs(p, b))) {
        vbind_free(b);
        return rc;
    }
    *out = b;
    return MPI_SUCCESS;
}

static int same_desc(const nh_vdesc *a, const nh_vdesc *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].addr != b[i].addr || a[i].count != b[i].count || a[i].type != b[i].type)
            return 0;
    return 1;
}

/* Cached binding for exactly these arguments, or a new one; *owned: the
 * caller frees it after the call. */
static int vbind_get(nh_plan *p, const nh_sched *s, const nh_vcall *c, nh_vbind **out, int *owned)
{
    int rc, n = 0;
    if (!p->v && !(p->v = calloc(1, sizeof(*p->v))))
        return MPI_ERR_NO_MEM;
    nh_vbind **pp = &p->v->cache, *b;
    if (c->named)
        for (; (b = *pp); pp = &b->next, n++)
            if (b->s == s && b->c.vop == c->vop && b->c.ns == c->ns && b->c.nr == c->nr &&
                same_desc(b->c.s, c->s, c->ns) && same_desc(b->c.r, c->r, c->nr)) {
                *pp = b->next; /* move to front */
                b->next = p->v->cache;
                p->v->cache = b;
                *out = b;
                *owned = 0;
                return MPI_SUCCESS;
            }
    if ((rc = vbind_new(p, s, c, &b)))
        return rc;
    *out = b;
    *owned = !c->named;
    if (c->named) {
        b->next = p->v->cache;
        p->v->cache = b;
        if (n + 1 > NH_VCACHE) { /* drop the least recently used */
            nh_vbind **q = &p->v->cache;
            while ((*q)->next)
                q = &(*q)->next;
            vbind_free(*q);
            *q = NULL;
        }
    }
    return MPI_SUCCESS;
}

static int grow(char **buf, size_t *len, size_t need)
{
    if (need <= *len)
        return MPI_SUCCESS;
    char *n = realloc(*buf, need);
    if (!n)
        return MPI_ERR_NO_MEM;
    *buf = n;
    *len = need;
    return MPI_SUCCESS;
}

/* Packs a block into out (pack size of the block available). */
static int pack_desc(const nh_vdesc *d, char *out, int outsize, int *pos, MPI_Comm comm)
{
    if (d->bytes == 0) /* also a zero-size type with a count: MPICH's MPI_Pack divides by 0 */
        return MPI_SUCCESS;
    if (d->contig) {
        memcpy(out + *pos, d->addr, d->bytes);
        *pos += (int)d->bytes;
        return MPI_SUCCESS;
    }
    return nh_pack(d->addr, d->count, d->type, out, outsize, pos, comm);
}

static int unpack_desc(const char *in, int insize, int *pos, const nh_vdesc *d, MPI_Comm comm)
{
    if (d->bytes == 0)
        return MPI_SUCCESS;
    if (d->contig) {
        if ((size_t)(insize - *pos) < d->bytes)
            return MPI_ERR_TRUNCATE;
        memcpy(d->addr, in + *pos, d->bytes);
        *pos += (int)d->bytes;
        return MPI_SUCCESS;
    }
    return nh_unpack(in, insize, pos, d->addr, d->count, d->type, comm);
}

static int pack_size(const nh_vdesc *d, MPI_Comm comm, int *size)
{
    if (d->contig || d->bytes == 0) {
        *size = (int)d->bytes;
        return MPI_SUCCESS;
    }
    return PMPI_Pack_size(d->count, d->type, comm, size);
}

/* Local copy of one block to another (MPI's signature rules: same size). */
static int copy_desc(const nh_vdesc *from, const nh_vdesc *to, char **scratch, size_t *len,
                     MPI_Comm comm)
{
    int size, pos = 0, rc;
    if (from->bytes != to->bytes)
        return MPI_ERR_TRUNCATE;
    if (from->bytes == 0)
        return MPI_SUCCESS;
    if (from->contig && to->contig) {
        memcpy(to->addr, from->addr, from->bytes);
        return MPI_SUCCESS;
    }
    if ((rc = pack_size(from, comm, &size)) || (rc = grow(scratch, len, (size_t)size + 1)) ||
        (rc = pack_desc(from, *scratch, size, &pos, comm)))
        return rc;
    int used = pos;
    pos = 0;
    return unpack_desc(*scratch, used, &pos, to, comm);
}

/* Packs (send) or unpacks (receive) a packed message's blocks. */
static int move_packed(const nh_plan *p, const nh_vbind *b, const vmsg *g)
{
    const nh_round *r = &b->s->rounds[g->round];
    const nh_blk *blks = (g->send ? r->send : r->recv) + g->first;
    int pos = 0, rc = MPI_SUCCESS;
    for (int k = 0; k < g->n && !rc; k++) {
        nh_vdesc d;
        if (!(rc = blk_desc(p, b, blks[k], &d)))
            rc = g->send ? pack_desc(&d, g->buf, g->count, &pos, p->pcomm)
                         : unpack_desc(g->buf, g->count, &pos, &d, p->pcomm);
    }
    return rc;
}

int nh_vexec_zcopy(nh_plan *p, const nh_sched *s, const nh_vcall *c, int *zcopy)
{
    nh_vbind *b;
    int owned, rc = vbind_get(p, s, c, &b, &owned);
    if (rc)
        return rc;
    *zcopy = b->zcopy;
    int i0 = 0;
    for (int ph = 0; ph < s->nphases && !rc; ph++) {
        int m0 = b->phase_start[ph], m1 = b->phase_start[ph + 1], nreq = 0;
        /* Receives first, then sends; tags are per round and chunk. */
        for (int send = 0; send < 2 && !rc; send++)
            for (int j = m0; j < m1 && !rc; j++) {
                const vmsg *g = &b->msgs[j];
                if (g->send != send)
                    continue;
                if (send && g->packed && (rc = move_packed(p, b, g)))
                    break;
                rc = send ? nh_isend(g->buf, g->count, g->type, g->peer, g->tag, p->pcomm,
                                     &b->reqs[nreq])
                          : nh_irecv(g->buf, g->count, g->type, g->peer, g->tag, p->pcomm,
                                     &b->reqs[nreq]);
                if (!rc)
                    nreq++;
            }
        int rc2 = nreq ? nh_waitall(nreq, b->reqs, b->stats) : MPI_SUCCESS;
        if (!rc)
            rc = rc2;
        for (int j = m0; j < m1 && !rc; j++)
            if (!b->msgs[j].send && b->msgs[j].packed)
                rc = move_packed(p, b, &b->msgs[j]);
        for (; i0 < s->nrounds && s->rounds[i0].phase == ph && !rc; i0++) {
            const nh_round *r = &s->rounds[i0];
            for (int k = 0; r->copy && k < r->nsend && !rc; k++) {
                nh_vdesc from, to;
                if (!(rc = blk_desc(p, b, r->send[k], &from)) &&
                    !(rc = blk_desc(p, b, r->recv[k], &to)))
                    rc = copy_desc(&from, &to, &b->scratch, &b->scratch_len, p->pcomm);
            }
        }
    }
    if (owned)
        vbind_free(b);
    return rc;
}

/* ---- header executor ---- */

typedef struct tslot {
    char *data;
    size_t len, cap;
} tslot;

/* Appends a block's packed bytes to a message under construction. */
static int put_block(const nh_vcall *c, tslot *temps, nh_blk k, char **buf, size_t *cap,
                     size_t *used, int64_t *size, MPI_Comm comm)
{
    int rc;
    if (k.buf == NH_BUF_TEMP) {
        tslot *t = &temps[k.slot];
        if ((rc = grow(buf, cap, *used + t->len + 1)))
            return rc;
        memcpy(*buf + *used, t->data, t->len);
        *used += t->len;
        *size = (int64_t)t->len;
        return MPI_SUCCESS;
    }
    const nh_vdesc *d = k.buf == NH_BUF_SEND ? &c->s[k.slot] : &c->r[k.slot];
    int ps, pos = 0;
    if ((rc = pack_size(d, comm, &ps)) || (rc = grow(buf, cap, *used + (size_t)ps + 1)))
        return rc;
    if ((rc = pack_desc(d, *buf + *used, ps, &pos, comm)))
        return rc;
    *used += (size_t)pos;
    *size = pos;
    return MPI_SUCCESS;
}

/* Stores n packed bytes as block k: unpacked into a user block, or kept
 * as bytes in a temp slot. */
static int take_block(const nh_vcall *c, tslot *temps, nh_blk k, const char *in, size_t n,
                      MPI_Comm comm)
{
    if (k.buf == NH_BUF_TEMP) {
        tslot *t = &temps[k.slot];
        int rc = grow(&t->data, &t->cap, n + 1);
        if (rc)
            return rc;
        memcpy(t->data, in, n);
        t->len = n;
        return MPI_SUCCESS;
    }
    const nh_vdesc *d = k.buf == NH_BUF_RECV ? &c->r[k.slot] : &c->s[k.slot];
    int pos = 0, rc = unpack_desc(in, (int)n, &pos, d, comm);
    return rc ? rc : ((size_t)pos == n ? MPI_SUCCESS : MPI_ERR_TRUNCATE);
}

int nh_vexec_header(nh_plan *p, const nh_sched *s, const nh_vcall *c)
{
    MPI_Comm comm = p->pcomm;
    int rc = MPI_SUCCESS, nsend = 0, i0 = 0;
    tslot *temps = calloc((size_t)s->ntemp + 1, sizeof(tslot));
    char **sbufs = calloc((size_t)s->nrounds + 1, sizeof(char *)), *rbuf = NULL, *scratch = NULL;
    size_t rcap = 0, scratch_len = 0;
    MPI_Request *reqs = malloc(((size_t)s->nrounds + 1) * sizeof(MPI_Request));
    MPI_Status *stats = malloc(((size_t)s->nrounds + 1) * sizeof(MPI_Status));
    if (!temps || !sbufs || !reqs || !stats)
        rc = MPI_ERR_NO_MEM;
    for (int ph = 0; ph < s->nphases && !rc; ph++) {
        int i1 = i0;
        while (i1 < s->nrounds && s->rounds[i1].phase == ph)
            i1++;
        /* 1. Every send of the phase, packed behind its size header. */
        nsend = 0;
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            if (r->copy || r->nsend == 0)
                continue;
            size_t hdr = (size_t)r->nsend * sizeof(int64_t), cap = hdr + 64, used = hdr;
            char *m = malloc(cap);
            if (!(sbufs[i] = m)) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            for (int k = 0; k < r->nsend && !rc; k++) {
                int64_t sz;
                rc = put_block(c, temps, r->send[k], &sbufs[i], &cap, &used, &sz, comm);
                if (!rc)
                    memcpy(sbufs[i] + k * sizeof(int64_t), &sz, sizeof(sz));
            }
            if (!rc && used > INT32_MAX)
                rc = MPI_ERR_COUNT;
            if (!rc && !(rc = nh_isend(sbufs[i], (int)used, MPI_BYTE, r->sendpeer, tag_for(p, i),
                                       comm, &reqs[nsend])))
                nsend++;
        }
        /* 2. Receives in round order: probe, receive, place. */
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            if (r->copy || r->nrecv == 0)
                continue;
            MPI_Status st;
            int len;
            if ((rc = PMPI_Probe(r->recvpeer, tag_for(p, i), comm, &st)) ||
                (rc = PMPI_Get_count(&st, MPI_BYTE, &len)) ||
                (rc = grow(&rbuf, &rcap, (size_t)len + 1)) ||
                (rc = PMPI_Recv(rbuf, len, MPI_BYTE, r->recvpeer, tag_for(p, i), comm,
                                MPI_STATUS_IGNORE)))
                break;
            size_t off = (size_t)r->nrecv * sizeof(int64_t);
            if ((size_t)len < off) {
                rc = MPI_ERR_TRUNCATE;
                break;
            }
            for (int k = 0; k < r->nrecv && !rc; k++) {
                int64_t sz;
                memcpy(&sz, rbuf + k * sizeof(int64_t), sizeof(sz));
                if (sz < 0 || (size_t)sz > (size_t)len - off)
                    rc = MPI_ERR_TRUNCATE;
                else
                    rc = take_block(c, temps, r->recv[k], rbuf + off, (size_t)sz, comm);
                off += (size_t)sz;
            }
        }
        int rc2 = nsend ? nh_waitall(nsend, reqs, stats) : MPI_SUCCESS;
        if (!rc)
            rc = rc2;
        for (int i = i0; i < i1; i++) {
            free(sbufs[i]);
            sbufs[i] = NULL;
        }
        /* 3. Local copies. */
        for (int i = i0; i < i1 && !rc; i++) {
            const nh_round *r = &s->rounds[i];
            for (int k = 0; r->copy && k < r->nsend && !rc; k++) {
                size_t used = 0;
                int64_t sz;
                if (!(rc = put_block(c, temps, r->send[k], &scratch, &scratch_len, &used, &sz,
                                     comm)))
                    rc = take_block(c, temps, r->recv[k], scratch, used, comm);
            }
        }
        i0 = i1;
    }
    for (int t = 0; temps && t < s->ntemp; t++)
        free(temps[t].data);
    for (int i = 0; sbufs && i < s->nrounds; i++)
        free(sbufs[i]);
    free(temps);
    free(sbufs);
    free(rbuf);
    free(scratch);
    free(reqs);
    free(stats);
    return rc;
}
