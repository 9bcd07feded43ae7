/* nhood public interface.
 *
 * Programs normally use nhood without including this header: preloaded,
 * it intercepts the MPI neighborhood collectives.  This header declares
 * the queries a program (or a test) can make when it links libnhood or
 * looks the symbols up in a preloaded one, nhood_progress, and the
 * isomorphic sparse collectives interface (Cart_*, Iso_*, Type_*), which
 * a program calls by linking libnhood (pkg-config nhood). */
#ifndef NHOOD_H
#define NHOOD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NHOOD_VERSION "0.1.0"

typedef struct nhood_comm_info {
    int isomorphic; /* 1 if nhood proved the neighborhood isomorphic */
    int coupled;    /* 1 if block sizes are provably uniform (size-aware auto) */
    int ndims;      /* grid of the neighborhood (0 if not isomorphic) */
    int dims[8];
    int periods[8];
    int neighbors;   /* template size */
    char source[16]; /* "cart", "hint", "inferred", "" or before the analysis "cold" */
} nhood_comm_info;

/* Fills *info for a distributed-graph communicator.  Returns MPI_SUCCESS,
 * or MPI_ERR_COMM if nhood has no record of the communicator. */
int nhood_comm_query(MPI_Comm comm, nhood_comm_info *info);

/* The algorithm nhood would run for op ("alltoall" or "allgather", with
 * an "i" prefix for the nonblocking and an "_init" suffix for the
 * persistent form; or "alltoallv", "alltoallw", "allgatherv", where
 * block_bytes is the mean block size) with blocks of the given size,
 * written into name (e.g. "torus", "pmpi"; where the library would
 * misorder a repeated source's blocks in the program's call, MPI's own
 * exchange in a form that stands in for it: "pmpi/each" as MPI's v call of
 * the same blocks (MPICH 4.0), "pmpi/pack" in the grouped form, each
 * repeated peer's blocks in one message; not the program's call).  Where auto set up
 * store-and-forward, the first blocking call re-checks that choice with
 * its own blocks; before it, the answer is what that re-check would decide
 * for blocks of block_bytes, after it, what it decided.  For
 * "inplace_alltoall", "inplace_alltoallv" or "inplace_alltoallw" on any
 * intracommunicator: the order ("lsa", "hsa" or "pmpi") its in-place calls
 * take, known once one has been made (MPI_ERR_COMM before), block_bytes
 * unused.  Under learning (NHOOD_AUTOTUNE) the answer is what the next
 * such call runs, a trial's candidate included.  On a graph not analyzed
 * yet (the cold tier: nhood_comm_query's source "cold") it is MPI's own
 * exchange in the form the cold tier's calls take, forced algorithm or
 * not (one applies only once the graph is analyzed).  A question is not a
 * call: it moves no trial and counts toward no re-check, so one rank may
 * ask where the others do not (a local call, as MPI's queries are). */
int nhood_algorithm_for(MPI_Comm comm, const char *op, int block_bytes, char *name, int len);

/* The cost model's parameters, in the order of the terms below. */
enum {
    NHOOD_TERM_ALPHA,        /* phases' latencies (NHOOD_COST_ALPHA) */
    NHOOD_TERM_O,            /* messages sent (NHOOD_COST_O) */
    NHOOD_TERM_O_RECV,       /* messages received (NHOOD_COST_O_RECV) */
    NHOOD_TERM_BETA,         /* bytes sent (NHOOD_COST_BETA) */
    NHOOD_TERM_GAMMA,        /* bytes copied locally (NHOOD_COST_GAMMA) */
    NHOOD_TERM_PACK,         /* bytes packed or unpacked (NHOOD_COST_PACK) */
    NHOOD_TERM_GATHER,       /* bytes of large struct messages (NHOOD_COST_GATHER) */
    NHOOD_TERM_GATHER_SMALL, /* bytes of eager struct messages (NHOOD_COST_GATHER_SMALL) */
    NHOOD_TERM_DELTA,        /* blocks of struct messages (NHOOD_COST_DELTA) */
    NHOOD_TERM_RNDV,         /* rendezvous handshakes (NHOOD_COST_RNDV) */
    NHOOD_TERM_NODE,         /* latencies of phases with a message off the node (NHOOD_COST_NODE) */
    NHOOD_TERM_LINK,         /* bytes through the busiest node's link (NHOOD_COST_LINK) */
    NHOOD_TERM_CORE,         /* phases times ranks beyond one per core (NHOOD_COST_CORE) */
    NHOOD_TERM_CALL,         /* calls nhood runs itself (NHOOD_COST_CALL) */
    NHOOD_TERM_HOP,      /* nodes the farthest message passes beyond the first (NHOOD_COST_HOP) */
    NHOOD_TERM_HOP_LINK, /* bytes on the busiest link between nodes (NHOOD_COST_HOP_LINK) */
    NHOOD_TERM_LATE,     /* messages posted before the busiest link's first (NHOOD_COST_LATE) */
    NHOOD_COST_TERMS
};

