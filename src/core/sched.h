/* The schedule: the one data structure every algorithm produces.
 *
 * A schedule is a list of rounds.  A round sends a list of blocks to one
 * peer and receives a list of blocks from one (possibly different) peer; a
 * copy round moves blocks locally, send[i] -> recv[i].  A block is a
 * (buffer, slot) pair: slot i of the user's send buffer, of the user's
 * receive buffer, or of a temporary buffer the schedule owns.  Rounds with
 * the same phase number are independent and may run concurrently; phases
 * run in order.
 *
 * Builders are pure functions of the neighborhood (no MPI), so the same
 * schedule feeds the executor, the simulator and the unit tests.  Every
 * rank builds the same sequence of rounds (only block lists differ at mesh
 * boundaries), so round i on one rank matches round i on its peer.  A
 * round's tag names its message at both ends: the round index for grid
 * schedules, the stage for store-and-forward (whose ranks build different
 * rounds, but exchange at most one message per pair of ranks and stage);
 * the engine derives the MPI tag from it. */
#ifndef NH_SCHED_H
#define NH_SCHED_H

#include "core/grid.h"

enum { NH_BUF_SEND = 0, NH_BUF_RECV = 1, NH_BUF_TEMP = 2 };

typedef struct nh_blk {
    int buf;
    int slot;
    int key; /* alltoall: template entry the block belongs to (-1: not recorded) */
} nh_blk;

typedef struct nh_round {
    int phase;
    int tag;      /* the message's name at both ends (see top); 0 <= tag < nh_sched.ntags */
    int copy;     /* local copy round: send[i] -> recv[i] */
    int sendpeer; /* rank or NH_NONE */
    int recvpeer; /* rank or NH_NONE */
    int nsend, nrecv, capsend, caprecv;
    nh_blk *send, *recv;
    int tmpl_blocks; /* blocks this round moves on an interior rank */
    int has_hop;     /* grid schedules: every rank sends to itself + hop (nh_sched_add_hop) */
    int alt;         /* the other route of a split schedule (nh_sched_add_alt) */
    int hop[NH_MAXDIMS];
} nh_round;

typedef enum { NH_OP_ALLTOALL = 0, NH_OP_ALLGATHER, NH_OP_COUNT } nh_op;

/* How a neighborhood collective was called. */
typedef enum {
    NH_FORM_BLOCKING = 0,
    NH_FORM_NONBLOCKING,
    NH_FORM_PERSISTENT,
    NH_FORM_COUNT
} nh_form;

typedef enum {
    NH_ALGO_AUTO = 0,
    NH_ALGO_PMPI,
    NH_ALGO_DIRECT,
    NH_ALGO_TORUS,
    NH_ALGO_TORUS_DIRECT,
    NH_ALGO_BRUCK,
    NH_ALGO_STFW, /* store-and-forward, irregular graphs (stfw.h); runs before selection */
    NH_ALGO_COUNT
} nh_algo;

/* One phase's traffic off the nodes (nh_sched_node_stats). */
typedef struct nh_node_phase {
    long blocks;     /* the most blocks the ranks of one node send off it */
    double link_blocks; /* the blocks on the busiest directed link between nodes (per
                         * link of a bundle) */
    int link_after;     /* the messages a rank posts in the phase before the first on
                         * that link (of links as busy, the latest to start) */
    int link_recv;      /* the most messages one rank receives over that link */
    int far;         /* the most hops beyond the first a message of the phase takes */
} nh_node_phase;

typedef struct nh_sched {
    nh_algo algo;
    nh_op op;
    int nrounds, caprounds;
    nh_round *rounds;
    int nphases;
    int ntags; /* round tags are below this */
    int ntemp; /* temporary block slots */
    int oom;   /* set when an allocation failed while building */
    /* Interior-rank statistics, identical on every rank (used by the cost
     * model, which must decide the same way everywhere). */
    int tmpl_rounds;  /* phases that send messages (communication rounds) */
    long tmpl_msgs;   /* messages sent */
    long tmpl_blocks; /* blocks sent (volume in blocks) */
    long tmpl_copies; /* blocks copied locally */
    long tmpl_multi;  /* blocks sent in messages holding more than one block */
    /* Traffic that leaves a node, for one placement of the grid's ranks on
     * nodes (nh_sched_node_stats; 0 until it is called). */
    int node_phases;  /* communication phases in which some rank sends off its node */
    long node_blocks; /* most blocks the ranks of one node send off it */
    nh_node_phase *node_ph; /* per phase (NULL: not known; node_blocks spread over
                             * node_phases) */
    int cur_key;      /* while building: key recorded with added blocks (see nh_blk) */
    int *hops;        /* split schedules: message phases template entry t's block takes */
} nh_sched;

