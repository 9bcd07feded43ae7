/* The plan (detect.c, plan_sched.c, hint.c, agree.c, stfw_setup.c): a
 * graph communicator's analysis, agreed facts and schedules, kept as an
 * attribute of the communicator. */
#ifndef NH_PLAN_H
#define NH_PLAN_H

#include "config/config.h"
#include "core/grid.h"

/* State a layer above the plan keeps per plan, in a type of its own:
 * the engine's binding cache and tag slots (exec/), selection's memo of
 * its last decisions (select/), the report's records, the plan's
 * records on its parents and the last v and w calls' sizes (api/). */
typedef enum {
    NH_EXT_EXEC = 0,
    NH_EXT_SELECT,
    NH_EXT_REPORT,
    NH_EXT_PARENT,
    NH_EXT_REPEAT,
    NH_EXT_COUNT
} nh_ext_id;

typedef struct nh_plan {
    /* ---- what every call reads (api/neighbor.c), in the first two cache
     * lines: where ranks outnumber cores or the program works between
     * calls, each line is a miss per call (docs/benchmarks.md) ---- */
    /* The cold tier: the analysis waits for the graph's calls
     * (nh_plan_create_cold); NULL once it ran. */
    struct nh_plan_cold *cold;
    struct nh_stfw *stfw; /* store-and-forward state (plan/stfw_setup.c), NULL if none */
    /* A duplicate's plan (plan/detect.c) shares the analysis of root: nb,
     * schedules, node map and store-and-forward schedules are root's. */
    struct nh_plan *root;
    int *pend_srcs; /* the sources, while nb.recv_slot waits for them (detect.c) */
    /* What the layers above keep per plan (nh_plan_ext; ext_fini below) */
    void *ext[NH_EXT_COUNT];
    int isomorphic;
    int hinted; /* created with isomorphic=true: uniform block sizes promised */
    /* Some rank had a GPU runtime loaded at creation and did not promise
     * host buffers (agreed; util/gpu.h): the calls go to MPI. */
    int gpu;
    int lazy_pcomm; /* pcomm still to be made (nh_plan_ready) */
    /* Store-and-forward set up at this communicator's first blocking call
     * (nh_stfw_lazy): stfw_wait on the plan and its copies alike until
     * then; the agreed decision and the neighbor lists in the original's
     * stfw_pend.  stfw_when: where it was set up (nh_stfw_when). */
    int stfw_wait;
    int called; /* a neighborhood call was made on it (nh_stfw_count_call) */
    /* MPI's own exchange may stand in for nhood's (auto, autotune): no rank
     * lists a source twice, where MPICH 4.0.2 orders the blocks wrongly */
    int native_ok;
    int outdeg, indeg;              /* user's degrees (also for non-isomorphic graphs) */
    nh_algo algo_info[NH_OP_COUNT]; /* nhood_algorithm info key; AUTO = unset */
    nh_nbhd nb;                     /* (its grid: nh_full_template, per call) */
    /* ---- the rest ---- */
    int id;             /* report id, in creation order */
    const char *source; /* cart | hint | inferred */
    int coupled;        /* block sizes provably uniform (size-dependent choice is safe); -1: not yet
                         * known (nh_plan_coupled) */
    MPI_Comm pcomm; /* private duplicate for internal traffic */
    int tag_ub;
    int warned;
    nh_sched *sched[NH_OP_COUNT][NH_ALGO_COUNT];
    /* bruck with k ports (nh_plan_sched_ports); ports: the nhood_ports
     * info key or NHOOD_PORTS, 0 where the cost model chooses per call */
    nh_sched *bruck[NH_OP_COUNT][NH_MAX_PORTS];
    nh_sched *split[NH_ALGO_COUNT]; /* alltoall split schedules (nh_plan_sched_split) */
    int ports;
    void (*ext_fini[NH_EXT_COUNT])(struct nh_plan *p, void *state);
    /* the lists grouped by peer (nh_plan_cold_lists, plan/cold.c), or NULL */
    struct nh_cold_lists *lists;
    int refs;             /* the communicator's attribute + live requests */
    int released;         /* the communicator was freed (its attribute deleted) */
    int stfw_when;        /* (stfw_wait, at the top) */
    struct nh_stfw_pend *stfw_pend;
    /* the original's: schedules a copy's first blocking call built, which
     * the original adopts at its own (until then it must not use them) */
    struct nh_stfw *stfw_built;
    /* The node of every rank, numbered from 0 in the order of their lowest
     * ranks (nh_node_number), where the cost model charges traffic leaving
     * nodes (NHOOD_COST_NODE/LINK/HOP); NULL otherwise, on every rank
     * alike.  One int per rank: nnodes numbers the nodes. */
    int *node_of;
    int nnodes;
    int node_ranks;                  /* the most ranks on one node (0 without node_of) */
    double create_us, create_mpi_us; /* the graph creation, and MPI's part of it */
    int dup_of;     /* report id of the communicator it was copied from, or -1 */
    /* The compute window of nonblocking calls, agreed at creation: the
     * largest bucket any rank contributed (nh_window_mine; util/window.h) */
    int window;
    /* Sessions only: some rank of the graph has no progress backend
     * (agreed at its creation), so nonblocking calls do not forward */
    int no_forward;
    int host_promised; /* NH_HOST_*: this rank promised host buffers (NHOOD_CHECK verifies it) */
} nh_plan;
/* Where a plan's promise of host buffers came from. */
enum { NH_HOST_ENV = 1, NH_HOST_INFO };

