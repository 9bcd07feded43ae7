/* Library life cycle: MPI_Init, MPI_Finalize, a start past nhood, MPI-4
 * Sessions (graph creation: create.c; the in-place all-to-all's entry
 * points: alltoall.c). */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/progress.h"
#include "exec/request.h"
#include "api/api.h"
#include "config/files.h"
#include "nh_impl.h"
#include "select/tunefile.h"
#include "util/sync.h"

__thread int nh_guard NH_TLS_FAST;
__thread void *nh_caller NH_TLS_FAST;
int nh_ov_live;
void (*nh_ov_fence_hook)(const char *what);

/* Configuration errors are fatal: a typo in NHOOD_ALGO must not silently
 * measure the wrong thing.  All ranks learn of any rank's error (one
 * reduction at start-up), the first rank that has one explains, and all
 * leave together, so the message is never lost to a racing abort. */
static int started;
static const char *off_why;   /* why nhood stepped aside for the whole run, or NULL */
static int cfg_read, cfg_bad; /* the environment was read (once); it had a bad setting */
static char cfg_msg[512];
/* The cost file's fingerprint against this run's, for nhood-info. */
static char cost_fp[300] = "no cost file";

const char *nh_start_state(const char **cost_fingerprint)
{
    *cost_fingerprint = started ? cost_fp : "before MPI_Init";
    return !started ? "before MPI_Init" : off_why ? off_why : "active";
}

/* Reads the NHOOD_* settings once: before MPI starts where nhood sees
 * MPI_Init (the thread level depends on them), else at start-up.  An
 * error is only kept here; after_init reports it on every rank. */
static void read_config(void)
{
    if (!cfg_read) {
        cfg_read = 1;
        cfg_bad = nh_config_load(cfg_msg, sizeof(cfg_msg)) != 0;
        nh_node_size = nh_cfg.node_size;
    }
}

/* The level nhood asks MPI for when the program asks for required. */
static int thread_level(int required)
{
    read_config();
    return cfg_bad ? required : nh_prog_level(required);
}

/* Stops the run the way a bad setting does: every rank has the same
 * message (the files' text is broadcast), rank 0 says it. */
static void stop_run(const char *msg)
{
    if (nh_world_rank == 0)
        fprintf(stderr, "nhood: error: %s\n", msg);
    fflush(stderr);
    nh_mpi_Finalize();
    exit(2);
}

/* The cost file: NHOOD_COST_FILE, else the installed site.cost where
 * there is one (docs/tuning.md).  Rank 0 reads it for all. */
static int load_costs(void)
{
    char msg[1024], *text = NULL, site[4096];
    const char *path = nh_cfg.cost_file;
    if (!path) { /* rank 0's decides (nh_file_bcast) */
        nh_site_cost_path(site, sizeof(site));
        path = site;
    }
    int rc = nh_file_bcast(path, &text, msg, sizeof(msg));
    if (rc == MPI_ERR_FILE || (!rc && !text && nh_cfg.cost_file)) {
        if (!text && !rc)
            snprintf(msg, sizeof(msg), "NHOOD_COST_FILE=%.400s: no such file", path);
        stop_run(msg);
    }
    if (rc || !text)
        return rc;
    nh_cost c;
    nh_fingerprint fp;
    int use;
    if (nh_config_cost_parse(text, path, &c, &fp, msg, sizeof(msg)))
        stop_run(msg);
    free(text);
    rc = nh_file_fits("cost file", path, &fp, nh_cfg.mismatch, "using it anyway (docs/tuning.md)",
                      "using the defaults (NHOOD_MISMATCH=skip) (docs/tuning.md)", &use, msg,
                      sizeof(msg));
    if (rc == MPI_ERR_OTHER)
        stop_run(msg);
    if (rc)
        return rc;
    nh_fingerprint run;
    char why[200];
    if (nh_fingerprint_run(&run) == MPI_SUCCESS &&
        nh_fingerprint_match(&fp, &run, why, sizeof(why)))
        snprintf(cost_fp, sizeof(cost_fp), "matches this run");
    else
        snprintf(cost_fp, sizeof(cost_fp), "differs (%.200s): %s", why, use ? "used" : "skipped");
    if (!use)
        return rc;
    nh_config_cost_use(&c, path);
    return MPI_SUCCESS;
}

/* NHOOD_TUNE_FILE: the autotuner's decisions of earlier runs
 * (select/tunefile.c; collective over MPI_COMM_WORLD).  A file that
 * cannot be used stops the run as a bad setting does: every rank parses
 * the same text and reaches the same verdict. */
