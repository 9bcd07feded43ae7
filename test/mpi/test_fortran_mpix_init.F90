! Open MPI 4.1: the persistent forms of test_fortran_init.f90 under their
! names there, MPIX_NEIGHBOR_*_INIT (the pcollreq extension, use mpi_ext);
! the same body, through the preprocessor so that its MPI-4 names become
! the MPIX ones (nhood exports both, src/intercept/fortran.c).
#define MPI_NEIGHBOR_ALLTOALL_INIT MPIX_NEIGHBOR_ALLTOALL_INIT
#define MPI_NEIGHBOR_ALLGATHER_INIT MPIX_NEIGHBOR_ALLGATHER_INIT
#define MPI_NEIGHBOR_ALLTOALLV_INIT MPIX_NEIGHBOR_ALLTOALLV_INIT
#define MPI_NEIGHBOR_ALLGATHERV_INIT MPIX_NEIGHBOR_ALLGATHERV_INIT
#define MPI_NEIGHBOR_ALLTOALLW_INIT MPIX_NEIGHBOR_ALLTOALLW_INIT
subroutine persistent_forms(comm, rank, nnb, srcs, passed, failed)
  use mpi
  use mpi_ext
  implicit none
  integer, intent(in) :: comm, rank, nnb, srcs(nnb)
  integer, intent(inout) :: passed, failed
  integer, parameter :: nval = 2
  ! volatile: MPI reads and writes them between the calls that name them
  double precision, volatile :: sbuf(nval, nnb), rbuf(nval, nnb)
  integer :: req, reqs(1), ierr, form, it, t, k, bad, cnt(nnb), dsp(nnb), typ(nnb)
  integer(kind=MPI_ADDRESS_KIND) :: wdsp(nnb)
  logical :: gath, flag

#include "test_fortran_init_body.inc"
end subroutine persistent_forms
