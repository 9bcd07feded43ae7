/* nhood's settings, one row each (config/settings.h), and the defaults of
 * the configuration they set. */
#include "config/settings.h"

#include <stdio.h>
#include <string.h>

#include "core/parse.h"
#include "core/reduce.h"
#include "core/stfw.h"
#include "config/config.h"

/* 2^40 bytes: larger auxiliary buffers are typos. */
#define NH_MAX_BYTES (1LL << 40)

/* The defaults; the cost model's come from its table (core/model.h),
 * which says where they were fitted. */
#define NH_CONFIG_DEFAULTS                                                                         \
    {                                                                                              \
        .algo = NH_ALGO_AUTO, .binding = NH_BIND_AUTO, .fallback = NH_FALLBACK_WARN,               \
        .cost = NH_COST_DEFAULTS, .iso_reduce = NH_RED_COUNT, .window = -1,        \
        .warmup = NH_WARMUP_DEFAULT, .autotune = 1, .learn_recheck = NH_LEARN_RECHECK_DEFAULT, \
    }
nh_config nh_cfg = NH_CONFIG_DEFAULTS;
static const nh_config defaults = NH_CONFIG_DEFAULTS;

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
    K_CALLS,
    K_ISO_REDUCE,
    K_OVERLAP,
    K_SETUP,
    K_MISMATCH,
    K_LARGE,
    K_FIXES,
    K_PATH,
    K_DIMS,    /* int n, then n positive integers (nh_hint's ndims, dims) */
    K_PERIODS, /* int n, then n of 0 or 1 (nh_hint's has_periods, periods) */
    K_TEXT     /* a script's: any text, not parsed here */
};

static const char *const bool_names[] = {"0", "1", NULL};
static const char *const bool_words[] = {"false", "true", NULL};
static const char *const fallback_names[] = {"warn", "error", "silent", NULL};
static const char *const progress_names[] = {"auto", "safe", "poll", NULL};
static const char *const overlap_names[] = {"off", "report", "defer", NULL};
static const char *const setup_names[] = {"auto", "creation", "call", NULL};
static const char *const mismatch_names[] = {"use", "skip", "error", NULL};
static const char *const large_names[] = {"mpi", "fits", NULL};
static const char *const fixes_names[] = {"auto", "all", "none", NULL};

#define CFG(f) (offsetof(nh_config, f) + 1)
#define HINT(f) (offsetof(nh_hint, f) + 1)
#define LIB NH_SET_LIBRARY

