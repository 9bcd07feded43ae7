/* MPI test, run preloaded: every MPI_Neighbor_alltoall/allgather result
 * must be bit-identical to the MPI standard's point-to-point equivalent
 * and to PMPI's (where PMPI is right, see reference()) on poisoned
 * buffers, across graphs built
 * from a Cartesian parent, from MPI_COMM_WORLD with an inferred grid, with
 * the info hint, with shuffled source order, duplicates and self edges, an
 * irregular graph and an empty one; counts, contiguous and non-contiguous
 * types, repeated calls with other buffers.  Detection is checked through
 * nhood_comm_query where the outcome is certain.
 * Prints "N passed, N failed" on rank 0 (totals over ranks). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../reference.h"
#include "nhood.h"

static int rank, p;
static int (*query)(MPI_Comm, nhood_comm_info *);
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);

typedef int (*coll_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

/* nhood's call against the reference (and PMPI where PMPI is right) on
 * identically poisoned buffers; whole buffers, gaps of strided types
 * included, must match. */
static void compare(const char *what, int alltoall, MPI_Comm g, int outdeg, int indeg, int scount,
                    MPI_Datatype stype, int rcount, MPI_Datatype rtype, int seed)
{
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    size_t sbytes = (size_t)sext * scount * (alltoall ? outdeg : 1) + 8;
    size_t rbytes = (size_t)rext * rcount * indeg + 8;
    unsigned char *sbuf = malloc(sbytes), *ref = malloc(rbytes), *got = malloc(rbytes),
                  *got2 = malloc(rbytes), *pm_out = malloc(rbytes);
    for (size_t i = 0; i < sbytes; i++)
        sbuf[i] = (unsigned char)(rank * 31 + i * 7 + seed);
    memset(ref, 0xA5, rbytes);
    memset(got, 0xA5, rbytes);
    memset(got2, 0xA5, rbytes);
    memset(pm_out, 0xA5, rbytes);
    coll_fn nh = alltoall ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather;
    coll_fn pm = alltoall ? PMPI_Neighbor_alltoall : PMPI_Neighbor_allgather;
    const char *opn = alltoall ? "alltoall" : "allgather";
    /* Where nhood passes the call through, PMPI's answer is the expected one. */
    char algo[32] = "pmpi";
    int ssize;
    MPI_Type_size(stype, &ssize);
    if (algo_for)
        algo_for(g, opn, ssize * scount, algo, sizeof(algo));
    int passthrough = strcmp(algo, "pmpi") == 0, mpi_ok = mpi_topology_ok(g);
    if (!mpi_ok && passthrough) { /* MPI's own exchange fails here: only a program's choice */
        CHECK(forced_mpi(algo_for != NULL), "%s %s: handed to MPI, which fails on this graph",
              what, opn);
        goto out;
    }
    if (passthrough)
        pm(sbuf, scount, stype, ref, rcount, rtype, g);
    else
        reference(alltoall, g, sbuf, scount, stype, ref, rcount, rtype);
    int rc1 = mpi_ok ? pm(sbuf, scount, stype, pm_out, rcount, rtype, g) : MPI_SUCCESS;
    int rc2 = nh(sbuf, scount, stype, got, rcount, rtype, g);
    CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "%s %s: rc %d %d", what, opn, rc1, rc2);
    CHECK(memcmp(ref, got, rbytes) == 0, "%s %s (%s): result differs from the reference", what, opn,
          algo);
    if (mpi_ok && !duplicate_sources(g))
        CHECK(memcmp(pm_out, got, rbytes) == 0, "%s %s: result differs from PMPI", what, opn);
    /* Same call, other receive buffer (a cached binding must not be reused). */
    nh(sbuf, scount, stype, got2, rcount, rtype, g);
    CHECK(memcmp(ref, got2, rbytes) == 0, "%s %s: second buffer differs", what, opn);
    /* Same buffers, new data (a cached binding must be reused correctly). */
    for (size_t i = 0; i < sbytes; i++)
        sbuf[i] ^= 0x5A;
    memset(ref, 0xA5, rbytes);
    memset(got, 0xA5, rbytes);
    if (passthrough)
        pm(sbuf, scount, stype, ref, rcount, rtype, g);
    else
        reference(alltoall, g, sbuf, scount, stype, ref, rcount, rtype);
    nh(sbuf, scount, stype, got, rcount, rtype, g);
    CHECK(memcmp(ref, got, rbytes) == 0, "%s %s: repeated call differs", what, opn);
