/* SMPI build only (make smpi): what SimGrid's SMPI lacks and nhood needs.
 *
 * SMPI 3.32 aborts in MPI_Dist_graph_create_adjacent, MPI_Dist_graph_create,
 * the distributed-graph neighbor queries and MPI_Topo_test.  In this mode
 * nhood is linked into the program (not preloaded) with -Bsymbolic, so the
 * PMPI_* definitions below take the place of SMPI's for everything in the
 * program: nhood's own calls and the program's.
 *
 *  - A distributed-graph communicator is a new context on the old
 *    communicator's group (ranks kept: reordering is allowed, not
 *    required) with the adjacency stored in an attribute; the neighbor
 *    queries read it.
 *  - The neighborhood collectives are MPICH's linear algorithm
 *    (MPIR_Ineighbor_*_sched_linear): one message per destination and one
 *    per source in list order, one tag, one MPI_Waitall, in a private
 *    context (one on the old communicator's group, shared by its graphs,
 *    each graph with its own tag).  This is the "native" baseline of the simulated benchmarks.
 *    MPICH posts the sends first; with eager-sized messages that costs
 *    nothing on a real network (early data waits in the unexpected queue),
 *    but SimGrid starts a transfer only once its receive is posted unless
 *    eager buffering (smpi/async-small-thresh) is on, so the receives are
 *    posted first here: the closest rendering of MPICH's eager exchange in
 *    either mode (see docs/simulation.md).
 *
 * The MPI_* names below route the program's direct calls here.  SMPI's
 * mpi.h declares every MPI_* function weak, so these and nhood's
 * interception (src/intercept) are all weak definitions: smpi.mk links
 * nhood's objects before this one, and the linker keeps the first, so
 * nhood's entry points win where both exist. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "nhood.h"
#include "smpi/compat.h"
#include "util/resource.h"

#define NH_WEAK __attribute__((weak))

/* A new context on comm's ranks that shares comm's group: MPI_Comm_create
 * with that group.  SMPI copies the group at every MPI_Comm_dup and
 * MPI_Comm_split (12 bytes per rank of it, in every rank: O(ranks^2) in
 * all, 3 GiB per copy at 16,384 ranks); a communicator made from a group
 * holds a reference to it instead.  The error handler goes along, as with
 * a duplicate; attributes do not (graph creation copies none).  Also
 * nhood's private duplicates in this build (util/resource.c), on which
 * nhood only sends, receives and runs collectives: it reads topologies
 * from the program's communicators. */
int nh_smpi_comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    MPI_Group grp = MPI_GROUP_NULL;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc;
    *out = MPI_COMM_NULL;
    if (!(rc = PMPI_Comm_group(comm, &grp)) && !(rc = PMPI_Comm_create(comm, grp, out)) &&
        !(rc = PMPI_Comm_get_errhandler(comm, &eh)))
        rc = PMPI_Comm_set_errhandler(*out, eh);
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    if (grp != MPI_GROUP_NULL)
        PMPI_Group_free(&grp);
    if (rc && *out != MPI_COMM_NULL)
        PMPI_Comm_free(out);
    return rc;
}

typedef struct graph {
    int refs;
    int indeg, outdeg, weighted;
    int *srcs, *sw, *dsts, *dw;
    struct pctx *px; /* private context for the linear collectives */
    int tag;         /* this graph's messages in it */
} graph;

/* The linear collectives of every graph made from one communicator share
 * one private context on it (nh_smpi_comm_dup), each graph with a tag of
 * its own.  A duplicate of a graph communicator shares its graph, tag
 * included. */
typedef struct pctx {
    int refs, next_tag;
    MPI_Comm comm;
} pctx;

static int graph_keyval = MPI_KEYVAL_INVALID, pctx_keyval = MPI_KEYVAL_INVALID;

static void pctx_unref(pctx *c)
{
    if (!c || --c->refs > 0)
        return;
    PMPI_Comm_free(&c->comm);
    free(c);
}

static int pctx_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    pctx_unref(attr);
    return MPI_SUCCESS;
}

