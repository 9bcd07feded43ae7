/* Store-and-forward (STFW) neighborhood collectives on irregular
 * distributed-graph communicators: set-up at graph creation and blocking
 * execution (see core/stfw.h for the algorithm). */
#ifndef NH_STFW_EXEC_H
#define NH_STFW_EXEC_H

#include "nh.h"
#include "core/stfw.h"

/* What a communicator keeps for store-and-forward (nh_plan.stfw). */
typedef struct nh_stfw {
    nh_vpt v;
    int node_aware;               /* 1: node-aware VPT, 2: node aggregation (nh_vpt_agg) */
    nh_sched *sched[NH_OP_COUNT]; /* this rank's schedule; NULL: op not under STFW */
    long mmax[NH_OP_COUNT], bl_mmax;
    double mavg[NH_OP_COUNT], bl_mavg;
    /* auto's re-check at the first blocking call of each operation
     * (select/stfw_choice.c): the graph's figures for the model, whether it
     * is still due, its mean block in bytes (0: not made), and off: one
     * message per neighbor (the choice for NH_STFW_MODEL_BYTES until the
     * re-check, its outcome after; the schedule stays for requests made
     * before) */
    double maxout, maxin, avg, edges;
    int recheck[NH_OP_COUNT], off[NH_OP_COUNT];
    double block[NH_OP_COUNT];
} nh_stfw;

/* Collective over graph, called by every rank at graph creation once the
 * plan is known: agrees on whether STFW runs for each operation and at
 * which VPT dimension (from allreduced statistics, the same everywhere),
 * gathers the neighbor lists, builds this rank's schedules and caches
 * them in p->stfw (with p->pcomm for its traffic).  Returns MPI_SUCCESS
 * (also when STFW does not apply) or an MPI error. */
int nh_stfw_setup(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                  const int *dsts, int hint_dims);
void nh_stfw_free(nh_plan *p);
/* Does STFW over st's VPT beat one message per neighbor for blocks of
 * `bytes` (the cost model; auto's re-check and its prediction)? */
int nh_stfw_wins(const nh_stfw *st, double bytes);
/* The same in a nonblocking call the program completes w microseconds
 * after starting it: STFW's stages after the first (a VPT dimension's
 * share of its modeled time each) wait for the forwarding ranks'
 * completion calls, one message per neighbor moves during the window. */
int nh_stfw_wins_in_window(const nh_stfw *st, double bytes, double w);
/* The block size the model prices STFW at before auto's re-check. */
#define NH_STFW_MODEL_BYTES 256.0

/* Node-aware VPT (plan/vpt_node.c): collective over comm.  Places the
 * ranks of each shared-memory node (and within it, of each hwloc package
 * and NUMA node) at consecutive positions and sets k_1 so that every
 * first-dimension group lies inside one node: stage 1, which carries the
 * most messages, stays on the node.  k_1 must divide every node's rank
 * count; the node sizes may differ.  *applied = 1 with v initialized for
 * n dimensions, or 0 (v untouched) when the grouping does not fit (all
 * ranks on one node, node sizes with no common divisor that suits n,
 * n < 2, ...).  From the same node map, *agg_ok = 1 with agg set to the
 * node aggregation route (nh_vpt_agg: at least two nodes, one with two
 * ranks), else 0 (agg untouched).  Returns MPI_SUCCESS or an MPI error;
 * every rank reaches the same outcome. */
int nh_vpt_node(MPI_Comm comm, int n, nh_vpt *v, nh_vpt *agg, int *applied, int *agg_ok);

#endif