static void load_tune_file(void)
{
    char msg[512];
    if (!nh_cfg.tune_file)
        return;
    if (!nh_cfg.autotune) { /* every rank sees the same settings */
        nh_warn("NHOOD_TUNE_FILE=%s is read and written only under NHOOD_AUTOTUNE=1; ignored",
                nh_cfg.tune_file);
        nh_cfg.tune_file = NULL;
        return;
    }
    if (nh_tune_file_load(msg, sizeof(msg)))
        stop_run(msg);
}

/* nhood's shut-down, while MPI still runs: from nhood's MPI_Finalize, or
 * where a tool's MPI_Finalize reached MPI past it, from MPI_Finalize's
 * deletion of MPI_COMM_SELF's attributes, which MPI runs first (MPI-4.0
 * 11.2.4). */
static int finished;

static void shut_down(void)
{
    if (!started || finished)
        return;
    finished = 1;
    /* before MPI_Finalize frees the autotuner's state (an MPI_COMM_SELF
     * attribute) */
    if (nh_active)
        nh_tune_file_save();
    if (nh_cfg.report && nh_world_rank == 0) {
        if (off_why) /* one line, so that a silent report is never ambiguous */
            nh_log_line("nhood: off reason=%s (every call went to MPI)\n", off_why);
        nh_report_print();
        nh_inplace_report_print();
    }
    nh_report_free();
    nh_inplace_report_free();
    nh_req_fini(); /* operations the program never freed */
    nh_cold_fini();
    nh_parents_fini();
    nh_call_keep_fini();
    nh_prog_fini();
    nh_plan_fini();
    nh_inplace_fini();
    if (nh_world_priv != MPI_COMM_NULL)
        nh_comm_free(&nh_world_priv);
    nh_active = 0; /* under Sessions, calls after the last session go to MPI */
}

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)val, (void)extra;
    shut_down();
    nh_mpi_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* The shut-down's hook (above), set at start-up. */
static int hook_shut_down(void)
{
    int kv, rc = nh_mpi_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kv, NULL);
    return rc ? rc : nh_mpi_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
}

/* This rank's progress backend (Sessions: agreed per graph, session_agree). */
static int prog_mine;

/* This rank's warm-up: none where an algorithm is forced (such graphs
 * are analyzed at creation, as the program asked for nhood's schedules). */
static int warmup_mine(void)
{
    int forced = nh_cfg.algo != NH_ALGO_AUTO;
    for (int o = 0; o < NH_OP_COUNT; o++)
        forced |= nh_cfg.algo_op[o] != NH_ALGO_AUTO;
    return forced ? 0 : nh_cfg.warmup;
}

/* Why this rank's settings keep nhood out of the run (NHOOD_DISABLE, or
 * NHOOD_EXCLUDE naming this program), or NULL. */
static const char *off_here(void)
{
    static char why[160];
    if (nh_cfg.disable)
        return "NHOOD_DISABLE=1";
    const char *prog = program_invocation_short_name, *pat = nh_cfg.exclude;
    while (pat && *pat) {
        pat += strspn(pat, " ");
        size_t n = strcspn(pat, ","), k = n;
        char one[128];
        while (k > 0 && pat[k - 1] == ' ')
            k--;
        if (k > 0 && k < sizeof(one)) {
            memcpy(one, pat, k);
            one[k] = '\0';
            if (fnmatch(one, prog, 0) == 0) {
                snprintf(why, sizeof(why), "NHOOD_EXCLUDE (%s)", prog);
                return why;
            }
        }
        pat += n + (pat[n] == ',');
    }
    return NULL;
}

/* The thread level the program asked for (-1: MPI started past nhood). */
static int app_threads = -1;

/* The start-up's agreed facts (core/facts.h); Sessions' agreement
 * (nh_session_agree) takes the first two. */
enum { S_PROGRESS, S_WARMUP, S_BAD, S_ONE_THREAD, S_ON, S_COUNT };
static const nh_fact start_facts[S_COUNT] = {
    [S_PROGRESS] = {NH_FACT_MIN, 0},   [S_WARMUP] = {NH_FACT_SAME, 0}, [S_BAD] = {NH_FACT_MIN, 0},
    [S_ONE_THREAD] = {NH_FACT_MIN, 0}, [S_ON] = {NH_FACT_MIN, 0},
};

