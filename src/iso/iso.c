/* The isomorphic sparse collectives interface (include/nhood.h): relative
 * coordinates, neighborhood creation and queries, the blocking and
 * persistent all-to-all and allgather forms.
 *
 * Iso_neighborhood_create makes a distributed-graph communicator through
 * nhood's own MPI_Dist_graph_create_adjacent, with the existing targets
 * and sources in offset order and the info hint isomorphic=true plus the
 * Cartesian grid (nhood_dims, nhood_periods), so nhood's analysis finds
 * the neighborhood exactly.  The collectives are then nhood's
 * MPI_Neighbor_* on that communicator: the block of offset i is the k-th
 * block of the graph call, k counting the offsets whose neighbor exists.
 * Without MPI_PROC_NULL neighbors anywhere the regular calls map 1:1;
 * otherwise (some offset leaves a non-periodic dimension somewhere, a
 * fact identical on every rank) every rank uses the v form with the
 * slots of existing neighbors, so all ranks make the same MPI call. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "iso/iso.h"
#include "nhood.h"

#define NH_EXPORT __attribute__((visibility("default")))

/* The entry points of nhood (src/intercept/functions.h). */
/* Weights as pointers, not arrays: MPI_UNWEIGHTED is an address constant
 * (Open MPI: (int *)2) that gcc would flag as a zero-size array read. */
int nh_impl_MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int *sourceweights, int outdegree,
                                           const int destinations[], const int *destweights,
                                           MPI_Info info, int reorder, MPI_Comm *comm_dist_graph);
int nh_impl_MPI_Start(MPI_Request *request);
int nh_impl_MPI_Wait(MPI_Request *request, MPI_Status *status);
int nh_impl_MPI_Request_free(MPI_Request *request);

/* ---- settings ---- */

int nh_iso_check_env(char *msg, size_t len)
{
    (void)msg;
    (void)len;
    return nh_cfg.check; /* parsed with the other settings (select/config.c) */
}

int nh_iso_reduce_env(char *msg, size_t len)
{
    const char *v = getenv("NHOOD_ISO_REDUCE");
    if (!v || strcmp(v, "auto") == 0)
        return NH_RED_COUNT;
    for (int a = 0; a < NH_RED_COUNT; a++)
        if (strcmp(v, nh_red_algo_names[a]) == 0)
            return a;
    snprintf(msg, len,
             "NHOOD_ISO_REDUCE=\"%s\" is not valid (Iso_neighbor_[scatter_]reduce algorithm); "
             "allowed: auto|direct|dimwise",
             v);
    return -1;
}

int nh_iso_knob(const char *name, size_t n)
{
    static const char *const names[] = {"NHOOD_ISO_REDUCE", NULL};
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == n && strncmp(names[i], name, n) == 0)
            return 1;
    return 0;
}

/* ---- the attribute ---- */

static int iso_keyval = MPI_KEYVAL_INVALID;

static void iso_free(nh_iso *I)
{
    if (!I)
        return;
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < NH_RED_COUNT; a++)
            nh_rsched_free(I->rs[k][a]);
    if (I->pcomm != MPI_COMM_NULL)
        nh_comm_free(&I->pcomm);
    free(I->off);
    free(I->targets);
    free(I->sources);
    free(I->tidx);
    free(I->sidx);
    free(I);
    nh_res_add(NH_RES_PLAN, -1);
}

static int iso_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    iso_free(attr);
    return MPI_SUCCESS;
}

nh_iso *nh_iso_get(MPI_Comm comm, const char *fn)
{
    void *v = NULL;
    int flag = 0;
    if (comm == MPI_COMM_NULL || iso_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, iso_keyval, &v, &flag) || !flag) {
        nh_error("%s: the communicator was not made by Iso_neighborhood_create", fn);
        return NULL;
    }
    return v;
}

int nh_iso_red_algo(nh_iso *I, int scatter, size_t m, nh_red_algo *out)
{
    if (I->red != NH_RED_COUNT) {
        *out = I->red;
        return 0;
    }
    /* phases * alpha + messages * o + bytes * beta on an interior rank */
    double best = 0;
    for (int a = 0; a < NH_RED_COUNT; a++) {
        if (I->tmpl[scatter][a].msgs < 0) {
            nh_grid torus = I->g;
            nh_rsched *rs;
            for (int j = 0; j < torus.ndims; j++)
                torus.periods[j] = 1;
            if (nh_rsched_build(&torus, 0, I->s, I->off, scatter, (nh_red_algo)a, &rs))
                return -1;
            I->tmpl[scatter][a].msgs = rs->msgs;
            I->tmpl[scatter][a].blocks = rs->blocks;
            I->tmpl[scatter][a].steps = rs->nsteps;
            nh_rsched_free(rs);
        }
        const nh_cost *c = &nh_cfg.cost;
        double cost = I->tmpl[scatter][a].steps * c->alpha + I->tmpl[scatter][a].msgs * c->o +
                      (double)I->tmpl[scatter][a].blocks * (double)m * c->beta;
        if (a == 0 || cost < best) {
            best = cost;
            *out = (nh_red_algo)a;
        }
    }
    return 0;
}

