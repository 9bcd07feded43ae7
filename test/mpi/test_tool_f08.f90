! test_tool.c from Fortran (`use mpi_f08`), for nhood beside a PMPI tool
! (test/tool/count_tool.c): a ring graph created with the isomorphic=true
! hint, MPI_NEIGHBOR_ALLTOALL blocking and nonblocking, MPI_NEIGHBOR_ALLGATHER
! on a duplicate, and the program's own point-to-point, barrier and
! reduction calls.  Every result is checked against MPI's definition; the
! tool's counts and nhood's report are compared by run-tool-tests.sh.
! Needs 3 or more ranks.
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
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nproc, ierr)
  if (nproc < 3) then
    if (rank == 0) write (0, '(a)') 'test_tool_f08: needs 3 or more ranks'
    call MPI_FINALIZE(ierr)
    stop 1
  end if
  nb = [mod(rank + nproc - 1, nproc), mod(rank + 1, nproc)]
  call MPI_INFO_CREATE(info, ierr)
  call MPI_INFO_SET(info, 'isomorphic', 'true', ierr)
  call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2, nb, MPI_UNWEIGHTED, 2, nb, &
       MPI_UNWEIGHTED, info, .false., ring, ierr)
  call MPI_INFO_FREE(info, ierr)
  do s = 0, iters - 1
    sbuf = [s * 1000 + 100 * rank, s * 1000 + 100 * rank + 1]
    call MPI_NEIGHBOR_ALLTOALL(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, ring, ierr)
    call check_alltoall(s)
  end do
  do s = 0, iters - 1
    sbuf = [s * 1000 + 100 * rank, s * 1000 + 100 * rank + 1]
    call MPI_INEIGHBOR_ALLTOALL(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, ring, req, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
    call check_alltoall(s)
  end do
  call MPI_COMM_DUP(ring, dup, ierr)
  do s = 0, iters - 1
    mine = 10 * rank + s
    call MPI_NEIGHBOR_ALLGATHER(mine, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, dup, ierr)
    call expect(rbuf(1) == 10 * nb(1) + s, 'allgather')
    call expect(rbuf(2) == 10 * nb(2) + s, 'allgather')
  end do
  call MPI_COMM_FREE(dup, ierr)
  ! The program's own traffic: a ring shift, a barrier, a reduction.
  from_left = -1
  call MPI_IRECV(from_left, 1, MPI_INTEGER, nb(1), 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(rank, 1, MPI_INTEGER, nb(2), 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, sts, ierr)
  call expect(from_left == nb(1), 'ring shift')
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_ALLREDUCE(errors, nsum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_COMM_FREE(ring, ierr)
  call MPI_FINALIZE(ierr)
  if (nsum /= 0) stop 1
contains
  ! Rank r sends s*1000 + 100*r + j to destination j of the ring [left,
  ! right]: it receives from its left neighbor that rank's block 1 and from
  ! its right neighbor that rank's block 0.
  subroutine check_alltoall(step)
    integer, intent(in) :: step
    call expect(rbuf(1) == step * 1000 + 100 * nb(1) + 1, 'alltoall from the left')
    call expect(rbuf(2) == step * 1000 + 100 * nb(2), 'alltoall from the right')
  end subroutine check_alltoall
  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      errors = errors + 1
      if (errors <= 10) write (0, '(a,i0,2a)') 'test_tool_f08: rank ', rank, ': wrong ', what
    end if
  end subroutine expect
end program test_tool_f08
