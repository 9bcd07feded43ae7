/* Internal declarations shared by the MPI-facing parts of nhood, by
 * layer (src/: core <- util <- config <- plan <- exec <- select <- api <-
 * iso <- overlap <- intercept; test/unit/check-layers.sh keeps calls
 * downward, docs/layout.md says which file is where).  Most folders have
 * headers of their own beside this one (exec/engine.h, select/select.h,
 * api/api.h, ...); the entry points nh_impl_* are in nh_impl.h. */
#ifndef NH_H
#define NH_H

#include <mpi.h>
#include <stddef.h>

#include "core/grid.h"
#include "core/inplace.h"
#include "core/model.h"
#include "core/sched.h"
#include "util/mpilib.h"
#include "util/resource.h"

/* ---- handing a call to MPI ----
 * A function that runs an MPI call nhood intercepted, or may leave it to
 * the MPI library, returns MPI_SUCCESS, an MPI error code (positive), or
 * NH_TO_PMPI: nhood declines the call, and the code that received it
 * from the program (an nh_impl_* entry point, an Iso_* function, the
 * overlap layer's hook) makes the MPI library's own call with the
 * program's arguments.  It is the one way every layer says so (exec's
 * nh_inplace; api's nh_neighbor, nh_inplace_try and their helpers; iso's
 * calls of nh_neighbor), and each passes it up unchanged.
 *
 * NH_ALGO_PMPI (core/sched.h) is another thing: an algorithm, MPI's own
 * exchange, as selection's choice (NHOOD_ALGO=pmpi, auto's cost model,
 * the autotuner's candidate), carried in nh_choice.algo (select/select.h)
 * and counted in the report like nhood's own algorithms.  nh_neighbor
 * (api/neighbor.c) is where that choice becomes NH_TO_PMPI, except in an
 * autotune trial, which times MPI's exchange itself.  The in-place
 * all-to-all's order NH_INPLACE_PMPI (core/inplace.h) is the same kind of
 * choice, which nh_inplace turns into NH_TO_PMPI. */
#define NH_TO_PMPI (-1)

/* ---- utilities (util/) ---- */
extern int nh_world_rank; /* set at start-up (api/lifecycle.c); Sessions: the rank in the
                            * communicator nhood started on */
/* nhood started in a program that uses only MPI-4 Sessions (no MPI_Init):
 * MPI_COMM_WORLD is not valid there (api/lifecycle.c, util/log.c). */
extern int nh_no_world;
/* Messages on stderr (util/log.c): warnings from rank 0, errors from any. */
void nh_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nh_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* MPI_Pack / MPI_Unpack that also accept a block at MPI_BOTTOM (util/pack.c). */
int nh_pack(const void *in, int count, MPI_Datatype type, void *out, int outsize, int *pos,
            MPI_Comm comm);
int nh_unpack(const void *in, int insize, int *pos, void *out, int count, MPI_Datatype type,
              MPI_Comm comm);

/* ---- configuration (config/config.c) ---- */
typedef enum { NH_BIND_AUTO = 0, NH_BIND_PACK, NH_BIND_ZCOPY, NH_BIND_COUNT } nh_binding;
typedef enum { NH_FALLBACK_WARN = 0, NH_FALLBACK_ERROR, NH_FALLBACK_SILENT } nh_fallback;
typedef enum { NH_PROGRESS_AUTO = 0, NH_PROGRESS_SAFE, NH_PROGRESS_POLL } nh_progress;
/* NHOOD_OVERLAP (overlap/overlap.h) */
typedef enum { NH_OVERLAP_OFF = 0, NH_OVERLAP_REPORT, NH_OVERLAP_DEFER } nh_overlap_mode;
/* nh_form: how a neighborhood collective was called (core/sched.h) */

/* nh_cost: the cost model's parameters (core/model.h) */

/* What a cost or tuning file from elsewhere (fingerprint differs) gets. */
enum { NH_MISMATCH_USE, NH_MISMATCH_SKIP, NH_MISMATCH_ERROR };
/* NHOOD_LARGE_COUNT: v/w large-count calls go to MPI, or the program
 * promises their counts fit an int (api/large.c) */
enum { NH_LARGE_MPI, NH_LARGE_FITS };
/* NHOOD_FORTRAN_FIXES: where nhood's Fortran converters run (util/mpilib.h) */
enum { NH_FIXES_AUTO, NH_FIXES_ALL, NH_FIXES_NONE };

