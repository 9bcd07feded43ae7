/* What a schedule's phases send between nodes, for the cost model's
 * node and network terms (nh_sched_node_stats, core/sched.h): the blocks
 * off each node, the farthest message, and the busiest link of rings (a
 * torus) or of a hierarchy (a dragonfly), with when it starts and how many
 * of its messages one rank receives.  Pure: no MPI. */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

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
    int *first_along, *first_across; /* [dir][row][ring], [dir][place][rows]: the
                                      * message of the phase first on the link, + 1 */
} link_loads;

static int loads_init(link_loads *l, int nnodes, int ring)
{
    l->ring = ring;
    l->rows = (nnodes + ring - 1) / ring;
    l->along = calloc((size_t)2 * l->rows * (ring + 1), sizeof(long));
    l->across = calloc((size_t)2 * ring * (l->rows + 1), sizeof(long));
    l->first_along = calloc((size_t)2 * l->rows * ring, sizeof(int));
    l->first_across = calloc((size_t)2 * ring * l->rows, sizeof(int));
    return l->along && l->across && l->first_along && l->first_across ? 0 : -1;
}

static void loads_free(link_loads *l)
{
    free(l->along);
    free(l->across);
    free(l->first_along);
    free(l->first_across);
}

/* The busiest link of a phase and when its first message is posted.  A
 * link drains from its first message on, so of two links as busy the
 * one that starts later bounds the phase. */
typedef struct {
    double blocks; /* on the busiest link (per link of a bundle) */
    int after;     /* the messages a rank posts in the phase before that link's first */
    int set;       /* which link: along (0) or across (1) rings, or a tier's digit */
    size_t idx;    /* and its place there (line * links per line + link) */
} link_peak;

