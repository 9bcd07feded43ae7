/* Blocks of a bound call (see engine.h): where a block lives, how it is
 * described to MPI, packed, unpacked and copied, how temp blocks are laid
 * out, and the header wire format's per-block part. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/bind.h"

int nh_type_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    return nh_mpi_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb == MPI_COMBINER_NAMED;
}

/* Contiguous means the packed form is the memory image: a predefined type
 * with no gaps, or contiguous/dup of one.  Other derived types may permute
 * bytes even when they have no holes. */
int nh_type_contig(MPI_Datatype t)
{
    int ni, na, nd, comb, size;
    MPI_Aint lb, ext, tlb, text;
    if (nh_mpi_Type_size(t, &size) || nh_mpi_Type_get_extent(t, &lb, &ext) ||
        nh_mpi_Type_get_true_extent(t, &tlb, &text))
        return 0;
    if (lb != 0 || tlb != 0 || ext != size || text != size)
        return 0;
    if (nh_mpi_Type_get_envelope(t, &ni, &na, &nd, &comb))
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
    int r = nh_type_contig(inner);
    if (!named)
        nh_type_free(&inner);
    return r;
}

/* Which model describes a temp block: its template entry for v/w
 * alltoall under the promise, the one model otherwise. */
static int temp_key(const nh_bind *b, nh_blk k)
{
    return b->o.model && b->c.op == NH_OP_ALLTOALL ? k.key : 0;
}

void nh_blk_desc(const nh_bind *b, nh_blk k, nh_desc *out)
{
    const nh_call *c = &b->c;
    if (k.buf == NH_BUF_TEMP) {
        int key = temp_key(b, k);
        *out = b->kdesc[key];
        out->addr = b->temp + b->toff[k.slot] - b->klo[key];
    } else if (c->vec) {
        *out = k.buf == NH_BUF_SEND ? c->s[k.slot] : c->r[k.slot];
    } else if (k.buf == NH_BUF_SEND) {
        out->addr = (char *)c->sbuf + (MPI_Aint)k.slot * c->scount * b->sext;
        out->count = c->scount;
        out->type = c->stype;
        out->bytes = c->sbytes;
        out->contig = b->scontig;
    } else {
        out->addr = (char *)c->rbuf + (MPI_Aint)k.slot * c->rcount * b->rext;
        out->count = c->rcount;
        out->type = c->rtype;
        out->bytes = c->rbytes;
        out->contig = b->rcontig;
    }
}

/* Span of a block's data relative to its address: [lo, hi). */
static int desc_span(const nh_desc *d, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, ext, tlb, text;
    int rc;
    *lo = *hi = 0;
    if (d->count == 0)
        return MPI_SUCCESS;
    if ((rc = nh_mpi_Type_get_extent(d->type, &lb, &ext)) ||
        (rc = nh_mpi_Type_get_true_extent(d->type, &tlb, &text)))
        return rc;
    MPI_Aint step = (MPI_Aint)(d->count - 1) * ext;
    *lo = tlb + (step < 0 ? step : 0);
    *hi = tlb + text + (step > 0 ? step : 0);
    return MPI_SUCCESS;
}

/* The model of a temp of template entry key: regular calls take a receive
 * block; v/w calls under the promise the local block of the same entry
 * (alltoall: its receive block; allgather: the send block, which has the
 * one size every rank sends).  NULL if the rank has no such block. */
static const nh_desc *temp_model(const nh_bind *b, int key, nh_desc *tmp)
{
    const nh_call *c = &b->c;
    if (!b->o.model) {
        nh_blk k = {NH_BUF_RECV, 0, -1};
        nh_blk_desc(b, k, tmp);
        return tmp;
    }
    if (c->op == NH_OP_ALLGATHER)
        return c->ns > 0 ? &c->s[0] : NULL;
    if (key < 0 || key >= b->nb->s || b->nb->recv_slot[key] == NH_NONE)
        return NULL;
    return &c->r[b->nb->recv_slot[key]];
}

