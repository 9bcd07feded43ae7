/* The simulated harness's measurement window (src/smpi/sync.h), under
 * SMPI: every rank starts at one instant (sync_start), and no rank leaves
 * sync_stop, so sends nothing more, before t0 + hold, even where its own
 * call ended long before; the time returned is the slowest rank's; a call
 * longer than the hold returns -1 and doubles the hold past it.  Without
 * the hold a rank done early starts the next collective while a slower
 * rank still exchanges, and that traffic entered the measured time.
 * Prints "N passed, N failed" (rank 0). */
#include <mpi.h>
#include <stdio.h>

#include "smpi/sync.h"

static int rank, failed, passed;

static void check(int ok, const char *what)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s\n", all ? "ok" : "not ok", what);
    all ? passed++ : failed++;
}

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    /* Rank r's "call" takes r us; the slowest p - 1. */
    double hold = 1e-4, t0 = sync_start(MPI_COMM_WORLD);
    double begin = MPI_Wtime();
    sync_sleep(rank * 1e-6);
    double us = sync_stop(t0, &hold), left = MPI_Wtime() - t0;
    check(begin - t0 < 1e-7 && begin >= t0, "every rank starts at the instant sync_start returns");
    check(us > p - 1 - 0.05 && us < p - 1 + 0.05, "the time is the slowest rank's");
    check(left >= 1e-4, "no rank leaves sync_stop before t0 + hold");

    /* A call longer than the hold: repeated, with the hold past it. */
    t0 = sync_start(MPI_COMM_WORLD);
    sync_sleep(rank == 0 ? 150e-6 : 0);
    us = sync_stop(t0, &hold);
    check(us == -1 && hold >= 3e-4,
          "a call longer than the hold asks for a repeat, the hold grows");
    t0 = sync_start(MPI_COMM_WORLD);
    sync_sleep(rank == 0 ? 150e-6 : 0);
    us = sync_stop(t0, &hold);
    check(us > 150 - 0.05 && us < 150 + 0.05, "the repeat fits the grown hold");

    if (rank == 0)
        printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
