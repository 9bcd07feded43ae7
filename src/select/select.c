/* Algorithm selection and the cost model behind `auto`.
 *
 * The choice must be identical on every rank without communication.  It
 * depends only on the configuration, the plan (identical everywhere by
 * construction) and, where every rank provably sees the same block size,
 * that size.  Regular calls see one size everywhere when MPI's signature
 * matching couples all ranks' sizes (plan->coupled, decided once at
 * creation from the template); v/w calls only under the isomorphic=true
 * promise on a template every rank holds whole.  Elsewhere `auto` makes a
 * size-independent choice, and forwarding schedules run with header
 * framing (exec/engine.h): intermediates learn the sizes of blocks in
 * transit from the messages.  v/w alltoall calls there weigh split
 * schedules (each block forwarded or sent straight by its size, a rule
 * both of its ends evaluate alike) against direct: unknown_pick.
 *
 * MPI's own exchange is a candidate where no rank lists a source twice
 * (nh_plan.native_ok): it is chosen where the model prices it no dearer
 * than nhood's best schedule, so auto never adds work for nothing.
 *
 * Nonblocking and persistent calls: a forwarding schedule forwards at
 * the forwarding ranks' next MPI call, so the program's compute between
 * start and completion (the window W, agreed at graph creation:
 * nh_plan.window, util/window.h) delays its later phases, while a
 * single-phase exchange moves during it.  The model prices a call as the
 * program sees it from start to completion: max(W, T) for one phase,
 * max(W, T1) + (T - T1) for a schedule whose first phase costs T1.
 * `auto` weighs forwarding schedules this way where they may run: a
 * progress backend forwards for them (exec/progress.c) and W is known,
 * or under NHOOD_PROGRESS=poll (W = 0 where unknown); elsewhere it keeps
 * single-phase schedules and says why (nh_choice.why).  A forced
 * multi-phase algorithm runs where a backend or poll's promise lets it
 * forward, and becomes direct under the NHOOD_FALLBACK policy elsewhere
 * (NHOOD_PROGRESS=safe).
 * Store-and-forward (irregular graphs, set up at creation) is tried first
 * (select/stfw_choice.c). */
#include "exec/progress.h"
#include "select/select.h"
#include "util/window.h"

/* The window auto prices a call of form on p with, in microseconds: 0
 * for blocking calls, else the agreed one (< 0: unknown). */
static double window_us(const nh_plan *p, nh_form form)
{
    return form == NH_FORM_BLOCKING ? 0 : nh_win_us(p->window);
}

/* auto's modeled choice for blocks of m bytes in form, in a window of w
 * microseconds: *best (PMPI: MPI's own exchange) and its schedule. */
static void model_pick(nh_plan *p, nh_op op, nh_form form, size_t m, double w, nh_algo *best,
                       const nh_sched **bs)
{
    double bc = -1;
    *best = NH_ALGO_DIRECT;
    *bs = NULL;
    for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++) {
        double c;
        const nh_sched *s = nh_sched_cheapest(p, op, form, 0, (nh_algo)a, m, w, &c);
        if (s && (bc < 0 || c < bc)) {
            bc = c;
            *best = (nh_algo)a;
            *bs = s;
        }
    }
    /* MPI's own exchange wins ties: where nhood's best schedule is the
     * same exchange (large blocks, one message each), or a window hides
     * both, nhood would only add its own work. */
    if (p->native_ok && bc >= 0 && nh_native_cost(p, op, m, w) <= bc)
        *best = NH_ALGO_PMPI;
}

/* Calls whose block sizes no rank can know for the others (v/w calls
 * without the promise, regular calls whose sizes MPI does not couple),
 * priced at 8-byte blocks, the latency-bound exchanges combining exists
 * for.  Where split (v/w alltoall) the split schedules of torus and
 * torus_direct (nh_plan_sched_split) are weighed against direct: at run
 * time a block too large to gain from forwarding takes its own message
 * (exec/engine.h), so larger blocks cost direct's messages plus the
 * rounds' short header messages.  MPI's own exchange wins where it costs
 * no more than the best of them.  Identical everywhere: plan, window and
 * configuration only.  *bs: the split schedule, or NULL (direct or
 * MPI's). */