/* nhood's start-up once MPI runs.  scope: MPI_COMM_WORLD, where it is
 * collective; or, in a program that uses only Sessions, the communicator
 * of the first graph (or in-place all-to-all) nhood sees, where it is
 * local, since the ranks of a later graph may have started on other
 * communicators: what ranks must share is then agreed at each graph's
 * creation (session_agree), and the cost and tuning files, which rank 0
 * of MPI_COMM_WORLD reads for all, are not read. */
static int after_init(int provided, MPI_Comm scope)
{
    int size, first;
    if (started) /* Fortran start-up may get here twice, see nh_start_late */
        return MPI_SUCCESS;
    started = 1;
    nh_no_world = scope != MPI_COMM_WORLD;
    nh_mpi_Comm_rank(scope, &nh_world_rank);
    nh_mpi_Comm_size(scope, &size);
    /* The first rank with a bad setting explains (usually rank 0: all
     * ranks normally see the same environment). */
    long long mine[S_COUNT], all[S_COUNT];
    read_config();
    /* the first rank with a bad setting, else the size */
    mine[S_BAD] = cfg_bad ? nh_world_rank : size;
    /* Whether forwarding may run in nonblocking calls must be the same
     * everywhere: every rank needs a progress backend (exec/progress.c). */
    mine[S_PROGRESS] = prog_mine =
        mine[S_BAD] < size || nh_prog_init(provided, nh_req_progress_from_mpi);
    /* Graph creation's point-to-point agreement takes one thread at a
     * time calling MPI (plan/agree.c): the level the program asked for
     * (nhood's progress thread makes no graphs). */
    mine[S_ONE_THREAD] =
        (app_threads >= 0 && app_threads < provided ? app_threads : provided) < MPI_THREAD_MULTIPLE;
    /* The cold tier's warm-up (NHOOD_WARMUP, 0 where an algorithm is
     * forced): the same on every rank, or none (plan/detect.c counts the
     * calls alike everywhere) */
    mine[S_WARMUP] = warmup_mine();
    /* Off on every rank where one rank's settings say so (an MPMD job's
     * programs, or environments, may differ): never on some ranks only */
    const char *off = off_here();
    mine[S_ON] = !off;
    /* (where the reduction fails, as where there is no MPI_COMM_WORLD, each
     * rank keeps its own) */
    if (nh_no_world || nh_facts_allreduce(start_facts, S_COUNT, mine, all, MPI_COMM_WORLD))
        memcpy(all, mine, sizeof(all)), all[S_ONE_THREAD] = 0;
    nh_cfg.warmup = all[S_WARMUP] != NH_FACT_DIFFER ? (int)all[S_WARMUP] : 0;
    first = (int)all[S_BAD];
    nh_prog_agree((int)all[S_PROGRESS]);
    if (first < size) {
        if (nh_world_rank == first)
            fprintf(stderr, "nhood: error: %s%s\n", cfg_msg, first ? " (on this rank only)" : "");
        fflush(stderr);
        if (nh_no_world)
            nh_mpi_Abort(scope, 2);
        nh_mpi_Finalize();
        exit(2);
    }
    nh_config_warn_unknown();
    nh_mpilib_warn();
    int rc = nh_no_world ? MPI_SUCCESS : hook_shut_down();
    if (rc)
        return rc;
    /* Under MPI_THREAD_MULTIPLE what threads share takes locks (util/sync.h). */
    nh_mt = provided == MPI_THREAD_MULTIPLE;
    off_why = off ? off : !all[S_ON] ? "NHOOD_DISABLE or NHOOD_EXCLUDE on another rank" : NULL;
    nh_active = !off_why;
    if (!nh_active)
        return MPI_SUCCESS;
    if (nh_no_world && (nh_cfg.cost_file || nh_cfg.tune_file))
        nh_warn("NHOOD_COST_FILE and NHOOD_TUNE_FILE are read where the program calls MPI_Init; "
                "a program that uses only Sessions runs with the default costs (docs/tools.md)");
    if (!nh_no_world) {
        if ((rc = load_costs()))
            return rc;
        load_tune_file();
        /* Sessions: a rank's start-up is local (its first graph's
         * communicator need not be anyone else's), so not agreed there */
        if ((rc = nh_oversub_agree(MPI_COMM_WORLD)))
            return rc;
        if (all[S_ONE_THREAD] && size <= NH_PAIRWISE_MAX &&
            (rc = nh_comm_dup(MPI_COMM_WORLD, &nh_world_priv)))
            return rc;
    }
    rc = nh_plan_init(scope);
    return rc ? rc : nh_inplace_init();
}

