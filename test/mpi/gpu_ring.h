/* The GPU tests' graph (test_gpu.c, test_gpu_real.c): a ring on
 * MPI_COMM_WORLD with destinations rank+1 .. rank+deg and sources rank-1
 * .. rank-deg, created with isomorphic=true and, where promise is set,
 * nhood_host_buffers=true. */
#ifndef NH_TEST_GPU_RING_H
#define NH_TEST_GPU_RING_H

#include <mpi.h>

#include "../ompi_weights.h"

enum { GPU_RING_MAXDEG = 8 };

static inline MPI_Comm gpu_ring(int deg, int promise)
{
    int rank, p, dst[GPU_RING_MAXDEG], src[GPU_RING_MAXDEG];
    MPI_Comm g;
    MPI_Info info;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int k = 0; k < deg; k++) {
        dst[k] = (rank + k + 1) % p;
        src[k] = ((rank - k - 1) % p + p) % p;
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, "isomorphic", "true");
    if (promise)
        MPI_Info_set(info, "nhood_host_buffers", "true");
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, src, MPI_UNWEIGHTED, deg, dst,
                                   MPI_UNWEIGHTED, info, 0, &g);
    MPI_Info_free(&info);
    return g;
}

#endif
