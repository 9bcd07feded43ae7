/* The learning tier (NHOOD_AUTOTUNE, on by default): choose by measuring
 * the program's own calls instead of trusting the cost model.
 *
 * For each (graph, operation, form, block size) on a graph whose block sizes
 * are coupled (so every rank sees the same size and hence the same
 * sequence of calls), the first blocking calls try the candidates in
 * turn: MPI's own exchange, and each of nhood's schedules with each
 * binding (packed, or described by a struct datatype: the wrong-constants
 * losses came from the binding and the eager limit, not the algorithm;
 * where MPI's own may not run, direct with a message per block stands in
 * for it; where the eager limit splits a round's blocks to a peer, the
 * same in one struct message however large, NH_BIND_WHOLE).
 * The cost model only prunes: a schedule it prices above NH_LEARN_PRUNE
 * times the cheapest is not tried (with any binding).  A schedule's
 * struct-datatype binding waits for the run-off (below), which it joins
 * where the schedule's packing came within NH_LEARN_BIND_CLOSE of the
 * fastest and no other schedule of nhood's was faster: most trials of
 * it lose, and its first call builds the datatypes.  Its whole messages
 * join the run-off alike, and so does the struct datatype where it sends
 * one message per peer and round, within NH_LEARN_WHOLE_CLOSE.  Each candidate
 * runs three untimed calls (the first builds the schedule and the
 * binding; MPI's first messages of a new shape cost more; one above
 * 64 KiB blocks), then NH_TUNE_TRIALS timed ones, and is judged by their
 * median.  Up to 64 KiB blocks a blocking call's candidates take turns
 * call by call, so that a passing disturbance falls on them alike;
 * above, and for a nonblocking call's regular blocks (in_turns), each runs
 * its calls in a block: a call costs milliseconds there, and taking
 * turns needs every candidate's binding cached at once (hundreds of MiB
 * at 1 MiB blocks).
 * After the last trial, one MPI_Allreduce (MAX) over the plan's
 * private communicator gives every candidate's time as the slowest rank's
 * median call; every rank takes the same minimum (ties to the earlier
 * candidate, MPI's own first) and keeps it.
 *
 * Decided, a choice is re-checked after NHOOD_LEARN_RECHECK calls of its
 * size: MPI's own exchange against the choice (or, where MPI's own is
 * the choice, nhood's best candidate), with the same
 * trials and one reduction; the choice stays unless the other is 5 %
 * faster, in that re-check and in a second one right after it (a passing
 * disturbance falls on one), and each confirmation doubles the
 * interval.  A machine that changes under the program (a neighbor job on
 * the network) moves the choice back.
 *
 * Every rank makes the same calls in the same order (MPI's collective
 * rule) and counts them the same way, so all ranks run the same candidate
 * on the same call and reach each reduction together; decided, no call
 * communicates beyond the chosen exchange.  The state lives in the plan's
 * selection state (one thread calls a communicator's collectives at a
 * time) and goes with it.
 *
 * Nonblocking calls learn on their own (a caller's overlap changes what
 * pays): a trial's request times what the caller pays, its start plus
 * every completion call that names it (exec/request.c: MPI's own
 * exchange runs through a request of nhood's for that), and puts it in
 * the trial's slot at completion.  A start is local, so no agreement can
 * happen there: once every trial of a size has started, the size waits
 * (awaiting; its calls take the blocking form's decision or the model's)
 * for an agreement point, a blocking collective on the graph
 * (api/points.c, and the blocking neighborhood calls), where one
 * reduction settles every waiting size whose trials have completed on
 * every rank.  Persistent calls start from the nonblocking form's
 * decision, else the blocking form's (nh_autotune_decided, priced in
 * select.c).
 *
 * With NHOOD_TUNE_FILE (tunefile.c) a size whose key the file holds takes
 * the file's choice without trials where it applies to the plan; every
 * agreement is handed to the file for saving. */
#include <stdio.h>
#include <stdlib.h>