const nh_setting nh_settings[] = {
    {"NHOOD_ALGO", "nhood_algorithm", LIB, K_ALGO, CFG(algo), HINT(algo),
     "algorithm for every neighborhood collective (docs/algorithms.md); the info key alike on "
     "every rank"},
    {"NHOOD_ALGO_ALLTOALL", NULL, LIB, K_ALGO, CFG(algo_op[NH_OP_ALLTOALL]), 0,
     "override for the all-to-all family (alltoall[v|w]); auto: NHOOD_ALGO's"},
    {"NHOOD_ALGO_ALLGATHER", NULL, LIB, K_ALGO, CFG(algo_op[NH_OP_ALLGATHER]), 0,
     "override for the allgather family (allgather[v]); auto: NHOOD_ALGO's"},
    {"NHOOD_BINDING", NULL, LIB, K_BINDING, CFG(binding), 0,
     "how multi-block messages address their blocks: packed by nhood, or a struct datatype over "
     "them"},
    {"NHOOD_FALLBACK", NULL, LIB, K_FALLBACK, CFG(fallback), 0,
     "a forced algorithm that does not apply: warn once (rank 0) and use what applies, fail the "
     "call, or say nothing"},
    {"NHOOD_REPORT", NULL, LIB, K_BOOL, CFG(report), 0,
     "rank 0 prints what nhood did at MPI_Finalize, on stderr or in NHOOD_REPORT_FILE "
     "(docs/report.md)"},
    {"NHOOD_REPORT_FILE", NULL, LIB, K_PATH, CFG(report_file), 0,
     "the report's lines are appended to this file instead of stderr; setting it turns the "
     "report on (docs/report.md)"},
    {"NHOOD_DISABLE", NULL, LIB, K_BOOL, CFG(disable), 0, "pass every call to MPI"},
    {"NHOOD_EXCLUDE", NULL, LIB, K_TEXT, CFG(exclude), 0,
     "programs nhood stays out of, as with NHOOD_DISABLE=1: names or shell patterns, "
     "comma-separated (hostname,python*)"},
    {"NHOOD_PROGRESS", NULL, LIB, K_PROGRESS, CFG(progress), 0,
     "how nonblocking and persistent calls may forward data: auto with a progress backend (Open "
     "MPI's progress engine, or a helper thread under MPI_THREAD_MULTIPLE), safe never, poll on "
     "the program's promise (docs/nonblocking.md)"},
    {"NHOOD_NODE_SIZE", NULL, LIB, K_NODE_SIZE, CFG(node_size), 0,
     "testing: treat each block of this many MPI_COMM_WORLD ranks as one node (node-aware "
     "placement, node aggregation, the cost model's node terms); set it alike on every rank"},
    {"NHOOD_WINDOW", NULL, LIB, K_WINDOW, CFG(window), 0,
     "the computation between start and completion of nonblocking calls that auto prices "
     "forwarding with, in us (auto: measured on earlier calls, agreed at graph creation)"},
    {"NHOOD_INPLACE_ALGO", NULL, LIB, K_INPLACE, CFG(inplace), 0,
     "in-place MPI_Alltoall[v|w] (auto: lsa where the ranks fill two nodes split at p/2, else "
     "hsa)"},
    {"NHOOD_INPLACE_AUXMEM", NULL, LIB, K_BYTES, CFG(inplace_auxmem), 0,
     "bytes of auxiliary buffer for nonblocking in-place swaps (0: none)"},
    {"NHOOD_WARMUP", NULL, LIB, K_CALLS, CFG(warmup), 0,
     "a graph's first calls that go to MPI before nhood analyses it (at the next blocking call "
     "on it or on the communicator it was made from; docs/algorithms.md, \"Tiers\"); 0: at its "
     "creation, as do graphs under a forced NHOOD_ALGO"},
    {"NHOOD_AUTOTUNE", NULL, LIB, K_BOOL, CFG(autotune), 0,
     "the learning tier: auto times MPI's exchange and nhood's schedules (each binding) on the "
     "first blocking and nonblocking calls of each block size (v and w calls: of each size "
     "signature) and keeps the fastest (docs/algorithms.md, \"Tiers\"); 0: the cost model "
     "alone"},
    {"NHOOD_LEARN_RECHECK", NULL, LIB, K_CALLS, CFG(learn_recheck), 0,
     "a learned choice is timed again against MPI's exchange after this many calls of its size "
     "(the first time after at most 64; the interval doubles while it holds, up to 64 times); "
     "0: never"},
    {"NHOOD_CHECK", NULL, LIB, K_BOOL, CFG(check), 0,
     "verify promises with extra collectives: isomorphic=true on every v/w call, identical "
     "offset lists at Iso_neighborhood_create, host buffers (debugging)"},
    {"NHOOD_HOST_BUFFERS", "nhood_host_buffers", LIB, K_BOOL, CFG(host_buffers), HINT(host_buffers),
     "the program promises host buffers where a GPU runtime is loaded: nhood's schedules run "
     "(NHOOD_CHECK verifies it per call)"},
    {"NHOOD_GPU_DEV_DIR", NULL, LIB, K_PATH, CFG(gpu_dev_dir), 0,
     "the folder holding the GPU device nodes (nvidiactl or nvidia0, kfd, dri/renderD*; default "
     "/dev): a GPU runtime counts only where its devices exist there (docs/gpu.md; tests point "
     "it elsewhere)"},
/* the cost model's parameters, one row each (core/model.h) */
#define COST_ROW(N, key, def, group, help)                                                         \
    {"NHOOD_COST_" #N, NULL, NH_SET_COST, K_DOUBLE, CFG(cost.key), 0, help},
    /* (kept as written: clang-format would indent the rows after the expansion) */
    /* clang-format off */
    NH_COST_TERMS(COST_ROW)
    NH_COST_OTHERS(COST_ROW)
#undef COST_ROW
    {"NHOOD_COST_FILE", NULL, LIB, K_PATH, CFG(cost_file), 0,
     "the cost file nhood-calibrate writes: its parameters replace the defaults, NHOOD_COST_* "
     "still win (unset: PREFIX/share/nhood/site.cost where installed; docs/tuning.md)"},
    /* clang-format on */
    {"NHOOD_TUNE_FILE", NULL, LIB, K_PATH, CFG(tune_file), 0,
     "the learning's decisions (NHOOD_AUTOTUNE), read at MPI_Init (a missing file is "
     "the first run) and saved by rank 0 at MPI_Finalize (a new file renamed over it: readers "
     "never see half a file, no link is followed)"},
    {"NHOOD_MISMATCH", NULL, LIB, K_MISMATCH, CFG(mismatch), 0,
     "a cost or tuning file written elsewhere (its fingerprint differs: MPI library, hosts, "
     "ranks per node): warn and use it, warn and ignore it, or stop"},
    {"NHOOD_FORTRAN_FIXES", NULL, LIB, K_FIXES, CFG(fortran_fixes), 0,
     "nhood's Fortran entry points for the calls an MPI library's own Fortran binding gets wrong "
     "(docs/fortran.md): auto where this library has the bug, all, or none (the library's own)"},
    {"NHOOD_LARGE_COUNT", NULL, LIB, K_LARGE, CFG(large_count), 0,
     "large-count v and w calls (MPI_Neighbor_alltoallv_c, ...): to MPI, or fits (the program "
     "promises every count and displacement fits an int: nhood runs them)"},
    {"NHOOD_STFW_DIMS", "nhood_stfw_dims", LIB, K_STFW_DIMS, CFG(stfw_dims), HINT(stfw_dims),
     "store-and-forward's VPT dimension on irregular graphs (auto: the cost model's, clamped "
     "to what the process count allows), or agg: node aggregation (docs/stfw.md)"},
    {"NHOOD_STFW_SETUP", "nhood_stfw_setup", LIB, K_SETUP, CFG(stfw_setup), HINT(stfw_setup),
     "when store-and-forward is set up: auto (where earlier graphs' calls or one call pay it "
     "back, else at the first blocking call), creation, call (the first blocking call)"},
    {"NHOOD_PORTS", "nhood_ports", LIB, K_PORTS, CFG(ports), HINT(ports),
     "messages per phase in bruck's schedules (auto: the cost model's choice per call); the "
     "info key alike on every rank"},
    {"NHOOD_ISO_REDUCE", NULL, LIB, K_ISO_REDUCE, CFG(iso_reduce), 0,
     "schedule of Iso_neighbor_[scatter_]reduce, taken at Iso_neighborhood_create"},
    {"NHOOD_OVERLAP", NULL, LIB, K_OVERLAP, CFG(overlap), 0,
     "overlap advisor (report) or deferred completion of blocking calls (defer); nhood-run "
     "then preloads libnhood-overlap.so too"},
    {"NHOOD_OVERLAP_CSV", NULL, LIB, K_PATH, CFG(overlap_csv), 0,
     "also write the overlap advisor's table there (CSV, rank 0's figures)"},
    {NULL, "isomorphic", NH_SET_INFO, K_BOOL, 0, HINT(iso),
     "true: a promise of equal block sizes per neighbor to the v/w calls; false: no grid is "
     "looked for; alike on every rank (docs/detection.md)"},
    {NULL, "nhood_dims", NH_SET_INFO, K_DIMS, 0, HINT(ndims),
     "the grid of the graph's ranks, row-major, e.g. 4,4,2; the product must equal the size"},
    {NULL, "nhood_periods", NH_SET_INFO, K_PERIODS, 0, HINT(has_periods),
     "with nhood_dims: one 0 or 1 per dimension, e.g. 1,1,0 (default: all periodic)"},
    {"NHOOD_LIB", NULL, NH_SET_RUN, K_PATH, 0, 0,
     "the libnhood.so nhood-run preloads (default: the installed one, or the build tree's)"},
    {"NHOOD_ROOT", NULL, NH_SET_RUN, K_PATH, 0, 0,
     "the installation the nhood module loaded (nhood-run's library where the configured one is "
     "gone)"},
    {"NHOOD_OPENMPI_BUILD", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "make check-openmpi's build directory of nhood against Open MPI"},
    {"NHOOD_SAN_BUILD", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/check-sanitizers.sh's build directory"},
    {"NHOOD_SAN_MPICC", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/check-sanitizers.sh's MPI compiler wrapper"},
    {"NHOOD_SMPI_DIR", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "the SimGrid build of nhood the simulation scripts use (make smpi)"},
    {"NHOOD_SIM_CFG", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "extra SimGrid --cfg options for scripts/nhood-sim"},
    {"NHOOD_SIM_SGFAST", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/nhood-sim: 0 runs SimGrid without src/smpi/sgfast.c preloaded"},
    {"NHOOD_MPICH_SRC", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/check-mpich.sh: MPICH's source tree with its test suite"},
    {"NHOOD_MPICH_MODES", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/check-mpich.sh: the nhood settings its tests run under"},
    {"NHOOD_SCHED", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/plot-bruck-rounds.sh: the nhood-sched program to run"},
    {"NHOOD_CALIBRATE", NULL, NH_SET_DEV, K_TEXT, 0, 0,
     "scripts/sim-calibrate.sh: the simulated nhood-calibrate to run"},
};
const int nh_nsettings = (int)(sizeof(nh_settings) / sizeof(nh_settings[0]));

int nh_parse_ports(const char *v, int *out)
{
    if (strcmp(v, "auto") == 0) {
        *out = 0;
        return 0;
    }
    return nh_parse_uint_list(v, out, 1, 1, NH_MAX_PORTS) == 1 ? 0 : -1;
}

const char *nh_binding_name(nh_binding b)
{
    return nh_binding_names[b];
}

const char *const nh_set_group_names[NH_SET_GROUPS] = {"library", "cost model", "info key",
                                                       "nhood-run", "development scripts"};

const nh_setting *nh_setting_find(const char *name)
{
    for (int i = 0; i < nh_nsettings; i++) {
        const nh_setting *s = &nh_settings[i];
        if ((s->env && strcmp(s->env, name) == 0) || (s->info && strcmp(s->info, name) == 0))
            return s;
    }
    return NULL;
}

/* The names of an enumerated kind's values in value order (NULL-ended;
 * NULL: not enumerated). */
static const char *const *names_of(int kind)
{
    switch (kind) {
    case K_FALLBACK:
        return fallback_names;
    case K_PROGRESS:
        return progress_names;
    case K_OVERLAP:
        return overlap_names;
    case K_SETUP:
        return setup_names;
    case K_MISMATCH:
        return mismatch_names;
    case K_LARGE:
        return large_names;
    case K_FIXES:
        return fixes_names;
    default:
        return NULL;
    }
}

/* The i-th value name of an enumerated kind, or NULL past the last. */
static const char *value_name(int kind, int i)
{
    const char *const *names = names_of(kind);
    if (names) {
        for (int j = 0; j < i; j++)
            if (!names[j])
                return NULL;
        return names[i];
    }
    switch (kind) {
    case K_BINDING: /* each: the learning's only */
        return i < NH_BIND_EACH ? nh_binding_names[i] : NULL;
    case K_ALGO:
        return i < NH_ALGO_COUNT ? nh_algos[i].name : NULL;
    case K_INPLACE:
        return i < NH_INPLACE_MPICH ? nh_inplace_names[i] : NULL;
    case K_ISO_REDUCE: /* auto is NH_RED_COUNT */
        return i < NH_RED_COUNT ? nh_red_algo_names[i] : i == NH_RED_COUNT ? "auto" : NULL;
    case K_BOOL:
        return bool_names[i > 1 ? 2 : i];
    default:
        return NULL;
    }
}

static int find_name(int kind, const char *v)
{
    for (int i = 0; value_name(kind, i); i++)
        if (strcmp(v, value_name(kind, i)) == 0)
            return i;
    return -1;
}

int nh_setting_parse(const nh_setting *s, const char *v, void *dst, int info)
{
    long long x;
    double d;
    int i, *ip = dst;
    switch (s->kind) {
    case K_ALGO:
        return nh_parse_algo(v, (nh_algo *)dst);
    case K_DOUBLE:
        if (nh_parse_real(v, &d))
            return -1;
        *(double *)dst = d;
        return 0;
    case K_BYTES:
        if (nh_parse_uint(v, NH_MAX_BYTES, &x))
            return -1;
        *(long *)dst = (long)x;
        return 0;
    case K_PATH:
    case K_TEXT:
        if (!*v)
            return -1;
        *(const char **)dst = v;
        return 0;
    case K_STFW_DIMS:
        return nh_parse_stfw_dims(v, ip);
    case K_PORTS:
        return nh_parse_ports(v, ip);
    case K_NODE_SIZE:
    case K_CALLS:
        if (nh_parse_uint(v, 1 << 30, &x) || (s->kind == K_NODE_SIZE && x < 1))
            return -1;
        *ip = (int)x;
        return 0;
    case K_WINDOW:
        d = -1;
        if (strcmp(v, "auto") != 0 && (nh_parse_real(v, &d) || d < 0))
            return -1;
        *(double *)dst = d;
        return 0;
    case K_DIMS:
    case K_PERIODS:
        i = nh_parse_uint_list(v, ip + 1, NH_MAXDIMS, s->kind == K_DIMS,
                               s->kind == K_DIMS ? 1 << 30 : 1);
        if (i < 1)
            return -1;
        ip[0] = i;
        return 0;
    case K_BOOL: /* 0|1 in the environment, MPI_Info's words as info keys */
        for (i = 0; i < 2 && strcmp(v, (info ? bool_words : bool_names)[i]) != 0; i++)
            ;
        if (i == 2)
            return -1;
        *ip = i;
        return 0;
    default: /* enumerated: stored as the value's index (enums and ints alike) */
        if ((i = find_name(s->kind, v)) < 0)
            return -1;
        *ip = i;
        return 0;
    }
}

void nh_setting_allowed(const nh_setting *s, char *buf, size_t len, int info)
{
    size_t n = 0;
    buf[0] = '\0';
    switch (s->kind) {
    case K_DOUBLE:
        snprintf(buf, len, "a non-negative number such as 4, 0.5 or 2e-4");
        return;
    case K_BYTES:
        snprintf(buf, len, "a non-negative integer up to %lld", NH_MAX_BYTES);
        return;
    case K_PATH:
        snprintf(buf, len, "a file path");
        return;
    case K_TEXT:
        snprintf(buf, len, "text");
        return;
    case K_STFW_DIMS:
        snprintf(buf, len, "an integer from 1 to %d, or agg", NH_STFW_MAXDIMS);
        return;
    case K_NODE_SIZE:
        snprintf(buf, len, "a positive integer");
        return;
    case K_CALLS:
        snprintf(buf, len, "a non-negative integer");
        return;
    case K_WINDOW:
        snprintf(buf, len, "auto or microseconds (a number >= 0)");
        return;
    case K_PORTS:
        snprintf(buf, len, "auto or an integer from 1 to %d", NH_MAX_PORTS);
        return;
    case K_DIMS:
        snprintf(buf, len, "1 to %d positive integers separated by commas", NH_MAXDIMS);
        return;
    case K_PERIODS:
        snprintf(buf, len, "one 0 or 1 per entry of nhood_dims, separated by commas");
        return;
    case K_BOOL: /* an info key's words are MPI's */
        snprintf(buf, len, "%s",
                 info || !s->env ? "true|false"
                 : s->info       ? "0|1 (info key: true|false)"
                                 : "0|1");
        return;
    case K_ISO_REDUCE: /* auto (stored after the algorithms) first */
        n = (size_t)snprintf(buf, len, "auto");
        for (int i = 0; i < NH_RED_COUNT && n < len; i++)
            n += (size_t)snprintf(buf + n, len - n, "|%s", nh_red_algo_names[i]);
        return;
    }
    for (int i = 0; value_name(s->kind, i) && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", value_name(s->kind, i));
}

void nh_setting_default(const nh_setting *s, char *buf, size_t len)
{
    const void *p = (const char *)&defaults + s->cfg - 1;
    buf[0] = '\0';
    if (!s->cfg)
        return;
    int i = 0; /* the int kinds' value (read below only for them) */
    switch (s->kind) {
    case K_DOUBLE:
        snprintf(buf, len, "%g", *(const double *)p);
        return;
    case K_WINDOW:
        if (*(const double *)p < 0)
            snprintf(buf, len, "auto");
        else
            snprintf(buf, len, "%g", *(const double *)p);
        return;
    case K_BYTES:
        snprintf(buf, len, "%ld", *(const long *)p);
        return;
    case K_CALLS:
        snprintf(buf, len, "%d", *(const int *)p);
        return;
    case K_PATH:
    case K_TEXT:
        snprintf(buf, len, "%s", *(const char *const *)p ? *(const char *const *)p : "");
        return;
    case K_PORTS:
    case K_STFW_DIMS:
    case K_NODE_SIZE: /* 0: nhood decides (the cost model; real nodes) */
        i = *(const int *)p;
        snprintf(buf, len, i ? "%d" : "auto", i);
        return;
    default: /* enumerated, stored as an int */
        i = *(const int *)p;
        snprintf(buf, len, "%s", value_name(s->kind, i) ? value_name(s->kind, i) : "?");
        return;
    }
}
