/* The engine: bindings, the message list and the phase state machine
 * (see engine.h for the rules; blocks.c for block addressing). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/bind.h"
#include "util/sync.h"

#define NH_BIND_CACHE 8

/* ---- bindings ---- */

static void bind_free(nh_bind *b)
{
    if (!b)
        return;
    for (int i = 0; b->preq && i < b->nmsgs; i++)
        if (b->preq[i] != MPI_REQUEST_NULL)
            nh_request_free(&b->preq[i]);
    for (int i = 0; b->msgs && i < b->nmsgs; i++)
        if (b->msgs[i].owned)
            nh_type_free(&b->msgs[i].type);
    for (int i = 0; i < b->ndups; i++)
        nh_type_free(&b->dups[i]);
    free(b->dups);
    free(b->preq);
    free(b->msgs);
    free(b->phase_start);
    free(b->copies);
    free(b->copy_start);
    free(b->moves);
    free(b->cmv);
    free(b->cslow);
    free(b->temp);
    free(b->toff);
    free(b->kdesc);
    free(b->klo);
    free(b->store);
    free(b->tpos);
    free(b->tlen);
    free(b->limit);
    free(b->pbuf);
    free(b->hbuf);
    free(b->inbuf);
    free(b->got);
    free(b->reqs);
    free(b->areqs);
    free(b->stats);
    free(b->scratch);
    if (b->c.vec) {
        free(b->c.s);
        free(b->c.r);
    }
    free(b);
}

static void exec_fini(nh_plan *p, void *state)
{
    nh_exec_state *e = state;
    (void)p;
    while (e->bcache) {
        nh_bind *n = e->bcache->next;
        bind_free(e->bcache);
        e->bcache = n;
    }
}

nh_exec_state *nh_exec_state_of(nh_plan *p)
{
    return nh_plan_ext(p, NH_EXT_EXEC, sizeof(nh_exec_state), exec_fini);
}

long nh_exec_built(nh_plan *p)
{
    nh_exec_state *e = p->ext[NH_EXT_EXEC];
    return e ? e->built : 0;
}

void nh_exec_forget_idle(nh_plan *p)
{
    nh_exec_state *e = p->ext[NH_EXT_EXEC]; /* none made: nothing cached */
    nh_lock(NH_LOCK_REQ); /* (busy: nh_run_bind) */
    for (nh_bind **q = e ? &e->bcache : NULL; q && *q;) {
        nh_bind *b = *q;
        if (b->busy) {
            q = &b->next;
            continue;
        }
        *q = b->next;
        bind_free(b);
    }
    nh_unlock(NH_LOCK_REQ);
}

/* A held binding outlives the call: it describes blocks with duplicates of
 * the call's derived datatypes (one per distinct handle), so the program
 * may free its own types once the call has returned. */
static int dup_types(nh_bind *b)
{
    nh_call *c = &b->c;
    int n = c->vec ? c->ns + c->nr : 2, rc = MPI_SUCCESS;
    MPI_Datatype *orig = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
    b->dups = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
    if (!orig || !b->dups) {
        free(orig);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < n && !rc; i++) {
        MPI_Datatype *t = !c->vec     ? (i ? &c->rtype : &c->stype)
                          : i < c->ns ? &c->s[i].type
                                      : &c->r[i - c->ns].type;
        if (nh_type_named(*t))
            continue;
        int k = 0;
        while (k < b->ndups && orig[k] != *t)
            k++;
        if (k == b->ndups) {
            if ((rc = nh_type_dup(*t, &b->dups[k])))
                break;
            orig[k] = *t;
            b->ndups++;
        }
        *t = b->dups[k];
    }
    free(orig);
    return rc;
}

static int copy_call(nh_bind *b, const nh_call *c)
{
    b->c = *c;
    if (!c->vec)
        return MPI_SUCCESS;
    b->c.s = malloc(((size_t)c->ns + 1) * sizeof(nh_desc));
    b->c.r = malloc(((size_t)c->nr + 1) * sizeof(nh_desc));
    if (!b->c.s || !b->c.r)
        return MPI_ERR_NO_MEM;
    memcpy(b->c.s, c->s, (size_t)c->ns * sizeof(nh_desc));
    memcpy(b->c.r, c->r, (size_t)c->nr * sizeof(nh_desc));
    return MPI_SUCCESS;
}

