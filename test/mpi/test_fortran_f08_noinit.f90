! Stands in for test_fortran_f08_init.f90 where the MPI library has no
! persistent neighborhood collectives (MPI-3 libraries such as Open MPI
! 4.1): nothing to test, nothing counted.
subroutine persistent_forms_f08(comm, rank, nnb, srcs, passed, failed)
  use mpi_f08
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer, intent(in) :: rank, nnb, srcs(nnb)
  integer, intent(inout) :: passed, failed
end subroutine persistent_forms_f08