static void peak_take(link_peak *pk, double blocks, int first, int set, size_t idx)
{
    if (blocks > pk->blocks || (blocks == pk->blocks && blocks > 0 && first - 1 > pk->after)) {
        pk->blocks = blocks;
        pk->after = first - 1;
        pk->set = set;
        pk->idx = idx;
    }
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

/* whether the way from node a to node b takes link idx of set (0:
 * along a ring, 1: across them; link_peak) */
static int ring_uses(const link_loads *l, int a, int b, int set, size_t idx)
{
    int R = l->ring, pa = a % R, ra = a / R, pb = b % R, rb = b / R, up;
    int h = nh_node_hops(pa, pb, R, &up);
    if (set == 0) {
        int lo = up ? pa : (pa - h + 1 + R) % R, j = (int)(idx % (size_t)R);
        return h > 0 && idx / (size_t)R == (size_t)(up ? 0 : 1) * l->rows + ra &&
               (j - lo + R) % R < h;
    }
    int j = (int)(idx % (size_t)l->rows);
    return ra != rb && idx / (size_t)l->rows == (size_t)(rb > ra ? 0 : 1) * R + pb &&
           j >= (ra < rb ? ra : rb) && j < (ra < rb ? rb : ra);
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

/* Loads on a hierarchy's links (net->tier[0] > 0) in one phase.  The
 * nodes in rank order fill routers (first-tier units) of tier[0] nodes; a
 * router's digit k is its place in its unit of tier k + 1 (a chassis: its
 * slot; a group: its chassis), the top tier's digit the unit itself.  A
 * block between routers sets the digits from the first up, one link each
 * (minimal routing in a dragonfly's group: to the router in the
 * destination's slot of its own chassis, then to that slot's router in
 * the destination's chassis); the links of a third tier between two of
 * its units form one bundle.  Tier k's link carries net->links[k] links'
 * worth (0: one).  With net->gateway a block between top units first
 * goes to its unit's router for the other unit (tier_gate), and leaves the
 * bundle at the other unit's router for its own (SimGrid's dragonfly puts
 * all links between two groups on one router pair).  There a link drains
 * from the last message that puts blocks between top units on it, not
 * from the first: in SimGrid's dragonfly the messages between two groups
 * arrive about as much later as a rank takes to post them (6 messages a
 * rank against 2 of three times the size, the same bytes on every link:
 * 1.3 us later at 4.6 KB and at 41 KB on the busiest link alike;
 * docs/simulation.md, two groups). */
typedef struct {
    int levels, routers;   /* tiers set; routers with a row (whole top units) */
    int gateway;           /* nh_net's: top units joined by one router pair */
    int per[NH_NET_TIERS]; /* routers per unit of digit k's tier (per[0] = 1) */
    int n[NH_NET_TIERS];   /* values digit k takes */
    double width[NH_NET_TIERS];
    long *load[NH_NET_TIERS]; /* digit k: [router, or top unit of a bundle][digit] */
    int *first[NH_NET_TIERS]; /* the message of the phase first on the link, + 1 */
    int *last[NH_NET_TIERS];  /* the message of the phase last to put blocks between top units
                               * on the link (gateway), + 1 */
    int msg;                  /* the message being walked (nh_sched_node_stats) */
} tier_loads;

#define NH_TIER_LOADS_MAX (1 << 22) /* entries; beyond, no loads (0) */
#define NH_TIER_BUNDLED 2           /* the third tier's links between two units: a bundle */

static int tier_digit(const tier_loads *t, int k, int r)
{
    return k + 1 < t->levels ? r % t->per[k + 1] / t->per[k] : r / t->per[k];
}

static int tier_init(tier_loads *t, const nh_net *net, int nnodes)
{
    memset(t, 0, sizeof(*t));
    while (t->levels < NH_NET_TIERS && net->tier[t->levels] > 0)
        t->levels++;
    int R = (nnodes + net->tier[0] - 1) / net->tier[0];
    t->per[0] = 1;
    t->gateway = net->gateway;
    for (int k = 1; k < t->levels; k++) {
        t->per[k] = net->tier[k] / net->tier[0];
        if (net->tier[k] % net->tier[k - 1] || t->per[k] <= t->per[k - 1]) {
            t->levels = 0; /* not a hierarchy of whole units: no loads */
            return 0;
        }
    }
    int top = t->per[t->levels - 1], units = (R + top - 1) / top;
    t->routers = units * top;
    size_t total = 0;
    for (int k = 0; k < t->levels; k++) {
        t->n[k] = k + 1 < t->levels ? t->per[k + 1] / t->per[k] : units;
        t->width[k] = net->links[k] > 0 ? net->links[k] : 1;
        total += (size_t)(k == NH_TIER_BUNDLED ? units : t->routers) * (size_t)t->n[k];
    }
    if (total > NH_TIER_LOADS_MAX) {
        t->levels = 0; /* too large to map: no loads */
        return 0;
    }
    for (int k = 0; k < t->levels; k++) {
        size_t rows = (size_t)(k == NH_TIER_BUNDLED ? units : t->routers);
        t->load[k] = calloc(rows * (size_t)t->n[k] + 1, sizeof(long));
        t->first[k] = calloc(rows * (size_t)t->n[k] + 1, sizeof(int));
        t->last[k] = calloc(rows * (size_t)t->n[k] + 1, sizeof(int));
        if (!t->load[k] || !t->first[k] || !t->last[k])
            return -1;
    }
    return 0;
}

/* The router of top unit u that holds its links to top unit v under a
 * gateway: first-tier place v (modulo the places), place 0 above. */
static int tier_gate(const tier_loads *t, int u, int v)
{
    return u * t->per[t->levels - 1] + v % t->n[0];
}

/* Digits [k0, k1) of router *cur set to b's, from the first up, a link
 * each: adds blocks to those links (where `between` top units, marks them
 * with the message in last); returns whether link idx of digit set is one
 * of them. */
static int tier_digits(tier_loads *t, int *cur, int b, int k0, int k1, long blocks, int between,
                       int set, size_t idx)
{
    int on = 0;
    for (int k = k0; k < k1; k++) {
        int from = tier_digit(t, k, *cur), to = tier_digit(t, k, b);
        if (from == to)
            continue;
        size_t row = (size_t)(k == NH_TIER_BUNDLED ? *cur / t->per[k] : *cur),
               at = row * (size_t)t->n[k] + (size_t)to;
        t->load[k][at] += blocks;
        if (between && blocks > 0)
            t->last[k][at] = t->msg + 1;
        on |= k == set && at == idx;
        *cur += (to - from) * t->per[k];
    }
    return on;
}

/* The way from router a to router b: adds blocks to each link on it;
 * returns whether link idx of digit set is one of them. */
static int tier_walk(tier_loads *t, int a, int b, long blocks, int set, size_t idx)
{
    int cur = a, top = t->levels - 1, on = 0;
    if (t->gateway && top == NH_TIER_BUNDLED && tier_digit(t, top, a) != tier_digit(t, top, b)) {
        int su = tier_digit(t, top, a), du = tier_digit(t, top, b);
        on |= tier_digits(t, &cur, tier_gate(t, su, du), 0, top, blocks, 1, set, idx);
        on |= tier_digits(t, &cur, b, top, top + 1, blocks, 1, set, idx); /* the bundle */
        cur = tier_gate(t, du, su);
        return on | tier_digits(t, &cur, b, 0, t->levels, blocks, 1, set, idx);
    }
    return on | tier_digits(t, &cur, b, 0, t->levels, blocks, 0, set, idx);
}

/* loads_scan's work on a hierarchy: after message msg, links loaded for
 * the first time get msg + 1 in first; with clear, the busiest (per link
 * of its bundle, starting at the later of first and last) into pk, and
 * all cleared */
static void tier_mark(tier_loads *t, int msg, int clear, link_peak *pk)
{
    for (int k = 0; k < t->levels; k++) {
        size_t len =
            (size_t)(k == NH_TIER_BUNDLED ? t->routers / t->per[k] : t->routers) * (size_t)t->n[k];
        for (size_t i = 0; i < len; i++) {
            if (t->load[k][i] > 0 && !t->first[k][i])
                t->first[k][i] = msg + 1;
            if (clear) {
                int from = t->first[k][i] > t->last[k][i] ? t->first[k][i] : t->last[k][i];
                peak_take(pk, t->load[k][i] / t->width[k], from, k, i);
                t->load[k][i] = 0;
                t->first[k][i] = t->last[k][i] = 0;
            }
        }
    }
}

static void tier_free(tier_loads *t)
{
    for (int k = 0; k < NH_NET_TIERS; k++) {
        free(t->load[k]);
        free(t->first[k]);
        free(t->last[k]);
    }
}

/* After message msg of a phase: links of `lines` rings or columns of len
 * links (difference arrays d) that carry something for the first time
 * get msg + 1 in first; with clear, the busiest into pk, and all cleared. */
static void loads_scan(long *d, int *first, size_t lines, int len, int msg, int clear,
                       link_peak *pk, int set)
{
    for (size_t i = 0; i < lines; i++, d += len + 1, first += len) {
        long run = 0;
        for (int j = 0; j < len; j++) {
            run += d[j];
            if (run > 0 && !first[j])
                first[j] = msg + 1;
            if (clear) {
                peak_take(pk, (double)run, first[j], set, i * (size_t)len + (size_t)j);
                first[j] = 0;
            }
        }
        if (clear)
            memset(d, 0, sizeof(long) * (size_t)(len + 1));
    }
}

static void loads_mark(link_loads *l, int msg, int clear, link_peak *pk)
{
    loads_scan(l->along, l->first_along, (size_t)2 * l->rows, l->ring, msg, clear, pk, 0);
    loads_scan(l->across, l->first_across, (size_t)2 * l->ring, l->rows, msg, clear, pk, 1);
}

/* A phase's walk over the placement (nh_sched_node_stats). */
typedef struct {
    nh_sched *s;
    const nh_grid *g;
    const int *node_of;
    const nh_net *net;
    int nnodes;
    long *cur; /* the blocks each node sends off it in the phase */
    int *rcv;  /* per rank: messages received over the busiest link */
    link_loads l;
    tier_loads t;
} node_walk;

/* The most messages one rank receives over link pk in rounds [r0, r1) of
 * a phase: those arrive as the link drains, and are handled after it. */
static int link_recv(node_walk *w, int r0, int r1, const link_peak *pk)
{
    const nh_grid *g = w->g;
    const int *node_of = w->node_of;
    int most = 0;
    for (int i = r0; i < r1; i++) {
        const nh_round *r = &w->s->rounds[i];
        if (r->copy || !r->has_hop)
            continue;
        int c[NH_MAXDIMS] = {0};
        for (int q = 0; q < g->size; q++) {
            int t = nh_grid_shift(g, c, r->hop, +1);
            if (t != NH_NONE && node_of[t] != node_of[q] &&
                (w->t.levels > 0 ? tier_walk(&w->t, node_of[q] / w->net->tier[0],
                                             node_of[t] / w->net->tier[0], 0, pk->set, pk->idx)
                                 : ring_uses(&w->l, node_of[q], node_of[t], pk->set, pk->idx)) &&
                ++w->rcv[t] > most)
                most = w->rcv[t];
            for (int j = g->ndims - 1; j >= 0 && ++c[j] == g->dims[j]; j--)
                c[j] = 0;
        }
    }
    memset(w->rcv, 0, sizeof(int) * (size_t)g->size);
    return most;
}

/* The most blocks the ranks of one node send off it in phase (rounds
 * [r0, r1)), and the busiest link's, kept in s->node_ph[phase]. */
static void phase_peak(node_walk *w, int phase, int r0, int r1)
{
    nh_node_phase *ph = &w->s->node_ph[phase];
    link_peak pk = {0, 0, 0, 0};
    for (int n = 0; n < w->nnodes; n++) {
        if (w->cur[n] > ph->blocks)
            ph->blocks = w->cur[n];
        w->cur[n] = 0;
    }
    if (w->t.levels > 0)
        tier_mark(&w->t, 0, 1, &pk);
    else if (w->l.along)
        loads_mark(&w->l, 0, 1, &pk);
    ph->link_blocks = pk.blocks;
    ph->link_after = pk.after;
    ph->link_recv = pk.blocks > 0 && w->rcv ? link_recv(w, r0, r1, &pk) : 0;
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

/* Routers changed on the way from router x to router y within a top unit
 * (tiers [0, top) of net, in first-tier units): one per digit that differs. */
static int gate_hops(const nh_net *net, int top, int x, int y)
{
    int h = 0;
    for (int k = 0; k < top; k++) {
        int span = net->tier[k + 1] / net->tier[0], per = net->tier[k] / net->tier[0];
        h += x % span / per != y % span / per;
    }
    return h;
}

int nh_tier_hops(const nh_net *net, int a, int b)
{
    int h = 1, top = 0;
    while (top + 1 < NH_NET_TIERS && net->tier[top + 1] > 0)
        top++;
    if (net->gateway && top == NH_TIER_BUNDLED && a / net->tier[top] != b / net->tier[top]) {
        int T = net->tier[0], per = net->tier[top] / T, places = net->tier[1] / T;
        int su = a / net->tier[top], du = b / net->tier[top];
        return 2 + gate_hops(net, top, a / T, su * per + du % places) +
               gate_hops(net, top, du * per + su % places, b / T);
    }
    for (int k = 0; k <= top && net->tier[k] > 0; k++)
        h += a / net->tier[k] != b / net->tier[k];
    return h;
}

void nh_sched_node_stats(nh_sched *s, const nh_grid *g, const int *node_of, int nnodes,
                         const nh_net *net)
{
    int p = g->size, d = g->ndims, lastphase = -1, curph = -1, ring = net->ring,
        tiers = net->tier[0] > 0, msg = 0, r0 = 0;
    s->node_phases = 0;
    s->node_blocks = 0;
    free(s->node_ph);
    s->node_ph = calloc((size_t)s->nphases + 1, sizeof(*s->node_ph));
    /* off: the blocks each node sends off it in the whole schedule */
    long *off = calloc((size_t)nnodes + 1, sizeof(long));
    node_walk w = {s,
                   g,
                   node_of,
                   net,
                   nnodes,
                   calloc((size_t)nnodes + 1, sizeof(long)),
                   calloc((size_t)p + 1, sizeof(int)),
                   {0, 0, NULL, NULL, NULL, NULL},
                   {0}};
    int whole = s->node_ph && w.cur && w.rcv;
    if (whole) {
        /* a ring of twice the nodes or more never takes the way round:
         * the same hops and loads as any larger one, in O(nodes) memory */
        if (ring <= 0)
            ring = nnodes;
        else if (ring > 2 * nnodes)
            ring = 2 * nnodes;
        whole = tiers ? tier_init(&w.t, net, nnodes) == 0 : loads_init(&w.l, nnodes, ring) == 0;
    }
    for (int i = 0; off && i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        if (r->copy || !r->has_hop)
            continue;
        if (r->phase != curph) {
            if (whole && curph >= 0)
                phase_peak(&w, curph, r0, i);
            r0 = i;
            msg = 0; /* the round's message in its phase */
        } else
            msg++;
        curph = r->phase;
        w.t.msg = msg;
        int c[NH_MAXDIMS] = {0}, cross = 0;
        for (int q = 0; q < p; q++) { /* c: coordinates of q, row-major */
            int t = nh_grid_shift(g, c, r->hop, +1);
            if (t != NH_NONE && node_of[t] != node_of[q]) {
                off[node_of[q]] += r->tmpl_blocks;
                if (whole) {
                    int h;
                    if (tiers) {
                        h = nh_tier_hops(net, node_of[q], node_of[t]);
                        if (w.t.levels > 0)
                            tier_walk(&w.t, node_of[q] / net->tier[0], node_of[t] / net->tier[0],
                                      r->tmpl_blocks, -1, 0);
                    } else
                        h = loads_add(&w.l, node_of[q], node_of[t], r->tmpl_blocks);
                    w.cur[node_of[q]] += r->tmpl_blocks;
                    if (h - 1 > s->node_ph[r->phase].far)
                        s->node_ph[r->phase].far = h - 1;
                }
                cross = 1;
            }
            for (int j = d - 1; j >= 0 && ++c[j] == g->dims[j]; j--)
                c[j] = 0;
        }
        if (whole && cross && w.t.levels > 0)
            tier_mark(&w.t, msg, 0, NULL);
        else if (whole && cross && w.l.along)
            loads_mark(&w.l, msg, 0, NULL);
        if (cross && r->phase != lastphase) {
            lastphase = r->phase;
            s->node_phases++;
        }
    }
    if (whole && curph >= 0)
        phase_peak(&w, curph, r0, s->nrounds);
    for (int n = 0; off && n < nnodes; n++)
        if (off[n] > s->node_blocks)
            s->node_blocks = off[n];
    if (!whole || !off) { /* without the per-phase peaks, the node's blocks spread evenly */
        free(s->node_ph);
        s->node_ph = NULL;
    }
    free(off);
    free(w.cur);
    free(w.rcv);
    loads_free(&w.l);
    tier_free(&w.t);
}
