/* Schedule construction helpers and the eager-split rule. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

int nh_eager_take(const size_t *sz, int n, double eager)
{
    int k = 0;
    double bytes = 0;
    while (k < n && (k == 0 || eager <= 0 || bytes + (double)sz[k] <= eager))
        bytes += (double)sz[k++];
    return k;
}

int nh_eager_chunk(size_t m, int n, double eager)
{
    if (m == 0 || eager <= 0 || (double)m * n <= eager)
        return n;
    int k = (int)(eager / (double)m);
    return k >= 1 ? k : 1;
}

nh_sched *nh_sched_new(nh_algo algo, nh_op op)
{
    nh_sched *s = calloc(1, sizeof(*s));
    if (s) {
        s->algo = algo;
        s->op = op;
        s->cur_key = -1;
    }
    return s;
}

int nh_sched_add_round(nh_sched *s, int phase, int sendpeer, int recvpeer, int copy)
{
    if (s->nrounds == s->caprounds) {
        int cap = s->caprounds ? 2 * s->caprounds : 16;
        nh_round *r = realloc(s->rounds, (size_t)cap * sizeof(*r));
        if (!r) {
            s->oom = 1;
            return -1;
        }
        s->rounds = r;
        s->caprounds = cap;
    }
    nh_round *r = &s->rounds[s->nrounds];
    memset(r, 0, sizeof(*r));
    r->phase = phase;
    r->copy = copy;
    r->sendpeer = sendpeer;
    r->recvpeer = recvpeer;
    return s->nrounds++;
}

int nh_sched_add_hop(nh_sched *s, int phase, const nh_nbhd *nb, const int *hop)
{
    int r = nh_sched_add_round(s, phase, nh_grid_shift(&nb->g, nb->coords, hop, +1),
                               nh_grid_shift(&nb->g, nb->coords, hop, -1), 0);
    if (r >= 0) {
        s->rounds[r].has_hop = 1;
        memcpy(s->rounds[r].hop, hop, (size_t)nb->g.ndims * sizeof(int));
    }
    return r;
}

static void push(nh_sched *s, nh_blk **v, int *n, int *cap, int buf, int slot)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 8;
        nh_blk *nv = realloc(*v, (size_t)c * sizeof(**v));
        if (!nv) {
            s->oom = 1;
            return;
        }
        *v = nv;
        *cap = c;
    }
    (*v)[*n].buf = buf;
    (*v)[*n].slot = slot;
    (*v)[*n].key = s->cur_key;
    (*n)++;
}

void nh_sched_add_send(nh_sched *s, int round, int buf, int slot)
{
    if (round < 0)
        return;
    nh_round *r = &s->rounds[round];
    push(s, &r->send, &r->nsend, &r->capsend, buf, slot);
}

void nh_sched_add_recv(nh_sched *s, int round, int buf, int slot)
{
    if (round < 0)
        return;
    nh_round *r = &s->rounds[round];
    push(s, &r->recv, &r->nrecv, &r->caprecv, buf, slot);
}

int nh_vec_push(void *v, int *n, int *cap, const void *x, size_t size)
{
    char *a;
    memcpy(&a, v, sizeof(a));
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        char *na = realloc(a, (size_t)c * size);
        if (!na)
            return -1;
        a = na;
        memcpy(v, &a, sizeof(a));
        *cap = c;
    }
    memcpy(a + (size_t)(*n)++ * size, x, size);
    return 0;
}

void nh_sched_add_copy(nh_sched *s, int cr, int key, nh_blk from, int recv_slot)
{
    s->rounds[cr].tmpl_blocks++;
    if (recv_slot == NH_NONE)
        return;
    s->cur_key = key;
    nh_sched_add_send(s, cr, from.buf, from.slot);
    nh_sched_add_recv(s, cr, NH_BUF_RECV, recv_slot);
}

int nh_sched_temp(nh_sched *s)
{
    return s->ntemp++;
}

/* Temp slots are allocated freely by the builders (one per node, two per
 * path); here they are packed: a slot's live range runs from the phase of
 * its first write to the phase of its last read, and slots whose ranges do
 * not overlap share storage (phases run one after another, so a slot read
 * in phase q may be written again in phase q + 1).  Greedy assignment in
 * order of first write is optimal for intervals.  Slot numbers are local to
 * the rank, so every rank may pack its own way. */
