/* direct: one message per distinct target rank, all in one phase.
 *
 * This is the linear exchange MPI libraries use, with two improvements:
 * template entries that name the same rank (equal after normalization,
 * which happens on small periodic grids) travel in one message, and the
 * zero offset becomes a local copy instead of a message to self. */
#include "sched.h"
#include "stfw.h"

int nh_build_direct(const nh_nbhd *nb, nh_op op, nh_sched **out)
{
    int d = nb->g.ndims;
    nh_sched *s = nh_sched_new(NH_ALGO_DIRECT, op);
    if (!s)
        return -1;
    int copy = -1;
    for (int t = 0; t < nb->s;) {
        const int *c = nb->off + (size_t)t * d;
        int e = t + 1; /* the class of equal offsets is contiguous: template is sorted */
        while (e < nb->s && nh_offset_cmp(d, c, nb->off + (size_t)e * d) == 0)
            e++;
        int zero = 1;
        for (int j = 0; j < d; j++)
            zero &= c[j] == 0;
        int r;
        if (zero) {
            if (copy < 0)
                copy = nh_sched_add_round(s, 1, NH_NONE, NH_NONE, 1);
            r = copy;
        } else {
            r = nh_sched_add_hop(s, 0, nb, c);
        }
        if (r < 0)
            break;
        for (int k = t; k < e; k++) {
            s->rounds[r].tmpl_blocks++;
            /* Copy rounds pair send[i] with recv[i]: add both or neither. */
            if (zero && (nb->send_slot[k] == NH_NONE || nb->recv_slot[k] == NH_NONE))
                continue;
            s->cur_key = op == NH_OP_ALLTOALL ? k : -1;
            if (nb->send_slot[k] != NH_NONE)
                nh_sched_add_send(s, r, NH_BUF_SEND, op == NH_OP_ALLTOALL ? nb->send_slot[k] : 0);
            if (nb->recv_slot[k] != NH_NONE)
                nh_sched_add_recv(s, r, NH_BUF_RECV, nb->recv_slot[k]);
        }
        t = e;
    }
    /* The copy round was created in phase 1 while message rounds may follow
     * it in the list; move it to the end so phases are non-decreasing. */
    if (copy >= 0 && copy != s->nrounds - 1) {
        nh_round tmp = s->rounds[copy];
        for (int i = copy; i < s->nrounds - 1; i++)
            s->rounds[i] = s->rounds[i + 1];
        s->rounds[s->nrounds - 1] = tmp;
    }
    if (nh_sched_finish(s)) {
        nh_sched_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* The direct exchange over neighbor lists (stfw.h): the layout of a
 * one-stage store-and-forward schedule, built from this rank's lists
 * alone.  A message goes to each distinct destination other than me
 * (phase 1, tag 1), its blocks those of the edges to it in destination
 * order; one comes from each distinct source, into the slots listing it
 * in source order: the k-th edge s -> d lands in d's k-th slot listing s,
 * MPI's definition, since both ends count the same edges.  Self edges,
 * and allgather's further slots of a source (one block received), are
 * copies in phase 2.  Peers are kept in the order of their first
 * appearance (quadratic in the distinct peers, as the lists are short). */
static int first_at(const int *list, int i)
{
    for (int k = 0; k < i; k++)
        if (list[k] == list[i])
            return 0;
    return 1;
}

int nh_build_direct_lists(int me, int indeg, const int *srcs, int outdeg, const int *dsts,
                          nh_op op, nh_sched **out)
{
    nh_sched *s = nh_sched_new(NH_ALGO_DIRECT, op);
    int copy = -1;
    if (!s)
        return -1;
    for (int i = 0; i < outdeg; i++) {
        if (dsts[i] == me || !first_at(dsts, i))
            continue;
        int r = nh_sched_add_round(s, 1, dsts[i], NH_NONE, 0);
        for (int k = i; k < outdeg && r >= 0; k++)
            if (dsts[k] == dsts[i]) {
                nh_sched_add_send(s, r, NH_BUF_SEND, op == NH_OP_ALLTOALL ? k : 0);
                if (op != NH_OP_ALLTOALL)
                    break; /* one copy of the block to each destination */
            }
    }
    for (int i = 0; i < indeg; i++) {
        if (srcs[i] == me || !first_at(srcs, i))
            continue;
        int r = nh_sched_add_round(s, 1, NH_NONE, srcs[i], 0);
        for (int k = i; k < indeg && r >= 0; k++)
            if (srcs[k] == srcs[i]) {
                if (op == NH_OP_ALLTOALL || k == i) {
                    nh_sched_add_recv(s, r, NH_BUF_RECV, k);
                    continue;
                }
                if (copy < 0 && (copy = nh_sched_add_round(s, 2, NH_NONE, NH_NONE, 1)) < 0)
                    break;
                nh_sched_add_send(s, copy, NH_BUF_RECV, i);
                nh_sched_add_recv(s, copy, NH_BUF_RECV, k);
            }
    }
    /* self edges: my k-th block to myself lands in my k-th slot listing me */
    for (int i = 0, k = 0; i < indeg; i++) {
        if (srcs[i] != me)
            continue;
        if (op == NH_OP_ALLTOALL)
            while (k < outdeg && dsts[k] != me)
                k++;
        if (op == NH_OP_ALLTOALL && k == outdeg)
            break; /* inconsistent lists: MPI's business */
        if (copy < 0 && (copy = nh_sched_add_round(s, 2, NH_NONE, NH_NONE, 1)) < 0)
            break;
        nh_sched_add_send(s, copy, NH_BUF_SEND, op == NH_OP_ALLTOALL ? k++ : 0);
        nh_sched_add_recv(s, copy, NH_BUF_RECV, i);
    }
    if (s->oom) {
        nh_sched_free(s);
        return -1;
    }
    if (copy >= 0 && copy != s->nrounds - 1) { /* phases non-decreasing: the copies last */
        nh_round tmp = s->rounds[copy];
        for (int i = copy; i < s->nrounds - 1; i++)
            s->rounds[i] = s->rounds[i + 1];
        s->rounds[s->nrounds - 1] = tmp;
    }
    s->nphases = 3;
    s->ntags = 3;
    for (int i = 0; i < s->nrounds; i++) {
        nh_round *r = &s->rounds[i];
        r->tag = r->phase; /* one message per pair of ranks */
        r->tmpl_blocks = r->copy || r->sendpeer != NH_NONE ? r->nsend : 0;
        if (r->copy) {
            s->tmpl_copies += r->nsend;
        } else if (r->sendpeer != NH_NONE) {
            s->tmpl_msgs++;
            s->tmpl_blocks += r->nsend;
            s->tmpl_multi += r->nsend > 1 ? r->nsend : 0;
            s->tmpl_rounds = 1;
        }
    }
    *out = s;
    return 0;
}
