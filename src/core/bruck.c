/* bruck: message combining in few rounds, after Bruck et al.'s
 * all-to-all as the interface paper adapts it to isomorphic neighborhoods
 * (Träff, Lübbe, Rougier, Hunold, "Isomorphic, sparse MPI-like collective
 * communication operations for parallel stencil computations", EuroMPI
 * 2015, Section 5.3).
 *
 * A schedule is a list of phases; a phase holds at most k hop vectors
 * (k = nb->ports, the ports a rank uses at once) and every rank sends one
 * message along each of them.  A block bound for offset c takes at most
 * one hop per phase, and the hops it takes sum to c; blocks that take the
 * same hop in the same phase share its message.  With one port and hops
 * 1, 2, 4, ... a ring neighborhood of s offsets 1..s takes ceil(log2(s+1))
 * rounds, one message each.
 *
 * The hops come from a digit system per dimension (dimension-ordered
 * routing, bruck_digits.c), or, where all offsets are multiples of one
 * vector u (a linear embedding), from one digit system over the multiples
 * if that takes fewer phases.  With many ports, neighboring dimensions
 * whose distinct offset projections fit in the k ports share one direct
 * phase, and phases of different dimensions whose hop combinations fit
 * in the k ports merge into one (three ports hold two dimensions' shift
 * phases: their hops and their sum).
 *
 * Routing reuses the idea of the torus trie: a node (vector v) at rank R
 * holds the block that originated at R - v.  For alltoall every template
 * entry travels alone; for allgather entries whose paths agree so far
 * share a node, so a block bound for several targets travels their common
 * prefix once.  Every rank builds the same phases in the same order, so a
 * round's block list on the sender matches the receiver's. */
#include "bruck_digits.h"
#include "sched.h"

#include <stdlib.h>
#include <string.h>

/* The whole plan: phases of hop vectors and each entry's hop per phase. */
typedef struct bplan {
    int nph;
    int nhop[BR_MAXPH];
    int hop[BR_MAXPH][NH_MAX_PORTS][NH_MAXDIMS];
    int *choice; /* s * nph */
} bplan;

/* Appends y along direction u, writing each entry's multiple lam[t]. */
static int append_sys(bplan *p, const sys1 *y, const int *u, int d, const int *lam, int s,
                      int monotone, int *choice_tmp)
{
    if (p->nph + y->nph > BR_MAXPH)
        return 1;
    dp1 dd[3] = {{0}};
    int rc = -1;
    for (int sg = 0; sg < 3; sg++)
        if (nh_br_dp_run(y, sg == 2 ? -1 : sg, &dd[sg]))
            goto out;
    for (int t = 0; t < s; t++) {
        int *ch = p->choice + (size_t)t * BR_MAXPH + p->nph;
        for (int i = 0; i < y->nph; i++)
            ch[i] = -1;
        if (lam[t] == 0)
            continue;
        const dp1 *dv = &dd[monotone ? (lam[t] > 0 ? 1 : 2) : 0];
        if (nh_br_dp_path(y, dv, lam[t], choice_tmp))
            goto out;
        memcpy(ch, choice_tmp, (size_t)y->nph * sizeof(int));
    }
    for (int i = 0; i < y->nph; i++) {
        p->nhop[p->nph + i] = y->nhop[i];
        for (int q = 0; q < y->nhop[i]; q++)
            for (int j = 0; j < d; j++)
                p->hop[p->nph + i][q][j] = y->hop[i][q] * u[j];
    }
    p->nph += y->nph;
    rc = 0;
out:
    for (int i = 0; i < 3; i++)
        nh_br_dp_free(&dd[i]);
    return rc;
}

/* Distinct non-zero projections of the offsets onto dimensions
 * [j0, j1), in template order, into proj (at most max + 1 of them, then
 * it stops counting); choice[t]: entry t's index, -1 for zero. */
