/* NHOOD_AUTOTUNE=1: choose by measurement instead of by the cost model.
 *
 * For each (communicator, operation, block size) on a communicator whose
 * block sizes are coupled (so every rank sees the same size and hence the
 * same sequence of calls), the first calls try the applicable algorithms in
 * turn: one untimed call each (it builds the schedule and the binding),
 * then NH_TUNE_TRIALS timed calls; the binding is the cost model's.  After
 * the last trial, one MPI_Allreduce (MAX) over the plan's private
 * communicator gives every candidate's time as the slowest rank's fastest
 * call; every rank takes the same minimum (ties to the earlier candidate)
 * and keeps it.  Rank 0 of the communicator reports the choice and the
 * times on stderr.
 *
 * Every rank makes the same calls in the same order (MPI's collective
 * rule), so all ranks run the same candidate on the same call and reach the
 * reduction together.  State lives in a list freed from an MPI_COMM_SELF
 * attribute, whose delete callback MPI_Finalize runs first.
 *
 * With NHOOD_TUNE_FILE (tunefile.c) a size whose key the file holds takes
 * the file's algorithm without trials where it applies to the plan; every
 * agreement is handed to the file for saving.  Nonblocking and persistent
 * calls are not timed (start to completion includes the program's
 * compute): they start from the blocking form's decision
 * (nh_autotune_decided, priced in select.c). */
#include <stdio.h>
#include <stdlib.h>

#include "select/select.h"
#include "select/tunefile.h"
#include "util/sync.h"

#define NH_TUNE_TRIALS 3
#define NH_TUNE_SIZES 16 /* block sizes tuned per communicator and operation */

typedef struct tune {
    struct tune *next;
    int plan_id;
    nh_op op;
    size_t m;
    int ncand;
    nh_algo cand[NH_ALGO_COUNT];
    double best[NH_ALGO_COUNT]; /* fastest timed call per candidate, seconds */
    int cur, call;              /* candidate on trial, calls made with it */
    int done;
    int from_file;   /* decided by the tuning file, no trials */
    nh_tune_dec dec; /* once done: the choice, with the agreed times */
} tune;

static tune *tunes;
static int self_keyval = MPI_KEYVAL_INVALID;

static int free_tunes(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)attr;
    (void)extra;
    (void)keyval;
    while (tunes) {
        tune *n = tunes->next;
        free(tunes);
        tunes = n;
    }
    return MPI_SUCCESS;
}

static int tune_get(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning, nh_tuned *tuned);

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

/* Can p run algorithm a for op?  (MPI's exchange where no rank lists a
 * source twice.) */
static int applicable(nh_plan *p, nh_op op, nh_algo a)
{
    return a == NH_ALGO_PMPI ? p->native_ok : nh_plan_sched(p, op, a) != NULL;
}

static tune *find(const nh_plan *p, nh_op op, size_t m, int *nsizes)
{
    *nsizes = 0;
    for (tune *t = tunes; t; t = t->next)
        if (t->plan_id == p->id && t->op == op) {
            if (t->m == m)
                return t;
            ++*nsizes;
        }
    return NULL;
}

int nh_autotune_applies(nh_plan *p)
{
    return nh_cfg.autotune && p->isomorphic && nh_plan_coupled(p);
}

int nh_autotune_algo(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning, nh_tuned *tuned)
{
    if (!nh_autotune_applies(p))
        return -1;
    nh_lock(NH_LOCK_MISC); /* one list for all communicators */
    int rc = tune_get(p, op, m, algo, tuning, tuned);
    nh_unlock(NH_LOCK_MISC);
    return rc;
}

/* The file's decision for t where it applies to p: t is done, no trials. */
static void take_file_decision(nh_plan *p, tune *t)
{
    nh_tune_key k;
    key_of(p, t->op, NH_FORM_BLOCKING, t->m, &k);
    if (nh_tune_file_lookup(&k, &t->dec) == 0 && applicable(p, t->op, t->dec.algo))
        t->done = t->from_file = 1;
}

static int tune_get(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning, nh_tuned *tuned)
{
    int nsizes;
    tune *t = find(p, op, m, &nsizes);
    if (!t) {
        if (nsizes >= NH_TUNE_SIZES)
            return -1; /* the cost model decides for further sizes */
        if (self_keyval == MPI_KEYVAL_INVALID &&
            (nh_mpi_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_tunes, &self_keyval, NULL) ||
             nh_mpi_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL)))
            return -1;
        if (!(t = calloc(1, sizeof(*t))))
            return -1;
        t->plan_id = p->id;
        t->op = op;
        t->m = m;
        if (p->native_ok)
            t->cand[t->ncand++] = NH_ALGO_PMPI; /* first: it wins ties */
        int own = 0;                            /* nhood's candidates */
        for (int a = NH_ALGO_DIRECT; a < NH_ALGO_COUNT; a++)
            if (nh_plan_sched(p, op, (nh_algo)a)) {
                t->cand[t->ncand++] = (nh_algo)a;
                own++;
            }
        if (own == 0) {
            free(t);
            return -1;
        }
        for (int i = 0; i < t->ncand; i++)
            t->best[i] = -1;
        take_file_decision(p, t);
        t->next = tunes;
        tunes = t;
    }
    *tuning = !t->done;
    *algo = t->done ? t->dec.algo : t->cand[t->cur];
    *tuned = t->from_file ? NH_TUNED_FILE : NH_TUNED_MEASURED;
    return 0;
}