/* Typed temps: every slot as large as the largest block it ever holds. */
int nh_temps_layout(nh_bind *b)
{
    const nh_sched *s = b->s;
    int rc = MPI_SUCCESS;
    size_t total = 0;
    b->nkeys = b->o.model && b->c.op == NH_OP_ALLTOALL ? b->nb->s : 1;
    size_t *need = calloc((size_t)s->ntemp + 1, sizeof(size_t));
    b->toff = calloc((size_t)s->ntemp + 1, sizeof(size_t));
    b->kdesc = calloc((size_t)b->nkeys + 1, sizeof(nh_desc));
    b->klo = calloc((size_t)b->nkeys + 1, sizeof(MPI_Aint));
    MPI_Aint *khi = calloc((size_t)b->nkeys + 1, sizeof(MPI_Aint));
    char *known = calloc((size_t)b->nkeys + 1, 1);
    if (!need || !b->toff || !b->kdesc || !b->klo || !khi || !known)
        rc = MPI_ERR_NO_MEM;
    for (int i = 0; i < s->nrounds && !rc; i++)
        for (int side = 0; side < 2 && !rc; side++) {
            const nh_round *r = &s->rounds[i];
            int n = side ? r->nsend : r->nrecv;
            const nh_blk *blks = side ? r->send : r->recv;
            for (int k = 0; k < n && !rc; k++) {
                if (blks[k].buf != NH_BUF_TEMP)
                    continue;
                int key = temp_key(b, blks[k]);
                if (key < 0 || key >= b->nkeys) {
                    rc = MPI_ERR_INTERN;
                    break;
                }
                if (!known[key]) {
                    nh_desc tmp;
                    const nh_desc *m = temp_model(b, key, &tmp);
                    if (!m) {
                        rc = MPI_ERR_INTERN;
                        break;
                    }
                    b->kdesc[key] = *m;
                    if ((rc = desc_span(m, &b->klo[key], &khi[key])))
                        break;
                    known[key] = 1;
                }
                size_t len = (size_t)(khi[key] - b->klo[key]);
                if (len > need[blks[k].slot])
                    need[blks[k].slot] = len;
            }
        }
    for (int t = 0; t < s->ntemp && !rc; t++) {
        b->toff[t] = total;
        total += (need[t] + 15) & ~(size_t)15;
    }
    if (!rc && !(b->temp = nh_bind_buf(b, total)))
        rc = MPI_ERR_NO_MEM;
    free(need);
    free(khi);
    free(known);
    return rc;
}

int nh_grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return MPI_SUCCESS;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    char *n = realloc(*buf, c);
    if (!n)
        return MPI_ERR_NO_MEM;
    *buf = n;
    *cap = c;
    return MPI_SUCCESS;
}

int nh_desc_pack(const nh_desc *d, char *out, int outsize, int *pos, MPI_Comm comm)
{
    if (d->bytes == 0) /* also a zero-size type with a count: MPICH's MPI_Pack divides by 0 */
        return MPI_SUCCESS;
    if (d->contig) {
        if ((size_t)(outsize - *pos) < d->bytes)
            return MPI_ERR_TRUNCATE;
        nh_copy(out + *pos, d->addr, d->bytes);
        *pos += (int)d->bytes;
        return MPI_SUCCESS;
    }
    return nh_pack(d->addr, d->count, d->type, out, outsize, pos, comm);
}

int nh_desc_unpack(const char *in, int insize, int *pos, const nh_desc *d, MPI_Comm comm)
{
    if (d->bytes == 0)
        return MPI_SUCCESS;
    if (d->contig) {
        if ((size_t)(insize - *pos) < d->bytes)
            return MPI_ERR_TRUNCATE;
        nh_copy(d->addr, in + *pos, d->bytes);
        *pos += (int)d->bytes;
        return MPI_SUCCESS;
    }
    return nh_unpack(in, insize, pos, d->addr, d->count, d->type, comm);
}

