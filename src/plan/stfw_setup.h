/* Store-and-forward (STFW) neighborhood collectives on irregular
 * distributed-graph communicators: the set-up, at graph creation or at
 * the first blocking call (stfw_setup.c), and the node-aware VPT
 * (vpt_node.c).  The schedules run on the engine (exec/engine.h); which
 * call runs them is select/stfw_choice.c's choice (see core/stfw.h for
 * the algorithm). */
#ifndef NH_STFW_EXEC_H
#define NH_STFW_EXEC_H

#include "plan/plan.h"
#include "core/facts.h"
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
    nh_stfw_shape shape;
    double edges;
    int recheck[NH_OP_COUNT], off[NH_OP_COUNT];
    double block[NH_OP_COUNT];
} nh_stfw;

/* The set-up's agreement, in two halves so that graph creation can carry
 * it in its own collective (plan/detect.c): this rank's values of
 * store-and-forward's agreed facts (nh_stfw_facts, core/facts.h), once per
 * graph creation. */
enum {
    NH_STFW_OUTDEG,                            /* MAX */
    NH_STFW_INDEG,                             /* MAX */
    NH_STFW_WANT,                              /* per op: forced 2, automatic 1, off 0; SAME */
    NH_STFW_DIMS = NH_STFW_WANT + NH_OP_COUNT, /* the VPT dimension asked for; SAME */
    NH_STFW_PROCNULL,                          /* some rank has MPI_PROC_NULL neighbors */
    NH_STFW_WINDOW,                            /* the largest window bucket (util/window.h) */
    NH_STFW_CALLS,                             /* the fewest calls per graph seen on a rank */
    NH_STFW_SETUP,                             /* NH_SETUP_*: when to set up; SAME */
    NH_STFW_GPU,                               /* some rank has GPU buffers (nh_plan.gpu) */
    NH_STFW_EDGES,                             /* the graph's edges: SUM */
    NH_STFW_PRE
};
extern const nh_fact nh_stfw_facts[NH_STFW_PRE];
void nh_stfw_pre(const nh_plan *p, int indeg, const int *srcs, int outdeg, const int *dsts,
                 const nh_hint *h, long long *pre);
/* Collective over graph, every rank with the same agreed words: whether
 * STFW runs for each operation and at which VPT dimension; where it may
 * win it gathers the neighbor lists, builds this rank's schedules and
 * caches them in p->stfw (with p->pcomm for its traffic), now where that
 * pays back (forced, or the earlier graph communicators' calls, agreed,
 * amortize it: amortized() in stfw_setup.c), else at the communicator's first
 * blocking call (nh_stfw_lazy).  Returns MPI_SUCCESS (also when STFW
 * does not apply) or an MPI error. */
int nh_stfw_setup_agreed(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                         const int *dsts, int hint_dims, const long long *agreed);
/* The same with its own reductions of this rank's words pre (graphs of
 * many ranks; pre is reduced in place). */
int nh_stfw_setup(nh_plan *p, MPI_Comm graph, int indeg, const int *srcs, int outdeg,
                  const int *dsts, int hint_dims, long long *pre);
/* At a blocking call on a communicator whose set-up waits (p->stfw_wait):
 * collective over comm, which every rank reaches at the same call. */
int nh_stfw_lazy(nh_plan *p, MPI_Comm comm);
/* What a blocking call of blocks of block_bytes would run (the VPT
 * dimension, or 0) on a communicator whose set-up waits and is not built
 * yet (p->root's stfw_pend): it sets it up and re-checks it. */
int nh_stfw_predict_waiting(const nh_plan *p, nh_op op, int block_bytes);
/* The report's word for where the set-up ran: "-" (none), "creation",
 * "first_blocking_call", "waiting" (not yet). */
const char *nh_stfw_when(const nh_plan *p);
/* Counts a neighborhood call on p for the amortization evidence: calls
 * per graph communicator called so far (api/neighbor.c). */
void nh_stfw_count_call(nh_plan *p);
void nh_stfw_free(nh_plan *p);
void nh_stfw_pend_free(nh_plan *p);
/* A communicator's own copy of st (a duplicate's: the schedules stay
 * st's owner's, the re-check state is its own), or NULL (memory). */
nh_stfw *nh_stfw_share(const nh_stfw *st);
/* Does STFW over st's VPT beat one message per neighbor for blocks of
 * `bytes` (the cost model; auto's re-check and its prediction)? */
int nh_stfw_wins(const nh_stfw *st, double bytes);
/* The same in a nonblocking call the program completes w microseconds
 * after starting it: STFW's stages after the first (a VPT dimension's
 * share of its modeled time each) wait for the forwarding ranks'
 * completion calls, one message per neighbor moves during the window. */
int nh_stfw_wins_in_window(const nh_stfw *st, double bytes, double w);

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