/* Regular calls: extents and contiguity, once per binding. */
static int regular_facts(nh_bind *b)
{
    const nh_call *c = &b->c;
    MPI_Aint lb;
    int rc;
    if ((rc = nh_mpi_Type_get_extent(c->stype, &lb, &b->sext)) ||
        (rc = nh_mpi_Type_get_extent(c->rtype, &lb, &b->rext)))
        return rc;
    b->scontig = nh_type_contig(c->stype);
    b->rcontig = nh_type_contig(c->rtype);
    return MPI_SUCCESS;
}

/* May the blocks travel packed?  Their packed size must be their data size. */
static int packable(const nh_bind *b, const nh_blk *blks, int n, size_t *total)
{
    size_t sum = 0;
    for (int k = 0; k < n; k++) {
        nh_desc d;
        int ps;
        nh_blk_desc(b, blks[k], &d);
        if (!d.contig && (nh_mpi_Pack_size(d.count, d.type, b->comm, &ps) || (size_t)ps != d.bytes))
            return 0;
        sum += d.bytes;
    }
    if (sum > INT32_MAX)
        return 0;
    *total = sum;
    return 1;
}

/* A sized message of n blocks: the block itself, packed, or a struct. */
static int sized_msg(nh_bind *b, nh_msg *g, const nh_blk *blks)
{
    int n = g->n, rc = MPI_SUCCESS;
    size_t total;
    if (n == 1) {
        nh_desc d;
        nh_blk_desc(b, blks[0], &d);
        g->buf = d.addr;
        g->count = d.count;
        g->type = d.type;
        return MPI_SUCCESS;
    }
    /* AUTO packs up to the eager limit (cheaper than MPI's datatype engine
     * for small messages), above it a struct avoids the copies.  Each rank
     * decides alone: packed and struct messages carry the same bytes. */
    if (b->o.kind != NH_BIND_ZCOPY && b->o.kind != NH_BIND_WHOLE && packable(b, blks, n, &total) &&
        (b->o.kind == NH_BIND_PACK || nh_cfg.cost.eager <= 0 ||
         (double)total <= nh_cfg.cost.eager)) {
        g->packed = 1;
        g->off = b->plen;
        g->bytes = total;
        g->count = (int)total;
        g->type = MPI_PACKED;
        b->plen += total;
        return MPI_SUCCESS;
    }
    int *len = malloc((size_t)n * sizeof(int));
    MPI_Aint *disp = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((size_t)n * sizeof(MPI_Datatype));
    if (!len || !disp || !types)
        rc = MPI_ERR_NO_MEM;
    for (int k = 0; k < n && !rc; k++) {
        nh_desc d;
        nh_blk_desc(b, blks[k], &d);
        len[k] = d.count;
        types[k] = d.type;
        rc = nh_mpi_Get_address(d.addr, &disp[k]);
    }
    if (!rc && !(rc = nh_type_create_struct(n, len, disp, types, &g->type))) {
        g->owned = 1;
        g->buf = MPI_BOTTOM;
        g->count = 1;
        b->zcopy = 1;
    }
    free(len);
    free(disp);
    free(types);
    return rc;
}