int nh_autotune_decided(nh_plan *p, nh_op op, nh_form form, size_t m, nh_tune_dec *d,
                        nh_tuned *tuned)
{
    nh_tune_key k;
    int nsizes, rc = -1;
    if (!nh_autotune_applies(p))
        return -1;
    key_of(p, op, form, m, &k);
    *tuned = NH_TUNED_FILE;
    if (nh_tune_file_lookup(&k, d) == 0) /* the file's for this very form */
        return 0;
    nh_lock(NH_LOCK_MISC);
    tune *t = find(p, op, m, &nsizes);
    if (t && t->done) { /* this communicator's blocking calls decided */
        *d = t->dec;
        *tuned = t->from_file ? NH_TUNED_FILE : NH_TUNED_MEASURED;
        rc = 0;
    }
    nh_unlock(NH_LOCK_MISC);
    /* the file's blocking decision, before the first blocking call */
    k.form = NH_FORM_BLOCKING;
    if (rc && !t && nh_tune_file_lookup(&k, d) == 0)
        rc = 0;
    return rc;
}

/* After the last trial: agree on the fastest candidate. */
static int agree(nh_plan *p, tune *t)
{
    double all[NH_ALGO_COUNT];
    int rank, rc = nh_mpi_Allreduce(t->best, all, t->ncand, MPI_DOUBLE, MPI_MAX, p->pcomm);
    if (rc)
        return rc;
    int best = 0;
    for (int i = 1; i < t->ncand; i++)
        if (all[i] < all[best])
            best = i;
    t->dec.algo = t->cand[best];
    t->dec.ncand = t->ncand;
    for (int i = 0; i < t->ncand; i++) {
        t->dec.cand[i] = t->cand[i];
        t->dec.us[i] = all[i] * 1e6;
    }
    t->done = 1;
    /* Nonblocking and persistent calls of this size chose before the
     * decision (select.c remembers their choice): they choose again, from
     * it.  Every rank of p gets here on the same call. */
    nh_coll coll = t->op == NH_OP_ALLTOALL ? NH_COLL_ALLTOALL : NH_COLL_ALLGATHER;
    nh_sel_state *st = nh_sel_state_of(p);
    for (int f = NH_FORM_NONBLOCKING; st && f < NH_FORM_COUNT; f++)
        if (st->last[coll][f].m == t->m)
            st->last[coll][f].valid = 0;
    nh_tune_key k;
    key_of(p, t->op, NH_FORM_BLOCKING, t->m, &k);
    nh_tune_file_put(&k, &t->dec);
    if (nh_mpi_Comm_rank(p->pcomm, &rank) == MPI_SUCCESS && rank == 0) {
        char times[256];
        size_t n = 0;
        for (int i = 0; i < t->ncand && n < sizeof(times); i++)
            n += (size_t)snprintf(times + n, sizeof(times) - n, "%s%s:%.2f", i ? "," : "",
                                  nh_algos[t->cand[i]].name, all[i] * 1e6);
        fprintf(stderr,
                "nhood: autotune comm=%d op=%s bytes=%zu algorithm=%s times_us=%s (slowest "
                "rank's fastest of %d calls)\n",
                p->id, nh_op_name(t->op), t->m, nh_algos[t->dec.algo].name, times, NH_TUNE_TRIALS);
    }
    return MPI_SUCCESS;
}

int nh_autotune_record(nh_plan *p, nh_op op, size_t m, double seconds)
{
    int nsizes, last = 0;
    nh_lock(NH_LOCK_MISC);
    tune *t = find(p, op, m, &nsizes);
    if (t && !t->done) {
        if (t->call > 0 && (t->best[t->cur] < 0 || seconds < t->best[t->cur]))
            t->best[t->cur] = seconds; /* the first call of a candidate builds, untimed */
        if (++t->call > NH_TUNE_TRIALS) {
            t->call = 0;
            last = ++t->cur == t->ncand;
        }
    }
    nh_unlock(NH_LOCK_MISC);
    /* t is this communicator's, used by one thread at a time; the
     * reduction runs unlocked. */
    return last ? agree(p, t) : MPI_SUCCESS;
}