static int fail(MPI_Comm comm, int rc)
{
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* ---- Cartesian helpers ---- */

static int cart_info(MPI_Comm comm, const char *fn, nh_grid *g, int *coords)
{
    int st, d, dims[NH_MAXDIMS], periods[NH_MAXDIMS], rc;
    if (comm == MPI_COMM_NULL) {
        nh_error("%s: MPI_COMM_NULL", fn);
        return MPI_ERR_COMM;
    }
    if ((rc = PMPI_Topo_test(comm, &st)))
        return rc;
    if (st != MPI_CART) {
        nh_error("%s: the communicator is not Cartesian", fn);
        return MPI_ERR_TOPOLOGY;
    }
    if ((rc = PMPI_Cartdim_get(comm, &d)))
        return rc;
    if (d < 1 || d > NH_MAXDIMS) {
        nh_error("%s: %d-dimensional Cartesian communicator (nhood handles 1..%d)", fn, d,
                 NH_MAXDIMS);
        return MPI_ERR_DIMS;
    }
    if ((rc = PMPI_Cart_get(comm, d, dims, periods, coords)))
        return rc;
    if (nh_grid_init(g, d, dims, periods)) {
        nh_error("%s: invalid Cartesian grid", fn);
        return MPI_ERR_DIMS;
    }
    return MPI_SUCCESS;
}

static int to_mpi(int r)
{
    return r == NH_NONE ? MPI_PROC_NULL : r;
}

NH_EXPORT int Cart_relative_rank(MPI_Comm cartcomm, const int relative[], int *rank)
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS];
    nh_grid g;
    int rc = cart_info(cartcomm, "Cart_relative_rank", &g, coords);
    if (!rc && (!relative || !rank)) {
        nh_error("Cart_relative_rank: NULL argument");
        rc = MPI_ERR_ARG;
    }
    if (!rc)
        *rank = to_mpi(nh_grid_shift(&g, coords, relative, +1));
    nh_guard_leave(g0);
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Cart_relative_coord(MPI_Comm cartcomm, int rank, int relative[])
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS], other[NH_MAXDIMS];
    nh_grid g;
    int rc = cart_info(cartcomm, "Cart_relative_coord", &g, coords);
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
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Cart_relative_shift(MPI_Comm cartcomm, const int relative[], int *source, int *target)
{
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS];
    nh_grid g;
    int rc = cart_info(cartcomm, "Cart_relative_shift", &g, coords);
    if (!rc && (!relative || !source || !target)) {
        nh_error("Cart_relative_shift: NULL argument");
        rc = MPI_ERR_ARG;
    }
    if (!rc) {
        *target = to_mpi(nh_grid_shift(&g, coords, relative, +1));
        *source = to_mpi(nh_grid_shift(&g, coords, relative, -1));
    }
    nh_guard_leave(g0);
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
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
    int rc = cart_info(cartcomm, fn, &g, coords);
    if (rc)
        return rc;
    *n = 0;
    for (int j = 0; j < g.ndims; j++)
        for (int sign = -1; sign <= 1; sign += 2) {
            int r = to_mpi(nh_grid_step(&g, coords, j, sign));
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
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
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
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
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

/* ---- creation ---- */

static void fmt_list(char *buf, size_t len, int n, const int *v)
{
    size_t pos = 0;
    buf[0] = 0;
    for (int j = 0; j < n && pos < len; j++)
        pos += (size_t)snprintf(buf + pos, len - pos, j ? ",%d" : "%d", v[j]);
}

/* Under NHOOD_CHECK=1: every rank's list equals rank 0's.  Collective. */
static int check_same_list(MPI_Comm comm, int n, const int *off, int *same)
{
    int rc, mine, all;
    int *root = malloc(sizeof(int) * (size_t)n + 1);
    if (!root)
        return MPI_ERR_NO_MEM;
    if (n)
        memcpy(root, off, sizeof(int) * (size_t)n);
    if ((rc = PMPI_Bcast(root, n, MPI_INT, 0, comm)) == MPI_SUCCESS) {
        mine = n == 0 || memcmp(root, off, sizeof(int) * (size_t)n) == 0;
        rc = PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
        if (!rc && !mine) {
            int r;
            PMPI_Comm_rank(comm, &r);
            nh_error("Iso_neighborhood_create: rank %d passes other relative coordinates than "
                     "rank 0 (NHOOD_CHECK=1); every process must pass the same list",
                     r);
        }
        *same = all;
    }
    free(root);
    return rc;
}

static int build_iso(const nh_grid *g, const int *coords, int rank, int s, const int *off,
                     nh_iso **out)
{
    int d = g->ndims;
    nh_iso *I = calloc(1, sizeof(*I));
    if (!I)
        return MPI_ERR_NO_MEM;
    nh_res_add(NH_RES_PLAN, 1);
    I->g = *g;
    memcpy(I->coords, coords, sizeof(int) * (size_t)d);
    I->rank = rank;
    I->s = s;
    I->pcomm = MPI_COMM_NULL;
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < NH_RED_COUNT; a++)
            I->tmpl[k][a].msgs = -1;
    I->off = malloc(sizeof(int) * ((size_t)s * d + 1));
    I->targets = malloc(sizeof(int) * ((size_t)s + 1));
    I->sources = malloc(sizeof(int) * ((size_t)s + 1));
    I->tidx = malloc(sizeof(int) * ((size_t)s + 1));
    I->sidx = malloc(sizeof(int) * ((size_t)s + 1));
    if (!I->off || !I->targets || !I->sources || !I->tidx || !I->sidx) {
        iso_free(I);
        return MPI_ERR_NO_MEM;
    }
    if (s)
        memcpy(I->off, off, sizeof(int) * (size_t)s * d);
    for (int i = 0; i < s; i++) {
        const int *c = off + (size_t)i * d;
        I->targets[i] = to_mpi(nh_grid_shift(g, coords, c, +1));
        I->sources[i] = to_mpi(nh_grid_shift(g, coords, c, -1));
        if (I->targets[i] != MPI_PROC_NULL)
            I->tidx[I->outdeg++] = i;
        if (I->sources[i] != MPI_PROC_NULL)
            I->sidx[I->indeg++] = i;
        for (int j = 0; j < d; j++)
            I->nulls |= !g->periods[j] && c[j] != 0;
    }
    *out = I;
    return MPI_SUCCESS;
}