static int pack_size(const nh_desc *d, MPI_Comm comm, size_t *size)
{
    int ps, rc;
    if (d->contig || d->bytes == 0) {
        *size = d->bytes;
        return MPI_SUCCESS;
    }
    if ((rc = nh_mpi_Pack_size(d->count, d->type, comm, &ps)))
        return rc;
    *size = (size_t)ps;
    return MPI_SUCCESS;
}

int nh_blk_alt(const nh_bind *b, nh_blk k)
{
    if (!b->limit || k.buf == NH_BUF_TEMP || k.key < 0)
        return 0;
    nh_desc d;
    nh_blk_desc(b, k, &d);
    return d.bytes > b->limit[k.key];
}

/* Header framing.  A block that takes the split route travels here as an
 * empty block (lengths of 0 all along its forwarding path). */
int nh_hdr_bound(const nh_bind *b, nh_blk k, size_t *out)
{
    if (k.buf == NH_BUF_TEMP) {
        *out = b->tlen[k.slot];
        return MPI_SUCCESS;
    }
    if (nh_blk_alt(b, k)) {
        *out = 0;
        return MPI_SUCCESS;
    }
    nh_desc d;
    nh_blk_desc(b, k, &d);
    return pack_size(&d, b->comm, out);
}

int nh_hdr_put(const nh_bind *b, nh_blk k, char *out, size_t room, size_t *len)
{
    if (k.buf == NH_BUF_TEMP) {
        if (b->tlen[k.slot] > room)
            return MPI_ERR_INTERN;
        nh_copy(out, b->store + b->tpos[k.slot], b->tlen[k.slot]);
        *len = b->tlen[k.slot];
        return MPI_SUCCESS;
    }
    if (nh_blk_alt(b, k)) {
        *len = 0;
        return MPI_SUCCESS;
    }
    nh_desc d;
    int pos = 0, rc;
    nh_blk_desc(b, k, &d);
    if ((rc = nh_desc_pack(&d, out, room > INT32_MAX ? INT32_MAX : (int)room, &pos, b->comm)))
        return rc;
    *len = (size_t)pos;
    return MPI_SUCCESS;
}

int nh_hdr_take(nh_bind *b, nh_blk k, const char *in, size_t n, int *uerr)
{
    if (k.buf == NH_BUF_TEMP) {
        int rc = nh_grow(&b->store, &b->storecap, b->storeused + n + 1);
        if (rc)
            return rc;
        nh_copy(b->store + b->storeused, in, n);
        b->tpos[k.slot] = b->storeused;
        b->tlen[k.slot] = n;
        b->storeused += n;
        return MPI_SUCCESS;
    }
    /* This rank's own block: a size that differs from its arguments is an
     * error of the call, but the run goes on so that other ranks complete. */
    nh_desc d;
    int pos = 0, e = MPI_SUCCESS;
    nh_blk_desc(b, k, &d);
    if (nh_blk_alt(b, k)) /* it comes the other way */
        e = n ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    else if (n > INT32_MAX)
        e = MPI_ERR_TRUNCATE;
    else if (!(e = nh_desc_unpack(in, (int)n, &pos, &d, b->comm)) && (size_t)pos != n)
        e = MPI_ERR_TRUNCATE;
    if (e && !*uerr)
        *uerr = e;
    return MPI_SUCCESS;
}

int nh_blk_copy(nh_bind *b, nh_blk from, nh_blk to, int *uerr)
{
    int rc, pos = 0;
    size_t len;
    if (b->o.header) {
        if ((rc = nh_hdr_bound(b, from, &len)) ||
            (rc = nh_grow(&b->scratch, &b->scratch_len, len + 1)) ||
            (rc = nh_hdr_put(b, from, b->scratch, b->scratch_len, &len)))
            return rc;
        return nh_hdr_take(b, to, b->scratch, len, uerr);
    }
    nh_desc f, t;
    nh_blk_desc(b, from, &f);
    nh_blk_desc(b, to, &t);
    if (f.bytes != t.bytes)
        return MPI_ERR_TRUNCATE;
    if (f.bytes == 0)
        return MPI_SUCCESS;
    if (f.contig && t.contig) {
        nh_copy(t.addr, f.addr, f.bytes);
        return MPI_SUCCESS;
    }
    if ((rc = pack_size(&f, b->comm, &len)) ||
        (rc = nh_grow(&b->scratch, &b->scratch_len, len + 1)) ||
        (rc = nh_desc_pack(&f, b->scratch, (int)len, &pos, b->comm)))
        return rc;
    int used = pos;
    pos = 0;
    return nh_desc_unpack(b->scratch, used, &pos, &t, b->comm);
}

