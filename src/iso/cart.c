/* Relative coordinates on Cartesian communicators (Cart_relative_*,
 * Cart_neighborhood_*) and Type_create_triangular, from the isomorphic
 * sparse collectives interface (include/nhood.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "iso/iso.h"
#include "nhood.h"

/* ---- Cartesian helpers ---- */

int nh_iso_cart_info(MPI_Comm comm, const char *fn, nh_grid *g, int *coords)
{
    int st, d, dims[NH_MAXDIMS], periods[NH_MAXDIMS], rc;
    if (comm == MPI_COMM_NULL) {
        nh_error("%s: MPI_COMM_NULL", fn);
        return MPI_ERR_COMM;
    }
    if ((rc = nh_mpi_Topo_test(comm, &st)))
        return rc;
    if (st != MPI_CART) {
        nh_error("%s: the communicator is not Cartesian", fn);
        return MPI_ERR_TOPOLOGY;
    }
    if ((rc = nh_mpi_Cartdim_get(comm, &d)))
        return rc;
    if (d < 1 || d > NH_MAXDIMS) {
        nh_error("%s: %d-dimensional Cartesian communicator (nhood handles 1..%d)", fn, d,
                 NH_MAXDIMS);
        return MPI_ERR_DIMS;
    }
    if ((rc = nh_mpi_Cart_get(comm, d, dims, periods, coords)))
        return rc;
    if (nh_grid_init(g, d, dims, periods)) {
        nh_error("%s: invalid Cartesian grid", fn);
        return MPI_ERR_DIMS;
    }
    return MPI_SUCCESS;
}

NH_EXPORT int Cart_relative_rank(MPI_Comm cartcomm, const int relative[], int *rank)
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS];
    nh_grid g;
    int rc = nh_iso_cart_info(cartcomm, "Cart_relative_rank", &g, coords);
    if (!rc && (!relative || !rank)) {
        nh_error("Cart_relative_rank: NULL argument");
        rc = MPI_ERR_ARG;
    }
    if (!rc)
        *rank = nh_iso_to_mpi(nh_grid_shift(&g, coords, relative, +1));
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Cart_relative_coord(MPI_Comm cartcomm, int rank, int relative[])
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS], other[NH_MAXDIMS];
    nh_grid g;
    int rc = nh_iso_cart_info(cartcomm, "Cart_relative_coord", &g, coords);
    if (!rc && !relative) {
        nh_error("Cart_relative_coord: NULL argument");
        rc = MPI_ERR_ARG;
    }
    if (!rc && (rank < 0 || rank >= g.size)) {
        nh_error("Cart_relative_coord: rank %d is not in the communicator (size %d)", rank, g.size);
        rc = MPI_ERR_RANK;
    }
    if (!rc) {
        nh_grid_coords(&g, rank, other);
        for (int j = 0; j < g.ndims; j++)
            relative[j] = other[j] - coords[j];
        nh_grid_normalize(&g, relative);
    }
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Cart_relative_shift(MPI_Comm cartcomm, const int relative[], int *source, int *target)
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS];
    nh_grid g;
    int rc = nh_iso_cart_info(cartcomm, "Cart_relative_shift", &g, coords);
    if (!rc && (!relative || !source || !target)) {
        nh_error("Cart_relative_shift: NULL argument");
        rc = MPI_ERR_ARG;
    }
    if (!rc) {
        *target = nh_iso_to_mpi(nh_grid_shift(&g, coords, relative, +1));
        *source = nh_iso_to_mpi(nh_grid_shift(&g, coords, relative, -1));
    }
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
}

/* MPI's Cartesian neighborhood: per dimension the -1 then the +1
 * neighbor; it sends to and receives from the same list.  Fills up to
 * max_s entries of list (without MPI_PROC_NULL when graph is set); *n is
 * the number of entries there are. */