/* What the cost model counts for one blocking call of op ("alltoall" or
 * "allgather") on comm with blocks of block_bytes, run with algorithm
 * ("pmpi" for MPI's own exchange, "direct", "torus", ...; "bruck" at the
 * port count a call forced to it takes).  The model prices each message
 * phase as the largest of the sender's posting, one latency and the
 * node's link, plus what follows it (docs/algorithms.md,
 * "Choosing"); terms[i] is the multiplier of parameter i in the branches the
 * current parameters take, so the modeled time in microseconds is the sum
 * of terms[i] times the parameters.  binding (len bytes) receives the
 * binding the call runs with ("pack", "zcopy", or "-").  Returns
 * MPI_SUCCESS, MPI_ERR_COMM where nhood knows no isomorphic neighborhood
 * on comm, or MPI_ERR_ARG where the algorithm does not apply to it. */
int nhood_cost_terms(MPI_Comm comm, const char *op, const char *algorithm, int block_bytes,
                     double terms[NHOOD_COST_TERMS], char *binding, int len);

/* The same call's counts phase by phase, before any branch is taken:
 * phases[i][j] is what parameter j multiplies in phase i (j =
 * NHOOD_TERM_ALPHA: 1 for a message phase, 0 for the local copies, which
 * come last).  At most max phases are written; *nphases gets how many
 * there are.  nhood-calibrate fits the parameters to measured calls
 * through these. */
int nhood_cost_phases(MPI_Comm comm, const char *op, const char *algorithm, int block_bytes,
                      double (*phases)[NHOOD_COST_TERMS], int max, int *nphases, char *binding,
                      int len);

/* Where this run is, as the fingerprint.* lines of nhood's cost and
 * tuning files (docs/tuning.md), into text (len bytes).  Collective over
 * MPI_COMM_WORLD the first time.  Returns MPI_SUCCESS or an MPI error. */
int nhood_fingerprint(char *text, int len);

/* nhood's settings, one table (docs/configuration.md is generated from
 * it): every NHOOD_* variable the library and nhood-run read, and the
 * MPI_Info keys of graph creation.  Fills *s with setting i and returns
 * 1, or returns 0 past the last.  Any time, also before MPI_Init. */
typedef struct nhood_setting {
    const char *name;     /* the environment variable, or NULL (an info key only) */
    const char *info_key; /* the MPI_Info key of graph creation, or NULL */
    const char *group;    /* "library", "cost model", "info key", "nhood-run",
                             "development scripts" */
    const char *help;     /* one line */
    const char *value;    /* in this process's environment, or NULL where unset */
    int valid;            /* value is one of the allowed ones (1 where unset) */
    char def[64];         /* the default ("" where none) */
    char allowed[128];    /* the allowed values */
} nhood_setting;
int nhood_setting_get(int i, nhood_setting *s);

/* One fact about this nhood and this run, by key, as text into value (len
 * bytes): "version", "mpi_built" (the MPI library nhood was compiled
 * against), "mpi_library" (the one it runs under), "state" (active, or
 * why not), "progress" (the backend chosen: auto:hook, auto:async,
 * auto:thread, auto:none, safe, poll), "progress_backends" (those this
 * build and this MPI library offer), "ranks_per_node" and "cpus" (the
 * busiest node's), "cost_source", "cost_file", "cost_fingerprint" (whether
 * the cost file was written where this run is), "tune_file",
 * "fortran_fixes" (which of the MPI library's Fortran bugs nhood mends,
 * or none: docs/fortran.md).  Those about the run say
 * "before MPI_Init" until nhood has started.  Returns MPI_SUCCESS, or
 * MPI_ERR_ARG for an unknown key. */
