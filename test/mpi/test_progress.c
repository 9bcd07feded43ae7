/* MPI test, run preloaded: legal programs that block in MPI between the
 * start and the completion of a nonblocking neighborhood collective,
 * where another rank may wait for this rank's forwarding.  Run with a
 * forwarding algorithm forced (NHOOD_ALGO=torus, bruck, stfw) and the
 * default progress (NHOOD_PROGRESS unset): every ordering must finish, and
 * every result must equal the point-to-point reference (reference.h).
 *
 * Usage: test_progress torus|irregular [threads] [quick]
 *   torus: 3-D Moore neighborhood on a periodic Cartesian grid of all
 *   ranks (isomorphic); irregular: a random graph with empty rows, self
 *   and duplicate edges (store-and-forward).  threads: MPI_THREAD_MULTIPLE
 *   with a second thread doing blocking point-to-point on its own
 *   communicator while the first one runs the orderings.  quick: each
 *   ordering once (valgrind), not three times.
 *
 * The orderings (each a few times, with MPI_Ineighbor_alltoallv, and the
 * persistent form where the MPI library has it):
 *   sendrecv    start; a blocking MPI_Sendrecv around a ring; wait
 *   barrier     start; half the ranks MPI_Barrier then wait, the others
 *               wait then MPI_Barrier
 *   rendezvous  start; even ranks MPI_Send 1 MiB (rendezvous) to the next
 *               rank, which receives it only after its wait
 *   split       start; MPI_Comm_split before the wait on half the ranks,
 *               after it on the others
 *   splitstart  half the ranks MPI_Comm_split before they start, the
 *               others after; then wait
 *   twographs   two graphs started in opposite orders on half the ranks
 *               and completed in opposite orders
 *   allreduce   start; uneven computation (no MPI calls); MPI_Allreduce;
 *               wait
 *   probe       start; rank 0 waits, then sends a token down a chain of
 *               ranks blocked in MPI_Probe (each receives and passes it on)
 *   mixed       start plus a ring of MPI_Irecv/MPI_Isend; MPI_Waitany on
 *               half the ranks, MPI_Testsome on the others, over one array
 *   firstcall   a fresh graph whose first call is a start, and a copy
 *               (MPI_Comm_dup) of an analyzed ring likewise, and of one
 *               that lists each peer twice: each rank
 *               starts only once the previous rank has started and sent it
 *               a token (a start that waits for the other ranks hangs here)
 * Prints "N passed, N failed" on rank 0; a hang is killed by alarm(). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"
#include "../common.h"
#include "../randgraph.h"
#include "../reference.h"

#define M 3           /* ints per block */
#define BIG (1 << 18) /* ints of the rendezvous message: 1 MiB */

static int rank, p;

/* One graph with its buffers and the expected result. */
typedef struct ex {
    MPI_Comm g;
    int indeg, outdeg;
    int *s, *r, *ref, *sc, *sd, *rc, *rd;
    MPI_Request req;
    int salt;
} ex;

static void ex_init(ex *e, int irregular, unsigned seed)
{
    if (irregular) {
        random_graph(0, seed, rank, p, MPI_INFO_NULL, &e->g, &e->outdeg, &e->indeg);
    } else {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, *off, s;
        MPI_Comm cart;
        MPI_Dims_create(p, 3, dims);
        MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
        s = tc_offsets("moore", 3, 1, &off);
        tc_graph(cart, 3, dims, periods, s, off, MPI_INFO_NULL, 1, &e->g, &e->outdeg, &e->indeg);
        free(off);
        MPI_Comm_free(&cart);
    }
    size_t ns = (size_t)e->outdeg * M + 1, nr = (size_t)e->indeg * M + 1;
    e->s = malloc(ns * sizeof(int));
    e->r = malloc(nr * sizeof(int));
    e->ref = malloc(nr * sizeof(int));
    e->sc = malloc(((size_t)e->outdeg + 1) * sizeof(int));
    e->sd = malloc(((size_t)e->outdeg + 1) * sizeof(int));
    e->rc = malloc(((size_t)e->indeg + 1) * sizeof(int));
    e->rd = malloc(((size_t)e->indeg + 1) * sizeof(int));
    for (int k = 0; k < e->outdeg; k++) {
        e->sc[k] = M;
        e->sd[k] = k * M;
    }
    for (int k = 0; k < e->indeg; k++) {
        e->rc[k] = M;
        e->rd[k] = k * M;
    }
    e->req = MPI_REQUEST_NULL;
}

