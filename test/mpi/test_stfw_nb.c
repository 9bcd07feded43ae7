/* MPI test, run preloaded: nonblocking (MPI_Ineighbor_alltoall,
 * _allgather) and persistent (MPI_Neighbor_alltoall_init, _allgather_init)
 * neighborhood collectives on irregular graphs, which nhood runs with
 * store-and-forward under NHOOD_PROGRESS=poll, or forced with the default
 * progress (and passes to PMPI otherwise).  Results must be bit-identical
 * to the point-to-point reference (to PMPI where nhood passes the graph on, see reference.h) on
 * poisoned buffers: many operations outstanding on one communicator (more
 * than nhood's tag slots) completed in different orders (Waitall, Wait in
 * reverse, Waitany, Testsome, Test loops), a Waitall that mixes nhood's
 * requests with point-to-point ones, and persistent requests started three
 * times with new data each (Start and Startall).  At the end nhood's
 * live object counts (nhood_resource_counts) must be back to their start.
 * Prints "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../randgraph.h"
#include "../reference.h"
#include "nhood.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED (Open MPI) */
#endif

static int rank, p;
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);

/* Does nhood pass nonblocking and persistent op on g to PMPI?  Then
 * PMPI's answer is expected.  nhood runs them with store-and-forward
 * under NHOOD_PROGRESS=poll, or forced under the default progress (auto);
 * nhood's own query says which. */
static int passthrough(MPI_Comm g, const char *op)
{
    char name[32] = "pmpi";
    if (algo_for)
        algo_for(g, op, 8, name, sizeof(name));
    return strcmp(name, "pmpi") == 0;
}

/* One operation: buffers and the expected result. */
typedef struct op {
    int alltoall, count;
    MPI_Datatype type;
    MPI_Comm g;
    size_t sb, rb;
    unsigned char *s, *r, *ref;
    int unordered; /* PMPI's answer, not reproducible: compare nothing */
} op;

static void fill(unsigned char *b, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(rank * 31 + i * 7 + salt * 13);
}

/* New send data (salt), a poisoned receive buffer, the expected result.
 * Where nhood passes the call on, PMPI's answer in the same form
 * (persistent: 1). */
