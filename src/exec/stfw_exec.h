/* Store-and-forward (STFW) neighborhood collectives on irregular
 * distributed-graph communicators: set-up at graph creation and blocking
 * execution (see sched/stfw.h for the algorithm). */
#ifndef NH_STFW_EXEC_H
#define NH_STFW_EXEC_H

#include "nh.h"
#include "sched/stfw.h"

/* The call goes to the next candidate (combining algorithms or PMPI). */
#define NH_STFW_PASS (-1)

/* Collective over graph, called by every rank at graph creation once the
 * plan is known: agrees on whether STFW runs for each operation and at
 * which VPT dimension (from allreduced statistics, the same everywhere),
 * gathers the neighbor lists, builds this rank's schedules and caches
 * them in p->stfw.  Returns MPI_SUCCESS (also when STFW does not apply)
 * or an MPI error. */
int nh_stfw_setup(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                  const int *dsts, int hint_dims);
void nh_stfw_free(nh_plan *p);

/* Blocking neighborhood collectives with STFW where the communicator has
 * it for the operation: MPI_SUCCESS or an MPI error (the communicator's
 * error handler already called), or NH_STFW_PASS. */
int nh_stfw_try_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                         MPI_Datatype rtype, MPI_Comm comm);
int nh_stfw_try_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                          MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
                          MPI_Datatype rtype, MPI_Comm comm);
int nh_stfw_try_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm);
int nh_stfw_try_allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                           MPI_Comm comm);

/* Nonblocking (persistent = 0) and persistent (1) forms with STFW where
 * the communicator has it for the operation and NHOOD_PROGRESS=poll:
 * MPI_SUCCESS with *req nhood's request (exec/request.c), an MPI error
 * (the error handler already called), or NH_STFW_PASS. */
int nh_stfw_try_ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                          MPI_Datatype rtype, MPI_Comm comm, int persistent, MPI_Request *req);
int nh_stfw_try_iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                           MPI_Datatype rtype, MPI_Comm comm, int persistent, MPI_Request *req);

/* For NHOOD_REPORT and nhood_algorithm_for: the VPT dimension STFW runs
 * op with on this communicator, 0 if it does not.  Under auto, the first
 * blocking call of op checks the choice again with the size of its blocks
 * (one reduction, which turns STFW on or off for op from then on);
 * nh_stfw_predict tells what that check would decide for uniform blocks of
 * block_bytes, and afterwards what it decided. */
int nh_stfw_dims_for(const nh_plan *p, nh_op op);
int nh_stfw_predict(const nh_plan *p, nh_op op, int block_bytes);
/* Fills the report record's STFW fields (dims, VPT, message counts). */
void nh_stfw_report_fill(const nh_plan *p, nh_op op, nh_report_rec *r);

/* Node-aware VPT (topo/vpt_node.c): collective over comm.  Places the
 * ranks of each shared-memory node (and within it, of each hwloc package
 * and NUMA node) at consecutive positions and sets k_1 so that every
 * first-dimension group lies inside one node: stage 1, which carries the
 * most messages, stays on the node.  k_1 must divide every node's rank
 * count; the node sizes may differ.  Returns MPI_SUCCESS with *applied = 1
 * and v initialized for n dimensions, or *applied = 0 (v untouched) when
 * the grouping does not fit (all ranks on one node, node sizes with no
 * common divisor that suits n, ...), or an MPI error.  Every rank reaches
 * the same outcome. */
int nh_vpt_node(MPI_Comm comm, int n, nh_vpt *v, int *applied);

#endif