NH_EXPORT int Iso_neighborhood_create(MPI_Comm cartcomm, int s, const int relative_coordinates[],
                                      MPI_Comm *isocomm)
{
    static const char *fn = "Iso_neighborhood_create";
    int g0 = nh_guard_enter(), coords[NH_MAXDIMS], rank, rc;
    char msg[256];
    nh_grid g;
    nh_iso *I = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int *src = NULL, *dst = NULL;
    if ((rc = cart_info(cartcomm, fn, &g, coords)))
        goto out; /* the same on every rank: the communicator's topology */
    if ((rc = PMPI_Comm_rank(cartcomm, &rank)))
        goto out;
    /* Local argument errors and the settings the ranks must share, agreed
     * in one reduction so that every rank fails together. */
    int bad = 0, chk = nh_iso_check_env(msg, sizeof(msg)), red = NH_RED_COUNT;
    if (chk < 0) {
        nh_error("%s: %s", fn, msg);
        bad = 1;
    } else if ((red = nh_iso_reduce_env(msg, sizeof(msg))) < 0) {
        nh_error("%s: %s", fn, msg);
        bad = 1;
    } else if (s < 0) {
        nh_error("%s: negative number of neighbors s=%d", fn, s);
        bad = 1;
    } else if (s > 0 && !relative_coordinates) {
        nh_error("%s: relative_coordinates is NULL with s=%d", fn, s);
        bad = 1;
    } else if (!isocomm) {
        nh_error("%s: isocomm is NULL", fn);
        bad = 1;
    }
    int v[7] = {bad, s, -s, chk, -chk, red, -red}, all[7];
    if ((rc = PMPI_Allreduce(v, all, 7, MPI_INT, MPI_MAX, cartcomm)))
        goto out;
    if (all[0]) {
        rc = MPI_ERR_ARG;
        goto out;
    }
    if (all[1] != -all[2]) {
        if (rank == 0)
            nh_error("%s: the processes pass different numbers of relative coordinates (s from "
                     "%d to %d); every process must pass the same list",
                     fn, -all[2], all[1]);
        rc = MPI_ERR_ARG;
        goto out;
    }
    if (all[3] != -all[4] || all[5] != -all[6]) {
        if (rank == 0)
            nh_error("%s: NHOOD_CHECK or NHOOD_ISO_REDUCE differs between processes", fn);
        rc = MPI_ERR_ARG;
        goto out;
    }
    if (chk == 1) {
        int same;
        if ((rc = check_same_list(cartcomm, s * g.ndims, relative_coordinates, &same)))
            goto out;
        if (!same) {
            rc = MPI_ERR_ARG;
            goto out;
        }
    }
    if ((rc = build_iso(&g, coords, rank, s, relative_coordinates, &I)))
        goto out;
    I->red = (nh_red_algo)red;
    src = malloc(sizeof(int) * ((size_t)s + 1));
    dst = malloc(sizeof(int) * ((size_t)s + 1));
    if (!src || !dst) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < I->indeg; k++)
        src[k] = I->sources[I->sidx[k]];
    for (int k = 0; k < I->outdeg; k++)
        dst[k] = I->targets[I->tidx[k]];
    /* The hint: isomorphic by construction, on the Cartesian grid. */
    char dims[128], periods[128];
    fmt_list(dims, sizeof(dims), g.ndims, g.dims);
    fmt_list(periods, sizeof(periods), g.ndims, g.periods);
    if ((rc = PMPI_Info_create(&info)) || (rc = PMPI_Info_set(info, "isomorphic", "true")) ||
        (rc = PMPI_Info_set(info, "nhood_dims", dims)) ||
        (rc = PMPI_Info_set(info, "nhood_periods", periods)))
        goto out;
    if (iso_keyval == MPI_KEYVAL_INVALID &&
        (rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, iso_delete, &iso_keyval, NULL)))
        goto out;
    MPI_Comm graph = MPI_COMM_NULL;
    if ((rc = nh_impl_MPI_Dist_graph_create_adjacent(cartcomm, I->indeg, src, MPI_UNWEIGHTED,
                                                     I->outdeg, dst, MPI_UNWEIGHTED, info, 0,
                                                     &graph)))
        goto out;
    if ((rc = PMPI_Comm_set_attr(graph, iso_keyval, I))) {
        PMPI_Comm_free(&graph);
        goto out;
    }
    I = NULL; /* the attribute owns it */
    *isocomm = graph;
