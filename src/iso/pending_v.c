/* Pass-through bodies for MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw
 * and MPI_Neighbor_allgatherv: replaced by the v/w implementation on
 * merge (this file is then dropped).
 *
 * alltoallv and allgatherv go to PMPI unchanged.  MPICH 4.0.2's
 * MPI_Neighbor_alltoallw swaps the in- and out-degree when they differ
 * (a rank with more sources than targets receives too little), which a
 * mesh with an asymmetric neighborhood hits at its boundary; so alltoallw
 * packs every block into bytes and runs PMPI_Neighbor_alltoallv, which
 * is right.  Type signatures match pairwise, so a block's packed size is
 * its type size times its count on both ends (homogeneous MPI). */
#include <stdlib.h>

#include "nh.h"

int nh_impl_MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                   rdispls, recvtype, comm);
}

int nh_impl_MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                    recvtype, comm);
}

/* Byte counts and offsets of n blocks in a packed buffer. */
static int sizes(int n, const int *counts, const MPI_Datatype *types, int *bytes, int *offs,
                 int *total)
{
    long long pos = 0;
    for (int k = 0; k < n; k++) {
        int sz, rc = PMPI_Type_size(types[k], &sz);
        if (rc)
            return rc;
        long long b = (long long)sz * counts[k];
        if (pos + b > 0x7fffffff)
            return MPI_ERR_COUNT;
        bytes[k] = (int)b;
        offs[k] = (int)pos;
        pos += b;
    }
    *total = (int)pos;
    return MPI_SUCCESS;
}

int nh_impl_MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    int st, indeg, outdeg, weighted, rc, stot = 0, rtot = 0, pos;
    if ((rc = PMPI_Topo_test(comm, &st)))
        return rc;
    if (st != MPI_DIST_GRAPH)
        return PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                       rdispls, recvtypes, comm);
    if ((rc = PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted)))
        return rc;
    int *sb = malloc(sizeof(int) * ((size_t)outdeg + 1)),
        *so = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int *rb = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *ro = malloc(sizeof(int) * ((size_t)indeg + 1));
    char *sp = NULL, *rp = NULL;
    if (!sb || !so || !rb || !ro) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if ((rc = sizes(outdeg, sendcounts, sendtypes, sb, so, &stot)) ||
        (rc = sizes(indeg, recvcounts, recvtypes, rb, ro, &rtot)))
        goto out;
    if (!(sp = malloc((size_t)stot + 1)) || !(rp = malloc((size_t)rtot + 1))) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int k = 0; k < outdeg && !rc; k++) {
        pos = so[k];
        if (sendcounts[k] > 0)
            rc = nh_pack((const char *)sendbuf + sdispls[k], sendcounts[k], sendtypes[k], sp, stot,
                         &pos, comm);
    }
    if (!rc)
        rc = PMPI_Neighbor_alltoallv(sp, sb, so, MPI_BYTE, rp, rb, ro, MPI_BYTE, comm);
    for (int k = 0; k < indeg && !rc; k++) {
        pos = ro[k];
        if (recvcounts[k] > 0)
            rc = nh_unpack(rp, rtot, &pos, (char *)recvbuf + rdispls[k], recvcounts[k],
                           recvtypes[k], comm);
    }
out:
    free(sb);
    free(so);
    free(rb);
    free(ro);
    free(sp);
    free(rp);
    return rc;
}
