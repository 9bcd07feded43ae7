! The Fortran 2008 binding (use mpi_f08): test_fortran_body.inc's halo
! exchange and every form of its calls, with handles of the mpi_f08 types,
! type(MPI_Status), the optional ierror left out of some calls (the library
! passes a null pointer then), MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY,
! MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE of mpi_f08, a duplicated
! graph communicator and MPI_COMM_FREE.  The persistent forms where the
! library has them (test_fortran_f08_init.f90, or the stand-in
! test_fortran_f08_noinit.f90).  run-mpi-tests.sh checks nhood's report.
program test_fortran_f08
  use mpi_f08
  implicit none
  integer, parameter :: nval = 3, nnb = 26
  integer :: ierr, rank, nprocs, passed, failed, t, k, j
  integer :: dims(3), coords(3), off(3, nnb), srcs(nnb), dsts(nnb), wts(nnb)
  type(MPI_Comm) :: graph, graph2, graph3, graph4, dup
  type(MPI_Info) :: info
  type(MPI_Datatype) :: stype, rtype
  integer :: indeg, outdeg, blens(1)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  logical :: weighted
  character(len=64) :: hint
  double precision, allocatable :: sbuf(:, :), abuf(:)
  double precision, allocatable, volatile :: rbuf(:, :)
  integer, allocatable :: counts(:), displs(:)
  type(MPI_Datatype), allocatable :: types(:)

  passed = 0
  failed = 0
  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init ierror')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  dims = 0
  call MPI_Dims_create(nprocs, 3, dims)
  call to_coords(rank, coords)

  t = 0
  do j = -1, 1
    do k = -1, 1
      do indeg = -1, 1
        if (j /= 0 .or. k /= 0 .or. indeg /= 0) then
          t = t + 1
          off(:, t) = (/ j, k, indeg /)
        end if
      end do
    end do
  end do
  do t = 1, nnb
    dsts(t) = to_rank(coords + off(:, t))
    srcs(t) = to_rank(coords - off(:, t))
    wts(t) = t
  end do
  allocate(sbuf(nval, nnb), rbuf(nval, nnb))

  ! 1. Unweighted graph, no info (no ierror): nhood infers the grid.
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nnb, srcs, MPI_UNWEIGHTED, nnb, dsts, &
       MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph)
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  call check(ierr == MPI_SUCCESS .and. indeg == nnb .and. outdeg == nnb .and. .not. weighted, &
       'MPI_UNWEIGHTED graph: degrees and weighted flag')
  call exchange(graph, 1, .true.)
  call gather(graph)
  call bottom(graph)
  call vforms(graph)
  call persistent_forms_f08(graph, rank, nnb, srcs, passed, failed)

  ! 2. Weighted graph with nhood's info hint for the grid.
  call MPI_Info_create(info)
  write (hint, '(I0, ",", I0, ",", I0)') dims
  call MPI_Info_set(info, 'nhood_dims', trim(hint))
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nnb, srcs, wts, nnb, dsts, wts, info, &
       .false., graph2, ierr)
  call check(ierr == MPI_SUCCESS, 'weighted MPI_Dist_graph_create_adjacent ierror')
  call MPI_Info_free(info)
  call MPI_Dist_graph_neighbors_count(graph2, indeg, outdeg, weighted)
  call check(weighted, 'weighted graph: weighted flag')
  call exchange(graph2, 2, .true.)

  ! 3. No edges, MPI_WEIGHTS_EMPTY.
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, srcs, MPI_WEIGHTS_EMPTY, 0, dsts, &
       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., graph3, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_WEIGHTS_EMPTY graph ierror')
  call MPI_Dist_graph_neighbors_count(graph3, indeg, outdeg, weighted)
  call check(indeg == 0 .and. outdeg == 0, 'empty graph degrees')
  call MPI_Comm_free(graph3)

  ! 4. MPI_Dist_graph_create: each rank names its own out-edges.
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, (/ rank /), (/ nnb /), dsts, MPI_UNWEIGHTED, &
       MPI_INFO_NULL, .false., graph4, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Dist_graph_create ierror')
  call MPI_Dist_graph_neighbors(graph4, nnb, srcs, wts, nnb, dsts, wts)
  call exchange(graph4, 5, .false.)

  ! 5. A duplicate of the first graph keeps its neighborhood.
  call MPI_Dist_graph_neighbors(graph, nnb, srcs, wts, nnb, dsts, wts)
  call MPI_Comm_dup(graph, dup, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Comm_dup ierror')
  call exchange(dup, 6, .true.)
  call MPI_Comm_free(dup, ierr)
  call check(ierr == MPI_SUCCESS .and. dup == MPI_COMM_NULL, 'MPI_Comm_free')

  call MPI_Comm_free(graph)
  call MPI_Comm_free(graph2)
  call MPI_Comm_free(graph4)
  call inplace()

  call MPI_Allreduce(MPI_IN_PLACE, passed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, failed, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(I0, " passed, ", I0, " failed")', passed, failed
  call MPI_Finalize()
  if (failed /= 0) stop 1

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (cond) then
      passed = passed + 1
    else
      failed = failed + 1
      write (0, '("FAIL rank ", I0, ": ", A)') rank, what
    end if
  end subroutine check

  subroutine to_coords(r, c)
    integer, intent(in) :: r
    integer, intent(out) :: c(3)
    c(3) = mod(r, dims(3))
    c(2) = mod(r / dims(3), dims(2))
    c(1) = r / (dims(2) * dims(3))
  end subroutine to_coords

  integer function to_rank(c)
    integer, intent(in) :: c(3)
    integer :: w(3)
    w = modulo(c, dims)
    to_rank = (w(1) * dims(2) + w(2)) * dims(3) + w(3)
  end function to_rank

  double precision function val(r, tt, kk, round)
    integer, intent(in) :: r, tt, kk, round
    val = dble(r) * 1.0d6 + dble(tt) * 1.0d2 + dble(kk) + dble(round) * 0.125d0
  end function val

  subroutine exchange(comm, round, strict)
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: round
    logical, intent(in) :: strict
    integer :: bad
    double precision :: tpart
    do t = 1, nnb
      do k = 1, nval
        sbuf(k, t) = val(rank, t, k, round)
      end do
    end do
    rbuf = -1.0d0
    call MPI_Neighbor_alltoall(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
         MPI_DOUBLE_PRECISION, comm, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Neighbor_alltoall ierror')
    bad = 0
    do t = 1, nnb
      do k = 1, nval
        if (strict) then
          if (rbuf(k, t) /= val(srcs(t), t, k, round)) bad = bad + 1
        else
          tpart = (rbuf(k, t) - val(srcs(t), 0, k, round)) / 1.0d2
          if (tpart < 1 .or. tpart > nnb .or. tpart /= aint(tpart)) bad = bad + 1
        end if
      end do
    end do
    call check(bad == 0, 'MPI_Neighbor_alltoall received values')
  end subroutine exchange

  subroutine gather(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: bad
    do k = 1, nval
      sbuf(k, 1) = val(rank, 0, k, 3)
    end do
    rbuf = -1.0d0
    call MPI_Neighbor_allgather(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
         MPI_DOUBLE_PRECISION, comm)
    bad = 0
    do t = 1, nnb
      do k = 1, nval
        if (rbuf(k, t) /= val(srcs(t), 0, k, 3)) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'MPI_Neighbor_allgather received values')
  end subroutine gather

  subroutine bottom(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: bad
    do t = 1, nnb
      do k = 1, nval
        sbuf(k, t) = val(rank, t, k, 4)
      end do
    end do
    rbuf = -1.0d0
    blens(1) = nval
    call MPI_Get_address(sbuf, addr(1))
    call MPI_Type_create_hindexed(1, blens, addr, MPI_DOUBLE_PRECISION, stype)
    call MPI_Type_commit(stype)
    call MPI_Get_address(rbuf, addr(1))
    call MPI_Type_create_hindexed(1, blens, addr, MPI_DOUBLE_PRECISION, rtype)
    call MPI_Type_commit(rtype)
    call MPI_Neighbor_alltoall(MPI_BOTTOM, 1, stype, MPI_BOTTOM, 1, rtype, comm, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_Neighbor_alltoall(MPI_BOTTOM) ierror')
    bad = 0
    do t = 1, nnb
      do k = 1, nval
        if (rbuf(k, t) /= val(srcs(t), t, k, 4)) bad = bad + 1
      end do
    end do
    call check(bad == 0, 'MPI_Neighbor_alltoall(MPI_BOTTOM) received values')
    call MPI_Type_free(stype)
    call MPI_Type_free(rtype)
  end subroutine bottom

  logical function all_null(req)
    type(MPI_Request), intent(in) :: req(:)
    integer :: i
    all_null = .true.
    do i = 1, size(req)
      if (req(i) /= MPI_REQUEST_NULL) all_null = .false.
    end do
  end function all_null

  ! The v and w forms, blocking and nonblocking, completed by each
  ! completion call in turn with two point-to-point requests beside them.
  subroutine vforms(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: bad, form, round, cnt(nnb), dsp(nnb), selfv, selfr, idx, outc, idxs(3), done
    type(MPI_Request) :: req(3)
    type(MPI_Status) :: sts(3), st
    type(MPI_Datatype) :: typ(nnb)
    integer(kind=MPI_ADDRESS_KIND) :: wdsp(nnb)
    logical :: flag, gath, p2p
    double precision :: t0
    do t = 1, nnb
      cnt(t) = nval
      dsp(t) = (t - 1) * nval
      typ(t) = MPI_DOUBLE_PRECISION
      wdsp(t) = (t - 1) * nval * 8
    end do
    do form = 1, 11
      round = 10 + form
      gath = form == 3 .or. form == 7 .or. form == 8
      p2p = form == 5 .or. form == 7 .or. form == 8 .or. form == 9 .or. form == 10
      do t = 1, nnb
        do k = 1, nval
          sbuf(k, t) = val(rank, t, k, round)
          if (gath) sbuf(k, t) = val(rank, 0, k, round)
        end do
      end do
      rbuf = -1.0d0
      req = MPI_REQUEST_NULL
      selfr = -1
      if (p2p) then
        selfv = rank * 100 + form
        call MPI_Irecv(selfr, 1, MPI_INTEGER, rank, 77, MPI_COMM_WORLD, req(2))
        call MPI_Isend(selfv, 1, MPI_INTEGER, rank, 77, MPI_COMM_WORLD, req(3))
      end if
      select case (form)
      case (1)
        call MPI_Neighbor_alltoallv(sbuf, cnt, dsp, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
             MPI_DOUBLE_PRECISION, comm, ierr)
      case (2)
        call MPI_Neighbor_alltoallw(sbuf, cnt, wdsp, typ, rbuf, cnt, wdsp, typ, comm, ierr)
      case (3)
        call MPI_Neighbor_allgatherv(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
             MPI_DOUBLE_PRECISION, comm, ierr)
      case (4, 11)
        call MPI_Ineighbor_alltoall(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
             MPI_DOUBLE_PRECISION, comm, req(1), ierr)
      case (5, 9)
        call MPI_Ineighbor_alltoallv(sbuf, cnt, dsp, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
             MPI_DOUBLE_PRECISION, comm, req(1), ierr)
      case (6, 10)
        call MPI_Ineighbor_alltoallw(sbuf, cnt, wdsp, typ, rbuf, cnt, wdsp, typ, comm, req(1), &
             ierr)
      case (7)
        call MPI_Ineighbor_allgather(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
             MPI_DOUBLE_PRECISION, comm, req(1), ierr)
      case (8)
        call MPI_Ineighbor_allgatherv(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
             MPI_DOUBLE_PRECISION, comm, req(1), ierr)
      end select
      call check(ierr == MPI_SUCCESS, 'v/w or nonblocking call ierror')
      ierr = MPI_SUCCESS
      select case (form)
      case (4)
        call MPI_Wait(req(1), st)
      case (5)
        call MPI_Waitall(3, req, sts, ierr)
        call check(sts(2)%MPI_SOURCE == rank .and. sts(2)%MPI_TAG == 77, &
             'MPI_Waitall: the point-to-point status')
      case (6)
        flag = .false.
        do while (.not. flag)
          call MPI_Test(req(1), flag, MPI_STATUS_IGNORE, ierr)
        end do
      case (7)
        flag = .false.
        do while (.not. flag)
          call MPI_Testall(3, req, flag, MPI_STATUSES_IGNORE)
        end do
      case (8)
        do done = 1, 3
          call MPI_Waitany(3, req, idx, st, ierr)
          call check(idx >= 1 .and. idx <= 3, 'MPI_Waitany: index')
          if (idx == 2) call check(st%MPI_SOURCE == rank, 'MPI_Waitany: status')
        end do
        call MPI_Waitany(3, req, idx, st, ierr)
        call check(idx == MPI_UNDEFINED, 'MPI_Waitany: none left')
        call MPI_Testany(3, req, idx, flag, st, ierr)
        call check(flag .and. idx == MPI_UNDEFINED, 'MPI_Testany: none left')
      case (9)
        done = 0
        do while (done < 3)
          call MPI_Waitsome(3, req, outc, idxs, sts, ierr)
          call check(outc >= 1 .and. all(idxs(1:outc) >= 1) .and. all(idxs(1:outc) <= 3), &
               'MPI_Waitsome: indices')
          done = done + outc
        end do
      case (10)
        done = 0
        do while (done < 3)
          call MPI_Testsome(3, req, outc, idxs, MPI_STATUSES_IGNORE, ierr)
          if (outc /= MPI_UNDEFINED) done = done + outc
        end do
      case (11)
        ! (at most 20 s: a binding that never says .true. fails, not hangs)
        flag = .false.
        t0 = MPI_WTIME()
        do while (.not. flag .and. MPI_WTIME() - t0 < 20d0)
          call MPI_Request_get_status(req(1), flag, MPI_STATUS_IGNORE, ierr)
        end do
        call check(flag, 'MPI_Request_get_status: flag .true. once complete (MPI_STATUS_IGNORE)')
        call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
      end select
      call check(ierr == MPI_SUCCESS, 'completion ierror')
      call check(all_null(req), 'completed requests are MPI_REQUEST_NULL')
      if (p2p) call check(selfr == rank * 100 + form, 'point-to-point message in the same array')
      bad = 0
      do t = 1, nnb
        do k = 1, nval
          if (gath) then
            if (rbuf(k, t) /= val(srcs(t), 0, k, round)) bad = bad + 1
          else
            if (rbuf(k, t) /= val(srcs(t), t, k, round)) bad = bad + 1
          end if
        end do
      end do
      call check(bad == 0, 'v/w or nonblocking received values')
      if (bad /= 0) write (0, '("  form ", I0)') form
    end do
  end subroutine vforms

  ! In-place all-to-all: block j of rank r ends up as block r of rank j.
  subroutine inplace()
    integer :: bad, n
    n = nval * nprocs
    allocate(abuf(n), counts(nprocs), displs(nprocs), types(nprocs))
    do j = 0, nprocs - 1
      counts(j + 1) = nval
      displs(j + 1) = j * nval
      types(j + 1) = MPI_DOUBLE_PRECISION
    end do
    do t = 1, 3
      do j = 0, nprocs - 1
        do k = 1, nval
          abuf(j * nval + k) = val(rank, j, k, t)
        end do
      end do
      select case (t)
      case (1)
        call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, abuf, nval, &
             MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
      case (2)
        call MPI_Alltoallv(MPI_IN_PLACE, counts, displs, MPI_DATATYPE_NULL, abuf, counts, &
             displs, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
      case default
        displs = displs * 8
        call MPI_Alltoallw(MPI_IN_PLACE, counts, displs, types, abuf, counts, displs, types, &
             MPI_COMM_WORLD, ierr)
      end select
      call check(ierr == MPI_SUCCESS, 'in-place all-to-all ierror')
      bad = 0
      do j = 0, nprocs - 1
        do k = 1, nval
          if (abuf(j * nval + k) /= val(j, rank, k, t)) bad = bad + 1
        end do
      end do
      call check(bad == 0, 'in-place all-to-all received values')
    end do
    deallocate(abuf, counts, displs, types)
  end subroutine inplace
end program test_fortran_f08