/* Appends a move; merged into the previous one of the same group (from
 * index first) when it continues it at both ends and the merged ranges do
 * not overlap, so that one copy does what the two did in order. */
static void move_add(nh_bind *b, int first, char *to, const char *from, size_t n)
{
    if (b->nmoves > first) {
        nh_move *m = &b->moves[b->nmoves - 1];
        uintptr_t t = (uintptr_t)m->to, f = (uintptr_t)m->from, len = m->n + n;
        if (m->to + m->n == to && m->from + m->n == from && (t + len <= f || f + len <= t)) {
            m->n = len;
            return;
        }
    }
    b->moves[b->nmoves++] = (nh_move){to, from, n};
}

/* A packed message's blocks as moves to or from its place in pbuf. */
static void msg_moves(nh_bind *b, nh_msg *g)
{
    const nh_round *r = &b->s->rounds[g->round];
    const nh_blk *blks = (g->send ? r->send : r->recv) + g->first;
    char *at = b->pbuf + g->off;
    g->mv = b->nmoves;
    for (int k = 0; k < g->n; k++) {
        nh_desc d;
        nh_blk_desc(b, blks[k], &d);
        if (d.bytes && !d.contig) {
            b->nmoves = g->mv;
            g->nmv = -1;
            return;
        }
        if (d.bytes)
            move_add(b, g->mv, g->send ? at : d.addr, g->send ? d.addr : at, d.bytes);
        at += d.bytes;
    }
    g->nmv = b->nmoves - g->mv;
}

/* A phase's copy rounds as moves (size mismatches go block by block,
 * where nh_blk_copy reports them). */
static void copy_moves(nh_bind *b, int ph)
{
    int first = b->cmv[ph] = b->nmoves; /* phases in order: cmv[ph + 1] ends it */
    for (int c = b->copy_start[ph]; c < b->copy_start[ph + 1]; c++) {
        const nh_round *r = &b->s->rounds[b->copies[c]];
        for (int k = 0; k < r->nsend && k < r->nrecv; k++) {
            nh_desc f, t;
            nh_blk_desc(b, r->send[k], &f);
            nh_blk_desc(b, r->recv[k], &t);
            if (f.bytes != t.bytes || (f.bytes && !(f.contig && t.contig))) {
                b->nmoves = first;
                b->cslow[ph] = 1;
                return;
            }
            if (f.bytes)
                move_add(b, first, t.addr, f.addr, f.bytes);
        }
    }
}

int nh_moves_build(nh_bind *b)
{
    const nh_sched *s = b->s;
    size_t cap = 0;
    for (int i = 0; i < s->nrounds; i++)
        cap += (size_t)s->rounds[i].nsend + s->rounds[i].nrecv;
    b->moves = malloc((cap + 1) * sizeof(nh_move));
    b->cmv = calloc((size_t)s->nphases + 1, sizeof(int));
    b->cslow = calloc((size_t)s->nphases + 1, 1);
    if (!b->moves || !b->cmv || !b->cslow)
        return MPI_ERR_NO_MEM;
    for (int ph = 0; ph < s->nphases; ph++) {
        if (b->o.header) { /* byte temps: nh_blk_copy */
            b->cmv[ph] = b->nmoves;
            b->cslow[ph] = 1;
        }
        else
            copy_moves(b, ph);
    }
    b->cmv[s->nphases] = b->nmoves;
    for (int j = 0; j < b->nmsgs; j++)
        if (b->msgs[j].packed)
            msg_moves(b, &b->msgs[j]);
    return MPI_SUCCESS;
}
