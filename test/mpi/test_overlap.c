/* NHOOD_OVERLAP (report and defer) on a periodic 2-D Moore neighborhood
 * with 2 KiB blocks: after each blocking MPI_Neighbor_alltoall the
 * program touches its buffers in one of many orders, and the received
 * data must equal the standard's point-to-point equivalent (reference.h)
 * every time:
 *   read_recv      plain loads from the receive buffer
 *   write_send     stores into the send buffer first (the deferred send
 *                  must still carry the old data)
 *   mpi_send_recv  the receive buffer handed to MPI_Sendrecv
 *   memcpy_recv    the C library copies the receive buffer
 *   same_page      loads and stores on other data in the receive buffer's
 *                  first page
 *   stack          buffers on the stack (neither watched nor deferred)
 *   io_write       write() of the receive buffer into a pipe (the kernel
 *                  would fail a protected buffer with EFAULT)
 *   malloc_free    allocations before the first access
 *   free_recv      the receive buffer freed before it is read
 *   own_handler    the program's own SIGSEGV handler (sigaction and
 *                  signal, installed after MPI_Init) still gets its faults
 *   alltoallv_gaps v form with gaps between blocks: the gaps keep their bytes
 *   repeated       20 exchanges, each read before the next
 *   waitall        two MPI_Ineighbor_alltoall completed by one MPI_Waitall
 * Rank 0 enters every exchange 500 us late.  With NHOOD_OVERLAP=defer (set
 * by run-mpi-tests.sh) the test also checks that the other ranks' calls
 * were deferred and that some completed at a fault; with
 * report, that buffers were watched.  With NHOOD_OVERLAP_CSV, after
 * MPI_Finalize rank 0 checks the advisor's rows for known_window and
 * known_nonblocking (a known 3 ms compute between the exchange, or its
 * MPI_Wait, and the first access): the site and first access are named,
 * and the window is 0.6-1.6 x 3 ms. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "../common.h"
#include "nhood.h"
#include "../reference.h"

#define M 2048
#define WINDOW_US 3000.0

static MPI_Comm g;
static int rank, indeg, outdeg;
static size_t sb, rb;

static void fill(char *sbuf, int seed)
{
    for (size_t i = 0; i < sb; i++)
        sbuf[i] = (char)(rank * 37 + (int)i * 11 + seed * 5 + (int)(i / M));
}

/* Does nhood pass op to MPI (or is nhood not loaded)? */
static int passed_through(const char *op)
{
    char name[32] = "pmpi";
    int (*algo_for)(MPI_Comm, const char *, int, char *, int) =
        (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                 "nhood_algorithm_for");
    if (algo_for)
        algo_for(g, op, M, name, sizeof(name));
    return strcmp(name, "pmpi") == 0;
}

/* Is g in the cold tier (nhood loaded, not analyzed yet)? */
static int cold(void)
{
    nhood_comm_info info;
    int (*query)(MPI_Comm, nhood_comm_info *) =
        (int (*)(MPI_Comm, nhood_comm_info *))dlsym(RTLD_DEFAULT, "nhood_comm_query");
    return query && query(g, &info) == MPI_SUCCESS && strcmp(info.source, "cold") == 0;
}

/* The truth for sbuf, computed before the call under test: the
 * standard's point-to-point equivalent where nhood runs the call or the
 * graph is cold (nhood then hands the call to MPI in a form right on
 * every library: api/cold.c), MPI's own where nhood passes it through
 * (MPICH 4.0.2 orders duplicate edges differently, see reference.h). */
static char *truth(const char *sbuf)
{
    char *ref = malloc(rb);
    if (passed_through("alltoall") && !cold())
        PMPI_Neighbor_alltoall(sbuf, M, MPI_BYTE, ref, M, MPI_BYTE, g);
    else
        reference(1, g, sbuf, M, MPI_BYTE, ref, M, MPI_BYTE);
    return ref;
}

static void spin_us(double us);
static double now_us(void);

/* The windows known_window [0] and known_nonblocking [1] really had, summed
 * over their calls as this rank measured them: from the call's return to
 * just before the first access.  A preempted spin makes a window longer
 * than WINDOW_US, so the advisor's figure is checked against these. */