#include "exec/request.h"
#include "util/host.h"
#include "util/mpilib.h"
#include "select/learn.h"
#include "select/tunefile.h"

int nh_learn_nawait;

void nh_learn_free(struct nh_learn **l)
{
    while (*l) {
        struct nh_learn *n = (*l)->next;
        if ((*l)->awaiting)
            __atomic_sub_fetch(&nh_learn_nawait, 1, __ATOMIC_RELAXED);
        free(*l);
        *l = n;
    }
}

/* The key of the decision for blocks of m bytes of op in form on p. */
static void key_of(const nh_plan *p, nh_op op, nh_form form, size_t m, nh_tune_key *k)
{
    k->op = op;
    k->form = form;
    k->m = m;
    k->g = p->nb.g;
    k->s = p->nb.s;
    k->off = p->nb.off;
}

/* What k's state is found by (struct nh_learn's key). */
static unsigned long key_value(nh_plan *p, const nh_learn_key *k)
{
    if (!nh_coll_vec(k->coll))
        return k->m;
    return nh_sizes_known(p, k->coll) ? k->sig : 0;
}

static struct nh_learn *find(nh_sel_state *st, nh_coll coll, nh_form form, unsigned long key,
                             int *nsizes)
{
    *nsizes = 0;
    for (struct nh_learn *t = st->learn; t; t = t->next)
        if (t->coll == coll && t->form == form) {
            if (t->key == key)
                return t;
            ++*nsizes;
        }
    return NULL;
}

int nh_autotune_applies(nh_plan *p)
{
    return nh_cfg.autotune && p->isomorphic;
}

/* Starts the trials of t->ntry candidates (t->tryidx): a nonblocking
 * one's times arrive at completion, unmeasured (-1) until then. */
static void start_trials(struct nh_learn *t)
{
    t->n = 0;
    t->extra = t->nnew = 0;
    t->spent = 0;
    for (int i = 0; i < t->ntry; i++)
        for (int k = 0; k < NH_TUNE_SAMPLES; k++)
            t->tm[t->tryidx[i]][k] = -1;
}

/* Untimed calls per candidate before its timed ones (the same on every
 * rank: a regular call's block size is).  A run-off's too, as the
 * bindings that join it run there first (and where one of those sends
 * each peer one large struct message, it runs t->extra more first:
 * start_runoff). */
static int untimed(const struct nh_learn *t)
{
    return t->vec || t->m <= NH_TUNE_WARM_MAX ? NH_TUNE_UNTIMED : 1;
}

/* Are the candidates on trial taken in turns, call by call?  A run-off's
 * (few), and every set's where the blocks are small: their bindings all
 * stay cached at once (the engine keeps 8; a first round has at most 6),
 * and a passing disturbance, or a stretch of slow calls, falls on them
 * alike.  MPICH 4.0.2 at 2 ranks, 3-D Moore alltoall of 8 B, each call
 * after a barrier: a program's first 70 or so calls, and some stretches
 * later, take 1.7 us more than the rest, whatever runs them (0.5 against
 * 2.2 us); with six calls per candidate in a block, the one whose block
 * came after such a stretch timed 0.5 and the others 2.0 to 2.3, so the
 * stretch chose.  Larger blocks: in blocks (a call costs
 * milliseconds, which such stretches do not move, and caching every
 * candidate's binding at once would cost hundreds of MiB at 1 MiB).
 * A nonblocking call's regular blocks up to NH_TUNE_WARM_MAX run in
 * blocks too, run-offs included: in turns, each call
 * started right after another candidate's, they misjudged the fastest
 * (MPICH 4.0.2 at 2 ranks, 3-D Moore MPI_Ineighbor_alltoall of 4 KiB
 * with an MPI_Allreduce every 10 calls: MPI's v call over direct/pack
 * 0.96 to 1.12 in turns, 1.14 to 1.40 in blocks, six tries each, and
 * 1.24 over 1000 calls of each; in turns the learning took MPI's call
 * in two tries of six, and the row read 1.195 and 1.161 of the fastest
 * fixed choice in two runs of six tries). */