out:
    iso_free(I);
    free(src);
    free(dst);
    if (info != MPI_INFO_NULL)
        PMPI_Info_free(&info);
    nh_guard_leave(g0);
    return rc ? fail(cartcomm, rc) : MPI_SUCCESS;
}

/* ---- queries ---- */

NH_EXPORT int Iso_neighborhood_count(MPI_Comm isocomm, int *s, int *indegree, int *outdegree)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    nh_iso *I = nh_iso_get(isocomm, "Iso_neighborhood_count");
    if (!I)
        rc = MPI_ERR_TOPOLOGY;
    else if (!s || !indegree || !outdegree) {
        nh_error("Iso_neighborhood_count: NULL argument");
        rc = MPI_ERR_ARG;
    } else {
        *s = I->s;
        *indegree = I->indeg;
        *outdegree = I->outdeg;
    }
    nh_guard_leave(g0);
    return rc ? fail(isocomm, rc) : MPI_SUCCESS;
}

static int iso_get(MPI_Comm isocomm, const char *fn, int max_s, int sources[], int destinations[],
                   int graph)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    nh_iso *I = nh_iso_get(isocomm, fn);
    if (!I) {
        rc = MPI_ERR_TOPOLOGY;
    } else if (max_s < 0 || (max_s > 0 && (!sources || !destinations))) {
        nh_error("%s: max_s=%d with %s arrays", fn, max_s, max_s < 0 ? "negative" : "NULL");
        rc = MPI_ERR_ARG;
    } else if (!graph) {
        for (int i = 0; i < I->s && i < max_s; i++) {
            sources[i] = I->sources[i];
            destinations[i] = I->targets[i];
        }
    } else {
        for (int k = 0; k < I->indeg && k < max_s; k++)
            sources[k] = I->sources[I->sidx[k]];
        for (int k = 0; k < I->outdeg && k < max_s; k++)
            destinations[k] = I->targets[I->tidx[k]];
    }
    nh_guard_leave(g0);
    return rc ? fail(isocomm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Iso_neighborhood_get(MPI_Comm isocomm, int max_s, int sources[], int destinations[])
{
    return iso_get(isocomm, "Iso_neighborhood_get", max_s, sources, destinations, 0);
}

NH_EXPORT int Iso_neighborhood_graph_get(MPI_Comm isocomm, int max_s, int sources[],
                                         int destinations[])
{
    return iso_get(isocomm, "Iso_neighborhood_graph_get", max_s, sources, destinations, 1);
}

/* ---- the collectives: one prepared call ---- */

typedef enum { C_ALLTOALL, C_ALLGATHER, C_ALLTOALLV, C_ALLGATHERV, C_ALLTOALLW } call_kind;

/* An nh_impl_MPI_Neighbor_* call with the graph's (compressed) arguments. */
typedef struct call {
    call_kind kind;
    MPI_Comm comm;
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int *scounts, *rcounts, *sdispls, *rdispls; /* v: in extents */
    MPI_Aint *sdisplsa, *rdisplsa;              /* w: in bytes */
    MPI_Datatype *stypes, *rtypes;
} call;

static void call_free(call *c)
{
    free(c->scounts);
    free(c->rcounts);
    free(c->sdispls);
    free(c->rdispls);
    free(c->sdisplsa);
    free(c->rdisplsa);
    free(c->stypes);
    free(c->rtypes);
    memset(c, 0, sizeof(*c));
}

/* Where nhood hands an Iso w call to MPI (nhood disabled, algorithm
 * pmpi, a graph it does not run, such as a mesh too small for any rank to
 * see the whole neighborhood), MPICH 4.0.2's MPI_Neighbor_alltoallw would
 * get it wrong: it swaps the in- and out-degree when they differ (fixed in
 * MPICH 4.1), so at a mesh boundary a rank with more sources than targets
 * receives too few blocks or reads past the arrays.  The Iso layer
 * therefore packs every block into bytes and runs
 * PMPI_Neighbor_alltoallv, which MPICH gets right; nhood's
 * MPI_Neighbor_alltoallw for applications still passes such calls to
 * PMPI_Neighbor_alltoallw unchanged.  Type signatures match pairwise, so
 * a block's packed size is its type size times its count at both ends
 * (homogeneous MPI). */
static int packed_sizes(int n, const int *counts, const MPI_Datatype *types, int *bytes, int *offs,
                        int *total)
{
    long long pos = 0;
    for (int k = 0; k < n; k++) {
        int sz, rc = PMPI_Type_size(types[k], &sz);
        if (rc)
            return rc;
        long long b = (long long)sz * counts[k];
        if (counts[k] < 0 || pos + b > INT_MAX)
            return MPI_ERR_COUNT;
        bytes[k] = (int)b;
        offs[k] = (int)pos;
        pos += b;
    }
    *total = (int)pos;
    return MPI_SUCCESS;
}

static int alltoallw_packed(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int indeg, outdeg, weighted, rc, stot = 0, rtot = 0, pos;
    if ((rc = PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted)))
        return rc; /* through the error handler already */
    int *sb = malloc(sizeof(int) * ((size_t)outdeg + 1)),
        *so = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int *rb = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *ro = malloc(sizeof(int) * ((size_t)indeg + 1));
    char *sp = NULL, *rp = NULL;
    if (!sb || !so || !rb || !ro)
        rc = MPI_ERR_NO_MEM;
    else if (!(rc = packed_sizes(outdeg, sendcounts, sendtypes, sb, so, &stot)) &&
             !(rc = packed_sizes(indeg, recvcounts, recvtypes, rb, ro, &rtot)) &&
             (!(sp = malloc((size_t)stot + 1)) || !(rp = malloc((size_t)rtot + 1))))
        rc = MPI_ERR_NO_MEM;
    if (rc) /* found here, not by an MPI call on comm */
        PMPI_Comm_call_errhandler(comm, rc);
    for (int k = 0; k < outdeg && !rc; k++) {
        pos = so[k];
        if (sendcounts[k] > 0)
            rc = nh_pack((const char *)sendbuf + sdispls[k], sendcounts[k], sendtypes[k], sp, stot,
                         &pos, comm);
    }
    if (!rc)
        rc = PMPI_Neighbor_alltoallv(sp, sb, so, MPI_BYTE, rp, rb, ro, MPI_BYTE, comm);
    for (int k = 0; k < indeg && !rc; k++) {
        pos = ro[k];
        if (recvcounts[k] > 0)
            rc = nh_unpack(rp, rtot, &pos, (char *)recvbuf + rdispls[k], recvcounts[k],
                           recvtypes[k], comm);
    }
    free(sb);
    free(so);
    free(rb);
    free(ro);
    free(sp);
    free(rp);
    return rc;
}