typedef struct nh_config {
    nh_algo algo;                 /* NHOOD_ALGO */
    nh_algo algo_op[NH_OP_COUNT]; /* NHOOD_ALGO_ALLTOALL, NHOOD_ALGO_ALLGATHER (AUTO = unset) */
    nh_binding binding;           /* NHOOD_BINDING */
    nh_fallback fallback;         /* NHOOD_FALLBACK */
    int report;                   /* NHOOD_REPORT */
    int disable;                  /* NHOOD_DISABLE */
    nh_cost cost;                 /* NHOOD_COST_* */
    nh_inplace_algo inplace;      /* NHOOD_INPLACE_ALGO */
    long inplace_auxmem;          /* NHOOD_INPLACE_AUXMEM (bytes) */
    nh_progress progress;         /* NHOOD_PROGRESS */
    double window;                /* NHOOD_WINDOW: us between start and wait (< 0: measured) */
    int node_size;                /* NHOOD_NODE_SIZE: fake nodes of that many ranks (0: real) */
    int autotune;                 /* NHOOD_AUTOTUNE */
    int check; /* NHOOD_CHECK: verify isomorphic=true on v/w calls, and host buffers (api/call.c) */
    int host_buffers; /* NHOOD_HOST_BUFFERS: host buffers promised where a GPU runtime is loaded */
    const char *gpu_dev_dir;      /* NHOOD_GPU_DEV_DIR: path, or NULL (/dev) */
    int stfw_dims;                /* NHOOD_STFW_DIMS (0 = chosen by the cost model) */
    int stfw_setup; /* NHOOD_STFW_SETUP: when store-and-forward is set up (NH_SETUP_*) */
    int ports;                    /* NHOOD_PORTS: bruck's messages per phase (0 = cost model) */
    int iso_reduce;               /* NHOOD_ISO_REDUCE: an nh_red_algo, NH_RED_COUNT = auto */
    nh_overlap_mode overlap;      /* NHOOD_OVERLAP */
    int large_count;              /* NHOOD_LARGE_COUNT: NH_LARGE_* (api/large.c) */
    int fortran_fixes;            /* NHOOD_FORTRAN_FIXES: NH_FIXES_* (intercept/fortran.c) */
    const char *overlap_csv;      /* NHOOD_OVERLAP_CSV: path, or NULL */
    const char *cost_file;        /* NHOOD_COST_FILE: path, or NULL */
    const char *tune_file;        /* NHOOD_TUNE_FILE: path, or NULL */
    int mismatch;                 /* NHOOD_MISMATCH: NH_MISMATCH_* */
} nh_config;

extern nh_config nh_cfg;
/* Nonzero while nhood runs: from start-up (api/lifecycle.c) to shut-down,
 * unless NHOOD_DISABLE=1; every call goes to MPI while it is 0. */
extern int nh_active;
/* Parses the environment; on error fills msg and returns -1. */
int nh_config_load(char *msg, size_t len);
/* Rank 0 warns about NHOOD_* variables that name no setting (typos). */
void nh_config_warn_unknown(void);
int nh_parse_ports(const char *v, int *out); /* auto (0) or 1..NH_MAX_PORTS */
const char *nh_binding_name(nh_binding b);

/* ---- per-communicator plan (plan/: detect.c, plan_sched.c, hint.c) ---- */
typedef struct nh_bind nh_bind;

/* How the engine frames and addresses a call's messages (exec/engine.h). */
typedef struct nh_bind_opts {
    nh_binding kind; /* multi-block sized messages: AUTO (packed up to the eager limit, else a
                        struct), PACK, ZCOPY */
    int header;      /* header framing (sizes unknown at the receiver) */
    int model;       /* typed temps: 0 a receive block (regular calls), 1 the local block of
                        the temp's template entry (v/w calls under the promise) */
} nh_bind_opts;