int nh_start_late(void)
{
    int flag = 0, provided;
    if (started || nh_mpi_Initialized(&flag) || !flag || nh_mpi_Query_thread(&provided))
        return MPI_SUCCESS;
    return after_init(provided, MPI_COMM_WORLD);
}

/* A program that uses only Sessions: nhood starts on comm (local). */
static int start_sessions(MPI_Comm comm)
{
    int provided = MPI_THREAD_SINGLE;
    if (nh_mpi_Query_thread(&provided))
        provided = MPI_THREAD_SINGLE;
    return after_init(provided, comm);
}

/* Under Sessions, the ranks of a new graph agree whether every one of them
 * has a progress backend, and on the warm-up (collective over comm;
 * elsewhere both were agreed at start-up). */
int nh_session_agree(MPI_Comm comm, int *no_forward, int *cold)
{
    *no_forward = 0;
    *cold = nh_active && nh_cfg.warmup > 0; /* agreed at start-up */
    if (!nh_no_world || !nh_active)
        return MPI_SUCCESS;
    long long mine[2] = {[S_PROGRESS] = prog_mine, [S_WARMUP] = warmup_mine()}, all[2];
    int rc = nh_facts_allreduce(start_facts, 2, mine, all, comm);
    *no_forward = !all[S_PROGRESS];
    *cold = all[S_WARMUP] != NH_FACT_DIFFER && all[S_WARMUP] > 0;
    return rc;
}

/* MPI was started past nhood (a tool's MPI_Init calling the library
 * directly, another layer's PMPI_Init): nhood starts at the first
 * collective it sees over every rank of MPI_COMM_WORLD, since its
 * start-up is collective there.  On a smaller communicator it waits (that
 * call goes to MPI: every rank of it must decide alike, and the ranks
 * outside would never join the start-up). */
int nh_start_with(MPI_Comm comm)
{
    int flag = 0, same = MPI_UNEQUAL;
    if (started || comm == MPI_COMM_NULL || nh_mpi_Finalized(&flag) || flag)
        return MPI_SUCCESS;
    if (nh_mpi_Initialized(&flag))
        return MPI_SUCCESS;
    if (!flag) /* a communicator, but no MPI_Init: Sessions */
        return start_sessions(comm);
    if (nh_mpi_Comm_compare(comm, MPI_COMM_WORLD, &same) || same == MPI_UNEQUAL)
        return MPI_SUCCESS;
    return nh_start_late();
}

/* MPI starts at the level the program asks for, or at
 * MPI_THREAD_MULTIPLE where the progress backend needs a helper thread
 * (exec/progress.c); the program learns the level MPI provided. */
int nh_impl_MPI_Init(int *argc, char ***argv)
{
    int provided, level = thread_level(MPI_THREAD_SINGLE);
    app_threads = MPI_THREAD_SINGLE;
    int rc = level == MPI_THREAD_SINGLE ? nh_mpi_Init(argc, argv)
                                        : nh_mpi_Init_thread(argc, argv, level, &provided);
    if (rc || (rc = nh_mpi_Query_thread(&provided)))
        return rc;
    return after_init(provided, MPI_COMM_WORLD);
}

int nh_impl_MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    app_threads = required;
    int rc = nh_mpi_Init_thread(argc, argv, thread_level(required), provided);
    return rc ? rc : after_init(*provided, MPI_COMM_WORLD);
}

int nh_impl_MPI_Finalize(void)
{
    shut_down();
    return nh_mpi_Finalize();
}

#ifdef HAVE_MPI_SESSION_INIT
/* Sessions not yet finalized: a program that uses only Sessions shuts
 * nhood down (its report) before the last of them ends. */
static int sessions;

int nh_impl_MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    int rc = nh_mpi_Session_init(info, errhandler, session);
    if (rc == MPI_SUCCESS)
        __atomic_add_fetch(&sessions, 1, __ATOMIC_RELAXED);
    return rc;
}

int nh_impl_MPI_Session_finalize(MPI_Session *session)
{
    if (nh_no_world && __atomic_load_n(&sessions, __ATOMIC_RELAXED) == 1)
        shut_down();
    int rc = nh_mpi_Session_finalize(session);
    if (rc == MPI_SUCCESS)
        __atomic_sub_fetch(&sessions, 1, __ATOMIC_RELAXED);
    return rc;
}
#endif