/* The prepared call as nhood's arguments. */
static nh_coll call_args(const call *c, nh_args *a)
{
    static const nh_coll colls[] = {[C_ALLTOALL] = NH_COLL_ALLTOALL,
                                    [C_ALLGATHER] = NH_COLL_ALLGATHER,
                                    [C_ALLTOALLV] = NH_COLL_ALLTOALLV,
                                    [C_ALLGATHERV] = NH_COLL_ALLGATHERV,
                                    [C_ALLTOALLW] = NH_COLL_ALLTOALLW};
    *a = (nh_args){.sbuf = c->sbuf,
                   .rbuf = c->rbuf,
                   .scount = c->scount,
                   .rcount = c->rcount,
                   .stype = c->stype,
                   .rtype = c->rtype,
                   .scounts = c->scounts,
                   .rcounts = c->rcounts,
                   .sdispls = c->sdispls,
                   .rdispls = c->rdispls,
                   .sdisplsw = c->sdisplsa,
                   .rdisplsw = c->rdisplsa,
                   .stypes = c->stypes,
                   .rtypes = c->rtypes};
    return colls[c->kind];
}

/* Where nhood hands the call to MPI. */
static int call_mpi(const call *c)
{
    switch (c->kind) {
    case C_ALLTOALL:
        return PMPI_Neighbor_alltoall(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype,
                                      c->comm);
    case C_ALLGATHER:
        return PMPI_Neighbor_allgather(c->sbuf, c->scount, c->stype, c->rbuf, c->rcount,
                                       c->rtype, c->comm);
    case C_ALLTOALLV:
        return PMPI_Neighbor_alltoallv(c->sbuf, c->scounts, c->sdispls, c->stype, c->rbuf,
                                       c->rcounts, c->rdispls, c->rtype, c->comm);
    case C_ALLGATHERV:
        return PMPI_Neighbor_allgatherv(c->sbuf, c->scount, c->stype, c->rbuf, c->rcounts,
                                        c->rdispls, c->rtype, c->comm);
    case C_ALLTOALLW:
        return alltoallw_packed(c->sbuf, c->scounts, c->sdisplsa, c->stypes, c->rbuf, c->rcounts,
                                c->rdisplsa, c->rtypes, c->comm);
    }
    return MPI_ERR_INTERN;
}

