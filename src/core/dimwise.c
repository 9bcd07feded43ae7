/* Dimension-wise message combining, shared by torus and torus_direct.
 *
 * Blocks travel dimension by dimension: in dimension j every block moves by
 * its j-th offset coordinate, and all blocks that take the same step share
 * one message.  The routing state is a trie of offset prefixes: a node
 * (key, vec) at a rank R holds the block that originated at R - vec.  For
 * alltoall every block has its own key (a chain per block); for allgather
 * all blocks share key 0, so a block bound for several targets with a
 * common prefix travels that prefix once (the paper's trie).
 *
 * Storage: a node that is some block's final position lives in that
 * block's receive slot; other nodes get a temp slot.  On hop-by-hop paths
 * (torus mode) the in-transit copy alternates between two temp slots,
 * because a rank sends hop h-1's copy while receiving hop h's copy of the
 * same path in the same step.  Every rank builds the same trie in the same
 * order, so round i's block list on a sender matches round i's on the
 * receiver (see moves() for mesh boundaries). */
#include "sched.h"

#include <stdlib.h>
#include <string.h>

typedef struct rnode {
    int key;
    int vec[NH_MAXDIMS];
    nh_blk loc;
    int final_t; /* template entry whose receive slot holds this node, or -1 */
} rnode;

typedef struct rlist {
    rnode *v;
    int n, cap;
} rlist;

static int rlist_push(rlist *l, const rnode *x)
{
    return nh_vec_push(&l->v, &l->n, &l->cap, x, sizeof(*x));
}

/* Does template entry t belong to the node's subtree at dimension j?
 * (m == NULL: every entry.) */
static int item_matches(const nh_nbhd *nb, nh_op op, const rnode *m, int t, int j)
{
    if (!m)
        return 1;
    if (op == NH_OP_ALLTOALL)
        return t == m->key;
    const int *c = nb->off + (size_t)t * nb->g.ndims;
    for (int i = 0; i < j; i++)
        if (c[i] != m->vec[i])
            return 0;
    return 1;
}

/* A new node at (key, vec): receive slot if it is some block's final stop. */
static void node_storage(nh_sched *s, const nh_nbhd *nb, nh_op op, rnode *n)
{
    int d = nb->g.ndims;
    int lo = op == NH_OP_ALLTOALL ? n->key : 0, hi = op == NH_OP_ALLTOALL ? n->key + 1 : nb->s;
    for (int t = lo; t < hi; t++) {
        if (nh_offset_cmp(d, nb->off + (size_t)t * d, n->vec) == 0) {
            n->final_t = t;
            n->loc.buf = NH_BUF_RECV;
            n->loc.slot = nb->recv_slot[t];
            return;
        }
    }
    n->final_t = -1;
    n->loc.buf = NH_BUF_TEMP;
    n->loc.slot = nh_sched_temp(s);
}

/* Distinct values of coordinate j among the node's subtree (m == NULL:
 * the whole template), ascending. */
static int child_values(const nh_nbhd *nb, nh_op op, const rnode *m, int j, int *vals)
{
    int n = 0, d = nb->g.ndims;
    for (int t = 0; t < nb->s; t++) {
        if (!item_matches(nb, op, m, t, j))
            continue;
        int v = nb->off[(size_t)t * d + j], k = n;
        while (k > 0 && vals[k - 1] > v)
            k--;
        if (k > 0 && vals[k - 1] == v)
            continue;
        memmove(vals + k + 1, vals + k, (size_t)(n - k) * sizeof(int));
        vals[k] = v;
        n++;
    }
    return n;
}

/* A transfer moves the instance of node m (origin R - vfrom on the
 * sender) toward the template entries it serves: for a torus hop h in
 * direction dir, the entries below m whose coordinate j is at least h
 * steps that way; for a direct hop, those whose coordinate j equals v.
 * It is listed where the origin, the peer and at least one served target
 * exist; sender and receiver test the same origin and set, so their lists
 * agree, and a rank never reads a send buffer it has no targets for. */
