/* Algorithm selection and the cost model behind `auto`.
 *
 * The choice must be identical on every rank without communication.  It
 * depends only on the configuration, the plan (identical everywhere by
 * construction) and the block size.  The block size is the same on every
 * rank only when MPI's signature matching couples all ranks' sizes
 * (plan->coupled, decided once at creation from the template); otherwise
 * `auto` makes a size-independent choice (direct).
 *
 * Nonblocking and persistent calls under NHOOD_PROGRESS=safe use only
 * schedules with a single message phase (see exec/request.c): `auto`
 * chooses among those, and a forced multi-phase algorithm becomes direct
 * under the NHOOD_FALLBACK policy. */
#include "nh.h"

/* Cost of a schedule in microseconds for blocks of m bytes, summed over
 * its rounds with interior-rank block counts (identical on every rank):
 *   alpha per communication round, gamma per byte copied locally;
 *   where ranks share nodes (plan->node_of), node per phase in which some
 *   message leaves its node and link per byte through the busiest node's
 *   link (the bytes all its ranks send off it); and per message of S
 *   bytes in n blocks (rounds split as the executor splits them): o + beta * S
 *   + rndv if the message goes out contiguous (one block, or packed) and
 *     S exceeds the eager limit
 *   + for n > 1: pack binding 2 * pack * S (gather and scatter copies);
 *     zcopy binding delta * n + gather(_small) * S (MPI's datatype engine,
 *     much slower on eager-sized messages with MPICH over UCX). */
double nh_cost_of(const nh_sched *s, nh_binding b, size_t m)
{
    const nh_cost *c = &nh_cfg.cost;
    double t = c->alpha * s->tmpl_rounds + c->gamma * (double)m * (double)s->tmpl_copies +
               c->node * s->node_phases + c->link * (double)m * (double)s->node_blocks;
    for (int i = 0; i < s->nrounds; i++) {
        const nh_round *r = &s->rounds[i];
        if (r->copy)
            continue;
        int k = nh_chunk_blocks(m, r->tmpl_blocks);
        for (int first = 0; first < r->tmpl_blocks; first += k) {
            int n = r->tmpl_blocks - first < k ? r->tmpl_blocks - first : k;
            double S = n * (double)m;
            t += c->o + c->beta * S;
            if ((n == 1 || b == NH_BIND_PACK) && S > c->eager)
                t += c->rndv;
            if (n > 1)
                t += b == NH_BIND_PACK
                         ? 2 * c->pack * S
                         : c->delta * n + (S > c->eager ? c->gather : c->gather_small) * S;
        }
    }
    return t;
}

static nh_binding pick_binding(const nh_sched *s, size_t m)
{
    if (nh_cfg.binding != NH_BIND_AUTO)
        return nh_cfg.binding;
    return nh_cost_of(s, NH_BIND_ZCOPY, m) < nh_cost_of(s, NH_BIND_PACK, m) ? NH_BIND_ZCOPY
                                                                            : NH_BIND_PACK;
}

/* May a schedule of this algorithm run in this form? */
static int form_allows(nh_plan *p, nh_op op, nh_form form, nh_algo a)
{
    if (form == NH_FORM_BLOCKING || nh_cfg.progress == NH_PROGRESS_POLL)
        return 1;
    const nh_sched *s = nh_plan_sched(p, op, a);
    return s && s->tmpl_rounds <= 1;
}

