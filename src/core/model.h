/* The cost model's parameters, one row each: the one description from
 * which the parameters' struct (nh_cost), the terms' order (NH_TERM_*,
 * public as NHOOD_TERM_* in include/nhood.h), the cost file's keys and
 * the NHOOD_COST_* variables (config/config.c), nhood-calibrate's fit
 * groups and docs/tuning.md's table come.  Pure: no MPI.
 *
 * X(NAME, key, default, group, description)
 *   NAME     the term's suffix (NH_TERM_NAME, NHOOD_COST_NAME)
 *   key      the struct field and the cost file's key
 *   default  nhood-calibrate on the development machine (MPICH 4.0.2
 *            ch4:ucx, 2 ranks on 2 cores; the median of three full fits,
 *            docs/algorithms.md, "Choosing"); stage and fwd fitted to
 *            simulated SpMV runs
 *            (docs/simulation.md, "Calibration"); core to Open MPI 4.1
 *            oversubscribed on that machine (docs/algorithms.md, "More
 *            ranks than cores")
 *   group    how nhood-calibrate gets it: 0 to 2 measured directly (the
 *            phase: latency, overheads, bytes), 3 scaled as a group to
 *            fit its training calls (local copies and datatypes), 4
 *            fitted to them by value (call); -1 measured between nodes,
 *            or kept as set
 *   description  one line, for the settings table and the docs
 *
 * The model prices message phases (LogGOPS-like: Hoefler, Schneider,
 * Lumsdaine, "LogGOPSim: Simulating Large-Scale Applications in the
 * LogGOPS Model", HPDC 2010, doi:10.1145/1851476.1851564; the node's
 * injection limit after Gropp, Olson, Samfass, "Modeling MPI
 * Communication Performance on SMP Nodes: Is it Time to Retire the Ping
 * Pong Test", EuroMPI 2016, doi:10.1145/2966884.2966919).  A phase's
 * counts n[] (the busiest interior rank's, NH_TERM_* order: n[ALPHA]
 * phases, n[O] messages sent, n[O_RECV] received, n[BETA] bytes sent, ...)
 * cost
 *   max(post + recv, wire + recv, wire + inject + last,
 *       wire + net + last) + after, where
 *   post   = o n[O] + beta n[BETA] + rndv n[RNDV] + pack n[PACK]
 *            + gather n[GATHER] + gather_small n[GATHER_SMALL] + delta n[DELTA]:
 *            the sender posts its messages one after the other;
 *   wire   = (o + alpha) n[ALPHA] + node n[NODE] + hop n[HOP]: the first
 *            message arrives one latency after it is posted, so latency
 *            is paid once per phase and hides behind the posting of many
 *            messages; leaving the node adds to it, and so does each node
 *            the farthest message passes beyond the first (the nodes in
 *            the order of their ranks lie along rings of `ring`, or in
 *            the units of tier1..tier3 of a hierarchical network such as
 *            a dragonfly: core/sched.h);
 *   inject = link n[LINK]: the bytes all ranks of the busiest node send
 *            off it in the phase, through the node's own link;
 *   net    = hop_link n[HOP_LINK] + late n[LATE]: the bytes on the busiest
 *            directed link between nodes, where messages from several nodes
 *            share the links on their way (a torus: a node has a link each
 *            way, far messages cross the links of the nodes between; a
 *            dragonfly's routers and chassis); a link drains from the
 *            posting of its first message, after the n[LATE] messages each
 *            rank posts before it in the phase, and its last byte arrives
 *            a latency (wire) later; a phase without latency
 *            of its own (n[ALPHA] = 0: a store-and-forward stage, whose
 *            latency `stage` holds) adds no wire there;
 *   recv   = o_recv n[O_RECV]: the receiver handles every message after
 *            its own posting, or after the first arrives;
 *   last   = o_recv min(n[O_RECV], n[ALPHA]): where a link bounds the
 *            phase, messages arrive as it drains and are handled as they
 *            come, so only the last one's overhead follows it;
 *   after  = gamma n[GAMMA] + core n[CORE] + call n[CALL]: local copies,
 *            the wait for a core and nhood's own work per call.
 * MPI's own exchange is one phase of one message per neighbor.  The time
 * is piecewise linear in the parameters: nh_cost_phase also returns the
 * branch taken as terms (lin) whose dot product with the parameters is
 * the time, what include/nhood.h's nhood_cost_terms reports. */
