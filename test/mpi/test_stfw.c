/* MPI test, run preloaded: store-and-forward on irregular graphs.
 * MPI_Neighbor_alltoall, _alltoallv, _allgather and _allgatherv must be
 * bit-identical to the MPI standard's point-to-point equivalent (and to
 * PMPI where MPICH's duplicate-source order does not differ, see
 * reference.h) on poisoned buffers, for random irregular graphs with
 * empty lists, self edges, duplicate edges and ranks without neighbors,
 * a star, and an empty graph; contiguous and strided types; repeated
 * calls with other counts (v forms) and other buffers.  With
 * NHOOD_ALGO=stfw in the environment it also checks that nhood reports
 * stfw for the blocking forms.  With "info": one graph created with info
 * nhood_stfw_dims=2 and one without.  With "recheck": auto's re-check of
 * its choice at the first blocking call (see test_recheck).  Prints
 * "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../ompi_weights.h"
#include "../randgraph.h"
#include "../reference.h"
#include "nhood.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

static int rank, p;
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);

static MPI_Info graph_info = MPI_INFO_NULL;

/* Point-to-point reference for the v forms (allgatherv: sdispl NULL). */
static void reference_v(MPI_Comm g, const void *sbuf, const int *scounts, const int *sdispls,
                        MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
                        MPI_Datatype rtype)
{
    int indeg, outdeg, w;
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    int *src = malloc(sizeof(int) * (indeg + 1)), *dst = malloc(sizeof(int) * (outdeg + 1));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (indeg + outdeg + 1));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (indeg + outdeg + 1));
    MPI_Dist_graph_neighbors(g, indeg, src, MPI_UNWEIGHTED, outdeg, dst, MPI_UNWEIGHTED);
    for (int k = 0; k < indeg; k++)
        PMPI_Irecv((char *)rbuf + rdispls[k] * rext, rcounts[k], rtype, src[k], 0, g, &req[k]);
    for (int k = 0; k < outdeg; k++)
        PMPI_Isend((const char *)sbuf + (sdispls ? sdispls[k] * sext : 0),
                   sdispls ? scounts[k] : scounts[0], stype, dst[k], 0, g, &req[indeg + k]);
    PMPI_Waitall(indeg + outdeg, req, st);
    free(src);
    free(dst);
    free(req);
    free(st);
}

static void fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(rank * 31 + i * 7 + salt);
}

/* Does nhood pass op on g to PMPI?  Then PMPI's answer is expected
 * (MPICH's reversed duplicate sources included). */
static int passthrough(MPI_Comm g, const char *op)
{
    char name[32] = "pmpi";
    if (algo_for)
        algo_for(g, op, 8, name, sizeof(name));
    return strcmp(name, "pmpi") == 0;
}

static void check_algo(const char *what, MPI_Comm g, const char *op)
{
    const char *forced = getenv("NHOOD_ALGO");
    int n = 0, indeg, outdeg, w;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    MPI_Allreduce(&outdeg, &n, 1, MPI_INT, MPI_SUM, g);
    if (!algo_for || !forced || strcmp(forced, "stfw") != 0 || n == 0)
        return; /* an empty graph has nothing to forward */
    char name[32] = "";
    algo_for(g, op, 8, name, sizeof(name));
    CHECK(strcmp(name, "stfw") == 0, "%s %s: nhood reports %s under NHOOD_ALGO=stfw", what, op,
          name);
}