static int in_turns(const struct nh_learn *t)
{
    if (t->form != NH_FORM_BLOCKING && !t->vec && t->m <= NH_TUNE_WARM_MAX)
        return 0;
    return t->runoff || t->vec || t->m <= NH_TUNE_WARM_MAX;
}

/* The candidate (index into cand) of the set's next call, and *k its timed
 * sample (negative: an untimed call).  In turns (in_turns): untimed(t)
 * rounds of untimed calls, then the timed rounds; else in blocks
 * (untimed(t) untimed calls, then the timed ones) candidate by candidate. */
static int trial_at(const struct nh_learn *t, int *k)
{
    int per = nh_learn_timed(t) + untimed(t), n = t->n - t->extra;
    if (n < 0) { /* the newcomers' longer warm-up, in turns */
        *k = -1;
        return t->newidx[t->n % t->nnew];
    }
    if (in_turns(t)) {
        *k = n / t->ntry - untimed(t);
        return t->tryidx[n % t->ntry];
    }
    *k = n % per - untimed(t);
    return t->tryidx[n / per];
}

/* Counts a trial call: 1 when the set is complete. */
static int trial_done(struct nh_learn *t)
{
    return ++t->n == t->extra + t->ntry * (nh_learn_timed(t) + untimed(t));
}

/* Puts the first round's candidates on trial (every one but the later
 * bindings). */
static void try_all(struct nh_learn *t)
{
    t->ntry = 0;
    for (int i = 0; i < t->ncand; i++) {
        t->fast[i] = -1;
        t->dec.us[i] = -1; /* (not timed) */
        if (!t->later[i])
            t->tryidx[t->ntry++] = i;
    }
    start_trials(t);
}

/* d without the candidates never timed (the later bindings that joined
 * no run-off). */
static void timed_only(const nh_tune_dec *d, nh_tune_dec *out)
{
    *out = *d;
    out->ncand = 0;
    for (int i = 0; i < d->ncand; i++)
        if (d->us[i] >= 0) {
            out->cand[out->ncand] = d->cand[i];
            out->cbind[out->ncand] = d->cbind[i];
            out->us[out->ncand++] = d->us[i];
        }
}

/* The file's decision for t where it applies to p: t is done, no trials
 * (regular calls: the file keys block sizes). */
static void take_file_decision(nh_plan *p, struct nh_learn *t)
{
    nh_tune_key k;
    if (t->vec)
        return;
    key_of(p, t->op, t->form, t->m, &k);
    if (nh_tune_file_lookup(&k, &t->dec) == 0 &&
        nh_learn_applicable(p, t, t->dec.algo, t->dec.bind))
        t->done = t->from_file = 1;
}

/* A decided call: counts toward the re-check, which puts MPI's exchange
 * and nhood's best candidate on trial again when due. */
static void tick(struct nh_learn *t)
{
    if (t->from_file || t->nolearn || t->own < 0 || t->cand[0] != NH_ALGO_PMPI ||
        nh_cfg.learn_recheck <= 0 || --t->left > 0)
        return;
    t->done = 0;
    t->rechecking = 1;
    t->ntry = 2;
    t->tryidx[0] = 0; /* MPI's own, as made or grouped, is candidate 0 where it may run */
    t->tryidx[1] = t->own;
    start_trials(t);
}

/* A new state for k on p, not yet in p's list (NULL: learning does not
 * take this size, or no memory): its candidates on trial, or the file's
 * decision. */