#ifndef NH_CORE_MODEL_H
#define NH_CORE_MODEL_H

#include <stddef.h>

#define NH_COST_TERMS(X)                                                                           \
    X(ALPHA, alpha, 0.31, 0,                                                                       \
      "us of latency per message phase, hidden behind posting its messages")                       \
    X(O, o, 0.125, 1, "us per message sent (the sender's overhead of posting it)")                 \
    X(O_RECV, o_recv, 0.18, 1, "us per message received (the receiver's overhead)")                \
    X(BETA, beta, 0.00008, 2, "us per byte sent")                                                  \
    X(GAMMA, gamma, 0.00004, 3, "us per byte copied locally (memcpy, mostly in cache)")            \
    X(PACK, pack, 0.00003, 3, "us per byte through nhood's pack or unpack (pack binding)")         \
    X(GATHER, gather, 0.0002, 3, "us per byte of a large struct message (zcopy binding)")          \
    X(GATHER_SMALL, gather_small, 0.0017, 3, "us per byte of an eager-sized struct message")       \
    X(DELTA, delta, 0.035, 3, "us per block described in a zero-copy struct datatype")             \
    X(RNDV, rndv, 2.0, 1, "us of rendezvous handshake per message above the eager limit")          \
    X(NODE, node, 0, -1, "us of latency a phase adds where some message leaves its node")          \
    X(LINK, link, 0, -1,                                                                           \
      "us per byte through a node's own link (all its ranks' bytes off the node in a phase)")      \
    X(CORE, core, 4.0, -1,                                                                         \
      "us per phase per rank beyond one per core (oversubscription: the "                          \
      "busiest node's ranks / its CPUs - 1)")                                                      \
    X(CALL, call, 1.3, 4,                                                                          \
      "us per call nhood runs with its own schedule (its engine's work; MPI's own exchange "       \
      "pays none)")                                                                                \
    X(HOP, hop, 0, -1,                                                                             \
      "us of latency per node a phase's farthest message passes beyond the first (a torus; "       \
      "nodes along rings of `ring`)")                                                              \
    X(HOP_LINK, hop_link, 0, -1,                                                                   \
      "us per byte on a link between nodes, the busiest one way in a phase (the messages of "      \
      "several nodes share the links on their way; nodes along rings of `ring`)")                  \
    X(LATE, late, 0.125, -1,                                                                       \
      "us per message a rank posts in a phase before the first on the phase's busiest link "       \
      "between nodes, which drains from then on (the sender's o: a cost file without it takes "    \
      "its o)")

#define NH_COST_OTHERS(X)                                                                          \
    X(EAGER, eager, 8192, -1, "bytes: larger contiguous messages use the rendezvous protocol")     \
    X(STAGE, stage, 1.2, -1, "us per store-and-forward stage")                                     \
    X(FWD, fwd, 0.0008, -1, "us per byte a store-and-forward stage packs, sends on and unpacks")   \
    X(RING, ring, 0, -1,                                                                           \
      "nodes per ring of the network, for hop: the job's nodes in rank order lie along rings of "  \
      "this many (a torus's first dimension); 0: one ring of them all")                            \
    X(TIER1, tier1, 0, -1,                                                                         \
      "nodes per unit of a hierarchical network's first tier (a dragonfly's router), in rank "     \
      "order; set, it replaces the rings: a message passes one node beyond the first per tier "    \
      "whose units its two nodes differ in, and loads one link per tier; 0: rings")                \
    X(TIER2, tier2, 0, -1, "nodes per unit of the second tier (a dragonfly's chassis); 0: none")   \
    X(TIER3, tier3, 0, -1, "nodes per unit of the third tier (a dragonfly's group); 0: none")      \
    X(TIER1_LINKS, tier1_links, 1, -1,                                                             \
      "links between two routers of one second-tier unit (a dragonfly's green links), for "        \
      "hop_link")                                                                                  \
    X(TIER2_LINKS, tier2_links, 1, -1,                                                             \
      "links between a router and its place's router in another second-tier unit (black links)")   \
    X(TIER3_LINKS, tier3_links, 1, -1,                                                             \
      "links between two third-tier units (blue links, one bundle)")                               \
    X(TIER3_GATEWAY, tier3_gateway, 0, -1,                                                         \
      "1: the links between two third-tier units leave from one router in each (the one whose "    \
      "first-tier place is the other unit's number, in the first unit of the second tier: "        \
      "SimGrid's dragonfly), and a link drains from the last message a rank posts between "        \
      "the units on it; 0: from every router")

