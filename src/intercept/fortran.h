/* The table of Fortran entry points nhood exports: the calls some MPI
 * library's own Fortran binding gets wrong (fortran.c's header), each with
 * the bugs (NH_FBUG_*, util/mpilib.h) its converter mends under the mpif.h
 * and `use mpi` names and under the mpi_f08 name.  At run time a name
 * whose bugs the library at hand does not have hands the call to the
 * library's own routine; every other Fortran call reaches nhood through
 * the C names the bindings call (docs/fortran.md).  fortran.c expands each
 * entry into the four names MPICH and Open MPI export for mpif.h and `use
 * mpi` (lower, lower_, lower__, UPPER) and mpi_f08's (lower_f08_), each
 * running the converter nh_f_<lower>, which turns Fortran handles,
 * sentinels and logicals into C values and calls the C entry point the
 * library's own binding would call (FC), unless a tool's Fortran wrapper of
 * that name follows nhood.
 *
 * NH_FORTRAN(lower, UPPER, f77bugs, f08bugs, params, args): the converter
 *     nh_f_<lower> is written out in fortran.c;
 * NH_FORTRAN_F08(lower, bugs, params, args): mpi_f08's name only;
 * NH_FORTRAN_TS(lower, bugs, params, args): mpi_f08's name for buffers
 *     passed as C descriptors (lower_f08ts_, Open MPI 6), converter
 *     nh_f_ts_<lower>;
 * NH_FORTRAN_INIT(name, NAME, f77bugs, f08bugs, params, args): the
 *     persistent form, named mpi_<name> (MPI-4) or, with Open MPI 4.1,
 *     mpix_<name> (its pcollreq extension); the converter is
 *     nh_f_mpi_<name> either way.
 * args: the parameters' names, for the call handed on. */
/* clang-format would read "(MPI_Fint *x" as a multiplication. */
/* clang-format off */
NH_FORTRAN(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, NH_FBUG_W_TYPES, NH_FBUG_W_TYPES,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *ierr),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, ierr))
NH_FORTRAN(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, NH_FBUG_W_TYPES | NH_FBUG_W_REQUEST,
           NH_FBUG_W_TYPES | NH_FBUG_W_REQUEST,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, request, ierr))
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
NH_FORTRAN_INIT(neighbor_alltoallw_init, NEIGHBOR_ALLTOALLW_INIT,
                NH_FBUG_W_TYPES | NH_FBUG_W_REQUEST, NH_FBUG_W_TYPES | NH_FBUG_W_REQUEST,
                (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
                 void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
                 MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
                (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                 comm, info, request, ierr))
#endif
/* Open MPI 6's mpi_f08 passes choice buffers as C descriptors to its
 * mpi_<name>_f08ts_ routines (NH_FORTRAN_TS: that name only). */
#ifdef HAVE_ISO_FORTRAN_BINDING_H
NH_FORTRAN_TS(mpi_ineighbor_alltoallw, NH_FBUG_W_REQUEST,
              (CFI_cdesc_t *x1, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
               CFI_cdesc_t *x2, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
               MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
              (x1, sendcounts, sdispls, sendtypes, x2, recvcounts, rdispls, recvtypes, comm,
               request, ierr))
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
NH_FORTRAN_TS(mpi_neighbor_alltoallw_init, NH_FBUG_W_REQUEST,
              (CFI_cdesc_t *x1, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
               CFI_cdesc_t *x2, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
               MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
              (x1, sendcounts, sdispls, sendtypes, x2, recvcounts, rdispls, recvtypes, comm,
               info, request, ierr))
#endif
#endif
NH_FORTRAN(mpi_waitany, MPI_WAITANY, NH_FBUG_ANY_NONE_F77,
           NH_FBUG_ANY_NONE_F08 | NH_FBUG_INDEX_F08,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
            MPI_Fint *ierr),
           (count, requests, index, status, ierr))
NH_FORTRAN(mpi_testany, MPI_TESTANY, NH_FBUG_ANY_NONE_F77,
           NH_FBUG_ANY_NONE_F08 | NH_FBUG_INDEX_F08,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
            MPI_Fint *status, MPI_Fint *ierr),
           (count, requests, index, flag, status, ierr))
NH_FORTRAN_F08(mpi_waitsome, NH_FBUG_INDEX_F08,
               (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                MPI_Fint *statuses, MPI_Fint *ierr),
               (incount, requests, outcount, indices, statuses, ierr))
NH_FORTRAN_F08(mpi_testsome, NH_FBUG_INDEX_F08,
               (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
                MPI_Fint *statuses, MPI_Fint *ierr),
               (incount, requests, outcount, indices, statuses, ierr))
NH_FORTRAN(mpi_request_get_status, MPI_REQUEST_GET_STATUS, NH_FBUG_STATUS_IGNORE,
           NH_FBUG_STATUS_IGNORE,
           (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
           (request, flag, status, ierr))
/* clang-format on */
