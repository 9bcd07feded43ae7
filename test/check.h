/* The tests' assertion: counts passes and failures, explains failures on
 * stderr (prefixed with check_prefix, e.g. the MPI rank). */
#ifndef NH_TEST_CHECK_H
#define NH_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;
static char check_prefix[64];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "FAIL %s%s:%d: ", check_prefix, __FILE__, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#ifdef MPI_VERSION
/* MPI tests: totals over ranks, printed by rank 0, then MPI_Finalize.
 * Returns the process exit code. */
__attribute__((unused)) static int check_finish_mpi(void)
{
    int rank, mine[2] = {passed, failed}, all[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d passed, %d failed\n", all[0], all[1]);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
#endif

#endif
