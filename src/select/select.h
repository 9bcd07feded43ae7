/* Selection: which schedule and binding a call runs with (select.c,
 * price.c, stfw_choice.c, autotune.c).  Above the engine, below the API layer. */
#ifndef NH_SELECT_H
#define NH_SELECT_H

#include <string.h>

#include "core/tunetext.h"
#include "exec/engine.h"
#include "exec/progress.h"
#include "util/window.h"

/* Why auto's nonblocking or persistent call does not forward where a
 * blocking one would: the window eats the gain, no progress backend
 * forwards for it, or no window has been measured (select.c). */
typedef enum {
    NH_WHY_NONE = 0,
    NH_WHY_WINDOW,
    NH_WHY_NO_PROGRESS,
    NH_WHY_WINDOW_UNKNOWN,
    NH_WHY_LARGE_COUNT,    /* large-count call: a block's bytes beyond int (api/large.c) */
    NH_WHY_LARGE_COUNT_VW, /* large-count v/w call without NHOOD_LARGE_COUNT=fits */
    NH_WHY_GPU_RUNTIME     /* a GPU runtime loaded on some rank at graph creation (util/gpu.h) */
} nh_why;
const char *nh_why_name(nh_why w);

/* Selection's state per plan (nh_plan_ext): auto's decision for the last
 * block size of each collective and form, the learning's state per
 * operation and block size (autotune.c), and whether the warning that a
 * forced algorithm needs progress was given.  NULL where memory ran out
 * (nothing remembered, nothing learned, the warning repeated). */
struct nh_learn;
void nh_learn_free(struct nh_learn **l);
typedef struct nh_sel_state {
    /* the plan's calls (nh_autotune_count), and the first call a decision
     * deferred from a parent's point applies at (0: none); first, as read
     * by every call */
    long calls, defer_min;
    struct nh_learn *learn;
    struct {
        size_t m;
        int valid;
        nh_algo algo;
        const nh_sched *s; /* its schedule (bruck: of the ports chosen) */
        nh_bind_opts o;
        int why;           /* nh_why */
        int tuned;         /* nh_tuned */
        unsigned long sig; /* v and w calls */
        struct nh_learn *learn; /* its learning state (nh_autotune_tick), or NULL */
    } last[NH_COLL_COUNT][NH_FORM_COUNT];
    int warned_progress;
} nh_sel_state;
static inline void nh_sel_state_fini(nh_plan *p, void *state)
{
    (void)p;
    nh_learn_free(&((nh_sel_state *)state)->learn);
}
static inline nh_sel_state *nh_sel_state_of(nh_plan *p)
{
    return nh_plan_ext(p, NH_EXT_SELECT, sizeof(nh_sel_state), nh_sel_state_fini);
}

/* May a schedule that forwards run in form on p?  Blocking calls always;
 * nonblocking and persistent ones under poll (promised), or where a
 * progress backend forwards for them (exec/progress.c) and the algorithm
 * was forced or the window is known (auto prices it); forced = 1 also
 * where the learning measures it. */
static inline int nh_may_forward(const nh_plan *p, nh_form form, int forced)
{
    if (form == NH_FORM_BLOCKING || nh_cfg.progress == NH_PROGRESS_POLL)
        return 1;
    return nh_prog_forwarding() && !p->no_forward && (forced || p->window != NH_WIN_UNKNOWN);
}
/* Why auto keeps a single phase on p in a nonblocking or persistent call
 * where a forwarding schedule would win a blocking one: no backend, no
 * window measured, or the window eats the gain. */
nh_why nh_why_single_phase(const nh_plan *p);

/* Where a choice under NHOOD_AUTOTUNE=1 came from (the report's tuned=):
 * this run's trials (measured), the tuning file (file), the cost model
 * where the tuner has no decision that may run (model), or the first
 * round's agreed times while the run-off goes on (first_round: another
 * form's interim choice, not yet a decision); NONE where autotune does
 * not apply. */
typedef enum {
    NH_TUNED_NONE = 0,
    NH_TUNED_MEASURED,
    NH_TUNED_FILE,
    NH_TUNED_MODEL,
    NH_TUNED_FIRST_ROUND
} nh_tuned;

typedef struct nh_choice {
    /* NH_ALGO_PMPI: MPI's own exchange (the caller hands the call to MPI:
     * NH_TO_PMPI, util/util.h; with o.kind NH_BIND_PACK in the grouped
     * form, nh_mpi_own_ok); NH_ALGO_AUTO: not decided yet (nh_stfw_choose) */
    nh_algo algo;
    const nh_sched *s;
    nh_bind_opts o;
    int tuning;     /* an autotune trial: time the call, nh_autotune_record */
    double *paid;   /* a nonblocking trial: where its request puts what it cost */
    nh_why why;     /* auto, nonblocking and persistent forms */
    nh_tuned tuned; /* NHOOD_AUTOTUNE=1 */
} nh_choice;