static int projections(const nh_nbhd *nb, int j0, int j1, int max, int *proj, int *choice)
{
    int d = nb->g.ndims, w = j1 - j0, n = 0;
    for (int t = 0; t < nb->s; t++) {
        const int *c = nb->off + (size_t)t * d + j0;
        int zero = 1, q = 0;
        for (int j = 0; j < w; j++)
            zero &= c[j] == 0;
        if (choice)
            choice[t] = -1;
        if (zero)
            continue;
        while (q < n && memcmp(proj + (size_t)q * w, c, (size_t)w * sizeof(int)) != 0)
            q++;
        if (q == n) {
            if (n > max)
                return n;
            memcpy(proj + (size_t)n++ * w, c, (size_t)w * sizeof(int));
        }
        if (choice)
            choice[t] = q;
    }
    return n;
}

/* One phase that moves every block by its whole projection onto
 * dimensions [j0, j1) (direct within the group; its position then agrees
 * with the target in those dimensions and with the origin elsewhere, so
 * it exists wherever both do). */
static int append_group(bplan *p, const nh_nbhd *nb, int j0, int j1, int *proj, int *choice)
{
    int w = j1 - j0;
    if (p->nph >= BR_MAXPH)
        return 1;
    int n = projections(nb, j0, j1, NH_MAX_PORTS, proj, choice);
    p->nhop[p->nph] = n;
    for (int q = 0; q < n; q++) {
        memset(p->hop[p->nph][q], 0, sizeof(p->hop[p->nph][q]));
        memcpy(p->hop[p->nph][q] + j0, proj + (size_t)q * w, (size_t)w * sizeof(int));
    }
    for (int t = 0; t < nb->s; t++)
        p->choice[(size_t)t * BR_MAXPH + p->nph] = choice[t];
    p->nph++;
    return 0;
}

/* May a path leave the box between origin and target in dimension j? */
static int free_dim(const nh_grid *g, int j)
{
    return g->periods[j];
}

/* Merges phases that move disjoint dimensions while the combinations of
 * their hops fit in the k ports: the merged phase offers every non-empty
 * combination (each member's hop or none, (h1+1)(h2+1)... - 1 hops), and
 * an entry takes the combination of the hops it took.  Fewer phases, and
 * no block moves more often; each coordinate still moves in the same
 * steps, so paths stay monotone where they were.  Greedy, phases with the
 * fewest hops first (one-hop shift phases pair up).  0, or -1 (memory). */
static int merge_phases(bplan *p, int d, int s, int k)
{
    int n = p->nph, ord[BR_MAXPH], grp[BR_MAXPH], ng = 0, rc = -1;
    unsigned sup[BR_MAXPH], gsup[BR_MAXPH];
    long gprod[BR_MAXPH];
    for (int i = 0; i < n; i++) {
        sup[i] = 0;
        for (int q = 0; q < p->nhop[i]; q++)
            for (int j = 0; j < d; j++)
                sup[i] |= p->hop[i][q][j] ? 1u << j : 0u;
        if (!sup[i]) /* no dimension: it merges with nothing */
            sup[i] = ~0u;
        int at = i; /* insertion sort by hop count, stable */
        while (at > 0 && p->nhop[ord[at - 1]] > p->nhop[i]) {
            ord[at] = ord[at - 1];
            at--;
        }
        ord[at] = i;
    }
    for (int x = 0; x < n; x++) {
        int i = ord[x], g = 0;
        while (g < ng && ((gsup[g] & sup[i]) || gprod[g] * (p->nhop[i] + 1) - 1 > k))
            g++;
        if (g == ng) {
            gsup[ng] = 0;
            gprod[ng++] = 1;
        }
        grp[i] = g;
        gsup[g] |= sup[i];
        gprod[g] *= p->nhop[i] + 1;
    }
    if (ng == n)
        return 0;
    bplan *m = calloc(1, sizeof(*m));
    int *choice = malloc(((size_t)s + 1) * BR_MAXPH * sizeof(int));
    if (!m || !choice)
        goto out;
    /* Merged phases in the order of their first member. */
    for (int i = 0; i < n; i++) {
        int g = grp[i], first = 1;
        for (int i0 = 0; i0 < i; i0++)
            first &= grp[i0] != g;
        if (!first)
            continue;
        int ph = m->nph++, nmem = 0, mem[NH_MAXDIMS];
        long radix[NH_MAXDIMS];
        for (int i1 = i; i1 < n; i1++)
            if (grp[i1] == g) {
                radix[nmem] = nmem ? radix[nmem - 1] * (p->nhop[mem[nmem - 1]] + 1) : 1;
                mem[nmem++] = i1;
            }
        m->nhop[ph] = (int)gprod[g] - 1;
        for (int q = 1; q <= m->nhop[ph]; q++)
            for (int a = 0; a < nmem; a++) {
                int dg = (int)(q / radix[a] % (p->nhop[mem[a]] + 1));
                for (int j = 0; j < d && dg; j++)
                    m->hop[ph][q - 1][j] += p->hop[mem[a]][dg - 1][j];
            }
        for (int t = 0; t < s; t++) {
            long q = 0;
            for (int a = 0; a < nmem; a++)
                q += (p->choice[(size_t)t * BR_MAXPH + mem[a]] + 1) * radix[a];
            choice[(size_t)t * BR_MAXPH + ph] = (int)q - 1;
        }
    }
    memcpy(p->nhop, m->nhop, sizeof(p->nhop));
    memcpy(p->hop, m->hop, sizeof(p->hop));
    memcpy(p->choice, choice, (size_t)s * BR_MAXPH * sizeof(int));
    p->nph = m->nph;
    rc = 0;
out:
    free(m);
    free(choice);
    return rc;
}

