! The persistent neighborhood collectives from Fortran 2008 (MPI-4
! libraries; test_fortran_f08_noinit.f90 stands in elsewhere), as
! test_fortran_init.f90 with the mpi_f08 types, called by
! test_fortran_f08.f90 on its 26-neighbor graph whose lists are in offset
! order: each form is started three times with fresh send data (MPI_START
! + MPI_WAIT, MPI_STARTALL + MPI_WAITALL, MPI_START + MPI_TEST), every
! received value checked, and the request freed.
subroutine persistent_forms_f08(comm, rank, nnb, srcs, passed, failed)
  use mpi_f08
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

  include 'test_fortran_init_body.inc'
end subroutine persistent_forms_f08
