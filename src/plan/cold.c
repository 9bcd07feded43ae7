/* A graph's lists for MPI's exchange in the grouped form: the cold
 * tier's calls on the MPI libraries that order a repeated peer's
 * all-to-all blocks wrongly, and the learning's stand-in for MPI's own
 * exchange there (plan.h, nh_cold_lists; api/cold.c runs the calls).
 * Local: the lists come from MPI_Dist_graph_neighbors at the first call
 * that asks. */
#include <stdint.h>
#include <stdlib.h>

#include "plan/detect_int.h"

static int by_key(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* first[k]: the first place of list[k]'s peer (-1 for MPI_PROC_NULL);
 * next[k]: its next place (-1 after the last); *self: the first place of
 * rank me (-1: none); *nulls: MPI_PROC_NULL's places.  Lists of ranks
 * below 64 (the small graphs') in one pass, remembering each rank's last
 * place; others sorted by (peer, place), which groups each peer's places
 * in list order.  Returns whether some peer other than MPI_PROC_NULL has
 * two places, or -1 without memory. */
static int places(const int *restrict list, int n, int me, int *restrict first, int *restrict next,
                  int *self, int *nulls)
{
    int last[64], rep = 0, i = 0, nul = 0; /* last[r]: valid where r is in seen */
    uint64_t seen = 0;
    for (; i < n; i++) {
        int r = list[i];
        next[i] = -1;
        if ((unsigned)r >= 64u) {
            if (r != MPI_PROC_NULL)
                break;
            first[i] = -1;
            nul++;
        } else if (seen >> r & 1) {
            first[i] = first[last[r]];
            next[last[r]] = i;
            last[r] = i;
            rep = 1;
        } else {
            first[i] = last[r] = i;
            seen |= 1ull << r;
        }
    }
    *nulls = nul;
    if (i == n) {
        *self = me >= 0 && me < 64 && (seen >> me & 1) ? first[last[me]] : -1;
        return rep;
    }
    long *key = malloc(((size_t)n + 1) * sizeof(long));
    rep = nul = 0;
    if (!key)
        return -1;
    for (int k = 0; k < n; k++) /* MPI_PROC_NULL is negative: shifted to sort as a peer */
        key[k] = (long)((unsigned long)(list[k] - MPI_PROC_NULL) << 32 | (unsigned)k);
    qsort(key, (size_t)n, sizeof(long), by_key);
    *self = -1;
    for (int i = 0; i < n; i++) {
        int k = (int)(key[i] & 0xffffffff), prev = i > 0 ? (int)(key[i - 1] & 0xffffffff) : -1;
        int same = prev >= 0 && list[prev] == list[k] && list[k] != MPI_PROC_NULL;
        first[k] = list[k] == MPI_PROC_NULL ? -1 : same ? first[prev] : k;
        next[k] = -1;
        nul += list[k] == MPI_PROC_NULL;
        if (same) {
            next[prev] = k;
            rep = 1;
        } else if (list[k] == me) {
            *self = k;
        }
    }
    *nulls = nul;
    free(key);
    return rep;
}

/* The places of a group (next: from place k on). */
static int group_size(const int *next, int k)
{
    int n = 0;
    for (; k >= 0; k = next[k])
        n++;
    return n;
}

const nh_cold_lists *nh_plan_cold_lists(nh_plan *p, MPI_Comm comm)
{
    if (p->lists)
        return p->lists;
    int in = p->indeg, out = p->outdeg, rs, rd;
    /* one block: the struct, the lists, sfirst, snext, dfirst, dnext */
    nh_cold_lists *l = malloc(sizeof(*l) + ((size_t)(in + out) * 3 + 2) * sizeof(int));
    if (!l)
        return NULL;
    int *srcs = (int *)(l + 1), *dsts = srcs + in + 1;
    l->indeg = in;
    l->outdeg = out;
    l->sfirst = dsts + out + 1;
    l->snext = l->sfirst + in;
    l->dfirst = l->snext + in;
    l->dnext = l->dfirst + out;
    int me;
    if (nh_mpi_Comm_rank(comm, &me) ||
        nh_mpi_Dist_graph_neighbors(comm, in, srcs, MPI_UNWEIGHTED, out, dsts, MPI_UNWEIGHTED) ||
        (rs = places(srcs, in, me, l->sfirst, l->snext, &l->sself, &l->snull)) < 0 ||
        (rd = places(dsts, out, me, l->dfirst, l->dnext, &l->dself, &l->dnull)) < 0) {
        free(l);
        return NULL;
    }
    l->repeats = rs || rd;
    if (p->cold)
        p->cold->repeats = l->repeats;
    /* the rank itself in both lists as often, else in neither (an
     * erroneous graph: MPI's) */
    if (l->sself < 0 || l->dself < 0 ||
        group_size(l->snext, l->sself) != group_size(l->dnext, l->dself))
        l->sself = l->dself = -1;
    return p->lists = l;
}

int nh_plan_cold_repeats(nh_plan *p, MPI_Comm comm)
{
    if (p->cold && p->cold->repeats >= 0)
        return p->cold->repeats;
    const nh_cold_lists *l = nh_plan_cold_lists(p, comm);
    return l ? l->repeats : -1;
}