static void unknown_pick(nh_plan *p, nh_op op, nh_form form, double w, int split, nh_algo *best,
                         const nh_sched **bs)
{
    static const nh_algo cand[] = {NH_ALGO_TORUS, NH_ALGO_TORUS_DIRECT};
    double dc, c;
    *best = NH_ALGO_DIRECT;
    *bs = NULL;
    if (!nh_sched_cheapest(p, op, form, 0, NH_ALGO_DIRECT, 8, w, &dc))
        return;
    for (size_t i = 0; split && i < sizeof(cand) / sizeof(cand[0]); i++) {
        const nh_sched *s = nh_sched_cheapest(p, op, form, 0, cand[i], 8, w, &c), *sp;
        if (s && s->tmpl_rounds > 1 && c < dc && (sp = nh_plan_sched_split(p, cand[i]))) {
            dc = c;
            *best = cand[i];
            *bs = sp;
        }
    }
    if (p->native_ok && nh_native_cost(p, op, 8, w) <= dc) {
        *best = NH_ALGO_PMPI;
        *bs = NULL;
    }
}

/* Why a nonblocking or persistent call of auto's does not forward where
 * a blocking one would (NH_WHY_NONE where it forwards or would not). */
static nh_why why_not_forwarding(nh_plan *p, nh_op op, size_t m, const nh_sched *chosen)
{
    nh_algo a;
    const nh_sched *s;
    if (chosen && chosen->tmpl_rounds > 1)
        return NH_WHY_NONE;
    model_pick(p, op, NH_FORM_BLOCKING, m, 0, &a, &s);
    if (a == NH_ALGO_PMPI || !s || s->tmpl_rounds <= 1)
        return NH_WHY_NONE;
    return nh_why_single_phase(p);
}

/* NHOOD_AUTOTUNE=1 in a persistent regular call (one request, one
 * schedule), or a nonblocking one whose own trials await their agreement:
 * the decision of another form (nh_autotune_decided) among the
 * candidates that may run in form (a forwarding schedule where
 * nh_may_forward allows it), each priced in the agreed window of w
 * microseconds as the model prices schedules, with the measured time T
 * for the modeled one: max(w, T) for one phase, max(w, T1) + (T - T1) for
 * a schedule whose first phase takes the modeled share T1 / T.  w = 0
 * (blocking, or poll without a window) keeps the blocking form's choice.
 * A decision without times is kept where it may run.  Identical on every
 * rank: the times are agreed, or the file's.  Returns -1 where no
 * decision may run (the cost model chooses). */
static int tuned_pick(nh_plan *p, nh_op op, nh_form form, size_t m, double w, nh_algo *best,
                      nh_binding *bind, const nh_sched **bs, nh_choice *out)
{
    nh_tune_dec d;
    nh_tuned src;
    double bc = -1;
    if (nh_autotune_decided(p, op, form, m, &d, &src))
        return -1;
    if (d.ncand == 0) { /* the algorithm alone */
        d.cand[0] = d.algo;
        d.cbind[0] = d.bind;
        d.us[0] = 0;
        d.ncand = 1;
    }
    /* The decision is priced at the fastest time recorded, and wins ties:
     * a run-off's candidates carry its times, and a candidate left out
     * of it keeps its first round's, which may read lower. */
    int fwd = nh_may_forward(p, form, 0), dec = -1;
    nh_coll reg = op == NH_OP_ALLTOALL ? NH_COLL_ALLTOALL : NH_COLL_ALLGATHER;
    double floor_us = d.us[0];
    for (int i = 0; i < d.ncand; i++) {
        if (dec < 0 && d.cand[i] == d.algo && d.cbind[i] == d.bind)
            dec = i;
        floor_us = d.us[i] < floor_us ? d.us[i] : floor_us;
    }
    for (int i = 0; i < d.ncand; i++) {
        nh_algo a = d.cand[i];
        const nh_sched *s = a == NH_ALGO_PMPI ? NULL : nh_autotune_sched(p, reg, a, m);
        double c = i == dec ? floor_us : d.us[i], t, first;
        if (a == NH_ALGO_PMPI ? !nh_mpi_own_ok(p, reg, form, d.cbind[i])
                              : !s || (s->tmpl_rounds > 1 && !fwd))
            continue;
        nh_binding b = !s || d.cbind[i] != NH_BIND_AUTO ? d.cbind[i] : nh_pick_binding(s, m);
        if (s && s->tmpl_rounds > 1 && (first = nh_cost_first_phase(s, b, m, &t)) < t)
            c = nh_cost_in_window(w, c * first / t, c);
        else
            c = nh_cost_in_window(w, c, c);
        if (bc < 0 || c < bc || (c == bc && i == dec)) { /* other ties: the earlier */
            bc = c;
            *best = a;
            *bind = d.cbind[i];
            *bs = s;
        }
    }
    if (bc < 0)
        return -1;
    out->tuned = src;
    /* kept a single phase where the blocking form forwards: say why */
    const nh_sched *ds = d.algo == NH_ALGO_PMPI ? NULL : nh_autotune_sched(p, reg, d.algo, m);
    if ((!*bs || (*bs)->tmpl_rounds <= 1) && ds && ds->tmpl_rounds > 1)
        out->why = nh_why_single_phase(p);
    return 0;
}