/* Runs the call (form blocking), or makes nhood's persistent request for
 * it (*req); NH_TO_PMPI where nhood does not run it. */
static int call_nhood(const call *c, nh_form form, MPI_Request *req)
{
    nh_args a;
    nh_coll coll = call_args(c, &a);
    return nh_neighbor(coll, form, &a, c->comm, req);
}

static int call_run(const call *c)
{
    int rc = call_nhood(c, NH_FORM_BLOCKING, NULL);
    return rc != NH_TO_PMPI ? rc : call_mpi(c);
}

/* Arrays of n (+1: never a zero-size allocation) elements. */
#define ALLOC(p, n) (((p) = malloc(sizeof(*(p)) * ((size_t)(n) + 1))) != NULL)

static int to_int(const char *fn, long long v, int *out)
{
    if (v < INT_MIN || v > INT_MAX) {
        nh_error("%s: displacement %lld does not fit the MPI call's int", fn, v);
        return MPI_ERR_ARG;
    }
    *out = (int)v;
    return MPI_SUCCESS;
}

/* Which of the user's arrays are given (NULL: the regular form). */
typedef struct uargs {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const int *scounts, *rcounts;
    const MPI_Aint *sdispls, *rdispls;
    const MPI_Datatype *stypes, *rtypes;
} uargs;

static int prepare(const char *fn, nh_iso *I, MPI_Comm comm, call_kind user, const uargs *a,
                   call *c)
{
    int rc = MPI_SUCCESS;
    memset(c, 0, sizeof(*c));
    c->comm = comm;
    c->sbuf = a->sbuf;
    c->rbuf = a->rbuf;
    c->scount = a->scount;
    c->rcount = a->rcount;
    c->stype = a->stype;
    c->rtype = a->rtype;
    if (a->sbuf == MPI_IN_PLACE) {
        nh_error("%s: MPI_IN_PLACE is not applicable", fn);
        return MPI_ERR_BUFFER;
    }
    if ((user == C_ALLTOALL || user == C_ALLGATHER) && !I->nulls) {
        c->kind = user;
        return MPI_SUCCESS;
    }
    int no = I->outdeg, ni = I->indeg;
    /* Receive side: v (extents) unless per-block types are given (w). */
    int w = a->rtypes != NULL || a->stypes != NULL;
    if (!ALLOC(c->rcounts, ni))
        return MPI_ERR_NO_MEM;
    if (w ? !ALLOC(c->rdisplsa, ni) || !ALLOC(c->rtypes, ni) : !ALLOC(c->rdispls, ni))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < ni && !rc; k++) {
        int i = I->sidx[k];
        long long disp = a->rcounts ? (long long)a->rdispls[i] : (long long)i * a->rcount;
        c->rcounts[k] = a->rcounts ? a->rcounts[i] : a->rcount;
        if (w) {
            c->rdisplsa[k] = (MPI_Aint)disp;
            c->rtypes[k] = a->rtypes ? a->rtypes[i] : a->rtype;
        } else {
            rc = to_int(fn, disp, &c->rdispls[k]);
        }
    }
    if (rc)
        return rc;
    if (user == C_ALLGATHER || (user == C_ALLGATHERV && !w)) {
        c->kind = C_ALLGATHERV;
        return MPI_SUCCESS;
    }
    /* Send side (all-to-all forms, and allgatherw as an all-to-all of the
     * same block). */
    int gather = user == C_ALLGATHERV;
    if (!ALLOC(c->scounts, no))
        return MPI_ERR_NO_MEM;
    if (w ? !ALLOC(c->sdisplsa, no) || !ALLOC(c->stypes, no) : !ALLOC(c->sdispls, no))
        return MPI_ERR_NO_MEM;
    for (int k = 0; k < no && !rc; k++) {
        int i = I->tidx[k];
        long long disp = gather       ? 0
                         : a->scounts ? (long long)a->sdispls[i]
                                      : (long long)i * a->scount;
        c->scounts[k] = a->scounts ? a->scounts[i] : a->scount;
        if (w) {
            c->sdisplsa[k] = (MPI_Aint)disp;
            c->stypes[k] = a->stypes ? a->stypes[i] : a->stype;
        } else {
            rc = to_int(fn, disp, &c->sdispls[k]);
        }
    }
    c->kind = w ? C_ALLTOALLW : C_ALLTOALLV;
    return rc;
}

