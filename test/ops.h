/* One regular neighborhood alltoall or allgather of m-byte blocks on a
 * graph, for the MPI tests that run many of them (test_dup, test_threads):
 * the send data, a poisoned receive buffer and the ground truth. */
#ifndef NH_TEST_OPS_H
#define NH_TEST_OPS_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "reference.h"

typedef int (*tc_algo_for_fn)(MPI_Comm, const char *, int, char *, int);

typedef struct tc_op {
    int alltoall, m;
    char *sbuf, *rbuf, *ref;
    size_t sb, rb;
} tc_op;

/* The truth is the standard's point-to-point equivalent where nhood runs
 * the call or takes it (nhood_takes: it hands a cold graph's all-to-all
 * to MPI in a form MPI gets right, api/cold.c), and MPI's own where MPI's
 * exchange runs as it is (nhood not loaded: algo_for NULL; turned off;
 * NHOOD_ALGO=pmpi); MPICH before 5.0 orders duplicate edges differently,
 * see reference.h. */
static inline void tc_op_init(tc_op *o, int alltoall, MPI_Comm g, int m, int seed,
                              tc_algo_for_fn algo_for)
{
    int rank, indeg, outdeg, w;
    char name[32] = "pmpi";
    MPI_Comm_rank(g, &rank);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    o->alltoall = alltoall;
    o->m = m;
    o->sb = (size_t)m * (alltoall ? outdeg : 1) + 1;
    o->rb = (size_t)m * indeg + 1;
    o->sbuf = malloc(o->sb);
    o->rbuf = malloc(o->rb);
    o->ref = malloc(o->rb);
    for (size_t i = 0; i < o->sb; i++)
        o->sbuf[i] = (char)(rank * 31 + i * 7 + seed);
    memset(o->rbuf, 0x77, o->rb);
    memset(o->ref, 0x77, o->rb);
    if (algo_for)
        algo_for(g, alltoall ? "alltoall" : "allgather", m, name, sizeof(name));
    if (strcmp(name, "pmpi") == 0 && !nhood_takes(g))
        (alltoall ? PMPI_Neighbor_alltoall : PMPI_Neighbor_allgather)(o->sbuf, m, MPI_BYTE, o->ref,
                                                                      m, MPI_BYTE, g);
    else
        reference(alltoall, g, o->sbuf, m, MPI_BYTE, o->ref, m, MPI_BYTE);
}

/* The result equals the truth. */
static inline int tc_op_right(const tc_op *o)
{
    return memcmp(o->rbuf, o->ref, o->rb) == 0;
}

static inline void tc_op_fini(tc_op *o)
{
    free(o->sbuf);
    free(o->rbuf);
    free(o->ref);
}

#endif
