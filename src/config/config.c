/* Configuration: one table of knobs, parsed once at MPI_Init.  Every value
 * is validated; a bad one is reported with the allowed values. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nh.h"
#include "core/reduce.h"
#include "core/stfw.h"
#include "core/parse.h"
#include "config/files.h"

/* 2^40 bytes: larger auxiliary buffers are typos. */
#define NH_MAX_BYTES (1LL << 40)

/* Whether nhood runs (set at start-up from NHOOD_DISABLE). */
int nh_active;

/* The defaults; the cost model's come from its table (core/model.h),
 * which says where they were fitted. */
nh_config nh_cfg = {
    .algo = NH_ALGO_AUTO,
    .binding = NH_BIND_AUTO,
    .fallback = NH_FALLBACK_WARN,
    .cost = NH_COST_DEFAULTS,
    .iso_reduce = NH_RED_COUNT,
    .window = -1,
};

static const char *const binding_names[NH_BIND_COUNT] = {"auto", "pack", "zcopy"};
static const char *const fallback_names[] = {"warn", "error", "silent", NULL};
static const char *const bool_names[] = {"0", "1", NULL};
static const char *const progress_names[] = {"auto", "safe", "poll", NULL};
static const char *const overlap_names[] = {"off", "report", "defer", NULL};
static const char *const setup_names[] = {"auto", "creation", "call", NULL};
static const char *const mismatch_names[] = {"use", "skip", "error", NULL};
static const char *const large_names[] = {"mpi", "fits", NULL};

enum kind {
    K_ALGO,
    K_BINDING,
    K_FALLBACK,
    K_BOOL,
    K_DOUBLE,
    K_INPLACE,
    K_BYTES,
    K_PROGRESS,
    K_STFW_DIMS,
    K_PORTS,
    K_WINDOW,
    K_NODE_SIZE,
    K_ISO_REDUCE,
    K_OVERLAP,
    K_SETUP,
    K_MISMATCH,
    K_LARGE,
    K_PATH
};

typedef struct knob {
    const char *env;
    const char *info; /* matching MPI_Info key, or NULL */
    enum kind kind;
    void *dst;
    const char *help;
} knob;

