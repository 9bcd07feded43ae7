/* nhood-simcalib: measures a simulated platform the way nhood's cost model
 * sees a machine, and fits the model's parameters (SMPI build only;
 * scripts/nhood-sim --calibrate runs it).
 *
 * 1. Ping-pong between rank 0 and rank 1 (same node) and between rank 0 and
 *    rank --stride (next node): half the round trip, 8 B to 64 KiB.
 * 2. A one-phase exchange like one round of nhood's schedules: every rank
 *    posts k receives and k sends of m bytes to the ranks at offsets
 *    +-stride, +-2 stride, ... (other nodes), then waits; all ranks start at
 *    the same simulated instant, time = maximum over ranks.  Fitted to the cost model's per-phase
 * and per-message terms (src/select/select.c): T(k, m) = alpha + k * (o + beta * m) + k * rndv [m >
 * eager] alpha and o from k = 2..32 at 8 B (least squares), beta from m = 8 B to 8 KiB at k = 4,
 * rndv from the step above the eager limit. The platform charges nothing for local copies or
 * datatype processing, so the copy, pack and datatype terms are 0 for it. Output: "# ..." lines
 * with the measurements, then NHOOD_COST_*=value lines (shell syntax) on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync.h"
#include "tools/calib.h"

static int rank, p;

static double pingpong(int peer, int m, int reps)
{
    char *buf = calloc((size_t)m + 1, 1);
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 || rank == peer) {
        int other = rank == 0 ? peer : 0;
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            if (rank == 0) {
                MPI_Send(buf, m, MPI_BYTE, other, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, m, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, m, MPI_BYTE, other, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, m, MPI_BYTE, other, 0, MPI_COMM_WORLD);
            }
        }
        t = (MPI_Wtime() - t0) / reps / 2 * 1e6;
    }
    free(buf);
    return t;
}

/* One exchange with k peers at offsets +-stride, +-2 stride, ...; maximum
 * over ranks of the median of reps calls. */
static double exchange(int k, int m, int stride, int reps)
{
    char *sbuf = calloc((size_t)k * m + 1, 1), *rbuf = calloc((size_t)k * m + 1, 1);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t)k);
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t0 = sync_start(MPI_COMM_WORLD);
        for (int i = 0; i < k; i++) {
            int off = (i / 2 + 1) * stride * (i % 2 ? -1 : 1);
            int src = ((rank - off) % p + p) % p;
            MPI_Irecv(rbuf + (size_t)i * m, m, MPI_BYTE, src, i, MPI_COMM_WORLD, &req[i]);
        }
        for (int i = 0; i < k; i++) {
            int off = (i / 2 + 1) * stride * (i % 2 ? -1 : 1);
            int dst = ((rank + off) % p + p) % p;
            MPI_Isend(sbuf + (size_t)i * m, m, MPI_BYTE, dst, i, MPI_COMM_WORLD, &req[k + i]);
        }
        MPI_Waitall(2 * k, req, MPI_STATUSES_IGNORE);
        double t = (MPI_Wtime() - t0) * 1e6, tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tmax < best)
            best = tmax;
    }
    free(sbuf);
    free(rbuf);
    free(req);
    return best;
}

int main(int argc, char **argv)
{
    int stride = 1, eager = 8192, pingpong_only = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pingpong") == 0)
            pingpong_only = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--stride") == 0)
            stride = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--eager") == 0)
            eager = atoi(argv[++i]);
    }
    if (stride < 1 || p < (pingpong_only ? stride + 1 : 33 * stride)) {
        if (rank == 0)
            fprintf(stderr,
                    "nhood-simcalib: needs at least 33 * stride ranks (stride %d, %d "
                    "ranks); usage: nhood-simcalib [--stride RANKS_PER_NODE] [--eager B]\n",
                    stride, p);
        MPI_Finalize();
        return 2;
    }
    static const int sizes[] = {8, 1024, 8192, 16384, 65536};
    for (int i = 0; i < 5; i++) {
        double intra = stride > 1 ? pingpong(1, sizes[i], 10) : 0;
        double inter = pingpong(stride, sizes[i], 10);
        if (rank == 0)
            printf("# ping-pong %6d B: one-way %.3f us between nodes, %.3f us within a node\n",
                   sizes[i], inter, intra);
    }
    if (pingpong_only) {
        MPI_Finalize();
        return 0;
    }
    /* alpha, o: k = 2..32 messages of 8 B */
    double kx[5], ky[5], alpha, o;
    for (int i = 0; i < 5; i++) {
        kx[i] = 2 << i;
        ky[i] = exchange((int)kx[i], 8, stride, 3);
        if (rank == 0)
            printf("# exchange k=%2d m=8 B: %.3f us\n", (int)kx[i], ky[i]);
    }
    cal_line_fit(kx, ky, 5, &alpha, &o);
    /* beta: k = 4, m = 8 B .. eager */
    double mx[4], my[4], a2, slope;
    const int ms[4] = {8, eager / 8, eager / 2, eager};
    for (int i = 0; i < 4; i++) {
        mx[i] = ms[i];
        my[i] = exchange(4, ms[i], stride, 3);
        if (rank == 0)
            printf("# exchange k= 4 m=%d B: %.3f us\n", ms[i], my[i]);
    }
    cal_line_fit(mx, my, 4, &a2, &slope);
    double beta = slope / 4;
    /* rndv: just above the eager limit, compared with the eager line */
    double above = exchange(4, 2 * eager, stride, 3);
    double rndv = (above - (alpha + 4 * (o + beta * 2 * eager))) / 4;
    if (rndv < 0)
        rndv = 0;
    if (rank == 0) {
        printf("# exchange k= 4 m=%d B: %.3f us\n", 2 * eager, above);
        printf("# fit: T(k, m) = %.4f + k * (%.4f + %.3g * m) [+ k * %.4f above %d B]\n", alpha, o,
               beta, rndv, eager);
        printf("NHOOD_COST_ALPHA=%.4f\nNHOOD_COST_O=%.4f\nNHOOD_COST_BETA=%.6g\n"
               "NHOOD_COST_RNDV=%.4f\nNHOOD_COST_EAGER=%d\nNHOOD_COST_GAMMA=0\nNHOOD_COST_PACK=0\n"
               "NHOOD_COST_GATHER=0\nNHOOD_COST_GATHER_SMALL=0\nNHOOD_COST_DELTA=0\n",
               alpha, o > 0 ? o : 0, beta > 0 ? beta : 0, rndv, eager);
    }
    MPI_Finalize();
    return 0;
}