/* Builder API shared by the algorithm files. */
nh_sched *nh_sched_new(nh_algo algo, nh_op op);
int nh_sched_add_round(nh_sched *s, int phase, int sendpeer, int recvpeer, int copy);
/* A message round of a grid schedule: every rank sends to its coordinates
 * + hop and receives from its coordinates - hop (NH_NONE off a mesh). */
int nh_sched_add_hop(nh_sched *s, int phase, const nh_nbhd *nb, const int *hop);
void nh_sched_add_send(nh_sched *s, int round, int buf, int slot);
void nh_sched_add_recv(nh_sched *s, int round, int buf, int slot);
int nh_sched_temp(nh_sched *s);
/* A block of the final copy round cr (interior count included): from ->
 * receive slot recv_slot, unless that is NH_NONE (no such source here). */
void nh_sched_add_copy(nh_sched *s, int cr, int key, nh_blk from, int recv_slot);
/* Appends the size bytes at x to a growable array (*v: *n elements in
 * use of *cap), doubling it when full.  0, or -1 (memory). */
int nh_vec_push(void *v, int *n, int *cap, const void *x, size_t size);
/* Drops rounds no rank uses, fills phase count and statistics.  Returns 0 or -1 (oom). */
int nh_sched_finish(nh_sched *s);
void nh_sched_free(nh_sched *s);
/* Are a and b alike on every rank: the same operation, and the same
 * rounds in the same order and phases, each a copy or a message along the
 * same hop of the grid, moving as many blocks on an interior rank (so the
 * same statistics), and with same_lists (every rank's lists are an
 * interior rank's: a grid periodic in every dimension) the same blocks in
 * each round; without it no copy round is alike.  A pure function of
 * what every rank builds alike (rounds without a hop, and split
 * schedules, are never alike); the learning (select/candidates.c) times
 * one of two alike schedules that the cost model also prices alike. */
int nh_sched_alike(const nh_sched *a, const nh_sched *b, int same_lists);
/* Makes a finished alltoall grid schedule a split one: for every template
 * entry t that leaves the rank, one more round in phase 0 that sends the
 * entry's user block straight to its final receiver (tag ntags + t; the
 * tag count grows by the template size) and hops[t], the message phases
 * the block takes along the schedule (per_dim: one per nonzero
 * coordinate, as torus_direct routes; else the sum of their magnitudes,
 * hop by hop).  A call then sends each block one way or the other by a
 * rule both of its ends evaluate alike (exec/engine.h: split routes).
 * Returns 0, or -1 (memory). */
int nh_sched_add_alt(nh_sched *s, const nh_nbhd *nb, int per_dim);
/* The way from node a to node b (their places in rank order, from 0)
 * with the nodes laid along rings of `ring` nodes one after the other:
 * the shorter way round the ring, plus a hop per ring between; returns
 * the hops, and *up whether the ring is taken upwards. */
int nh_node_hops(int a, int b, int ring, int *up);

/* Numbers the nodes of a placement in the order of their lowest ranks:
 * node_of[r] in [0, p) names rank r's node (its lowest rank, say) and
 * becomes that node's number, from 0; ord is scratch for p ints.
 * Returns how many nodes there are. */
int nh_node_number(int *node_of, int p, int *ord);

/* The network between nodes, for nh_sched_node_stats: rings of `ring`
 * nodes (a torus), or, where tier[0] > 0, a hierarchy (a dragonfly)
 * whose tier k groups tier[k] nodes (0: no such tier), each a multiple
 * of the last; links[k]: how many links tier k's link between two units
 * stands for (0: one). */