static void op_prepare_form(op *o, int salt, int persistent)
{
    fill(o->s, o->sb, salt);
    memset(o->r, 0xA5, o->rb);
    memset(o->ref, 0xA5, o->rb);
    o->unordered = 0;
    if (!passthrough(o->g, o->alltoall ? "ialltoall" : "iallgather")) {
        reference(o->alltoall, o->g, o->s, o->count, o->type, o->ref, o->count, o->type);
        return;
    }
    /* With duplicate sources (self edges at one rank) MPICH 4.0.2's
     * nonblocking and persistent alltoall deliver them in an order that
     * changes from call to call: nothing to compare then. */
    o->unordered = o->alltoall && duplicate_sources(o->g);
    MPI_Request req;
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (persistent) {
        if (o->alltoall)
            PMPI_Neighbor_alltoall_init(o->s, o->count, o->type, o->ref, o->count, o->type, o->g,
                                        MPI_INFO_NULL, &req);
        else
            PMPI_Neighbor_allgather_init(o->s, o->count, o->type, o->ref, o->count, o->type, o->g,
                                         MPI_INFO_NULL, &req);
        PMPI_Start(&req);
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
        PMPI_Request_free(&req);
        return;
    }
#else
    (void)persistent;
#endif
    if (o->alltoall)
        PMPI_Ineighbor_alltoall(o->s, o->count, o->type, o->ref, o->count, o->type, o->g, &req);
    else
        PMPI_Ineighbor_allgather(o->s, o->count, o->type, o->ref, o->count, o->type, o->g, &req);
    PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void op_prepare(op *o, int salt)
{
    op_prepare_form(o, salt, 0);
}

static void op_init(op *o, MPI_Comm g, int alltoall, int count, MPI_Datatype type)
{
    int indeg, outdeg, w;
    MPI_Aint lb, ext;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    MPI_Type_get_extent(type, &lb, &ext);
    o->alltoall = alltoall;
    o->count = count;
    o->type = type;
    o->g = g;
    o->sb = (size_t)ext * count * (alltoall ? outdeg : 1) + 8;
    o->rb = (size_t)ext * count * indeg + 8;
    o->s = malloc(o->sb);
    o->r = malloc(o->rb);
    o->ref = malloc(o->rb);
}

static void op_fini(op *o)
{
    free(o->s);
    free(o->r);
    free(o->ref);
}

static int op_istart(op *o, MPI_Request *req)
{
    return o->alltoall
               ? MPI_Ineighbor_alltoall(o->s, o->count, o->type, o->r, o->count, o->type, o->g, req)
               : MPI_Ineighbor_allgather(o->s, o->count, o->type, o->r, o->count, o->type, o->g,
                                         req);
}

static void op_check(const char *what, const op *o, int i)
{
    CHECK(o->unordered || memcmp(o->r, o->ref, o->rb) == 0,
          "%s: operation %d (%s) differs from the reference", what, i,
          o->alltoall ? "ialltoall" : "iallgather");
}

#define NOPS 20 /* more than nhood's tag slots (15 for nonblocking operations) */

/* NOPS outstanding operations, alternating alltoall and allgather and
 * types, completed in the order given by how. */
static void test_outstanding(const char *graph, MPI_Comm g, MPI_Datatype vec, int how)
{
    static const char *const hows[] = {"Waitall", "Wait reversed", "Waitany", "Testsome",
                                       "Test loop"};
    char what[96];
    snprintf(what, sizeof(what), "%s outstanding/%s", graph, hows[how]);
    op o[NOPS];
    MPI_Request req[NOPS];
    MPI_Status sts[NOPS]; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    for (int i = 0; i < NOPS; i++) {
        op_init(&o[i], g, i % 2 == 0, i % 3 == 2 ? 2 : 1 + i % 4, i % 3 == 2 ? vec : MPI_INT);
        op_prepare(&o[i], i + 10 * how);
    }
    int rc = MPI_SUCCESS;
    for (int i = 0; i < NOPS && !rc; i++)
        rc = op_istart(&o[i], &req[i]);
    CHECK(rc == MPI_SUCCESS, "%s: start rc %d", what, rc);
    if (how == 0) {
        rc = MPI_Waitall(NOPS, req, sts);
    } else if (how == 1) {
        for (int i = NOPS - 1; i >= 0 && !rc; i--)
            rc = MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    } else if (how == 2) {
        for (int n = 0; n < NOPS && !rc; n++) {
            int idx = -1;
            rc = MPI_Waitany(NOPS, req, &idx, MPI_STATUS_IGNORE);
            CHECK(idx >= 0 && idx < NOPS && req[idx] == MPI_REQUEST_NULL, "%s: Waitany index %d",
                  what, idx);
        }
    } else if (how == 3) {
        int left = NOPS, idx[NOPS];
        while (left > 0 && !rc) {
            int oc = 0;
            rc = MPI_Testsome(NOPS, req, &oc, idx, sts);
            if (oc != MPI_UNDEFINED)
                left -= oc;
        }
    } else {
        /* Odd ones first, each tested until done, then the even ones. */
        for (int pass = 1; pass >= 0 && !rc; pass--)
            for (int i = pass; i < NOPS && !rc; i += 2)
                for (int flag = 0; !flag && !rc;)
                    rc = MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
    }
    CHECK(rc == MPI_SUCCESS, "%s: completion rc %d", what, rc);
    for (int i = 0; i < NOPS; i++) {
        CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d not freed", what, i);
        op_check(what, &o[i], i);
        op_fini(&o[i]);
    }
}

/* One nonblocking alltoall and allgather and the point-to-point reference
 * of another alltoall (MPI_Isend/MPI_Irecv) in one MPI_Waitall. */
static void test_mixed(const char *graph, MPI_Comm g)
{
    char what[96];
    snprintf(what, sizeof(what), "%s mixed Waitall", graph);
    int indeg, outdeg, w;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &w);
    int *src = malloc(sizeof(int) * (indeg + 1)), *dst = malloc(sizeof(int) * (outdeg + 1));
    int *sw = malloc(sizeof(int) * (indeg + 1)), *dw = malloc(sizeof(int) * (outdeg + 1));
    MPI_Dist_graph_neighbors(g, indeg, src, sw, outdeg, dst, dw);
    free(sw);
    free(dw);
    op a, b;
    op_init(&a, g, 1, 3, MPI_INT);
    op_init(&b, g, 0, 2, MPI_INT);
    op_prepare(&a, 1);
    op_prepare(&b, 2);
    int *ps = malloc(sizeof(int) * (outdeg + 1)), *pr = malloc(sizeof(int) * (indeg + 1));
    for (int k = 0; k < outdeg; k++)
        ps[k] = rank * 1000 + k;
    memset(pr, 0xA5, sizeof(int) * (indeg + 1));
    MPI_Request *req = malloc(sizeof(MPI_Request) * (indeg + outdeg + 2));
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (indeg + outdeg + 2));
    int n = 0;
    int rc = op_istart(&a, &req[n++]);
    for (int k = 0; k < indeg; k++)
        MPI_Irecv(&pr[k], 1, MPI_INT, src[k], 5, g, &req[n++]);
    rc |= op_istart(&b, &req[n++]);
    for (int k = 0; k < outdeg; k++)
        MPI_Isend(&ps[k], 1, MPI_INT, dst[k], 5, g, &req[n++]);
    rc |= MPI_Waitall(n, req, sts);
    CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
    op_check(what, &a, 0);
    op_check(what, &b, 1);
    /* The point-to-point data came from the named source. */
    int bad = 0;
    for (int k = 0; k < indeg; k++)
        bad |= pr[k] / 1000 != src[k];
    CHECK(!bad, "%s: point-to-point data wrong", what);
    op_fini(&a);
    op_fini(&b);
    free(src);
    free(dst);
    free(ps);
    free(pr);
    free(req);
    free(sts);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