/* Dimension by dimension; or along one vector if that takes fewer phases. */
static int make_plan(const nh_nbhd *nb, bplan *p)
{
    int d = nb->g.ndims, s = nb->s, k = nb->ports < 1 ? 1 : nb->ports, rc = -1;
    if (k > NH_MAX_PORTS)
        k = NH_MAX_PORTS;
    int *vals = malloc(((size_t)s + 1) * sizeof(int));
    p->choice = malloc(((size_t)s + 1) * BR_MAXPH * sizeof(int));
    if (!vals || !p->choice)
        goto out;
    int choice_tmp[BR_MAXPH];
    sys1 y;
    /* Linear embedding: every offset a multiple of u. */
    int u[NH_MAXDIMS] = {0}, linear = 0, lin_nph = BR_MAXPH + 1, lin_mono = 0;
    for (int t = 0; t < s && !linear; t++) {
        const int *c = nb->off + (size_t)t * d;
        int g = 0;
        for (int j = 0; j < d; j++)
            g = nh_gcd(g, c[j]);
        if (g == 0)
            continue;
        int first = 0;
        while (c[first] == 0)
            first++;
        for (int j = 0; j < d; j++)
            u[j] = c[j] / g * (c[first] < 0 ? -1 : 1);
        linear = 1;
    }
    if (linear) {
        int first = 0;
        while (u[first] == 0)
            first++;
        for (int t = 0; t < s && linear; t++) {
            const int *c = nb->off + (size_t)t * d;
            vals[t] = c[first] / u[first];
            for (int j = 0; j < d; j++)
                linear &= c[j] == vals[t] * u[j];
        }
        for (int j = 0; j < d; j++)
            lin_mono |= u[j] != 0 && !free_dim(&nb->g, j);
        if (linear && nh_br_best_sys(vals, s, k, lin_mono, &y))
            goto out;
        if (linear)
            lin_nph = y.nph;
    }
    /* Dimension by dimension. */
    sys1 *dims = malloc((size_t)d * sizeof(sys1));
    if (!dims)
        goto out;
    for (int j = 0; j < d; j++) {
        for (int t = 0; t < s; t++)
            vals[t] = nb->off[(size_t)t * d + j];
        if (nh_br_best_sys(vals, s, k, !free_dim(&nb->g, j), &dims[j])) {
            free(dims);
            goto out;
        }
    }
    /* Neighboring dimensions whose distinct projections fit in the k
     * ports go in one direct phase where that saves phases (with 8 ports,
     * 2-D pairs of a radius-1 Moore neighborhood). */
    p->nph = 0;
    int *proj = malloc(((size_t)NH_MAX_PORTS + 2) * NH_MAXDIMS * sizeof(int));
    int *choice = malloc(((size_t)s + 1) * sizeof(int));
    rc = proj && choice ? 0 : -1;
    for (int j = 0; j < d && rc == 0;) {
        int j1 = j + 1, nph = dims[j].nph;
        while (j1 < d && projections(nb, j, j1 + 1, k, proj, NULL) <= k) {
            nph += dims[j1].nph;
            j1++;
        }
        if (j1 - j > 1 && nph > 1) {
            rc = append_group(p, nb, j, j1, proj, choice);
            j = j1;
            continue;
        }
        int e[NH_MAXDIMS] = {0};
        e[j] = 1;
        for (int t = 0; t < s; t++)
            vals[t] = nb->off[(size_t)t * d + j];
        rc = append_sys(p, &dims[j], e, d, vals, s, !free_dim(&nb->g, j), choice_tmp);
        j++;
    }
    free(proj);
    free(choice);
    if (rc == 0)
        rc = merge_phases(p, d, s, k);
    if (rc == 0 && linear && lin_nph < p->nph) {
        int first = 0;
        while (u[first] == 0)
            first++;
        for (int t = 0; t < s; t++)
            vals[t] = nb->off[(size_t)t * d + first] / u[first];
        p->nph = 0;
        rc = append_sys(p, &y, u, d, vals, s, lin_mono, choice_tmp);
    }
    free(dims);
out:
    free(vals);
    return rc;
}

