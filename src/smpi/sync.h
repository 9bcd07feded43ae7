/* SMPI build only: a synchronized start for simulated measurements. */
#ifndef NH_SMPI_SYNC_H
#define NH_SMPI_SYNC_H

#include <mpi.h>
#include <stdio.h>
#include <time.h>

/* Every rank returns from here at the same simulated instant, which it
 * returns: a barrier, the latest arrival time, and a (simulated) sleep until
 * a margin past it that covers the reduction's own completion.  SMPI's
 * clock is global (MPI_WTIME_IS_GLOBAL) and nanosleep is simulated. */
static inline double sync_start(MPI_Comm comm)
{
    const double margin = 2e-3; /* s, far above an allreduce at 16K ranks */
    double t, tmax;
    MPI_Barrier(comm);
    t = MPI_Wtime();
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
    double target = tmax + margin, wait = target - MPI_Wtime();
    if (wait < 0) {
        fprintf(stderr, "nhood: simulated synchronized start missed by %.3g s\n", -wait);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
    nanosleep(&ts, NULL);
    return target;
}

#endif
