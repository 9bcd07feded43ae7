! The persistent neighborhood collectives from Fortran (MPI-4 libraries;
! test_fortran_noinit.f90 stands in elsewhere), called by
! test_fortran_body.inc on its 26-neighbor graph whose lists are in offset
! order: each form is started three times with fresh send data (MPI_START
! + MPI_WAIT, MPI_STARTALL + MPI_WAITALL, MPI_START + MPI_TEST), every
! received value checked, and the request freed.
subroutine persistent_forms(comm, rank, nnb, srcs, passed, failed)
  use mpi
  implicit none
  integer, intent(in) :: comm, rank, nnb, srcs(nnb)
  integer, intent(inout) :: passed, failed
  integer, parameter :: nval = 2
  ! volatile: MPI reads and writes them between the calls that name them
  double precision, volatile :: sbuf(nval, nnb), rbuf(nval, nnb)
  integer :: req, reqs(1), ierr, form, it, t, k, bad, cnt(nnb), dsp(nnb), typ(nnb)
  integer(kind=MPI_ADDRESS_KIND) :: wdsp(nnb)
  logical :: gath, flag

  include 'test_fortran_init_body.inc'
end subroutine persistent_forms
