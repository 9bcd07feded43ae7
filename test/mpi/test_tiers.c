/* MPI test, run preloaded with NHOOD_WARMUP=2 (the default): the cold
 * tier (docs/algorithms.md, "Tiers").  Every result must equal the
 * point-to-point reference (reference.h); nhood_comm_query tells where
 * the graph's analysis stands.
 *   - A directed ring is cold after its creation (source "cold") and
 *     through its first two calls; a
 *     nonblocking call after them does not analyze it (a start must not
 *     wait for the other ranks); the next blocking call does (source
 *     "inferred"), and later calls of every form stay right.
 *   - A copy (MPI_Comm_dup) of a cold graph is cold, with its own count;
 *     a copy of an analyzed one shares the analysis.
 *   - A 2-D Moore graph whose ranks list peers twice (2 and 4 ranks):
 *     right results in every call, cold or not, where MPICH before 5.0's
 *     own exchange is not (api/cold.c; test_cold has every form).
 *   - A ring that only nonblocking calls use, with its blocking
 *     collectives on MPI_COMM_WORLD, is analyzed at one of those, though
 *     the ranks' starts differ there; every rank switches at one call.
 *     A 2-D Moore graph likewise learns: its trials agree at those
 *     points, with the ranks' calls one apart at each.
 *   - A malformed nhood_dims info value: the creation succeeds (nhood
 *     adds no communication to it), the call that analyzes the graph fails
 *     on every rank with MPI_ERR_INFO_VALUE; so do isomorphic=false,
 *     nhood_algorithm=torus and nhood_ports=2 given on rank 0 alone.
 * With "eager" (run under NHOOD_WARMUP=0) the graph is analyzed at its
 * creation instead, and the malformed or differing values fail the
 * creation.  With
 * "off" (run under NHOOD_DISABLE=1) nhood neither reads its info keys nor
 * communicates at creation: the malformed value is MPI's to ignore, and
 * the creation and its calls succeed.  "rebuilt": only a graph made and
 * freed at every step (rebuilt(), below); "later": only a graph made
 * after a long-lived one (later(), below); "forced": only a forced graph
 * asked about while cold (forced_cold(), below).
 * Prints "N passed, N failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../reference.h"
#include "nhood.h"

#define M 2 /* ints per block */
#define N 4 /* calls outstanding (parents) */

static int rank, p, eager;
static int (*query)(MPI_Comm, nhood_comm_info *);

static const char *source_of(MPI_Comm g)
{
    static nhood_comm_info info;
    if (!query || query(g, &info) != MPI_SUCCESS)
        return "?";
    return info.source;
}

/* One call of the form (0 blocking, 1 nonblocking, 2 persistent) on g,
 * checked against the reference; returns the call's error code. */
static int call(MPI_Comm g, int outdeg, int indeg, int form, int salt, const char *what)
{
    int *s = malloc(sizeof(int) * (size_t)(outdeg * M + 1));
    int *r = malloc(sizeof(int) * (size_t)(indeg * M + 1));
    int *ref = malloc(sizeof(int) * (size_t)(indeg * M + 1));
    for (int i = 0; i < outdeg * M; i++)
        s[i] = rank * 1000 + salt * 100 + i;
    memset(r, 0xA5, sizeof(int) * (size_t)(indeg * M + 1));
    memset(ref, 0xA5, sizeof(int) * (size_t)(indeg * M + 1));
    reference(1, g, s, M, MPI_INT, ref, M, MPI_INT);
    MPI_Request q = MPI_REQUEST_NULL;
    int rc;
    if (form == 0) {
        rc = MPI_Neighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, g);
    } else if (form == 1) {
        rc = MPI_Ineighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, g, &q);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        rc = MPI_Neighbor_alltoall_init(s, M, MPI_INT, r, M, MPI_INT, g, MPI_INFO_NULL, &q);
        if (rc == MPI_SUCCESS && (rc = MPI_Start(&q)) == MPI_SUCCESS)
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (q != MPI_REQUEST_NULL)
            MPI_Request_free(&q);
#else /* a start all the same (a blocking call would analyze the graph) */
        rc = MPI_Ineighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, g, &q);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
#endif
    }
    if (rc == MPI_SUCCESS)
        CHECK(memcmp(r, ref, sizeof(int) * (size_t)(indeg * M)) == 0,
              "%s: result differs from the reference", what);
    free(s);
    free(r);
    free(ref);
    return rc;
}