out:
    free(sbuf);
    free(ref);
    free(got);
    free(got2);
    free(pm_out);
}

static void check_ops(const char *what, MPI_Comm g, int outdeg, int indeg)
{
    static const int counts[] = {0, 1, 5, 300};
    char buf[128];
    for (int op = 0; op < 2; op++) {
        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
            snprintf(buf, sizeof(buf), "%s int x%d", what, counts[i]);
            compare(buf, op == 0, g, outdeg, indeg, counts[i], MPI_INT, counts[i], MPI_INT, (int)i);
        }
        /* Non-contiguous on both sides: every other int. */
        MPI_Datatype vec, cont;
        MPI_Type_vector(7, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        snprintf(buf, sizeof(buf), "%s vector", what);
        compare(buf, op == 0, g, outdeg, indeg, 2, vec, 2, vec, 3);
        /* Different types with the same signature: 14 ints against the vector. */
        snprintf(buf, sizeof(buf), "%s int->vector", what);
        compare(buf, op == 0, g, outdeg, indeg, 14, MPI_INT, 2, vec, 4);
        MPI_Type_contiguous(3, MPI_DOUBLE, &cont);
        MPI_Type_commit(&cont);
        snprintf(buf, sizeof(buf), "%s contiguous-derived", what);
        compare(buf, op == 0, g, outdeg, indeg, 2, cont, 6, MPI_DOUBLE, 5);
        MPI_Type_free(&vec);
        MPI_Type_free(&cont);
    }
}

/* Under the cold tier (NHOOD_WARMUP, default 2) a graph is analyzed at
 * its first blocking call after the warm-up: make blocking calls until the
 * query no longer says "cold" (every rank counts the same calls, so every
 * rank leaves the loop at the same call). */
static void warm(MPI_Comm g, nhood_comm_info *info)
{
    int t = MPI_UNDEFINED, indeg = 0, outdeg = 0, w;
    MPI_Topo_test(g, &t);
    if (t == MPI_CART) {
        MPI_Cartdim_get(g, &indeg);
        indeg *= 2;
    } else if (t == MPI_GRAPH) {
        int r;
        MPI_Comm_rank(g, &r);
        MPI_Graph_neighbors_count(g, r, &indeg);
    } else if (t == MPI_DIST_GRAPH) {
        MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    } else
        return;
    int one = 1, *in = malloc(sizeof(int) * (size_t)indeg + 1);
    for (int i = 0; i < 64 && strcmp(info->source, "cold") == 0; i++) {
        MPI_Neighbor_allgather(&one, 1, MPI_INT, in, 1, MPI_INT, g);
        if (query(g, info) != MPI_SUCCESS)
            break;
    }
    free(in);
}

static void expect_pattern(const char *what, MPI_Comm g, int iso, const char *source)
{
    nhood_comm_info info;
    if (!query || nhood_disabled()) /* (preloaded and turned off: no records) */
        return;
    int rc = query(g, &info);
    if (rc == MPI_SUCCESS)
        warm(g, &info);
    CHECK(rc == MPI_SUCCESS, "%s: nhood has no record of the graph", what);
    if (rc == MPI_SUCCESS && iso >= 0)
        CHECK(info.isomorphic == iso && (!source || strcmp(info.source, source) == 0),
              "%s: isomorphic=%d source=%s, expected %d %s", what, info.isomorphic, info.source,
              iso, source ? source : "");
}

static void test_grid(const char *nbhd, int d, int r, int shuffle)
{
    int *off, s = tc_offsets(nbhd, d, r, &off), dims[TC_MAXD] = {0}, per[TC_MAXD] = {1, 1, 1, 1, 1};
    int outdeg, indeg;
    char what[96];
    MPI_Dims_create(p, d, dims);
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, d, dims, per, s, off, MPI_INFO_NULL, shuffle, &g, &outdeg, &indeg);
    snprintf(what, sizeof(what), "inferred %s d=%d r=%d shuffle=%d", nbhd, d, r, shuffle);
    expect_pattern(what, g, 1, NULL);
    check_ops(what, g, outdeg, indeg);
    MPI_Comm_free(&g);
    free(off);
}

/* A mesh (no periods; channel: periodic in the first dimension only) on
 * MPI_COMM_WORLD, no Cartesian parent, no hint: inferred where some rank
 * sees the whole stencil (every dimension of 3 or more), with those
 * periods; results right either way. */
