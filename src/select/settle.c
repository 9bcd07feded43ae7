/* The agreement of nonblocking trials (autotune.c): a nonblocking start
 * is local, so once every trial of a size has started the size waits
 * (awaiting) for an agreement point, a call where every rank of the plan
 * is sure to take part and blocking is allowed (api/points.c: p's
 * blocking collectives).  Every rank reaches a given point with the same
 * calls made, so with the same sizes waiting, in the same order; one
 * reduction settles all of them whose trials have completed on every
 * rank. */
#include <stdlib.h>

#include "exec/request.h"
#include "select/learn.h"

int nh_autotune_pending(nh_plan *p)
{
    nh_sel_state *st =
        __atomic_load_n(&nh_learn_nawait, __ATOMIC_RELAXED) ? nh_sel_state_of(p) : NULL;
    for (struct nh_learn *t = st ? st->learn : NULL; t; t = t->next)
        if (t->awaiting)
            return 1;
    return 0;
}

/* Has every timed trial of t completed here?  Sums them into t->spent. */
static int measured(struct nh_learn *t)
{
    t->spent = 0;
    for (int i = 0; i < t->ntry; i++)
        for (int k = 0; k < NH_TUNE_TRIALS; k++) {
            if (t->tm[t->tryidx[i]][k] < 0)
                return 0;
            t->spent += t->tm[t->tryidx[i]][k];
        }
    return 1;
}

int nh_autotune_settle(nh_plan *p)
{
    nh_sel_state *st = nh_sel_state_of(p);
    int n = 0, k = 0, rc;
    for (struct nh_learn *t = st ? st->learn : NULL; t; t = t->next)
        n += t->awaiting ? 2 + t->ntry : 0;
    if (!n)
        return MPI_SUCCESS;
    /* per entry awaiting (the same entries in the same order on every
     * rank: the same calls made them): whether a trial is still running
     * somewhere, whether the sizes changed, then each candidate's median */
    double *mine = malloc(2 * (size_t)n * sizeof(double)), *all = mine + n;
    if (!mine)
        return MPI_ERR_NO_MEM;
    for (struct nh_learn *t = st->learn; t; t = t->next) {
        if (!t->awaiting)
            continue;
        int ok = measured(t);
        mine[k++] = !ok;
        mine[k++] = t->unstable;
        for (int i = 0; i < t->ntry; i++)
            mine[k++] = ok ? nh_learn_median(t, t->tryidx[i]) : 0;
    }
    rc = nh_req_allreduce(mine, all, n, MPI_DOUBLE, MPI_MAX, p->pcomm);
    k = 0;
    for (struct nh_learn *t = st->learn; t && !rc; t = t->next) {
        if (!t->awaiting)
            continue;
        if (all[k] == 0) { /* measured everywhere */
            t->awaiting = 0;
            __atomic_sub_fetch(&nh_learn_nawait, 1, __ATOMIC_RELAXED);
            nh_learn_decide(p, t, all[k + 1] > 0, mine + k + 2, all + k + 2);
        }
        k += 2 + t->ntry;
    }
    free(mine);
    return rc;
}