/* Appends the messages of one side of round i. */
static int round_msgs(nh_bind *b, int i, int send, size_t *sz)
{
    const nh_round *r = &b->s->rounds[i];
    int n = send ? r->nsend : r->nrecv, peer = send ? r->sendpeer : r->recvpeer, rc;
    const nh_blk *blks = send ? r->send : r->recv;
    if (n == 0 || peer == NH_NONE)
        return MPI_SUCCESS;
    if (r->alt) { /* a split route's block: its message only where it takes this route */
        nh_msg *g = &b->msgs[b->nmsgs];
        if (!nh_blk_alt(b, blks[0]))
            return MPI_SUCCESS;
        *g = (nh_msg){.round = i, .send = send, .n = 1, .peer = peer, .index = r->tag,
                      .type = MPI_DATATYPE_NULL, .sized = 1};
        if ((rc = sized_msg(b, g, blks)))
            return rc;
        b->nmsgs++;
        return MPI_SUCCESS;
    }
    for (int k = 0; k < n && !b->o.header; k++) {
        nh_desc d;
        nh_blk_desc(b, blks[k], &d);
        sz[k] = d.bytes;
    }
    for (int first = 0, chunk = 0; first < n; chunk++) {
        nh_msg *g = &b->msgs[b->nmsgs];
        memset(g, 0, sizeof(*g));
        g->round = i;
        g->send = send;
        g->first = first;
        g->peer = peer;
        g->n = b->o.header                 ? n
               : b->o.kind == NH_BIND_EACH ? 1
               : b->o.kind == NH_BIND_WHOLE
                   ? n
                   : nh_eager_take(sz + first, n - first, nh_cfg.cost.eager);
        g->index = (long)chunk * b->s->ntags + r->tag;
        g->type = MPI_DATATYPE_NULL;
        if (!b->o.header && (rc = sized_msg(b, g, blks + first)))
            return rc;
        b->nmsgs++;
        first += g->n;
    }
    return MPI_SUCCESS;
}

/* The message list in phase order (sized receives first in a phase), the
 * copy rounds by phase, and the run-time arrays. */
static int plan_msgs(nh_bind *b)
{
    const nh_sched *s = b->s;
    int np = s->nphases, rc = MPI_SUCCESS, maxn = 1;
    size_t cap = 0;
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        cap += (size_t)r->nsend + r->nrecv;
        maxn = r->nsend > maxn ? r->nsend : maxn;
        maxn = r->nrecv > maxn ? r->nrecv : maxn;
    }
    size_t *sz = malloc((size_t)maxn * sizeof(size_t));
    int *order = malloc(((size_t)s->nrounds + 1) * sizeof(int));
    b->msgs = calloc(cap + 1, sizeof(nh_msg));
    b->phase_start = calloc((size_t)np + 1, sizeof(int));
    b->copy_start = calloc((size_t)np + 1, sizeof(int));
    b->copies = malloc(((size_t)s->nrounds + 1) * sizeof(int));
    if (!sz || !order || !b->msgs || !b->phase_start || !b->copy_start || !b->copies)
        rc = MPI_ERR_NO_MEM;
    /* Rounds stably sorted by phase (builders may list them out of order). */
    int no = 0;
    for (int ph = 0; ph < np && !rc; ph++) {
        for (int i = 0; i < s->nrounds; i++)
            if (s->rounds[i].phase == ph)
                order[no++] = i;
    }
    int ncopy = 0;
    for (int ph = 0, at = 0; ph < np && !rc; ph++) {
        int a0 = at;
        while (at < no && s->rounds[order[at]].phase == ph)
            at++;
        b->phase_start[ph] = b->nmsgs;
        b->copy_start[ph] = ncopy;
        for (int side = 0; side < 2 && !rc; side++) /* receives, then sends */
            for (int k = a0; k < at && !rc; k++)
                if (!s->rounds[order[k]].copy)
                    rc = round_msgs(b, order[k], side, sz);
        for (int k = a0; k < at; k++)
            if (s->rounds[order[k]].copy)
                b->copies[ncopy++] = order[k];
        if (b->nmsgs > b->phase_start[ph])
            b->msg_phases++;
    }
    if (!rc) {
        b->phase_start[np] = b->nmsgs;
        b->copy_start[np] = ncopy;
        b->reqs = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
        b->areqs = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
        b->stats = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Status));
        b->got = calloc((size_t)b->nmsgs + 1, 1);
        b->pbuf = nh_bind_buf(b, b->plen);
        if (!b->reqs || !b->areqs || !b->stats || !b->got || !b->pbuf)
            rc = MPI_ERR_NO_MEM;
        for (int j = 0; j < b->nmsgs && !rc; j++)
            if (b->msgs[j].packed)
                b->msgs[j].buf = b->pbuf + b->msgs[j].off;
    }
    free(sz);
    free(order);
    return rc;
}

/* Persistent bindings: one MPI persistent request per sized message,
 * created once, so every start only packs and starts them. */