static double own_window[2];

/* Rank 0 comes late, so that the others' calls find their data missing
 * and are deferred (a call complete at once is not).  always_inline: the
 * advisor names a call site by the function whose code makes the call,
 * and the checks after MPI_Finalize look for known_window's. */
static inline __attribute__((always_inline)) void exchange(const char *sbuf, char *rbuf)
{
    if (rank == 0 && indeg > 0)
        spin_us(500);
    MPI_Neighbor_alltoall(sbuf, M, MPI_BYTE, rbuf, M, MPI_BYTE, g);
}

/* Plain loads, in the program's own code. */
static int equal(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void spin_us(double us)
{
    double t0 = now_us();
    while (now_us() - t0 < us)
        ;
}

typedef struct bufs {
    char *sbuf, *rbuf, *ref;
} bufs;

static void bufs_init(bufs *b, int seed)
{
    b->sbuf = malloc(sb);
    b->rbuf = malloc(rb);
    fill(b->sbuf, seed);
    memset(b->rbuf, 0x77, rb);
    b->ref = truth(b->sbuf);
}

static void bufs_fini(bufs *b)
{
    free(b->sbuf);
    free(b->rbuf);
    free(b->ref);
}

static void case_read_recv(void)
{
    bufs b;
    bufs_init(&b, 1);
    exchange(b.sbuf, b.rbuf);
    CHECK(equal(b.rbuf, b.ref, rb), "read_recv: received data differs");
    bufs_fini(&b);
}

static void case_write_send(void)
{
    bufs b;
    bufs_init(&b, 2);
    exchange(b.sbuf, b.rbuf);
    memset(b.sbuf, 0x11, sb); /* the send must have carried the old data */
    CHECK(equal(b.rbuf, b.ref, rb), "write_send: received data differs");
    bufs_fini(&b);
}

static void case_mpi_send_recv(void)
{
    bufs b;
    bufs_init(&b, 3);
    char *copy = malloc(rb);
    exchange(b.sbuf, b.rbuf);
    MPI_Sendrecv(b.rbuf, (int)rb, MPI_BYTE, rank, 7, copy, (int)rb, MPI_BYTE, rank, 7,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(equal(copy, b.ref, rb) && equal(b.rbuf, b.ref, rb), "mpi_send_recv: data differs");
    free(copy);
    bufs_fini(&b);
}

static void case_memcpy_recv(void)
{
    bufs b;
    bufs_init(&b, 4);
    char *copy = malloc(rb);
    exchange(b.sbuf, b.rbuf);
    memcpy(copy, b.rbuf, rb);
    CHECK(equal(copy, b.ref, rb), "memcpy_recv: copied data differs");
    free(copy);
    bufs_fini(&b);
}

static void case_same_page(void)
{
    bufs b;
    bufs_init(&b, 5);
    free(b.rbuf);
    char *region = malloc(rb + 300); /* 100 bytes of other data before the buffer, 200 after */
    volatile char *other = region;
    b.rbuf = region + 100;
    memset(region, 0x33, rb + 300);
    exchange(b.sbuf, b.rbuf);
    other[0] = 0x44;                   /* a store beside the buffer, on its first page */
    int kept = other[99] == 0x33 && region[100 + rb + 199] == 0x33;
    CHECK(kept && other[0] == 0x44, "same_page: data beside the buffer changed");
    CHECK(equal(b.rbuf, b.ref, rb), "same_page: received data differs");
    b.rbuf = malloc(1);
    free(region);
    bufs_fini(&b);
}

static void case_stack(void)
{
    char sbuf[8 * M + 1], rbuf[8 * M + 1];
    if (sb > sizeof(sbuf) || rb > sizeof(rbuf))
        return;
    fill(sbuf, 6);
    char *ref = truth(sbuf);
    exchange(sbuf, rbuf);
    CHECK(equal(rbuf, ref, rb), "stack: received data differs");
    free(ref);
}

static void case_io_write(void)
{
    bufs b;
    int fd[2];
    bufs_init(&b, 7);
    char *copy = malloc(rb);
    if (pipe(fd) == 0) {
        exchange(b.sbuf, b.rbuf);
        ssize_t w = write(fd[1], b.rbuf, rb); /* rb < 64 KiB: fits the pipe */
        ssize_t r = read(fd[0], copy, rb);
        CHECK(w == (ssize_t)rb && r == (ssize_t)rb && equal(copy, b.ref, rb),
              "io_write: write %zd, read %zd, or the data differs", w, r);
        close(fd[0]);
        close(fd[1]);
    }
    free(copy);
    bufs_fini(&b);
}

static void case_malloc_free(void)
{
    bufs b;
    bufs_init(&b, 8);
    exchange(b.sbuf, b.rbuf);
    char *p = malloc(100), *q = malloc(5000);
    free(p);
    free(q);
    CHECK(equal(b.rbuf, b.ref, rb), "malloc_free: received data differs");
    bufs_fini(&b);
}

static void case_free_recv(void)
{
    bufs b;
    bufs_init(&b, 9);
    exchange(b.sbuf, b.rbuf);
    free(b.rbuf); /* legal: the program never reads what it received */
    b.rbuf = malloc(rb);
    memset(b.rbuf, 0x77, rb);
    exchange(b.sbuf, b.rbuf);
    CHECK(equal(b.rbuf, b.ref, rb), "free_recv: the next exchange's data differs");
    bufs_fini(&b);
}

static char *own_page;
static volatile int own_faults;

static void own_handler(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    if ((char *)si->si_addr >= own_page && (char *)si->si_addr < own_page + 4096) {
        own_faults++;
        mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
    }
}

static void own_handler_plain(int sig)
{
    (void)sig;
    own_faults += 100;
    mprotect(own_page, 4096, PROT_READ | PROT_WRITE);
}

static void case_own_handler(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = own_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    own_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    sigaction(SIGSEGV, &sa, &old);
    for (int round = 0; round < 2; round++) {
        bufs b;
        bufs_init(&b, 10 + round);
        if (round == 1) { /* the same through signal() */
            mprotect(own_page, 4096, PROT_NONE);
            signal(SIGSEGV, own_handler_plain);
        }
        own_faults = 0;
        exchange(b.sbuf, b.rbuf);
        ((volatile char *)own_page)[10] = 1; /* the program's own fault, while nhood's pages wait */
        CHECK(own_faults == (round ? 100 : 1), "own_handler: the program's handler ran %d times",
              own_faults);
        CHECK(equal(b.rbuf, b.ref, rb), "own_handler: received data differs");
        bufs_fini(&b);
    }
    sigaction(SIGSEGV, &old, NULL);
    munmap(own_page, 4096);
}

static void case_alltoallv_gaps(void)
{
    enum { GAP = 64 };
    bufs b;
    bufs_init(&b, 12);
    size_t span = (size_t)indeg * (M + GAP) + 1;
    char *rv = malloc(span), *want = malloc(span);
    int *sc = malloc(sizeof(int) * (outdeg + 1)), *sd = malloc(sizeof(int) * (outdeg + 1));
    int *rc = malloc(sizeof(int) * (indeg + 1)), *rd = malloc(sizeof(int) * (indeg + 1));
    for (int i = 0; i < outdeg; i++)
        sc[i] = M, sd[i] = i * M;
    memset(rv, 0x55, span);
    memset(want, 0x55, span);
    for (int j = 0; j < indeg; j++) {
        rc[j] = M, rd[j] = j * (M + GAP);
        memcpy(want + rd[j], b.ref + (size_t)j * M, M);
    }
    if (passed_through("alltoallv"))
        PMPI_Neighbor_alltoallv(b.sbuf, sc, sd, MPI_BYTE, want, rc, rd, MPI_BYTE, g);
    MPI_Neighbor_alltoallv(b.sbuf, sc, sd, MPI_BYTE, rv, rc, rd, MPI_BYTE, g);
    CHECK(equal(rv, want, span), "alltoallv_gaps: blocks or gaps differ");
    free(rv), free(want), free(sc), free(sd), free(rc), free(rd);
    bufs_fini(&b);
}

static void case_repeated(void)
{
    bufs b;
    bufs_init(&b, 13);
    char *refs[20];
    for (int k = 0; k < 20; k++) { /* the truths first: the loop makes no other call */
        fill(b.sbuf, 20 + k);
        refs[k] = truth(b.sbuf);
    }
    int bad = 0;
    for (int k = 0; k < 20; k++) {
        fill(b.sbuf, 20 + k);
        exchange(b.sbuf, b.rbuf);
        bad += !equal(b.rbuf, refs[k], rb);
    }
    CHECK(bad == 0, "repeated: %d of 20 exchanges differ", bad);
    for (int k = 0; k < 20; k++)
        free(refs[k]);
    bufs_fini(&b);
}

/* Global, so declared: the advisor names a call site by its function's
 * dynamic symbol (-rdynamic) where nhood is built without libdw. */
void known_window(bufs *b);
void known_nonblocking(bufs *b);

/* The advisor's known window: the exchange, 3 ms of work on other data,
 * then the first access.  noinline: its own call site and symbol. */
__attribute__((noinline)) void known_window(bufs *b)
{
    long sum = 0, want = 0;
    exchange(b->sbuf, b->rbuf);
    double t = now_us();
    spin_us(WINDOW_US);
    own_window[0] += now_us() - t;
    for (size_t i = 0; i < rb; i++) /* the first access, in this function's own code */
        sum += ((volatile char *)b->rbuf)[i];
    for (size_t i = 0; i < rb; i++)
        want += b->ref[i];
    CHECK(sum == want && equal(b->rbuf, b->ref, rb), "known_window: received data differs");
}

/* The same for a nonblocking call: started, waited for at once, then
 * 3 ms of other work before the first access; and two requests completed
 * together by MPI_Waitall. */
__attribute__((noinline)) void known_nonblocking(bufs *b)
{
    long sum = 0, want = 0;
    MPI_Request req;
    if (rank == 0 && indeg > 0)
        spin_us(500);
    MPI_Ineighbor_alltoall(b->sbuf, M, MPI_BYTE, b->rbuf, M, MPI_BYTE, g, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double t = now_us();
    spin_us(WINDOW_US);
    own_window[1] += now_us() - t;
    for (size_t i = 0; i < rb; i++)
        sum += ((volatile char *)b->rbuf)[i];
    for (size_t i = 0; i < rb; i++)
        want += b->ref[i];
    CHECK(sum == want && equal(b->rbuf, b->ref, rb), "known_nonblocking: received data differs");
}

static void case_waitall(void)
{
    bufs b[2];
    MPI_Request req[2];
    MPI_Status st[2];
    bufs_init(&b[0], 50);
    bufs_init(&b[1], 51);
    for (int k = 0; k < 2; k++)
        MPI_Ineighbor_alltoall(b[k].sbuf, M, MPI_BYTE, b[k].rbuf, M, MPI_BYTE, g, &req[k]);
    MPI_Waitall(2, req, st);
    CHECK(equal(b[0].rbuf, b[0].ref, rb) && equal(b[1].rbuf, b[1].ref, rb),
          "waitall: received data differs");
    bufs_fini(&b[0]);
    bufs_fini(&b[1]);
}

/* After MPI_Finalize: the CSV's rows for known_window and known_nonblocking. */
static void check_csv(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int found = 0;
    CHECK(f != NULL, "NHOOD_OVERLAP_CSV: %s was not written", path);
    if (!f)
        return;
    CHECK(fgets(line, sizeof(line), f) &&
              strcmp(line, "site,op,calls,call_us,window_us,first_touch,bound_us\n") == 0,
          "CSV header: %s", line);
    while (fgets(line, sizeof(line), f)) {
        char site[512], op[64], first[512];
        long calls;
        double call, window, bound;
        const char *fn = strncmp(line, "known_window+", 13) == 0        ? "known_window"
                         : strncmp(line, "known_nonblocking+", 18) == 0 ? "known_nonblocking"
                                                                        : NULL;
        if (!fn)
            continue;
        int ok = sscanf(line, "%511[^,],%63[^,],%ld,%lf,%lf,%511[^,],%lf", site, op, &calls, &call,
                        &window, first, &bound) == 7;
        found += ok;
        CHECK(ok && calls == 3 &&
                  strcmp(op, fn[6] == 'w' ? "MPI_Neighbor_alltoall" : "MPI_Ineighbor_alltoall") == 0,
              "%s row: %s", fn, line);
        /* The advisor's window runs from completion, a little before the
         * return, to the fault, a little after the first access. */
        double own = own_window[fn[6] == 'w' ? 0 : 1] / 3;
        CHECK(window >= 0.6 * WINDOW_US && window >= 0.95 * own - 20 && window <= 1.05 * own + 300,
              "%s: window %.1f us, want at least 0.6 x %.0f and 0.95-1.05 x the %.1f measured "
              "here",
              fn, window, WINDOW_US, own);
        CHECK(strncmp(first, fn, strlen(fn)) == 0 && first[strlen(fn)] == '+',
              "%s: first touch at %s", fn, first);
        double want = (window < call ? window : call) * 3;
        CHECK(bound > 0.99 * want - 0.1 && bound < 1.01 * want + 0.1, "%s: bound %.2f, want %.2f",
              fn, bound, want);
    }
    CHECK(found == 2, "%d of the 2 CSV rows (known_window, known_nonblocking) in %s", found, path);
    fclose(f);
}

int main(int argc, char **argv)
{
    int provided, size, dims[2] = {0, 0}, periods[2] = {1, 1}, *off;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    MPI_Dims_create(size, 2, dims);
    int s = tc_offsets("moore", 2, 1, &off);
    tc_graph(MPI_COMM_WORLD, 2, dims, periods, s, off, MPI_INFO_NULL, 0, &g, &outdeg, &indeg);
    free(off);
    sb = (size_t)outdeg * M;
    rb = (size_t)indeg * M;
    const char *mode = getenv("NHOOD_OVERLAP");
    const char *csv = getenv("NHOOD_OVERLAP_CSV");

    case_read_recv();
    case_write_send();
    case_mpi_send_recv();
    case_memcpy_recv();
    case_same_page();
    case_stack();
    case_io_write();
    case_malloc_free();
    case_free_recv();
    case_own_handler();
    case_alltoallv_gaps();
    case_repeated();
    case_waitall();
    for (int k = 0; k < 3; k++) {
        bufs b;
        bufs_init(&b, 40 + k);
        known_window(&b);
        bufs_fini(&b);
        bufs_init(&b, 45 + k);
        known_nonblocking(&b);
        bufs_fini(&b);
    }

    /* What the mode did (nhood's query, where nhood is loaded). */
    MPI_Barrier(MPI_COMM_WORLD); /* ends the last watch */
    int (*query)(nhood_overlap_counts *) = (int (*)(nhood_overlap_counts *))dlsym(
        RTLD_DEFAULT, "nhood_overlap_query");
    nhood_overlap_counts c = {0, 0, 0, 0};
    if (query)
        query(&c);
    if (mode && strcmp(mode, "defer") == 0 && query) {
        CHECK(c.deferred + c.done_at_start >= 30, "defer: %ld calls deferred, %ld done at start",
              c.deferred, c.done_at_start);
        if (rank > 0) { /* rank 0 came late: the others waited, so they deferred */
            CHECK(c.deferred >= 10, "defer: %ld calls deferred", c.deferred);
            CHECK(c.faults >= 5, "defer: %ld completed at a fault", c.faults);
        }
    } else if (mode && strcmp(mode, "report") == 0 && query) {
        CHECK(c.watched >= 20 && c.faults >= 10, "report: %ld watched, %ld faults", c.watched,
              c.faults);
    }
    MPI_Comm_free(&g);
    int code = check_finish_mpi();
    if (rank == 0 && csv && mode && strcmp(mode, "report") == 0 && query) {
        int before = failed;
        check_csv(csv);
        if (failed > before)
            code = 1;
    }
    return code;
}
