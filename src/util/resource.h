/* Every MPI object nhood creates for itself goes through these wrappers,
 * which keep live counts (nhood_resource_counts in include/nhood.h):
 * private communicator duplicates, derived datatypes, requests, and the
 * per-communicator state nhood caches (graph plans, in-place contexts).
 * test/unit/check-resource-calls.sh fails the build's tests if a creating
 * or freeing PMPI call appears anywhere else in src/. */
#ifndef NH_RESOURCE_H
#define NH_RESOURCE_H

#include "util/mpilib.h"

typedef enum { NH_RES_COMM = 0, NH_RES_DATATYPE, NH_RES_REQUEST, NH_RES_PLAN, NH_RES_COUNT } nh_res;

void nh_res_add(nh_res kind, long delta);
long nh_res_live(nh_res kind);

int nh_comm_dup(MPI_Comm comm, MPI_Comm *out);
#ifdef NHOOD_SMPI
/* The SMPI build's private duplicate (src/smpi/compat.c): one that shares
 * comm's group, where SMPI's MPI_Comm_dup copies it per rank. */
int nh_smpi_comm_dup(MPI_Comm comm, MPI_Comm *out);
#endif
/* Set while nh_comm_dup runs: attribute copy callbacks (plan/detect.c)
 * leave nhood's own duplicates plain. */
extern __thread int nh_in_dup;
int nh_comm_free(MPI_Comm *comm);
/* A private duplicate of MPI_COMM_WORLD on which graph creation's
 * agreement travels point to point (plan/agree.c), made at start-up where
 * every rank allows it (api/lifecycle.c); MPI_COMM_NULL elsewhere. */
extern MPI_Comm nh_world_priv;
/* ... where MPI_COMM_WORLD has at most this many ranks. */
#define NH_PAIRWISE_MAX 8
/* MPI_Comm_split (counted unless MPI_COMM_NULL). */
int nh_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out);
/* MPI_Comm_split_type without info (counted unless MPI_COMM_NULL). */
int nh_comm_split_type(MPI_Comm comm, int type, int key, MPI_Comm *out);
/* The lowest rank of comm that shares the caller's node (collective).
 * Where nh_node_size > 0 (NHOOD_NODE_SIZE, for tests on one machine) a
 * node is a block of that many consecutive MPI_COMM_WORLD ranks. */
int nh_node_leader(MPI_Comm comm, int *node);
extern int nh_node_size;
/* Ranks beside cores (collective over scope): on each shared-memory node
 * the ranks R and the CPUs C their affinity lets them run on together;
 * nh_node_ranks / nh_node_cpus keep the pair of the node with the most
 * ranks per CPU (0 / 0 where unknown: simulated, or not agreed);
 * nh_node_max the most ranks of scope on one node (NHOOD_NODE_SIZE's
 * where set; 0 where not agreed: Sessions). */
int nh_oversub_agree(MPI_Comm scope);
extern int nh_node_ranks, nh_node_cpus, nh_node_max;
/* Creates and commits; *out is valid only on success. */
int nh_type_create_struct(int n, const int *lens, const MPI_Aint *disps, const MPI_Datatype *types,
                          MPI_Datatype *out);
/* MPI_Type_create_resized, committed; *out is valid only on success. */
int nh_type_create_resized(MPI_Datatype type, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out);
/* MPI_Type_contiguous, committed; *out is valid only on success. */
int nh_type_contiguous(int count, MPI_Datatype type, MPI_Datatype *out);
int nh_type_free(MPI_Datatype *type);
/* MPI_Type_dup (committed, as its original). */
int nh_type_dup(MPI_Datatype type, MPI_Datatype *out);
/* An indexed datatype made for the application (Type_create_triangular):
 * committed, returned to it and freed by it, so not counted. */
int nh_type_create_user_indexed(int n, const int *lens, const int *disps, MPI_Datatype old,
                                MPI_Datatype *out);
/* The one inner type MPI_Type_get_contents returns for a contiguous or dup
 * type (a new handle unless predefined: the caller frees it with
 * nh_type_free when *named is 0). */
int nh_type_inner(MPI_Datatype type, int ni, int na, int nd, int *ints, MPI_Aint *aints,
                  MPI_Datatype *inner, int *named);
int nh_isend(const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
             MPI_Request *req);
int nh_irecv(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
             MPI_Request *req);
int nh_send_init(const void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req);
int nh_recv_init(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                 MPI_Request *req);
int nh_iallreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                  MPI_Request *req);
int nh_request_free(MPI_Request *req);
/* Complete nhood's requests: the nonpersistent ones that complete are
 * freed by MPI (persistent ones stay until nh_request_free). */
int nh_waitall(int n, MPI_Request *reqs, MPI_Status *stats);
int nh_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *stats);

#endif