static int bind_persist(nh_bind *b, int slot)
{
    b->preq = malloc((size_t)(b->nmsgs + 1) * sizeof(MPI_Request));
    if (!b->preq)
        return MPI_ERR_NO_MEM;
    for (int j = 0; j < b->nmsgs; j++)
        b->preq[j] = MPI_REQUEST_NULL;
    for (int j = 0; j < b->nmsgs; j++) {
        const nh_msg *g = &b->msgs[j];
        int tag = nh_tag_of(b, g->index, slot);
        if (b->o.header && !g->sized)
            continue;
        int rc = g->send
                     ? nh_send_init(g->buf, g->count, g->type, g->peer, tag, b->comm, &b->preq[j])
                     : nh_recv_init(g->buf, g->count, g->type, g->peer, tag, b->comm, &b->preq[j]);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Split schedules (nh_sched_add_alt): the largest block of each template
 * entry worth forwarding, by the cost model's rule (nh_cost_split_limit)
 * for the entry's hops and the plan's nodes.  The cost constants and the
 * node map are the same on every rank, the sizes the same at both ends
 * of a block. */
static int split_limits(nh_bind *b, const nh_plan *p)
{
    int node_ranks = p->nnodes > 1 ? p->node_ranks : 0;
    b->limit = malloc(((size_t)b->nb->s + 1) * sizeof(size_t));
    if (!b->limit)
        return MPI_ERR_NO_MEM;
    for (int t = 0; t < b->nb->s; t++)
        b->limit[t] = nh_cost_split_limit(&nh_cfg.cost, b->s->hops[t], node_ranks);
    return MPI_SUCCESS;
}

static int bind_new(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                    int held, int persistent, int slot, nh_bind **out)
{
    int rc;
    nh_bind *b = calloc(1, sizeof(*b));
    nh_exec_state *e = nh_exec_state_of(p);
    if (!b)
        return MPI_ERR_NO_MEM;
    if (e)
        e->built++;
    b->pages = !held || persistent; /* cached, or a persistent request's */
    b->s = s;
    b->o = *o;
    b->nb = &p->nb;
    b->comm = p->pcomm;
    b->tag_ub = p->tag_ub;
    if ((rc = copy_call(b, c)) || (held && (rc = dup_types(b))) ||
        (!c->vec && (rc = regular_facts(b))))
        goto fail;
    if (o->header) {
        b->tpos = calloc((size_t)s->ntemp + 1, sizeof(size_t));
        b->tlen = calloc((size_t)s->ntemp + 1, sizeof(size_t));
        if (!b->tpos || !b->tlen) {
            rc = MPI_ERR_NO_MEM;
            goto fail;
        }
    } else if (s->ntemp > 0 && (rc = nh_temps_layout(b))) {
        goto fail;
    }
    if (s->hops && (rc = split_limits(b, p)))
        goto fail;
    if ((rc = plan_msgs(b)) || (rc = nh_moves_build(b)) ||
        (persistent && (rc = bind_persist(b, slot))))
        goto fail;
    *out = b;
    return MPI_SUCCESS;
fail:
    bind_free(b);
    return rc;
}

static int same_desc(const nh_desc *a, const nh_desc *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].addr != b[i].addr || a[i].count != b[i].count || a[i].type != b[i].type)
            return 0;
    return 1;
}

static int same_call(const nh_bind *b, const nh_sched *s, const nh_call *c, const nh_bind_opts *o)
{
    const nh_call *k = &b->c;
    if (b->busy || b->s != s || k->vec != c->vec || b->o.kind != o->kind ||
        b->o.header != o->header || b->o.model != o->model)
        return 0;
    if (!c->vec)
        return k->sbuf == c->sbuf && k->rbuf == c->rbuf && k->scount == c->scount &&
               k->rcount == c->rcount && k->stype == c->stype && k->rtype == c->rtype;
    return k->ns == c->ns && k->nr == c->nr && same_desc(k->s, c->s, c->ns) &&
           same_desc(k->r, c->r, c->nr);
}

/* Cached binding for exactly these arguments, or a new one (cached when
 * every type is predefined).  *owned tells the caller to free it after
 * use.  A binding in use by an outstanding operation is skipped. */