/* Persistent alltoall and allgather, three starts each with new data:
 * MPI_Start + MPI_Wait, then MPI_Startall + MPI_Waitall. */
static void test_persistent(const char *graph, MPI_Comm g, MPI_Datatype vec)
{
    char what[96];
    snprintf(what, sizeof(what), "%s persistent", graph);
    op o[2];
    MPI_Request req[2];
    MPI_Status sts[2]; /* see test_outstanding */
    op_init(&o[0], g, 1, 2, vec);
    op_init(&o[1], g, 0, 3, MPI_INT);
    int rc = MPI_Neighbor_alltoall_init(o[0].s, o[0].count, o[0].type, o[0].r, o[0].count,
                                        o[0].type, g, MPI_INFO_NULL, &req[0]);
    rc |= MPI_Neighbor_allgather_init(o[1].s, o[1].count, o[1].type, o[1].r, o[1].count, o[1].type,
                                      g, MPI_INFO_NULL, &req[1]);
    CHECK(rc == MPI_SUCCESS, "%s: init rc %d", what, rc);
    for (int start = 0; start < 3; start++) {
        for (int i = 0; i < 2; i++)
            op_prepare_form(&o[i], 100 + start * 2 + i, 1);
        if (start == 1) {
            rc = MPI_Startall(2, req);
            rc |= MPI_Waitall(2, req, sts);
        } else {
            rc = MPI_Start(&req[0]);
            rc |= MPI_Start(&req[1]);
            rc |= MPI_Wait(&req[start == 0 ? 1 : 0], MPI_STATUS_IGNORE);
            rc |= MPI_Wait(&req[start == 0 ? 0 : 1], MPI_STATUS_IGNORE);
        }
        CHECK(rc == MPI_SUCCESS, "%s start %d: rc %d", what, start, rc);
        CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
              "%s start %d: persistent request freed by completion", what, start);
        for (int i = 0; i < 2; i++)
            CHECK(o[i].unordered || memcmp(o[i].r, o[i].ref, o[i].rb) == 0,
                  "%s start %d: %s differs", what, start, i ? "allgather_init" : "alltoall_init");
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    op_fini(&o[0]);
    op_fini(&o[1]);
}
#endif

static void test_graph(const char *name, int kind, unsigned seed)
{
    MPI_Comm g;
    random_graph(kind, seed, rank, p, MPI_INFO_NULL, &g, NULL, NULL);
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* strided: gaps must stay untouched */
    MPI_Type_commit(&vec);
    for (int how = 0; how < 5; how++)
        test_outstanding(name, g, vec, how);
    test_mixed(name, g);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    test_persistent(name, g, vec);
#endif
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
    (void)argc;
    (void)argv;
    int (*counts_fn)(nhood_resources *);
    *(void **)&counts_fn = dlsym(RTLD_DEFAULT, "nhood_resource_counts");
    nhood_resources before = {0}, after = {0};
    if (counts_fn)
        counts_fn(&before);
    char name[64];
    for (unsigned seed = 1; seed <= 4; seed++) {
        snprintf(name, sizeof(name), "random seed %u", seed);
        test_graph(name, 0, seed);
    }
    test_graph("star", 1, 0);
    test_graph("empty", 2, 0);
    if (counts_fn) {
        counts_fn(&after);
        CHECK(after.comms == before.comms && after.datatypes == before.datatypes &&
                  after.requests == before.requests && after.plans == before.plans,
              "nhood's live objects: comms %ld -> %ld, datatypes %ld -> %ld, requests %ld -> %ld, "
              "plans %ld -> %ld",
              before.comms, after.comms, before.datatypes, after.datatypes, before.requests,
              after.requests, before.plans, after.plans);
    }
    return check_finish_mpi();
}
