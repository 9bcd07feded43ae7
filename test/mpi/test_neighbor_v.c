/* MPI test, run preloaded: MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw
 * and MPI_Neighbor_allgatherv results must be bit-identical, on poisoned
 * buffers with gaps, to the MPI standard's point-to-point equivalent and
 * to PMPI's (where PMPI is right: MPICH 4.0.2 reverses the receive order
 * of duplicate edges, and its alltoallw mixes up in- and out-degree when
 * they differ).  Counts differ per rank, per neighbor and per call (zeros
 * included), displacements leave gaps and run backwards, types are
 * predefined, vector and indexed, and a block may be sent with one type
 * and received with another of the same signature.  Graphs: the named
 * neighborhoods on inferred grids (with shuffled source lists), a
 * Cartesian mesh, duplicates and self edges, an irregular and an empty
 * graph, MPI_PROC_NULL neighbors where MPI accepts them, and graphs created
 * with isomorphic=true (then counts are uniform per neighbor index, as the
 * hint promises).
 * Prints "N passed, N failed" on rank 0 (totals over ranks). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nhood.h"

enum { ALLTOALLV, ALLTOALLW, ALLGATHERV };
static const char *const opnames[] = {"alltoallv", "alltoallw", "allgatherv"};

static int rank, p;
/* How nhood's side is called: MPI_Neighbor_* (blocking), MPI_Ineighbor_*
 * + MPI_Wait or an MPI_Test loop (nonblocking), or one
 * MPI_Neighbor_*_init request started for every call (persistent). */
enum { BLOCKING, NONBLOCKING, PERSISTENT };
static int form = BLOCKING;
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);
static MPI_Datatype vec7, idx4; /* 7 ints stride 2; 4 ints in an extent of 6 */

/* A graph and its neighbor lists. */
typedef struct graph {
    MPI_Comm g;
    int indeg, outdeg;
    int *src, *dst;
    int hinted;       /* counts uniform per neighbor index */
    int *tdst, *tsrc; /* hinted: template entry of each list index (NULL: the index itself) */
} graph;

static void graph_init(graph *x, MPI_Comm g, int hinted)
{
    int w;
    x->g = g;
    x->hinted = hinted;
    x->tdst = x->tsrc = NULL;
    MPI_Dist_graph_neighbors_count(g, &x->indeg, &x->outdeg, &w);
    x->src = malloc(sizeof(int) * (x->indeg + 1));
    x->dst = malloc(sizeof(int) * (x->outdeg + 1));
    int *sw = malloc(sizeof(int) * (x->indeg + 1)), *dw = malloc(sizeof(int) * (x->outdeg + 1));
    MPI_Dist_graph_neighbors(g, x->indeg, x->src, sw, x->outdeg, x->dst, dw);
    free(sw);
    free(dw);
}

static void graph_fini(graph *x)
{
    MPI_Comm_free(&x->g);
    free(x->src);
    free(x->dst);
    free(x->tdst);
    free(x->tsrc);
}

/* One call's arguments (w form; v and allgatherv use entry 0's type and
 * displacements in extents). */
typedef struct args {
    int n;
    int *counts;
    int *idispls;      /* v, allgatherv: in extents */
    MPI_Aint *bdispls; /* w: in bytes */
    MPI_Datatype *types;
    size_t bytes; /* buffer size */
} args;

/* Count of an edge: a function of both ends (so both know it) and the
 * call, with zeros; hinted graphs: of the neighbor index only. */
static int edge_count(const graph *x, int from, int to, int index, int seed)
{
    if (x->hinted)
        return (index * 3 + seed) % 5;
    return ((from * 7 + to * 3 + seed * 5) % 6 + 6) % 6; /* MPI_PROC_NULL ends are negative */
}

/* Type of an edge for w: both ends pick the type, a receiver may use an
 * equivalent one (same signature). */
static MPI_Datatype edge_type(const graph *x, int from, int to, int index, int recv, int *ints)
{
    int k = x->hinted ? index : from + 2 * to;
    switch ((k % 4 + 4) % 4) {
    case 0:
        *ints = 1;
        return MPI_INT;
    case 1:
        *ints = 7;
        return recv ? (MPI_Datatype)MPI_DATATYPE_NULL : vec7; /* received as 7 MPI_INTs */
    case 2:
        *ints = 4;
        return idx4;
    default:
        *ints = 7;
        return vec7;
    }
}