static void ex_fini(ex *e)
{
    MPI_Comm_free(&e->g);
    free(e->s);
    free(e->r);
    free(e->ref);
    free(e->sc);
    free(e->sd);
    free(e->rc);
    free(e->rd);
}

/* New send data, a poisoned receive buffer, the reference result. */
static void ex_prepare(ex *e)
{
    e->salt++;
    for (int i = 0; i < e->outdeg * M; i++)
        e->s[i] = rank * 100000 + e->salt * 1000 + i;
    memset(e->r, 0xA5, ((size_t)e->indeg * M + 1) * sizeof(int));
    memset(e->ref, 0xA5, ((size_t)e->indeg * M + 1) * sizeof(int));
    reference(1, e->g, e->s, M, MPI_INT, e->ref, M, MPI_INT);
}

/* Starts the exchange prepared by ex_prepare (which every ordering calls
 * first, on every rank in the same order: the reference is a blocking
 * exchange of its own). */
static void ex_start(ex *e)
{
    MPI_Ineighbor_alltoallv(e->s, e->sc, e->sd, MPI_INT, e->r, e->rc, e->rd, MPI_INT, e->g,
                            &e->req);
}

static void ex_check_data(const ex *e, const char *what)
{
    CHECK(memcmp(e->r, e->ref, (size_t)e->indeg * M * sizeof(int)) == 0,
          "%s: result differs from the reference", what);
}

/* A nonblocking exchange's: its request freed, its result the reference's. */
static void ex_check(ex *e, const char *what)
{
    CHECK(e->req == MPI_REQUEST_NULL, "%s: request not completed", what);
    ex_check_data(e, what);
}

static void ex_wait(ex *e, const char *what)
{
    MPI_Wait(&e->req, MPI_STATUS_IGNORE);
    ex_check(e, what);
}

static void spin(double us)
{
    double t = MPI_Wtime();
    while ((MPI_Wtime() - t) * 1e6 < us)
        ;
}

static void sendrecv(ex *e)
{
    int a = rank, b = -1;
    ex_prepare(e);
    ex_start(e);
    MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % p, 5, &b, 1, MPI_INT, (rank + p - 1) % p, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(b == (rank + p - 1) % p, "sendrecv: got %d", b);
    ex_wait(e, "sendrecv");
}

