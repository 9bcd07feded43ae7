/* Store-and-forward (STFW) schedules for irregular neighborhoods, after
 * Selvitopi and Aykanat, "Regularizing irregularly sparse point-to-point
 * communications" (SC'19).
 *
 * The K ranks are placed on a virtual process topology (VPT) of n
 * dimensions k_1 x ... x k_n = K.  Ranks that differ in exactly one
 * coordinate are neighbors in that dimension.  A block from s to d
 * travels in n stages: in stage c the holder forwards it to the neighbor
 * whose coordinate c is d's, or keeps it when it already is.  A rank thus
 * sends at most sum_c (k_c - 1) messages, whatever its degree, at the
 * price of forwarding (volume grows by the Hamming distance of s and d).
 *
 * Everything here is pure (no MPI): the builder takes every rank's
 * neighbor lists and produces the schedule (sched.h) of one rank or of
 * all; the simulator runs all ranks' schedules on symbolic data and
 * measures the paper's metrics.  The library (plan/stfw_setup.c), the
 * metrics tool (tools/nhood-stfw-metrics.c) and the unit tests share it.
 *
 * Schedule layout: phase c (1..n) is stage c; a round is either a send
 * (sendpeer set) or a receive (recvpeer set); between two ranks there is
 * at most one message per stage, in which the blocks appear in the same
 * order on both sides.  Copy rounds (self edges, and duplicate sources of
 * allgather, which receive the block once) run in phase n + 1.  A block
 * lands in the receive buffer at its destination as soon as it arrives;
 * on the way it sits in temporary slots (one per block and hop, never
 * reused, so the temporaries of a rank are its store-and-forward buffer).
 * Allgather forwards one copy of a block per distinct route prefix (the
 * targets of a block sorted by coordinates, first dimension first, share
 * prefixes in contiguous runs), like the trie of the torus builder. */
#ifndef NH_STFW_H
#define NH_STFW_H

#include "model.h"
#include "sched.h"

#define NH_STFW_MAXDIMS 32
/* NHOOD_STFW_DIMS=agg / nhood_stfw_dims=agg: node aggregation (nh_vpt_agg) */
#define NH_STFW_AGG (NH_STFW_MAXDIMS + 1)

/* "agg" or 1..NH_STFW_MAXDIMS into *out; 0, or -1 when malformed. */
int nh_parse_stfw_dims(const char *s, int *out);

typedef struct nh_vpt {
    int K, n;
    int dims[NH_STFW_MAXDIMS]; /* k_1..k_n; coordinate 0 varies fastest */
    int *pos;                  /* rank -> position (NULL: identity) */
    int *rank;                 /* position -> rank (NULL: identity) */
    /* Node aggregation (nh_vpt_agg) instead of a grid: n = 3, positions
     * node-major; node n's ranks at positions nstart[n] .. nstart[n+1]-1 */
    int agg, nnodes, maxppn;
    int *nstart, *nodeof; /* node -> first position (nnodes + 1); rank -> node */
} nh_vpt;

/* The largest VPT dimension for K ranks: the number of prime factors of K
 * counted with multiplicity (every dimension has k_c >= 2).  A prime K
 * has only n = 1, which is plain direct communication. */
int nh_vpt_max_dims(int K);

/* Dimension sizes for K ranks and n dimensions, as equal as possible: the
 * prime factors of K, largest first, each multiplied into the dimension
 * with the smallest product so far; sizes sorted largest first.  For K a
 * power of two this is the paper's scheme (sizes 2^ceil and 2^floor of
 * lg K / n).  first > 0 fixes k_1 = first (node-aware VPTs; first must
 * divide K) and balances K / first over the other n - 1 dimensions.
 * Returns 0, or -1 when n is out of [1, max dims] or first does not fit.
 * The positions are the identity (nh_vpt_set_order changes that). */
int nh_vpt_init(nh_vpt *v, int K, int n, int first);
/* Places rank order[i] at position i (order is a permutation of 0..K-1).
 * Returns 0 or -1 (allocation or not a permutation). */