static void args_alloc(args *a, int n)
{
    a->n = n;
    a->counts = calloc((size_t)n + 1, sizeof(int));
    a->idispls = calloc((size_t)n + 1, sizeof(int));
    a->bdispls = calloc((size_t)n + 1, sizeof(MPI_Aint));
    a->types = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
    for (int i = 0; i <= n; i++)
        a->types[i] = MPI_INT;
}

static void args_free(args *a)
{
    free(a->counts);
    free(a->idispls);
    free(a->bdispls);
    free(a->types);
}

/* Displacements backwards with a gap of one extent per block: the last
 * block first. */
static void layout(args *a, int w, MPI_Datatype vtype)
{
    MPI_Aint lb, ext;
    size_t pos = 0;
    for (int i = a->n - 1; i >= 0; i--) {
        MPI_Type_get_extent(w ? a->types[i] : vtype, &lb, &ext);
        if (w)
            a->bdispls[i] = (MPI_Aint)pos;
        else
            a->idispls[i] = (int)(pos / (size_t)ext);
        pos += (size_t)ext * (a->counts[i] + 1);
        if (!w)
            pos = (pos + (size_t)ext - 1) / (size_t)ext * (size_t)ext;
    }
    a->bytes = pos + 16;
}

/* The standard's equivalent: receives in source order, sends in
 * destination order, one tag, so duplicate edges match in order. */
static void reference(int op, const graph *x, const void *sbuf, const args *s, void *rbuf,
                      const args *r)
{
    MPI_Request *req = malloc(sizeof(MPI_Request) * (x->indeg + x->outdeg + 1));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (x->indeg + x->outdeg + 1));
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(s->types[0], &lb, &sext);
    MPI_Type_get_extent(r->types[0], &lb, &rext);
    for (int k = 0; k < x->indeg; k++) {
        int w = op == ALLTOALLW;
        PMPI_Irecv((char *)rbuf + (w ? r->bdispls[k] : r->idispls[k] * rext), r->counts[k],
                   r->types[w ? k : 0], x->src[k], 0, x->g, &req[k]);
    }
    for (int k = 0; k < x->outdeg; k++) {
        if (op == ALLGATHERV)
            PMPI_Isend(sbuf, s->counts[0], s->types[0], x->dst[k], 0, x->g, &req[x->indeg + k]);
        else if (op == ALLTOALLW)
            PMPI_Isend((const char *)sbuf + s->bdispls[k], s->counts[k], s->types[k], x->dst[k], 0,
                       x->g, &req[x->indeg + k]);
        else
            PMPI_Isend((const char *)sbuf + s->idispls[k] * sext, s->counts[k], s->types[0],
                       x->dst[k], 0, x->g, &req[x->indeg + k]);
    }
    PMPI_Waitall(x->indeg + x->outdeg, req, st);
    free(req);
    free(st);
}

typedef int (*vfn)(const void *, const int *, const int *, MPI_Datatype, void *, const int *,
                   const int *, MPI_Datatype, MPI_Comm);
typedef int (*wfn)(const void *, const int *, const MPI_Aint *, const MPI_Datatype *, void *,
                   const int *, const MPI_Aint *, const MPI_Datatype *, MPI_Comm);
typedef int (*gfn)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype,
                   MPI_Comm);

static int call(int nhood, int op, const graph *x, const void *sbuf, const args *s, void *rbuf,
                const args *r)
{
    if (op == ALLTOALLV) {
        vfn f = nhood ? MPI_Neighbor_alltoallv : PMPI_Neighbor_alltoallv;
        return f(sbuf, s->counts, s->idispls, s->types[0], rbuf, r->counts, r->idispls, r->types[0],
                 x->g);
    }
    if (op == ALLTOALLW) {
        wfn f = nhood ? MPI_Neighbor_alltoallw : PMPI_Neighbor_alltoallw;
        return f(sbuf, s->counts, s->bdispls, s->types, rbuf, r->counts, r->bdispls, r->types,
                 x->g);
    }
    gfn f = nhood ? MPI_Neighbor_allgatherv : PMPI_Neighbor_allgatherv;
    return f(sbuf, s->counts[0], s->types[0], rbuf, r->counts, r->idispls, r->types[0], x->g);
}