/* A routing node: the data that originated at R - vec. */
typedef struct bnode {
    int vec[NH_MAXDIMS];
    nh_blk loc;
    int final_t; /* template entry whose receive slot holds it, or -1 */
    int key;     /* alltoall: the entry; allgather: -1 */
    int lo, hi;  /* its entries: ent[lo .. hi) */
} bnode;

/* Is the transfer of node m's data, serving entries ent[lo..hi), listed
 * at this rank, which holds it as vec and exchanges with peer?  Where the
 * origin, the peer and one served target exist (every position between
 * them then exists too: paths are monotone in non-periodic dimensions). */
static int listed(const nh_nbhd *nb, const int *ent, int lo, int hi, const int *vec, int peer)
{
    int d = nb->g.ndims, diff[NH_MAXDIMS];
    if (peer == NH_NONE || nh_grid_shift(&nb->g, nb->coords, vec, -1) == NH_NONE)
        return 0;
    for (int i = lo; i < hi; i++) {
        const int *c = nb->off + (size_t)ent[i] * d;
        for (int j = 0; j < d; j++)
            diff[j] = c[j] - vec[j];
        if (nh_grid_shift(&nb->g, nb->coords, diff, +1) != NH_NONE)
            return 1;
    }
    return 0;
}

/* Does entry t take a hop after phase i? */
static int moves_later(const bplan *p, int t, int i)
{
    for (int q = i + 1; q < p->nph; q++)
        if (p->choice[(size_t)t * BR_MAXPH + q] >= 0)
            return 1;
    return 0;
}

typedef struct nodes {
    bnode *v;
    int n, cap;
} nodes;

static int push_node(nodes *l, const bnode *x)
{
    return nh_vec_push(&l->v, &l->n, &l->cap, x, sizeof(*x));
}

/* Phase i for node m: its entries split by the hop they take (stable);
 * the ones that stay keep m, each hop makes a child. */
static int route_phase(nh_sched *s, const nh_nbhd *nb, const bplan *p, int i, const int *round_of,
                       int *ent, int *tmp, const bnode *m, nodes *next)
{
    int d = nb->g.ndims, cnt[NH_MAX_PORTS + 1] = {0}, start[NH_MAX_PORTS + 2];
    for (int e = m->lo; e < m->hi; e++)
        cnt[p->choice[(size_t)ent[e] * BR_MAXPH + i] + 1]++;
    start[0] = m->lo;
    for (int q = 0; q <= p->nhop[i]; q++)
        start[q + 1] = start[q] + cnt[q];
    int fill[NH_MAX_PORTS + 1];
    memcpy(fill, start, sizeof(fill));
    for (int e = m->lo; e < m->hi; e++)
        tmp[fill[p->choice[(size_t)ent[e] * BR_MAXPH + i] + 1]++] = ent[e];
    memcpy(ent + m->lo, tmp + m->lo, (size_t)(m->hi - m->lo) * sizeof(int));
    if (cnt[0]) {
        bnode stay = *m;
        stay.hi = start[1];
        if (push_node(next, &stay))
            return -1;
    }
    for (int q = 0; q < p->nhop[i]; q++) {
        if (!cnt[q + 1])
            continue;
        bnode c = *m;
        c.lo = start[q + 1];
        c.hi = start[q + 2];
        for (int j = 0; j < d; j++)
            c.vec[j] = m->vec[j] + p->hop[i][q][j];
        /* Storage: the receive slot of an entry that stops here, else a temp. */
        c.final_t = -1;
        for (int e = c.lo; e < c.hi && c.final_t < 0; e++)
            if (!moves_later(p, ent[e], i))
                c.final_t = ent[e];
        c.loc.buf = c.final_t >= 0 ? NH_BUF_RECV : NH_BUF_TEMP;
        c.loc.slot = c.final_t >= 0 ? nb->recv_slot[c.final_t] : nh_sched_temp(s);
        c.loc.key = -1;
        int r = round_of[i * NH_MAX_PORTS + q];
        s->rounds[r].tmpl_blocks++;
        s->cur_key = m->key;
        if (listed(nb, ent, c.lo, c.hi, m->vec, s->rounds[r].sendpeer))
            nh_sched_add_send(s, r, m->loc.buf, m->loc.slot);
        if (listed(nb, ent, c.lo, c.hi, c.vec, s->rounds[r].recvpeer))
            nh_sched_add_recv(s, r, c.loc.buf, c.loc.slot);
        if (push_node(next, &c))
            return -1;
    }
    return s->oom ? -1 : 0;
}