/* alltoall / allgather with count elements of type per block. */
static void test_plain(const char *what, MPI_Comm g, int outdeg, int indeg, int alltoall, int count,
                       MPI_Datatype type, int salt)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    size_t sb = (size_t)ext * count * (alltoall ? outdeg : 1) + 8,
           rb = (size_t)ext * count * indeg + 8;
    unsigned char *s = malloc(sb), *ref = malloc(rb), *got = malloc(rb), *pm = malloc(rb);
    const char *op = alltoall ? "alltoall" : "allgather";
    for (int rep = 0; rep < 2; rep++) {
        fill(s, sb, salt + rep);
        memset(ref, 0xA5, rb);
        memset(got, 0xA5, rb);
        memset(pm, 0xA5, rb);
        if (!passthrough(g, op))
            reference(alltoall, g, s, count, type, ref, count, type);
        else if (alltoall)
            PMPI_Neighbor_alltoall(s, count, type, ref, count, type, g);
        else
            PMPI_Neighbor_allgather(s, count, type, ref, count, type, g);
        int rc = alltoall ? MPI_Neighbor_alltoall(s, count, type, got, count, type, g)
                          : MPI_Neighbor_allgather(s, count, type, got, count, type, g);
        if (alltoall)
            PMPI_Neighbor_alltoall(s, count, type, pm, count, type, g);
        else
            PMPI_Neighbor_allgather(s, count, type, pm, count, type, g);
        CHECK(rc == MPI_SUCCESS, "%s %s: rc %d", what, op, rc);
        CHECK(memcmp(ref, got, rb) == 0, "%s %s rep %d: differs from the reference", what, op, rep);
        if (!duplicate_sources(g))
            CHECK(memcmp(pm, got, rb) == 0, "%s %s rep %d: differs from PMPI", what, op, rep);
    }
    check_algo(what, g, op);
    free(s);
    free(ref);
    free(got);
    free(pm);
}

/* alltoallv / allgatherv with per-call counts (edge- and call-dependent,
 * zeros included) and displacements with gaps, in reverse block order. */
static void test_v(const char *what, MPI_Comm g, int outdeg, int indeg, int alltoall, int call)
{
    int *sc = malloc(sizeof(int) * (outdeg + 1)), *sd = malloc(sizeof(int) * (outdeg + 1));
    int *rc_ = malloc(sizeof(int) * (indeg + 1)), *rd = malloc(sizeof(int) * (indeg + 1));
    int *src = malloc(sizeof(int) * (indeg + 1)), *dst = malloc(sizeof(int) * (outdeg + 1));
    MPI_Dist_graph_neighbors(g, indeg, src, MPI_UNWEIGHTED, outdeg, dst, MPI_UNWEIGHTED);
    /* The size of the k-th block s -> d is a function of (s, d, k-th
     * occurrence, call), so both ends agree; allgatherv: of (s, call). */
    int stot = 0, rtot = 0;
    for (int j = outdeg - 1; j >= 0; j--) {
        int occ = 0;
        for (int k = 0; k < j; k++)
            occ += dst[k] == dst[j];
        sc[j] = alltoall ? (rank * 3 + dst[j] * 5 + occ + call) % 6 : (rank + call) % 5;
        sd[j] = stot + 1;
        stot += sc[j] + 1;
    }
    for (int i = indeg - 1; i >= 0; i--) {
        /* occurrence of src[i] among my sources, in list order */
        int occ = 0;
        for (int k = 0; k < i; k++)
            occ += src[k] == src[i];
        rc_[i] = alltoall ? (src[i] * 3 + rank * 5 + occ + call) % 6 : (src[i] + call) % 5;
        rd[i] = rtot + 2;
        rtot += rc_[i] + 2;
    }
    int scount = (rank + call) % 5; /* allgatherv */
    if (!alltoall)
        stot = scount;
    size_t sb = sizeof(double) * (stot + 1), rb = sizeof(double) * (rtot + 1);
    unsigned char *s = malloc(sb), *ref = malloc(rb), *got = malloc(rb), *pm = malloc(rb);
    fill(s, sb, call);
    memset(ref, 0xA5, rb);
    memset(got, 0xA5, rb);
    memset(pm, 0xA5, rb);
    const char *op = alltoall ? "alltoallv" : "allgatherv";
    /* Where MPICH reverses duplicate sources, block sizes of one pair may
     * differ and its alltoallv would fail: PMPI only on graphs without. */
    int dup = duplicate_sources(g), anydup;
    MPI_Allreduce(&dup, &anydup, 1, MPI_INT, MPI_MAX, g);
    /* Passed to PMPI with duplicate sources, the call itself would fail
     * on MPICH (see above): nothing to compare then. */
    int skip = anydup && alltoall && passthrough(g, "alltoall");
    int rc = MPI_SUCCESS;
    if (skip) {
        /* nothing */
    } else if (alltoall) {
        reference_v(g, s, sc, sd, MPI_DOUBLE, ref, rc_, rd, MPI_DOUBLE);
        rc = MPI_Neighbor_alltoallv(s, sc, sd, MPI_DOUBLE, got, rc_, rd, MPI_DOUBLE, g);
        if (!anydup)
            PMPI_Neighbor_alltoallv(s, sc, sd, MPI_DOUBLE, pm, rc_, rd, MPI_DOUBLE, g);
    } else {
        reference_v(g, s, &scount, NULL, MPI_DOUBLE, ref, rc_, rd, MPI_DOUBLE);
        rc = MPI_Neighbor_allgatherv(s, scount, MPI_DOUBLE, got, rc_, rd, MPI_DOUBLE, g);
        if (!anydup)
            PMPI_Neighbor_allgatherv(s, scount, MPI_DOUBLE, pm, rc_, rd, MPI_DOUBLE, g);
    }
    CHECK(rc == MPI_SUCCESS, "%s %s call %d: rc %d", what, op, call, rc);
    CHECK(memcmp(ref, got, rb) == 0, "%s %s call %d: differs from the reference", what, op, call);
    if (!anydup && !skip)
        CHECK(memcmp(pm, got, rb) == 0, "%s %s call %d: differs from PMPI", what, op, call);
    free(sc);
    free(sd);
    free(rc_);
    free(rd);
    free(src);
    free(dst);
    free(s);
    free(ref);
    free(got);
    free(pm);
}