/* The algorithm for a call of coll in form with blocks of m bytes (the
 * same on every rank where nh_sizes_known; ignored elsewhere) and, for v
 * and w calls, the signature sig of their sizes (nh_learn_key). */
int nh_select(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig, nh_choice *out);
/* What nh_select would answer for the next such call, for a question
 * (nhood_algorithm_for) that is no call: nothing counted or kept, so a
 * rank that asks makes the same choices at the same calls as one that
 * does not. */
int nh_select_ask(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig,
                  nh_choice *out);
/* On a graph that is not isomorphic, where nhood would hand op's call to
 * MPI's own exchange: nhood's direct exchange over the lists instead
 * (*out set, 1) where some rank lists a source twice, whose blocks MPICH
 * 4.0 to 4.2 order wrongly (plan/detect.c builds it there), unless
 * NHOOD_ALGO* asks for MPI's own; else 0. */
int nh_irregular_direct(nh_plan *p, nh_op op, nh_choice *out);
/* Whether coll in form on p goes to MPI's own exchange whatever its block
 * sizes (NHOOD_ALGO=pmpi, or auto's size-independent choice, made once,
 * where no rank can know the others' sizes), so that the call need not
 * describe its blocks first; *out says so.  Not with store-and-forward
 * (it re-checks with the call's sizes) or under NHOOD_CHECK. */
int nh_select_passes(nh_plan *p, nh_coll coll, nh_form form, nh_choice *out);
/* Whether the last call of coll in form went to MPI's own exchange as
 * auto's choice for its sizes, which the next call of the same sizes may
 * take again (nh_select_again).  As nh_select_passes, not with
 * store-and-forward or under NHOOD_CHECK.  Asked first, before the sizes
 * are compared (api/repeat.c). */
int nh_select_own_last(nh_plan *p, nh_coll coll, nh_form form);
/* Where nh_select_own_last said so: whether the call of coll in form with
 * blocks of m bytes and signature sig, the last call's, goes to MPI's own
 * exchange as that call did (*out set, 1), without nh_select: no trial or
 * re-check is due (the call counts toward the re-check). */
int nh_select_again(nh_plan *p, nh_coll coll, nh_form form, size_t m, unsigned long sig,
                    nh_choice *out);
/* Does every rank hold every template entry (each dimension that offsets
 * can leave is periodic; size 1 dimensions have nothing to leave), so
 * that every rank's in- and out-degree are the template's?  And does
 * every rank see the same block sizes for coll on p: regular calls where
 * the plan's sizes are coupled, v and w calls under the isomorphic=true
 * promise on a full template. */
static inline int nh_full_template(const nh_plan *p)
{
    for (int j = 0; j < p->nb.g.ndims; j++)
        if (p->nb.g.dims[j] > 1 && !p->nb.g.periods[j])
            return 0;
    return 1;
}
static inline int nh_sizes_known(nh_plan *p, nh_coll coll)
{
    return !nh_coll_vec(coll) ? nh_plan_coupled(p) : p->hinted && nh_full_template(p);
}
/* The cost model applied (price.c). */
/* The modeled time of s for blocks of m bytes under binding b. */
double nh_cost_of(const nh_sched *s, nh_binding b, size_t m);
/* The modeled time of s's first message phase; *total gets the whole
 * schedule's (the phases after it wait for the forwarding ranks'
 * completion calls in a nonblocking call). */
double nh_cost_first_phase(const nh_sched *s, nh_binding b, size_t m, double *total);
/* s in a call the program completes w microseconds after starting it
 * (w <= 0: at once). */
double nh_cost_sched_in_window(const nh_sched *s, nh_binding b, size_t m, double w);
/* MPI's own exchange of op on p in a window of w microseconds. */
double nh_native_cost(nh_plan *p, nh_op op, size_t m, double w);
/* The cost model's terms, one per parameter: NH_TERM_* (core/model.h).
 * s's terms for blocks of m bytes under binding b, each phase's branch as
 * the current parameters take it: its cost is their dot product with the
 * parameters. */
void nh_cost_terms(const nh_sched *s, nh_binding b, size_t m, double t[NH_NTERMS]);
/* The same for MPI's own exchange of op on p. */
void nh_native_terms(nh_plan *p, nh_op op, size_t m, double t[NH_NTERMS]);
/* The counts of each phase (core/model.h, nh_cost_phase) into ph, at most
 * max of them; returns how many there are (the local copies last, as a
 * vector without a phase). */