int nh_build_bruck(const nh_nbhd *nb, nh_op op, nh_sched **out)
{
    int S = nb->s, rc = -1;
    bplan *p = calloc(1, sizeof(*p));
    nh_sched *s = nh_sched_new(NH_ALGO_BRUCK, op);
    nodes cur = {0}, next = {0};
    int *ent = malloc(((size_t)S + 1) * sizeof(int)), *tmp = malloc(((size_t)S + 1) * sizeof(int));
    int *round_of = malloc((size_t)BR_MAXPH * NH_MAX_PORTS * sizeof(int));
    if (!p || !s || !ent || !tmp || !round_of || make_plan(nb, p))
        goto out;
    for (int i = 0; i < p->nph; i++)
        for (int q = 0; q < p->nhop[i]; q++)
            if ((round_of[i * NH_MAX_PORTS + q] = nh_sched_add_hop(s, i, nb, p->hop[i][q])) < 0)
                goto out;
    /* Roots: the send buffer (one per entry for alltoall, one shared). */
    for (int t = 0; t < S; t++)
        ent[t] = t;
    for (int k = 0; k < (op == NH_OP_ALLTOALL ? S : (S > 0)); k++) {
        bnode r;
        memset(&r, 0, sizeof(r));
        r.loc.buf = NH_BUF_SEND;
        r.loc.slot = op == NH_OP_ALLTOALL ? nb->send_slot[k] : 0;
        r.loc.key = -1;
        r.final_t = -1;
        r.key = op == NH_OP_ALLTOALL ? k : -1;
        r.lo = op == NH_OP_ALLTOALL ? k : 0;
        r.hi = op == NH_OP_ALLTOALL ? k + 1 : S;
        if (push_node(&cur, &r))
            goto out;
    }
    for (int i = 0; i < p->nph; i++) {
        next.n = 0;
        for (int n = 0; n < cur.n; n++)
            if (route_phase(s, nb, p, i, round_of, ent, tmp, &cur.v[n], &next))
                goto out;
        nodes t = cur;
        cur = next;
        next = t;
    }
    /* Final copies: entries whose node is not their own receive slot
     * (offset 0 still in the send buffer, allgather entries sharing a
     * node). */
    int cr = nh_sched_add_round(s, p->nph, NH_NONE, NH_NONE, 1);
    if (cr < 0)
        goto out;
    for (int n = 0; n < cur.n; n++) {
        const bnode *m = &cur.v[n];
        for (int e = m->lo; e < m->hi; e++) {
            if (ent[e] != m->final_t)
                nh_sched_add_copy(s, cr, m->key, m->loc, nb->recv_slot[ent[e]]);
        }
    }
    if (nh_sched_finish(s))
        goto out;
    *out = s;
    s = NULL;
    rc = 0;
out:
    if (p)
        free(p->choice);
    free(p);
    nh_sched_free(s);
    free(cur.v);
    free(next.v);
    free(ent);
    free(tmp);
    free(round_of);
    return rc;
}