int nh_vpt_set_order(nh_vpt *v, const int *order);
/* Node-aware placement (see plan/vpt_node.c): loc[2r], loc[2r+1] are rank
 * r's node and NUMA domain.  Ranks sorted by (node, NUMA, rank) take
 * consecutive positions and k_1 divides every node's rank count, so each
 * first-dimension group lies inside one node; node sizes may differ.
 * Returns 1 with v set, 0 when no k_1 fits (v untouched), -1 on
 * allocation failure. */
int nh_vpt_grouped(nh_vpt *v, int K, int n, const int *loc);
/* Node aggregation, the locality-aware aggregation of the MPI Advance
 * library (Bienz et al., e.g. "A More Scalable Sparse Dynamic Data
 * Exchange", arXiv:2308.13869) in the form of a three-stage route:
 * stage 1 gathers within the node, at the rank that serves the
 * destination's node (local index: destination node mod node size),
 * blocks for the node itself going straight to their rank; stage 2 sends
 * one message per pair of nodes, to the rank of the destination node that
 * serves the source node (source node mod its size); stage 3 scatters
 * within the node.  loc as nh_vpt_grouped.  Returns 1 with v set (n = 3,
 * agg), 0 when it does not apply (one node, or one rank per node; v
 * untouched), -1 on allocation failure. */
int nh_vpt_agg(nh_vpt *v, int K, const int *loc);
void nh_vpt_fini(nh_vpt *v);
/* "8x4x4" */
void nh_vpt_format(const nh_vpt *v, char *buf, size_t len);

/* Every rank's neighbor lists as given to MPI (duplicates, self edges and
 * empty lists allowed). */
typedef struct nh_stfw_graph {
    int K;
    const int *outdeg, *indeg;
    int *const *dst, *const *src;
} nh_stfw_graph;

enum { NH_STFW_OK = 0, NH_STFW_OOM = -1, NH_STFW_INCONSISTENT = -2 };

/* Builds op's STFW schedules: out[r] for every rank r when me < 0, else
 * out[0] for rank me only (the routing still runs over all blocks, since
 * other ranks' blocks pass through me).  Returns NH_STFW_OK, NH_STFW_OOM,
 * or NH_STFW_INCONSISTENT when the lists do not describe a graph (an edge
 * s -> d that d does not list as a source as often, or a rank out of
 * range); then nothing is allocated. */
int nh_stfw_build(const nh_stfw_graph *g, const nh_vpt *v, nh_op op, int me, nh_sched **out);

/* The direct exchange over this rank's (me's) lists, in the layout of a
 * one-stage STFW schedule but from its own lists alone (core/direct.c):
 * one message to each distinct destination, MPI's definition of repeated
 * edges kept (the k-th edge s -> d lands in d's k-th slot listing s),
 * where MPI's own exchange orders them wrongly (MPICH 4.0 to 4.2).
 * Returns 0 or -1 (memory). */
int nh_build_direct_lists(int me, int indeg, const int *srcs, int outdeg, const int *dsts,
                          nh_op op, nh_sched **out);

/* Messages a schedule sends (the executor's count; copies excluded). */
long nh_stfw_sched_msgs(const nh_sched *s);

/* The paper's metrics over all ranks; volumes and buffers in words. */
typedef struct nh_stfw_metrics {
    long mmax;      /* largest number of messages a rank sends */
    double mavg;    /* average over ranks */
    double vavg;    /* average volume a rank sends */
    long vmax;      /* largest volume a rank sends */
    long bufmax;    /* largest buffer: own send + receive data + forwarded data held */
    long total_msg; /* messages in all */
} nh_stfw_metrics;

/* Simulates all ranks' schedules (from nh_stfw_build with me < 0) on
 * symbolic blocks, phase by phase: every message must be matched by
 * exactly one receive of the same length on its peer in the same stage,
 * and in the end every receive slot must hold, written exactly once, the
 * block MPI's definition puts there (alltoall: the k-th edge from s to d
 * lands in d's k-th slot listing s; allgather: s's block in every slot
 * listing s).  words[r][j] is the size of rank r's j-th outgoing block
 * (alltoall; NULL: one word each, and always one word for allgather).
 * Returns 1 if delivery is right, 0 with the reason in why, -1 on
 * allocation failure; fills m (if not NULL) either way. */
