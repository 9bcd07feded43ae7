/* The API layer: nhood's neighborhood collectives behind the MPI entry
 * points (neighbor.c), the call's arguments (call.c), life cycle
 * (lifecycle.c), graph creation (create.c), the in-place all-to-all's
 * entry points (alltoall.c), report and queries. */
#ifndef NH_API_H
#define NH_API_H

#include "api/report.h"
#include "exec/inplace.h"
#include "select/select.h"

/* A call's arguments as the user gave them (the fields its form has). */
typedef struct nh_args {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;           /* regular; v: the one type per side */
    const int *scounts, *rcounts;        /* v, w (allgatherv: rcounts) */
    const int *sdispls, *rdispls;        /* v: in extents (allgatherv: rdispls) */
    const MPI_Aint *sdisplsw, *rdisplsw; /* w: in bytes */
    const MPI_Datatype *stypes, *rtypes; /* w */
} nh_args;

/* Runs coll in form on comm with nhood's schedule (blocking), or creates
 * nhood's request for it (nonblocking, persistent: *req); MPI_SUCCESS, an
 * MPI error (the communicator's error handler called), or NH_TO_PMPI. */
int nh_neighbor(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm, MPI_Request *req);
/* A call on a cold plan (p->cold; plan/plan.h): counted, and MPI's
 * (NH_TO_PMPI), or the one that analyzes the graph or the first past its
 * analysis at a parent's point (MPI_SUCCESS, or an error with the
 * communicator's error handler called).  Every call on the
 * graph comes here first, whatever path it takes after. */
int nh_neighbor_cold(nh_plan *p, nh_coll coll, nh_form form, MPI_Comm comm);
/* Points on a graph's parent (api/parents.c): a graph made from parent
 * is recorded there (p: the creation's plan, NULL where it made none; on
 * every rank the creation reached nhood on), and a blocking collective
 * on a communicator with records may analyze its cold children and
 * settle their nonblocking trials;
 * nh_parents_live counts the communicators with records (the points'
 * fast test). */
int nh_parents_adopt(MPI_Comm parent, nh_plan *p, MPI_Comm graph);
int nh_parents_point(MPI_Comm comm);
void nh_parents_fini(void);
extern int nh_parents_live;
/* A cold graph's call that nh_neighbor_cold gave to MPI (api/cold.c):
 * NH_TO_PMPI where MPI's own call with the program's arguments is right,
 * else MPI's call made the way every rank makes it where the library
 * orders a repeated peer's blocks wrongly (MPI_SUCCESS, or an error with
 * the communicator's error handler called). */
int nh_cold_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                 MPI_Request *req);
/* The form of MPI's exchange a cold graph's call of coll takes on this
 * rank (nh_cold_call, out of place): NH_BIND_AUTO as the program made it,
 * NH_BIND_EACH as MPI's v call of the same blocks, NH_BIND_PACK grouped
 * (the names of select/mpi_own.c).  Local; nhood_algorithm_for's answer
 * for a graph not analyzed yet. */
nh_binding nh_cold_form(nh_plan *p, nh_coll coll, MPI_Comm comm);
/* MPI's own exchange in form form_of_own (nh_cold_form's names): the
 * regular call as MPI's v call of the same blocks (NH_BIND_EACH,
 * nh_cold_regular), the grouped form (NH_BIND_PACK, nh_grouped_call), or
 * NH_TO_PMPI (NH_BIND_AUTO).  MPI_SUCCESS or an MPI error: the caller
 * calls the error handler. */
int nh_own_call(nh_plan *p, nh_binding form_of_own, nh_coll coll, nh_form form, const nh_args *a,
                MPI_Comm comm, MPI_Request *req);
/* MPI's exchange in the grouped form that the cold tier's calls take
 * there, on any graph, cold or analyzed: every rank makes the same MPI
 * call, a rank that lists a peer twice sending that peer's blocks in one
 * message (MPI_SUCCESS, or an MPI error: the caller calls the error
 * handler); NH_TO_PMPI where MPI's own call with the program's arguments
 * is that call (allgather, in place, a v call on a rank that lists no
 * peer twice; always under SMPI).  Also the learning's stand-in for
 * MPI's own exchange where that library would misorder the blocks
 * (nh_mpi_own_ok with NH_BIND_PACK). */