/* comm's private context, made at its first graph (collective over comm,
 * as the graph's creation is); a reference for the caller */
static int pctx_get(MPI_Comm comm, pctx **out)
{
    void *v;
    int rc, flag = 0;
    pctx *c;
    if (pctx_keyval == MPI_KEYVAL_INVALID &&
        (rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pctx_delete, &pctx_keyval, NULL)))
        return rc;
    if ((rc = PMPI_Comm_get_attr(comm, pctx_keyval, &v, &flag)))
        return rc;
    if (flag) {
        c = v;
    } else {
        if (!(c = calloc(1, sizeof(*c))))
            return MPI_ERR_NO_MEM;
        if ((rc = nh_smpi_comm_dup(comm, &c->comm))) {
            free(c);
            return rc;
        }
        c->refs = 1; /* the attribute's */
        if ((rc = PMPI_Comm_set_attr(comm, pctx_keyval, c))) {
            pctx_unref(c);
            return rc;
        }
    }
    c->refs++;
    *out = c;
    return MPI_SUCCESS;
}

static void graph_unref(graph *g)
{
    if (!g || --g->refs > 0)
        return;
    pctx_unref(g->px);
    free(g->srcs);
    free(g->sw);
    free(g->dsts);
    free(g->dw);
    free(g);
}

/* MPI_Comm_dup of a graph communicator keeps its topology: share it. */
static int graph_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    ((graph *)in)->refs++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int graph_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    graph_unref(attr);
    return MPI_SUCCESS;
}

static graph *graph_of(MPI_Comm comm)
{
    void *v;
    int flag = 0;
    if (graph_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, graph_keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return v;
}

static int *dup_ints(const int *v, int n, int fill)
{
    int *out = malloc(sizeof(int) * ((size_t)n + 1));
    if (out)
        for (int i = 0; i < n; i++)
            out[i] = v ? v[i] : fill;
    return out;
}

static int weights_given(const int *w)
{
    return w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
}

/* Takes ownership of the four arrays (freed on failure too). */
static int graph_attach(MPI_Comm comm_old, int indeg, int *srcs, int *sw, int outdeg, int *dsts,
                        int *dw, int weighted, MPI_Comm *out)
{
    int rc;
    graph *g = calloc(1, sizeof(*g));
    *out = MPI_COMM_NULL;
    if (!g || !srcs || !sw || !dsts || !dw) {
        free(g);
        free(srcs);
        free(sw);
        free(dsts);
        free(dw);
        return MPI_ERR_NO_MEM;
    }
    g->refs = 1;
    g->indeg = indeg;
    g->outdeg = outdeg;
    g->weighted = weighted;
    g->srcs = srcs;
    g->sw = sw;
    g->dsts = dsts;
    g->dw = dw;
    g->px = NULL;
    if (graph_keyval == MPI_KEYVAL_INVALID &&
        (rc = PMPI_Comm_create_keyval(graph_copy, graph_delete, &graph_keyval, NULL)))
        goto fail;
    if ((rc = pctx_get(comm_old, &g->px)))
        goto fail;
    g->tag = g->px->next_tag++ & 0xfffff; /* every rank makes comm_old's graphs in one order */
    if ((rc = nh_smpi_comm_dup(comm_old, out)))
        goto fail;
    if ((rc = PMPI_Comm_set_attr(*out, graph_keyval, g))) {
        PMPI_Comm_free(out);
        goto fail;
    }
    return MPI_SUCCESS;
fail:
    graph_unref(g);
    return rc;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)info;
    (void)reorder;
    int weighted = weights_given(sourceweights) || weights_given(destweights);
    return graph_attach(comm_old, indegree, dup_ints(sources, indegree, 0),
                        dup_ints(weights_given(sourceweights) ? sourceweights : NULL, indegree, 1),
                        outdegree, dup_ints(destinations, outdegree, 0),
                        dup_ints(weights_given(destweights) ? destweights : NULL, outdegree, 1),
                        weighted, comm_dist_graph);
}

