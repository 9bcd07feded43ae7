/* MPI test under MPI_THREAD_MULTIPLE: nhood stays on, and threads may use
 * it at once.  Each thread owns one graph communicator (3-D Moore; one of
 * them a duplicate of another's, so two threads share an analysis) and
 *  - runs blocking and nonblocking alltoall and allgather on it, the
 *    nonblocking ones completed by MPI_Waitall over an array that mixes
 *    them with point-to-point requests, or by an MPI_Test loop that also
 *    calls nhood_progress();
 *  - waits, concurrently with the others, on a request the main thread
 *    started for it (MPI_Wait on even threads, MPI_Test on odd ones);
 *  - where the library has them, starts and waits on a persistent one.
 * Every result is checked against the point-to-point reference, or against
 * MPI's own where nhood passes the call through.  Prints "N passed, N
 * failed" on rank 0. */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "nhood.h"
#include "../ops.h"

#define NT 3
#define M 40 /* bytes per block */
#define ITERS 12

static tc_algo_for_fn algo_for;
static void (*progress)(void);
static int rank, p, outdeg, indeg;
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

/* CHECK's counters are shared: one thread at a time. */
#define TCHECK(...)                                                                                \
    do {                                                                                           \
        pthread_mutex_lock(&check_lock);                                                           \
        CHECK(__VA_ARGS__);                                                                        \
        pthread_mutex_unlock(&check_lock);                                                         \
    } while (0)

static void op_init(tc_op *o, int alltoall, MPI_Comm g, int seed)
{
    tc_op_init(o, alltoall, g, M, seed, algo_for);
}

static void op_check(tc_op *o, int t, const char *what)
{
    TCHECK(tc_op_right(o), "thread %d: %s %s differs from the reference", t, what,
           o->alltoall ? "alltoall" : "allgather");
    tc_op_fini(o);
}

static int istart(tc_op *o, MPI_Comm g, MPI_Request *req)
{
    return (o->alltoall ? MPI_Ineighbor_alltoall : MPI_Ineighbor_allgather)(
        o->sbuf, M, MPI_BYTE, o->rbuf, M, MPI_BYTE, g, req);
}

typedef struct job {
    int t;
    MPI_Comm g, self; /* the thread's graph; its own point-to-point communicator */
    tc_op pre;           /* started by the main thread */
    MPI_Request pre_req;
} job;

static void *work(void *arg)
{
    job *j = arg;
    int t = j->t;
    /* 1. The request the main thread started, waited on here while the
     * other threads wait on theirs. */
    if (t % 2) {
        MPI_Status st;
        for (int flag = 0; !flag;)
            MPI_Test(&j->pre_req, &flag, &st);
    } else {
        MPI_Wait(&j->pre_req, MPI_STATUS_IGNORE);
    }
    op_check(&j->pre, t, "started by the main thread");
    for (int it = 0; it < ITERS; it++) {
        int a = (it + t) % 2, seed = 100 * t + it;
        /* 2. Blocking. */
        tc_op o;
        op_init(&o, a, j->g, seed);
        (a ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather)(o.sbuf, M, MPI_BYTE, o.rbuf, M,
                                                             MPI_BYTE, j->g);
        op_check(&o, t, "blocking");
        /* 3. Nonblocking, completed with point-to-point requests. */
        op_init(&o, !a, j->g, seed + 7);
        MPI_Request req[3];
        MPI_Status st[3];
        int out = seed, in = -1;
        MPI_Irecv(&in, 1, MPI_INT, 0, 5, j->self, &req[0]);
        istart(&o, j->g, &req[1]);
        MPI_Isend(&out, 1, MPI_INT, 0, 5, j->self, &req[2]);
        if (it % 2) {
            MPI_Waitall(3, req, st);
        } else {
            for (int flag = 0; !flag;) {
                MPI_Testall(3, req, &flag, st);
                if (progress)
                    progress();
            }
        }
        TCHECK(in == out, "thread %d: point-to-point message %d, not %d", t, in, out);
        op_check(&o, t, "nonblocking in a mixed array");
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        /* 4. Persistent, started twice. */
        if (it == ITERS - 1) {
            MPI_Request pr;
            op_init(&o, 1, j->g, seed + 11);
            MPI_Neighbor_alltoall_init(o.sbuf, M, MPI_BYTE, o.rbuf, M, MPI_BYTE, j->g,
                                       MPI_INFO_NULL, &pr);
            for (int s = 0; s < 2; s++) {
                MPI_Start(&pr);
                MPI_Wait(&pr, MPI_STATUS_IGNORE);
            }
            MPI_Request_free(&pr);
            op_check(&o, t, "persistent");
        }
#endif
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("test_threads: skipped, MPI provides thread level %d only\n", provided);
        MPI_Finalize();
        return 0;
    }
    /* Graph creation's point-to-point agreement needs one thread at a
     * time: under MPI_THREAD_MULTIPLE nhood makes no private duplicate of
     * MPI_COMM_WORLD for it (its collective stands in). */
    int (*counts_fn)(nhood_resources *) =
        (int (*)(nhood_resources *))dlsym(RTLD_DEFAULT, "nhood_resource_counts");
    nhood_resources live = {0, 0, 0, 0};
    CHECK(counts_fn && counts_fn(&live) == 0 && live.comms == 0,
          "%ld communicators live at the start under MPI_THREAD_MULTIPLE", live.comms);
    algo_for = (tc_algo_for_fn)dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    progress = (void (*)(void))dlsym(RTLD_DEFAULT, "nhood_progress");
    int *off, s = tc_offsets("moore", 3, 1, &off), dims[TC_MAXD] = {0},
              periods[TC_MAXD] = {1, 1, 1, 1, 1};
    MPI_Dims_create(p, 3, dims);
    job jobs[NT];
    pthread_t th[NT];
    /* Communicators are created by the main thread, in the same order on
     * every rank; the last is a duplicate of the first. */
    for (int t = 0; t < NT; t++) {
        if (t == NT - 1)
            MPI_Comm_dup(jobs[0].g, &jobs[t].g);
        else
            tc_graph(MPI_COMM_WORLD, 3, dims, periods, s, off, MPI_INFO_NULL, 0, &jobs[t].g,
                     &outdeg, &indeg);
        MPI_Comm_dup(MPI_COMM_SELF, &jobs[t].self);
        jobs[t].t = t;
    }
    for (int t = 0; t < NT; t++) {
        op_init(&jobs[t].pre, t % 2, jobs[t].g, 1000 + t);
        istart(&jobs[t].pre, jobs[t].g, &jobs[t].pre_req);
    }
    for (int t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, work, &jobs[t]);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < NT; t++) {
        MPI_Comm_free(&jobs[t].g);
        MPI_Comm_free(&jobs[t].self);
    }
    free(off);
    return check_finish_mpi();
}
