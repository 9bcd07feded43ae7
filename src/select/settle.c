/* The agreement of nonblocking trials (autotune.c): a nonblocking start
 * is local, so once every trial of a size has started the size waits
 * (awaiting) for an agreement point, a call where every rank of the plan
 * is sure to take part and blocking is allowed (api/points.c: p's
 * blocking collectives).  Every rank reaches a given point with the same
 * calls made, so with the same sizes waiting, in the same order; one
 * reduction settles all of them whose trials have completed on every
 * rank.
 *
 * A blocking collective on the graph's parent is such a point too
 * (api/parents.c), but the ranks' calls on the graph may differ there: a
 * rank ahead may have sizes waiting that another has not yet.  There the
 * reduction covers the sizes every rank has made (the oldest, in call
 * order), settles those waiting with their trials complete everywhere,
 * and defers the decisions to one call, the one after the most calls any
 * rank had made, until which every rank's calls take what the rank ahead
 * took before the point. */
#include <stdlib.h>

#include "exec/request.h"
#include "select/learn.h"

NH_HOT int nh_autotune_pending(nh_plan *p)
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
        for (int k = 0; k < nh_learn_timed(t); k++) {
            if (t->tm[t->tryidx[i]][k] < 0)
                return 0;
            t->spent += t->tm[t->tryidx[i]][k];
        }
    return 1;
}

/* Decides t from the agreement: every rank at the same call. */
static void decide(nh_plan *p, struct nh_learn *t, int unstable, const double *mine,
                   const double *all)
{
    t->awaiting = 0;
    __atomic_sub_fetch(&nh_learn_nawait, 1, __ATOMIC_RELAXED);
    nh_learn_decide(p, t, unstable, mine, all);
}

void nh_autotune_apply(nh_plan *p, int all)
{
    nh_sel_state *st = nh_sel_state_of(p);
    long next = 0;
    for (struct nh_learn *t = st ? st->learn : NULL; t; t = t->next) {
        if (!t->deferred)
            continue;
        if (all || st->calls >= t->defer_at) {
            t->deferred = 0;
            decide(p, t, t->dunstable, t->dmine, t->dall);
        } else if (!next || t->defer_at < next) {
            next = t->defer_at;
        }
    }
    if (st)
        st->defer_min = next;
}

int nh_autotune_point_state(nh_plan *p, int *n, long *calls)
{
    nh_sel_state *st = nh_sel_state_of(p);
    int waits = 0;
    *n = 0;
    *calls = st ? st->calls : 0;
    /* (a blocking size's trials agree in its own calls: no point needed) */
    for (struct nh_learn *t = st ? st->learn : NULL; t; t = t->next, ++*n)
        waits |= t->form == NH_FORM_BLOCKING               ? 0
                 : t->awaiting && !t->deferred ? NH_POINT_WAITS
                 : !t->done                    ? NH_POINT_TRIALS
                                               : 0;
    return waits;
}

/* Per size at a parent's point: whether it cannot settle here, whether
 * its sizes changed, its candidates' times (nh_learn_stats). */
#define AT_WIDTH (2 + NH_LEARN_NSTAT)

int nh_autotune_settle_at(nh_plan *p, int n, long switch_at, int *decided)
{
    nh_sel_state *st = nh_sel_state_of(p);
    int m = 0, rc;
    *decided = 0;
    if (n <= 0 || !st)
        return MPI_SUCCESS;
    for (struct nh_learn *t = st->learn; t; t = t->next)
        m++;
    /* the first n sizes made, oldest first (the list is newest first) */
    struct nh_learn **e = malloc((size_t)n * sizeof(*e));
    double *mine = calloc(2 * (size_t)n * AT_WIDTH, sizeof(double)), *all = mine + n * AT_WIDTH;
    if (!e || !mine) {
        free(e);
        free(mine);
        return MPI_ERR_NO_MEM;
    }
    int i = m;
    for (struct nh_learn *t = st->learn; t; t = t->next)
        if (--i < n)
            e[i] = t;
    for (i = 0; i < n; i++) {
        struct nh_learn *t = e[i];
        double *v = mine + i * AT_WIDTH;
        int ok = t->awaiting && !t->deferred && measured(t);
        v[0] = !ok;
        v[1] = t->unstable;
        if (ok)
            nh_learn_stats(t, v + 2);
    }
    rc = nh_req_allreduce(mine, all, n * AT_WIDTH, MPI_DOUBLE, MPI_MAX, p->pcomm);
    for (i = 0; i < n && !rc; i++) {
        struct nh_learn *t = e[i];
        const double *a = all + i * AT_WIDTH;
        if (a[0] != 0) /* not measured and waiting everywhere: a later point */
            continue;
        t->deferred = 1;
        ++*decided;
        t->dunstable = a[1] > 0;
        t->defer_at = switch_at;
        for (int c = 0; c < 2 * t->ntry; c++) {
            t->dmine[c] = mine[i * AT_WIDTH + 2 + c];
            t->dall[c] = a[2 + c];
        }
        if (!st->defer_min || switch_at < st->defer_min)
            st->defer_min = switch_at;
    }
    free(e);
    free(mine);
    return rc;
}

int nh_autotune_settle(nh_plan *p)
{
    nh_sel_state *st = nh_sel_state_of(p);
    int n = 0, k = 0, rc;
    /* decisions deferred from a parent's point: every rank has made the
     * calls before their switch here (p's own point: the same calls) */
    if (st && st->defer_min)
        nh_autotune_apply(p, 1);
    for (struct nh_learn *t = st ? st->learn : NULL; t; t = t->next)
        n += t->awaiting ? 2 + 2 * t->ntry : 0;
    if (!n)
        return MPI_SUCCESS;
    /* per entry awaiting (the same entries in the same order on every
     * rank: the same calls made them): whether a trial is still running
     * somewhere, whether the sizes changed, then the candidates' times
     * (nh_learn_stats; zeros where a trial is still running) */
    double *mine = malloc(2 * (size_t)n * sizeof(double)), *all = mine + n;
    if (!mine)
        return MPI_ERR_NO_MEM;
    for (struct nh_learn *t = st->learn; t; t = t->next) {
        if (!t->awaiting)
            continue;
        int ok = measured(t);
        mine[k++] = !ok;
        mine[k++] = t->unstable;
        for (int i = 0; i < 2 * t->ntry; i++)
            mine[k + i] = 0;
        if (ok)
            nh_learn_stats(t, mine + k);
        k += 2 * t->ntry;
    }
    rc = nh_req_allreduce(mine, all, n, MPI_DOUBLE, MPI_MAX, p->pcomm);
    k = 0;
    for (struct nh_learn *t = st->learn; t && !rc; t = t->next) {
        if (!t->awaiting)
            continue;
        if (all[k] == 0) /* measured everywhere */
            decide(p, t, all[k + 1] > 0, mine + k + 2, all + k + 2);
        k += 2 + 2 * t->ntry;
    }
    free(mine);
    return rc;
}
