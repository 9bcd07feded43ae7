/* The one table of intercepted MPI functions.  Each entry expands to a thin
 * entry point in intercept.c: reentry guard, then nh_impl_MPI_<name> (its
 * prototype in nh_impl.h), which runs nhood's plan or calls the MPI
 * library's function with the same arguments.
 * NH_FN(name, parameter list, argument list), name without its MPI_
 * prefix (Wait for MPI_Wait, whose library function nhood calls as
 * nh_mpi_Wait); NH_FNX for an MPIX_ name (MPIX_X, nh_mpix_X,
 * nh_impl_MPIX_X); NH_FN_DONE for the completion calls (their fast path,
 * intercept.c).  Every other MPI function is a
 * fence of the overlap layer (overlap/fence.c, generated). */
/* NH_FN_OV: the overlap layer takes part (intercept.c): start-up and
 * shut-down start and stop it, a freed request is no longer followed. */
NH_FN_OV(Init, (int *argc, char ***argv), (argc, argv))
NH_FN_OV(Init_thread, (int *argc, char ***argv, int required, int *provided),
         (argc, argv, required, provided))
NH_FN_OV(Finalize, (void), ())
#ifdef HAVE_MPI_SESSION_INIT
/* MPI-4 Sessions: a program without MPI_Init ends nhood at its last
 * MPI_Session_finalize (api/lifecycle.c). */
NH_FN(Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session),
      (info, errhandler, session))
NH_FN(Session_finalize, (MPI_Session * session), (session))
#endif
/* Weights as pointers, not arrays: MPI_UNWEIGHTED is an address constant
 * (Open MPI: (int *)2), which gcc flags as a zero-size array read where
 * nhood passes it itself (iso/iso.c). */
NH_FN(Dist_graph_create_adjacent,
      (MPI_Comm comm_old, int indegree, const int sources[], const int *sourceweights,
       int outdegree, const int destinations[], const int *destweights, MPI_Info info, int reorder,
       MPI_Comm *comm_dist_graph),
      (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
       reorder, comm_dist_graph))
NH_FN(Dist_graph_create,
      (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
       const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph),
      (comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph))
NH_FN(Alltoall,
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
       MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
NH_FN(Alltoallv,
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
       MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
NH_FN(Alltoallw,
      (const void *sendbuf, const int sendcounts[], const int sdispls[],
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
       const MPI_Datatype recvtypes[], MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))
/* Blocking collectives any rank may be synchronized in: on a graph, the
 * agreement points of nonblocking learning and a cold graph's analysis
 * (api/points.c); elsewhere straight to MPI. */
NH_FN(Barrier, (MPI_Comm comm), (comm))
NH_FN(Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
      (buffer, count, datatype, root, comm))
NH_FN(Reduce,
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
       MPI_Comm comm),
      (sendbuf, recvbuf, count, datatype, op, root, comm))
NH_FN(Allreduce,
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
       MPI_Comm comm),
      (sendbuf, recvbuf, count, datatype, op, comm))
/* Completion calls: nhood's requests are completed by nhood (exec/request.c);
 * NH_FN_DONE ones pass straight to MPI while none is live. */
NH_FN_DONE(Wait, (MPI_Request * request, MPI_Status *status), (request, status))
NH_FN_DONE(Test, (MPI_Request * request, int *flag, MPI_Status *status),
           (request, flag, status))
NH_FN_DONE(Waitall,
           (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]),
           (count, array_of_requests, array_of_statuses))
NH_FN_DONE(Testall,
           (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]),
           (count, array_of_requests, flag, array_of_statuses))
NH_FN_DONE(Waitany,
           (int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status),
           (count, array_of_requests, indx, status))
NH_FN_DONE(Testany,
           (int count, MPI_Request array_of_requests[], int *indx, int *flag, MPI_Status *status),
           (count, array_of_requests, indx, flag, status))
NH_FN_DONE(Waitsome,
           (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
            MPI_Status array_of_statuses[]),
           (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
NH_FN_DONE(Testsome,
           (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
            MPI_Status array_of_statuses[]),
           (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
NH_FN(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status),
      (request, flag, status))
#ifdef HAVE_MPI_REQUEST_GET_STATUS_ALL
/* MPI 4.1: the same over arrays (nothing freed or deactivated). */
NH_FN(Request_get_status_all,
      (int count, NH_STATUS_ALL_CONST MPI_Request array_of_requests[], int *flag,
       MPI_Status array_of_statuses[]),
      (count, array_of_requests, flag, array_of_statuses))
NH_FN(Request_get_status_any,
      (int count, NH_STATUS_ALL_CONST MPI_Request array_of_requests[], int *indx, int *flag,
       MPI_Status *status),
      (count, array_of_requests, indx, flag, status))
NH_FN(Request_get_status_some,
      (int incount, NH_STATUS_ALL_CONST MPI_Request array_of_requests[], int *outcount,
       int array_of_indices[], MPI_Status array_of_statuses[]),
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
#endif
#ifdef HAVE_MPIX_REQUEST_IS_COMPLETE
/* MPICH: whether a request is complete, without progress (its result is
 * the answer, not an error code). */
NH_FNX(Request_is_complete, (MPI_Request request), (request))
#endif
NH_FN_OV(Request_free, (MPI_Request * request), (request))
NH_FN(Cancel, (MPI_Request * request), (request))
NH_FN(Start, (MPI_Request * request), (request))
NH_FN(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests))
/* The neighborhood collectives in every form (api/colls.h, api/neighbor.c),
 * and with MPI-4's large counts (suffix _c: api/colls_c.h, api/large.c). */
#define NH_UNWRAP_(...) __VA_ARGS__
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
#define NH_COLL_INIT_FN(name, sfx, params, args)                                                   \
    NH_FN(Neighbor_##name##_init##sfx,                                                         \
          (NH_UNWRAP_ params, MPI_Comm comm, MPI_Info info, MPI_Request *request),                 \
          (NH_UNWRAP_ args, comm, info, request))
#else
#define NH_COLL_INIT_FN(name, sfx, params, args)
#endif
#define NH_COLL_FORMS(name, sfx, params, args)                                                     \
    NH_FN(Neighbor_##name##sfx, (NH_UNWRAP_ params, MPI_Comm comm), (NH_UNWRAP_ args, comm))   \
    NH_FN(Ineighbor_##name##sfx, (NH_UNWRAP_ params, MPI_Comm comm, MPI_Request *request),     \
          (NH_UNWRAP_ args, comm, request))                                                        \
    NH_COLL_INIT_FN(name, sfx, params, args)
#define NH_COLL(name, ID, params, args) NH_COLL_FORMS(name, , params, args)
#include "api/colls.h"
#undef NH_COLL
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_C
#define NH_COLL_C(name, ID, params, args, conv) NH_COLL_FORMS(name, _c, params, args)
#include "api/colls_c.h"
#undef NH_COLL_C
NH_FN(Alltoall_c,
      (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
NH_FN(Alltoallv_c,
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
       MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
       MPI_Datatype recvtype, MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
NH_FN(Alltoallw_c,
      (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
       const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))
#endif
#undef NH_COLL_FORMS
#undef NH_COLL_INIT_FN
#undef NH_UNWRAP_
