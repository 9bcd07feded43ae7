/* The table of neighborhood collectives nhood runs.  Each entry expands
 * to the blocking, nonblocking (MPI_Ineighbor_*) and persistent (MPI-4
 * MPI_Neighbor_*_init) entry points in api/neighbor.c and to their lines
 * of the interception table (intercept/functions.h).
 * NH_COLL(name, ID, parameters before comm, arguments before comm) */
NH_COLL(alltoall, ALLTOALL,
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
         MPI_Datatype recvtype),
        (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype))
NH_COLL(allgather, ALLGATHER,
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
         MPI_Datatype recvtype),
        (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype))
NH_COLL(alltoallv, ALLTOALLV,
        (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
         void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype),
        (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype))
NH_COLL(alltoallw, ALLTOALLW,
        (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
         const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
         const MPI_Aint rdispls[], const MPI_Datatype recvtypes[]),
        (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes))
NH_COLL(allgatherv, ALLGATHERV,
        (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
         const int recvcounts[], const int displs[], MPI_Datatype recvtype),
        (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype))