static struct nh_learn *new_state(nh_plan *p, const nh_learn_key *k, unsigned long key, int nsizes)
{
    nh_tune_dec d;
    nh_tuned src;
    if (nsizes >= NH_TUNE_SIZES)
        return NULL; /* the cost model decides for further sizes */
    /* a nonblocking call of a size the blocking form (or the file)
     * decided starts from that (select.c, tuned_pick) */
    if (k->form == NH_FORM_NONBLOCKING && !nh_coll_vec(k->coll) &&
        nh_autotune_decided(p, nh_coll_op(k->coll), k->form, k->m, &d, &src) == 0)
        return NULL;
    struct nh_learn *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->coll = k->coll;
    t->op = nh_coll_op(k->coll);
    t->form = k->form;
    t->m = k->m;
    t->vec = nh_coll_vec(k->coll);
    t->known = !t->vec || nh_sizes_known(p, k->coll);
    t->key = key;
    t->lsig = k->sig;
    t->own = -1;
    if (nh_learn_candidates(p, t) == 0) {
        free(t);
        return NULL;
    }
    try_all(t);
    take_file_decision(p, t);
    return t;
}

/* What t runs for its next call (nh_autotune_algo's answer). */
static int next_call(struct nh_learn *t, nh_form form, nh_algo *algo, nh_binding *bind,
                     int *tuning, nh_tuned *tuned, double **paid)
{
    /* until the agreement: the blocking form's decision or the model's;
     * and the model's where the sizes changed during the trials */
    if (t->awaiting || t->nolearn)
        return -1;
    *tuning = !t->done;
    *tuned = t->from_file ? NH_TUNED_FILE : NH_TUNED_MEASURED;
    if (t->done) {
        *algo = t->dec.algo;
        *bind = t->dec.bind;
        return 0;
    }
    int smp, i = trial_at(t, &smp);
    *algo = t->cand[i];
    *bind = t->bind[i];
    if (form == NH_FORM_BLOCKING)
        return 0; /* timed by the caller: nh_autotune_record */
    /* nonblocking: the request times what the caller pays and puts it in
     * the slot at completion (none for the untimed calls); the
     * trials move on when the caller has started it (nh_autotune_started) */
    *paid = smp >= 0 ? &t->tm[i][smp] : NULL;
    return 0;
}

int nh_autotune_algo(nh_plan *p, const nh_learn_key *k, int ask, nh_algo *algo, nh_binding *bind,
                     int *tuning, nh_tuned *tuned, double **paid)
{
    int nsizes;
    nh_sel_state *st = nh_sel_state_of(p);
    *paid = NULL;
    if (!nh_autotune_applies(p) || !st || k->form == NH_FORM_PERSISTENT)
        return -1;
    unsigned long key = key_value(p, k);
    struct nh_learn *t = find(st, k->coll, k->form, key, &nsizes);
    if (ask) {
        /* the next call's answer from a copy of the state (or a new one),
         * which then goes: a question moves neither the trials nor the
         * count toward a re-check, and adds no size */
        struct nh_learn *c = t ? malloc(sizeof(*c)) : new_state(p, k, key, nsizes);
        if (!c)
            return -1;
        if (t) {
            *c = *t;
            if (c->done)
                tick(c);
        }
        int rc = next_call(c, k->form, algo, bind, tuning, tuned, paid);
        *paid = NULL; /* (a slot of the copy) */
        free(c);
        return rc;
    }
    if (!t) {
        if (!(t = new_state(p, k, key, nsizes)))
            return -1;
        t->next = st->learn;
        st->learn = t;
    } else if (t->done)
        tick(t);
    return next_call(t, k->form, algo, bind, tuning, tuned, paid);
}

/* k's state on p, where it is on trial: the call's signature checked. */
static struct nh_learn *on_trial(nh_plan *p, const nh_learn_key *k)
{
    int nsizes;
    nh_sel_state *st = nh_sel_state_of(p);
    struct nh_learn *t = st ? find(st, k->coll, k->form, key_value(p, k), &nsizes) : NULL;
    if (!t || t->done || t->awaiting)
        return NULL;
    if (k->sig != t->lsig)
        t->unstable = 1;
    return t;
}

