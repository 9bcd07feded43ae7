/* One forwarding phase alone, as plain MPI under SimGrid SMPI
 * (scripts/sim-phase-probe.sh; docs/simulation.md, two groups): on an
 * X x Y x Z grid (rank = (x Y + y) Z + z) every rank sends N messages of
 * SIZE bytes to its neighbours at the offsets (dx, dy, 0) of the pattern,
 * in that order, and receives from the opposite ones:
 *   8: (-1,-1) (-1,0) (-1,1) (0,-1) (0,1) (1,-1) (1,0) (1,1), bruck's order
 *   6: the same without (0,-1) and (0,1)
 *   2: (-1,0) (1,0), torus's first phase
 * Two synchronized starts (src/smpi/sync.h), each held past the slowest
 * rank's end; prints the slowest rank of the second, its posting time and
 * when each of its receives completed (us from the start). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sync.h"

static const int off8[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1},
                               {0, 1},   {1, -1}, {1, 0},  {1, 1}};
static const int off6[6][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {1, -1}, {1, 0}, {1, 1}};
static const int off2[2][2] = {{-1, 0}, {1, 0}};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc == 6 ? atoi(argv[4]) : 0;
    if (n != 8 && n != 6 && n != 2) {
        fprintf(stderr, "usage: sim-phase-probe X Y Z 8|6|2 SIZE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int r, X = atoi(argv[1]), Y = atoi(argv[2]), Z = atoi(argv[3]), sz = atoi(argv[5]);
    const int(*off)[2] = n == 8 ? off8 : n == 6 ? off6 : off2;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    int x = r / (Y * Z), y = r / Z % Y, z = r % Z;
    char *sb = calloc((size_t)n * (size_t)sz + 1, 1), *rb = calloc((size_t)n * (size_t)sz + 1, 1);
    MPI_Request q[16];
    double end = 0, post = 0, done[8];
    int which[8];
    for (int it = 0; it < 2; it++) {
        double t0 = sync_start(MPI_COMM_WORLD);
        for (int j = 0; j < n; j++) {
            int sx = (x - off[j][0] + X) % X, sy = (y - off[j][1] + Y) % Y;
            MPI_Irecv(rb + j * sz, sz, MPI_BYTE, (sx * Y + sy) * Z + z, j, MPI_COMM_WORLD, &q[j]);
        }
        for (int j = 0; j < n; j++) {
            int tx = (x + off[j][0] + X) % X, ty = (y + off[j][1] + Y) % Y;
            MPI_Isend(sb + j * sz, sz, MPI_BYTE, (tx * Y + ty) * Z + z, j, MPI_COMM_WORLD,
                      &q[n + j]);
        }
        post = MPI_Wtime() - t0;
        for (int k = 0, got = 0; k < 2 * n; k++) {
            int w;
            MPI_Waitany(2 * n, q, &w, MPI_STATUS_IGNORE);
            if (w < n) {
                which[got] = w;
                done[got++] = MPI_Wtime() - t0;
            }
        }
        end = MPI_Wtime() - t0;
        sync_sleep(t0 + 300e-6 - MPI_Wtime()); /* every rank silent until all are done */
    }
    struct {
        double v;
        int r;
    } in = {end, r}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (r == out.r) {
        printf("pattern %d, %d B: slowest rank %d (x %d y %d), posted by %.3f us, done %.3f us\n",
               n, sz, r, x, y, post * 1e6, end * 1e6);
        for (int k = 0; k < n; k++)
            printf("  from (%+d,%+d): received at %.3f us\n", off[which[k]][0], off[which[k]][1],
                   done[k] * 1e6);
    }
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
