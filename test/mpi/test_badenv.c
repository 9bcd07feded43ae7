/* Bad settings.  Without arguments: only MPI_Init and MPI_Finalize;
 * run-mpi-tests.sh starts it with invalid NHOOD_* values and expects one
 * clear error and a failure.
 * With "info": graphs with malformed nhood info values must be refused on
 * every rank with MPI_ERR_INFO_VALUE (also when only one rank's value is
 * bad), at creation or at the call that analyzes them (the cold tier),
 * well-formed ones must work, unknown nhood* keys only warn.
 * Prints "N passed, N failed" and "bad cases: N" (the number of error
 * messages run-mpi-tests.sh expects) on rank 0.
 * With "graph" (3 ranks or more): an inconsistent graph (every rank names
 * rank+1 as destination and as source), erroneous MPI that MPI does not
 * check: nhood's first collective on it must fail with MPI_ERR_TOPOLOGY
 * on every rank (MPI's own exchange would hang). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../ompi_weights.h"

static int rank, p;

/* The error class of g's creation (rc), or where the creation succeeded,
 * of its first failing blocking call (tc_analyzing_call; at creation under
 * NHOOD_WARMUP=0).  g inherits MPI_COMM_WORLD's MPI_ERRORS_RETURN.  Frees
 * g. */
static int refused(int rc, MPI_Comm *g)
{
    if (rc == MPI_SUCCESS && *g != MPI_COMM_NULL)
        rc = tc_analyzing_call(*g, 8);
    if (*g != MPI_COMM_NULL)
        MPI_Comm_free(g);
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

/* A ring over MPI_COMM_WORLD (1-D periodic, one neighbor each way) created
 * with one info key; on_rank >= 0 sets it on that rank only. */
static int create(const char *key, const char *value, int on_rank)
{
    MPI_Info info;
    MPI_Comm g = MPI_COMM_NULL;
    int src = (rank + p - 1) % p, dst = (rank + 1) % p;
    MPI_Info_create(&info);
    if (on_rank < 0 || on_rank == rank)
        MPI_Info_set(info, key, value);
    int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst,
                                            MPI_UNWEIGHTED, info, 0, &g);
    MPI_Info_free(&info);
    return refused(rc, &g);
}

static void info_cases(void)
{
    char pv[32], wrong[32], two[32], longv[400];
    snprintf(pv, sizeof(pv), "%d", p);
    snprintf(wrong, sizeof(wrong), "%d", p + 1);
    snprintf(two, sizeof(two), "%d,1", p);
    memset(longv, '1', 300);
    longv[300] = '\0';
    static const struct {
        const char *key, *value;
    } bad[] = {
        {"isomorphic", "yes"},
        {"isomorphic", "TRUE"},
        {"nhood_dims", "4,,4"},
        {"nhood_dims", "4,"},
        {"nhood_dims", " 4"},
        {"nhood_dims", "+4"},
        {"nhood_dims", "4 "},
        {"nhood_dims", "0"},
        {"nhood_dims", "-1"},
        {"nhood_dims", "0x4"},
        {"nhood_dims", "99999999999"},
        {"nhood_dims", "4,x"},
        {"nhood_dims", "1,1,1,1,1,1,1,1,1"},
        {"nhood_periods", "1"},
        {"nhood_algorithm", "Torus"},
        {"nhood_algorithm", "torus "},
        {"nhood_stfw_dims", "0"},
        {"nhood_stfw_dims", "33"},
        {"nhood_stfw_dims", "2,2"},
        {"nhood_stfw_dims", "two"},
    };
    int nbad = 0;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++, nbad++)
        CHECK(create(bad[i].key, bad[i].value, -1) == MPI_ERR_INFO_VALUE, "info %s=\"%s\" accepted",
              bad[i].key, bad[i].value);
    /* Values that need the process count. */
    CHECK(create("nhood_dims", wrong, -1) == MPI_ERR_INFO_VALUE, "nhood_dims=%s accepted", wrong);
    nbad++;
    CHECK(create("nhood_dims", two, -1) == MPI_SUCCESS, "nhood_dims=%s rejected", two);
    CHECK(create("nhood_stfw_dims", "3", -1) == MPI_SUCCESS, "nhood_stfw_dims=3 rejected");
    /* An overlong value, where this MPI stores one (MPICH does, up to
     * 1024 characters; Open MPI refuses values over 255 itself). */
    MPI_Info probe;
    int vlen = 0, flag = 0;
    MPI_Info_create(&probe);
    MPI_Info_set(probe, "nhood_dims", longv);