/* The general constructor: every rank names some edges (sources[i] ->
 * destinations); an all-to-all of edge lists tells every rank its in- and
 * out-edges.  Neighbor order is source-rank order, then the order the
 * edges were given, which the standard leaves to the implementation. */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    (void)info;
    (void)reorder;
    int p, rc = MPI_ERR_NO_MEM, weighted = weights_given(weights), nedges = 0;
    if ((rc = PMPI_Comm_size(comm_old, &p)))
        return rc;
    for (int i = 0; i < n; i++)
        nedges += degrees[i];
    /* Each edge (s, d, w) goes to s (as an out-edge) and to d (as an in-edge). */
    int *scount = calloc((size_t)p, sizeof(int)), *rcount = calloc((size_t)p, sizeof(int));
    int *sdispl = calloc((size_t)p + 1, sizeof(int)), *rdispl = calloc((size_t)p + 1, sizeof(int));
    int *sbuf = malloc(sizeof(int) * (6 * (size_t)nedges + 1)), *rbuf = NULL;
    int *cursor = calloc((size_t)p, sizeof(int));
    int *srcs = NULL, *sw = NULL, *dsts = NULL, *dw = NULL;
    rc = MPI_ERR_NO_MEM;
    if (!scount || !rcount || !sdispl || !rdispl || !sbuf || !cursor)
        goto out;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            scount[sources[i]] += 4;
            scount[destinations[e]] += 4;
        }
    for (int r = 0; r < p; r++)
        sdispl[r + 1] = sdispl[r] + scount[r];
    /* Records of 4 ints: kind (0 out, 1 in), source, destination, weight. */
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            int rec[2][4] = {{0, sources[i], destinations[e], weighted ? weights[e] : 1},
                             {1, sources[i], destinations[e], weighted ? weights[e] : 1}};
            int to[2] = {sources[i], destinations[e]};
            for (int j = 0; j < 2; j++) {
                memcpy(sbuf + sdispl[to[j]] + cursor[to[j]], rec[j], sizeof(rec[j]));
                cursor[to[j]] += 4;
            }
        }
    if ((rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm_old)))
        goto out;
    for (int r = 0; r < p; r++)
        rdispl[r + 1] = rdispl[r] + rcount[r];
    rc = MPI_ERR_NO_MEM;
    if (!(rbuf = malloc(sizeof(int) * ((size_t)rdispl[p] + 1))))
        goto out;
    if ((rc = PMPI_Alltoallv(sbuf, scount, sdispl, MPI_INT, rbuf, rcount, rdispl, MPI_INT,
                             comm_old)))
        goto out;
    int indeg = 0, outdeg = 0, nrec = rdispl[p] / 4;
    for (int i = 0; i < nrec; i++)
        *(rbuf[4 * i] ? &indeg : &outdeg) += 1;
    srcs = malloc(sizeof(int) * ((size_t)indeg + 1));
    sw = malloc(sizeof(int) * ((size_t)indeg + 1));
    dsts = malloc(sizeof(int) * ((size_t)outdeg + 1));
    dw = malloc(sizeof(int) * ((size_t)outdeg + 1));
    if (srcs && sw && dsts && dw) {
        int ni = 0, no = 0;
        for (int i = 0; i < nrec; i++) {
            const int *rec = rbuf + 4 * i;
            if (rec[0]) {
                srcs[ni] = rec[1];
                sw[ni++] = rec[3];
            } else {
                dsts[no] = rec[2];
                dw[no++] = rec[3];
            }
        }
    }
    int allw;
    if ((rc = PMPI_Allreduce(&weighted, &allw, 1, MPI_INT, MPI_MAX, comm_old)))
        goto out;
    rc = graph_attach(comm_old, indeg, srcs, sw, outdeg, dsts, dw, allw, comm_dist_graph);
    srcs = sw = dsts = dw = NULL; /* owned by graph_attach now */
out:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(sbuf);
    free(rbuf);
    free(cursor);
    free(srcs);
    free(sw);
    free(dsts);
    free(dw);
    return rc;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    graph *g = graph_of(comm);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    *indegree = g->indeg;
    *outdegree = g->outdeg;
    *weighted = g->weighted;
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    graph *g = graph_of(comm);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    for (int i = 0; i < g->indeg && i < maxindegree; i++) {
        sources[i] = g->srcs[i];
        if (weights_given(sourceweights))
            sourceweights[i] = g->sw[i];
    }
    for (int i = 0; i < g->outdeg && i < maxoutdegree; i++) {
        destinations[i] = g->dsts[i];
        if (weights_given(destweights))
            destweights[i] = g->dw[i];
    }
    return MPI_SUCCESS;
}

/* Cartesian communicators are marked when created (MPI_Cart_create and
 * MPI_Cart_sub below): SMPI has no MPI_Topo_test, and asking it for the
 * Cartesian dimensions of another communicator logs a warning. */
static int cart_keyval = MPI_KEYVAL_INVALID;

static int mark_cart(MPI_Comm comm)
{
    int rc;
    if (comm == MPI_COMM_NULL)
        return MPI_SUCCESS;
    if (cart_keyval == MPI_KEYVAL_INVALID &&
        (rc =
             PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &cart_keyval, NULL)))
        return rc;
    return PMPI_Comm_set_attr(comm, cart_keyval, NULL);
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    void *v;
    int flag = 0;
    *status = MPI_UNDEFINED;
    if (graph_of(comm))
        *status = MPI_DIST_GRAPH;
    else if (cart_keyval != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL &&
             PMPI_Comm_get_attr(comm, cart_keyval, &v, &flag) == MPI_SUCCESS && flag)
        *status = MPI_CART;
    return MPI_SUCCESS;
}

/* ---- MPICH's linear neighborhood collectives ---- */

/* Posts the linear exchange's receives and sends: *req (malloc'ed, the
 * caller frees it) gets *n requests, also on error (those posted). */
int nh_smpi_linear_post(MPI_Comm comm, const lin_args *a, MPI_Request **req_out, int *n_out)
{
    graph *g = graph_of(comm);
    MPI_Aint lb, sext = 0, rext = 0;
    int rc = MPI_SUCCESS, n = 0;
    *req_out = NULL;
    *n_out = 0;
    if (!g)
        return MPI_ERR_TOPOLOGY;
    if ((a->stype != MPI_DATATYPE_NULL && (rc = PMPI_Type_get_extent(a->stype, &lb, &sext))) ||
        (a->rtype != MPI_DATATYPE_NULL && (rc = PMPI_Type_get_extent(a->rtype, &lb, &rext))))
        return rc;
    MPI_Request *req = malloc(sizeof(MPI_Request) * ((size_t)g->indeg + g->outdeg + 1));
    if (!req)
        return MPI_ERR_NO_MEM;
    for (int l = 0; l < g->indeg && !rc; l++) {
        char *b = a->rbuf;
        int count = a->rcounts ? a->rcounts[l] : a->rcount;
        MPI_Datatype t = a->rtypes ? a->rtypes[l] : a->rtype;
        if (a->rdispls)
            b += a->rdispls[l];
        else if (a->rdispl_ext)
            b += a->rdispl_ext[l] * rext;
        else
            b += (MPI_Aint)l * a->rcount * rext;
        rc = PMPI_Irecv(b, count, t, g->srcs[l], g->tag, g->px->comm, &req[n++]);
    }
    for (int k = 0; k < g->outdeg && !rc; k++) {
        const char *b = a->sbuf;
        int count = a->scounts ? a->scounts[k] : a->scount;
        MPI_Datatype t = a->stypes ? a->stypes[k] : a->stype;
        if (a->sdispls)
            b += a->sdispls[k];
        else if (a->sdispl_ext)
            b += a->sdispl_ext[k] * sext;
        else if (!a->gather)
            b += (MPI_Aint)k * a->scount * sext;
        rc = PMPI_Isend(b, count, t, g->dsts[k], g->tag, g->px->comm, &req[n++]);
    }
    *req_out = req;
    *n_out = n;
    return rc;
}

