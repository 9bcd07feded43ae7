/* nhood-calibrate's measurements: every figure the median, over
 * repetitions, of the slowest rank's time, all ranks starting together,
 * repeated until its relative standard error is under the target; the
 * micro-benchmarks of what the cost model's parameters stand for
 * (ping-pong, posting, one phase of k messages, local copies). */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#ifdef NHOOD_SMPI
#include "smpi/sync.h"
#endif

int rank, nprocs, quick;
int tiers[NH_NET_TIERS];
int tier_links[NH_NET_TIERS] = {1, 1, 1};
int tier_gateway;
double rse_target = 0.01, t_start;
int max_reps = 1000;
#ifdef NHOOD_SMPI
const int sim_reps = 3; /* simulated times repeat exactly */
#else
const int sim_reps = 0;
#endif

void progress(const char *fmt, ...)
{
    if (rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nhood-calibrate [%5.1f s]: ", MPI_Wtime() - t_start);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* All ranks start a timed call together. */
static double start_together(void)
{
#ifdef NHOOD_SMPI
    return sync_start(MPI_COMM_WORLD);
#else
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
#endif
}

int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v (sorted in place) and its relative standard error,
 * sqrt(pi/2) sd / sqrt(n) / median. */
static double median_rse(double *v, int n, double *rse)
{
    double sum = 0, sq = 0;
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    for (int i = 0; i < n; i++)
        sum += v[i];
    for (int i = 0; i < n; i++)
        sq += (v[i] - sum / n) * (v[i] - sum / n);
    double sd = n > 1 ? sqrt(sq / (n - 1)) : 0;
    *rse = med > 0 ? 1.2533 * sd / sqrt((double)n) / med : 0;
    return med;
}

/* Times ncand operations, alternating, until each one's median of the
 * slowest rank's times has a relative standard error under the target
 * (identical decision everywhere: the times are reduced) or max_reps.
 * us[c]: medians in microseconds per call. */

void measure(op_fn fn, void *ctx, int ncand, double *us)
{
    double *t = malloc(sizeof(double) * (size_t)max_reps * (size_t)ncand),
           *all = malloc(sizeof(double) * (size_t)max_reps * (size_t)ncand),
           *v = malloc(sizeof(double) * (size_t)max_reps);
    int n = 0, batch = sim_reps ? sim_reps : quick ? 10 : 20, inner;
    /* Warm-up (set-up, caches), timed: each timing repeats a call often
     * enough to last about 100 us, so that the start's skew between ranks
     * does not count. */
    double t0 = start_together(), w;
    for (int c = 0; c < ncand; c++)
        fn(ctx, c);
    w = (MPI_Wtime() - t0) * 1e6 / ncand;
    MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    inner = w >= 100 ? 1 : w < 1 ? 100 : (int)(100 / w) + 1;
#ifdef NHOOD_SMPI /* simulated: every rank starts at the same instant */
    inner = 1;
#endif
    while (n < max_reps) {
        int k = n + batch > max_reps ? max_reps - n : batch;
        for (int r = n; r < n + k; r++)
            for (int c = 0; c < ncand; c++) {
                t0 = start_together();
                for (int i = 0; i < inner; i++)
                    fn(ctx, c);
                t[(size_t)c * max_reps + r] = (MPI_Wtime() - t0) * 1e6 / inner;
            }
        for (int c = 0; c < ncand; c++)
            MPI_Allreduce(t + (size_t)c * max_reps + n, all + (size_t)c * max_reps + n, k,
                          MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        n += k;
        double worst = 0, rse;
        for (int c = 0; c < ncand; c++) {
            memcpy(v, all + (size_t)c * max_reps, sizeof(double) * (size_t)n);
            us[c] = median_rse(v, n, &rse);
            worst = rse > worst ? rse : worst;
        }
        if (worst < rse_target || (sim_reps && n >= sim_reps))
            break;
        batch = n; /* double the repetitions */
    }
    free(t);
    free(all);
    free(v);
}

/* ---- 1. what the parameters stand for ---- */

typedef struct pp_ctx {
    int peer, m;
    char *buf;
} pp_ctx;

static void pingpong_op(void *vctx, int cand)
{
    pp_ctx *x = vctx;
    (void)cand;
    if (rank == 0) {
        MPI_Send(x->buf, x->m, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD);
        MPI_Recv(x->buf, x->m, MPI_BYTE, x->peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == x->peer) {
        MPI_Recv(x->buf, x->m, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(x->buf, x->m, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

/* One-way time between rank 0 and peer, microseconds. */
double pingpong(int peer, int m)
{
    pp_ctx x = {peer, m, calloc((size_t)m + 1, 1)};
    double us;
    measure(pingpong_op, &x, 1, &us);
    free(x.buf);
    return us / 2;
}

typedef struct fan_ctx {
    int a, b, m[2];
    char *buf;
} fan_ctx;

/* Candidate c: rank 0 sends m[c & 1] bytes twice at once, to a both
 * (c < 2) or to a and b (tags 1 and 2), and each receiver answers each
 * message empty. */
static void fanout_op(void *vctx, int cand)
{
    fan_ctx *x = vctx;
    MPI_Request r[4];
    MPI_Status st[4];
    int n = 0, m = x->m[cand & 1], b = cand < 2 ? x->a : x->b;
    for (int tag = 1; tag <= 2; tag++) {
        int to = tag == 1 ? x->a : b;
        char *p = x->buf + (size_t)(tag - 1) * m;
        if (rank == 0) {
            MPI_Isend(p, m, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r[n++]);
            MPI_Irecv(NULL, 0, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r[n++]);
        } else if (rank == to) {
            MPI_Irecv(p, m, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &r[n++]);
        }
    }
    MPI_Waitall(n, r, st);
    for (int tag = 1; rank != 0 && tag <= 2; tag++)
        if (rank == (tag == 1 ? x->a : b))
            MPI_Send(NULL, 0, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
}

void fanout(int a, int b, double per_byte[2])
{
    fan_ctx x = {a, b, {16384, 65536}, calloc((size_t)2 * 65536, 1)};
    double us[4];
    measure(fanout_op, &x, 4, us); /* in turn within each repetition */
    free(x.buf);
    for (int k = 0; k < 2; k++)
        per_byte[k] = (us[2 * k + 1] - us[2 * k]) / (2.0 * (65536 - 16384));
}

typedef struct ex_ctx {
    int k, m, stride, struct_n; /* struct_n > 0: messages of that many blocks */
    MPI_Comm comm;              /* among its ranks (every rank calls in one) */
    int me, np;
    char *sbuf, *rbuf;
    MPI_Request *req;
    MPI_Datatype stype, rtype;
} ex_ctx;

/* Message i's peer of rank me among np: the rank at offset +stride,
 * -stride, +2 stride, -2 stride, ... from me, in direction dir (+1: where
 * it goes, -1: where it comes from). */
static int peer(int me, int np, int i, int stride, int dir)
{
    int off = (i / 2 + 1) * stride * (i % 2 ? -1 : 1);
    return ((me + dir * off) % np + np) % np;
}

/* Every rank posts k receives and k sends of m bytes to the ranks at
 * offsets +-stride, +-2 stride, ... (one round of a schedule). */
static void exchange_op(void *vctx, int cand)
{
    ex_ctx *x = vctx;
    int k = x->k, m = x->m, useful = cand == 1 && x->struct_n > 0;
    for (int i = 0; i < k; i++) {
        int src = peer(x->me, x->np, i, x->stride, -1);
        if (useful)
            MPI_Irecv(x->rbuf + (size_t)i * 2 * m, 1, x->rtype, src, i, x->comm, &x->req[i]);
        else
            MPI_Irecv(x->rbuf + (size_t)i * m, m, MPI_BYTE, src, i, x->comm, &x->req[i]);
    }
    for (int i = 0; i < k; i++) {
        int dst = peer(x->me, x->np, i, x->stride, +1);
        if (useful)
            MPI_Isend(x->sbuf + (size_t)i * 2 * m, 1, x->stype, dst, i, x->comm, &x->req[k + i]);
        else
            MPI_Isend(x->sbuf + (size_t)i * m, m, MPI_BYTE, dst, i, x->comm, &x->req[k + i]);
    }
    for (int i = 0; i < 2 * k; i++) /* (MPICH's header makes gcc doubt MPI_STATUSES_IGNORE) */
        MPI_Wait(&x->req[i], MPI_STATUS_IGNORE);
}

/* Microseconds of an exchange of k messages of m bytes among the ranks
 * of comm (each rank in one); with struct_n > 0 also (us[1]) the same
 * bytes as struct messages of struct_n blocks taken from every other
 * block of a buffer (what nhood's zcopy binding sends). */
void exchange_in(MPI_Comm comm, int k, int m, int stride, int struct_n, double us[2])
{
    size_t span = (size_t)k * (size_t)m * (struct_n > 0 ? 2 : 1) + 1;
    ex_ctx x = {.k = k, .m = m, .stride = stride, .struct_n = struct_n, .comm = comm, .np = 1};
    x.sbuf = calloc(span, 1);
    x.rbuf = calloc(span, 1);
    x.req = malloc(sizeof(MPI_Request) * 2 * (size_t)k);
    x.stype = x.rtype = MPI_DATATYPE_NULL;
    MPI_Comm_rank(comm, &x.me);
    MPI_Comm_size(comm, &x.np);
    if (struct_n > 0) {
        int bl = m / struct_n;
        int *lens = malloc(sizeof(int) * (size_t)struct_n);
        MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)struct_n);
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)struct_n);
        for (int b = 0; b < struct_n; b++) {
            lens[b] = bl;
            disp[b] = (MPI_Aint)b * 2 * bl;
            types[b] = MPI_BYTE;
        }
        MPI_Type_create_struct(struct_n, lens, disp, types, &x.stype);
        MPI_Type_commit(&x.stype);
        MPI_Type_dup(x.stype, &x.rtype);
        MPI_Type_commit(&x.rtype);
        free(lens);
        free(disp);
        free(types);
    }
    measure(exchange_op, &x, struct_n > 0 ? 2 : 1, us);
    if (struct_n > 0) {
        MPI_Type_free(&x.stype);
        MPI_Type_free(&x.rtype);
    }
    free(x.sbuf);
    free(x.rbuf);
    free(x.req);
}

void exchange(int k, int m, int stride, int struct_n, double us[2])
{
    exchange_in(MPI_COMM_WORLD, k, m, stride, struct_n, us);
}

typedef struct set_ctx {
    ex_ctx x;
    const int *k, *m;
} set_ctx;

static void set_op(void *vctx, int cand)
{
    set_ctx *s = vctx;
    s->x.k = s->k[cand];
    s->x.m = s->m[cand];
    exchange_op(&s->x, 0);
}

void exchange_set(MPI_Comm comm, int n, const int *k, const int *m, int stride, double *us)
{
    size_t span = 1;
    for (int c = 0; c < n; c++)
        span = (size_t)k[c] * (size_t)m[c] + 1 > span ? (size_t)k[c] * (size_t)m[c] + 1 : span;
    int kmax = 1;
    for (int c = 0; c < n; c++)
        kmax = k[c] > kmax ? k[c] : kmax;
    set_ctx s = {.x = {.stride = stride, .comm = comm, .np = 1}, .k = k, .m = m};
    s.x.sbuf = calloc(span, 1);
    s.x.rbuf = calloc(span, 1);
    s.x.req = malloc(sizeof(MPI_Request) * 2 * (size_t)kmax);
    MPI_Comm_rank(comm, &s.x.me);
    MPI_Comm_size(comm, &s.x.np);
    measure(set_op, &s, n, us);
    free(s.x.sbuf);
    free(s.x.rbuf);
    free(s.x.req);
}

/* Microseconds a rank takes to post k[c] sends of 8 B to the ranks at
 * offsets +-stride, +-2 stride, ... and see them complete, their
 * receives posted before (a barrier between): k[c] send overheads.  The
 * n counts are timed in turn within each repetition (as exchange_set);
 * us[c]: the slowest rank's median over the repetitions. */
void posting_set(int n, const int *k, int stride, double *us)
{
    int reps = sim_reps ? sim_reps : quick ? 50 : 200, kmax = 1;
    for (int c = 0; c < n; c++)
        kmax = k[c] > kmax ? k[c] : kmax;
    char *sbuf = calloc((size_t)kmax * 8, 1), *rbuf = calloc((size_t)kmax * 8, 1);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)kmax);
    double *t = malloc(sizeof(double) * (size_t)reps * (size_t)n), rse;
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < n; c++) {
            for (int i = 0; i < k[c]; i++)
                MPI_Irecv(rbuf + (size_t)i * 8, 8, MPI_BYTE, peer(rank, nprocs, i, stride, -1), i,
                          MPI_COMM_WORLD, &req[k[c] + i]);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < k[c]; i++)
                MPI_Isend(sbuf + (size_t)i * 8, 8, MPI_BYTE, peer(rank, nprocs, i, stride, +1), i,
                          MPI_COMM_WORLD, &req[i]);
            for (int i = 0; i < k[c]; i++)
                MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            t[(size_t)c * reps + r] = (MPI_Wtime() - t0) * 1e6;
            for (int i = 0; i < k[c]; i++)
                MPI_Wait(&req[k[c] + i], MPI_STATUS_IGNORE);
        }
    for (int c = 0; c < n; c++)
        us[c] = median_rse(t + (size_t)c * reps, reps, &rse);
    MPI_Allreduce(MPI_IN_PLACE, us, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(req);
    free(t);
}

/* Local copies: microseconds per byte (rank 0's, broadcast). */
double copy_cost(int blocks, int bl, int stride)
{
    size_t total = (size_t)blocks * bl;
    char *src = calloc((size_t)blocks * stride + 1, 1), *dst = calloc(total + 1, 1);
    double best = 1e30;
    for (int rep = 0; rep < (quick ? 20 : 100); rep++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < 10; i++) {
            for (int b = 0; b < blocks; b++)
                memcpy(dst + (size_t)b * bl, src + (size_t)b * stride, (size_t)bl);
            src[i] = dst[total - 1 - (size_t)i]; /* keep the copies */
        }
        double t = (MPI_Wtime() - t0) * 1e6 / 10 / (double)total;
        best = t < best ? t : best;
    }
    free(src);
    free(dst);
    MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return best;
}
