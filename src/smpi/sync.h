/* SMPI build only: a synchronized start for simulated measurements. */
#ifndef NH_SMPI_SYNC_H
#define NH_SMPI_SYNC_H

#include <mpi.h>
#include <stdio.h>
#include <time.h>

/* A (simulated) sleep of s seconds; none where s <= 0. */
static inline void sync_sleep(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

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
    sync_sleep(wait);
    return target;
}

/* The end of a call measured from t0 (sync_start): every rank holds, not
 * communicating, until t0 + *hold seconds, so the slowest rank's call never
 * shares the network with a faster rank's next traffic (the reduction here,
 * the next start's barrier); then the maximum over ranks of the call's time,
 * in us.  Without the hold, ranks done early sent that traffic while others
 * still exchanged: on the dragonfly platform it crossed the one router pair
 * joining two groups and made an 8 B message of a slower rank take 18 us,
 * not 1.4 (docs/simulation.md).  A call longer than the hold may have been
 * disturbed: then *hold grows past it and this returns -1, and the caller
 * repeats the call (the reduction is collective, so every rank does). */
static inline double sync_stop(double t0, double *hold)
{
    double t = MPI_Wtime() - t0, tmax;
    sync_sleep(t0 + *hold - MPI_Wtime());
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (tmax >= *hold) {
        *hold = 2 * tmax;
        return -1;
    }
    return tmax * 1e6;
}

#endif
