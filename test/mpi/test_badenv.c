/* Does nothing but MPI_Init and MPI_Finalize: run-mpi-tests.sh starts it
 * with invalid NHOOD_* values and expects a clear error and a failure. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
