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

  do t = 1, nnb
    cnt(t) = nval
    dsp(t) = (t - 1) * nval
    typ(t) = MPI_DOUBLE_PRECISION
    wdsp(t) = (t - 1) * nval * 8
  end do
  do form = 1, 5
    gath = form == 2 .or. form == 4
    select case (form)
    case (1)
      call MPI_NEIGHBOR_ALLTOALL_INIT(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
           MPI_DOUBLE_PRECISION, comm, MPI_INFO_NULL, req, ierr)
    case (2)
      call MPI_NEIGHBOR_ALLGATHER_INIT(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, nval, &
           MPI_DOUBLE_PRECISION, comm, MPI_INFO_NULL, req, ierr)
    case (3)
      call MPI_NEIGHBOR_ALLTOALLV_INIT(sbuf, cnt, dsp, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
           MPI_DOUBLE_PRECISION, comm, MPI_INFO_NULL, req, ierr)
    case (4)
      call MPI_NEIGHBOR_ALLGATHERV_INIT(sbuf, nval, MPI_DOUBLE_PRECISION, rbuf, cnt, dsp, &
           MPI_DOUBLE_PRECISION, comm, MPI_INFO_NULL, req, ierr)
    case default
      call MPI_NEIGHBOR_ALLTOALLW_INIT(sbuf, cnt, wdsp, typ, rbuf, cnt, wdsp, typ, comm, &
           MPI_INFO_NULL, req, ierr)
    end select
    call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, '_INIT ierror and request')
    do it = 1, 3
      do t = 1, nnb
        do k = 1, nval
          if (gath) then
            sbuf(k, t) = val(rank, 0, k, form * 10 + it)
          else
            sbuf(k, t) = val(rank, t, k, form * 10 + it)
          end if
        end do
      end do
      rbuf = -1.0d0
      select case (it)
      case (1)
        call MPI_START(req, ierr)
        call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
      case (2)
        reqs(1) = req
        call MPI_STARTALL(1, reqs, ierr)
        call MPI_WAITALL(1, reqs, MPI_STATUSES_IGNORE, ierr)
        req = reqs(1)
      case default
        call MPI_START(req, ierr)
        flag = .false.
        do while (.not. flag)
          call MPI_TEST(req, flag, MPI_STATUS_IGNORE, ierr)
        end do
      end select
      call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, &
           'persistent start/complete ierror, request kept')
      bad = 0
      do t = 1, nnb
        do k = 1, nval
          if (gath) then
            if (rbuf(k, t) /= val(srcs(t), 0, k, form * 10 + it)) bad = bad + 1
          else
            if (rbuf(k, t) /= val(srcs(t), t, k, form * 10 + it)) bad = bad + 1
          end if
        end do
      end do
      call check(bad == 0, 'persistent form received values')
    end do
    call MPI_REQUEST_FREE(req, ierr)
    call check(ierr == MPI_SUCCESS .and. req == MPI_REQUEST_NULL, 'MPI_REQUEST_FREE')
  end do

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (cond) then
      passed = passed + 1
    else
      failed = failed + 1
      write (0, '("FAIL rank ", I0, ": ", A, " (form ", I0, ")")') rank, what, form
    end if
  end subroutine check

  double precision function val(r, tt, kk, round)
    integer, intent(in) :: r, tt, kk, round
    val = dble(r) * 1.0d6 + dble(tt) * 1.0d2 + dble(kk) + dble(round) * 0.125d0
  end function val
end subroutine persistent_forms_f08
