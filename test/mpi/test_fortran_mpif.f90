! Fortran callers with `include 'mpif.h'`: see test_fortran_body.inc.
program test_fortran_mpif
  implicit none
  include 'mpif.h'
  include 'test_fortran_body.inc'
end program test_fortran_mpif