#define NH_COST_FIELD_(N, key, def, group, help) double key;
typedef struct nh_cost {
    NH_COST_TERMS(NH_COST_FIELD_)
    NH_COST_OTHERS(NH_COST_FIELD_)
} nh_cost;
#undef NH_COST_FIELD_

/* The defaults, as an initializer: nh_cost c = NH_COST_DEFAULTS; */
#define NH_COST_INIT_(N, key, def, group, help) .key = def,
#define NH_COST_DEFAULTS                                                                           \
    {                                                                                              \
        NH_COST_TERMS(NH_COST_INIT_) NH_COST_OTHERS(NH_COST_INIT_)                                 \
    }

#define NH_COST_TERM_(N, key, def, group, help) NH_TERM_##N,
enum { NH_COST_TERMS(NH_COST_TERM_) NH_NTERMS };
#undef NH_COST_TERM_

/* One row of the table, for code that walks the parameters. */
typedef struct nh_cost_param {
    const char *key;  /* the field, the cost file's key; NHOOD_COST_ + its upper case */
    const char *env;  /* NHOOD_COST_... */
    size_t offset;    /* of the field in nh_cost */
    double def;       /* the default */
    int term;         /* its NH_TERM_* index, or -1 (NH_COST_OTHERS) */
    int group;        /* nhood-calibrate's fit group, -1: not fitted */
    const char *help; /* one line */
} nh_cost_param;

extern const nh_cost_param nh_cost_params[];
extern const int nh_cost_nparams; /* NH_NTERMS terms first, in term order */
extern const nh_cost nh_cost_defaults;

/* The parameter a row describes, in c. */
static inline double *nh_cost_at(nh_cost *c, const nh_cost_param *p)
{
    return (double *)((char *)c + p->offset);
}

/* The term parameters of c as a vector, NH_TERM_* order. */
void nh_cost_vec(const nh_cost *c, double par[NH_NTERMS]);

/* The time of one phase of counts n under the parameters par (see the
 * top); lin, where not NULL, gets the branch taken added: the terms whose
 * dot product with par is that time.  Ties go to post, then wire.  A
 * vector with n[ALPHA] = 0 prices work outside a message phase (local
 * copies) or a phase whose latency another parameter holds. */
double nh_cost_phase(const double par[NH_NTERMS], const double n[NH_NTERMS], double lin[NH_NTERMS]);

/* nh_cost_phase under the parameters of c. */
double nh_cost_phase_of(const nh_cost *c, const double n[NH_NTERMS], double lin[NH_NTERMS]);

/* An exchange priced in one vector of counts: `phases` phases (0: one
 * whose latency another parameter holds) that share `sent` messages,
 * `received` ones and `bytes` bytes sent alike, under c (max is linear in
 * a common factor, so k equal phases cost k times one). */
double nh_cost_exchange(const nh_cost *c, double phases, double sent, double received,
                        double bytes);

/* The same with the node's traffic: off_node latencies off the node
 * (NODE) and link_bytes through the busiest node's link (LINK); without
 * a map of their ways, also all through one link between nodes (HOP_LINK). */
double nh_cost_exchange_node(const nh_cost *c, double phases, double sent, double received,
                             double bytes, double off_node, double link_bytes);

