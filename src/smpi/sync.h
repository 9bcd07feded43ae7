/* SMPI build only: a synchronized start for simulated measurements. */
#ifndef NH_SMPI_SYNC_H
#define NH_SMPI_SYNC_H

#include <mpi.h>
#include <stdio.h>
#include <time.h>

/* Every rank returns from here at the same simulated instant, which it
 * returns: a barrier, the latest arrival time, and a (simulated) sleep until
 * a time past it that every rank has reached.  SMPI's clock is global
 * (MPI_WTIME_IS_GLOBAL) and nanosleep is simulated.  The margin is measured,
 * not assumed: a fixed 2 ms was missed at 4096 ranks on the torus platform,
 * where SMPI's reductions take longer than that.  The first reduction
 * gives the last arrival; how long after it each rank had the result (a
 * second reduction, MAX) bounds the first reduction, and the second takes
 * about as long from its own last arrival, so four of them past the last
 * arrival is reached by every rank with room to spare. */
static inline double sync_start(MPI_Comm comm)
{
    double t, tmax, late, latest;
    MPI_Barrier(comm);
    t = MPI_Wtime();
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    late = MPI_Wtime() - tmax;
    MPI_Allreduce(&late, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
    double target = tmax + 4 * latest + 1e-6, wait = target - MPI_Wtime();
    if (wait < 0) {
        fprintf(stderr,
                "nhood: simulated synchronized start missed by %.3g s (a reduction took %.3g s)\n",
                -wait, latest);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    nanosleep(&ts, NULL);
    return target;
}

#endif
