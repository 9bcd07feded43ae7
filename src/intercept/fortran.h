/* The table of Fortran entry points nhood exports (mpif.h, `use mpi` and
 * `use mpi_f08`).  fortran.c expands every entry into the four names
 * MPICH and Open MPI export (lower, lower_, lower__, UPPER) and mpi_f08's
 * (lower_f08_), each running one converter that turns Fortran handles,
 * sentinels and logicals into C values and calls the C entry point the
 * library's own binding calls (FC), unless a tool's Fortran wrapper of
 * that name follows nhood.  NH_FORTRAN_F77: without the mpi_f08 name
 * (start-up, whose mpi_f08 routines fortran.c writes out).
 *
 * NH_FORTRAN_CALL(lower, UPPER, params, args, call): the converter is
 *     *ierr = call;
 * NH_FORTRAN_REQ(lower, UPPER, params, args, call): the same for a call
 *     that makes a request (call writes it to the C request r), handed
 *     back as *request;
 * NH_FORTRAN(lower, UPPER, params, args): the converter nh_f_<lower> is
 *     written out in fortran.c.
 * NH_FORTRAN_INIT_REQ, NH_FORTRAN_INIT: the persistent forms, named
 *     mpi_<name> (MPI-4) or, with Open MPI 4.1, mpix_<name> (its pcollreq
 *     extension); the converter is nh_f_mpi_<name> either way.
 * args: the parameters' names, for the call handed on.
 *
 * The completion calls are here for MPICH 4.0.2's index bugs (fortran.c). */
/* clang-format would read "(MPI_Fint *x" as a multiplication. */
/* clang-format off */
NH_FORTRAN_F77(mpi_init, MPI_INIT, (MPI_Fint *ierr), (ierr))
NH_FORTRAN_F77(mpi_init_thread, MPI_INIT_THREAD,
               (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr),
               (required, provided, ierr))
NH_FORTRAN_CALL(mpi_finalize, MPI_FINALIZE, (MPI_Fint *ierr), (ierr), FC(MPI_Finalize)())
NH_FORTRAN(mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
           (MPI_Fint *comm_old, MPI_Fint *indegree, MPI_Fint *sources, MPI_Fint *sourceweights,
            MPI_Fint *outdegree, MPI_Fint *destinations, MPI_Fint *destweights, MPI_Fint *info,
            MPI_Fint *reorder, MPI_Fint *comm_dist_graph, MPI_Fint *ierr),
           (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights,
            info, reorder, comm_dist_graph, ierr))
NH_FORTRAN(mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE,
           (MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources, MPI_Fint *degrees,
            MPI_Fint *destinations, MPI_Fint *weights, MPI_Fint *info, MPI_Fint *reorder,
            MPI_Fint *comm_dist_graph, MPI_Fint *ierr),
           (comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph,
            ierr))
NH_FORTRAN_CALL(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
                FC(MPI_Neighbor_alltoall)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                          F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                          F_COMM(comm)))
NH_FORTRAN_CALL(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
                FC(MPI_Neighbor_allgather)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                           F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                           F_COMM(comm)))
NH_FORTRAN_CALL(mpi_alltoall, MPI_ALLTOALL,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr),
                (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierr),
                FC(MPI_Alltoall)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype), F_BUF(recvbuf),
                                 *recvcount, F_TYPE(recvtype), F_COMM(comm)))
NH_FORTRAN_CALL(mpi_alltoallv, MPI_ALLTOALLV,
                (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                 void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                 MPI_Fint *comm, MPI_Fint *ierr),
                (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 comm, ierr),
                FC(MPI_Alltoallv)(F_BUF(sendbuf), sendcounts, sdispls, F_TYPE(sendtype),
                                  F_BUF(recvbuf), recvcounts, rdispls, F_TYPE(recvtype),
                                  F_COMM(comm)))
NH_FORTRAN(mpi_alltoallw, MPI_ALLTOALLW,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *ierr),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, ierr))
NH_FORTRAN_CALL(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV,
                (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                 void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                 MPI_Fint *comm, MPI_Fint *ierr),
                (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                 comm, ierr),
                FC(MPI_Neighbor_alltoallv)(F_BUF(sendbuf), sendcounts, sdispls, F_TYPE(sendtype),
                                           F_BUF(recvbuf), recvcounts, rdispls, F_TYPE(recvtype),
                                           F_COMM(comm)))
NH_FORTRAN_CALL(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV,
                (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                 MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                 MPI_Fint *ierr),
                (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierr),
                FC(MPI_Neighbor_allgatherv)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                            F_BUF(recvbuf), recvcounts, displs, F_TYPE(recvtype),
                                            F_COMM(comm)))
NH_FORTRAN(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *ierr),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, ierr))
NH_FORTRAN_REQ(mpi_ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                MPI_Fint *ierr),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr),
               FC(MPI_Ineighbor_alltoall)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                          F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                          F_COMM(comm), &r))
NH_FORTRAN_REQ(mpi_ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *request,
                MPI_Fint *ierr),
               (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request, ierr),
               FC(MPI_Ineighbor_allgather)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                           F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                           F_COMM(comm), &r))
