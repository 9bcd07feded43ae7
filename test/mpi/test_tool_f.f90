! test_tool_body.inc with `use mpi` (run-tool-tests.sh).
program test_tool_f
  use mpi
  implicit none
  integer, parameter :: iters = 5
  integer :: rank, nproc, ring, dup, info, ierr, s, req, mine, from_left, nsum
  integer :: nb(2), sbuf(2), rbuf(2), reqs(2), sts(MPI_STATUS_SIZE, 2)
  integer :: errors = 0
  character(*), parameter :: prog = 'test_tool_f'
  include 'test_tool_body.inc'
end program test_tool_f
