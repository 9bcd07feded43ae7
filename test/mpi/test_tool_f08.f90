! test_tool_body.inc with `use mpi_f08` (run-tool-tests.sh).
program test_tool_f08
  use mpi_f08
  implicit none
  integer, parameter :: iters = 5
  integer :: rank, nproc, ierr, s, mine, from_left, nsum
  type(MPI_Comm) :: ring, dup
  type(MPI_Info) :: info
  type(MPI_Request) :: req, reqs(2)
  type(MPI_Status) :: sts(2)
  integer :: nb(2), sbuf(2), rbuf(2)
  integer :: errors = 0
  character(*), parameter :: prog = 'test_tool_f08'
  include 'test_tool_body.inc'
end program test_tool_f08