/* The sum of nph phases' times (ph[i]: phase i's counts); lin as above. */
double nh_cost_phases(const double par[NH_NTERMS], int nph, const double (*ph)[NH_NTERMS],
                      double lin[NH_NTERMS]);

/* The counts of schedule s's phases for blocks of m bytes, an interior
 * rank's (identical on every rank), handed to emit one by one: each
 * message phase (its rounds' messages as the engine splits them at the
 * eager limit, each sent and received; bytes; a rendezvous per message
 * above the limit; for a message of k > 1 blocks, packed: 2 S bytes
 * through nhood's pack, else k blocks described and S bytes through MPI's
 * datatype engine; one latency; the node's traffic where s has node
 * statistics; excess times the wait for a core), then the local copies
 * and nhood's own work (call) as a vector without a phase. */
struct nh_sched;
typedef void (*nh_phase_fn)(void *ctx, const double n[NH_NTERMS]);
void nh_sched_phases(const struct nh_sched *s, size_t m, int packed, double eager, double excess,
                     nh_phase_fn emit, void *ctx);

/* A phase's node counts (NODE, LINK, HOP, HOP_LINK) from its traffic off
 * the nodes, for blocks of m bytes, into n. */
struct nh_node_phase;
void nh_cost_node_counts(const struct nh_node_phase *ph, size_t m, double n[NH_NTERMS]);

/* MPI's own exchange as one phase of counts n: one message per neighbor
 * each way for s neighbors (self-messages included) of m bytes, a
 * rendezvous each above eager, excess times the wait for a core, crossing
 * the nodes as the direct schedule d's blocks do (d may be NULL: no node
 * terms).  One rule for auto (select/select.c) and nhood-sched. */
struct nh_sched;
void nh_native_counts(int s, size_t m, double eager, double excess, const struct nh_sched *d,
                      double n[NH_NTERMS]);

/* Split routes (exec/engine.h): the largest block, in bytes, worth
 * forwarding along a route of `hops` message phases (SIZE_MAX: any).
 * Forwarded, a block of n bytes is packed and unpacked (pack per byte
 * each), copied in and out at each of its hops - 1 intermediates (2 gamma
 * per byte) and transferred in each phase, one after the other (beta per
 * byte each); between nodes each phase also sends it through the links
 * (the slower of link and hop_link per byte), where alone it leaves
 * beside the phases.  And each hop beyond the first may leave a node the
 * straight message would not: that node's link carries the block once
 * more for each of its node_ranks ranks that forwards its own block of
 * the entry alike, as a stencil's ranks all do (link per byte each;
 * node_ranks = 0 on one node or without a node map).  Alone, its one
 * message costs o to send and o_recv to receive, off the phases' path.
 * A block is forwarded while n times those per-byte costs stays under
 * o + o_recv: small blocks save messages, large ones keep MPI's
 * concurrency and the nodes' links.  Both terms count even where the
 * other side hides them (posting behind a busy link, the link behind
 * posting), so a block is forwarded only where that pays either way. */
size_t nh_cost_split_limit(const nh_cost *c, int hops, int node_ranks);

/* The network of the cost model's distance terms in c: rings of `ring`
 * nodes (0: all the job's nodes; beyond a million nodes as good as a
 * line), or the tiers where tier1 is set, with their links. */
struct nh_net;
void nh_cost_net(const nh_cost *c, struct nh_net *net);

/* Ranks beyond one per core: ranks / cpus - 1 where the busiest node's
 * ranks outnumber the CPUs they may run on, else 0 (also where either is
 * unknown).  Each phase waits that many times `core` for a core. */
double nh_cost_excess(int ranks, int cpus);

/* A call the program completes w microseconds after starting it (w <= 0:
 * at once) whose modeled time is total, first for its first message
 * phase: the later phases wait for the forwarding ranks' completion
 * calls, so it takes max(w, first) + (total - first); one phase (first =
 * total) max(w, total).  The one window formula: auto's candidates, MPI's
 * own exchange, the tuner's measured times and store-and-forward. */
static inline double nh_cost_in_window(double w, double first, double total)
{
    return (w > first ? w : first) + (total - first);
}

#endif