/* Under NHOOD_ALGO=stfw: receive counts smaller than the sent blocks are
 * an error (MPI_ERR_TRUNCATE) on every rank that receives a block, and no
 * rank hangs: the others still forward and complete. */
static void test_truncate(const char *what, MPI_Comm g, int outdeg, int indeg)
{
    const char *forced = getenv("NHOOD_ALGO");
    if (!forced || strcmp(forced, "stfw") != 0)
        return;
    int *s = calloc((size_t)outdeg * 2 + 1, sizeof(int)),
        *r = calloc((size_t)indeg + 1, sizeof(int));
    MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
    char name[32] = "";
    if (algo_for)
        algo_for(g, "alltoall", 8, name, sizeof(name));
    int rc = MPI_Neighbor_alltoall(s, 2, MPI_INT, r, 1, MPI_INT, g), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    /* without neighbors nothing is received: no error from nhood; a graph
     * handed to MPI gets MPI's answer (Open MPI checks the counts anyway) */
    CHECK(indeg == 0 ? rc == MPI_SUCCESS || strcmp(name, "pmpi") == 0 : cls == MPI_ERR_TRUNCATE,
          "%s: receive count too small gave %d (class %d), indegree %d, %s", what, rc, cls, indeg,
          name);
    MPI_Comm_set_errhandler(g, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(g);
    free(s);
    free(r);
}

/* alltoallv with count ints on every edge, against the reference and,
 * on graphs without duplicate sources, PMPI (poisoned buffers). */
static void uniform_v(const char *what, MPI_Comm g, int outdeg, int indeg, int count)
{
    int *sc = malloc(sizeof(int) * (outdeg + 1)), *sd = malloc(sizeof(int) * (outdeg + 1));
    int *rcs = malloc(sizeof(int) * (indeg + 1)), *rd = malloc(sizeof(int) * (indeg + 1));
    for (int j = 0; j < outdeg; j++) {
        sc[j] = count;
        sd[j] = j * count;
    }
    for (int i = 0; i < indeg; i++) {
        rcs[i] = count;
        rd[i] = (indeg - 1 - i) * count;
    }
    size_t sb = sizeof(int) * ((size_t)outdeg * count + 1),
           rb = sizeof(int) * ((size_t)indeg * count + 1);
    unsigned char *s = malloc(sb), *ref = malloc(rb), *got = malloc(rb), *pm = malloc(rb);
    fill(s, sb, count);
    memset(ref, 0xA5, rb);
    memset(got, 0xA5, rb);
    memset(pm, 0xA5, rb);
    reference_v(g, s, sc, sd, MPI_INT, ref, rcs, rd, MPI_INT);
    int rc = MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, got, rcs, rd, MPI_INT, g);
    CHECK(rc == MPI_SUCCESS, "%s alltoallv count %d: rc %d", what, count, rc);
    CHECK(memcmp(ref, got, rb) == 0, "%s alltoallv count %d: differs from the reference", what,
          count);
    if (!duplicate_sources(g)) {
        PMPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, pm, rcs, rd, MPI_INT, g);
        CHECK(memcmp(pm, got, rb) == 0, "%s alltoallv count %d: differs from PMPI", what, count);
    }
    free(sc);
    free(sd);
    free(rcs);
    free(rd);
    free(s);
    free(ref);
    free(got);
    free(pm);
}