/* When store-and-forward's set-up runs (plan/stfw_setup.c): by the
 * evidence that it pays back, at graph creation, or at the first blocking
 * call (NHOOD_STFW_SETUP, info nhood_stfw_setup). */
enum { NH_SETUP_AUTO = 0, NH_SETUP_CREATION, NH_SETUP_CALL };

/* Parses nhood's info keys; on a malformed value fills msg, returns -1. */
int nh_hint_parse(MPI_Info info, nh_hint *h, char *msg, size_t len);

/* This rank's window bucket for graph creation's agreement: NHOOD_WINDOW
 * where set, else the measured one (util/window.h). */
int nh_window_mine(void);
/* scope: where the MPI_TAG_UB attribute is read (MPI_COMM_WORLD, or under
 * Sessions the communicator nhood started on). */
int nh_plan_init(MPI_Comm scope);
void nh_plan_fini(void);
nh_plan *nh_plan_get(MPI_Comm comm);
/* Before a collective on comm runs nhood's schedule: the sources' half
 * of the neighborhood, and the private communicator where the plan needs
 * one and has none (p->lazy_pcomm: collective over comm, so only at
 * graph creation, the analysis, or a copy's first blocking call; a
 * nonblocking start must not wait for the other ranks). */
int nh_plan_ready(nh_plan *p, MPI_Comm comm);
/* A rank's neighbor lists as the caller passed them. */
typedef struct nh_lists {
    int indeg, outdeg;
    const int *srcs, *dsts;
} nh_lists;
/* Analyzes a freshly created distributed-graph communicator (collective
 * over it) and caches the plan as an attribute (*out: the plan).  lists:
 * the rank's lists in the graph's ranks where the caller has them
 * (MPI_Dist_graph_create_adjacent without reordering), else NULL (asked
 * of MPI).  begun: the analysis nh_plan_begin started (consumed), or
 * NULL. */
typedef struct nh_plan_start nh_plan_start;
int nh_plan_create(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h, const nh_lists *lists,
                   nh_plan_start *begun, nh_plan **out);
/* Starts the analysis before MPI creates the graph, where its ranks will
 * be comm_old's (lists given, no reordering): its agreement's collective
 * (on comm_old) then runs while MPI creates the graph.  Collective over
 * comm_old.  nh_plan_abandon ends one whose graph was not created. */
int nh_plan_begin(MPI_Comm comm_old, const nh_hint *h, const nh_lists *lists, nh_plan_start **out);
void nh_plan_abandon(nh_plan_start *b);
/* The cold tier (docs/algorithms.md, "Tiers"): creation keeps what the
 * analysis will need and cannot ask of the graph later, and attaches a
 * plan with no analysis (p->cold); local.  lists: the caller's, where
 * the graph was not reordered (only their degrees are kept: MPI gives
 * the lists back as given), else NULL. */
int nh_plan_create_cold(MPI_Comm comm_old, MPI_Comm graph, const nh_hint *h, const nh_lists *lists,
                        nh_plan **out);
/* A graph's lists as this rank sees them, for MPI's exchange in the
 * grouped form (api/cold.c: the cold tier's calls on the MPI libraries
 * that order a repeated peer's all-to-all blocks wrongly,
 * nh_mpilib_dup_edges_wrong, and the learning's stand-in for MPI's own
 * exchange there): whether the rank lists some peer twice
 * (MPI_PROC_NULL aside), and then, for each place in the sources and in
 * the destinations, its peer's first place (-1 where the peer is
 * MPI_PROC_NULL) and the next place of the same peer (-1 after the
 * last).  Made at the first call that asks (local:
 * MPI_Dist_graph_neighbors), freed with the plan; NULL where memory or
 * MPI failed. */
