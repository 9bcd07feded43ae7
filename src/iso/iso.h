/* The isomorphic sparse collectives interface (include/nhood.h,
 * "Isomorphic, sparse collectives"): internal declarations. */
#ifndef NH_ISO_H
#define NH_ISO_H

#include <stdlib.h>

#include "api/api.h"
#include "core/reduce.h"

/* What Iso_neighborhood_create attaches to the communicator it makes. */
typedef struct nh_iso {
    nh_grid g;
    int coords[NH_MAXDIMS];
    int rank;
    int s;
    int *off;               /* s x g.ndims, as the user gave them */
    int *targets, *sources; /* s, MPI_PROC_NULL outside a mesh */
    int outdeg, indeg;
    int *tidx, *sidx; /* offset index of the k-th graph destination / source */
    int nulls;        /* some process has MPI_PROC_NULL neighbors (same on every rank) */
    nh_red_algo red;  /* NHOOD_ISO_REDUCE, agreed at creation; NH_RED_COUNT = auto */
    MPI_Comm pcomm;   /* private duplicate for the reductions, made by the first one */
    nh_rsched *rs[2][NH_RED_COUNT]; /* [scatter][algo], built on first use */
    /* auto: counts of an interior rank (the grid made periodic), the same
     * on every rank; valid once msgs >= 0 */
    struct {
        long msgs, blocks;
        int steps;
    } tmpl[2][NH_RED_COUNT];
} nh_iso;

/* The iso state of a communicator, or NULL (with an error message naming
 * fn) when it was not made by Iso_neighborhood_create. */
nh_iso *nh_iso_get(MPI_Comm comm, const char *fn);

int nh_iso_reduce_run(nh_iso *I, MPI_Comm comm, int scatter, const void *sendbuf,
                      const int *sendcount, const MPI_Aint *senddisp, const MPI_Datatype *sendtype,
                      void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op);

/* Entry points of the interface are exported from the library. */
#define NH_EXPORT __attribute__((visibility("default")))

/* Arrays of n (+1: never a zero-size allocation) elements. */
#define ALLOC(p, n) (((p) = malloc(sizeof(*(p)) * ((size_t)(n) + 1))) != NULL)

static inline int nh_iso_to_mpi(int r)
{
    return r == NH_NONE ? MPI_PROC_NULL : r;
}

/* Calls comm's error handler (unless MPI_COMM_NULL) and returns rc. */
static inline int nh_iso_fail(MPI_Comm comm, int rc)
{
    if (comm != MPI_COMM_NULL)
        nh_mpi_Comm_call_errhandler(comm, rc);
    return rc;
}
/* The grid and this rank's coordinates of a Cartesian communicator; an
 * error naming fn where comm is not one nhood handles (cart.c). */
int nh_iso_cart_info(MPI_Comm comm, const char *fn, nh_grid *g, int *coords);

#endif