/* auto's re-check at the first blocking call.  Run with a cost model
 * under which STFW wins on the star for small blocks and loses for large
 * ones (run-mpi-tests.sh: NHOOD_COST_STAGE=0 and NHOOD_COST_FWD=0.0001,
 * where it also wins for creation's nominal block, or 0.001, where it
 * does not and the first call turns it on): a star whose first alltoall
 * (alltoallv) moves 16-byte blocks runs STFW for later 64 KiB calls; one
 * whose first call moves 64 KiB blocks turns it off, also for later small
 * calls.  nhood_algorithm_for predicts the re-check before the first
 * call and reports its outcome after; every result is checked against the
 * point-to-point reference.  An MPI_Ineighbor_alltoall is pending across
 * the first blocking alltoall on even ranks while odd ranks wait for it
 * first (the set-up, made at that blocking call, and the re-check must
 * let it complete, or the odd ranks never get there). */
static void test_recheck(void)
{
    const int small = 4, big = 16384; /* ints per block */
    /* the re-check's reduction request is counted and freed: nhood's
     * resource counts come back to where they were */
    int (*counts_fn)(nhood_resources *);
    *(void **)&counts_fn = dlsym(RTLD_DEFAULT, "nhood_resource_counts");
    nhood_resources res0 = {0}, res1 = {0};
    if (counts_fn)
        counts_fn(&res0);
    for (int v = 0; v < 2; v++)
        for (int large = 0; large < 2; large++) {
            MPI_Comm g;
            int outdeg, indeg, first = large ? big : small, then = large ? small : big;
            const char *op = v ? "alltoallv" : "alltoall", *want = large ? "pmpi" : "stfw";
            char what[64], pred[32] = "", after[32] = "";
            snprintf(what, sizeof(what), "re-check %s first %d B", op, 4 * first);
            random_graph(1, 0, rank, p, graph_info, &g, &outdeg, &indeg);
            algo_for(g, op, 4 * first, pred, sizeof(pred));
            CHECK(strcmp(pred, want) == 0, "%s: predicted %s, expected %s", what, pred, want);
            int *ns = malloc(sizeof(int) * (2 * (size_t)outdeg + 1)),
                *nr = malloc(sizeof(int) * (2 * (size_t)indeg + 1)),
                *nref = malloc(sizeof(int) * (2 * (size_t)indeg + 1)),
                *npm = malloc(sizeof(int) * (2 * (size_t)indeg + 1));
            for (int k = 0; k < 2 * outdeg; k++)
                ns[k] = rank * 1000 + k;
            memset(nr, 0xA5, sizeof(int) * (2 * (size_t)indeg + 1));
            memset(nref, 0xA5, sizeof(int) * (2 * (size_t)indeg + 1));
            memset(npm, 0xA5, sizeof(int) * (2 * (size_t)indeg + 1));
            reference(1, g, ns, 2, MPI_INT, nref, 2, MPI_INT);
            PMPI_Neighbor_alltoall(ns, 2, MPI_INT, npm, 2, MPI_INT, g); /* the star: no duplicates */
            MPI_Request req = MPI_REQUEST_NULL;
            if (!v)
                MPI_Ineighbor_alltoall(ns, 2, MPI_INT, nr, 2, MPI_INT, g, &req);
            if (rank % 2) /* the others' forwarding must go on meanwhile */
                MPI_Wait(&req, MPI_STATUS_IGNORE);
            for (int call = 0; call < 2; call++) {
                int count = call ? then : first;
                if (v)
                    uniform_v(what, g, outdeg, indeg, count);
                else
                    test_plain(what, g, outdeg, indeg, 1, count, MPI_INT, call);
            }
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (!v)
                CHECK(memcmp(nr, nref, sizeof(int) * 2 * (size_t)indeg) == 0 &&
                          memcmp(nr, npm, sizeof(int) * 2 * (size_t)indeg) == 0,
                      "%s: the pending ineighbor_alltoall differs from the reference or PMPI",
                      what);
            free(ns);
            free(nr);
            free(nref);
            free(npm);
            algo_for(g, op, 4 * then, after, sizeof(after));
            CHECK(strcmp(after, want) == 0, "%s: %s after the calls, expected %s", what, after,
                  want);
            MPI_Comm_free(&g);
        }
    if (counts_fn) {
        counts_fn(&res1);
        CHECK(res1.requests == res0.requests && res1.comms == res0.comms,
              "re-check: nhood holds %ld requests and %ld communicators, %ld and %ld before",
              res1.requests, res1.comms, res0.requests, res0.comms);
    }
}

