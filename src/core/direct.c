/* direct: one message per distinct target rank, all in one phase.
 *
 * This is the linear exchange MPI libraries use, with two improvements:
 * template entries that name the same rank (equal after normalization,
 * which happens on small periodic grids) travel in one message, and the
 * zero offset becomes a local copy instead of a message to self. */
#include "sched.h"

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