typedef struct nh_cold_lists {
    int indeg, outdeg, repeats;
    int *sfirst, *snext, *dfirst, *dnext;
    /* the first place of the rank itself among the sources and among the
     * destinations, where it is in both as often; else -1 */
    int sself, dself;
    int snull, dnull; /* MPI_PROC_NULL's places among the sources, the destinations */
} nh_cold_lists;
const nh_cold_lists *nh_plan_cold_lists(nh_plan *p, MPI_Comm comm);
/* Whether this rank lists a peer twice (1, 0; -1 where memory or MPI
 * failed), known from the caller's lists at creation where it had them
 * (a cold plan), else asked of MPI (nh_plan_cold_lists). */
int nh_plan_cold_repeats(nh_plan *p, MPI_Comm comm);
/* Counts a call on a cold plan: whether its analysis is due now (1: past
 * NHOOD_WARMUP calls, and blocking: the only calls every rank is sure to
 * be inside), or NH_COLD_ENDS where it ran at a parent's point
 * (nh_plan_analyze_at) and this is the first call past it: the caller
 * ends the tier (nh_plan_cold_end).  The same on every rank. */
#define NH_COLD_ENDS 2
int nh_plan_cold_due(nh_plan *p, int blocking);
/* A cold plan's calls so far (-1: analyzed, waiting for its switch);
 * *bad: its hint holds a malformed value (the graph's own call reports
 * it). */
int nh_plan_cold_calls(const nh_plan *p, int *bad);
/* Ends the cold tier: p->cold freed and NULL. */
void nh_plan_cold_end(nh_plan *p);
/* Has a cold plan had nonblocking calls past NHOOD_WARMUP?  Its analysis
 * then waits for an agreement point (api/points.c: a blocking collective
 * on the graph); nh_plan_nripe counts such plans (the points' fast test). */
int nh_plan_cold_ripe(const nh_plan *p);
extern int nh_plan_nripe;
/* A cold plan's analysis, collective over comm (its communicator): what
 * nh_plan_create does at creation.  Afterwards p->cold is NULL (where it
 * failed, p stays without an analysis: its calls go to MPI). */
int nh_plan_analyze(nh_plan *p, MPI_Comm comm);
/* The same at a point on the graph's parent (api/parents.c), where the
 * ranks' calls on the graph may differ: traffic on *xcomm (the graph's
 * ranks in its order, nhood's own; it becomes the private communicator
 * where the plan needs one, *xcomm then MPI_COMM_NULL), collective over
 * it.  The calls before the switch_at-th stay cold (nh_plan_cold_due),
 * alike on every rank. */
int nh_plan_analyze_at(nh_plan *p, MPI_Comm graph, MPI_Comm *xcomm, int switch_at);
const nh_sched *nh_plan_sched(nh_plan *p, nh_op op, nh_algo a);
/* Algorithm a's alltoall schedule made split (nh_sched_add_alt): v/w
 * calls without the promise send each block along it or straight to its
 * receiver, by size.  torus and torus_direct; built on first use. */
const nh_sched *nh_plan_sched_split(nh_plan *p, nh_algo a);
/* bruck's schedule with k ports (1..NH_MAX_PORTS), built on first use.
 * nh_plan_sched's bruck: the plan's ports, or where those are the cost
 * model's to choose, the variant with the fewest rounds (then messages). */
const nh_sched *nh_plan_sched_ports(nh_plan *p, nh_op op, int k);
/* p->coupled, worked out (pure, O(size * s)) at its first use. */
int nh_plan_coupled(nh_plan *p);
void nh_plan_unref(nh_plan *p);
/* Layer id's state on p: size bytes, zeroed, made at the first call
 * (NULL where memory ran out); fini (may be NULL) runs on it before the
 * plan frees it and its schedules.  A duplicate's plan starts with none. */
typedef void (*nh_ext_fini)(nh_plan *p, void *state);
void *nh_plan_ext_new(nh_plan *p, nh_ext_id id, size_t size, nh_ext_fini fini);
static inline void *nh_plan_ext(nh_plan *p, nh_ext_id id, size_t size, nh_ext_fini fini)
{
    return p->ext[id] ? p->ext[id] : nh_plan_ext_new(p, id, size, fini);
}

/* The algorithm asked for op on p: info key, then NHOOD_ALGO_<OP>, then
 * NHOOD_ALGO (AUTO if none; plan/hint.c, with nh_hint_parse). */
nh_algo nh_requested_algo(const nh_plan *p, nh_op op);

#endif