/* nhood's side in the test's form.  *req: the persistent request, made by
 * the first call and started by every call (freed by the caller).  A
 * nonblocking call completes by MPI_Wait or, every other time, by an
 * MPI_Test loop. */
static int call_form(int op, const graph *x, const void *sbuf, const args *s, void *rbuf,
                     const args *r, MPI_Request *req)
{
    static int tests;
    int rc = MPI_SUCCESS;
    MPI_Request nb = MPI_REQUEST_NULL;
    if (form == BLOCKING)
        return call(1, op, x, sbuf, s, rbuf, r);
    if (form == NONBLOCKING) {
        if (op == ALLTOALLV)
            rc = MPI_Ineighbor_alltoallv(sbuf, s->counts, s->idispls, s->types[0], rbuf, r->counts,
                                         r->idispls, r->types[0], x->g, &nb);
        else if (op == ALLTOALLW)
            rc = MPI_Ineighbor_alltoallw(sbuf, s->counts, s->bdispls, s->types, rbuf, r->counts,
                                         r->bdispls, r->types, x->g, &nb);
        else
            rc = MPI_Ineighbor_allgatherv(sbuf, s->counts[0], s->types[0], rbuf, r->counts,
                                          r->idispls, r->types[0], x->g, &nb);
        if (rc)
            return rc;
        if (tests++ % 2 == 0)
            return MPI_Wait(&nb, MPI_STATUS_IGNORE);
        for (int flag = 0; !flag && !rc;)
            rc = MPI_Test(&nb, &flag, MPI_STATUS_IGNORE);
        return rc;
    }
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (*req == MPI_REQUEST_NULL) {
        if (op == ALLTOALLV)
            rc = MPI_Neighbor_alltoallv_init(sbuf, s->counts, s->idispls, s->types[0], rbuf,
                                             r->counts, r->idispls, r->types[0], x->g,
                                             MPI_INFO_NULL, req);
        else if (op == ALLTOALLW)
            rc = MPI_Neighbor_alltoallw_init(sbuf, s->counts, s->bdispls, s->types, rbuf,
                                             r->counts, r->bdispls, r->types, x->g, MPI_INFO_NULL,
                                             req);
        else
            rc = MPI_Neighbor_allgatherv_init(sbuf, s->counts[0], s->types[0], rbuf, r->counts,
                                              r->idispls, r->types[0], x->g, MPI_INFO_NULL, req);
        if (rc)
            return rc;
    }
    if ((rc = MPI_Start(req)))
        return rc;
    return MPI_Wait(req, MPI_STATUS_IGNORE);
#else
    (void)req;
    return MPI_ERR_OTHER;
#endif
}

/* kind for v and allgatherv: 0 MPI_INT both sides, 1 vec7 both sides,
 * 2 MPI_INT sent against vec7 received (7 ints per element). */
