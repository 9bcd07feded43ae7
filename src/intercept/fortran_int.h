/* Fortran handles, statuses and sentinels to C and back (fortran_conv.c),
 * for the Fortran entry points (fortran.c). */
#ifndef NH_FORTRAN_INT_H
#define NH_FORTRAN_INT_H

#include <mpi.h>

/* Integer arrays (counts, indices) are passed through unconverted. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "nhood's Fortran entry points assume "
                                                "MPI_Fint is int");

/* Fortran .TRUE. is 1 in gfortran and in both libraries' conversions. */
#define F_TRUE 1

/* A buffer argument: MPI_IN_PLACE and MPI_BOTTOM for their sentinels. */
void *f_buf(void *p);
/* Where a call found an error before reaching MPI (out of memory). */
int f_fail(int rc);
/* n C requests for Fortran handles; NULL when out of memory. */
MPI_Request *f_reqs(int n, const MPI_Fint *f);
/* *c: C statuses for n Fortran ones, MPI_STATUSES_IGNORE for the sentinel;
 * MPI_ERR_NO_MEM when out of memory.  Freed by f_statuses_free. */
int f_statuses(int n, const MPI_Fint *f, MPI_Status **c);
void f_statuses_free(MPI_Status *c);
/* After a multiple-completion call: every handle back to Fortran, and
 * the first n statuses (none where st is MPI_STATUSES_IGNORE). */
void f_back(int nreq, const MPI_Request *c, MPI_Fint *f, int n, const MPI_Status *st,
            MPI_Fint *fst);
/* The C status for a Fortran status argument (MPI_STATUS_IGNORE for the
 * sentinel; else c), and its conversion back. */
MPI_Status *f_status(const MPI_Fint *f, MPI_Status *c);
void f_status_back(const MPI_Status *c, MPI_Fint *f);
/* The n C datatypes of Fortran handles; NULL when out of memory. */
MPI_Datatype *f_types(int n, const MPI_Fint *f);

#endif