static int bind_get(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                    nh_bind **out, int *owned)
{
    nh_exec_state *e = c->named ? nh_exec_state_of(p) : NULL;
    nh_bind **pp = e ? &e->bcache : NULL, *b;
    int n = 0, rc;
    for (; e && (b = *pp); pp = &b->next, n++)
        if (same_call(b, s, c, o)) {
            *pp = b->next; /* move to front */
            b->next = e->bcache;
            e->bcache = b;
            *out = b;
            *owned = 0;
            return MPI_SUCCESS;
        }
    if ((rc = bind_new(p, s, c, o, 0, 0, 0, &b)))
        return rc;
    *out = b;
    *owned = !e;
    if (e) { /* the plan, below, frees the cache (exec_fini) */
        b->next = e->bcache;
        e->bcache = b;
        if (++n > NH_BIND_CACHE) { /* drop the least recently used idle one */
            nh_bind **q = &e->bcache, **last = NULL;
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

/* ---- runs ---- */

static int post_sized(nh_run *x, const nh_msg *g, int j, MPI_Request *req)
{
    nh_bind *b = x->b;
    int rc;
    if (g->send && g->packed && g->nmv >= 0) {
        nh_moves_run(b->moves + g->mv, g->nmv);
    } else if (g->send && g->packed) {
        const nh_blk *blks = b->s->rounds[g->round].send + g->first;
        int pos = 0;
        for (int k = 0; k < g->n; k++) {
            nh_desc d;
            nh_blk_desc(b, blks[k], &d);
            if ((rc = nh_desc_pack(&d, g->buf, g->count, &pos, b->comm)))
                return rc;
        }
    }
    if (b->preq) {
        rc = nh_mpi_Start(&b->preq[j]);
        *req = b->preq[j];
    } else {
        int tag = nh_tag_of(b, g->index, x->slot);
        rc = g->send ? nh_isend(g->buf, g->count, g->type, g->peer, tag, b->comm, req)
                     : nh_irecv(g->buf, g->count, g->type, g->peer, tag, b->comm, req);
    }
    return rc;
}

/* Receives first (the list has them first in a phase), then sends. */
static int post(nh_run *x)
{
    nh_bind *b = x->b;
    int m0 = b->phase_start[x->ph], m1 = b->phase_start[x->ph + 1], rc = MPI_SUCCESS;
    x->nreq = 0;
    x->pending = 0;
    for (int j = m0; j < m1 && !rc; j++) {
        const nh_msg *g = &b->msgs[j];
        if (b->o.header && !g->sized && !g->send) {
            b->got[j] = 0;
            x->pending++;
        } else if (g->sized) { /* a split route's message: waited for at the end */
            if (!(rc = post_sized(x, g, j, &b->areqs[x->nalt])))
                x->nalt++;
        } else if (!b->o.header) {
            if (!(rc = post_sized(x, g, j, &b->reqs[x->nreq])))
                x->nreq++;
        }
    }
    if (!rc && b->o.header)
        rc = nh_hdr_post(x, m0, m1);
    return rc;
}

/* After the phase's messages completed: unpack what arrived packed, then
 * the phase's local copies. */
static int phase_finish(nh_run *x)
{
    nh_bind *b = x->b;
    int rc = MPI_SUCCESS, ph = x->ph;
    for (int j = b->phase_start[ph]; j < b->phase_start[ph + 1] && !rc; j++) {
        const nh_msg *g = &b->msgs[j];
        if (g->send || !g->packed)
            continue;
        if (g->nmv >= 0) {
            nh_moves_run(b->moves + g->mv, g->nmv);
            continue;
        }
        const nh_blk *blks = b->s->rounds[g->round].recv + g->first;
        for (int k = 0, pos = 0; k < g->n && !rc; k++) {
            nh_desc d;
            nh_blk_desc(b, blks[k], &d);
            rc = nh_desc_unpack(g->buf, g->count, &pos, &d, b->comm);
        }
    }
    if (!rc && !b->cslow[ph])
        nh_moves_run(b->moves + b->cmv[ph], b->cmv[ph + 1] - b->cmv[ph]);
    for (int c = b->copy_start[ph]; b->cslow[ph] && c < b->copy_start[ph + 1] && !rc; c++) {
        const nh_round *r = &b->s->rounds[b->copies[c]];
        for (int k = 0; k < r->nsend && k < r->nrecv && !rc; k++)
            rc = nh_blk_copy(b, r->send[k], r->recv[k], &x->uerr);
    }
    return rc;
}

int nh_run_progress(nh_run *x, int block, int *done)
{
    nh_bind *b = x->b;
    int rc = MPI_SUCCESS;
    *done = 0;
    while (x->ph < b->s->nphases) {
        if (!x->posted) {
            x->posted = 1;
            if ((rc = post(x)))
                break;
        }
        if (x->pending && ((rc = nh_hdr_take_phase(x, block)) || x->pending))
            break;
        if (x->nreq) {
            int flag = 1;
            rc = block ? nh_waitall(x->nreq, b->reqs, b->stats)
                       : nh_testall(x->nreq, b->reqs, &flag, b->stats);
            if (rc || !flag)
                break;
            x->nreq = 0;
        }
        if ((rc = phase_finish(x)))
            break;
        x->ph++;
        x->posted = 0;
    }
    if (rc) { /* nothing more is posted; MPI errors stop the run */
        x->ph = b->s->nphases;
        *done = 1;
        return rc;
    }
    if (x->ph < b->s->nphases)
        return MPI_SUCCESS;
    if (x->nalt) { /* split routes' messages, posted with the first phase */
        int flag = 1;
        rc = block ? nh_waitall(x->nalt, b->areqs, b->stats)
                   : nh_testall(x->nalt, b->areqs, &flag, b->stats);
        if (!rc && !flag)
            return MPI_SUCCESS;
        x->nalt = 0;
        if (rc) {
            *done = 1;
            return rc;
        }
    }
    *done = 1;
    return x->uerr;
}

static void reset(nh_run *x)
{
    x->ph = 0;
    x->posted = 0;
    x->nreq = 0;
    x->nalt = 0;
    x->pending = 0;
    x->uerr = MPI_SUCCESS;
    x->b->storeused = 0;
}

int nh_run_start(nh_run *x, int *done)
{
    reset(x);
    return nh_run_progress(x, 0, done);
}

int nh_run_bind(nh_run *x, nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                int held, int persistent, int slot)
{
    int rc;
    memset(x, 0, sizeof(*x));
    x->p = p;
    x->slot = slot;
    if (persistent || (held && !c->named)) { /* (held: the types duplicated) */
        rc = bind_new(p, s, c, o, held, persistent, slot, &x->b);
        x->owned = 1;
        if (!rc)
            x->b->busy = 1;
    } else {
        /* One thread at a time calls a communicator's collectives (MPI
         * forbids concurrent ones), but under MPI_THREAD_MULTIPLE another
         * thread may complete one of its requests, or nhood's progress
         * thread: a binding is released under NH_LOCK_REQ
         * (exec/request.c), and taken under it.  (Before, each request
         * there built a binding of its own.) */
        nh_lock(NH_LOCK_REQ);
        rc = bind_get(p, s, c, o, &x->b, &x->owned);
        if (!rc)
            x->b->busy = 1;
        nh_unlock(NH_LOCK_REQ);
    }
    if (rc)
        return rc;
    x->ph = s->nphases; /* not started */
    return MPI_SUCCESS;
}

void nh_run_release(nh_run *x)
{
    if (!x->b)
        return;
    x->b->busy = 0; /* (a request's under NH_LOCK_REQ: nh_run_bind) */
    if (x->owned)
        bind_free(x->b);
    x->b = NULL;
}

int nh_run_msg_phases(const nh_run *x)
{
    return x->b->msg_phases;
}

int nh_run_zcopy(const nh_run *x)
{
    return x->b->zcopy;
}

int nh_run_blocking(nh_plan *p, const nh_sched *s, const nh_call *c, const nh_bind_opts *o,
                    int *zcopy)
{
    nh_run x;
    int done, rc = nh_run_bind(&x, p, s, c, o, 0, 0, 0);
    if (rc)
        return rc;
    reset(&x);
    rc = nh_run_progress(&x, 1, &done);
    *zcopy = x.b->zcopy;
    nh_run_release(&x);
    return rc;
}