static void barrier(ex *e)
{
    ex_prepare(e);
    ex_start(e);
    if (rank % 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        ex_wait(e, "barrier first");
    } else {
        ex_wait(e, "wait first");
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void rendezvous(ex *e, int *big)
{
    ex_prepare(e);
    ex_start(e);
    if (rank % 2 == 0 && rank + 1 < p) {
        for (int i = 0; i < BIG; i++)
            big[i] = rank + i;
        MPI_Send(big, BIG, MPI_INT, rank + 1, 6, MPI_COMM_WORLD);
        ex_wait(e, "rendezvous sender");
    } else if (rank % 2) {
        ex_wait(e, "rendezvous receiver");
        MPI_Recv(big, BIG, MPI_INT, rank - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(big[0] == rank - 1 && big[BIG - 1] == rank - 1 + BIG - 1, "rendezvous: payload");
    } else {
        ex_wait(e, "rendezvous alone");
    }
}

static void split_check(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    CHECK(n == (p + 1 - rank % 2) / 2, "split: %d ranks", n);
    MPI_Comm_free(&c);
}

static void split(ex *e)
{
    MPI_Comm c;
    ex_prepare(e);
    ex_start(e);
    if (rank % 2) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
        ex_wait(e, "split first");
    } else {
        ex_wait(e, "wait before split");
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    }
    split_check(c);
}

static void splitstart(ex *e)
{
    MPI_Comm c;
    ex_prepare(e);
    if (rank % 2) {
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
        ex_start(e);
    } else {
        ex_start(e);
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
    }
    ex_wait(e, "splitstart");
    split_check(c);
}

static void twographs(ex *e, ex *f)
{
    ex *first = rank % 2 ? e : f, *second = rank % 2 ? f : e;
    ex_prepare(e);
    ex_prepare(f);
    ex_start(first);
    ex_start(second);
    ex_wait(second, "twographs second");
    ex_wait(first, "twographs first");
}

static void allreduce(ex *e)
{
    int one = 1, sum = 0;
    ex_prepare(e);
    ex_start(e);
    spin(200.0 * (rank % 3));
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == p, "allreduce: %d", sum);
    ex_wait(e, "allreduce");
}

static void probe(ex *e)
{
    int token = 0;
    MPI_Status st;
    ex_prepare(e);
    ex_start(e);
    if (rank == 0) {
        ex_wait(e, "probe head");
        token = 1;
        if (p > 1)
            MPI_Send(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        return;
    }
    MPI_Probe(rank - 1, 7, MPI_COMM_WORLD, &st);
    MPI_Recv(&token, 1, MPI_INT, st.MPI_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(token == rank, "probe: token %d", token);
    token++;
    if (rank + 1 < p)
        MPI_Send(&token, 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD);
    ex_wait(e, "probe chain");
}

static void mixed(ex *e)
{
    int a = rank, b = -1, done = 0, idx[3], n;
    MPI_Request arr[3];
    MPI_Status sts[3];
    ex_prepare(e);
    ex_start(e);
    MPI_Irecv(&b, 1, MPI_INT, (rank + p - 1) % p, 8, MPI_COMM_WORLD, &arr[0]);
    arr[1] = e->req;
    MPI_Isend(&a, 1, MPI_INT, (rank + 1) % p, 8, MPI_COMM_WORLD, &arr[2]);
    while (done < 3) {
        if (rank % 2) {
            int k;
            MPI_Waitany(3, arr, &k, MPI_STATUS_IGNORE);
            done++;
        } else {
            MPI_Testsome(3, arr, &n, idx, sts);
            done += n;
        }
    }
    e->req = arr[1];
    CHECK(b == (rank + p - 1) % p, "mixed: got %d", b);
    ex_check(e, "mixed");
}

/* A chain: each rank starts after the previous one started and told it. */
static void chain_start(ex *e)
{
    int tok = 0;
    if (rank > 0)
        MPI_Recv(&tok, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ex_start(e);
    if (rank + 1 < p)
        MPI_Send(&tok, 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD);
}

/* A copy (MPI_Comm_dup) of an analyzed directed ring whose first call is
 * a start, made in the chain's order: each rank lists its peers once
 * (MPI's exchange serves the copy's starts on every library), or twice
 * (where MPICH before 5.0 misorders a repeated source's blocks, the
 * starts take the grouped form: api/cold.c). */
static void copy_first(int twice)
{
    int n = twice ? 2 : 1, src[2], dst[2], s[2 * M], r[2 * M], ref[2 * M];
    for (int k = 0; k < n; k++) {
        src[k] = (rank + p - 1) % p;
        dst[k] = (rank + 1) % p;
    }
    MPI_Comm ring, copy;
    MPI_Request q;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, src, MPI_UNWEIGHTED, n, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &ring);
    for (int k = 0; k < 4; k++) /* past the warm-up: analyzed */
        MPI_Neighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, ring);
    MPI_Comm_dup(ring, &copy);
    for (int i = 0; i < n * M; i++)
        s[i] = rank * 100 + i;
    reference(1, copy, s, M, MPI_INT, ref, M, MPI_INT);
    int tok = 0;
    if (rank > 0)
        MPI_Recv(&tok, 1, MPI_INT, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ineighbor_alltoall(s, M, MPI_INT, r, M, MPI_INT, copy, &q);
    if (rank + 1 < p)
        MPI_Send(&tok, 1, MPI_INT, rank + 1, 7, MPI_COMM_WORLD);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(memcmp(r, ref, sizeof(int) * (size_t)(n * M)) == 0,
          "firstcall (a copy%s): result differs from the reference", twice ? ", peers twice" : "");
    MPI_Comm_free(&copy);
    MPI_Comm_free(&ring);
}

static void firstcall(int irregular, unsigned seed)
{
    ex e = {0};
    ex_init(&e, irregular, seed);
    ex_prepare(&e);
    chain_start(&e);
    ex_wait(&e, "firstcall");
    ex_fini(&e);
    copy_first(0);
    copy_first(1);
}

#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
/* The persistent form, started three times, with the barrier ordering. */
static void persistent(ex *e)
{
    MPI_Request pr;
    MPI_Neighbor_alltoallv_init(e->s, e->sc, e->sd, MPI_INT, e->r, e->rc, e->rd, MPI_INT, e->g,
                                MPI_INFO_NULL, &pr);
    for (int it = 0; it < 3; it++) {
        ex_prepare(e);
        MPI_Start(&pr);
        if (rank % 2)
            MPI_Barrier(MPI_COMM_WORLD);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        if (rank % 2 == 0)
            MPI_Barrier(MPI_COMM_WORLD);
        ex_check_data(e, "persistent");
    }
    MPI_Request_free(&pr);
}
#endif

/* The second thread (threads mode): blocking point-to-point around a ring
 * on its own communicator while the first thread runs the orderings. */
static MPI_Comm ring;
static int ring_bad; /* checked after the join (CHECK's counters are not atomic) */
static void *ring_main(void *arg)
{
    int n = *(int *)arg;
    for (int i = 0; i < n; i++) {
        int a = rank * 1000 + i, b = -1;
        MPI_Sendrecv(&a, 1, MPI_INT, (rank + 1) % p, 9, &b, 1, MPI_INT, (rank + p - 1) % p, 9, ring,
                     MPI_STATUS_IGNORE);
        ring_bad += b != ((rank + p - 1) % p) * 1000 + i;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int irregular = argc > 1 && strcmp(argv[1], "irregular") == 0, threads = 0, iters = 3;
    int provided;
    for (int i = 2; i < argc; i++) {
        threads |= strcmp(argv[i], "threads") == 0;
        iters = strcmp(argv[i], "quick") == 0 ? 1 : iters;
    }
    /* A deadlock fails the test instead of hanging the suite (quick runs
     * under valgrind, much slower). */
    alarm(iters == 1 ? 1500 : 120);
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    pthread_t th;
    int nring = 200;
    if (threads) {
        CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
        MPI_Comm_dup(MPI_COMM_WORLD, &ring);
        pthread_create(&th, NULL, ring_main, &nring);
    }
    ex e = {0}, f = {0};
    ex_init(&e, irregular, 11);
    ex_init(&f, irregular, 12);
    int *big = malloc(sizeof(int) * BIG);
    for (int it = 0; it < iters; it++) {
        sendrecv(&e);
        barrier(&e);
        rendezvous(&e, big);
        split(&e);
        splitstart(&e);
        twographs(&e, &f);
        allreduce(&e);
        probe(&e);
        mixed(&e);
        firstcall(irregular, 13 + (unsigned)it);
    }
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    persistent(&e);
#endif
    if (threads) {
        pthread_join(th, NULL);
        CHECK(ring_bad == 0, "ring thread: %d wrong values", ring_bad);
        MPI_Comm_free(&ring);
    }
    free(big);
    ex_fini(&e);
    ex_fini(&f);
    return check_finish_mpi();
}