static int moves(const nh_nbhd *nb, nh_op op, const rnode *m, int j, int dir, int h, int v,
                 const int *vhere, int peer)
{
    int d = nb->g.ndims, diff[NH_MAXDIMS];
    if (peer == NH_NONE || nh_grid_shift(&nb->g, nb->coords, vhere, -1) == NH_NONE)
        return 0;
    for (int t = 0; t < nb->s; t++) {
        const int *c = nb->off + (size_t)t * d;
        if (!item_matches(nb, op, m, t, j) || (dir ? c[j] * dir < h : c[j] != v))
            continue;
        for (int i = 0; i < d; i++)
            diff[i] = c[i] - vhere[i];
        if (nh_grid_shift(&nb->g, nb->coords, diff, +1) != NH_NONE)
            return 1;
    }
    return 0;
}

static void transfer(nh_sched *s, const nh_nbhd *nb, nh_op op, int round, const rnode *m, int j,
                     int dir, int h, int v, const int *vfrom, nh_blk from, const int *vto,
                     nh_blk to)
{
    nh_round *r = &s->rounds[round];
    r->tmpl_blocks++;
    s->cur_key = op == NH_OP_ALLTOALL ? m->key : -1; /* for per-entry block sizes (v/w calls) */
    if (moves(nb, op, m, j, dir, h, v, vfrom, r->sendpeer))
        nh_sched_add_send(s, round, from.buf, from.slot);
    if (moves(nb, op, m, j, dir, h, v, vto, r->recvpeer))
        nh_sched_add_recv(s, round, to.buf, to.slot);
}

/* A round that sends k steps along dimension j (and receives from -k). */
static int step_round(nh_sched *s, const nh_nbhd *nb, int phase, int j, int k)
{
    int hop[NH_MAXDIMS] = {0};
    hop[j] = k;
    return nh_sched_add_hop(s, phase, nb, hop);
}

static int dim_torus(nh_sched *s, const nh_nbhd *nb, nh_op op, int j, int *phase, rlist *cur,
                     rlist *next, int *vals, int *round_of)
{
    int d = nb->g.ndims, hpos = 0, hneg = 0;
    for (int t = 0; t < nb->s; t++) {
        int c = nb->off[(size_t)t * d + j];
        if (c > hpos)
            hpos = c;
        if (-c > hneg)
            hneg = -c;
    }
    int hmax = hpos > hneg ? hpos : hneg;
    /* round_of[2*(h-1) + (dir<0)] */
    for (int h = 1; h <= hmax; h++) {
        round_of[2 * (h - 1)] = round_of[2 * (h - 1) + 1] = -1;
        if (h <= hpos)
            round_of[2 * (h - 1)] = step_round(s, nb, *phase + h - 1, j, +1);
        if (h <= hneg)
            round_of[2 * (h - 1) + 1] = step_round(s, nb, *phase + h - 1, j, -1);
    }
    if (s->oom)
        return -1;
    for (int i = 0; i < cur->n; i++) {
        rnode m = cur->v[i];
        int nv = child_values(nb, op, &m, j, vals);
        int zero = 0;
        for (int k = 0; k < nv; k++)
            zero |= vals[k] == 0;
        if (zero && rlist_push(next, &m))
            return -1;
        for (int dir = 1; dir >= -1; dir -= 2) {
            /* Stops in this direction, ascending by distance. */
            int far = 0;
            for (int k = 0; k < nv; k++)
                if (vals[k] * dir > far)
                    far = vals[k] * dir;
            if (far == 0)
                continue;
            nh_blk transit[2] = {{NH_BUF_TEMP, -1, -1}, {NH_BUF_TEMP, -1, -1}};
            nh_blk prev = m.loc;
            rnode hop = m;
            int vprev[NH_MAXDIMS];
            for (int h = 1; h <= far; h++) {
                memcpy(vprev, hop.vec, sizeof(vprev));
                hop.vec[j] = m.vec[j] + dir * h;
                int stop = 0;
                for (int k = 0; k < nv; k++)
                    stop |= vals[k] == dir * h;
                if (stop) {
                    node_storage(s, nb, op, &hop);
                } else {
                    if (transit[h & 1].slot < 0)
                        transit[h & 1].slot = nh_sched_temp(s);
                    hop.loc = transit[h & 1];
                    hop.final_t = -1;
                }
                transfer(s, nb, op, round_of[2 * (h - 1) + (dir < 0)], &m, j, dir, h, 0, vprev,
                         prev, hop.vec, hop.loc);
                if (stop && rlist_push(next, &hop))
                    return -1;
                prev = hop.loc;
            }
        }
    }
    *phase += hmax;
    return s->oom ? -1 : 0;
}

