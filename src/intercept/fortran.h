/* The table of Fortran entry points nhood exports (mpif.h and `use mpi`;
 * not mpi_f08, whose symbols differ per MPI library).  fortran.c expands
 * every entry into the four names MPICH and Open MPI export (lower,
 * lower_, lower__, UPPER), all aliases of one converter that turns Fortran
 * handles, sentinels and logicals into C values and calls the C MPI_*
 * entry point, which is nhood's intercept.
 *
 * NH_FORTRAN_CALL(lower, UPPER, params, call): the converter is
 *     *ierr = call;
 * NH_FORTRAN(lower, UPPER, params): the converter nh_f_<lower> is written
 *     out in fortran.c. */
/* clang-format would read "(MPI_Fint *x" as a multiplication. */
/* clang-format off */
NH_FORTRAN(mpi_init, MPI_INIT, (MPI_Fint *ierr))
NH_FORTRAN(mpi_init_thread, MPI_INIT_THREAD,
           (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr))
NH_FORTRAN_CALL(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr), MPI_Finalize())
NH_FORTRAN(mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
           (MPI_Fint *comm_old, MPI_Fint *indegree, MPI_Fint *sources, MPI_Fint *sourceweights,
            MPI_Fint *outdegree, MPI_Fint *destinations, MPI_Fint *destweights, MPI_Fint *info,
            MPI_Fint *reorder, MPI_Fint *comm_dist_graph, MPI_Fint *ierr))
NH_FORTRAN(mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE,
           (MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources, MPI_Fint *degrees,
            MPI_Fint *destinations, MPI_Fint *weights, MPI_Fint *info, MPI_Fint *reorder,
            MPI_Fint *comm_dist_graph, MPI_Fint *ierr))
NH_FORTRAN_CALL(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                MPI_Neighbor_alltoall(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                                      *recvcount, F_TYPE(recvtype), F_COMM(comm)))
NH_FORTRAN_CALL(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                MPI_Neighbor_allgather(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                                       *recvcount, F_TYPE(recvtype), F_COMM(comm)))
NH_FORTRAN_CALL(mpi_alltoall, MPI_ALLTOALL,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                MPI_Alltoall(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                             *recvcount, F_TYPE(recvtype), F_COMM(comm)))
NH_FORTRAN_CALL(mpi_alltoallv, MPI_ALLTOALLV,
                (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                 void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                 MPI_Fint *comm, MPI_Fint *ierr),
                MPI_Alltoallv(F_BUF(sendbuf), sendcounts, sdispls, F_TYPE(sendtype), F_BUF(recvbuf),
                              recvcounts, rdispls, F_TYPE(recvtype), F_COMM(comm)))
NH_FORTRAN(mpi_alltoallw, MPI_ALLTOALLW,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *ierr))
/* clang-format on */