int nh_grouped_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                    MPI_Request *req);
/* MPI's call in a form right on this library whatever the lists repeat,
 * every rank alike: NH_TO_PMPI where the program's own call is; on MPICH
 * 4.0, whose v and w forms are right, a regular all-to-all as the v call
 * of the same blocks (nh_cold_regular); before 5.0 otherwise the grouped
 * form (nh_grouped_call).  The cold tier's calls (nh_cold_call) and a
 * copy's starts before its first blocking call take it (MPI_SUCCESS, or an
 * MPI error: the caller calls the error handler). */
int nh_right_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                  MPI_Request *req);
/* A regular all-to-all on a rank that lists no peer twice, made as the
 * MPI_Neighbor_alltoallv of the same blocks that every rank makes there
 * (api/cold_plain.c; MPI_SUCCESS or an MPI error). */
int nh_cold_regular(nh_form form, const nh_args *a, MPI_Comm comm, int outdeg, int indeg,
                    MPI_Request *req);
/* Frees what the cold calls keep until MPI_Finalize (api/cold_plain.c). */
void nh_cold_fini(void);
/* A call of form on comm started with result rc: a nonblocking one's
 * window is sampled (util/window.h), except on a cold graph (the cold
 * tier pays nothing of nhood's).  Returns rc. */
int nh_neighbor_started(nh_form form, int rc, MPI_Comm comm, MPI_Request *req);

/* MPI_Dist_graph_create_adjacent as nhood answers it (api/create.c);
 * mend: set the graph's MPI topology right (Open MPI 5.0: a Cartesian
 * parent's stays on it) even where nhood is off (NHOOD_DISABLE), as the
 * Iso_* interface's graphs need. */
int nh_graph_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                      const int *sourceweights, int outdegree, const int destinations[],
                      const int *destweights, MPI_Info info, int reorder, int mend,
                      MPI_Comm *comm_dist_graph);
/* An in-place all-to-all (api/alltoall.c): nhood's run, or NH_TO_PMPI
 * (not MPI_IN_PLACE, or nh_inplace declines it). */
int nh_inplace_try(const void *sendbuf, MPI_Comm comm, const nh_inplace_args *a);
/* nhood's start-up after MPI was initialized without it (a Fortran
 * binding calling PMPI_Init); does nothing if it already ran. */
int nh_start_late(void);
/* Before a call on comm that nhood may run: nhood's start-up where MPI
 * was started past it and comm spans MPI_COMM_WORLD, or under Sessions
 * (api/lifecycle.c). */
int nh_start_with(MPI_Comm comm);
/* Under Sessions, the ranks of a new graph agree whether every one of
 * them has a progress backend (collective over comm; *no_forward 0
 * elsewhere) and on the warm-up; *cold: the graph starts in the cold
 * tier (NHOOD_WARMUP, the same on every rank: agreed at start-up outside
 * Sessions). */
int nh_session_agree(MPI_Comm comm, int *no_forward, int *cold);

/* The overlap layer's entry for the blocking and nonblocking collectives
 * while NHOOD_OVERLAP is on (overlap/coll.c sets it; NULL otherwise): it
 * runs the call itself (nhood's schedule or MPI's).  site: the caller's
 * return address. */
typedef int (*nh_coll_hook_fn)(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                               MPI_Request *req, void *site);
extern nh_coll_hook_fn nh_coll_hook;

/* The engine's description of a call (call.c): 0, NH_TO_PMPI for
 * arguments nhood leaves to MPI to report, or an MPI error.  Frees with
 * nh_call_fini. */
int nh_call_init(nh_call *c, nh_coll coll, const nh_args *a, const nh_plan *p);
/* What only the engine needs of the call nh_call_init described (each
 * block's contig, the call's named): found where nhood's schedule runs
 * it, so that a call MPI's own exchange serves costs no more type queries
 * than its sizes. */
