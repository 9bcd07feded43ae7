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

/* Directed loads on the links between nodes in one phase.  The nodes,
 * in rank order, lie along rings of `ring` (place ord % ring, ring
 * ord / ring); a message goes the shorter way round its source's ring,
 * then from ring to ring at its destination's place (nh_node_hops).
 * Each message adds its blocks to a range of links through difference
 * arrays, so it costs O(1), and a phase's busiest link O(nodes). */
typedef struct {
    int ring, rows;
    long *along;  /* [dir][row][ring + 1]: link from place i to i + 1 (up) or i - 1 */
    long *across; /* [dir][place][rows + 1]: link from ring b to b + 1 (up) or back */
} link_loads;

static int loads_init(link_loads *l, int nnodes, int ring)
{
    l->ring = ring;
    l->rows = (nnodes + ring - 1) / ring;
    l->along = calloc((size_t)2 * l->rows * (ring + 1), sizeof(long));
    l->across = calloc((size_t)2 * ring * (l->rows + 1), sizeof(long));
    return l->along && l->across ? 0 : -1;
}

/* b blocks on links lo, lo + 1, ..., lo + len - 1 round a ring of n */
static void ring_add(long *d, int n, int lo, int len, long b)
{
    d[lo] += b;
    if (lo + len <= n) {
        d[lo + len] -= b;
    } else {
        d[n] -= b;
        d[0] += b;
        d[lo + len - n] -= b;
    }
}

/* blocks from node a to node b on every link of the way; returns its
 * hops (nh_node_hops) */
static int loads_add(link_loads *l, int a, int b, long blocks)
{
    int R = l->ring, pa = a % R, ra = a / R, pb = b % R, rb = b / R, up;
    int h = nh_node_hops(pa, pb, R, &up);
    long *row = l->along + ((size_t)(up ? 0 : 1) * l->rows + ra) * (R + 1);
    if (h > 0)
        ring_add(row, R, up ? pa : (pa - h + 1 + R) % R, h, blocks);
    if (ra != rb) {
        long *col = l->across + ((size_t)(rb > ra ? 0 : 1) * R + pb) * (l->rows + 1);
        col[ra < rb ? ra : rb] += blocks;
        col[ra < rb ? rb : ra] -= blocks;
    }
    return h + abs(rb - ra);
}

/* the busiest of `lines` rings or columns of len links; clears them */
static long loads_peak(long *d, size_t lines, int len)
{
    long peak = 0;
    for (size_t i = 0; i < lines; i++, d += len + 1) {
        long run = 0;
        for (int j = 0; j <= len; j++) {
            run += d[j];
            peak = run > peak ? run : peak;
            d[j] = 0;
        }
    }
    return peak;
}

/* The most blocks the ranks of one node send off it in one phase, and
 * the busiest link's, kept in s->node_ph[phase]. */
static void phase_peak(nh_sched *s, int phase, long *cur, link_loads *l, int nnodes)
{
    nh_node_phase *ph = &s->node_ph[phase];
    for (int n = 0; n < nnodes; n++) {
        if (cur[n] > ph->blocks)
            ph->blocks = cur[n];
        cur[n] = 0;
    }
    long a = loads_peak(l->along, (size_t)2 * l->rows, l->ring),
         b = loads_peak(l->across, (size_t)2 * l->ring, l->rows);
    ph->link_blocks = a > b ? a : b;
}

int nh_node_number(int *node_of, int p, int *ord)
{
    int n = 0;
    for (int r = 0; r < p; r++)
        ord[r] = -1;
    for (int q = 0; q < p; q++) {
        if (ord[node_of[q]] < 0)
            ord[node_of[q]] = n++;
        node_of[q] = ord[node_of[q]];
    }
    return n;
}

int nh_node_hops(int a, int b, int ring, int *up)
{
    int along = ((b % ring - a % ring) % ring + ring) % ring, rows = abs(b / ring - a / ring);
    *up = 2 * along <= ring;
    return (*up ? along : ring - along) + rows;
}

int nh_tier_hops(const nh_net *net, int a, int b)
{
    int h = 1;
    for (int k = 0; k < NH_NET_TIERS && net->tier[k] > 0; k++)
        h += a / net->tier[k] != b / net->tier[k];
    return h;
}

void nh_sched_node_stats(nh_sched *s, const nh_grid *g, const int *node_of, int nnodes,
                         const nh_net *net)
{
    int p = g->size, d = g->ndims, lastphase = -1, curph = -1, ring = net->ring,
        tiers = net->tier[0] > 0;
    s->node_phases = 0;
    s->node_blocks = 0;
    free(s->node_ph);
    s->node_ph = calloc((size_t)s->nphases + 1, sizeof(*s->node_ph));
    /* off: the blocks each node sends off it in the whole schedule; cur:
     * in the current phase */
    long *off = calloc((size_t)nnodes + 1, sizeof(long)),
         *cur = calloc((size_t)nnodes + 1, sizeof(long));
    link_loads l = {0, 0, NULL, NULL};
    int whole = s->node_ph && cur;
    if (whole) {
        /* a ring of twice the nodes or more never takes the way round:
         * the same hops and loads as any larger one, in O(nodes) memory */
        if (ring <= 0)
            ring = nnodes;
        else if (ring > 2 * nnodes)
            ring = 2 * nnodes;
        whole = tiers || loads_init(&l, nnodes, ring) == 0;
    }
    for (int i = 0; off && i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        if (r->copy || !r->has_hop)
            continue;
        if (whole && curph >= 0 && r->phase != curph)
            phase_peak(s, curph, cur, &l, nnodes);
        curph = r->phase;
        int c[NH_MAXDIMS] = {0}, cross = 0;
        for (int q = 0; q < p; q++) { /* c: coordinates of q, row-major */
            int t = nh_grid_shift(g, c, r->hop, +1);
            if (t != NH_NONE && node_of[t] != node_of[q]) {
                off[node_of[q]] += r->tmpl_blocks;
                if (whole) {
                    int h = tiers ? nh_tier_hops(net, node_of[q], node_of[t])
                                  : loads_add(&l, node_of[q], node_of[t], r->tmpl_blocks);
                    cur[node_of[q]] += r->tmpl_blocks;
                    if (h - 1 > s->node_ph[r->phase].far)
                        s->node_ph[r->phase].far = h - 1;
                }
                cross = 1;
            }
            for (int j = d - 1; j >= 0 && ++c[j] == g->dims[j]; j--)
                c[j] = 0;
        }
        if (cross && r->phase != lastphase) {
            lastphase = r->phase;
            s->node_phases++;
        }
    }
    if (whole && curph >= 0)
        phase_peak(s, curph, cur, &l, nnodes);
    for (int n = 0; off && n < nnodes; n++)
        if (off[n] > s->node_blocks)
            s->node_blocks = off[n];
    if (!whole || !off) { /* without the per-phase peaks, the node's blocks spread evenly */
        free(s->node_ph);
        s->node_ph = NULL;
    }
    free(off);
    free(cur);
    free(l.along);
    free(l.across);
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
