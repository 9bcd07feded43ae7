/* MPI test, run preloaded: nonblocking (MPI_Ineighbor_*) and persistent
 * (MPI_Neighbor_*_init) neighborhood collectives must give results
 * bit-identical to the point-to-point reference, with nhood's requests
 * completed by every MPI completion call, in arrays mixed with
 * point-to-point requests, two or more outstanding on one communicator
 * and on two communicators, many repeated starts, freed requests and a
 * communicator freed while an operation is pending.
 * Prints "N passed, N failed" on rank 0 (totals over ranks). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "../reference.h"

static int rank, p;
static int (*algo_for)(MPI_Comm, const char *, int, char *, int);

/* One operation's buffers and its expected result. */
typedef struct op {
    int alltoall, count;
    MPI_Datatype type;
    MPI_Comm g;
    size_t sbytes, rbytes;
    unsigned char *sbuf, *rbuf, *ref;
} op;

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
    o->sbytes = (size_t)ext * count * (alltoall ? outdeg : 1) + 8;
    o->rbytes = (size_t)ext * count * indeg + 8;
    o->sbuf = malloc(o->sbytes);
    o->rbuf = malloc(o->rbytes);
    o->ref = malloc(o->rbytes);
}

/* Does nhood run this operation's nonblocking form (rather than PMPI)? */
static int nhood_runs(const op *o)
{
    char name[32] = "pmpi";
    int size;
    MPI_Type_size(o->type, &size);
    if (algo_for)
        algo_for(o->g, o->alltoall ? "ialltoall" : "iallgather", size * o->count, name,
                 sizeof(name));
    return strcmp(name, "pmpi") != 0;
}

/* New send data (seed) and the expected result: the standard's
 * point-to-point equivalent where nhood runs the operation or takes it
 * (nhood_takes), PMPI's blocking form where MPI's own exchange runs as it
 * is (MPICH before 5.0 orders duplicate edges differently, see
 * reference.h). */
static void op_fill(op *o, int seed)
{
    for (size_t i = 0; i < o->sbytes; i++)
        o->sbuf[i] = (unsigned char)(rank * 37 + i * 11 + seed * 5 + o->alltoall);
    memset(o->rbuf, 0xA5, o->rbytes);
    memset(o->ref, 0xA5, o->rbytes);
    int runs = nhood_runs(o) || nhood_takes(o->g), mpi_ok = mpi_topology_ok(o->g);
    CHECK(runs || mpi_ok, "%s handed to MPI, which fails on this graph",
          o->alltoall ? "alltoall" : "allgather");
    if (runs || !mpi_ok)
        reference(o->alltoall, o->g, o->sbuf, o->count, o->type, o->ref, o->count, o->type);
    else
        (o->alltoall ? PMPI_Neighbor_alltoall : PMPI_Neighbor_allgather)(
            o->sbuf, o->count, o->type, o->ref, o->count, o->type, o->g);
}

static int op_start(op *o, MPI_Request *req)
{
    return (o->alltoall ? MPI_Ineighbor_alltoall : MPI_Ineighbor_allgather)(
        o->sbuf, o->count, o->type, o->rbuf, o->count, o->type, o->g, req);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
static int op_init_persistent(op *o, MPI_Request *req)
{
    return (o->alltoall ? MPI_Neighbor_alltoall_init : MPI_Neighbor_allgather_init)(
        o->sbuf, o->count, o->type, o->rbuf, o->count, o->type, o->g, MPI_INFO_NULL, req);
}
#endif

static void op_check(const op *o, const char *what)
{
    CHECK(memcmp(o->ref, o->rbuf, o->rbytes) == 0, "%s %s x%d: result differs from the reference",
          what, o->alltoall ? "alltoall" : "allgather", o->count);
}

static void op_free(op *o)
{
    free(o->sbuf);
    free(o->rbuf);
    free(o->ref);
}

/* nhood completes its operations with an empty status (MPI leaves the
 * status of a collective undefined apart from MPI_ERROR; MPICH's carries
 * an internal message's fields), so only checked where nhood runs. */
static void check_empty_status(const op *o, const MPI_Status *st, const char *what)
{
    int n = -1;
    if (!nhood_runs(o))
        return;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: status of a completed collective is not empty (source %d tag %d count %d)", what,
          st->MPI_SOURCE, st->MPI_TAG, n);
}