/* Checks the arrays a form needs. */
static int args_ok(const char *fn, call_kind user, const uargs *a, int w)
{
    int v = user == C_ALLTOALLV || user == C_ALLTOALLW || user == C_ALLGATHERV;
    if (v && (!a->rcounts || !a->rdispls || (w && !a->rtypes))) {
        nh_error("%s: NULL receive arrays", fn);
        return MPI_ERR_ARG;
    }
    if ((user == C_ALLTOALLV || user == C_ALLTOALLW) &&
        (!a->scounts || !a->sdispls || (w && !a->stypes))) {
        nh_error("%s: NULL send arrays", fn);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int blocking(const char *fn, MPI_Comm comm, call_kind user, int w, const uargs *a)
{
    int g0 = nh_guard_enter(), rc;
    call c;
    memset(&c, 0, sizeof(c));
    nh_iso *I = nh_iso_get(comm, fn);
    if (!I)
        rc = MPI_ERR_TOPOLOGY;
    else if (!(rc = args_ok(fn, user, a, w)) && !(rc = prepare(fn, I, comm, user, a, &c))) {
        rc = call_run(&c); /* its errors went through the error handler already */
        call_free(&c);
        nh_guard_leave(g0);
        return rc;
    }
    call_free(&c);
    nh_guard_leave(g0);
    return fail(comm, rc);
}

NH_EXPORT int Iso_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                    MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return blocking("Iso_neighbor_alltoall", isocomm, C_ALLTOALL, 0, &a);
}

NH_EXPORT int Iso_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return blocking("Iso_neighbor_allgather", isocomm, C_ALLGATHER, 0, &a);
}

NH_EXPORT int Iso_neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                                     const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                     void *recvbuf, const int recvcounts[],
                                     const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                     MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .stype = sendtype,
               .rtype = recvtype,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls};
    return blocking("Iso_neighbor_alltoallv", isocomm, C_ALLTOALLV, 0, &a);
}

NH_EXPORT int Iso_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                     const MPI_Aint senddispls[], const MPI_Datatype sendtypes[],
                                     void *recvbuf, const int recvcounts[],
                                     const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                     MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls,
               .stypes = sendtypes,
               .rtypes = recvtypes};
    return blocking("Iso_neighbor_alltoallw", isocomm, C_ALLTOALLW, 1, &a);
}

NH_EXPORT int Iso_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const int recvcounts[],
                                      const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                      MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rtype = recvtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls};
    return blocking("Iso_neighbor_allgatherv", isocomm, C_ALLGATHERV, 0, &a);
}

NH_EXPORT int Iso_neighbor_allgatherw(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void *recvbuf, const int recvcounts[],
                                      const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                                      MPI_Comm isocomm)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls,
               .rtypes = recvtypes};
    return blocking("Iso_neighbor_allgatherw", isocomm, C_ALLGATHERV, 1, &a);
}

/* ---- persistent forms ---- */

struct Iso_request_s {
    int mpi;         /* req is a persistent request (nhood's, or MPI's) */
    MPI_Request req; /* mpi */
    call c;          /* otherwise: the prepared call, run by every Iso_start */
};

static int persistent(const char *fn, MPI_Comm comm, call_kind user, int w, const uargs *a,
                      Iso_request *request)
{
    int g0 = nh_guard_enter(), rc;
    struct Iso_request_s *r = NULL;
    nh_iso *I = nh_iso_get(comm, fn);
    if (!I) {
        rc = MPI_ERR_TOPOLOGY;
        goto out;
    }
    if (!request) {
        nh_error("%s: request is NULL", fn);
        rc = MPI_ERR_REQUEST;
        goto out;
    }
    if ((rc = args_ok(fn, user, a, w)))
        goto out;
    if (!(r = calloc(1, sizeof(*r)))) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if ((rc = prepare(fn, I, comm, user, a, &r->c)))
        goto out;
    /* Every form binds once: nhood's persistent request (schedule, struct
     * datatypes or pack buffers, persistent point-to-point requests),
     * started by Iso_start and completed by Iso_wait.  Where nhood does
     * not run the call (NHOOD_DISABLE, algorithm pmpi, a graph it does not
     * run), each Iso_start makes the blocking call. */
    rc = call_nhood(&r->c, NH_FORM_PERSISTENT, &r->req);
    if (rc == NH_TO_PMPI)
        rc = MPI_SUCCESS;
    else if (rc)
        goto out;
    else
        r->mpi = 1;
    *request = r;
    r = NULL;
out:
    if (r) {
        call_free(&r->c);
        free(r);
    }
    nh_guard_leave(g0);
    return rc ? fail(comm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Iso_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                         void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                         MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return persistent("Iso_neighbor_alltoall_init", isocomm, C_ALLTOALL, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                          MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .rcount = recvcount,
               .stype = sendtype,
               .rtype = recvtype};
    return persistent("Iso_neighbor_allgather_init", isocomm, C_ALLGATHER, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                          const MPI_Aint senddispls[], MPI_Datatype sendtype,
                                          void *recvbuf, const int recvcounts[],
                                          const MPI_Aint recvdispls[], MPI_Datatype recvtype,
                                          MPI_Comm isocomm, Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .stype = sendtype,
               .rtype = recvtype,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls};
    return persistent("Iso_neighbor_alltoallv_init", isocomm, C_ALLTOALLV, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_allgatherv_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const int recvcounts[], const MPI_Aint recvdispls[],
                                           MPI_Datatype recvtype, MPI_Comm isocomm,
                                           Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rtype = recvtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls};
    return persistent("Iso_neighbor_allgatherv_init", isocomm, C_ALLGATHERV, 0, &a, request);
}

NH_EXPORT int Iso_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                          const MPI_Aint senddispls[],
                                          const MPI_Datatype sendtypes[], void *recvbuf,
                                          const int recvcounts[], const MPI_Aint recvdispls[],
                                          const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                          Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scounts = sendcounts,
               .rcounts = recvcounts,
               .sdispls = senddispls,
               .rdispls = recvdispls,
               .stypes = sendtypes,
               .rtypes = recvtypes};
    return persistent("Iso_neighbor_alltoallw_init", isocomm, C_ALLTOALLW, 1, &a, request);
}