static void expect(MPI_Comm g, const char *source, const char *what)
{
    if (query)
        CHECK(strcmp(source_of(g), source) == 0, "%s: source=%s, expected %s", what,
              source_of(g), source);
}

/* A directed ring (each rank sends to the next): no rank lists a peer
 * twice at any size, so MPI's own exchange may serve its cold calls on
 * every library. */
static void ring(MPI_Info info, MPI_Comm *g, int *outdeg, int *indeg, int *rc)
{
    int src = (rank + p - 1) % p, dst = (rank + 1) % p;
    *rc = MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst,
                                         MPI_UNWEIGHTED, info, 0, g);
    *outdeg = *indeg = 1;
}

static void tiers(void)
{
    MPI_Comm g, c;
    int outdeg, indeg, rc;
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    if (eager) {
        expect(g, "inferred", "eager: after creation");
        for (int k = 0; k < 3; k++)
            call(g, outdeg, indeg, k, k, "eager call");
        MPI_Comm_free(&g);
        return;
    }
    expect(g, "cold", "after creation");
    call(g, outdeg, indeg, 0, 1, "first call (blocking)");
    expect(g, "cold", "after one call");
    call(g, outdeg, indeg, 1, 2, "second call (nonblocking)");
    /* a copy of a cold graph: cold, its own count */
    MPI_Comm_dup(g, &c);
    expect(c, "cold", "a copy of a cold graph");
    call(g, outdeg, indeg, 1, 3, "third call, nonblocking");
    call(g, outdeg, indeg, 2, 4, "fourth call, persistent");
    expect(g, "cold", "after the warm-up's starts");
    call(g, outdeg, indeg, 0, 5, "fifth call, blocking: the analysis");
    expect(g, "inferred", "after the first blocking call past the warm-up");
    for (int k = 0; k < 3; k++)
        call(g, outdeg, indeg, k, 6 + k, "analyzed");
    expect(c, "cold", "the copy, before its own calls");
    for (int k = 0; k < 3; k++)
        call(c, outdeg, indeg, 0, 10 + k, "the copy's calls");
    expect(c, "inferred", "the copy after three blocking calls");
    MPI_Comm_free(&c);
    /* a copy of an analyzed graph shares the analysis; its first call a start */
    MPI_Comm_dup(g, &c);
    expect(c, "inferred", "a copy of an analyzed graph");
    call(c, outdeg, indeg, 1, 20, "the analyzed copy's first call (nonblocking)");
    call(c, outdeg, indeg, 0, 21, "the analyzed copy's blocking call");
    call(c, outdeg, indeg, 1, 22, "the analyzed copy's nonblocking call");
    MPI_Comm_free(&c);
    MPI_Comm_free(&g);
}

/* A 2-D Moore neighborhood on a periodic grid of all ranks: at 2 and 4
 * ranks every rank lists its peers more than once, where MPICH before 5.0
 * orders MPI's own all-to-all wrongly: every call, cold or not, must give
 * the reference. */
static void repeats(void)
{
    MPI_Comm g;
    int outdeg, indeg;
    int dims[2] = {0, 0}, periods[2] = {1, 1}, *off, s = tc_offsets("moore", 2, 1, &off);
    MPI_Dims_create(p, 2, dims);
    tc_graph(MPI_COMM_WORLD, 2, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    free(off);
    for (int k = 0; k < 5; k++)
        call(g, outdeg, indeg, k % 3, 30 + k, "repeated peers");
    expect(g, "inferred", "repeated peers: analyzed by the blocking calls");
    MPI_Comm_free(&g);
}

/* Call number salt's send buffer and reference on the ring g
 * (collective: the reference exchanges point to point). */
static void prepare(MPI_Comm g, int salt, int *s, int *r, int *ref)
{
    for (int i = 0; i < M; i++)
        s[i] = rank * 1000 + salt * 100 + i;
    memset(r, 0xA5, sizeof(int) * M);
    reference(1, g, s, M, MPI_INT, ref, M, MPI_INT);
}

static void start(MPI_Comm g, int *s, int *r, MPI_Request *q)
{
    MPI_Ineighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, g, q);
}