/* A ring exchange on MPI_COMM_WORLD to mix into request arrays. */
typedef struct ring {
    int out, in;
    MPI_Request req[2];
} ring;

static void ring_start(ring *r, int seed)
{
    r->out = rank * 1000 + seed;
    r->in = -1;
    MPI_Irecv(&r->in, 1, MPI_INT, (rank + p - 1) % p, seed, MPI_COMM_WORLD, &r->req[0]);
    MPI_Isend(&r->out, 1, MPI_INT, (rank + 1) % p, seed, MPI_COMM_WORLD, &r->req[1]);
}

static void ring_check(const ring *r, int seed, const char *what)
{
    CHECK(r->in == ((rank + p - 1) % p) * 1000 + seed, "%s: ring message wrong (%d)", what, r->in);
}

/* Every form and completion call on one graph, for both operations, a few
 * counts and a non-contiguous type. */
static void check_graph(const char *what, MPI_Comm g)
{
    static const int counts[] = {0, 1, 5, 300};
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    char buf[160];
    for (int a = 0; a < 2; a++) {
        for (size_t c = 0; c <= sizeof(counts) / sizeof(counts[0]); c++) {
            int count = c < sizeof(counts) / sizeof(counts[0]) ? counts[c] : 2;
            MPI_Datatype type = c < sizeof(counts) / sizeof(counts[0]) ? MPI_INT : vec;
            op o;
            MPI_Request req;
            MPI_Status st;
            int flag = 0, rc;
            op_init(&o, g, a, count, type);
            snprintf(buf, sizeof(buf), "%s%s", what, type == vec ? " vector" : "");

            /* Wait */
            op_fill(&o, 1);
            rc = op_start(&o, &req);
            CHECK(rc == MPI_SUCCESS, "%s: start rc %d", buf, rc);
            MPI_Wait(&req, &st);
            CHECK(req == MPI_REQUEST_NULL, "%s: MPI_Wait left the request", buf);
            check_empty_status(&o, &st, buf);
            op_check(&o, buf);

            /* Test until done, MPI_STATUS_IGNORE */
            op_fill(&o, 2);
            op_start(&o, &req);
            do
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            while (!flag);
            CHECK(req == MPI_REQUEST_NULL, "%s: MPI_Test left the request", buf);
            op_check(&o, buf);

            /* Request_get_status does not free; Wait afterwards does */
            op_fill(&o, 3);
            op_start(&o, &req);
            do
                MPI_Request_get_status(req, &flag, &st);
            while (!flag);
            CHECK(req != MPI_REQUEST_NULL, "%s: get_status freed the request", buf);
            op_check(&o, buf);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            CHECK(req == MPI_REQUEST_NULL, "%s: wait after get_status", buf);

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
            /* Persistent: bound once, started many times with new data */
            rc = op_init_persistent(&o, &req);
            CHECK(rc == MPI_SUCCESS, "%s: init rc %d", buf, rc);
            for (int k = 0; k < 5 && rc == MPI_SUCCESS; k++) {
                op_fill(&o, 10 + k);
                MPI_Start(&req);
                if (k % 2)
                    MPI_Wait(&req, &st);
                else
                    do
                        MPI_Test(&req, &flag, &st);
                    while (!flag);
                CHECK(req != MPI_REQUEST_NULL, "%s: persistent request freed by completion", buf);
                check_empty_status(&o, &st, buf);
                op_check(&o, buf);
            }
            /* Wait on an inactive persistent request returns at once */
            MPI_Wait(&req, &st);
            check_empty_status(&o, &st, buf);
            MPI_Request_free(&req);
            CHECK(req == MPI_REQUEST_NULL, "%s: MPI_Request_free", buf);
#endif
            op_free(&o);
        }
    }
    MPI_Type_free(&vec);
}

