/* The MPI tests' ground truth for neighborhood collectives, computed
 * with PMPI point-to-point calls (never intercepted). */
#ifndef NH_TEST_REFERENCE_H
#define NH_TEST_REFERENCE_H

#include <mpi.h>

#include "util/init_forms.h"
/* after mpi-ext.h (init_forms.h): it maps the names mpi-ext.h declares */
#include "libmpi.h"
#include <stdlib.h>

/* The MPI standard's equivalent code: receives posted in source-list
 * order and sends in destination-list order, one tag, so the k-th edge to a
 * process matches the k-th edge from it.  MPICH 4.0.2's neighborhood
 * collectives reverse the receive order (fixed upstream later), which
 * differs exactly when a rank lists the same source twice; there this
 * reference is the ground truth and PMPI is compared only elsewhere.
 * Tag 0 on g itself: the tests send nothing else on their graphs, and
 * collectives (PMPI's and nhood's) never match point-to-point traffic. */
static inline void reference(int alltoall, MPI_Comm g, const void *sbuf, int scount,
                             MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
    int indeg, outdeg, w;
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    int *src = malloc(sizeof(int) * (indeg + 1)), *dst = malloc(sizeof(int) * (outdeg + 1));
    int *sw = malloc(sizeof(int) * (indeg + 1)), *dw = malloc(sizeof(int) * (outdeg + 1));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (indeg + outdeg + 1));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (indeg + outdeg + 1));
    MPI_Dist_graph_neighbors(g, indeg, src, sw, outdeg, dst, dw);
    for (int k = 0; k < indeg; k++)
        PMPI_Irecv((char *)rbuf + k * rcount * rext, rcount, rtype, src[k], 0, g, &req[k]);
    for (int k = 0; k < outdeg; k++)
        PMPI_Isend((const char *)sbuf + (alltoall ? k * scount * sext : 0), scount, stype, dst[k],
                   0, g, &req[indeg + k]);
    PMPI_Waitall(indeg + outdeg, req, st);
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(req);
    free(st);
}

static inline int duplicate_sources(MPI_Comm g)
{
    int indeg, outdeg, w, dup = 0;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    int *src = malloc(sizeof(int) * (indeg + 1)), *dst = malloc(sizeof(int) * (outdeg + 1));
    int *sw = malloc(sizeof(int) * (indeg + 1)), *dw = malloc(sizeof(int) * (outdeg + 1));
    MPI_Dist_graph_neighbors(g, indeg, src, sw, outdeg, dst, dw);
    for (int i = 0; i < indeg; i++)
        for (int k = 0; k < i; k++)
            dup |= src[i] == src[k];
    free(src);
    free(dst);
    free(sw);
    free(dw);
    return dup;
}

#endif
