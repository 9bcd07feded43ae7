/* <mpi.h> for tests that pass MPI_UNWEIGHTED or MPI_WEIGHTS_EMPTY.  Open
 * MPI defines them as (int *)2 and (int *)3, the MPI-5 ABI as (int *)10
 * and 11, and gcc 14 and later take such a constant for a pointer to an
 * empty array where mpi.h declares the parameter an array, warning at
 * every call that passes one (-Wstringop-overread, -Wstringop-overflow).
 * The standard defines these values; the warning says nothing about the
 * program, so these tests turn it off where such an mpi.h is the one
 * included (MPICH's are null pointers). */
#ifndef NH_TEST_OMPI_WEIGHTS_H
#define NH_TEST_OMPI_WEIGHTS_H

#include <mpi.h>

#if (defined(OPEN_MPI) || defined(MPI_ABI_VERSION)) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#endif
