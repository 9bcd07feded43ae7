/* The configuration (config.c, settings.c): the NHOOD_* settings as the
 * layers above read them. */
#ifndef NH_CONFIG_H
#define NH_CONFIG_H

#include "core/inplace.h"
#include "core/model.h"
#include "core/sched.h"
#include "util/util.h"

/* nh_binding: how the engine binds multi-block messages (core/sched.h) */
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

/* NHOOD_WARMUP's default: a graph's first two calls go to MPI (the
 * cold tier, docs/algorithms.md): created, used once or twice and freed,
 * it costs what MPI's own does. */
#define NH_WARMUP_DEFAULT 2
/* NHOOD_LEARN_RECHECK: calls of a size between re-checks of its learned choice */
#define NH_LEARN_RECHECK_DEFAULT 1000

typedef struct nh_config {
    nh_algo algo;                 /* NHOOD_ALGO */
    nh_algo algo_op[NH_OP_COUNT]; /* NHOOD_ALGO_ALLTOALL, NHOOD_ALGO_ALLGATHER (AUTO = unset) */
    nh_binding binding;           /* NHOOD_BINDING */
    nh_fallback fallback;         /* NHOOD_FALLBACK */
    int report;                   /* NHOOD_REPORT */
    int disable;                  /* NHOOD_DISABLE */
    const char *exclude;          /* NHOOD_EXCLUDE: program name patterns, or NULL */
    nh_cost cost;                 /* NHOOD_COST_* */
    nh_inplace_algo inplace;      /* NHOOD_INPLACE_ALGO */
    long inplace_auxmem;          /* NHOOD_INPLACE_AUXMEM (bytes) */
    nh_progress progress;         /* NHOOD_PROGRESS */
    double window;                /* NHOOD_WINDOW: us between start and wait (< 0: measured) */
    int node_size;                /* NHOOD_NODE_SIZE: fake nodes of that many ranks (0: real) */
    int warmup;                   /* NHOOD_WARMUP: calls to MPI before the analysis (0: at creation) */
    int autotune;                 /* NHOOD_AUTOTUNE: the learning tier */
    int learn_recheck;            /* NHOOD_LEARN_RECHECK: calls between re-checks (0: none) */
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
    const char *report_file;      /* NHOOD_REPORT_FILE: path, or NULL */
    int mismatch;                 /* NHOOD_MISMATCH: NH_MISMATCH_* */
} nh_config;

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

#endif