int nh_cost_phase_counts(const nh_sched *s, nh_binding b, size_t m, double (*ph)[NH_NTERMS],
                         int max);
int nh_native_phase_counts(nh_plan *p, nh_op op, size_t m, double (*ph)[NH_NTERMS], int max);
/* Algorithm a's schedule for blocks of m bytes that may run in form
 * (forced: as a forced algorithm may), at its modeled cost *cost in a
 * window of w microseconds: bruck's port count where the plan leaves it
 * to the cost model is the cheapest (at m where sizes are known, else at
 * 8 bytes, the same on every rank).  NULL if none may. */
const nh_sched *nh_sched_cheapest(nh_plan *p, nh_op op, nh_form form, int forced, nh_algo a,
                                  size_t m, double w, double *cost);
/* The schedule a blocking call forced to algorithm a runs with blocks of
 * m bytes (bruck: the port count the model prices cheapest). */
const nh_sched *nh_sched_forced(nh_plan *p, nh_op op, nh_algo a, size_t m);
/* The binding auto takes for s with blocks of m bytes. */
nh_binding nh_pick_binding(const nh_sched *s, size_t m);
/* The algorithm asked for op, with a forced stfw counted as AUTO:
 * store-and-forward is tried before selection. */
nh_algo nh_forced_algo(const nh_plan *p, nh_op op);
/* A forced algorithm on a non-isomorphic communicator: warn once, fail
 * (NHOOD_FALLBACK=error) or stay silent; the call goes to PMPI. */
int nh_forced_not_isomorphic(nh_plan *p, nh_algo forced, const char *opname);
/* A forced forwarding algorithm in a nonblocking or persistent call where
 * nothing forwards for it (NHOOD_PROGRESS=safe, or auto without a progress
 * backend): warn once, or fail (NHOOD_FALLBACK=error). */
int nh_forced_needs_progress(nh_plan *p, nh_algo forced, const char *opname);

/* Store-and-forward (stfw_choice.c): fills *out where the call's choice
 * is made here (store-and-forward, or on an irregular graph MPI's
 * exchange with the reason it does not forward), else leaves out->algo
 * NH_ALGO_AUTO for nh_select to decide; returns MPI_SUCCESS or an MPI
 * error.  total is the bytes this rank sends in the call (auto's re-check
 * at the first blocking call of op, a collective reduction). */
int nh_stfw_choose(nh_plan *p, nh_coll coll, nh_form form, double total, nh_choice *out);
/* May a call of this form run store-and-forward on p?  Blocking ones
 * always; nonblocking and persistent ones under NHOOD_PROGRESS=poll, or
 * where a progress backend forwards for them: forced, or under auto
 * where the model prices it below one message per neighbor in the agreed
 * window (select.c). */
int nh_stfw_form_allows(const nh_plan *p, nh_op op, nh_form form);
/* What auto's re-check would decide for uniform blocks of block_bytes
 * (afterwards: what it decided); the VPT dimension, or 0 without STFW. */
int nh_stfw_predict(const nh_plan *p, nh_op op, int block_bytes);

/* nh_tune_dec: a decision of the learning (core/tunetext.h) */

/* The learning tier, NHOOD_AUTOTUNE (autotune.c): whether it applies to
 * p (isomorphic; regular calls where nh_sizes_known, v and w calls
 * everywhere). */
int nh_autotune_applies(nh_plan *p);
/* What the learning keeps its state by: the collective, the form and the
 * blocks: a regular call's size m; a v or w call's signature sig (its
 * sizes in the template's order, api's nh_call_sig), the key where the
 * sizes are known alike on every rank (nh_sizes_known), elsewhere only
 * checked to stay the same through the trials (one state per collective
 * and form; where it changes on some rank, the model chooses); m their
 * mean there (pricing, the report). */
typedef struct nh_learn_key {
    nh_coll coll;
    nh_form form;
    size_t m;
    unsigned long sig;
} nh_learn_key;
/* The algorithm and binding (AUTO: the cost model's) a blocking or
 * nonblocking call runs, measured rather than modeled (or decided by the
 * tuning file, *tuned says which); -1 where learning does not apply, or
 * a nonblocking size awaits its agreement.  *tuning: a trial; a blocking
 * one the caller times for nh_autotune_record (the first of each
 * candidate, untimed, too), a nonblocking one's request (exec/request.h,
 * nh_req_time) puts what the caller paid in **paid at completion (NULL:
 * untimed), then nh_autotune_started.  Creates the key's state; a trial
 * moves on only when made.  With ask (nhood_algorithm_for's question) the
 * answer for k's next call, moving nothing (the trials, the count toward
 * a re-check), adding no state, and *paid NULL. */
