/* The isomorphic sparse collectives interface (include/nhood.h): relative
 * neighborhood creation and queries, and the reductions (the Cartesian
 * helpers are in cart.c, the collectives in iso_coll.c).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "iso/iso.h"
#include "nh_impl.h"
#include "nhood.h"
#include "util/memo.h"

/* ---- the attribute ---- */

static int iso_keyval = MPI_KEYVAL_INVALID;
/* nh_iso_get's last answers per thread (util/memo.h); iso_gen bumped
 * where the state leaves a communicator */
static unsigned long iso_gen;
static __thread nh_comm_memo got NH_TLS_FAST;

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
    nh_memo_bump(&iso_gen);
    iso_free(attr);
    return MPI_SUCCESS;
}

NH_HOT nh_iso *nh_iso_get(MPI_Comm comm, const char *fn)
{
    void *v = NULL;
    int flag = 0;
    unsigned long gen = nh_memo_gen(&iso_gen);
    if (nh_memo_find(&got, gen, comm, &v))
        return v;
    if (comm == MPI_COMM_NULL || iso_keyval == MPI_KEYVAL_INVALID ||
        nh_mpi_Comm_get_attr(comm, iso_keyval, &v, &flag) || !flag) {
        nh_error("%s: the communicator was not made by Iso_neighborhood_create", fn);
        return NULL;
    }
    nh_memo_put(&got, comm, v);
    return v;
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
    if ((rc = nh_mpi_Bcast(root, n, MPI_INT, 0, comm)) == MPI_SUCCESS) {
        mine = n == 0 || memcmp(root, off, sizeof(int) * (size_t)n) == 0;
        rc = nh_mpi_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
        if (!rc && !mine) {
            int r;
            nh_mpi_Comm_rank(comm, &r);
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
        I->targets[i] = nh_iso_to_mpi(nh_grid_shift(g, coords, c, +1));
        I->sources[i] = nh_iso_to_mpi(nh_grid_shift(g, coords, c, -1));
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
    nh_grid g;
    nh_iso *I = NULL;
    MPI_Info info = MPI_INFO_NULL;
    int *src = NULL, *dst = NULL;
    if ((rc = nh_iso_cart_info(cartcomm, fn, &g, coords)))
        goto out; /* the same on every rank: the communicator's topology */
    if ((rc = nh_mpi_Comm_rank(cartcomm, &rank)))
        goto out;
    /* Local argument errors and the settings the ranks must share, agreed
     * in one reduction so that every rank fails together. */
    int bad = 0, chk = nh_cfg.check, red = nh_cfg.iso_reduce;
    if (s < 0) {
        nh_error("%s: negative number of neighbors s=%d", fn, s);
        bad = 1;
    } else if (s > 0 && !relative_coordinates) {
        nh_error("%s: relative_coordinates is NULL with s=%d", fn, s);
        bad = 1;
    } else if (!isocomm) {
        nh_error("%s: isocomm is NULL", fn);
        bad = 1;
    }
    enum { F_BAD, F_SMIN, F_SMAX, F_CHECK, F_REDUCE, F_COUNT };
    static const nh_fact facts[F_COUNT] = {
        [F_BAD] = {NH_FACT_MAX, 0},    [F_SMIN] = {NH_FACT_MIN, 0},    [F_SMAX] = {NH_FACT_MAX, 0},
        [F_CHECK] = {NH_FACT_SAME, 0}, [F_REDUCE] = {NH_FACT_SAME, 0},
    };
    long long v[F_COUNT] = {bad, s, s, chk, red}, all[F_COUNT];
    if ((rc = nh_facts_allreduce(facts, F_COUNT, v, all, cartcomm)))
        goto out;
    if (all[F_BAD]) {
        rc = MPI_ERR_ARG;
        goto out;
    }
    if (all[F_SMIN] != all[F_SMAX]) {
        if (rank == 0)
            nh_error("%s: the processes pass different numbers of relative coordinates (s from "
                     "%lld to %lld); every process must pass the same list",
                     fn, all[F_SMIN], all[F_SMAX]);
        rc = MPI_ERR_ARG;
        goto out;
    }
    if (all[F_CHECK] == NH_FACT_DIFFER || all[F_REDUCE] == NH_FACT_DIFFER) {
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
    if ((rc = nh_mpi_Info_create(&info)) || (rc = nh_mpi_Info_set(info, "isomorphic", "true")) ||
        (rc = nh_mpi_Info_set(info, "nhood_dims", dims)) ||
        (rc = nh_mpi_Info_set(info, "nhood_periods", periods)))
        goto out;
    if (iso_keyval == MPI_KEYVAL_INVALID &&
        (rc = nh_mpi_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, iso_delete, &iso_keyval, NULL)))
        goto out;
    MPI_Comm graph = MPI_COMM_NULL;
    if ((rc = nh_graph_adjacent(cartcomm, I->indeg, src, MPI_UNWEIGHTED, I->outdeg, dst,
                                MPI_UNWEIGHTED, info, 0, 1, &graph)))
        goto out;
    if ((rc = nh_mpi_Comm_set_attr(graph, iso_keyval, I))) {
        nh_mpi_Comm_free(&graph);
        goto out;
    }
    I = NULL; /* the attribute owns it */
    *isocomm = graph;
out:
    iso_free(I);
    free(src);
    free(dst);
    if (info != MPI_INFO_NULL)
        nh_mpi_Info_free(&info);
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(cartcomm, rc) : MPI_SUCCESS;
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
    return rc ? nh_iso_fail(isocomm, rc) : MPI_SUCCESS;
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
    return rc ? nh_iso_fail(isocomm, rc) : MPI_SUCCESS;
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
    } else if ((rc = nh_mpi_Op_commutative(op, &commute)) == MPI_SUCCESS && !commute) {
        nh_error("%s: the operation is not commutative", fn);
        rc = MPI_ERR_OP;
    }
    if (!rc)
        rc = nh_iso_reduce_run(I, comm, scatter, sendbuf, sendcount, senddisp, sendtype, recvbuf,
                               count, datatype, op);
    nh_guard_leave(g0);
    return rc ? nh_iso_fail(comm, rc) : MPI_SUCCESS;
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