static int linear(MPI_Comm comm, const lin_args *a)
{
    MPI_Request *req;
    int n, rc = nh_smpi_linear_post(comm, a, &req, &n);
    if (n) {
        int wrc = PMPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        rc = rc ? rc : wrc;
    }
    free(req);
    return rc;
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    lin_args a = lin_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    return linear(comm, &a);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    lin_args a = {.sbuf = sendbuf,
                  .rbuf = recvbuf,
                  .scount = sendcount,
                  .rcount = recvcount,
                  .stype = sendtype,
                  .rtype = recvtype,
                  .gather = 1};
    return linear(comm, &a);
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    lin_args a = lin_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype);
    return linear(comm, &a);
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    lin_args a = {.sbuf = sendbuf,
                  .rbuf = recvbuf,
                  .scounts = sendcounts,
                  .rcounts = recvcounts,
                  .sdispls = sdispls,
                  .rdispls = rdispls,
                  .stype = MPI_DATATYPE_NULL,
                  .rtype = MPI_DATATYPE_NULL,
                  .stypes = sendtypes,
                  .rtypes = recvtypes};
    return linear(comm, &a);
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    lin_args a = {.sbuf = sendbuf,
                  .rbuf = recvbuf,
                  .scount = sendcount,
                  .rcounts = recvcounts,
                  .rdispl_ext = displs,
                  .stype = sendtype,
                  .rtype = recvtype,
                  .gather = 1};
    return linear(comm, &a);
}

/* ---- the program's direct calls (nhood's interception overrides) ---- */

NH_WEAK int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                           const int sourceweights[], int outdegree,
                                           const int destinations[], const int destweights[],
                                           MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    return PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights, outdegree,
                                           destinations, destweights, info, reorder,
                                           comm_dist_graph);
}

NH_WEAK int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                  const int degrees[], const int destinations[],
                                  const int weights[], MPI_Info info, int reorder,
                                  MPI_Comm *comm_dist_graph)
{
    return PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights, info,
                                  reorder, comm_dist_graph);
}

NH_WEAK int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree,
                                           int *weighted)
{
    return PMPI_Dist_graph_neighbors_count(comm, indegree, outdegree, weighted);
}

NH_WEAK int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                     int sourceweights[], int maxoutdegree, int destinations[],
                                     int destweights[])
{
    return PMPI_Dist_graph_neighbors(comm, maxindegree, sources, sourceweights, maxoutdegree,
                                     destinations, destweights);
}

NH_WEAK int MPI_Topo_test(MPI_Comm comm, int *status)
{
    return PMPI_Topo_test(comm, status);
}

NH_WEAK int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                            int reorder, MPI_Comm *comm_cart)
{
    int rc = PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart);
    return rc ? rc : mark_cart(*comm_cart);
}

NH_WEAK int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *comm_new)
{
    int rc = PMPI_Cart_sub(comm, remain_dims, comm_new);
    return rc ? rc : mark_cart(*comm_new);
}

NH_WEAK int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm)
{
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

NH_WEAK int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm)
{
    return PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm);
}

NH_WEAK int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm);
}

NH_WEAK int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                   rdispls, recvtypes, comm);
}

NH_WEAK int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
}

/* Programs look nhood's queries up with dlsym(RTLD_DEFAULT, ...), which
 * finds a preloaded library; here nhood is linked into a program that SMPI
 * dlopens privately, so src/smpi/prog.h routes those lookups here. */
void *nh_smpi_dlsym(void *handle, const char *name)
{
    if (strcmp(name, "nhood_comm_query") == 0)
        return (void *)nhood_comm_query;
    if (strcmp(name, "nhood_algorithm_for") == 0)
        return (void *)nhood_algorithm_for;
    if (strcmp(name, "nhood_cost_terms") == 0)
        return (void *)nhood_cost_terms;
    if (strcmp(name, "nhood_cost_phases") == 0)
        return (void *)nhood_cost_phases;
    if (strcmp(name, "nhood_fingerprint") == 0)
        return (void *)nhood_fingerprint;
    return dlsym(handle, name);
}