void nh_autotune_started(nh_plan *p, const nh_learn_key *k)
{
    struct nh_learn *t = on_trial(p, k);
    if (t && trial_done(t)) {
        t->awaiting = 1;
        __atomic_add_fetch(&nh_learn_nawait, 1, __ATOMIC_RELAXED);
    }
}

NH_HOT int nh_autotune_tick(nh_plan *p, const nh_learn_key *k, struct nh_learn **memo)
{
    int nsizes;
    nh_sel_state *st;
    struct nh_learn *t = *memo;
    if (!t && (st = nh_sel_state_of(p)))
        t = *memo = find(st, k->coll, k->form, key_value(p, k), &nsizes);
    if (t && t->done)
        tick(t);
    return t && !t->done;
}

int nh_autotune_decided(nh_plan *p, nh_op op, nh_form form, size_t m, nh_tune_dec *d,
                        nh_tuned *tuned)
{
    nh_tune_key k;
    int nsizes, rc = -1;
    nh_sel_state *st = nh_sel_state_of(p);
    if (!nh_autotune_applies(p) || !st)
        return -1;
    key_of(p, op, form, m, &k);
    *tuned = NH_TUNED_FILE;
    if (nh_tune_file_lookup(&k, d) == 0) /* the file's for this very form */
        return 0;
    /* this form's, a persistent call the nonblocking form's, else the blocking form's */
    nh_coll coll = op == NH_OP_ALLTOALL ? NH_COLL_ALLTOALL : NH_COLL_ALLGATHER;
    struct nh_learn *t =
        find(st, coll, form == NH_FORM_BLOCKING ? form : NH_FORM_NONBLOCKING, m, &nsizes);
    if (!t || t->nolearn || !(t->done || t->dec.ncand))
        t = find(st, coll, NH_FORM_BLOCKING, m, &nsizes);
    if (t && t->nolearn)
        t = NULL;
    if (t && (t->done || t->dec.ncand)) { /* decided (a re-check keeps the last decision) */
        timed_only(&t->dec, d);
        *tuned = t->from_file            ? NH_TUNED_FILE
                 : t->runoff && !t->done ? NH_TUNED_FIRST_ROUND
                                         : NH_TUNED_MEASURED;
        rc = 0;
    }
    /* the file's blocking decision, before the first blocking call */
    k.form = NH_FORM_BLOCKING;
    if (rc && !t && nh_tune_file_lookup(&k, d) == 0)
        rc = 0;
    return rc;
}

/* Rank 0's line under NHOOD_REPORT: the choice, every candidate's agreed
 * time, and what learning cost. */
static void say(nh_plan *p, const struct nh_learn *t)
{
    char times[512], name[48];
    size_t n = 0;
    int rank;
    if (!nh_cfg.report || nh_mpi_Comm_rank(p->pcomm, &rank) != MPI_SUCCESS || rank != 0)
        return;
    if (t->nolearn) {
        nh_log_line("nhood: autotune comm=%d op=%s%s bytes=%zu algorithm=model (the blocks' sizes "
                    "changed during the trials on some rank)\n",
                    p->id, t->form == NH_FORM_BLOCKING ? "" : "i", nh_coll_name(t->coll), t->m);
        return;
    }
    for (int i = 0; i < t->dec.ncand && n < sizeof(times); i++) {
        if (t->dec.us[i] < 0) /* not tried */
            continue;
        nh_tune_cand_name(t->dec.cand[i], t->dec.cbind[i], name, sizeof(name));
        n += (size_t)snprintf(times + n, sizeof(times) - n, "%s%s:%.2f", n ? "," : "", name,
                              t->dec.us[i]);
    }
    /* the run-off's newcomers with the longer warm-up */
    char warm[128] = "";
    for (int i = 0, w = 0; i < t->nnew && w < (int)sizeof(warm); i++) {
        nh_tune_cand_name(t->cand[t->newidx[i]], t->bind[t->newidx[i]], name, sizeof(name));
        w += i ? snprintf(warm + w, sizeof(warm) - (size_t)w, ",%s", name)
               : snprintf(warm, sizeof(warm), "; %d for %s", NH_TUNE_UNTIMED_ONEMSG, name);
    }
    /* the schedules not tried, each as the one it is alike (candidates.c) */
    char alike[128] = "";
    for (int a = NH_ALGO_DIRECT, w = 0; a < NH_ALGO_COUNT && w < (int)sizeof(alike); a++)
        if (t->alike[a] != NH_ALGO_AUTO)
            w += snprintf(alike + w, sizeof(alike) - (size_t)w, "%s%s:%s", w ? "," : " alike=",
                          nh_algos[a].name, nh_algos[t->alike[a]].name);
    nh_tune_cand_name(t->dec.algo, t->dec.bind, name, sizeof(name));
    nh_log_line("nhood: autotune comm=%d op=%s%s bytes=%zu algorithm=%s times_us=%s (slowest "
                "rank's median of %d calls, each after %d untimed%s)%s cost_us=%.1f rechecks=%d\n",
                p->id, t->form == NH_FORM_BLOCKING ? "" : "i", nh_coll_name(t->coll), t->m, name,
                times, t->ran_off ? NH_LEARN_RUNOFF_TRIALS : NH_TUNE_TRIALS, untimed(t), warm,
                alike, t->cost_us, t->rechecks);
}