#define NH_NET_TIERS 3
typedef struct nh_net {
    int ring;
    int tier[NH_NET_TIERS];
    int links[NH_NET_TIERS];
    int gateway; /* the third tier's links between two units leave from one
                  * router in each (SimGrid's dragonfly; nh_tier_hops) */
} nh_net;

/* A block's hops from node a to another node b in net's hierarchy
 * (net->tier[0] > 0): one, plus one per tier whose units the two nodes
 * differ in (the tiers up to the first 0).  With net->gateway and three
 * tiers, a block between two third-tier units goes by the router of its
 * unit that holds their links (the one whose first-tier place is the
 * other unit's number, in the unit's first second-tier unit), and on from
 * the router of the other unit whose place is its own unit's number: one
 * hop per router changed on the way. */
int nh_tier_hops(const nh_net *net, int a, int b);

/* Fills node_phases, node_blocks and node_ph of a finished grid
 * schedule for a placement of the grid's ranks on nnodes nodes:
 * node_of[r] is rank r's node, numbered as nh_node_number does.  On
 * rings, the nodes in that order lie along rings of net->ring nodes one
 * after the other (a torus's first dimension; 0: one ring of them all); a
 * block from one node to another takes the shorter way round its ring,
 * plus a hop per ring between at its destination's place, and loads each
 * link on that way (each direction a link of its own).  In a hierarchy, a
 * block passes one hop per tier whose units its nodes differ in, plus
 * one; between routers (first-tier units) it sets its router's place in
 * each tier from the first up, a link each, as a dragonfly routes within
 * a group (sched.c, tier_loads; a third tier's links between two units
 * form one bundle), and loads those links.  Interior-rank block counts,
 * so the result is the same on every rank.  O(size * message rounds +
 * (nodes + links) * phases) time, O(nodes + links) memory (a hierarchy
 * of over 4M links between routers gets no loads). */
void nh_sched_node_stats(nh_sched *s, const nh_grid *g, const int *node_of, int nnodes,
                         const nh_net *net);

/* The eager split, one rule for the engine and the cost model: how many
 * of the n blocks of sizes sz[] go in the next message so that it stays
 * under the eager limit (at least one: a block larger than the limit
 * travels alone, as in the native exchange; all of them when eager <= 0).
 * Both ends of a message see the same sizes, so they split alike. */
int nh_eager_take(const size_t *sz, int n, double eager);
/* The same rule for n blocks of m bytes each: blocks per message. */
int nh_eager_chunk(size_t m, int n, double eager);

/* One common signature for every algorithm. */
typedef int (*nh_builder_fn)(const nh_nbhd *nb, nh_op op, nh_sched **out);

int nh_build_direct(const nh_nbhd *nb, nh_op op, nh_sched **out);
int nh_build_torus(const nh_nbhd *nb, nh_op op, nh_sched **out);
int nh_build_torus_direct(const nh_nbhd *nb, nh_op op, nh_sched **out);
/* Few rounds at the price of volume (Bruck-style digits, core/bruck.c);
 * uses nb->ports messages per phase. */
int nh_build_bruck(const nh_nbhd *nb, nh_op op, nh_sched **out);
/* Shared engine of torus and torus_direct: dimension-wise routing along a
 * trie of offset prefixes (one chain per block for alltoall, shared
 * prefixes for allgather).  direct_hops=0: hop by hop between immediate
 * neighbors; 1: one message per distinct coordinate value. */
int nh_build_dimwise(const nh_nbhd *nb, nh_op op, int direct_hops, nh_algo algo, nh_sched **out);

typedef struct nh_algo_info {
    const char *name;
    nh_builder_fn build; /* NULL for auto, pmpi and stfw (core/stfw.c builds it) */
} nh_algo_info;

extern const nh_algo_info nh_algos[NH_ALGO_COUNT];

/* How the engine binds a message of several blocks: AUTO packs up to the
 * eager limit and describes larger ones with a struct datatype; PACK
 * always packs, ZCOPY always describes (NHOOD_BINDING, the learning's
 * candidates); each of them splits a round's blocks to a peer into
 * messages under the eager limit (nh_eager_take).  Candidates of the
 * learning only, never settings, since both ends of a message must take
 * them alike: EACH sends every block as a message of its own (MPI's own
 * exchange, run by nhood's schedule); WHOLE sends a round's blocks to a
 * peer as one message, described by a struct datatype, however large. */