#if MPI_VERSION >= 4 /* MPI_Info_get_valuelen is deprecated there */
    char one[1];
    vlen = 1;
    MPI_Info_get_string(probe, "nhood_dims", &vlen, one, &flag);
    vlen--; /* the length with its terminating null */
#else
    MPI_Info_get_valuelen(probe, "nhood_dims", &vlen, &flag);
#endif
    MPI_Info_free(&probe);
    if (flag && vlen == 300) {
        CHECK(create("nhood_dims", longv, -1) == MPI_ERR_INFO_VALUE,
              "300-character value accepted");
        nbad++;
    }
    /* Periods need dims: set both through one info. */
    {
        MPI_Info info;
        MPI_Comm g = MPI_COMM_NULL;
        int src = (rank + p - 1) % p, dst = (rank + 1) % p, cls = MPI_SUCCESS;
        const char *per[] = {"1,1", "2", " 1", "1,", NULL};
        for (int k = 0; per[k]; k++, nbad++) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "nhood_dims", pv);
            MPI_Info_set(info, "nhood_periods", per[k]);
            int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1,
                                                    &dst, MPI_UNWEIGHTED, info, 0, &g);
            MPI_Info_free(&info);
            cls = refused(rc, &g);
            CHECK(cls == MPI_ERR_INFO_VALUE, "nhood_periods=\"%s\" with nhood_dims=%s accepted",
                  per[k], pv);
        }
    }
    /* A bad value on one rank only: every rank fails (none is left waiting
     * in the creation), and that rank explains. */
    CHECK(create("nhood_algorithm", "bogus", p - 1) == MPI_ERR_INFO_VALUE,
          "bad value on rank %d only accepted", p - 1);
    nbad++;
    /* Well-formed values, and an unknown key that only warns. */
    CHECK(create("nhood_dims", pv, -1) == MPI_SUCCESS, "nhood_dims=%s rejected", pv);
    CHECK(create("isomorphic", "false", -1) == MPI_SUCCESS, "isomorphic=false rejected");
    CHECK(create("nhood_algorithm", "direct", -1) == MPI_SUCCESS, "nhood_algorithm=direct");
    CHECK(create("nhood_dim", "4", -1) == MPI_SUCCESS, "unknown key nhood_dim rejected");
    if (rank == 0)
        printf("bad cases: %d\n", nbad);
}

static void inconsistent_graph(void)
{
    MPI_Comm g = MPI_COMM_NULL;
    int peer = (rank + 1) % p, sb = rank, rb = -1, cls = MPI_SUCCESS;
    int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &peer, MPI_UNWEIGHTED, 1, &peer,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    CHECK(rc == MPI_SUCCESS, "creation failed (%d)", rc);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Neighbor_alltoall(&sb, 1, MPI_INT, &rb, 1, MPI_INT, g);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TOPOLOGY, "neighbor_alltoall on an inconsistent graph: class %d", cls);
        MPI_Comm_free(&g);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "graph") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        inconsistent_graph();
        return check_finish_mpi();
    }
    if (argc > 1 && strcmp(argv[1], "info") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &p);
        snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* MPI_Info_set */
        info_cases();
        return check_finish_mpi();
    }
    MPI_Finalize();
    return 0;
}