static void test_mesh(const char *nbhd, int d, int channel)
{
    int *off, s = tc_offsets(nbhd, d, 1, &off), dims[TC_MAXD] = {0}, per[TC_MAXD] = {channel};
    int outdeg, indeg, interior = 1;
    char what[96];
    MPI_Dims_create(p, d, dims);
    for (int j = 0; j < d; j++)
        interior &= dims[j] >= 3;
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, d, dims, per, s, off, MPI_INFO_NULL, 1, &g, &outdeg, &indeg);
    snprintf(what, sizeof(what), "inferred %s %s d=%d", channel ? "channel" : "mesh", nbhd, d);
    expect_pattern(what, g, interior ? 1 : -1, interior ? "inferred" : NULL);
    nhood_comm_info info;
    if (query && interior && query(g, &info) == MPI_SUCCESS && info.isomorphic) {
        int same = info.ndims == d;
        for (int j = 0; j < info.ndims && same; j++)
            same &= info.periods[j] == per[j];
        CHECK(same, "%s: inferred %d dimensions, periods %d,%d,..., expected %d with %d,0,...",
              what, info.ndims, info.periods[0], info.ndims > 1 ? info.periods[1] : -1, d,
              channel);
    }
    check_ops(what, g, outdeg, indeg);
    MPI_Comm_free(&g);
    free(off);
}

static void test_cart(void)
{
    /* Periodic in dim 0, mesh in dim 1, with the positive octant: the
     * corner rank sees the whole neighborhood, boundary ranks a part. */
    int dims[2] = {0, 0}, per[2] = {1, 0}, *off, outdeg, indeg;
    int s = tc_offsets("octant", 2, 1, &off);
    MPI_Comm cart, g;
    MPI_Dims_create(p, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    tc_graph(cart, 2, dims, per, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    /* nhood mends Open MPI 5.0's graph, which keeps the parent's topology
     * (api/lifecycle.c): MPI's own calls are right on it */
    if (query && !nhood_disabled())
        CHECK(mpi_topology_ok(g), "cart octant mesh: MPI_Topo_test is not MPI_DIST_GRAPH");
    expect_pattern("cart octant mesh", g, 1, "cart");
    check_ops("cart octant mesh", g, outdeg, indeg);
    MPI_Comm_free(&g);
    free(off);
    /* Moore on a fully non-periodic Cartesian mesh. */
    per[0] = 0;
    s = tc_offsets("moore", 2, 1, &off);
    MPI_Comm_free(&cart);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart);
    tc_graph(cart, 2, dims, per, s, off, MPI_INFO_NULL, 1, &g, &outdeg, &indeg);
    expect_pattern("cart moore mesh", g, -1, NULL); /* provable only if some rank sees all 8 */
    check_ops("cart moore mesh", g, outdeg, indeg);
    MPI_Comm_free(&g);
    MPI_Comm_free(&cart);
    free(off);
}

/* Was a graph with a bad hint refused? At its creation where it is
 * analyzed there (NHOOD_WARMUP=0),
 * else at its first blocking call after the warm-up: the graph inherits
 * MPI_ERRORS_RETURN, and the call that analyzes it fails on every rank.
 * Frees the graph where it was made. */
static int rejected(int rc, MPI_Comm g)
{
    if (rc != MPI_SUCCESS)
        return 1;
    rc = tc_analyzing_call(g, 64);
    MPI_Comm_free(&g);
    return rc != MPI_SUCCESS;
}

static void test_hint(void)
{
    int dims[2] = {p, 1}, per[2] = {1, 1}, *off, outdeg, indeg;
    int s = tc_offsets("moore", 2, 1, &off);
    char v[32];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "isomorphic", "true");
    snprintf(v, sizeof(v), "%d,1", p);
    MPI_Info_set(info, "nhood_dims", v);
    MPI_Info_set(info, "nhood_periods", "1,1");
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, 2, dims, per, s, off, info, 0, &g, &outdeg, &indeg);
    expect_pattern("hint", g, 1, "hint");
    check_ops("hint", g, outdeg, indeg);
    MPI_Comm_free(&g);
    /* A malformed hint is an error, not a silent fallback (with nhood
     * turned off, nhood reads no info key: MPI's own creation). */
    if (query && !nhood_disabled()) {
        MPI_Info_set(info, "nhood_dims", "4,x");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = tc_graph(MPI_COMM_WORLD, 2, dims, per, s, off, info, 0, &g, &outdeg, &indeg);
        CHECK(rejected(rc, g), "malformed nhood_dims accepted");
        snprintf(v, sizeof(v), "%d,2", p);
        MPI_Info_set(info, "nhood_dims", v);
        rc = tc_graph(MPI_COMM_WORLD, 2, dims, per, s, off, info, 0, &g, &outdeg, &indeg);
        CHECK(rejected(rc, g), "nhood_dims with the wrong process count accepted");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Info_free(&info);
    free(off);
}

