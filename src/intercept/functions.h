/* The one table of intercepted MPI functions.  Each entry expands to a thin
 * entry point in intercept.c: reentry guard, then nh_impl_<name>, which
 * runs nhood's plan or calls the PMPI function with the same arguments.
 * NH_FN(name, parameter list, argument list) */
NH_FN(MPI_Init, (int *argc, char ***argv), (argc, argv))
NH_FN(MPI_Init_thread, (int *argc, char ***argv, int required, int *provided),
      (argc, argv, required, provided))
NH_FN(MPI_Finalize, (void), ())
NH_FN(MPI_Dist_graph_create_adjacent,
      (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
       int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder,
       MPI_Comm *comm_dist_graph),
      (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
       reorder, comm_dist_graph))
NH_FN(MPI_Dist_graph_create,
      (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
       const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph),
      (comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph))
NH_FN(MPI_Neighbor_alltoall,
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
       MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
NH_FN(MPI_Neighbor_allgather,
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
       MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
NH_FN(MPI_Alltoall,
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
       MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
NH_FN(MPI_Alltoallv,
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
       MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
NH_FN(MPI_Alltoallw,
      (const void *sendbuf, const int sendcounts[], const int sdispls[],
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
       const MPI_Datatype recvtypes[], MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))
