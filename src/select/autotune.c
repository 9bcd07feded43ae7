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
 * attribute, whose delete callback MPI_Finalize runs first. */
#include <stdio.h>
#include <stdlib.h>

#include "nh.h"
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
    nh_algo choice;
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

static int tune_get(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning);

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

int nh_autotune_algo(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning)
{
    if (!nh_cfg.autotune || !p->isomorphic || !nh_plan_coupled(p))
        return -1;
    nh_lock(NH_LOCK_MISC); /* one list for all communicators */
    int rc = tune_get(p, op, m, algo, tuning);
    nh_unlock(NH_LOCK_MISC);
    return rc;
}

static int tune_get(nh_plan *p, nh_op op, size_t m, nh_algo *algo, int *tuning)
{
    int nsizes;
    tune *t = find(p, op, m, &nsizes);
    if (!t) {
        if (nsizes >= NH_TUNE_SIZES)
            return -1; /* the cost model decides for further sizes */
        if (self_keyval == MPI_KEYVAL_INVALID &&
            (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_tunes, &self_keyval, NULL) ||
             PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL)))
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
        t->next = tunes;
        tunes = t;
    }
    *tuning = !t->done;
    *algo = t->done ? t->choice : t->cand[t->cur];
    return 0;
}

/* After the last trial: agree on the fastest candidate. */
static int agree(nh_plan *p, tune *t)
{
    double all[NH_ALGO_COUNT];
    int rank, rc = PMPI_Allreduce(t->best, all, t->ncand, MPI_DOUBLE, MPI_MAX, p->pcomm);
    if (rc)
        return rc;
    int best = 0;
    for (int i = 1; i < t->ncand; i++)
        if (all[i] < all[best])
            best = i;
    t->choice = t->cand[best];
    t->done = 1;
    if (PMPI_Comm_rank(p->pcomm, &rank) == MPI_SUCCESS && rank == 0) {
        char times[256];
        size_t n = 0;
        for (int i = 0; i < t->ncand && n < sizeof(times); i++)
            n += (size_t)snprintf(times + n, sizeof(times) - n, "%s%s:%.2f", i ? "," : "",
                                  nh_algos[t->cand[i]].name, all[i] * 1e6);
        fprintf(stderr,
                "nhood: autotune comm=%d op=%s bytes=%zu algorithm=%s times_us=%s (slowest "
                "rank's fastest of %d calls)\n",
                p->id, nh_op_name(t->op), t->m, nh_algos[t->choice].name, times, NH_TUNE_TRIALS);
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