/* Grids with dimensions of size 2 (where -1 and +1 name one rank) and 1:
 * 3-D Moore r=1 on MPI_Dims_create's 3-D grid (2x1x1 at 2 ranks, 2x2x1
 * at 4, 2x2x2 at 8, 3x2x2 at 12), inferred, hinted and from a Cartesian
 * parent; each must be proved isomorphic on that grid and match the
 * point-to-point reference. */
static void test_aliased(void)
{
    int dims[3] = {0, 0, 0}, per[3] = {1, 1, 1}, *off, outdeg, indeg;
    int s = tc_offsets("moore", 3, 1, &off);
    char v[64], want[64], what[96];
    MPI_Dims_create(p, 3, dims);
    snprintf(v, sizeof(v), "%d,%d,%d", dims[0], dims[1], dims[2]);
    snprintf(want, sizeof(want), "%dx%dx%d", dims[0], dims[1], dims[2]);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "isomorphic", "true");
    MPI_Info_set(info, "nhood_dims", v);
    MPI_Comm cart, g;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &cart);
    for (int way = 0; way < 3; way++) {
        static const char *const src[] = {"inferred", "hint", "cart"};
        tc_graph(way == 2 ? cart : MPI_COMM_WORLD, 3, dims, per, s, off,
                 way == 1 ? info : MPI_INFO_NULL, way, &g, &outdeg, &indeg);
        snprintf(what, sizeof(what), "aliased %s moore 3-D on %s", src[way], want);
        expect_pattern(what, g, 1, src[way]);
        nhood_comm_info qi;
        if (query && query(g, &qi) == MPI_SUCCESS && way > 0) {
            char got[64];
            snprintf(got, sizeof(got), "%dx%dx%d", qi.dims[0], qi.dims[1], qi.dims[2]);
            CHECK(qi.ndims == 3 && strcmp(got, want) == 0, "%s: grid %s", what, got);
        }
        check_ops(what, g, outdeg, indeg);
        MPI_Comm_free(&g);
    }
    MPI_Comm_free(&cart);
    MPI_Info_free(&info);
    free(off);
}

/* `test_neighbor grid NBHD D R DIMS`: only the inferred grid of that
 * neighborhood, which must be detected as DIMS (e.g. 3x3x3: the cheapest
 * of the grids that fit, not the first), against the reference. */
static void test_grid_only(char **argv)
{
    int d = atoi(argv[3]), r = atoi(argv[4]);
    test_grid(argv[2], d, r, 0);
    int *off, s = tc_offsets(argv[2], d, r, &off), dims[TC_MAXD] = {0};
    int per[TC_MAXD] = {1, 1, 1, 1, 1}, outdeg, indeg;
    MPI_Dims_create(p, d, dims);
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, d, dims, per, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    nhood_comm_info qi;
    CHECK(query && query(g, &qi) == MPI_SUCCESS, "no record of the graph");
    if (query && query(g, &qi) == MPI_SUCCESS) {
        char got[96] = "";
        for (int j = 0, n = 0; j < qi.ndims; j++)
            n += snprintf(got + n, sizeof(got) - (size_t)n, "%s%d", j ? "x" : "", qi.dims[j]);
        CHECK(strcmp(got, argv[5]) == 0, "%s d=%d r=%d at %d ranks detected as %s, not %s",
              argv[2], d, r, p, got, argv[5]);
    }
    MPI_Comm_free(&g);
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
    expect_pattern("duplicates+self", g, 1, NULL);
    check_ops("duplicates+self", g, outdeg, indeg);
    MPI_Comm_free(&g);
}