int nhood_info(const char *key, char *value, int len);

/* Advances nhood's outstanding nonblocking and persistent neighborhood
 * collectives without blocking.  Completion calls (MPI_Test, MPI_Wait and
 * their variants) do this already, and under the default
 * NHOOD_PROGRESS=auto so does every MPI call; calling it from a long
 * computation between start and completion lets forwarding operations
 * advance sooner (under NHOOD_PROGRESS=poll it is part of the program's
 * promise).  Safe to call from any thread under MPI_THREAD_MULTIPLE. */
void nhood_progress(void);

/* Live MPI objects and cached state that nhood created for itself (never
 * the application's): private communicator duplicates, derived datatypes,
 * requests not yet completed, and per-communicator plans (graph analyses
 * and in-place contexts).  Once the communicators nhood worked on are
 * freed, every count is back where it was; test/mpi/test_leaks.c checks
 * this over 10,000 create/use/free cycles.  Returns MPI_SUCCESS. */
typedef struct nhood_resources {
    long comms;
    long datatypes;
    long requests;
    long plans;
} nhood_resources;
int nhood_resource_counts(nhood_resources *counts);

/* NHOOD_OVERLAP's counts so far, over this rank's call sites: blocking
 * calls deferred (defer), eligible ones that were complete as soon as they
 * started and so were not deferred (defer), calls whose buffers were
 * watched (report), and of the deferred and watched ones that ended, how
 * many ended at a fault (a first access) rather than at the next MPI,
 * allocation or I/O call.  All zero when the mode is off.  Returns
 * MPI_SUCCESS. */
typedef struct nhood_overlap_counts {
    long deferred;
    long done_at_start;
    long watched;
    long faults;
} nhood_overlap_counts;
int nhood_overlap_query(nhood_overlap_counts *counts);

/* ---- Isomorphic, sparse collectives (the published interface) ----
 *
 * Names and argument order follow Träff et al., "Isomorphic, sparse
 * MPI-like collective communication operations for parallel stencil
 * computations" (EuroMPI 2015) and "Message-combining algorithms for
 * isomorphic, sparse collective communication" (2016).  Programs link
 * libnhood (-lnhood) to use them; they run nhood's schedules on the
 * distributed-graph communicator Iso_neighborhood_create makes (created
 * with the info hint isomorphic=true, see docs/iso.md).
 *
 * Relative coordinates are flat arrays of d ints (d = dimensions of the
 * Cartesian communicator).  In a non-periodic dimension a coordinate out
 * of range has no process: MPI_PROC_NULL, and the corresponding buffer
 * blocks are not significant (never read, never written).  Errors return
 * an MPI error class after the communicator's error handler ran (set
 * MPI_ERRORS_RETURN to see them) and print why on stderr. */

/* Rank of the process at the caller's coordinates + relative, or
 * MPI_PROC_NULL if that leaves a non-periodic dimension. */
int Cart_relative_rank(MPI_Comm cartcomm, const int relative[], int *rank);
/* Coordinates of rank relative to the caller: in a periodic dimension of
 * size p the representative in (-p/2, p/2]. */
int Cart_relative_coord(MPI_Comm cartcomm, int rank, int relative[]);
/* target = caller + relative, source = caller - relative (MPI_PROC_NULL
 * outside a mesh), as MPI_Cart_shift does for one dimension. */
int Cart_relative_shift(MPI_Comm cartcomm, const int relative[], int *source, int *target);

/* Collective over cartcomm: every process passes the same s offsets in
 * the same order (checked: the same s always, the whole list under
 * NHOOD_CHECK=1).  *isocomm is a new distributed-graph communicator whose
 * neighbor lists are the existing targets and sources in offset order; it
 * is freed with MPI_Comm_free. */
int Iso_neighborhood_create(MPI_Comm cartcomm, int s, const int relative_coordinates[],
                            MPI_Comm *isocomm);
/* s, and the in- and out-degree without MPI_PROC_NULL neighbors. */
int Iso_neighborhood_count(MPI_Comm isocomm, int *s, int *indegree, int *outdegree);
/* The first max_s sources and targets in offset order, MPI_PROC_NULL included. */
int Iso_neighborhood_get(MPI_Comm isocomm, int max_s, int sources[], int destinations[]);
/* The same without MPI_PROC_NULL entries (at most max_s of each): input
 * for MPI_Dist_graph_create_adjacent. */
