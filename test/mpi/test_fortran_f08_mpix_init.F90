! Open MPI 4.1 with use mpi_f08: the persistent forms of
! test_fortran_f08_init.f90 under their names there, MPIX_NEIGHBOR_*_INIT
! (use mpi_f08_ext), through the preprocessor as test_fortran_mpix_init.F90.
#define MPI_NEIGHBOR_ALLTOALL_INIT MPIX_NEIGHBOR_ALLTOALL_INIT
#define MPI_NEIGHBOR_ALLGATHER_INIT MPIX_NEIGHBOR_ALLGATHER_INIT
#define MPI_NEIGHBOR_ALLTOALLV_INIT MPIX_NEIGHBOR_ALLTOALLV_INIT
#define MPI_NEIGHBOR_ALLGATHERV_INIT MPIX_NEIGHBOR_ALLGATHERV_INIT
#define MPI_NEIGHBOR_ALLTOALLW_INIT MPIX_NEIGHBOR_ALLTOALLW_INIT
subroutine persistent_forms_f08(comm, rank, nnb, srcs, passed, failed)
  use mpi_f08
  use mpi_f08_ext
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer, intent(in) :: rank, nnb, srcs(nnb)
  integer, intent(inout) :: passed, failed
  integer, parameter :: nval = 2
  ! volatile: MPI reads and writes them between the calls that name them
  double precision, volatile :: sbuf(nval, nnb), rbuf(nval, nnb)
  integer :: ierr, form, it, t, k, bad, cnt(nnb), dsp(nnb)
  type(MPI_Request) :: req, reqs(1)
  type(MPI_Datatype) :: typ(nnb)
  integer(kind=MPI_ADDRESS_KIND) :: wdsp(nnb)
  logical :: gath, flag

#include "test_fortran_init_body.inc"
end subroutine persistent_forms_f08