static void one(const char *what, int op, const graph *x, int kind, int seed, int pmpi_ok,
                int pmpi_broken)
{
    args s, r;
    int w = op == ALLTOALLW, ns = op == ALLGATHERV ? 1 : x->outdeg;
    MPI_Datatype st = kind == 1 ? vec7 : MPI_INT, rt = kind == 0 ? MPI_INT : vec7;
    int smul = kind == 2 ? 7 : 1; /* send elements per receive element */
    args_alloc(&s, ns > x->indeg ? ns : x->indeg);
    args_alloc(&r, x->indeg > ns ? x->indeg : ns);
    s.n = ns;
    r.n = x->indeg;
    /* allgatherv: one count per rank, uniform under the hint. */
    int gcount = x->hinted ? 3 + seed % 2 : (rank * 5 + seed) % 4;
    for (int i = 0; i < ns; i++) {
        int ti = x->tdst ? x->tdst[i] : i;
        int c = op == ALLGATHERV ? gcount : edge_count(x, rank, x->dst[i], ti, seed);
        if (w) {
            int ints;
            s.types[i] = edge_type(x, rank, x->dst[i], ti, 0, &ints);
            s.counts[i] = c;
        } else {
            s.types[i] = st;
            s.counts[i] = c * smul;
        }
    }
    for (int j = 0; j < x->indeg; j++) {
        int tj = x->tsrc ? x->tsrc[j] : j;
        int c = op == ALLGATHERV ? (x->hinted ? gcount : ((x->src[j] * 5 + seed) % 4 + 4) % 4)
                                 : edge_count(x, x->src[j], rank, tj, seed);
        if (w) {
            int ints;
            MPI_Datatype t = edge_type(x, x->src[j], rank, tj, 1, &ints);
            if (t == MPI_DATATYPE_NULL) {
                r.types[j] = MPI_INT;
                r.counts[j] = c * ints;
            } else {
                r.types[j] = t;
                r.counts[j] = c;
            }
        } else {
            r.types[j] = rt;
            r.counts[j] = c;
        }
    }
    layout(&s, w, st);
    layout(&r, w, rt);
    unsigned char *sbuf = malloc(s.bytes), *ref = malloc(r.bytes), *got = malloc(r.bytes),
                  *pm = malloc(r.bytes);
    for (size_t i = 0; i < s.bytes; i++)
        sbuf[i] = (unsigned char)(rank * 31 + i * 7 + seed);
    memset(ref, 0xA5, r.bytes);
    memset(got, 0xA5, r.bytes);
    memset(pm, 0xA5, r.bytes);
    char algo[32] = "pmpi", qname[32];
    snprintf(qname, sizeof(qname), "%s%s%s", form == NONBLOCKING ? "i" : "", opnames[op],
             form == PERSISTENT ? "_init" : "");
    if (algo_for)
        algo_for(x->g, qname, 64, algo, sizeof(algo));
    int passthrough = strcmp(algo, "pmpi") == 0;
    if (passthrough && pmpi_broken) /* MPICH 4.0.2's alltoallw with in- != out-degree hangs */
        goto out;
    if (passthrough && !mpi_topology_ok(x->g)) { /* MPI's own exchange fails here (common.h) */
        CHECK(forced_mpi(algo_for != NULL), "%s %s: handed to MPI, which fails on this graph",
              what, opnames[op]);
        goto out;
    }
    if (getenv("NH_TEST_VERBOSE") && rank == 0)
        fprintf(stderr, "  %s kind %d seed %d (%s)\n", opnames[op], kind, seed, algo);
    reference(op, x, sbuf, &s, ref, &r);
    if (pmpi_ok)
        CHECK(call(0, op, x, sbuf, &s, pm, &r) == MPI_SUCCESS, "%s %s: PMPI failed", what,
              opnames[op]);
    MPI_Request preq = MPI_REQUEST_NULL;
    int rc = call_form(op, x, sbuf, &s, got, &r, &preq);
    CHECK(rc == MPI_SUCCESS, "%s %s: rc %d", what, opnames[op], rc);
    /* Passed to MPI on repeated edges, the result is MPI's, which orders
     * them as it likes, MPICH differently from call to call (4.0.2 in its
     * nonblocking and persistent forms, 4.2.1 in every form): nothing to
     * compare with there. */
    if (!passthrough || pmpi_ok)
        CHECK(memcmp(ref, got, r.bytes) == 0,
              "%s %s (%s) kind %d seed %d: differs from the reference", what, opnames[op], algo,
              kind, seed);
    if (pmpi_ok)
        CHECK(memcmp(pm, got, r.bytes) == 0, "%s %s (%s): differs from PMPI", what, opnames[op],
              algo);
    /* Same arguments, new data: a cached binding must be reused correctly. */
    for (size_t i = 0; i < s.bytes; i++)
        sbuf[i] ^= 0x5A;
    memset(ref, 0xA5, r.bytes);
    memset(got, 0xA5, r.bytes);
    reference(op, x, sbuf, &s, ref, &r);
    call_form(op, x, sbuf, &s, got, &r, &preq);
    if (!passthrough || pmpi_ok)
        CHECK(memcmp(ref, got, r.bytes) == 0, "%s %s (%s): repeated call differs", what,
              opnames[op], algo);
    if (preq != MPI_REQUEST_NULL)
        MPI_Request_free(&preq);
out:
    free(sbuf);
    free(ref);
    free(got);
    free(pm);
    args_free(&s);
    args_free(&r);
}