static int pack_temps(nh_sched *s)
{
    int v = s->ntemp, nphys = 0, rc = -1;
    if (v == 0)
        return 0;
    int *first = malloc((size_t)v * sizeof(int)), *last = malloc((size_t)v * sizeof(int));
    int *order = malloc((size_t)v * sizeof(int)), *phys = malloc((size_t)v * sizeof(int));
    int *busy_until = malloc((size_t)v * sizeof(int));
    if (!first || !last || !order || !phys || !busy_until)
        goto out;
    for (int i = 0; i < v; i++) {
        first[i] = -1;
        last[i] = -1;
    }
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        for (int k = 0; k < r->nrecv; k++)
            if (r->recv[k].buf == NH_BUF_TEMP && first[r->recv[k].slot] < 0)
                first[r->recv[k].slot] = r->phase;
        for (int k = 0; k < r->nsend; k++)
            if (r->send[k].buf == NH_BUF_TEMP)
                last[r->send[k].slot] = r->phase;
    }
    int n = 0;
    for (int i = 0; i < v; i++) {
        phys[i] = -1;
        if (first[i] < 0)
            continue; /* never written on this rank (mesh boundary): unused */
        if (last[i] < first[i])
            last[i] = first[i];
        int k = n++; /* insertion by first write; stable */
        while (k > 0 && first[order[k - 1]] > first[i]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    for (int k = 0; k < n; k++) {
        int i = order[k], p = 0;
        while (p < nphys && busy_until[p] >= first[i])
            p++;
        if (p == nphys)
            nphys++;
        busy_until[p] = last[i];
        phys[i] = p;
    }
    for (int i = 0; i < s->nrounds; i++) {
        nh_round *r = &s->rounds[i];
        for (int k = 0; k < r->nrecv; k++)
            if (r->recv[k].buf == NH_BUF_TEMP)
                r->recv[k].slot = phys[r->recv[k].slot];
        for (int k = 0; k < r->nsend; k++)
            if (r->send[k].buf == NH_BUF_TEMP)
                r->send[k].slot = phys[r->send[k].slot];
    }
    s->ntemp = nphys;
    rc = 0;
out:
    free(first);
    free(last);
    free(order);
    free(phys);
    free(busy_until);
    return rc;
}

int nh_sched_finish(nh_sched *s)
{
    if (s->oom)
        return -1;
    /* Keep rounds that move something on an interior rank.  The decision
     * uses template counts only, so every rank drops the same rounds and
     * round indices (message tags) stay aligned. */
    int k = 0, lastphase = -1, phase = -1, lastcomm = -1;
    for (int i = 0; i < s->nrounds; i++) {
        nh_round *r = &s->rounds[i];
        if (r->tmpl_blocks == 0) {
            free(r->send);
            free(r->recv);
            continue;
        }
        if (r->phase != lastphase) {
            lastphase = r->phase;
            phase++;
        }
        r->phase = phase;
        r->tag = k;
        s->rounds[k++] = *r;
        if (r->copy) {
            s->tmpl_copies += r->tmpl_blocks;
        } else {
            if (lastcomm != phase) {
                lastcomm = phase;
                s->tmpl_rounds++;
            }
            s->tmpl_msgs++;
            s->tmpl_blocks += r->tmpl_blocks;
            if (r->tmpl_blocks > 1)
                s->tmpl_multi += r->tmpl_blocks;
        }
    }
    s->nrounds = k;
    s->ntags = k;
    s->nphases = phase + 1;
    return pack_temps(s);
}

/* Do x and y list the same blocks (buffer and slot) in the same order? */
static int same_blocks(const nh_blk *x, const nh_blk *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i].buf != y[i].buf || x[i].slot != y[i].slot)
            return 0;
    return 1;
}

int nh_sched_alike(const nh_sched *a, const nh_sched *b, int same_lists)
{
    /* (the statistics nh_sched_finish sums over the rounds follow) */
    if (a->op != b->op || a->nrounds != b->nrounds || a->hops || b->hops)
        return 0;
    for (int i = 0; i < a->nrounds; i++) {
        const nh_round *x = &a->rounds[i], *y = &b->rounds[i];
        if (x->phase != y->phase || x->copy != y->copy || x->tmpl_blocks != y->tmpl_blocks)
            return 0;
        /* a message round: the same hop on the grid (the same peers on
         * every rank, posted in the same order); one without a hop names
         * this rank's peers only, which may differ elsewhere */
        if (!x->copy && (!x->has_hop || !y->has_hop || memcmp(x->hop, y->hop, sizeof(x->hop))))
            return 0;
        /* the blocks themselves, where every rank lists the same ones
         * (two schedules of the same counts may copy or pack other blocks,
         * from other places); elsewhere a copy round is never alike,
         * since which blocks it copies from where could differ on some
         * rank (a message round keeps its hop and count there) */
        if (same_lists ? x->nsend != y->nsend || x->nrecv != y->nrecv ||
                             !same_blocks(x->send, y->send, x->nsend) ||
                             !same_blocks(x->recv, y->recv, x->nrecv)
                       : x->copy)
            return 0;
    }
    return 1;
}

void nh_sched_free(nh_sched *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nrounds; i++) {
        free(s->rounds[i].send);
        free(s->rounds[i].recv);
    }
    free(s->rounds);
    free(s->hops);
    free(s->node_ph);
    free(s);
}

int nh_sched_add_alt(nh_sched *s, const nh_nbhd *nb, int per_dim)
{
    int nd = nb->g.ndims, base = s->ntags;
    s->hops = calloc((size_t)nb->s + 1, sizeof(int));
    if (!s->hops)
        return -1;
    for (int t = 0; t < nb->s; t++) {
        const int *off = nb->off + (size_t)t * nd;
        for (int j = 0; j < nd; j++)
            s->hops[t] += per_dim ? off[j] != 0 : abs(off[j]);
        if (!s->hops[t]) /* the rank itself: a local copy either way */
            continue;
        int sp = nb->send_slot[t] == NH_NONE ? NH_NONE : nh_grid_shift(&nb->g, nb->coords, off, +1);
        int rp = nb->recv_slot[t] == NH_NONE ? NH_NONE : nh_grid_shift(&nb->g, nb->coords, off, -1);
        int r = nh_sched_add_round(s, 0, sp, rp, 0);
        if (r < 0)
            return -1;
        s->rounds[r].alt = 1;
        s->rounds[r].tag = base + t;
        s->cur_key = t;
        if (sp != NH_NONE)
            nh_sched_add_send(s, r, NH_BUF_SEND, nb->send_slot[t]);
        if (rp != NH_NONE)
            nh_sched_add_recv(s, r, NH_BUF_RECV, nb->recv_slot[t]);
    }
    s->cur_key = -1;
    s->ntags = base + nb->s;
    return s->oom ? -1 : 0;
}
