/* The in-place all-to-all's entry points (MPI_Alltoall, _v, _w with
 * MPI_IN_PLACE: exec/inplace.c); every other all-to-all goes to MPI. */
#include "api/api.h"
#include "nh_impl.h"

/* In-place all-to-all: only MPI_IN_PLACE calls are nhood's business.
 * Returns the result of nhood's run, or NH_TO_PMPI. */
int nh_inplace_try(const void *sendbuf, MPI_Comm comm, const nh_inplace_args *a)
{
    if (sendbuf != MPI_IN_PLACE)
        return NH_TO_PMPI;
    int rc = nh_start_with(comm);
    if (!rc)
        rc = nh_inplace(comm, a);
    return nh_call_result(comm, rc);
}

int nh_impl_MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nh_inplace_args a = {
        .op = NH_INPLACE_ALLTOALL, .buf = recvbuf, .count = recvcount, .type = recvtype};
    int rc = nh_inplace_try(sendbuf, comm, &a);
    if (rc != NH_TO_PMPI)
        return rc;
    return nh_mpi_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int nh_impl_MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nh_inplace_args a = {.op = NH_INPLACE_ALLTOALLV,
                         .buf = recvbuf,
                         .type = recvtype,
                         .counts = recvcounts,
                         .displs = rdispls};
    int rc = nh_inplace_try(sendbuf, comm, &a);
    if (rc != NH_TO_PMPI)
        return rc;
    return nh_mpi_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
}

int nh_impl_MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                          const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nh_inplace_args a = {.op = NH_INPLACE_ALLTOALLW,
                         .buf = recvbuf,
                         .counts = recvcounts,
                         .displs = rdispls,
                         .types = recvtypes};
    int rc = nh_inplace_try(sendbuf, comm, &a);
    if (rc != NH_TO_PMPI)
        return rc;
    return nh_mpi_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
}