static int cart_nbhd(MPI_Comm cartcomm, const char *fn, int max_s, int *list, int graph, int *s,
                     int *n)
{
    int coords[NH_MAXDIMS];
    nh_grid g;
    int rc = nh_iso_cart_info(cartcomm, fn, &g, coords);
    if (rc)
        return rc;
    *n = 0;
    for (int j = 0; j < g.ndims; j++)
        for (int sign = -1; sign <= 1; sign += 2) {
            int r = nh_iso_to_mpi(nh_grid_step(&g, coords, j, sign));
            if (graph && r == MPI_PROC_NULL)
                continue;
            if (list && *n < max_s)
                list[*n] = r;
            (*n)++;
        }
    *s = 2 * g.ndims;
    return MPI_SUCCESS;
}

NH_EXPORT int Cart_neighborhood_count(MPI_Comm cartcomm, int *s, int *indegree, int *outdegree)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS, n = 0;
    if (!s || !indegree || !outdegree) {
        nh_error("Cart_neighborhood_count: NULL argument");
        rc = MPI_ERR_ARG;
    }
    /* The degrees count the neighbors that exist. */
    if (!rc && !(rc = cart_nbhd(cartcomm, "Cart_neighborhood_count", 0, NULL, 1, s, &n)))
        *indegree = *outdegree = n;
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
}

static int cart_get(MPI_Comm cartcomm, const char *fn, int max_s, int sources[], int destinations[],
                    int graph)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS, s, n;
    if (max_s < 0 || (max_s > 0 && (!sources || !destinations))) {
        nh_error("%s: max_s=%d with %s arrays", fn, max_s, max_s < 0 ? "negative" : "NULL");
        rc = MPI_ERR_ARG;
    }
    if (!rc && !(rc = cart_nbhd(cartcomm, fn, max_s, sources, graph, &s, &n)) && n > 0 && max_s > 0)
        memcpy(destinations, sources, sizeof(int) * (size_t)(n < max_s ? n : max_s));
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Cart_neighborhood_get(MPI_Comm cartcomm, int max_s, int sources[], int destinations[])
{
    return cart_get(cartcomm, "Cart_neighborhood_get", max_s, sources, destinations, 0);
}

NH_EXPORT int Cart_neighborhood_graph_get(MPI_Comm cartcomm, int max_s, int sources[],
                                          int destinations[])
{
    return cart_get(cartcomm, "Cart_neighborhood_graph_get", max_s, sources, destinations, 1);
}

/* ---- datatypes ---- */

NH_EXPORT int Type_create_triangular(int count, int firstblock, int blockincrement, int stride,
                                     int strideincrement, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    static const char *fn = "Type_create_triangular";
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    int *len = NULL, *disp = NULL;
    if (count < 0) {
        nh_error("%s: negative count %d", fn, count);
        rc = MPI_ERR_COUNT;
    } else if (!newtype) {
        nh_error("%s: newtype is NULL", fn);
        rc = MPI_ERR_ARG;
    } else if (!ALLOC(len, count) || !ALLOC(disp, count)) {
        rc = MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < count && !rc; i++) {
        long long l = (long long)firstblock + (long long)i * blockincrement;
        long long d = (long long)i * ((long long)stride + strideincrement);
        if (l < 0 || l > INT_MAX) {
            nh_error("%s: block %d would hold %lld elements (firstblock %d, blockincrement %d)", fn,
                     i, l, firstblock, blockincrement);
            rc = MPI_ERR_ARG;
        } else if (d < INT_MIN || d > INT_MAX) {
            nh_error("%s: block %d starts %lld extents away, beyond an int", fn, i, d);
            rc = MPI_ERR_ARG;
        } else {
            len[i] = (int)l;
            disp[i] = (int)d;
        }
    }
    if (!rc)
        rc = nh_type_create_user_indexed(count, len, disp, oldtype, newtype);
    free(len);
    free(disp);
    nh_guard_leave(g0);
    return rc;
}