typedef struct nh_plan {
    int id; /* report id, in creation order */
    int isomorphic;
    const char *source; /* cart | hint | inferred */
    int coupled;        /* block sizes provably uniform (size-dependent choice is safe); -1: not yet
                         * known (nh_plan_coupled) */
    /* MPI's own exchange may stand in for nhood's (auto, autotune): no rank
     * lists a source twice, where MPICH 4.0.2 orders the blocks wrongly */
    int native_ok;
    nh_nbhd nb;
    MPI_Comm pcomm; /* private duplicate for internal traffic */
    int tag_ub;
    nh_algo algo_info[NH_OP_COUNT]; /* nhood_algorithm info key; AUTO = unset */
    struct {
        size_t m;
        int valid;
        nh_algo algo;
        const nh_sched *s; /* its schedule (bruck: of the ports chosen) */
        nh_bind_opts o;
        int why;   /* nh_why (select/select.h) */
        int tuned; /* nh_tuned (select/select.h) */
    } last[NH_COLL_COUNT][NH_FORM_COUNT]; /* the auto decision for the last block size */
    int warned;
    nh_sched *sched[NH_OP_COUNT][NH_ALGO_COUNT];
    /* bruck with k ports (nh_plan_sched_ports); ports: the nhood_ports
     * info key or NHOOD_PORTS, 0 where the cost model chooses per call */
    nh_sched *bruck[NH_OP_COUNT][NH_MAX_PORTS];
    nh_sched *split[NH_ALGO_COUNT]; /* alltoall split schedules (nh_plan_sched_split) */
    int ports;
    nh_bind *bcache; /* the engine's cache of bindings for predefined types */
    void (*bcache_free)(struct nh_plan *p); /* set by the engine (above the plan) */
    struct nh_report_rec *rec[NH_COLL_COUNT][NH_FORM_COUNT];
    int outdeg, indeg; /* user's degrees (also for non-isomorphic graphs) */
    int refs;          /* the communicator's attribute + live requests */
    unsigned long seq; /* nonblocking and persistent operations created */
    int warned_progress;
    int hinted;           /* created with isomorphic=true: uniform block sizes promised */
    struct nh_stfw *stfw; /* store-and-forward state (plan/stfw_setup.c), NULL if none */
    /* Store-and-forward set up at this communicator's first blocking call
     * (nh_stfw_lazy): stfw_wait on the plan and its copies alike until
     * then; the agreed decision and the neighbor lists in the original's
     * stfw_pend.  stfw_when: where it was set up (nh_stfw_when). */
    int stfw_wait, stfw_when;
    int called; /* a neighborhood call was made on it (nh_stfw_count_call) */
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
    int node_ranks; /* the most ranks on one node (0 without node_of) */
    double create_us, create_mpi_us; /* the graph creation, and MPI's part of it */
    /* A duplicate's plan (plan/detect.c) shares the analysis of root: nb,
     * schedules, node map and store-and-forward schedules are root's. */
    struct nh_plan *root;
    int dup_of;     /* report id of the communicator it was copied from, or -1 */
    int lazy_pcomm; /* pcomm is made at the first collective (nh_plan_ready) */
    int *pend_srcs; /* the sources, while nb.recv_slot waits for them (detect.c) */
    /* The compute window of nonblocking calls, agreed at creation: the
     * largest bucket any rank contributed (nh_window_mine; util/window.h) */
    int window;
    /* Sessions only: some rank of the graph has no progress backend
     * (agreed at its creation), so nonblocking calls do not forward */
    int no_forward;
    /* Some rank had a GPU runtime loaded at creation and did not promise
     * host buffers (agreed; util/gpu.h): the calls go to MPI. */
    int gpu;
    int host_promised; /* NH_HOST_*: this rank promised host buffers (NHOOD_CHECK verifies it) */
} nh_plan;
/* Where a plan's promise of host buffers came from. */
enum { NH_HOST_ENV = 1, NH_HOST_INFO };

/* When store-and-forward's set-up runs (plan/stfw_setup.c): by the
 * evidence that it pays back, at graph creation, or at the first blocking
 * call (NHOOD_STFW_SETUP, info nhood_stfw_setup). */
enum { NH_SETUP_AUTO = 0, NH_SETUP_CREATION, NH_SETUP_CALL };

/* nhood's MPI_Info keys on graph creation (plan/hint.c). */
typedef struct nh_hint {
    int iso;   /* isomorphic=: -1 unset, 0 false, 1 true */
    int ndims; /* nhood_dims=4,4,2 (0 = unset); dims follows (config/settings.c) */
    int dims[NH_MAXDIMS];
    int has_periods; /* nhood_periods=1,1,0: their number (0 = unset); periods follows */
    int periods[NH_MAXDIMS];
    nh_algo algo;  /* nhood_algorithm= (AUTO = unset) */
    int stfw_dims; /* nhood_stfw_dims= (0 = unset) */
    int stfw_setup; /* nhood_stfw_setup=: NH_SETUP_* (-1 = unset) */
    int ports;     /* nhood_ports= (0 = unset or auto) */
    int host_buffers; /* nhood_host_buffers=: -1 unset, 0 false, 1 true (util/gpu.h) */
    /* A malformed value on this rank, still to be agreed on: graph
     * creation then fails on every rank and this text says why. */
    int bad;
    char msg[512];
} nh_hint;
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
/* Before a collective on comm runs nhood's schedule: a duplicate's
 * private communicator (collective over comm, at its first such call). */
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

