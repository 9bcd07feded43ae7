! Fortran callers with `use mpi`: see test_fortran_body.inc.
program test_fortran
  use mpi
  implicit none
  include 'test_fortran_body.inc'
end program test_fortran
