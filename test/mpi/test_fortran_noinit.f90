! Stands in for test_fortran_init.f90 where the MPI library has no
! persistent neighborhood collectives (MPI-3 libraries such as Open MPI
! 4.1): nothing to test, nothing counted.
subroutine persistent_forms(comm, rank, nnb, srcs, passed, failed)
  implicit none
  integer, intent(in) :: comm, rank, nnb, srcs(nnb)
  integer, intent(inout) :: passed, failed
end subroutine persistent_forms