/* A graph only nonblocking calls use, whose program's blocking
 * collectives are on its parent (MPI_COMM_WORLD): a point there analyzes
 * it (api/parents.c).  The ranks' starts differ at the point: the even
 * ranks start calls 3 and 4 before the MPI_Allreduce, the odd ones after
 * it, and every rank switches at call 5.  A second graph, used past the
 * warm-up and freed by the even ranks before the point and by the odd
 * ones after it, is dropped there; a third, never used, stays cold; a
 * fourth, used past the warm-up, is analyzed there and freed before its
 * switch (check-valgrind: its analysis freed with it).
 * The report (run-mpi-tests.sh) shows the switch: four cold calls. */
static void parents(void)
{
    MPI_Comm g, h, u, v;
    MPI_Request q[N] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL}, qh;
    MPI_Status st[N];
    int outdeg, indeg, rc, s[N][M], r[N][M], ref[N][M], sh[M], rh[M], refh[M], one = 1, sum;
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    ring(MPI_INFO_NULL, &h, &outdeg, &indeg, &rc);
    ring(MPI_INFO_NULL, &u, &outdeg, &indeg, &rc);
    ring(MPI_INFO_NULL, &v, &outdeg, &indeg, &rc);
    for (int k = 0; k < 3; k++) { /* h and v past the warm-up */
        prepare(h, 50 + k, sh, rh, refh);
        start(h, sh, rh, &qh);
        MPI_Wait(&qh, MPI_STATUS_IGNORE);
        CHECK(memcmp(rh, refh, sizeof(rh)) == 0, "parents: the freed graph's call %d differs", k);
        prepare(v, 70 + k, sh, rh, refh);
        start(v, sh, rh, &qh);
        MPI_Wait(&qh, MPI_STATUS_IGNORE);
        CHECK(memcmp(rh, refh, sizeof(rh)) == 0, "parents: the last graph's call %d differs", k);
    }
    if (rank % 2 == 0)
        MPI_Comm_free(&h);
    for (int k = 0; k < N; k++)
        prepare(g, 40 + k, s[k], r[k], ref[k]);
    for (int k = 0; k < 2 + (rank % 2 == 0 ? 2 : 0); k++)
        start(g, s[k], r[k], &q[k]);
    expect(g, "cold", "parents: the starts before the parent's point");
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* point 1: analyzed */
    if (rank % 2)
        MPI_Comm_free(&h);
    expect(v, "inferred", "parents: the last graph analyzed at the parent's point");
    MPI_Comm_free(&v); /* before its switch */
    for (int k = 2; rank % 2 && k < N; k++)
        start(g, s[k], r[k], &q[k]);
    expect(g, "inferred", "parents: analyzed at the parent's point");
    MPI_Waitall(N, q, st);
    for (int k = 0; k < N; k++)
        CHECK(memcmp(r[k], ref[k], sizeof(r[k])) == 0, "parents: cold call %d differs", k);
    for (int k = 0; k < N; k++)
        prepare(g, 60 + k, s[k], r[k], ref[k]);
    for (int k = 0; k < N; k++) { /* the switch: calls 5 to 8, several outstanding */
        start(g, s[k], r[k], &q[k]);
    }
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Waitall(N, q, st);
    for (int k = 0; k < N; k++)
        CHECK(memcmp(r[k], ref[k], sizeof(r[k])) == 0, "parents: analyzed call %d differs", k);
    for (int k = 0; k < 4; k++) /* points 2 to 5: u was never called */
        MPI_Barrier(MPI_COMM_WORLD);
    expect(u, "cold", "parents: a graph never called");
    MPI_Comm_free(&u);
    MPI_Comm_free(&g);
}

/* A program that rebuilds its graph every step (adaptive refinement,
 * repartitioning): STEPS rings made, used once (a nonblocking call) and
 * freed, the even ranks freeing each before the step's MPI_Allreduce on
 * MPI_COMM_WORLD (its call still pending) and the odd ones after it, an
 * MPI_Barrier after the calls complete, beside a ring that lives through
 * them, used only by nonblocking calls.  Every result right, and the
 * living ring analyzed at one of those points, though each rebuilt graph
 * restarts the parent's count (the count backs off and the records'
 * bound makes the points reduce, api/parents.c).  Run with "rebuilt";
 * run-mpi-tests.sh checks that the report's parent_reductions stays near
 * STEPS / 16, not one a step. */