typedef enum {
    NH_BIND_AUTO = 0,
    NH_BIND_PACK,
    NH_BIND_ZCOPY,
    NH_BIND_EACH,
    NH_BIND_WHOLE,
    NH_BIND_COUNT
} nh_binding;
/* Their names, in value order, NULL-ended. */
extern const char *const nh_binding_names[NH_BIND_COUNT + 1];
/* The algorithm named v (nh_algos' names): 0, or -1. */
int nh_parse_algo(const char *v, nh_algo *out);
const char *nh_op_name(nh_op op);

/* The five neighborhood collectives.  Each belongs to a schedule family
 * (alltoall or allgather); the v and w forms describe every block alone. */
typedef enum {
    NH_COLL_ALLTOALL = 0,
    NH_COLL_ALLGATHER,
    NH_COLL_ALLTOALLV,
    NH_COLL_ALLTOALLW,
    NH_COLL_ALLGATHERV,
    NH_COLL_COUNT
} nh_coll;
static inline nh_op nh_coll_op(nh_coll c)
{
    return c == NH_COLL_ALLGATHER || c == NH_COLL_ALLGATHERV ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
}

static inline int nh_coll_vec(nh_coll c) /* v and w forms */
{
    return c >= NH_COLL_ALLTOALLV;
}
const char *nh_coll_name(nh_coll c);

/* Simulator: runs the schedules of all ranks of a grid on symbolic data,
 * without MPI, and checks MPI semantics against the neighbor lists. */
typedef struct nh_sim_result {
    int ok;
    char why[256];
    long max_msgs, total_msgs;     /* messages sent per rank (max) and in total */
    long max_blocks, total_blocks; /* blocks sent */
    int nphases;
} nh_sim_result;

/* Statistics of rank 0's schedule (identical on every rank). */
typedef struct nh_sched_stats {
    int rounds, nphases, ntemp;
    long msgs, blocks, copies;
    int node_phases; /* with ppn > 0: see nh_sched_node_stats */
    long node_blocks;
    int node_far;         /* the most of a phase's nh_node_phase.far */
    double node_link_blocks; /* the most of a phase's nh_node_phase.link_blocks */
    /* with nodes->cost: the schedule's price, the cheaper binding's, and
     * MPI's own exchange's (one phase of one message per neighbor, as
     * select/select.c prices it), in microseconds */
    double model_us, model_native_us;
} nh_sched_stats;

/* Where nh_sim_offsets places the ranks, and what it prices. */
struct nh_cost;
typedef struct nh_sim_nodes {
    int ppn;                    /* consecutive ranks per node (0: no node statistics) */
    nh_net net;                 /* the network between the nodes */
    const struct nh_cost *cost; /* where not NULL, with ppn: price the schedule ... */
    size_t bytes;               /* ... for blocks of this many bytes (core/model.h) */
} nh_sim_nodes;

/* End to end without MPI: the neighbor lists every rank of g would pass
 * for the user's offsets (shuffled per rank when seed != 0), the template
 * agreement and canonicalization detection performs, algo's schedule on
 * every rank (k-ported builders with ports messages per phase), and the
 * simulation (skipped when simulate is 0, for quick
 * statistics at large scale; then only rank 0 is built).  nodes (may be
 * NULL): node statistics and the model's prices as well.  Returns 0 and
 * fills res and st; 1 if detection would decline (no rank sees the whole
 * neighborhood, or some rank's lists do not fit); -1 on allocation or
 * build failure. */
int nh_sim_offsets(const nh_grid *g, int s, const int *off, unsigned seed, nh_op op, nh_algo algo,
                   int ports, int simulate, const nh_sim_nodes *nodes, nh_sim_result *res,
                   nh_sched_stats *st);

/* dests[r], srcs[r]: rank r's neighbor lists (as the user gave them). */
void nh_sim_run(int p, const nh_nbhd *nbs, nh_sched *const *scheds, int *const *dests,
                const int *outdeg, int *const *srcs, const int *indeg, nh_op op,
                nh_sim_result *res);

#endif