int nh_stfw_simulate(const nh_stfw_graph *g, nh_op op, nh_sched *const *scheds, long *const *words,
                     nh_stfw_metrics *m, char *why, size_t whylen);

/* The baseline (one message per distinct destination other than self,
 * all of a rank's blocks to it combined) in the same metrics. */
void nh_stfw_baseline(const nh_stfw_graph *g, long *const *words, nh_stfw_metrics *m);

/* Cost-model estimates from cheap global statistics (identical on every
 * rank): largest out- and in-degree, average degree, for a VPT with the
 * given dimension sizes.  Messages a rank sends at most, and the factor
 * by which forwarding multiplies the volume (expected Hamming distance). */
double nh_stfw_est_msgs(const nh_vpt *v, double maxout, double maxin, double avgdeg);
double nh_stfw_est_hops(const nh_vpt *v);

/* What the store-and-forward model knows of a graph, identical on every
 * rank: the largest out- and in-degree, the average degree, the ranks,
 * and the most of them on one node (0 or 1: unknown, or one per node;
 * no node traffic is priced then). */
typedef struct nh_stfw_shape {
    double maxout, maxin, avg;
    int K, ppn;
} nh_stfw_shape;

/* Modeled time of one call for blocks of `bytes`, for the busiest rank,
 * in the cost model's phases (model.h).  One message per neighbor
 * (nh_stfw_model_bl): one phase of maxout messages sent and maxin
 * received.  Store-and-forward over v: a phase per stage, of the stage's
 * messages (nh_stfw_est_msgs) and its share of the forwarded volume
 * (stage s carries a block with probability (k_s - 1) / k_s), whose
 * latency, probing and matching c->stage holds (a stage waits for the
 * previous one's messages), plus the forwarding work (pack, send on,
 * unpack: c->fwd per byte).  Both price the node's link: the bytes all
 * ppn ranks of a node send to other nodes in the phase, where nodes hold
 * ppn consecutive VPT positions (block placement, or the node-aware one)
 * and destinations are uniform. */
double nh_stfw_model_bl(const nh_cost *c, const nh_stfw_shape *g, double bytes);
double nh_stfw_model(const nh_cost *c, const nh_vpt *v, const nh_stfw_shape *g, double bytes);

/* Block sizes are unknown at graph creation.  The VPT dimension is the
 * model's best for blocks of NH_STFW_DIMS_BYTES: store-and-forward pays
 * where messages are latency-bound, and there the stages' messages, not
 * their bytes, decide the dimension (chosen for larger blocks, it takes
 * too few dimensions for the small ones; docs/simulation.md).  Whether
 * STFW runs is decided at NH_STFW_MODEL_BYTES until auto's re-check at
 * the first blocking call prices the call's mean block.  The schedules are
 * built wherever STFW wins for blocks of NH_STFW_ARM_BYTES: STFW sends at
 * least the bytes of one message per neighbor, so its lead shrinks as
 * blocks grow, and a graph where it loses even for one-byte blocks never
 * needs them. */
#define NH_STFW_DIMS_BYTES 16.0
#define NH_STFW_MODEL_BYTES 256.0
#define NH_STFW_ARM_BYTES 1.0

/* The VPT dimension for g->K ranks: want if > 0 (clamped to what K
 * allows), else the model's best among 2..max for NH_STFW_DIMS_BYTES
 * blocks (the balanced VPT of nh_vpt_init; the lowest on a tie; 1 if K
 * allows no more); *gain tells whether it beats one message per neighbor
 * for NH_STFW_MODEL_BYTES blocks, *arm whether it does for
 * NH_STFW_ARM_BYTES. */
int nh_stfw_choose_dims(const nh_cost *c, const nh_stfw_shape *g, int want, int *gain, int *arm);

/* Does store-and-forward over v model faster than one message per
 * neighbor for blocks of `bytes`? */
int nh_stfw_beats_bl(const nh_cost *c, const nh_vpt *v, const nh_stfw_shape *g, double bytes);

/* Does node aggregation (agg, nh_vpt_agg) model faster than the VPT v, at
 * NH_STFW_DIMS_BYTES as the dimension is chosen? */
int nh_stfw_agg_beats(const nh_cost *c, const nh_vpt *agg, const nh_vpt *v, const nh_stfw_shape *g);

#endif