#define STEPS 64
static void rebuilt(void)
{
    MPI_Comm g, h;
    MPI_Request q[2];
    MPI_Status st[2];
    int outdeg, indeg, rc, s[2][M], r[2][M], ref[2][M], one = 1, sum;
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    for (int it = 0; it < STEPS; it++) {
        ring(MPI_INFO_NULL, &h, &outdeg, &indeg, &rc);
        prepare(g, it % 10, s[0], r[0], ref[0]);
        prepare(h, it % 10 + 1, s[1], r[1], ref[1]);
        start(g, s[0], r[0], &q[0]);
        start(h, s[1], r[1], &q[1]);
        if (rank % 2 == 0)
            MPI_Comm_free(&h);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank % 2)
            MPI_Comm_free(&h);
        MPI_Waitall(2, q, st);
        MPI_Barrier(MPI_COMM_WORLD); /* a second point in the step */
        CHECK(memcmp(r[0], ref[0], sizeof(r[0])) == 0,
              "rebuilt: step %d: the living ring's call differs", it);
        CHECK(memcmp(r[1], ref[1], sizeof(r[1])) == 0,
              "rebuilt: step %d: the rebuilt ring's call differs", it);
    }
    expect(g, "inferred", "rebuilt: the living ring analyzed at a point");
    MPI_Comm_free(&g);
}

/* A graph made after a long-lived one (a solver's graph, then the next
 * phase's): LIVED steps of a ring used only by nonblocking calls, an
 * MPI_Allreduce on MPI_COMM_WORLD after each, then the ring freed and
 * another made and used the same way.  The first ring's reductions,
 * spaced out since its analysis (points 1, 2, 4, ... 128), find nothing
 * to do; they must not put off the next graph's first reduction, or its
 * calls stay MPI's own for up to 64 points (api/parents.c).  With
 * NHOOD_WARMUP=2 the second ring is ripe at its third point and analyzed
 * at the fourth; it must be by its AFTER-th.  Run with "later". */