void nh_call_describe(nh_call *c);
void nh_call_fini(nh_call *c);
/* The block size selection uses: regular calls their block, v/w calls
 * the mean over the template (the same everywhere under the promise). */
size_t nh_call_block(const nh_call *c, const nh_plan *p);
/* A v/w call's signature for the learning (select.h, nh_learn_key): its
 * sizes in the template's order, the same on every rank under the
 * promise; 0 for regular calls. */
unsigned long nh_call_sig(const nh_call *c, const nh_plan *p);
/* Whether a v or w call on p has the counts and types of the last one
 * nh_call_keep kept for coll in form (api/repeat.c; where nh_sizes_known,
 * not persistent): its block size and signature then (*m, *sig). */
int nh_call_repeats(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, size_t *m,
                    unsigned long *sig);
/* Keeps a's counts and types with the block size and signature
 * nh_call_block and nh_call_sig found for them (and has their derived
 * types count their frees). */
void nh_call_keep(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, size_t m,
                  unsigned long sig);
/* At shut-down: the types' attribute goes (a later free counts still). */
void nh_call_keep_fini(void);
/* Bytes this rank sends in the call. */
double nh_call_bytes(const nh_call *c, const nh_plan *p);
/* NHOOD_CHECK: the isomorphic=true promise holds for this call (collective;
 * aborts with a message naming the first neighbor index that breaks it). */
int nh_call_check(const nh_plan *p, nh_coll coll, const nh_call *c, MPI_Comm comm);
/* The call goes to MPI because p->gpu (a GPU runtime on some rank): in
 * the report (why=gpu_runtime).  Returns NH_TO_PMPI. */
int nh_call_gpu_passed(nh_plan *p, nh_coll coll, nh_form form);
/* NHOOD_CHECK: the send and receive buffers of a call nhood runs are host
 * memory where this rank has a GPU runtime loaded; a device or managed
 * buffer stops the job with an error naming the call (not collective). */
int nh_call_check_host(const nh_plan *p, nh_coll coll, nh_form form, const nh_args *a,
                       MPI_Comm comm);

/* Reentry guard (api/lifecycle.c): set while nhood runs an MPI entry
 * point (intercept/intercept.c) or one of its own (iso/), so that MPI
 * calls from below (an MPI library calling its own MPI_* entry points, a
 * tool under nhood) go straight to PMPI. */
/* (NH_TLS_FAST: util/util.h) */
extern __thread int nh_guard NH_TLS_FAST;
/* The return address of the MPI entry point running (intercept.c). */
extern __thread void *nh_caller NH_TLS_FAST;

/* NHOOD_OVERLAP (overlap/overlap.h): nonzero while watches or deferred
 * operations are outstanding; the overlap layer's fence, which ends them,
 * is nh_ov_fence_hook (set at MPI_Init).  nhood's own API entry points
 * (Iso_*, Cart_*) fence through nh_guard_enter, like MPI's entry points. */
extern int nh_ov_live;
extern void (*nh_ov_fence_hook)(const char *what);

/* A call's result for the program: MPI's error handler on comm where it
 * failed (rc > 0; NH_TO_PMPI and MPI_SUCCESS pass as they are). */
static inline int nh_call_result(MPI_Comm comm, int rc)
{
    if (rc > 0)
        nh_mpi_Comm_call_errhandler(comm, rc);
    return rc;
}

/* Entering nhood from the program's code (prev == 0) is a fence. */
static inline int nh_guard_enter(void)
{
    int prev = nh_guard;
    nh_guard = 1;
    if (!prev && __builtin_expect(__atomic_load_n(&nh_ov_live, __ATOMIC_RELAXED), 0) &&
        nh_ov_fence_hook)
        nh_ov_fence_hook("Iso_* or Cart_*");
    return prev;
}

static inline void nh_guard_leave(int prev)
{
    nh_guard = prev;
}

/* Whether nhood runs ("before MPI_Init", "active", or why it stepped
 * aside), and in *cost_fingerprint how the cost file's fingerprint
 * compares with this run's (api/lifecycle.c; for nhood_info). */
const char *nh_start_state(const char **cost_fingerprint);

#endif