/* After the first round: a run-off between the fastest (by the medians:
 * best, its median med) and the (up to NH_LEARN_RUNOFF - 1) candidates
 * whose fastest call came within NH_LEARN_CLOSE of med, with NH_LEARN_RUNOFF_TRIALS fresh
 * trials each taken in turns (three calls each in a block cannot tell
 * apart choices a few percent apart on a noisy machine; the run-off's
 * times decide), and the later bindings of nhood's fastest schedule (by
 * the fastest calls) where its fastest call took at most
 * NH_LEARN_BIND_CLOSE (the struct datatype) or NH_LEARN_WHOLE_CLOSE (one
 * message per peer and round: onemsg) times that median.  A candidate's
 * fastest call is never above its median, so a disturbance that fell on
 * most of its calls keeps it out no more than a steady slower time would
 * (nh_learn_stats).  1 if one starts. */
static int start_runoff(struct nh_learn *t, int best, double med)
{
    int b = t->tryidx[best], n = 1, pick[NH_TUNE_MAXCAND], own = -1;
    pick[0] = b;
    while (n < NH_LEARN_RUNOFF) {
        int c = -1;
        for (int i = 0; i < t->ncand; i++) {
            int taken = 0;
            for (int j = 0; j < n; j++)
                taken |= pick[j] == i;
            if (!taken && t->fast[i] >= 0 && t->fast[i] <= NH_LEARN_CLOSE * med &&
                (c < 0 || t->fast[i] < t->fast[c]))
                c = i;
        }
        if (c < 0)
            break;
        pick[n++] = c;
    }
    for (int i = 0; i < t->ncand; i++)
        if (t->cand[i] != NH_ALGO_PMPI && t->fast[i] >= 0 &&
            (own < 0 || t->fast[i] < t->fast[own]))
            own = i;
    for (int i = 0; own >= 0 && i < t->ncand; i++)
        if (t->later[i] && t->cand[i] == t->cand[own] &&
            t->fast[own] <=
                (t->onemsg[i] ? NH_LEARN_WHOLE_CLOSE : NH_LEARN_BIND_CLOSE) * med)
            pick[n++] = i;
    if (n < 2)
        return 0;
    for (int i = 1; i < n; i++) /* candidate order: ties go to the earlier, MPI's own first */
        for (int j = i; j > 0 && pick[j - 1] > pick[j]; j--) {
            int x = pick[j];
            pick[j] = pick[j - 1];
            pick[j - 1] = x;
        }
    t->runoff = 1;
    t->ntry = n;
    for (int i = 0; i < n; i++)
        t->tryidx[i] = pick[i];
    start_trials(t);
    for (int i = 0; i < n; i++)
        if (t->later[pick[i]] && t->onemsg[pick[i]] && t->m >= NH_TUNE_WARM_LONG &&
            t->m <= NH_TUNE_WARM_MAX)
            t->newidx[t->nnew++] = pick[i];
    t->extra = t->nnew * (NH_TUNE_UNTIMED_ONEMSG - untimed(t));
    return 1;
}