/* The algorithm asked for op on p: info key, then NHOOD_ALGO_<OP>, then
 * NHOOD_ALGO (AUTO if none; plan/hint.c, with nh_hint_parse). */
nh_algo nh_requested_algo(const nh_plan *p, nh_op op);

/* Tag slots: blocking calls use slot 0, nonblocking and persistent ones
 * slots 1..NH_SLOTS-1 in creation order (see exec/request.c). */
#define NH_SLOTS 16

/* ---- in-place all-to-all (exec/inplace.c) ---- */
typedef enum { NH_INPLACE_ALLTOALL = 0, NH_INPLACE_ALLTOALLV, NH_INPLACE_ALLTOALLW } nh_inplace_op;
typedef struct nh_inplace_args {
    nh_inplace_op op;
    void *buf;
    int count;                  /* alltoall */
    MPI_Datatype type;          /* alltoall, alltoallv */
    const int *counts, *displs; /* alltoallv (displs in extents), alltoallw (in bytes) */
    const MPI_Datatype *types;  /* alltoallw */
} nh_inplace_args;
/* Runs an in-place all-to-all with nhood's algorithm; returns MPI_SUCCESS,
 * an MPI error, or NH_TO_PMPI (nhood off, no intracommunicator, the
 * order pmpi). */
int nh_inplace(MPI_Comm comm, const nh_inplace_args *a);
/* The order the in-place calls on comm take now (the configured one, or
 * what auto decided at the first of them); MPI_ERR_COMM before that. */
int nh_inplace_algorithm(MPI_Comm comm, const char **name);
int nh_inplace_init(void);
void nh_inplace_fini(void);
void nh_inplace_report_print(void);
void nh_inplace_report_free(void);

/* ---- report (api/report.c) ---- */
typedef struct nh_report_rec {
    struct nh_report_rec *next;
    int comm_id;
    nh_coll coll;
    nh_form form;
    int isomorphic;
    char dims[64];
    char periods[32];
    const char *source;
    int neighbors;
    long calls[NH_ALGO_COUNT];
    int rounds[NH_ALGO_COUNT];
    long msgs[NH_ALGO_COUNT];
    nh_binding last_binding;
    /* store-and-forward (irregular graphs): VPT dimension (0 = none), its
     * sizes, and messages a rank sends, max and average over ranks, with
     * STFW and with one message per neighbor */
    int stfw_dims;
    char stfw_vpt[64];
    long stfw_mmax, bl_mmax;
    double stfw_mavg, bl_mavg;
    /* auto's re-check at the first blocking call: mean block in bytes (0:
     * none made) and whether STFW is off for the operation */
    double stfw_block;
    int stfw_off;
    const char *stfw_setup; /* where its set-up ran (nh_stfw_when) */
    double create_us, create_mpi_us; /* this rank's graph creation (nh_plan) */
    int dup_of;                      /* nh_plan.dup_of */
    nh_algo asked;                   /* NHOOD_ALGO / nhood_algorithm for the op */
    /* Nonblocking and persistent forms: the agreed window bucket
     * (util/window.h) and why auto's last call did not forward (nh_why,
     * select/select.h; 0: it did, or would not anyway) */
    int window, why;
    /* NHOOD_AUTOTUNE=1: where the calls' choices came from, one bit per
     * nh_tuned (select/select.h) */
    int tuned;
} nh_report_rec;
/* The record of calls of coll in form on p (NULL when out of memory). */
nh_report_rec *nh_report_rec_get(nh_plan *p, nh_coll coll, nh_form form);
/* Fills the record's store-and-forward fields (dims, VPT, message counts). */
void nh_report_stfw(const nh_plan *p, nh_op op, nh_report_rec *r);
void nh_report_print(void);
void nh_report_free(void);
/* Adds one graph creation (this rank's: under nhood, MPI's own part) to
 * the report's totals line. */
void nh_report_creation(double us, double mpi_us);

/* ---- life cycle (api/lifecycle.c) ---- */
/* nhood's start-up after MPI was initialized without it (a Fortran
 * binding calling PMPI_Init); does nothing if it already ran. */
int nh_start_late(void);

#endif
