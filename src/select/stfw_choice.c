/* Store-and-forward for a call: on irregular graphs where it was set up
 * (plan/stfw_setup.c: at creation, or at the first blocking call), before
 * the other algorithms.
 *
 * Under auto, the first blocking call of an operation checks the choice
 * again with the size of its blocks: one reduction of the bytes each rank
 * sends gives the mean block of the call, and the model compares STFW
 * with one message per neighbor at that size, which turns STFW on or off
 * for every later call of the operation (identical on every rank: reduced
 * inputs and the cost settings).  nhood's own pending operations progress
 * while the reduction completes: another rank may be waiting for one of
 * them, which needs this rank's forwarding, before it makes this call.
 *
 * STFW forwards data, so nonblocking and persistent calls run it under
 * NHOOD_PROGRESS=poll, or where a progress backend forwards for it
 * (exec/progress.c): forced, or under auto where the model prices it
 * below one message per neighbor in the agreed window (select.c). */
#include "plan/stfw_setup.h"
#include "exec/progress.h"
#include "exec/request.h"
#include "select/select.h"
#include "util/window.h"

static int recheck(nh_plan *p, nh_op op, double mine)
{
    nh_stfw *st = p->stfw;
    double total = 0;
    int rc = nh_req_allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, p->pcomm);
    if (rc)
        return rc;
    double block = total / st->edges;
    st->recheck[op] = 0;
    st->block[op] = block > 0 ? block : 0;
    st->off[op] = !nh_stfw_wins(st, block);
    return MPI_SUCCESS;
}

/* The mean block auto's model prices op at: the re-check's, else the
 * set-up's model size. */
static double model_block(const nh_stfw *st, nh_op op)
{
    return st->block[op] > 0 ? st->block[op] : NH_STFW_MODEL_BYTES;
}

int nh_stfw_form_allows(const nh_plan *p, nh_op op, nh_form form)
{
    int forced = nh_requested_algo(p, op) == NH_ALGO_STFW;
    if (form == NH_FORM_BLOCKING)
        return 1;
    if (!nh_may_forward(p, form, forced))
        return 0;
    if (forced || p->window == NH_WIN_UNKNOWN || !p->stfw) /* poll's promise, unpriced */
        return 1;
    return nh_stfw_wins_in_window(p->stfw, model_block(p->stfw, op), nh_win_us(p->window));
}

int nh_stfw_choose(nh_plan *p, nh_coll coll, nh_form form, double total, nh_choice *out)
{
    nh_op op = nh_coll_op(coll);
    nh_stfw *st = p->stfw;
    int rc;
    memset(out, 0, sizeof(*out)); /* NH_ALGO_AUTO: nh_select decides */
    if (!st || !st->sched[op])
        return MPI_SUCCESS;
    if (form == NH_FORM_BLOCKING) {
        if (st->recheck[op] && (rc = recheck(p, op, total)))
            return rc;
    } else if (!nh_stfw_form_allows(p, op, form)) {
        /* auto goes on to the other algorithms (PMPI on irregular graphs,
         * saying why it does not forward); a forced stfw without a
         * progress backend says so under the fallback policy. */
        if (st->off[op])
            return MPI_SUCCESS;
        if (nh_requested_algo(p, op) == NH_ALGO_STFW)
            return nh_forced_needs_progress(p, NH_ALGO_STFW, nh_coll_name(coll));
        if (p->isomorphic)
            return MPI_SUCCESS;
        out->why = nh_why_single_phase(p);
        if (!nh_irregular_direct(p, op, out))
            out->algo = NH_ALGO_PMPI;
        return MPI_SUCCESS;
    }
    if (st->off[op])
        return MPI_SUCCESS;
    out->algo = NH_ALGO_STFW;
    out->s = st->sched[op];
    out->o.kind = NH_BIND_AUTO;
    out->o.header = 1;
    return MPI_SUCCESS;
}

/* Is op under STFW on p?  Before auto's re-check (the first blocking
 * call), a blocking call of uniform blocks of block_bytes (< 0: unknown)
 * is predicted as the re-check would decide it. */
int nh_stfw_predict(const nh_plan *p, nh_op op, int block_bytes)
{
    const nh_stfw *st = p ? p->stfw : NULL;
    if (!st && p && p->stfw_wait) { /* a blocking call sets it up; other forms run without */
        const nh_plan *root = p->root ? p->root : p;
        if (block_bytes < 0)
            return 0;
        if (!(st = root->stfw_built)) /* built at a duplicate's call, else not yet */
            return nh_stfw_predict_waiting(p, op, block_bytes);
    }
    if (!st || !st->sched[op])
        return 0;
    if (st->recheck[op] && block_bytes >= 0)
        return nh_stfw_wins(st, block_bytes) ? st->v.n : 0;
    return st->off[op] ? 0 : st->v.n;
}