static void check_graph(const char *what, graph *x)
{
    /* PMPI is right without duplicate sources, and for alltoallw only
     * where in- and out-degree agree on every rank, and where its topology
     * is right (mpi_topology_ok). */
    int dup = !mpi_topology_ok(x->g), uneven = x->indeg != x->outdeg, flags[2];
    for (int i = 0; i < x->indeg; i++)
        for (int k = 0; k < i; k++)
            dup |= x->src[i] == x->src[k];
    int mine[2] = {dup, uneven};
    if (getenv("NH_TEST_VERBOSE") && rank == 0)
        fprintf(stderr, "graph: %s\n", what);
    MPI_Allreduce(mine, flags, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (int seed = 0; seed < 3; seed++) {
        for (int kind = 0; kind < 3; kind++) {
            one(what, ALLTOALLV, x, kind, seed, !flags[0], 0);
            one(what, ALLGATHERV, x, kind, seed, !flags[0], 0);
        }
        one(what, ALLTOALLW, x, 0, seed, !flags[0] && !flags[1], flags[1]);
    }
}

static void test_grid(const char *nbhd, int d, int r, int shuffle, int hinted)
{
    int *off, s = tc_offsets(nbhd, d, r, &off), dims[TC_MAXD] = {0}, per[TC_MAXD] = {1, 1, 1, 1, 1};
    int outdeg, indeg;
    char what[96];
    MPI_Info info = MPI_INFO_NULL;
    MPI_Dims_create(p, d, dims);
    if (hinted) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "isomorphic", "true");
    }
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, d, dims, per, s, off, info, shuffle, &g, &outdeg, &indeg);
    snprintf(what, sizeof(what), "%s d=%d r=%d shuffle=%d hint=%d", nbhd, d, r, shuffle, hinted);
    graph x;
    graph_init(&x, g, hinted);
    check_graph(what, &x);
    graph_fini(&x);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(off);
}

static void test_cart(int hinted)
{
    int dims[2] = {0, 0}, per[2] = {1, 0}, *off, outdeg, indeg;
    int s = tc_offsets("octant", 2, 1, &off);
    MPI_Comm cart, g;
    MPI_Info info = MPI_INFO_NULL;
    if (hinted) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "isomorphic", "true");
    }
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    tc_graph(cart, 2, dims, per, s, off, info, 0, &g, &outdeg, &indeg);
    graph x;
    graph_init(&x, g, hinted);
    if (hinted) {
        /* Mesh boundaries leave entries out, so list indices differ per
         * rank: sizes follow the offset (template entry), as promised. */
        int coords[2];
        MPI_Cart_coords(cart, rank, 2, coords);
        x.tdst = malloc(sizeof(int) * (size_t)(s + 1));
        x.tsrc = malloc(sizeof(int) * (size_t)(s + 1));
        for (int t = 0, no = 0, ni = 0; t < s; t++) {
            if (tc_shift(2, dims, per, coords, off + 2 * t, +1) != MPI_PROC_NULL)
                x.tdst[no++] = t;
            if (tc_shift(2, dims, per, coords, off + 2 * t, -1) != MPI_PROC_NULL)
                x.tsrc[ni++] = t;
        }
    }
    check_graph(hinted ? "cart octant mesh hint" : "cart octant mesh", &x);
    graph_fini(&x);
    MPI_Comm_free(&cart);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    free(off);
}

static void test_custom(void)
{
    /* Duplicates, the zero offset and an asymmetric entry on an inferred 2-D grid. */
    int off[] = {1, 0, 1, 0, 0, 0, 0, 1, -1, 1, 2, -1}, s = 6, outdeg, indeg;
    int dims[2] = {0, 0}, per[2] = {1, 1};
    MPI_Dims_create(p, 2, dims);
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, 2, dims, per, s, off, MPI_INFO_NULL, 1, &g, &outdeg, &indeg);
    graph x;
    graph_init(&x, g, 0);
    check_graph("duplicates+self", &x);
    graph_fini(&x);
}