/* The choice's calls chose before it (select.c remembers them): they
 * choose again.  Every rank of p gets here on the same call. */
static void forget_choices(nh_plan *p, const struct nh_learn *t)
{
    nh_sel_state *st = nh_sel_state_of(p);
    for (int f = NH_FORM_BLOCKING; st && f < NH_FORM_COUNT; f++)
        if (t->vec || st->last[t->coll][f].m == t->m)
            st->last[t->coll][f].valid = 0;
}

void nh_learn_decide(nh_plan *p, struct nh_learn *t, int unstable, const double *mine,
                     const double *all)
{
    /* a nonblocking trial's untimed calls are not counted in spent */
    int calls = t->ntry * (nh_learn_timed(t) + (t->form == NH_FORM_BLOCKING ? untimed(t) : 0)) +
                (t->form == NH_FORM_BLOCKING ? t->extra : 0);
    int best = 0, recheck = t->rechecking;
    if (unstable) { /* the sizes changed on some rank: nothing learned */
        t->done = t->nolearn = 1;
        forget_choices(p, t);
        nh_exec_forget_idle(p);
        say(p, t);
        return;
    }
    /* a run-off's candidates by its times alone: seven calls each in
     * turns tell them apart better than the first round's three in a
     * block, which a passing disturbance may fall on */
    const double *at = all;
    for (int i = 1; i < t->ntry; i++)
        if (at[i] < at[best])
            best = i;
    int cur = recheck && t->cand[t->tryidx[1]] == t->dec.algo && t->bind[t->tryidx[1]] == t->dec.bind;
    if (recheck && at[best] > NH_LEARN_SWITCH * at[cur])
        best = cur; /* the choice stays unless the other is clearly faster: no flip-flop on noise */
    /* what the trials cost this rank over running the choice throughout */
    double over = (t->spent - calls * mine[best]) * 1e6;
    t->cost_us += over > 0 ? over : 0;
    /* a re-check that would switch runs once more, and switches where
     * both say so: a passing disturbance may fall on one candidate's few
     * calls (MPICH 4.0.2 at 2 ranks, 3-D Moore alltoall of 4 KiB: the
     * choice, torus/pack, timed 23.5 us in a re-check against 14.0
     * decided, and MPI's v call at 16.5 took over) */
    if (recheck && best != cur && !t->confirming) {
        t->confirming = 1;
        start_trials(t);
        forget_choices(p, t);
        return;
    }
    t->confirming = 0;
    for (int i = 0; i < t->ntry; i++)
        t->dec.us[t->tryidx[i]] = at[i] * 1e6;
    t->dec.algo = t->cand[t->tryidx[best]];
    t->dec.bind = t->bind[t->tryidx[best]];
    if (!recheck && !t->runoff) { /* the first round: every candidate's time */
        t->dec.ncand = t->ncand;
        for (int i = 0; i < t->ncand; i++) {
            t->dec.cand[i] = t->cand[i];
            t->dec.cbind[i] = t->bind[i];
        }
        for (int i = 0; i < t->ntry; i++)
            t->fast[t->tryidx[i]] = all[t->ntry + i];
        if (start_runoff(t, best, all[best])) {
            /* a nonblocking size's calls remembered the choice they took
             * while it waited: the run-off's calls choose anew */
            forget_choices(p, t);
            return;
        }
    }
    t->ran_off = t->runoff;
    t->runoff = 0;
    if (!recheck) { /* decided: the re-checks put it (or nhood's fastest) against MPI's own */
        /* the choice itself where it is nhood's: the fastest by the agreed
         * times could be one the run-off left out (a first round's median
         * of three below the run-off's of seven), which a re-check would
         * then take over the choice without a run-off */
        t->own = -1;
        for (int i = 0; i < t->ncand; i++)
            if (t->cand[i] != NH_ALGO_PMPI && t->dec.us[i] >= 0 &&
                (t->own < 0 || t->dec.us[i] < t->dec.us[t->own]))
                t->own = i;
        if (t->cand[t->tryidx[best]] != NH_ALGO_PMPI)
            t->own = t->tryidx[best];
        t->gap = nh_cfg.learn_recheck;
    } else { /* confirmed: the next re-check comes later */
        int same =
            t->cand[t->tryidx[best]] == t->dec.algo && t->bind[t->tryidx[best]] == t->dec.bind;
        t->gap = same && t->gap < NH_LEARN_MAXGAP * nh_cfg.learn_recheck ? 2 * t->gap
                 : same                                                  ? t->gap
                                                                         : nh_cfg.learn_recheck;
        t->rechecks++;
    }
    /* the first re-check comes early: the library's first calls on a
     * communicator can cost many times its later ones (MPICH 5.0.2's
     * first neighborhood all-to-alls: 204 us against 30), and MPI's own
     * exchange is tried first */
    t->left = !recheck && t->rechecks == 0 && t->gap > NH_LEARN_EARLY ? NH_LEARN_EARLY : t->gap;
    t->rechecking = 0;
    t->done = 1;
    /* the other forms of this size chose before the decision, and this
     * one before a re-check: they choose again, from it; nonblocking
     * trials of the size stop (the blocking form's decision serves them) */
    forget_choices(p, t);
    int nsizes;
    struct nh_learn *nb =
        t->form == NH_FORM_BLOCKING && !t->vec
            ? find(nh_sel_state_of(p), t->coll, NH_FORM_NONBLOCKING, t->key, &nsizes)
            : NULL;
    if (nb && !nb->done) { /* its outstanding trials' slots stay valid */
        if (nb->awaiting)
            __atomic_sub_fetch(&nh_learn_nawait, 1, __ATOMIC_RELAXED);
        nb->awaiting = 0;
        nb->done = nb->nolearn = 1;
    }
    nh_tune_key k;
    nh_tune_dec d;
    key_of(p, t->op, t->form, t->m, &k);
    timed_only(&t->dec, &d);
    if (!t->vec) /* the file keys regular calls' block sizes */
        nh_tune_file_put(&k, &d);
    /* the losers' bindings (their temporary buffers: 26 MiB each for a 3-D
     * Moore call of 1 MiB blocks) are not kept */
    nh_exec_forget_idle(p);
    say(p, t);
}

/* After a blocking call's last trial: agree on the fastest candidate. */
static int agree(nh_plan *p, struct nh_learn *t)
{
    /* whether the sizes changed, then the candidates' times (nh_learn_stats) */
    double mine[NH_LEARN_NSTAT + 1], all[NH_LEARN_NSTAT + 1];
    mine[0] = t->unstable;
    nh_learn_stats(t, mine + 1);
    /* progressing nhood's outstanding operations while it waits: another
     * rank may need this one's forwarding before it joins */
    int rc = nh_req_allreduce(mine, all, 2 * t->ntry + 1, MPI_DOUBLE, MPI_MAX, p->pcomm);
    if (!rc)
        nh_learn_decide(p, t, all[0] > 0, mine + 1, all + 1);
    return rc;
}

int nh_autotune_record(nh_plan *p, const nh_learn_key *k, double seconds)
{
    struct nh_learn *t = on_trial(p, k);
    if (!t)
        return MPI_SUCCESS;
    int smp, i = trial_at(t, &smp);
    t->spent += seconds;
    if (smp >= 0) /* the first calls build and warm up, untimed */
        t->tm[i][smp] = seconds;
    return trial_done(t) ? agree(p, t) : MPI_SUCCESS;
}