int Iso_neighborhood_graph_get(MPI_Comm isocomm, int max_s, int sources[], int destinations[]);
/* The same for a Cartesian communicator's own neighborhood (MPI's order:
 * per dimension the -1 then the +1 neighbor; sources == destinations). */
int Cart_neighborhood_count(MPI_Comm cartcomm, int *s, int *indegree, int *outdegree);
int Cart_neighborhood_get(MPI_Comm cartcomm, int max_s, int sources[], int destinations[]);
int Cart_neighborhood_graph_get(MPI_Comm cartcomm, int max_s, int sources[], int destinations[]);

/* Blocking collectives.  Block i of the send buffer goes to the i-th
 * target (caller + C_i), block i of the receive buffer comes from the i-th
 * source (caller - C_i); blocks of MPI_PROC_NULL neighbors are skipped.
 * v forms: displacements in extents of the datatype; w forms: in bytes. */
int Iso_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm isocomm);
int Iso_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const MPI_Aint senddispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const MPI_Aint recvdispls[], MPI_Datatype recvtype, MPI_Comm isocomm);
int Iso_neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint senddispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint recvdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm isocomm);
int Iso_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm isocomm);
int Iso_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[],
                            MPI_Datatype recvtype, MPI_Comm isocomm);
int Iso_neighbor_allgatherw(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm isocomm);

/* Persistent forms: the init call binds buffers and precomputes the
 * schedule, its datatypes or pack buffers and its point-to-point
 * requests; Iso_start starts the operation and Iso_wait completes it
 * (the buffers belong to the operation in between; forwarding schedules
 * progress inside Iso_wait and nhood's completion calls, as nonblocking
 * MPI calls do, see NHOOD_PROGRESS); Iso_request_free releases it (after
 * which *request is NULL).  Datatypes may be freed after the init call. */
typedef struct Iso_request_s *Iso_request;
int Iso_neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm isocomm, Iso_request *request);
int Iso_neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm isocomm, Iso_request *request);
int Iso_neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint senddispls[], MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const MPI_Aint recvdispls[],
                                MPI_Datatype recvtype, MPI_Comm isocomm, Iso_request *request);
int Iso_neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[],
                                 MPI_Datatype recvtype, MPI_Comm isocomm, Iso_request *request);
int Iso_neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint senddispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                Iso_request *request);
int Iso_neighbor_allgatherw_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const MPI_Aint recvdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm isocomm,
                                 Iso_request *request);
int Iso_start(Iso_request *request);
int Iso_wait(Iso_request *request);
int Iso_request_free(Iso_request *request);

/* Sparse reductions with a commutative op.  Iso_neighbor_reduce: every
 * process contributes the vector sendbuf (count x datatype) to each of its
 * targets; recvbuf receives the reduction of the vectors of the existing
 * sources (duplicated offsets count as often as they appear).
 * Iso_neighbor_scatter_reduce: the vector for the i-th target is block i
 * (sendcount[i] x sendtype[i] at sendbuf + senddisp[i] bytes, the same
 * type signature as count x datatype).  With no existing source, recvbuf
 * is left unchanged.  Partial results are combined at intermediate
 * processes where that saves messages (NHOOD_ISO_REDUCE, see docs/iso.md). */
int Iso_neighbor_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op commutative_op, MPI_Comm isocomm);
int Iso_neighbor_scatter_reduce(const void *sendbuf, const int sendcount[],
                                const MPI_Aint senddisp[], const MPI_Datatype sendtype[],
                                void *recvbuf, int count, MPI_Datatype datatype,
                                MPI_Op commutative_op, MPI_Comm isocomm);

/* A triangular layout (the paper's section 8): count blocks; block i
 * holds firstblock + i*blockincrement elements of oldtype and starts
 * i*(stride + strideincrement) extents of oldtype from the start (in a
 * row-major matrix: stride = row length, strideincrement = how far the
 * block's first column moves per row).  blockincrement, stride and
 * strideincrement may be negative; a negative block length is an error
 * (MPI_ERR_ARG).  The new type is committed; free it with MPI_Type_free. */
int Type_create_triangular(int count, int firstblock, int blockincrement, int stride,
                           int strideincrement, MPI_Datatype oldtype, MPI_Datatype *newtype);

#ifdef __cplusplus
}
#endif
#endif