nh_why nh_why_single_phase(const nh_plan *p)
{
    if (!nh_prog_forwarding() || p->no_forward)
        return NH_WHY_NO_PROGRESS;
    return p->window == NH_WIN_UNKNOWN ? NH_WHY_WINDOW_UNKNOWN : NH_WHY_WINDOW;
}

const char *nh_why_name(nh_why w)
{
    static const char *const names[] = {
        "-",           "window",         "no_progress", "window_unknown",
        "large_count", "large_count_vw", "gpu_runtime"};
    return names[w];
}

NH_HOT nh_algo nh_forced_algo(const nh_plan *p, nh_op op)
{
    nh_algo forced = nh_requested_algo(p, op);
    /* Store-and-forward is tried before selection where the communicator
     * has it; calls that get here choose as under auto. */
    return forced == NH_ALGO_STFW ? NH_ALGO_AUTO : forced;
}

/* The direct exchange over the lists where plan/detect.c built it (a
 * graph that is not isomorphic has no neighborhood to build others from). */
NH_HOT static const nh_sched *lists_direct(const nh_plan *p, nh_op op)
{
    return p->isomorphic ? NULL : (p->root ? p->root : p)->sched[op][NH_ALGO_DIRECT];
}

int nh_irregular_direct(nh_plan *p, nh_op op, nh_choice *out)
{
    const nh_sched *s = lists_direct(p, op);
    if (!s || nh_forced_algo(p, op) == NH_ALGO_PMPI)
        return 0;
    out->algo = NH_ALGO_DIRECT;
    out->s = s;
    out->o.kind = NH_BIND_AUTO;
    out->o.header = 1; /* as store-and-forward's: sizes in the messages */
    return 1;
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
                "using %s (set NHOOD_FALLBACK=silent to hide this)",
                nh_algos[forced].name, opname, p->id,
                lists_direct(p, NH_OP_ALLTOALL) ? "pmpi or direct" : "pmpi");
    }
    return MPI_SUCCESS;
}