static void test_irregular(void)
{
    /* Rank 0 talks to everyone, the others only to rank 0 (and p-1 to 1). */
    int *dst = malloc(sizeof(int) * (size_t)p + 1), *src = malloc(sizeof(int) * (size_t)p + 1);
    int no = 0, ni = 0;
    if (rank == 0)
        for (int q = 0; q < p; q++)
            dst[no++] = src[ni++] = q;
    else
        dst[no++] = src[ni++] = 0;
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, src, MPI_UNWEIGHTED, no, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    expect_pattern("irregular", g, p >= 3 ? 0 : -1, NULL);
    check_ops("irregular", g, no, ni);
    MPI_Comm_free(&g);
    /* The empty neighborhood. */
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_UNWEIGHTED, 0, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &g);
    check_ops("empty", g, 0, 0);
    MPI_Comm_free(&g);
    /* MPI_Dist_graph_create (non-adjacent): each rank names its ring edge. */
    int one = 1, next = (rank + 1) % p;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                          &g);
    expect_pattern("dist_graph_create ring", g, 1, NULL);
    check_ops("dist_graph_create ring", g, 1, 1);
    MPI_Comm_free(&g);
    free(dst);
    free(src);
}

/* Templates over 4096 ints (plan/agree.c): they wait for the edge
 * count, and only candidates that give it travel.  A 2-D Moore mesh
 * listing every edge 300 times is still found where some rank sees the
 * whole stencil, a hub listing every rank 300 times is not; results
 * right either way. */
static void test_big_template(void)
{
    enum { R = 300 };
    int *off, s = tc_offsets("moore", 2, 1, &off), dims[2] = {0, 0}, per[2] = {0, 0};
    int *rep = malloc(sizeof(int) * 2 * (size_t)s * R), outdeg, indeg;
    for (int k = 0; k < R; k++)
        memcpy(rep + (size_t)2 * s * k, off, sizeof(int) * 2 * (size_t)s);
    MPI_Dims_create(p, 2, dims);
    int interior = dims[0] >= 3 && dims[1] >= 3;
    MPI_Comm g;
    tc_graph(MPI_COMM_WORLD, 2, dims, per, s * R, rep, MPI_INFO_NULL, 1, &g, &outdeg, &indeg);
    expect_pattern("mesh, each edge 300 times", g, interior ? 1 : -1,
                   interior ? "inferred" : NULL);
    check_ops("mesh, each edge 300 times", g, outdeg, indeg);
    MPI_Comm_free(&g);
    /* Rank 0 names every rank 300 times, the others rank 0 as often. */
    int n = rank == 0 ? p * R : R, *list = malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; k++)
        list[k] = rank == 0 ? k % p : 0;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, list, MPI_UNWEIGHTED, n, list,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    expect_pattern("hub, each edge 300 times", g, p >= 3 ? 0 : -1, NULL);
    check_ops("hub, each edge 300 times", g, n, n);
    MPI_Comm_free(&g);
    free(list);
    free(rep);
    free(off);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, multiple = getenv("NH_TEST_THREAD_MULTIPLE") != NULL;
    if (multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    query = (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    algo_for = (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                        "nhood_algorithm_for");
    if (getenv("NHOOD_LIB") && !query)
        CHECK(0, "nhood is not preloaded");
    /* Under MPI_THREAD_MULTIPLE (NH_TEST_THREAD_MULTIPLE) nhood stays on:
     * every check below, including the analysis, holds as under
     * MPI_THREAD_SINGLE. */
    CHECK(!multiple || provided == MPI_THREAD_MULTIPLE, "MPI provides thread level %d only",
          provided);
    if (argc == 6 && strcmp(argv[1], "grid") == 0) {
        test_grid_only(argv);
        return check_finish_mpi();
    }
    if (argc == 2 && strcmp(argv[1], "template") == 0) {
        test_big_template();
        return check_finish_mpi();
    }
    if (argc == 4 && (strcmp(argv[1], "mesh") == 0 || strcmp(argv[1], "channel") == 0)) {
        test_mesh(argv[2], atoi(argv[3]), argv[1][0] == 'c'); /* that mesh only */
        return check_finish_mpi();
    }
    test_grid("moore", 3, 1, 0);
    test_grid("moore", 2, 2, 1);
    test_grid("vonneumann", 2, 2, 0);
    test_grid("octant", 3, 1, 1);
    test_grid("moore", 4, 1, 0);
    test_mesh("moore", 2, 0);
    test_mesh("moore", 3, 0);
    test_mesh("vonneumann", 2, 0);
    test_mesh("moore", 2, 1);
    test_cart();
    test_hint();
    test_aliased();
    test_custom();
    test_irregular();
    return check_finish_mpi();
}