#define LIVED 200
#define AFTER 12
static void steps(MPI_Comm g, int n, const char *what)
{
    MPI_Request q;
    int s[M], r[M], ref[M], one = 1, sum;
    for (int it = 0; it < n; it++) {
        prepare(g, it % 10, s, r, ref);
        start(g, s, r, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(memcmp(r, ref, sizeof(r)) == 0, "later: %s: step %d differs", what, it);
    }
}

static void later(void)
{
    MPI_Comm g;
    int outdeg, indeg, rc;
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    steps(g, LIVED, "the long-lived ring");
    expect(g, "inferred", "later: the long-lived ring analyzed at a point");
    MPI_Comm_free(&g);
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    steps(g, AFTER, "the next ring");
    expect(g, "inferred", "later: the ring made after it analyzed by its 12th point (AFTER)");
    MPI_Comm_free(&g);
}

/* Learning on a graph whose only points are on its parent: a 2-D Moore
 * graph of all ranks, only nonblocking calls of six block sizes (8 B to
 * 8 KiB, each learned on its own), each iteration's calls started by the
 * even ranks before an MPI_Allreduce on MPI_COMM_WORLD and by the odd ones
 * after it.  The analysis, the trials' agreements and the decisions
 * (run-offs and re-checks with them) all come at points where the ranks'
 * calls differ by one, and every rank must switch at the same call: a
 * rank that switched a call early would run another schedule than its
 * peers where the learned choice differs from the one the calls took
 * while they waited (a wrong result or a hang).  Six sizes make it
 * likely that one differs.  run-mpi-tests.sh checks that the report
 * shows a decision. */
#define NSIZES 6
static void parents_learning(void)
{
    static const int ints[NSIZES] = {M, 16, 64, 256, 1024, 2048}; /* M first: the report's 8 B */
    MPI_Comm g;
    MPI_Request q[NSIZES];
    int outdeg, indeg, one = 1, sum, top = ints[NSIZES - 1];
    int dims[2] = {0, 0}, periods[2] = {1, 1}, *off, s = tc_offsets("moore", 2, 1, &off);
    MPI_Dims_create(p, 2, dims);
    tc_graph(MPI_COMM_WORLD, 2, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    free(off);
    int *sb[NSIZES], *rb[NSIZES], *ref = malloc(sizeof(int) * (size_t)(indeg * top));
    for (int k = 0; k < NSIZES; k++) {
        sb[k] = malloc(sizeof(int) * (size_t)(outdeg * ints[k]));
        rb[k] = malloc(sizeof(int) * (size_t)(indeg * ints[k]));
    }
    for (int it = 0; it < 160; it++) {
        for (int k = 0; k < NSIZES; k++) {
            for (int i = 0; i < outdeg * ints[k]; i++)
                sb[k][i] = rank * 100000 + it * 100 + k * 10 + i;
            memset(rb[k], 0xA5, sizeof(int) * (size_t)(indeg * ints[k]));
        }
        for (int k = 0; k < NSIZES && rank % 2 == 0; k++)
            MPI_Ineighbor_alltoall(sb[k], ints[k], MPI_INT, rb[k], ints[k], MPI_INT, g, &q[k]);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int k = 0; k < NSIZES && rank % 2; k++)
            MPI_Ineighbor_alltoall(sb[k], ints[k], MPI_INT, rb[k], ints[k], MPI_INT, g, &q[k]);
        for (int k = 0; k < NSIZES; k++)
            MPI_Wait(&q[k], MPI_STATUS_IGNORE);
        for (int k = 0; k < NSIZES; k++) {
            reference(1, g, sb[k], ints[k], MPI_INT, ref, ints[k], MPI_INT);
            CHECK(memcmp(rb[k], ref, sizeof(int) * (size_t)(indeg * ints[k])) == 0,
                  "parents, learning: call %d of %d B blocks differs", it,
                  ints[k] * (int)sizeof(int));
        }
    }
    for (int k = 0; k < NSIZES; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    free(ref);
    MPI_Comm_free(&g);
}

/* The ring made with key=value in its info (on rank 0 alone where
 * only0), errors returned; undone by malformed_end. */
static void ring_with(const char *key, const char *value, int only0, MPI_Info *info, MPI_Comm *g,
                      int *outdeg, int *indeg, int *rc)
{
    MPI_Info_create(info);
    if (!only0 || rank == 0)
        MPI_Info_set(*info, key, value);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ring(*info, g, outdeg, indeg, rc);
}

/* The ring made with a malformed nhood_dims. */
static void malformed_ring(MPI_Info *info, MPI_Comm *g, int *outdeg, int *indeg, int *rc)
{
    ring_with("nhood_dims", "4,x", 0, info, g, outdeg, indeg, rc);
}

static void malformed_end(MPI_Info *info)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(info);
}

static void malformed_one(const char *key, const char *value, int only0)
{
    MPI_Info info;
    MPI_Comm g;
    int outdeg, indeg, rc;
    ring_with(key, value, only0, &info, &g, &outdeg, &indeg, &rc);
    if (eager || !query) {
        CHECK(!query || rc != MPI_SUCCESS, "eager: %s=%s%s accepted", key, value,
              only0 ? " on rank 0 alone" : "");
    } else {
        CHECK(rc == MPI_SUCCESS, "the cold creation failed (%d)", rc);
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        for (int k = 0; k < 3 && rc == MPI_SUCCESS; k++) /* two to MPI, the third analyzes */
            rc = call(g, outdeg, indeg, 0, k, "malformed hint's calls");
        int cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_INFO_VALUE, "%s=%s: the analyzing call returned class %d, expected %d",
              key, value, cls, MPI_ERR_INFO_VALUE);
        rc = call(g, outdeg, indeg, 0, 4, "after the failed analysis (MPI's exchange)");
        CHECK(rc == MPI_SUCCESS, "the call after the failed analysis failed (%d)", rc);
    }
    if (rc == MPI_SUCCESS || !eager)
        MPI_Comm_free(&g);
    malformed_end(&info);
}

/* A malformed value fails where the analysis runs, on every rank; so
 * does a key that must be alike on every rank given on rank 0 alone
 * (before, such a rank took other collectives than the rest, and the
 * program hung or MPI failed: isomorphic=false at creation, a forced
 * algorithm or port count at the first calls after the analysis). */
static void malformed(void)
{
    static const char *const differ[][2] = {{"nhood_dims", "4,x"},
                                            {"isomorphic", "false"},
                                            {"nhood_algorithm", "torus"},
                                            {"nhood_ports", "2"}};
    for (int i = 0; i < 4; i++)
        malformed_one(differ[i][0], differ[i][1], i > 0);
}