int nh_forced_needs_progress(nh_plan *p, nh_algo forced, const char *opname)
{
    if (nh_cfg.fallback == NH_FALLBACK_ERROR) {
        nh_error("algorithm %s was forced for nonblocking or persistent %s on communicator %d; "
                 "it forwards data and needs NHOOD_PROGRESS=poll, or auto with a progress "
                 "backend (progress=%s; NHOOD_FALLBACK=error)",
                 nh_algos[forced].name, opname, p->id, nh_prog_name());
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    nh_sel_state *st = nh_sel_state_of(p);
    if (nh_cfg.fallback == NH_FALLBACK_WARN && !(st && st->warned_progress)) {
        if (st)
            st->warned_progress = 1;
        nh_warn("algorithm %s forwards data between ranks, which nonblocking and persistent "
                "calls on communicator %d do only with NHOOD_PROGRESS=poll or a progress "
                "backend (progress=%s); using %s",
                nh_algos[forced].name, p->id, nh_prog_name(),
                forced == NH_ALGO_STFW ? "the other algorithms" : "direct");
    }
    return MPI_SUCCESS;
}

/* auto's choice for blocks of m bytes, kept for the next such call. */
static void remember(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig,
                     const nh_choice *c)
{
    nh_sel_state *st = nh_sel_state_of(p);
    if (!st)
        return;
    st->last[coll][form].valid = 1;
    st->last[coll][form].m = m;
    st->last[coll][form].sig = sig;
    st->last[coll][form].algo = c->algo;
    st->last[coll][form].s = c->s;
    st->last[coll][form].o = c->o;
    st->last[coll][form].why = c->why;
    st->last[coll][form].tuned = c->tuned;
    st->last[coll][form].learn = NULL; /* (found at its first tick) */
}

/* May a call skip describing its blocks (nh_select_passes,
 * nh_select_again)?  Not with store-and-forward, which re-checks with
 * the call's sizes, nor under NHOOD_CHECK. */
NH_HOT static int shortcut_ok(const nh_plan *p, const nh_sel_state *st)
{
    return st && !p->stfw && !p->stfw_wait && !nh_cfg.check;
}

/* Whether the last choice for coll in form was for blocks of m bytes and
 * signature lk->sig, and stands: a learned one counts the call toward its
 * re-check, and where trials run or a re-check is due the call chooses
 * anew (nh_select). */
NH_HOT static int last_stands(nh_plan *p, nh_sel_state *st, const nh_learn_key *lk)
{
    if (!st || !st->last[lk->coll][lk->form].valid || st->last[lk->coll][lk->form].m != lk->m ||
        st->last[lk->coll][lk->form].sig != lk->sig)
        return 0;
    return !(lk->form != NH_FORM_PERSISTENT &&
             (st->last[lk->coll][lk->form].tuned == NH_TUNED_MEASURED ||
              st->last[lk->coll][lk->form].tuned == NH_TUNED_FIRST_ROUND) &&
             nh_autotune_tick(p, lk, &st->last[lk->coll][lk->form].learn));
}

static void take_last(const nh_sel_state *st, nh_coll coll, nh_form form, nh_choice *out)
{
    out->algo = st->last[coll][form].algo;
    out->o = st->last[coll][form].o;
    out->s = st->last[coll][form].s;
    out->why = st->last[coll][form].why;
    out->tuned = (nh_tuned)st->last[coll][form].tuned;
}

NH_HOT int nh_select_own_last(nh_plan *p, nh_coll coll, nh_form form)
{
    nh_sel_state *st = nh_sel_state_of(p);
    return shortcut_ok(p, st) && st->last[coll][form].valid &&
           st->last[coll][form].algo == NH_ALGO_PMPI &&
           nh_forced_algo(p, nh_coll_op(coll)) == NH_ALGO_AUTO;
}

NH_HOT int nh_select_again(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig,
                           nh_choice *out)
{
    nh_sel_state *st = nh_sel_state_of(p);
    nh_learn_key lk = {coll, form, m, sig};
    /* (MPI's own, nh_select_own_last, checked before last_stands counts
     * the call: a call that goes on to nh_select must not count twice) */
    if (!last_stands(p, st, &lk))
        return 0;
    memset(out, 0, sizeof(*out));
    take_last(st, coll, form, out);
    return 1;
}

NH_HOT int nh_select_passes(nh_plan *p, nh_coll coll, nh_form form, nh_choice *out)
{
    nh_algo forced = nh_forced_algo(p, nh_coll_op(coll));
    nh_sel_state *st = nh_sel_state_of(p);
    if (!shortcut_ok(p, st))
        return 0;
    if (forced != NH_ALGO_PMPI && lists_direct(p, nh_coll_op(coll)))
        return 0; /* nhood's direct exchange stands in for MPI's (nh_irregular_direct) */
    if (forced != NH_ALGO_PMPI &&
        (forced != NH_ALGO_AUTO || nh_sizes_known(p, coll) || !st->last[coll][form].valid ||
         st->last[coll][form].algo != NH_ALGO_PMPI))
        return 0;
    memset(out, 0, sizeof(*out));
    out->algo = NH_ALGO_PMPI;
    if (forced == NH_ALGO_AUTO) {
        out->why = st->last[coll][form].why;
        out->o = st->last[coll][form].o; /* (the grouped form: NH_BIND_PACK) */
    }
    return 1;
}

/* nh_select, and with ask nh_select_ask: the same answer, but nothing
 * counted or remembered (no memo, no tick toward a re-check, no state of
 * a new size). */
static int choose(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig, int ask,
                  nh_choice *out)
{
    nh_op op = nh_coll_op(coll);
    int vec = nh_coll_vec(coll);
    nh_learn_key lk = {coll, form, m, sig};
    nh_algo forced = nh_forced_algo(p, op);
    int known = nh_sizes_known(p, coll), rc;
    nh_sel_state *st = nh_sel_state_of(p);
    /* v/w alltoall calls without the promise run forwarding schedules split */
    int split = !known && nh_coll_vec(coll) && op == NH_OP_ALLTOALL;
    double w = window_us(p, form);
    if (w < 0) /* unknown: forwarding runs only where forced or under poll */
        w = 0;
    memset(out, 0, sizeof(*out));
    out->algo = NH_ALGO_PMPI;
    if (forced == NH_ALGO_PMPI)
        return MPI_SUCCESS;
    if (!p->isomorphic) {
        nh_irregular_direct(p, op, out);
        return nh_forced_not_isomorphic(p, forced, nh_coll_name(coll));
    }
    nh_algo best = forced;
    nh_binding tb = NH_BIND_AUTO; /* the learning's binding (AUTO: the model's) */
    const nh_sched *bs = NULL;    /* best's schedule, where chosen among several */
    if (forced != NH_ALGO_AUTO && forced != NH_ALGO_PMPI) {
        double bc;
        bs = nh_sched_cheapest(p, op, form, 1, forced, known ? m : 8, w, &bc);
        if (!bs) { /* a multi-phase schedule in a nonblocking call (safe progress) */
            if (!nh_plan_sched(p, op, forced))
                return MPI_ERR_NO_MEM;
            best = NH_ALGO_DIRECT;
            if ((rc = nh_forced_needs_progress(p, forced, nh_coll_name(coll))))
                return rc;
        }
    } else if (forced == NH_ALGO_AUTO && !ask && last_stands(p, st, &lk)) {
        take_last(st, coll, form, out);
        return MPI_SUCCESS;
    } else if (forced == NH_ALGO_AUTO) {
        best = NH_ALGO_DIRECT;
        int tune = (known || vec) && nh_autotune_applies(p);
        if (tune &&
            nh_autotune_algo(p, &lk, ask, &best, &tb, &out->tuning, &out->tuned, &out->paid) ==
                0) {
            /* measured (NHOOD_AUTOTUNE, blocking and nonblocking calls;
             * MPI's own exchange is a candidate, run by the caller), or
             * the file's */
            if (best == NH_ALGO_PMPI) { /* decided: remembered (v, w: nh_select_passes) */
                out->o.kind = tb;       /* (NH_BIND_PACK: the grouped form) */
                if (!out->tuning && !ask)
                    remember(p, coll, form, m, sig, out);
                return MPI_SUCCESS;
            }
            if (!(bs = nh_autotune_sched(p, coll, best, m)))
                return MPI_ERR_NO_MEM;
        } else if (tune && !vec && form != NH_FORM_BLOCKING &&
                   tuned_pick(p, op, form, m, w, &best, &tb, &bs, out) == 0) {
            /* the blocking form's decision, where it may run in this form */
        } else if (known) {
            model_pick(p, op, form, m, w, &best, &bs);
            if (form != NH_FORM_BLOCKING)
                out->why = why_not_forwarding(p, op, m, best == NH_ALGO_PMPI ? NULL : bs);
            if (tune) /* the tuner has no decision here (yet) */
                out->tuned = NH_TUNED_MODEL;
        } else {
            unknown_pick(p, op, form, w, split, &best, &bs);
            if (tune) /* the trials' sizes changed: nothing learned */
                out->tuned = NH_TUNED_MODEL;
            if (split && form != NH_FORM_BLOCKING && !bs && best != NH_ALGO_PMPI) {
                nh_algo b0;
                const nh_sched *s0;
                unknown_pick(p, op, NH_FORM_BLOCKING, 0, split, &b0, &s0);
                if (s0)
                    out->why = nh_why_single_phase(p);
            }
        }
    }
    /* A forced forwarding schedule on v/w alltoall calls without the
     * promise runs split too. */
    if (split && forced != NH_ALGO_AUTO && bs && bs->tmpl_rounds > 1 &&
        (best == NH_ALGO_TORUS || best == NH_ALGO_TORUS_DIRECT) &&
        !(bs = nh_plan_sched_split(p, best)))
        return MPI_ERR_NO_MEM;
    if (best == NH_ALGO_PMPI) { /* out says so already; the grouped form too */
        out->o.kind = tb;
        if (!ask)
            remember(p, coll, form, m, sig, out);
        return MPI_SUCCESS;
    }
    const nh_sched *s = bs ? bs : nh_plan_sched(p, op, best);
    if (!s)
        return MPI_ERR_NO_MEM;
    out->algo = best;
    out->s = s;
    /* v/w calls decide packing per message (the engine's AUTO rule) unless
     * NHOOD_BINDING forces one; regular calls by the cost model. */
    out->o.kind = tb != NH_BIND_AUTO ? tb : vec ? nh_cfg.binding : nh_pick_binding(s, m);
    out->o.header = !known && s->tmpl_rounds > 1;
    out->o.model = nh_coll_vec(coll);
    if (forced == NH_ALGO_AUTO && !out->tuning && !ask)
        remember(p, coll, form, m, sig, out);
    return MPI_SUCCESS;
}

int nh_select(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig, nh_choice *out)
{
    return choose(p, coll, form, m, sig, 0, out);
}

int nh_select_ask(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig,
                  nh_choice *out)
{
    return choose(p, coll, form, m, sig, 1, out);
}
