/* The large-count forms (MPI-4, MPI_Count counts, MPI_Aint displacements)
 * of the neighborhood collectives nhood runs: each entry expands to the
 * blocking, nonblocking and persistent _c entry points in api/large.c and
 * their lines of the interception table (intercept/functions.h).
 * NH_COLL_C(name, ID, parameters before comm, arguments before comm,
 *           the converter in api/large.c) */
NH_COLL_C(alltoall, ALLTOALL,
          (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype), regular_c)
NH_COLL_C(allgather, ALLGATHER,
          (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
           MPI_Count recvcount, MPI_Datatype recvtype),
          (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype), regular_c)
NH_COLL_C(alltoallv, ALLTOALLV,
          (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
           MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
           const MPI_Aint rdispls[], MPI_Datatype recvtype),
          (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype), v_c)
NH_COLL_C(alltoallw, ALLTOALLW,
          (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
           const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[]),
          (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes), w_c)
NH_COLL_C(allgatherv, ALLGATHERV,
          (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype),
          (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype), gv_c)