static void test_irregular(void)
{
    int *dst = malloc(sizeof(int) * (size_t)p + 2), *src = malloc(sizeof(int) * (size_t)p + 2);
    int no = 0, ni = 0;
    graph x;
    MPI_Comm g;
    if (rank == 0)
        for (int q = 0; q < p; q++)
            dst[no++] = src[ni++] = q;
    else
        dst[no++] = src[ni++] = 0;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, src, MPI_UNWEIGHTED, no, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    graph_init(&x, g, 0);
    check_graph("irregular", &x);
    graph_fini(&x);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_UNWEIGHTED, 0, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    graph_init(&x, g, 0);
    check_graph("empty", &x);
    graph_fini(&x);
    /* A ring with an MPI_PROC_NULL neighbor on each side, where MPI takes
     * it (Open MPI 4.1 accepts the graph, but its own neighborhood
     * collectives crash on it, so there is nothing to compare with). */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    if (strstr(lib, "Open MPI")) {
        free(dst);
        free(src);
        return;
    }
    int next = (rank + 1) % p, prev = (rank + p - 1) % p;
    int d2[2] = {next, MPI_PROC_NULL}, s2[2] = {MPI_PROC_NULL, prev};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, s2, MPI_UNWEIGHTED, 2, d2,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(g, MPI_ERRORS_ARE_FATAL);
        graph_init(&x, g, 0);
        check_graph("ring with MPI_PROC_NULL", &x);
        graph_fini(&x);
    }
    free(dst);
    free(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    algo_for = (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                        "nhood_algorithm_for");
    if (getenv("NHOOD_LIB") && !algo_for)
        CHECK(0, "nhood is not preloaded");
    MPI_Type_vector(7, 1, 2, MPI_INT, &vec7);
    MPI_Type_commit(&vec7);
    int bl[3] = {1, 2, 1}, dl[3] = {0, 2, 5};
    MPI_Type_indexed(3, bl, dl, MPI_INT, &idx4);
    MPI_Type_commit(&idx4);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "nonblocking") == 0)
            form = NONBLOCKING;
        else if (strcmp(argv[i], "persistent") == 0)
            form = PERSISTENT;
    }
#ifndef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (form == PERSISTENT) /* no MPI-4 persistent collectives in this MPI */
        return check_finish_mpi();
#endif
    if (argc > 1 && strcmp(argv[1], "lie") == 0) {
        /* isomorphic=true, but counts differ per rank (legal MPI, a broken
         * promise): NHOOD_CHECK=1 must abort naming the call. */
        int *off, s = tc_offsets("moore", 2, 1, &off), dims[2] = {0, 0}, per[2] = {1, 1}, no, ni;
        MPI_Info info;
        MPI_Comm g;
        graph x;
        MPI_Dims_create(p, 2, dims);
        MPI_Info_create(&info);
        MPI_Info_set(info, "isomorphic", "true");
        tc_graph(MPI_COMM_WORLD, 2, dims, per, s, off, info, 0, &g, &no, &ni);
        graph_init(&x, g, 0);
        one("lying hint", ALLTOALLV, &x, 0, 0, 0, 0);
        graph_fini(&x);
        MPI_Info_free(&info);
        free(off);
        return check_finish_mpi();
    }
    test_grid("moore", 3, 1, 0, 0);
    test_grid("moore", 2, 2, 1, 0);
    test_grid("vonneumann", 2, 2, 0, 0);
    test_grid("octant", 3, 1, 1, 0);
    test_grid("moore", 3, 1, 0, 1);
    test_grid("moore", 2, 2, 0, 1);
    test_grid("vonneumann", 3, 2, 0, 1);
    test_cart(0);
    test_cart(1);
    test_custom();
    test_irregular();
    MPI_Type_free(&vec7);
    MPI_Type_free(&idx4);
    return check_finish_mpi();
}
