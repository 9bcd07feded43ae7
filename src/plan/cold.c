/* A graph's lists for MPI's exchange in the grouped form: the cold
 * tier's calls on the MPI libraries that order a repeated peer's
 * all-to-all blocks wrongly, and the learning's stand-in for MPI's own
 * exchange there (plan.h, nh_cold_lists; api/cold.c runs the calls).
 * Local: the lists come from MPI_Dist_graph_neighbors at the first call
 * that asks. */
#include <stdlib.h>

#include "core/places.h"
#include "plan/detect_int.h"

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
    int me, null = MPI_PROC_NULL;
    if (nh_mpi_Comm_rank(comm, &me) ||
        nh_mpi_Dist_graph_neighbors(comm, in, srcs, MPI_UNWEIGHTED, out, dsts, MPI_UNWEIGHTED) ||
        (rs = nh_places(srcs, in, me, null, l->sfirst, l->snext, &l->sself, &l->snull)) < 0 ||
        (rd = nh_places(dsts, out, me, null, l->dfirst, l->dnext, &l->dself, &l->dnull)) < 0) {
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