int nh_autotune_algo(nh_plan *p, const nh_learn_key *k, int ask, nh_algo *algo, nh_binding *bind,
                     int *tuning, nh_tuned *tuned, double **paid);
int nh_autotune_record(nh_plan *p, const nh_learn_key *k, double seconds);
/* A nonblocking trial (timed or not) has started: the next call takes the
 * next trial. */
void nh_autotune_started(nh_plan *p, const nh_learn_key *k);
/* Selection remembered the learned choice for a call (a decided call):
 * counts it toward the re-check; 1 where trials are due or running (the
 * call chooses through nh_autotune_algo).  *memo: k's learning state,
 * found once and kept by the caller (NULL: not yet; states live as long
 * as the plan's selection state). */
int nh_autotune_tick(nh_plan *p, const nh_learn_key *k, struct nh_learn **memo);
/* May the learning run MPI's own exchange on p?  Where no rank lists a
 * source twice, and where one does on MPI libraries that order such
 * blocks as the standard says (not MPICH before 5.0: platforms.md): the
 * learning measures it there, where the model alone keeps off it. */
int nh_autotune_pmpi_ok(const nh_plan *p);
/* May MPI's own exchange run a call of coll in form on p, as the program
 * made it (b = NH_BIND_AUTO), or in the grouped form (NH_BIND_PACK:
 * api/cold.c's nh_grouped_call, where MPI's would misorder a repeated
 * source's blocks)?  Identical on every rank (select/mpi_own.c). */
int nh_mpi_own_ok(const nh_plan *p, nh_coll coll, nh_form form, nh_binding b);
/* Candidate a's schedule for coll on p with blocks of m bytes (bruck: the
 * port count the model prices cheapest at m; v and w calls of sizes not
 * known alike: direct, or an all-to-all's forwarding schedule split). */
const nh_sched *nh_autotune_sched(nh_plan *p, nh_coll coll, nh_algo a, size_t m);
/* Nonblocking sizes whose trials have all started wait for an agreement
 * point: a call where every rank of p is sure to take part and blocking is
 * allowed (p's blocking collectives, api/points.c).  nh_learn_nawait:
 * how many wait, all plans together (the points' fast test);
 * nh_autotune_pending: whether p has one; nh_autotune_settle (collective
 * over p): one reduction for all of p's, deciding those whose trials have
 * completed on every rank (the rest wait for the next point). */
extern int nh_learn_nawait;
int nh_autotune_pending(nh_plan *p);
int nh_autotune_settle(nh_plan *p);
/* The same at a point on the graph's parent (api/parents.c), where the
 * ranks' calls on p may differ.  nh_autotune_point_state: whether some
 * nonblocking size of p's waits here (bit NH_POINT_WAITS), whether some
 * is on trial or deferred (bit NH_POINT_TRIALS), *n how many sizes p has
 * learned
 * (created in call order, alike on every rank that made the calls),
 * *calls p's calls so far.  nh_autotune_settle_at, collective over p,
 * with n the fewest sizes and switch_at the call after the most calls
 * any rank had made: one reduction over the first n sizes; those whose
 * trials completed and wait on every rank are decided, and every rank
 * applies the decisions at its call switch_at (nh_autotune_count), or at
 * p's next own point, where the ranks' calls are the same (*decided: how
 * many, alike on every rank). */
enum { NH_POINT_WAITS = 1, NH_POINT_TRIALS = 2 }; /* trials running or decisions deferred */
int nh_autotune_point_state(nh_plan *p, int *n, long *calls);
int nh_autotune_settle_at(nh_plan *p, int n, long switch_at, int *decided);
void nh_autotune_apply(nh_plan *p, int all);
/* Counts a call on an analyzed plan (api/neighbor.c: every call). */
static inline void nh_autotune_count(nh_plan *p)
{
    nh_sel_state *st = nh_sel_state_of(p);
    if (st && ++st->calls >= st->defer_min && st->defer_min)
        nh_autotune_apply(p, 0);
}
/* The decision a nonblocking or persistent call of form may start from,
 * without trials: the tuning file's for that form, else the blocking
 * form's (agreed by this communicator's trials, or from the file).
 * Returns 0 with *d and *tuned (MEASURED or FILE), -1 where there is none
 * yet.  Identical on every rank of p. */
int nh_autotune_decided(nh_plan *p, nh_op op, nh_form form, size_t m, nh_tune_dec *d,
                        nh_tuned *tuned);

#endif
