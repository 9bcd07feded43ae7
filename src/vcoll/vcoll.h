/* MPI_Neighbor_alltoallv, MPI_Neighbor_alltoallw and MPI_Neighbor_allgatherv
 * on isomorphic neighborhoods.
 *
 * The v and w calls run the alltoall and allgather schedules; what differs
 * is that every block has its own address, count and type (and so its own
 * size).  Two executors:
 *  - zero-copy (vexec.c, nh_vexec_zcopy): every message is an MPI struct
 *    datatype over the blocks it carries (or the block itself), so nhood
 *    moves no bytes by hand.  Both ends must know every block's size:
 *    always true for direct (a block goes from its sender to its final
 *    receiver, whose own counts and types describe it); for forwarding
 *    schedules only under the isomorphic=true promise (the intermediate
 *    describes a block in transit by its own arguments for that template
 *    entry).
 *  - header (vexec.c, nh_vexec_header): forwarding schedules without the
 *    promise.  Every message carries a header with the byte size of each
 *    block, the data follow packed; receivers probe for the length.  Any
 *    legal call is correct.
 * vcoll.c holds the entry points, the choice and the NHOOD_CHECK test. */
#ifndef NH_VCOLL_H
#define NH_VCOLL_H

#include "nh.h"

typedef enum { NH_VOP_ALLTOALLV = 0, NH_VOP_ALLTOALLW, NH_VOP_ALLGATHERV, NH_VOP_COUNT } nh_vop;

/* One block of the user's call. */
typedef struct nh_vdesc {
    char *addr; /* buffer + displacement (MPI_BOTTOM-relative addresses stay as given) */
    int count;
    MPI_Datatype type;
    size_t bytes; /* count * type size */
    int contig;   /* predefined type without gaps: the packed form is the memory image */
} nh_vdesc;

/* A call's blocks in the schedule's slot numbering: send slot i is the
 * user's destination index i (allgatherv: the one send block, slot 0),
 * receive slot j the user's source index j. */
typedef struct nh_vcall {
    nh_vop vop;
    nh_op op; /* the schedule family: alltoall or allgather */
    int ns, nr;
    nh_vdesc *s, *r;
    int named; /* every type is predefined (the binding may be cached) */
} nh_vcall;

typedef struct nh_vbind nh_vbind;

/* Per-plan state of the v/w calls (nh_plan.v). */
typedef struct nh_vstate {
    nh_vbind *cache; /* zero-copy bindings of calls with predefined types */
    nh_report_rec *rec[NH_VOP_COUNT];
} nh_vstate;

/* The entry points (standard MPI signatures; the Iso_* interface calls
 * them directly).  Each runs nhood's schedule or passes the call to PMPI. */
int nh_impl_MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int nh_impl_MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm);
int nh_impl_MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[], const int displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm);

const char *nh_vop_name(nh_vop v);
/* Runs schedule s on the call with every block's size known at both ends
 * (direct; forwarding under the promise, where temp blocks are described
 * by the local arguments of their template entry).  Multi-block messages
 * are struct datatypes or packed (see use_pack); *zcopy tells whether
 * some message was a struct. */
int nh_vexec_zcopy(nh_plan *p, const nh_sched *s, const nh_vcall *c, int *zcopy);
/* Runs a forwarding schedule with size headers (no assumption). */
int nh_vexec_header(nh_plan *p, const nh_sched *s, const nh_vcall *c);
/* Frees nh_plan.v (called when the plan goes). */
void nh_vplan_free(nh_plan *p);
/* nhood_algorithm_for for "alltoallv", "alltoallw", "allgatherv";
 * returns 0, or -1 if op is none of them. */
int nh_valgorithm_for(nh_plan *p, const char *op, int block_bytes, nh_algo *algo);

/* The MPI call MPI_Neighbor_alltoallw makes when nhood does not run it. */
typedef int (*nh_alltoallw_fn)(const void *sendbuf, const int sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm);
/* nhood's MPI_Neighbor_alltoallw with the pass-through made explicit: the
 * call runs on nhood's schedules where nhood would run it, and is handed
 * to to_mpi, with the caller's arguments unchanged, in exactly the cases
 * where nh_impl_MPI_Neighbor_alltoallw (to_mpi = PMPI_Neighbor_alltoallw)
 * would call MPI: nhood disabled, no plan, not isomorphic, algorithm
 * pmpi, MPI_IN_PLACE, arguments left to MPI to report.  The Iso layer
 * passes a workaround for MPICH 4.0.2 here (src/iso/iso.c). */
int nh_valltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                  nh_alltoallw_fn to_mpi);

#endif