static int dim_direct(nh_sched *s, const nh_nbhd *nb, nh_op op, int j, int *phase, rlist *cur,
                      rlist *next, int *vals, int *round_of)
{
    /* All distinct values of coordinate j, ascending: one round per non-zero one. */
    int nvals = child_values(nb, op, NULL, j, vals);
    int *dimvals = malloc(((size_t)nvals + 1) * sizeof(int));
    if (!dimvals)
        return -1;
    memcpy(dimvals, vals, (size_t)nvals * sizeof(int));
    int any = 0;
    for (int k = 0; k < nvals; k++) {
        round_of[k] = -1;
        if (dimvals[k] == 0)
            continue;
        any = 1;
        round_of[k] = step_round(s, nb, *phase, j, dimvals[k]);
    }
    for (int i = 0; i < cur->n && !s->oom; i++) {
        rnode m = cur->v[i];
        int nv = child_values(nb, op, &m, j, vals);
        for (int k = 0; k < nv; k++) {
            if (vals[k] == 0) {
                if (rlist_push(next, &m))
                    s->oom = 1;
                continue;
            }
            int r = 0;
            while (dimvals[r] != vals[k])
                r++;
            rnode child = m;
            child.vec[j] = vals[k];
            node_storage(s, nb, op, &child);
            transfer(s, nb, op, round_of[r], &m, j, 0, 0, vals[k], m.vec, m.loc, child.vec,
                     child.loc);
            if (rlist_push(next, &child))
                s->oom = 1;
        }
    }
    free(dimvals);
    *phase += any;
    return s->oom ? -1 : 0;
}

int nh_build_dimwise(const nh_nbhd *nb, nh_op op, int direct_hops, nh_algo algo, nh_sched **out)
{
    int d = nb->g.ndims, phase = 0, rc = -1;
    nh_sched *s = nh_sched_new(algo, op);
    rlist cur = {0}, next = {0};
    int maxc = 1;
    for (int t = 0; t < nb->s * d; t++) {
        int a = nb->off[t] < 0 ? -nb->off[t] : nb->off[t];
        if (a > maxc)
            maxc = a;
    }
    int *vals = malloc(((size_t)nb->s + 1) * sizeof(int));
    int *round_of = malloc((2 * (size_t)maxc + (size_t)nb->s + 2) * sizeof(int));
    if (!s || !vals || !round_of)
        goto out;

    /* Roots: the send buffer. */
    for (int k = 0; k < (op == NH_OP_ALLTOALL ? nb->s : 1); k++) {
        rnode r = {0};
        r.key = k;
        r.final_t = -1;
        r.loc.buf = NH_BUF_SEND;
        r.loc.slot = op == NH_OP_ALLTOALL ? nb->send_slot[k] : 0;
        if (rlist_push(&cur, &r))
            goto out;
    }
    for (int j = 0; j < d; j++) {
        next.n = 0;
        int e = direct_hops ? dim_direct(s, nb, op, j, &phase, &cur, &next, vals, round_of)
                            : dim_torus(s, nb, op, j, &phase, &cur, &next, vals, round_of);
        if (e)
            goto out;
        rlist tmp = cur;
        cur = next;
        next = tmp;
    }
    /* Final copies: blocks whose last node is not their own receive slot
     * (zero offsets still in the send buffer, allgather duplicates). */
    int cr = nh_sched_add_round(s, phase, NH_NONE, NH_NONE, 1);
    if (cr < 0)
        goto out;
    for (int i = 0; i < cur.n; i++) {
        const rnode *m = &cur.v[i];
        int lo = op == NH_OP_ALLTOALL ? m->key : 0, hi = op == NH_OP_ALLTOALL ? m->key + 1 : nb->s;
        for (int t = lo; t < hi; t++) {
            if (t == m->final_t || nh_offset_cmp(d, nb->off + (size_t)t * d, m->vec) != 0)
                continue;
            nh_sched_add_copy(s, cr, op == NH_OP_ALLTOALL ? m->key : -1, m->loc,
                              nb->recv_slot[t]);
        }
    }
    if (nh_sched_finish(s))
        goto out;
    *out = s;
    s = NULL;
    rc = 0;
out:
    nh_sched_free(s);
    free(cur.v);
    free(next.v);
    free(vals);
    free(round_of);
    return rc;
}
