/* nhood-simcalib: measures a simulated platform the way nhood's cost model
 * sees a machine (SMPI build only; scripts/nhood-sim --calibrate runs it),
 * to check a platform file; the fit itself is nhood-calibrate's
 * (scripts/sim-calibrate.sh).
 *
 * 1. Ping-pong between rank 0 and rank 1 (same node) and between rank 0 and
 *    rank --stride (next node): half the round trip, 8 B to 64 KiB.
 * 2. A one-phase exchange like one round of nhood's schedules: every rank
 *    posts k receives and k sends of m bytes to the ranks at offsets
 *    +-stride, +-2 stride, ... (other nodes), then waits; all ranks start
 *    at the same simulated instant, time = maximum over ranks: k = 1..32
 *    at 8 B, and k = 4 from 8 B to twice the eager limit.
 * Output: "# ..." lines on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync.h"

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
    static double hold = 1e-4; /* sync_stop's, for every exchange of the run */
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
        double tmax = sync_stop(t0, &hold);
        if (tmax < 0)
            r--; /* disturbed: again */
        else if (tmax < best)
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
    for (int k = 1; k <= 32; k *= 2) {
        double t = exchange(k, 8, stride, 3);
        if (rank == 0)
            printf("# exchange k=%2d m=8 B: %.3f us\n", k, t);
    }
    const int ms[5] = {8, eager / 8, eager / 2, eager, 2 * eager};
    for (int i = 0; i < 5; i++) {
        double t = exchange(4, ms[i], stride, 3);
        if (rank == 0)
            printf("# exchange k= 4 m=%d B: %.3f us\n", ms[i], t);
    }
    MPI_Finalize();
    return 0;
}