/* Two outstanding operations on one communicator plus point-to-point
 * requests, completed by each array call. */
static void check_mixed(const char *what, MPI_Comm g)
{
    op a, b;
    ring r;
    op_init(&a, g, 1, 4, MPI_INT);
    op_init(&b, g, 0, 3, MPI_DOUBLE);
    char buf[160];
    for (int mode = 0; mode < 6; mode++) {
        static const char *const names[] = {"Waitall", "Testall",  "Waitany",
                                            "Testany", "Waitsome", "Testsome"};
        snprintf(buf, sizeof(buf), "%s %s", what, names[mode]);
        MPI_Request req[5];
        MPI_Status st[5];
        op_fill(&a, mode);
        op_fill(&b, mode + 7);
        ring_start(&r, mode);
        /* nhood, p2p, nhood, p2p, null */
        op_start(&a, &req[0]);
        req[1] = r.req[0];
        op_start(&b, &req[2]);
        req[3] = r.req[1];
        req[4] = MPI_REQUEST_NULL;
        int left = 4, flag = 0, idx, outc, idxs[5], seen[5] = {0};
        switch (mode) {
        case 0:
            MPI_Waitall(5, req, st);
            check_empty_status(&a, &st[0], buf);
            check_empty_status(&b, &st[2], buf);
            left = 0;
            break;
        case 1:
            do
                MPI_Testall(5, req, &flag, st);
            while (!flag);
            left = 0;
            break;
        case 2:
        case 3:
            while (left > 0) {
                if (mode == 2)
                    MPI_Waitany(5, req, &idx, st);
                else if (MPI_Testany(5, req, &idx, &flag, st), !flag)
                    continue;
                CHECK(idx >= 0 && idx < 4 && !seen[idx], "%s: index %d", buf, idx);
                if (idx >= 0 && idx < 4)
                    seen[idx] = 1;
                left--;
            }
            MPI_Waitany(5, req, &idx, st);
            CHECK(idx == MPI_UNDEFINED, "%s: no active request left, got index %d", buf, idx);
            break;
        default:
            while (left > 0) {
                if (mode == 4)
                    MPI_Waitsome(5, req, &outc, idxs, st);
                else
                    MPI_Testsome(5, req, &outc, idxs, st);
                CHECK(outc != MPI_UNDEFINED, "%s: outcount undefined with active requests", buf);
                for (int k = 0; outc != MPI_UNDEFINED && k < outc; k++) {
                    CHECK(idxs[k] >= 0 && idxs[k] < 4 && !seen[idxs[k]], "%s: index %d", buf,
                          idxs[k]);
                    if (idxs[k] >= 0 && idxs[k] < 4)
                        seen[idxs[k]] = 1;
                    left--;
                }
            }
            MPI_Testsome(5, req, &outc, idxs, st);
            CHECK(outc == MPI_UNDEFINED, "%s: outcount %d with no active request", buf, outc);
            break;
        }
        for (int k = 0; k < 5; k++)
            CHECK(req[k] == MPI_REQUEST_NULL, "%s: request %d not freed", buf, k);
        op_check(&a, buf);
        op_check(&b, buf);
        ring_check(&r, mode, buf);
    }
    /* Completed in the reverse order of their start. */
    MPI_Request q[2];
    op_fill(&a, 50);
    op_fill(&b, 51);
    op_start(&a, &q[0]);
    op_start(&b, &q[1]);
    MPI_Wait(&q[1], MPI_STATUS_IGNORE);
    MPI_Wait(&q[0], MPI_STATUS_IGNORE);
    snprintf(buf, sizeof(buf), "%s reverse order", what);
    op_check(&a, buf);
    op_check(&b, buf);
    /* Many outstanding at once on one communicator (more than the tag
     * slots), all allgathers from one send buffer into separate receive
     * buffers, completed last to first. */
    enum { MANY = 20 };
    op m[MANY];
    MPI_Request mr[MANY];
    for (int k = 0; k < MANY; k++) {
        op_init(&m[k], g, k % 2, 2 + k % 3, MPI_INT);
        op_fill(&m[k], 60 + k);
    }
    for (int k = 0; k < MANY; k++)
        op_start(&m[k], &mr[k]);
    for (int k = MANY - 1; k >= 0; k--)
        MPI_Wait(&mr[k], MPI_STATUS_IGNORE);
    snprintf(buf, sizeof(buf), "%s %d outstanding", what, MANY);
    for (int k = 0; k < MANY; k++) {
        op_check(&m[k], buf);
        op_free(&m[k]);
    }
    op_free(&a);
    op_free(&b);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
/* The buffers of a persistent operation freed while active (below),
 * freed after MPI_Finalize. */
static op freed_active;

/* Persistent operations on two communicators started together with
 * persistent point-to-point requests in one MPI_Startall, many times, with
 * a nonblocking operation in between. */
static void check_persistent_many(MPI_Comm g1, MPI_Comm g2)
{
    op a, b, c;
    MPI_Request all[5];
    MPI_Status sts[5]; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
    int out, in;
    op_init(&a, g1, 1, 3, MPI_INT);
    op_init(&b, g2, 0, 2, MPI_INT);
    op_init(&c, g1, 0, 1, MPI_INT);
    op_init_persistent(&a, &all[0]);
    MPI_Recv_init(&in, 1, MPI_INT, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &all[1]);
    op_init_persistent(&b, &all[2]);
    MPI_Send_init(&out, 1, MPI_INT, (rank + 1) % p, 7, MPI_COMM_WORLD, &all[3]);
    for (int k = 0; k < 100; k++) {
        op_fill(&a, k);
        op_fill(&b, k + 3);
        op_fill(&c, k + 5);
        out = rank * 1000 + k;
        in = -1;
        MPI_Startall(4, all);
        op_start(&c, &all[4]);
        MPI_Waitall(5, all, sts);
        op_check(&a, "persistent many");
        op_check(&b, "persistent many");
        op_check(&c, "persistent many");
        CHECK(in == ((rank + p - 1) % p) * 1000 + k, "persistent many: ring got %d", in);
    }
    for (int k = 0; k < 4; k++) {
        CHECK(all[k] != MPI_REQUEST_NULL, "persistent request %d freed by completion", k);
        MPI_Request_free(&all[k]);
    }
    /* Freeing a started persistent request (MPICH 4.0.2 itself crashes
     * there, so only where nhood runs it): it completes in the background
     * and later operations are unaffected.  The program cannot know when
     * it completed, so b's buffers stay allocated until MPI_Finalize has
     * returned (freed, they could be another operation's by the time it
     * writes them: with Open MPI, where nothing progresses it in between,
     * they were). */
    int b_active = nhood_runs(&b);
    if (b_active) {
        MPI_Request fr, nb;
        op_fill(&b, 200);
        op_init_persistent(&b, &fr);
        MPI_Start(&fr);
        MPI_Request_free(&fr);
        CHECK(fr == MPI_REQUEST_NULL, "free of an active persistent request");
        op_fill(&c, 201);
        op_start(&c, &nb);
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        op_check(&c, "after freeing an active persistent request");
    }
    /* MPI's own persistent collectives still work after nhood's requests
     * were freed (a never-started MPI_PROC_NULL request, freed, hangs the
     * next one with MPICH 4.0.2). */
    MPI_Request nat;
    op_fill(&a, 300);
    PMPI_Neighbor_alltoall_init(a.sbuf, a.count, a.type, a.rbuf, a.count, a.type, g1, MPI_INFO_NULL,
                                &nat);
    MPI_Start(&nat);
    MPI_Wait(&nat, MPI_STATUS_IGNORE);
    MPI_Request_free(&nat);
    if (duplicate_sources(g1) == 0)
        op_check(&a, "PMPI persistent after nhood's");
    op_free(&a);
    if (b_active)
        freed_active = b;
    else
        op_free(&b);
    op_free(&c);
}
#endif

/* A communicator freed while an operation on it is pending (legal: the
 * operation completes normally). */
static void check_comm_freed(MPI_Comm parent, int d, const int *dims, const int *per, int s,
                             const int *off)
{
    MPI_Comm g;
    int outdeg, indeg;
    tc_graph(parent, d, dims, per, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    op o;
    MPI_Request req;
    op_init(&o, g, 1, 7, MPI_INT);
    op_fill(&o, 99);
    op_start(&o, &req);
    MPI_Comm_free(&g);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    op_check(&o, "communicator freed while pending");
    op_free(&o);
}

/* Under NHOOD_PROGRESS=safe, forwarding schedules are not used for the
 * nonblocking and persistent forms even when forced; under poll and the
 * default (auto, with its progress backend) a forced one runs. */
static void check_selection(MPI_Comm g)
{
    const char *progress = getenv("NHOOD_PROGRESS"), *algo = getenv("NHOOD_ALGO");
    char name[32] = "";
    /* From 4 ranks on, torus on moore d=3 forwards (2x2x1 and larger). */
    if (!algo_for || !algo || strcmp(algo, "torus") != 0 || p < 4)
        return;
    algo_for(g, "ialltoall", 8, name, sizeof(name));
    if (!progress || strcmp(progress, "safe") != 0)
        CHECK(strcmp(name, "torus") == 0, "NHOOD_PROGRESS=%s: ialltoall runs %s, not torus",
              progress ? progress : "auto", name);
    else
        CHECK(strcmp(name, "direct") == 0, "NHOOD_PROGRESS=safe: ialltoall runs %s, not direct",
              name);
    algo_for(g, "alltoall", 8, name, sizeof(name));
    CHECK(strcmp(name, "torus") == 0, "blocking alltoall runs %s, not torus", name);
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

    int *off, outdeg, indeg, per[TC_MAXD] = {1, 1, 1, 1, 1};
    int dims3[TC_MAXD] = {0}, dims2[TC_MAXD] = {0};
    MPI_Comm g3, g2, cart, gc;
    MPI_Dims_create(p, 3, dims3);
    MPI_Dims_create(p, 2, dims2);
    int s = tc_offsets("moore", 3, 1, &off);
    tc_graph(MPI_COMM_WORLD, 3, dims3, per, s, off, MPI_INFO_NULL, 0, &g3, &outdeg, &indeg);
    check_selection(g3);
    check_graph("moore d=3", g3);
    check_mixed("moore d=3", g3);
    check_comm_freed(MPI_COMM_WORLD, 3, dims3, per, s, off);
    free(off);

    s = tc_offsets("vonneumann", 2, 2, &off);
    tc_graph(MPI_COMM_WORLD, 2, dims2, per, s, off, MPI_INFO_NULL, 1, &g2, &outdeg, &indeg);
    check_graph("vonneumann d=2 r=2 shuffled", g2);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    check_persistent_many(g3, g2);
#endif
    free(off);

    /* A mesh in one dimension (boundary ranks see part of the template). */
    int cper[2] = {1, 0};
    s = tc_offsets("octant", 2, 1, &off);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, cper, 0, &cart);
    tc_graph(cart, 2, dims2, cper, s, off, MPI_INFO_NULL, 0, &gc, &outdeg, &indeg);
    if (mpi_topology_ok(gc) || !forced_mpi(algo_for != NULL)) { /* (common.h) */
        check_graph("cart octant mesh", gc);
        check_mixed("cart octant mesh", gc);
    }
    free(off);

    /* Duplicates and the zero offset. */
    int doff[] = {1, 0, 1, 0, 0, 0, 0, 1, -1, 1};
    MPI_Comm gd;
    tc_graph(MPI_COMM_WORLD, 2, dims2, per, 5, doff, MPI_INFO_NULL, 1, &gd, &outdeg, &indeg);
    check_graph("duplicates+self", gd);

    MPI_Comm_free(&gd);
    MPI_Comm_free(&gc);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&g2);
    MPI_Comm_free(&g3);
    int status = check_finish_mpi();
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    if (freed_active.sbuf)
        op_free(&freed_active);
#endif
    return status;
}