NH_EXPORT int Iso_neighbor_allgatherw_init(const void *sendbuf, int sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const int recvcounts[], const MPI_Aint recvdispls[],
                                           const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                           Iso_request *request)
{
    uargs a = {.sbuf = sendbuf,
               .rbuf = recvbuf,
               .scount = sendcount,
               .stype = sendtype,
               .rcounts = recvcounts,
               .rdispls = recvdispls,
               .rtypes = recvtypes};
    return persistent("Iso_neighbor_allgatherw_init", isocomm, C_ALLGATHERV, 1, &a, request);
}

NH_EXPORT int Iso_start(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc;
    if (!request || !*request) {
        nh_error("Iso_start: no request");
        rc = MPI_ERR_REQUEST;
    } else if ((*request)->mpi) {
        rc = nh_impl_MPI_Start(&(*request)->req);
    } else {
        rc = call_run(&(*request)->c);
    }
    nh_guard_leave(g0);
    return rc;
}

NH_EXPORT int Iso_wait(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    if (!request || !*request) {
        nh_error("Iso_wait: no request");
        rc = MPI_ERR_REQUEST;
    } else if ((*request)->mpi) {
        rc = nh_impl_MPI_Wait(&(*request)->req, MPI_STATUS_IGNORE);
    }
    nh_guard_leave(g0);
    return rc;
}

NH_EXPORT int Iso_request_free(Iso_request *request)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS;
    if (!request || !*request) {
        nh_error("Iso_request_free: no request");
        rc = MPI_ERR_REQUEST;
    } else {
        if ((*request)->mpi)
            rc = nh_impl_MPI_Request_free(&(*request)->req);
        call_free(&(*request)->c);
        free(*request);
        *request = NULL;
    }
    nh_guard_leave(g0);
    return rc;
}

/* ---- reductions ---- */

static int reduce_common(const char *fn, MPI_Comm comm, int scatter, const void *sendbuf,
                         const int *sendcount, const MPI_Aint *senddisp,
                         const MPI_Datatype *sendtype, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op)
{
    int g0 = nh_guard_enter(), rc = MPI_SUCCESS, commute = 0;
    nh_iso *I = nh_iso_get(comm, fn);
    if (!I) {
        rc = MPI_ERR_TOPOLOGY;
    } else if (sendbuf == MPI_IN_PLACE) {
        nh_error("%s: MPI_IN_PLACE is not applicable (a process reduces its own vector only "
                 "if it is its own neighbor)",
                 fn);
        rc = MPI_ERR_BUFFER;
    } else if (count < 0) {
        nh_error("%s: negative count %d", fn, count);
        rc = MPI_ERR_COUNT;
    } else if (scatter && (!sendcount || !senddisp || !sendtype)) {
        nh_error("%s: NULL send arrays", fn);
        rc = MPI_ERR_ARG;
    } else if ((rc = PMPI_Op_commutative(op, &commute)) == MPI_SUCCESS && !commute) {
        nh_error("%s: the operation is not commutative", fn);
        rc = MPI_ERR_OP;
    }
    if (!rc)
        rc = nh_iso_reduce_run(I, comm, scatter, sendbuf, sendcount, senddisp, sendtype, recvbuf,
                               count, datatype, op);
    nh_guard_leave(g0);
    return rc ? fail(comm, rc) : MPI_SUCCESS;
}

NH_EXPORT int Iso_neighbor_reduce(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op commutative_op, MPI_Comm isocomm)
{
    return reduce_common("Iso_neighbor_reduce", isocomm, 0, sendbuf, NULL, NULL, NULL, recvbuf,
                         count, datatype, commutative_op);
}

NH_EXPORT int Iso_neighbor_scatter_reduce(const void *sendbuf, const int sendcount[],
                                          const MPI_Aint senddisp[], const MPI_Datatype sendtype[],
                                          void *recvbuf, int count, MPI_Datatype datatype,
                                          MPI_Op commutative_op, MPI_Comm isocomm)
{
    return reduce_common("Iso_neighbor_scatter_reduce", isocomm, 1, sendbuf, sendcount, senddisp,
                         sendtype, recvbuf, count, datatype, commutative_op);
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