NH_FORTRAN_REQ(mpi_ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV,
               (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
               (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype,
                comm, request, ierr),
               FC(MPI_Ineighbor_alltoallv)(F_BUF(sendbuf), sendcounts, sdispls, F_TYPE(sendtype),
                                           F_BUF(recvbuf), recvcounts, rdispls, F_TYPE(recvtype),
                                           F_COMM(comm), &r))
NH_FORTRAN_REQ(mpi_ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                MPI_Fint *request, MPI_Fint *ierr),
               (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                request, ierr),
               FC(MPI_Ineighbor_allgatherv)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                            F_BUF(recvbuf), recvcounts, displs, F_TYPE(recvtype),
                                            F_COMM(comm), &r))
NH_FORTRAN(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr),
           (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
            comm, request, ierr))
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
NH_FORTRAN_INIT_REQ(neighbor_alltoall_init, NEIGHBOR_ALLTOALL_INIT,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                MPI_Fint *request, MPI_Fint *ierr),
                    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                     request, ierr),
               FC(MPI_Neighbor_alltoall_init)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                              F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                              F_COMM(comm), nh_mpi_Info_f2c(*info), &r))
NH_FORTRAN_INIT_REQ(neighbor_allgather_init, NEIGHBOR_ALLGATHER_INIT,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcount, MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *info,
                MPI_Fint *request, MPI_Fint *ierr),
                    (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,
                     request, ierr),
               FC(MPI_Neighbor_allgather_init)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                               F_BUF(recvbuf), *recvcount, F_TYPE(recvtype),
                                               F_COMM(comm), nh_mpi_Info_f2c(*info), &r))
NH_FORTRAN_INIT_REQ(neighbor_alltoallv_init, NEIGHBOR_ALLTOALLV_INIT,
               (void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls, MPI_Fint *sendtype,
                void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *rdispls, MPI_Fint *recvtype,
                MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
                    (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, info, request, ierr),
               FC(MPI_Neighbor_alltoallv_init)(F_BUF(sendbuf), sendcounts, sdispls,
                                               F_TYPE(sendtype), F_BUF(recvbuf), recvcounts,
                                               rdispls, F_TYPE(recvtype), F_COMM(comm),
                                               nh_mpi_Info_f2c(*info), &r))
NH_FORTRAN_INIT_REQ(neighbor_allgatherv_init, NEIGHBOR_ALLGATHERV_INIT,
               (void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype, void *recvbuf,
                MPI_Fint *recvcounts, MPI_Fint *displs, MPI_Fint *recvtype, MPI_Fint *comm,
                MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
                    (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                     info, request, ierr),
               FC(MPI_Neighbor_allgatherv_init)(F_BUF(sendbuf), *sendcount, F_TYPE(sendtype),
                                                F_BUF(recvbuf), recvcounts, displs,
                                                F_TYPE(recvtype), F_COMM(comm),
                                                nh_mpi_Info_f2c(*info), &r))
NH_FORTRAN_INIT(neighbor_alltoallw_init, NEIGHBOR_ALLTOALLW_INIT,
           (void *sendbuf, MPI_Fint *sendcounts, MPI_Aint *sdispls, MPI_Fint *sendtypes,
            void *recvbuf, MPI_Fint *recvcounts, MPI_Aint *rdispls, MPI_Fint *recvtypes,
            MPI_Fint *comm, MPI_Fint *info, MPI_Fint *request, MPI_Fint *ierr),
                (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                 comm, info, request, ierr))
#endif
/* completion */
NH_FORTRAN(mpi_wait, MPI_WAIT, (MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr),
           (request, status, ierr))
NH_FORTRAN(mpi_test, MPI_TEST,
           (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
           (request, flag, status, ierr))
NH_FORTRAN(mpi_request_get_status, MPI_REQUEST_GET_STATUS,
           (MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr),
           (request, flag, status, ierr))
NH_FORTRAN(mpi_waitall, MPI_WAITALL,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr),
           (count, requests, statuses, ierr))
NH_FORTRAN(mpi_testall, MPI_TESTALL,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
            MPI_Fint *ierr),
           (count, requests, flag, statuses, ierr))
NH_FORTRAN(mpi_waitany, MPI_WAITANY,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
            MPI_Fint *ierr),
           (count, requests, index, status, ierr))
NH_FORTRAN(mpi_testany, MPI_TESTANY,
           (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
            MPI_Fint *status, MPI_Fint *ierr),
           (count, requests, index, flag, status, ierr))
NH_FORTRAN(mpi_waitsome, MPI_WAITSOME,
           (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
            MPI_Fint *statuses, MPI_Fint *ierr),
           (incount, requests, outcount, indices, statuses, ierr))
NH_FORTRAN(mpi_testsome, MPI_TESTSOME,
           (MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices,
            MPI_Fint *statuses, MPI_Fint *ierr),
           (incount, requests, outcount, indices, statuses, ierr))
NH_FORTRAN(mpi_request_free, MPI_REQUEST_FREE, (MPI_Fint *request, MPI_Fint *ierr),
           (request, ierr))
NH_FORTRAN(mpi_cancel, MPI_CANCEL, (MPI_Fint *request, MPI_Fint *ierr),
           (request, ierr))
NH_FORTRAN(mpi_start, MPI_START, (MPI_Fint *request, MPI_Fint *ierr),
           (request, ierr))
NH_FORTRAN(mpi_startall, MPI_STARTALL, (MPI_Fint *count, MPI_Fint *requests, MPI_Fint *ierr),
           (count, requests, ierr))
/* clang-format on */