/* "forced" (run under NHOOD_FALLBACK=error): a ring made with the info
 * key nhood_algorithm=torus, asked about while it is cold.  The answer
 * is the cold tier's, MPI's own exchange ("pmpi", or a form of it), with
 * no error and no warning: the graph is not analyzed yet, which says
 * nothing of whether torus will apply (a question asked of the selection
 * there answered that the graph was not isomorphic, failed under
 * NHOOD_FALLBACK=error and warned otherwise).  Once analyzed, "torus".
 * Then a ring of starts alone, cold throughout. */
static void forced_cold(void)
{
    int (*algo_for)(MPI_Comm, const char *, int, char *, int) =
        (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                 "nhood_algorithm_for");
    MPI_Info info;
    MPI_Comm g;
    int outdeg, indeg, rc;
    char name[32] = "";
    CHECK(algo_for != NULL, "nhood_algorithm_for is not there");
    if (!algo_for)
        return;
    MPI_Info_create(&info);
    MPI_Info_set(info, "nhood_algorithm", "torus");
    ring(info, &g, &outdeg, &indeg, &rc);
    MPI_Info_free(&info);
    CHECK(rc == MPI_SUCCESS, "forced: the creation failed (%d)", rc);
    if (rc != MPI_SUCCESS)
        return;
    expect(g, "cold", "forced: after creation");
    const char *ops[] = {"alltoall", "ialltoall", "allgather", "alltoallv"};
    for (int k = 0; k < 4; k++) {
        rc = algo_for(g, ops[k], 8, name, sizeof(name));
        CHECK(rc == MPI_SUCCESS, "forced: asking about %s while cold failed (%d)", ops[k], rc);
        CHECK(strncmp(name, "pmpi", 4) == 0, "forced: %s while cold answered %s, not MPI's own",
              ops[k], name);
    }
    for (int k = 0; k < 3; k++)
        CHECK(call(g, outdeg, indeg, 0, 30 + k, "forced: a blocking call") == MPI_SUCCESS,
              "forced: call %d failed", k);
    expect(g, "inferred", "forced: after three blocking calls");
    rc = algo_for(g, "alltoall", 8, name, sizeof(name));
    CHECK(rc == MPI_SUCCESS && strcmp(name, "torus") == 0,
          "forced: analyzed, alltoall answered %s (%d), expected torus", name, rc);
    MPI_Comm_free(&g);
    /* a ring of 70 starts and no collective: cold throughout (the
     * report's cold_starts line, run-mpi-tests.sh) */
    ring(MPI_INFO_NULL, &g, &outdeg, &indeg, &rc);
    for (int k = 0; rc == MPI_SUCCESS && k < 70; k++)
        CHECK(call(g, outdeg, indeg, 1, 40 + k, "starts alone") == MPI_SUCCESS,
              "starts alone: call %d failed", k);
    expect(g, "cold", "after 70 starts and no collective");
    if (rc == MPI_SUCCESS)
        MPI_Comm_free(&g);
}

/* nhood off: a malformed nhood_dims changes nothing. */
static void malformed_off(void)
{
    MPI_Info info;
    MPI_Comm g;
    int outdeg, indeg, rc;
    malformed_ring(&info, &g, &outdeg, &indeg, &rc);
    CHECK(rc == MPI_SUCCESS, "off: the creation failed (%d)", rc);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN);
        for (int k = 0; k < 4; k++)
            CHECK(call(g, outdeg, indeg, k % 3, k, "off: a call") == MPI_SUCCESS,
                  "off: call %d failed", k);
        MPI_Comm_free(&g);
    }
    malformed_end(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    eager = argc > 1 && strcmp(argv[1], "eager") == 0;
    query = (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    CHECK(query != NULL, "nhood is not loaded");
    if (argc > 1 && strcmp(argv[1], "off") == 0) {
        malformed_off();
        return check_finish_mpi();
    }
    if (argc > 1 && strcmp(argv[1], "forced") == 0) {
        forced_cold();
        return check_finish_mpi();
    }
    if (argc > 1 && strcmp(argv[1], "rebuilt") == 0) {
        rebuilt();
        return check_finish_mpi();
    }
    if (argc > 1 && strcmp(argv[1], "later") == 0) {
        later();
        return check_finish_mpi();
    }
    tiers();
    if (!eager) {
        parents();
        parents_learning();
    }
    repeats();
    malformed();
    return check_finish_mpi();
}
