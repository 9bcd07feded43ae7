/* The persistent neighborhood collectives under their MPI-4 names, for the
 * library and the tests alike.  Open MPI 4.1 has them as
 * MPIX_Neighbor_*_init (its pcollreq extension, declared in mpi-ext.h,
 * with PMPIX_ profiling names); configure then defines
 * HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT and HAVE_MPI_NEIGHBOR_ALLTOALL_INIT,
 * and the MPI-4 names below stand for the MPIX ones: nhood's entry points
 * (intercept/functions.h) are exported as MPIX_Neighbor_*_init, nhood
 * calls the library's PMPIX_Neighbor_*_init as nh_mpi_Neighbor_*_init
 * (util/mpilib.h), and the tests call them (test/libmpi.h). */
#ifndef NH_INIT_FORMS_H
#define NH_INIT_FORMS_H

#include <mpi.h>

#ifdef HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
#include <mpi-ext.h>
#define MPI_Neighbor_alltoall_init MPIX_Neighbor_alltoall_init
#define MPI_Neighbor_allgather_init MPIX_Neighbor_allgather_init
#define MPI_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#define MPI_Neighbor_allgatherv_init MPIX_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoallw_init MPIX_Neighbor_alltoallw_init
#endif

#endif