static const knob knobs[] = {
    {"NHOOD_ALGO", "nhood_algorithm", K_ALGO, &nh_cfg.algo,
     "algorithm for all neighborhood collectives"},
    {"NHOOD_ALGO_ALLTOALL", NULL, K_ALGO, &nh_cfg.algo_op[NH_OP_ALLTOALL], "override for alltoall"},
    {"NHOOD_ALGO_ALLGATHER", NULL, K_ALGO, &nh_cfg.algo_op[NH_OP_ALLGATHER],
     "override for allgather"},
    {"NHOOD_BINDING", NULL, K_BINDING, &nh_cfg.binding, "how combined messages address blocks"},
    {"NHOOD_FALLBACK", NULL, K_FALLBACK, &nh_cfg.fallback,
     "when a forced algorithm does not apply"},
    {"NHOOD_REPORT", NULL, K_BOOL, &nh_cfg.report, "print a report at MPI_Finalize"},
    {"NHOOD_DISABLE", NULL, K_BOOL, &nh_cfg.disable, "pass everything to PMPI"},
    {"NHOOD_PROGRESS", NULL, K_PROGRESS, &nh_cfg.progress,
     "may nonblocking and persistent calls use forwarding schedules"},
    {"NHOOD_NODE_SIZE", NULL, K_NODE_SIZE, &nh_cfg.node_size,
     "testing: treat each block of this many MPI_COMM_WORLD ranks as one node"},
    {"NHOOD_WINDOW", NULL, K_WINDOW, &nh_cfg.window,
     "auto's compute window between start and completion of nonblocking calls (us)"},
    {"NHOOD_INPLACE_ALGO", NULL, K_INPLACE, &nh_cfg.inplace,
     "in-place MPI_Alltoall[v|w] algorithm"},
    {"NHOOD_INPLACE_AUXMEM", NULL, K_BYTES, &nh_cfg.inplace_auxmem,
     "bytes of auxiliary buffer for nonblocking in-place swaps"},
    {"NHOOD_AUTOTUNE", NULL, K_BOOL, &nh_cfg.autotune,
     "auto: time the algorithms on the first calls instead of using the cost model"},
    {"NHOOD_CHECK", NULL, K_BOOL, &nh_cfg.check,
     "check the isomorphic=true promise on every v/w call (collective, for debugging)"},
    {"NHOOD_HOST_BUFFERS", "nhood_host_buffers", K_BOOL, &nh_cfg.host_buffers,
     "the program promises host buffers where a GPU runtime is loaded: nhood's schedules run "
     "(NHOOD_CHECK verifies it per call)"},
/* the cost model's parameters, one row each (core/model.h) */
#define COST_KNOB(N, key, def, group, help)                                                        \
    {"NHOOD_COST_" #N, NULL, K_DOUBLE, &nh_cfg.cost.key, "cost model: " help},
    /* (kept as written: clang-format would indent the rows after the expansion) */
    /* clang-format off */
    NH_COST_TERMS(COST_KNOB)
    NH_COST_OTHERS(COST_KNOB)
#undef COST_KNOB
    {"NHOOD_COST_FILE", NULL, K_PATH, &nh_cfg.cost_file,
     "cost file written by nhood-calibrate (default: the installed site.cost, if any)"},
    /* clang-format on */
    {"NHOOD_TUNE_FILE", NULL, K_PATH, &nh_cfg.tune_file,
     "file the autotuner's decisions are loaded from at MPI_Init and saved to at MPI_Finalize"},
    {"NHOOD_MISMATCH", NULL, K_MISMATCH, &nh_cfg.mismatch,
     "a cost or tuning file written elsewhere (fingerprint differs): use it, skip it, or error"},
    {"NHOOD_LARGE_COUNT", NULL, K_LARGE, &nh_cfg.large_count,
     "large-count v and w calls (MPI_Neighbor_alltoallv_c, ...): to MPI, or fits (the program "
     "promises every count and displacement fits an int: nhood runs them)"},
    {"NHOOD_STFW_DIMS", "nhood_stfw_dims", K_STFW_DIMS, &nh_cfg.stfw_dims,
     "store-and-forward VPT dimension on irregular graphs, or agg (node aggregation)"},
    {"NHOOD_STFW_SETUP", "nhood_stfw_setup", K_SETUP, &nh_cfg.stfw_setup,
     "when store-and-forward is set up: auto (where earlier graphs' calls or one call pay it "
     "back, else at the first blocking call), creation, call (the first blocking call)"},
    {"NHOOD_PORTS", "nhood_ports", K_PORTS, &nh_cfg.ports,
     "messages per phase in bruck's schedules (auto: the cost model's choice per call)"},
    {"NHOOD_ISO_REDUCE", NULL, K_ISO_REDUCE, &nh_cfg.iso_reduce,
     "Iso_neighbor_[scatter_]reduce algorithm"},
    {"NHOOD_OVERLAP", NULL, K_OVERLAP, &nh_cfg.overlap,
     "overlap advisor (report) or deferred completion of blocking calls (defer)"},
    {"NHOOD_OVERLAP_CSV", NULL, K_PATH, &nh_cfg.overlap_csv,
     "file for the overlap advisor's table (CSV, rank 0's figures)"},
};

static int parse_enum(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n && names[i]; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

int nh_parse_algo(const char *v, nh_algo *out)
{
    for (int i = 0; i < NH_ALGO_COUNT; i++)
        if (strcmp(v, nh_algos[i].name) == 0) {
            *out = (nh_algo)i;
            return 0;
        }
    return -1;
}

int nh_parse_ports(const char *v, int *out)
{
    if (strcmp(v, "auto") == 0) {
        *out = 0;
        return 0;
    }
    return nh_parse_uint_list(v, out, 1, 1, NH_MAX_PORTS) == 1 ? 0 : -1;
}

int nh_parse_binding(const char *v, nh_binding *out)
{
    int i = parse_enum(v, binding_names, NH_BIND_COUNT);
    if (i < 0)
        return -1;
    *out = (nh_binding)i;
    return 0;
}

const char *nh_binding_name(nh_binding b)
{
    return binding_names[b];
}

static void list_names(char *buf, size_t len, enum kind k)
{
    size_t n = 0;
    buf[0] = '\0';
    if (k == K_DOUBLE) {
        snprintf(buf, len, "a non-negative number such as 4, 0.5 or 2e-4");
        return;
    }
    if (k == K_BYTES) {
        snprintf(buf, len, "a non-negative integer up to %lld", NH_MAX_BYTES);
        return;
    }
    if (k == K_PATH) {
        snprintf(buf, len, "a file path");
        return;
    }
    if (k == K_STFW_DIMS) {
        snprintf(buf, len, "an integer from 1 to %d, or agg", NH_STFW_MAXDIMS);
        return;
    }
    if (k == K_NODE_SIZE) {
        snprintf(buf, len, "a positive integer");
        return;
    }
    if (k == K_WINDOW) {
        snprintf(buf, len, "auto or microseconds (a number >= 0)");
        return;
    }
    if (k == K_PORTS) {
        snprintf(buf, len, "auto or an integer from 1 to %d", NH_MAX_PORTS);
        return;
    }
    for (int i = 0;; i++) {
        const char *name = k == K_ALGO         ? (i < NH_ALGO_COUNT ? nh_algos[i].name : NULL)
                           : k == K_BINDING    ? (i < NH_BIND_COUNT ? binding_names[i] : NULL)
                           : k == K_FALLBACK   ? fallback_names[i]
                           : k == K_PROGRESS   ? progress_names[i]
                           : k == K_OVERLAP    ? overlap_names[i]
                           : k == K_SETUP      ? setup_names[i]
                           : k == K_MISMATCH   ? mismatch_names[i]
                           : k == K_LARGE      ? large_names[i]
                           : k == K_INPLACE    ? (i < NH_INPLACE_MPICH ? nh_inplace_names[i] : NULL)
                           : k == K_ISO_REDUCE ? (i == 0              ? "auto"
                                                  : i <= NH_RED_COUNT ? nh_red_algo_names[i - 1]
                                                                      : NULL)
                                               : bool_names[i];
        if (!name || n >= len)
            break;
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", name);
    }
}

void nh_config_help(char *buf, size_t len, const char *var)
{
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
        if (strcmp(knobs[i].env, var) == 0 || (knobs[i].info && strcmp(knobs[i].info, var) == 0)) {
            list_names(buf, len, knobs[i].kind);
            return;
        }
    snprintf(buf, len, "?");
}

static int parse_knob(const knob *k, const char *v)
{
    int i;
    switch (k->kind) {
    case K_ALGO:
        return nh_parse_algo(v, (nh_algo *)k->dst);
    case K_BINDING:
        return nh_parse_binding(v, (nh_binding *)k->dst);
    case K_FALLBACK:
        if ((i = parse_enum(v, fallback_names, 3)) < 0)
            return -1;
        *(nh_fallback *)k->dst = (nh_fallback)i;
        return 0;
    case K_PROGRESS:
        if ((i = parse_enum(v, progress_names, 3)) < 0)
            return -1;
        *(nh_progress *)k->dst = (nh_progress)i;
        return 0;
    case K_OVERLAP:
        if ((i = parse_enum(v, overlap_names, 3)) < 0)
            return -1;
        *(nh_overlap_mode *)k->dst = (nh_overlap_mode)i;
        return 0;
    case K_SETUP:
        if ((i = parse_enum(v, setup_names, 3)) < 0)
            return -1;
        *(int *)k->dst = i;
        return 0;
    case K_MISMATCH:
        if ((i = parse_enum(v, mismatch_names, 3)) < 0)
            return -1;
        *(int *)k->dst = i;
        return 0;
    case K_LARGE:
        if ((i = parse_enum(v, large_names, 2)) < 0)
            return -1;
        *(int *)k->dst = i;
        return 0;
    case K_PATH:
        if (!*v)
            return -1;
        *(const char **)k->dst = v;
        return 0;
    case K_BOOL:
        if ((i = parse_enum(v, bool_names, 2)) < 0)
            return -1;
        *(int *)k->dst = i;
        return 0;
    case K_INPLACE:
        if ((i = parse_enum(v, nh_inplace_names, NH_INPLACE_MPICH)) < 0)
            return -1;
        *(nh_inplace_algo *)k->dst = (nh_inplace_algo)i;
        return 0;
    case K_BYTES: {
        long long x;
        if (nh_parse_uint(v, NH_MAX_BYTES, &x))
            return -1;
        *(long *)k->dst = (long)x;
        return 0;
    }
    case K_ISO_REDUCE:
        if (strcmp(v, "auto") == 0)
            i = NH_RED_COUNT;
        else if ((i = parse_enum(v, nh_red_algo_names, NH_RED_COUNT)) < 0)
            return -1;
        *(int *)k->dst = i;
        return 0;
    case K_STFW_DIMS:
        return nh_parse_stfw_dims(v, (int *)k->dst);
    case K_PORTS:
        return nh_parse_ports(v, (int *)k->dst);
    case K_NODE_SIZE: {
        long long x;
        if (nh_parse_uint(v, 1 << 30, &x) || x < 1)
            return -1;
        *(int *)k->dst = (int)x;
        return 0;
    }
    case K_WINDOW: {
        double x = -1;
        if (strcmp(v, "auto") != 0 && (nh_parse_real(v, &x) || x < 0))
            return -1;
        *(double *)k->dst = x;
        return 0;
    }
    case K_DOUBLE: {
        double x;
        if (nh_parse_real(v, &x))
            return -1;
        *(double *)k->dst = x;
        return 0;
    }
    }
    return -1;
}

/* Where the cost parameters come from, for the report. */
static char cost_source[300] = "defaults";
static int cost_env; /* some NHOOD_COST_* is set */

const char *nh_config_cost_source(void)
{
    return cost_env && strcmp(cost_source, "defaults") == 0 ? "defaults+env" : cost_source;
}

int nh_config_load(char *msg, size_t len)
{
    for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
        const char *v = getenv(knobs[i].env);
        if (!v)
            continue;
        if (knobs[i].kind == K_DOUBLE)
            cost_env = 1;
        if (parse_knob(&knobs[i], v)) {
            char allowed[128];
            list_names(allowed, sizeof(allowed), knobs[i].kind);
            snprintf(msg, len, "%s=\"%s\" is not valid (%s); allowed: %s", knobs[i].env, v,
                     knobs[i].help, allowed);
            return -1;
        }
    }
    return 0;
}

/* The cost file's keys are the parameters' names (core/model.h: alpha,
 * o, beta, ...); validation.* keys carry nhood-calibrate's figures for
 * people and are not read. */
static int cost_key(void *ctx, const char *key, const char *v, char *msg, size_t len)
{
    nh_cost *c = ctx;
    if (strncmp(key, "validation.", 11) == 0)
        return 0;
    for (int i = 0; i < nh_cost_nparams; i++)
        if (strcmp(nh_cost_params[i].key, key) == 0) {
            if (nh_parse_real(v, nh_cost_at(c, &nh_cost_params[i]))) {
                snprintf(msg, len, "%s = \"%s\": not a non-negative number", key, v);
                return -1;
            }
            return 0;
        }
    size_t n = (size_t)snprintf(msg, len, "unknown key \"%s\" (parameters:", key);
    for (int i = 0; i < nh_cost_nparams && n < len; i++)
        n += (size_t)snprintf(msg + n, len - n, " %s%s", nh_cost_params[i].key,
                              i + 1 < nh_cost_nparams ? "," : ";");
    if (n < len)
        snprintf(msg + n, len - n, " validation.*; fingerprint.*)");
    return -1;
}

int nh_config_cost_parse(const char *text, const char *name, nh_cost *out, nh_fingerprint *fp,
                         char *msg, size_t len)
{
    *out = nh_cfg.cost;
    out->o_recv = -1; /* not set by the file (yet) */
    int rc = nh_kv_parse(text, name, "nhood-cost", 2, fp, cost_key, out, msg, len);
    /* Format 1 predates the per-phase model: its o was a message's whole
     * cost, its alpha a phase's, added; read so, without a receive
     * overhead, they price about as they did (docs/tuning.md). */
    if (out->o_recv < 0)
        out->o_recv = fp->version == 1 ? 0 : nh_cfg.cost.o_recv;
    return rc;
}

void nh_config_cost_use(const nh_cost *c, const char *name)
{
    char msg[8];
    nh_cfg.cost = *c;
    cost_env = 0;
    (void)nh_config_load(msg, sizeof(msg)); /* the environment wins (valid: read before) */
    snprintf(cost_source, sizeof(cost_source), "%s%s", name, cost_env ? "+env" : "");
}

/* NHOOD_* variables that are not settings: read by nhood's scripts, and
 * inherited by the ranks they start. */
static const char *const script_vars[] = {"NHOOD_LIB",
                                          "NHOOD_OPENMPI_BUILD",
                                          "NHOOD_SAN_BUILD",
                                          "NHOOD_SAN_MPICC",
                                          "NHOOD_SMPI_DIR",
                                          "NHOOD_SIM_CFG",
                                          NULL};

extern char **environ;

void nh_config_warn_unknown(void)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        int known = 0;
        if (strncmp(*e, "NHOOD_", 6) != 0)
            continue;
        for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]) && !known; i++)
            known = strlen(knobs[i].env) == n && strncmp(knobs[i].env, *e, n) == 0;
        for (int i = 0; script_vars[i] && !known; i++)
            known = strlen(script_vars[i]) == n && strncmp(script_vars[i], *e, n) == 0;
        if (!known)
            nh_warn("%.*s is not an nhood setting and is ignored (see the Configuration table "
                    "in README.md)",
                    (int)n, *e);
    }
}
