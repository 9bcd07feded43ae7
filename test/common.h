/* Shared by the MPI tests and the benchmark: neighborhood templates and
 * distributed-graph construction on a row-major grid. */
#ifndef NH_TEST_COMMON_H
#define NH_TEST_COMMON_H

#include <mpi.h>

#include "util/init_forms.h"
/* after mpi-ext.h (init_forms.h): it maps the names mpi-ext.h declares */
#include "libmpi.h"

/* Open MPI's MPI_UNWEIGHTED is a small non-null pointer, which gcc 12's
 * access checks on Open MPI's prototypes report as a zero-size read. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

#include "nbhd.h"
#include "nhood.h"

/* Rank of coords + sign*off on a grid, or MPI_PROC_NULL outside a mesh. */
static inline int tc_shift(int d, const int *dims, const int *periods, const int *coords,
                           const int *off, int sign)
{
    int rank = 0;
    for (int j = 0; j < d; j++) {
        int c = coords[j] + sign * off[j];
        if (periods[j])
            c = ((c % dims[j]) + dims[j]) % dims[j];
        else if (c < 0 || c >= dims[j])
            return MPI_PROC_NULL;
        rank = rank * dims[j] + c;
    }
    return rank;
}

/* Builds a distributed graph on comm (whose ranks are row-major on dims)
 * with the given offsets; neighbors outside a mesh are left out.  If
 * shuffle is set, each rank lists its sources in a rank-dependent order. */
static inline int tc_graph(MPI_Comm comm, int d, const int *dims, const int *periods, int s,
                           const int *off, MPI_Info info, int shuffle, MPI_Comm *graph, int *outdeg,
                           int *indeg)
{
    int rank, coords[TC_MAXD], x;
    MPI_Comm_rank(comm, &rank);
    x = rank;
    for (int j = d - 1; j >= 0; j--) {
        coords[j] = x % dims[j];
        x /= dims[j];
    }
    int *dst = malloc(sizeof(int) * (size_t)s + 1), *src = malloc(sizeof(int) * (size_t)s + 1);
    int no = 0, ni = 0;
    for (int t = 0; t < s; t++) {
        int q = tc_shift(d, dims, periods, coords, off + (size_t)t * d, +1);
        if (q != MPI_PROC_NULL)
            dst[no++] = q;
        q = tc_shift(d, dims, periods, coords, off + (size_t)t * d, -1);
        if (q != MPI_PROC_NULL)
            src[ni++] = q;
    }
    if (shuffle)
        for (int i = ni - 1; i > 0; i--) {
            int k = (rank * 7 + i * 13) % (i + 1), tmp = src[i];
            src[i] = src[k];
            src[k] = tmp;
        }
    int rc = MPI_Dist_graph_create_adjacent(comm, ni, src, MPI_UNWEIGHTED, no, dst, MPI_UNWEIGHTED,
                                            info, 0, graph);
    free(dst);
    free(src);
    *outdeg = no;
    *indeg = ni;
    return rc;
}

/* Up to calls blocking MPI_Neighbor_allgather calls of one int on the
 * distributed graph g: the first one's error code that fails, else
 * MPI_SUCCESS.  Under the cold tier (NHOOD_WARMUP) a graph's info keys
 * are checked, on every rank alike, at the call that analyzes it, the
 * first blocking one after the warm-up (g needs MPI_ERRORS_RETURN). */
static inline int tc_analyzing_call(MPI_Comm g, int calls)
{
    int indeg, outdeg, w, one = 1, rc = MPI_SUCCESS;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    int *in = malloc(sizeof(int) * (size_t)indeg + 1);
    for (int i = 0; i < calls && rc == MPI_SUCCESS; i++)
        rc = MPI_Neighbor_allgather(&one, 1, MPI_INT, in, 1, MPI_INT, g);
    free(in);
    return rc;
}

/* Is MPI's own neighborhood exchange usable on the distributed graph g?
 * Open MPI 5 and 6 leave a Cartesian or graph parent's topology on a
 * distributed graph made from it (MPI_Topo_test says the parent's;
 * open-mpi/ompi#14438) and fail or crash in their own neighborhood
 * collectives there: the tests then compare with the reference only. */
static inline int mpi_topology_ok(MPI_Comm g)
{
    int t = MPI_UNDEFINED;
    MPI_Topo_test(g, &t);
    return t == MPI_DIST_GRAPH;
}

/* Does NHOOD_DISABLE turn nhood off in this run? */
static inline int nhood_disabled(void)
{
    const char *off = getenv("NHOOD_DISABLE");
    return off && strcmp(off, "0") != 0;
}

/* Does the program hand every neighborhood collective to MPI (no nhood,
 * NHOOD_ALGO=pmpi, NHOOD_DISABLE)? */
static inline int forced_mpi(int nhood_loaded)
{
    const char *a = getenv("NHOOD_ALGO");
    return !nhood_loaded || (a && strcmp(a, "pmpi") == 0) || nhood_disabled();
}

/* Does nhood take g's calls (loaded, on for this program: it has a record
 * of g) without being told to hand them to MPI as they are
 * (NHOOD_ALGO=pmpi)?  Then every result is the standard's, where nhood
 * hands a call to MPI too (a cold graph's all-to-all, api/cold.c). */
static inline int nhood_takes(MPI_Comm g)
{
    int (*query)(MPI_Comm, nhood_comm_info *) =
        (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    nhood_comm_info info;
    return query && query(g, &info) == MPI_SUCCESS && !forced_mpi(1);
}

#endif