static void test_graph(const char *what, int kind, unsigned seed)
{
    MPI_Comm g;
    int outdeg, indeg;
    random_graph(kind, seed, rank, p, graph_info, &g, &outdeg, &indeg);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* strided: gaps must stay untouched */
    MPI_Type_commit(&vec);
    for (int a2a = 0; a2a < 2; a2a++) {
        test_plain(what, g, outdeg, indeg, a2a, 3, MPI_INT, 1);
        test_plain(what, g, outdeg, indeg, a2a, 0, MPI_INT, 2);
        test_plain(what, g, outdeg, indeg, a2a, 2, vec, 3);
        for (int call = 0; call < 3; call++)
            test_v(what, g, outdeg, indeg, a2a, call);
    }
    test_truncate(what, g, outdeg, indeg);
    MPI_Type_free(&vec);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    *(void **)&algo_for = dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    char name[64];
    if (argc > 1 && strcmp(argv[1], "info") == 0) {
        /* One graph with info nhood_stfw_dims=2, one without. */
        MPI_Info_create(&graph_info);
        MPI_Info_set(graph_info, "nhood_stfw_dims", "2");
        test_graph("info nhood_stfw_dims=2", 0, 7);
        MPI_Info_free(&graph_info);
        graph_info = MPI_INFO_NULL;
        test_graph("no info", 0, 7);
        return check_finish_mpi();
    }
    if (argc > 1 && strcmp(argv[1], "recheck") == 0) {
        if (algo_for)
            test_recheck();
        return check_finish_mpi();
    }
    for (unsigned seed = 1; seed <= 6; seed++) {
        snprintf(name, sizeof(name), "random seed %u", seed);
        test_graph(name, 0, seed);
    }
    test_graph("star", 1, 0);
    test_graph("empty", 2, 0);
    return check_finish_mpi();
}
