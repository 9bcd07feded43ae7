/* A program for nhood beside a PMPI tool (test/tool/count_tool.c): a ring
 * graph created with the isomorphic=true hint, neighborhood collectives in
 * blocking and nonblocking forms, a duplicate, and the program's own
 * point-to-point, barrier and reduction calls.  Every result is checked
 * against MPI's definition; the tool's counts and nhood's report are
 * compared by run-mpi-tests.sh.  Needs 3 or more ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "../ompi_weights.h"

#define ITERS 5

static int errors;

static void expect(int got, int want, const char *what, int i)
{
    if (got != want && errors++ < 10)
        fprintf(stderr, "test_tool: %s[%d] = %d, expected %d\n", what, i, got, want);
}

/* Rank r sends s*1000 + 100*r + j to destination j of the ring [left,
 * right] on iteration s; it receives from its left neighbor that rank's
 * block 1 and from its right neighbor that rank's block 0. */
static void check_alltoall(const int *recv, int rank, int size, int s, const char *what)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    expect(recv[0], s * 1000 + 100 * left + 1, what, 0);
    expect(recv[1], s * 1000 + 100 * right + 0, what, 1);
}

int main(int argc, char **argv)
{
    int rank, size, sum;
    MPI_Comm ring, dup;
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0)
            fprintf(stderr, "test_tool: needs 3 or more ranks\n");
        MPI_Finalize();
        return 1;
    }
    int nb[2] = {(rank + size - 1) % size, (rank + 1) % size};
    MPI_Info_create(&info);
    MPI_Info_set(info, "isomorphic", "true");
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb, MPI_UNWEIGHTED,
                                   info, 0, &ring);
    MPI_Info_free(&info);
    int send[2], recv[2];
    for (int s = 0; s < ITERS; s++) {
        send[0] = s * 1000 + 100 * rank;
        send[1] = send[0] + 1;
        MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring);
        check_alltoall(recv, rank, size, s, "alltoall");
    }
    for (int s = 0; s < ITERS; s++) {
        MPI_Request req;
        send[0] = s * 1000 + 100 * rank;
        send[1] = send[0] + 1;
        MPI_Ineighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, ring, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_alltoall(recv, rank, size, s, "ineighbor_alltoall");
    }
    MPI_Comm_dup(ring, &dup);
    for (int s = 0; s < ITERS; s++) {
        int mine = 10 * rank + s;
        MPI_Neighbor_allgather(&mine, 1, MPI_INT, recv, 1, MPI_INT, dup);
        expect(recv[0], 10 * nb[0] + s, "allgather", 0);
        expect(recv[1], 10 * nb[1] + s, "allgather", 1);
    }
    MPI_Comm_free(&dup);
    /* The program's own traffic: a ring shift, a barrier, a reduction. */
    MPI_Request reqs[2];
    int from_left = -1;
    MPI_Irecv(&from_left, 1, MPI_INT, nb[0], 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&rank, 1, MPI_INT, nb[1], 7, MPI_COMM_WORLD, &reqs[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, reqs, sts);
    expect(from_left, nb[0], "ring shift", 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&errors, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return sum != 0;
}
