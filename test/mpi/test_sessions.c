/* nhood in programs that start MPI through MPI-4 Sessions (no MPI_Init):
 * a 2-D Moore torus (radius 1, MPI_Dims_create grid; below 9 ranks, where
 * such a torus lists a neighbor twice, a ring) built on a
 * communicator from the mpi://WORLD process set, with the hint
 * (isomorphic=true, nhood_dims), then alltoall and allgather in blocking,
 * nonblocking and persistent forms, each against the point-to-point
 * reference.  Usage: test_sessions [mixed]; mixed: the program also calls
 * MPI_Init and creates the same graph on MPI_COMM_WORLD, before the
 * session's.  Prints "N passed, N failed" on rank 0's stdout. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../reference.h"

#define M 3 /* ints per block */

/* One collective on g in one form against the reference. */
static void run(MPI_Comm g, int alltoall, int form, int outdeg, int indeg, int rank, int iter)
{
    int scount = alltoall ? outdeg * M : M;
    int *s = malloc(sizeof(int) * (size_t)(scount + 1)), *r = malloc(sizeof(int) * (indeg * M + 1));
    int *ref = malloc(sizeof(int) * (indeg * M + 1));
    for (int i = 0; i < scount; i++)
        s[i] = rank * 1000 + iter * 100 + i;
    memset(r, 0xff, sizeof(int) * (size_t)(indeg * M + 1));
    memset(ref, 0xfe, sizeof(int) * (size_t)(indeg * M + 1));
    MPI_Request q;
    const char *what = alltoall ? "alltoall" : "allgather";
    if (form == 0)
        CHECK((alltoall ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather)(s, M, MPI_INT, r, M,
                                                                           MPI_INT, g) == 0,
              "blocking %s", what);
    else if (form == 1) {
        CHECK((alltoall ? MPI_Ineighbor_alltoall : MPI_Ineighbor_allgather)(s, M, MPI_INT, r, M,
                                                                             MPI_INT, g, &q) == 0,
              "nonblocking %s", what);
        CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == 0, "wait");
    } else {
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        CHECK((alltoall ? MPI_Neighbor_alltoall_init : MPI_Neighbor_allgather_init)(
                  s, M, MPI_INT, r, M, MPI_INT, g, MPI_INFO_NULL, &q) == 0,
              "persistent %s", what);
        for (int k = 0; k < 2; k++) {
            CHECK(MPI_Start(&q) == 0, "start");
            CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == 0, "wait");
        }
        CHECK(MPI_Request_free(&q) == 0, "request free");
#else
        CHECK((alltoall ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather)(s, M, MPI_INT, r, M,
                                                                           MPI_INT, g) == 0,
              "blocking %s", what);
#endif
    }
    reference(alltoall, g, s, M, MPI_INT, ref, M, MPI_INT);
    CHECK(!memcmp(r, ref, sizeof(int) * (size_t)(indeg * M)), "%s form %d iteration %d: result",
          what, form, iter);
    free(s);
    free(r);
    free(ref);
}

/* The torus on comm (named what in messages), every collective and form. */
static void exercise(MPI_Comm comm)
{
    int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1}, outdeg, indeg, *off;
    char hint[32];
    MPI_Comm g;
    MPI_Info info;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int d = size >= 9 ? 2 : 1;
    MPI_Dims_create(size, d, dims);
    int s = tc_offsets("moore", d, 1, &off);
    MPI_Info_create(&info);
    MPI_Info_set(info, "isomorphic", "true");
    if (d == 2)
        snprintf(hint, sizeof(hint), "%d,%d", dims[0], dims[1]);
    else
        snprintf(hint, sizeof(hint), "%d", dims[0]);
    MPI_Info_set(info, "nhood_dims", hint);
    CHECK(tc_graph(comm, d, dims, periods, s, off, info, 0, &g, &outdeg, &indeg) == 0,
          "graph creation");
    MPI_Info_free(&info);
    free(off);
    for (int iter = 0; iter < 3; iter++)
        for (int form = 0; form < 3; form++) {
            run(g, 1, form, outdeg, indeg, rank, iter);
            run(g, 0, form, outdeg, indeg, rank, iter);
        }
    CHECK(MPI_Comm_free(&g) == 0, "free");
}

int main(int argc, char **argv)
{
    int mixed = argc > 1 && !strcmp(argv[1], "mixed");
    MPI_Session session;
    MPI_Group group;
    MPI_Comm comm;
    if (mixed) {
        MPI_Init(&argc, &argv);
        exercise(MPI_COMM_WORLD);
    }
    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) ||
        MPI_Group_from_session_pset(session, "mpi://WORLD", &group) ||
        MPI_Comm_create_from_group(group, "nhood.test_sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &comm)) {
        fprintf(stderr, "test_sessions: no communicator from the mpi://WORLD process set\n");
        return 2;
    }
    int rank, mine[2] = {passed, failed}, all[2];
    MPI_Comm_rank(comm, &rank);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    exercise(comm);
    mine[0] = passed, mine[1] = failed;
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("%d passed, %d failed\n", all[0], all[1]);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
    MPI_Session_finalize(&session);
    if (mixed)
        MPI_Finalize();
    return all[1] != 0;
}