nh_algo nh_requested_algo(const nh_plan *p, nh_op op)
{
    nh_algo a = p->algo_info[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo_op[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo;
    return a;
}

nh_algo nh_forced_algo(const nh_plan *p, nh_op op)
{
    nh_algo forced = nh_requested_algo(p, op);
    /* Store-and-forward runs before selection where the communicator has
     * it (exec/stfw_exec.c, blocking calls); calls that get here choose
     * as under auto. */
    return forced == NH_ALGO_STFW ? NH_ALGO_AUTO : forced;
}

int nh_forced_not_isomorphic(nh_plan *p, nh_algo forced, const char *opname)
{
    if (forced == NH_ALGO_AUTO || nh_cfg.fallback == NH_FALLBACK_SILENT)
        return MPI_SUCCESS;
    if (nh_cfg.fallback == NH_FALLBACK_ERROR) {
        nh_error("algorithm %s was forced for %s on communicator %d, which is not isomorphic "
                 "(NHOOD_FALLBACK=error)",
                 nh_algos[forced].name, opname, p->id);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    if (!p->warned) {
        p->warned = 1;
        nh_warn("algorithm %s was forced for %s on communicator %d, which is not isomorphic; "
                "using pmpi (set NHOOD_FALLBACK=silent to hide this)",
                nh_algos[forced].name, opname, p->id);
    }
    return MPI_SUCCESS;
}

int nh_select(nh_plan *p, nh_op op, nh_form form, size_t m, nh_choice *out)
{
    nh_algo forced = nh_forced_algo(p, op);
    out->algo = NH_ALGO_PMPI;
    out->binding = NH_BIND_AUTO;
    out->tuning = 0;
    if (forced == NH_ALGO_PMPI)
        return MPI_SUCCESS;
    if (!p->isomorphic)
        return nh_forced_not_isomorphic(p, forced, nh_op_name(op));
    nh_algo best = forced;
    if (!p->coupled && (forced == NH_ALGO_TORUS || forced == NH_ALGO_TORUS_DIRECT)) {
        /* Blocks of different sizes may legally meet at intermediate ranks:
         * only direct is safe here. */
        best = NH_ALGO_DIRECT;
        if (nh_cfg.fallback == NH_FALLBACK_ERROR) {
            nh_error("algorithm %s was forced for %s on communicator %d, whose block sizes may "
                     "differ per rank (NHOOD_FALLBACK=error)",
                     nh_algos[forced].name, nh_op_name(op), p->id);
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        if (nh_cfg.fallback == NH_FALLBACK_WARN && !p->warned) {
            p->warned = 1;
            nh_warn("algorithm %s does not apply to communicator %d (block sizes may differ per "
                    "rank); using direct",
                    nh_algos[forced].name, p->id);
        }
    } else if (forced != NH_ALGO_AUTO && !form_allows(p, op, form, forced)) {
        best = NH_ALGO_DIRECT;
        if (nh_cfg.fallback == NH_FALLBACK_ERROR) {
            nh_error("algorithm %s was forced for nonblocking or persistent %s on communicator "
                     "%d; it forwards data and needs NHOOD_PROGRESS=poll (NHOOD_FALLBACK=error)",
                     nh_algos[forced].name, nh_op_name(op), p->id);
            return MPI_ERR_UNSUPPORTED_OPERATION;
        }
        if (nh_cfg.fallback == NH_FALLBACK_WARN && !p->warned_progress) {
            p->warned_progress = 1;
            nh_warn("algorithm %s forwards data between ranks, which nonblocking and persistent "
                    "calls on communicator %d do only with NHOOD_PROGRESS=poll; using direct",
                    nh_algos[forced].name, p->id);
        }
    } else if (forced == NH_ALGO_AUTO && p->last[op][form].valid && p->last[op][form].m == m) {
        out->algo = p->last[op][form].algo;
        out->binding = p->last[op][form].binding;
        return MPI_SUCCESS;
    } else if (forced == NH_ALGO_AUTO) {
        best = NH_ALGO_DIRECT;
        if (p->coupled && form == NH_FORM_BLOCKING &&
            nh_autotune_algo(p, op, m, &best, &out->tuning) == 0) {
            /* measured (NHOOD_AUTOTUNE, blocking calls) */
        } else if (p->coupled) {
            double bc = -1;
            for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
                const nh_sched *s = nh_plan_sched(p, op, (nh_algo)a);
                if (!s || !form_allows(p, op, form, (nh_algo)a))
                    continue;
                double c = nh_cost_of(s, pick_binding(s, m), m);
                if (bc < 0 || c < bc) {
                    bc = c;
                    best = (nh_algo)a;
                }
            }
        }
    }
    const nh_sched *s = nh_plan_sched(p, op, best);
    if (!s)
        return MPI_ERR_NO_MEM;
    out->algo = best;
    out->binding = pick_binding(s, m);
    if (forced == NH_ALGO_AUTO && !out->tuning) {
        p->last[op][form].valid = 1;
        p->last[op][form].m = m;
        p->last[op][form].algo = out->algo;
        p->last[op][form].binding = out->binding;
    }
    return MPI_SUCCESS;
}
