/* Shared by the nhood-simbench files (SMPI build only): options, results
 * and the collective helpers every experiment uses (simbench.c). */
#ifndef NH_SIMBENCH_H
#define NH_SIMBENCH_H

#include <mpi.h>
#include <stddef.h>

enum { OP_ALLTOALL, OP_ALLGATHER, OP_ALLTOALLV, OP_ALLTOALLW, OP_INPLACE, OP_SPMV };

extern const char *const op_names[]; /* by the enum above */
extern int sb_rank, sb_p;            /* this rank, number of ranks (MPI_COMM_WORLD) */
extern int sb_grank;                 /* this rank on the grid (run_neighbor; sb_rank elsewhere) */

typedef struct opts {
    int op;
    const char *nbhd, *platform, *matrix, *part;
    int d, r, reps, warmup, header, no_native;
    /* alltoallv/alltoallw: box-stencil halos (the bytes list gives the
     * edge n: a block holds n^(D - k) doubles in a direction with k nonzero
     * coordinates); mesh: no periodic dimension */
    int box, mesh;
    /* neighborhood ops: 0 block placement (the grid's ranks in the job's
     * order); K > 0 node boxes: each run of K ranks of the job (a node, at
     * K ranks per node) holds a compact sub-box of the grid, as a
     * reorder=1 layout fitted to the nodes would place them */
    int place;
    char bytes[256], algos[256];
    /* spmv: nonblocking exchange with this compute window (us) between
     * start and wait; -1 blocking, -2 as long as native's blocking call */
    double window;
} opts;

typedef struct result {
    double us;
    long rounds, msgs, volume;
} result;

/* The time of a call measured from t0 = sync_start(): the maximum over
 * ranks, in us, each rank first holding quiet past the slowest's end
 * (sync_stop); -1: the call may have been disturbed, repeat it.
 * Collective. */
double call_time(double t0);
/* Does got differ from ref (n bytes) on any rank?  Collective. */
int differs_anywhere(const void *got, const void *ref, size_t n);
/* Maximum over ranks of v.  Collective. */
long max_long(long v);

/* If comm runs store-and-forward (chosen "stfw"): chosen becomes
 * "stfw:N", rounds its N stages and msgs the most messages a rank sends. */
void stfw_figures(MPI_Comm comm, char *chosen, size_t len, long *rounds, long *msgs);
/* The CSV's algorithm column for asked (auto, or the one forced) on comm:
 * auto:CHOSEN, CHOSEN, or ASKED>CHOSEN where nhood ran another; op and
 * bytes as nhood_algorithm_for; rounds and msgs as stfw_figures (msgs
 * starts at the graph's own figure). */
void algo_label(MPI_Comm comm, const char *asked, const char *op, int bytes, char *name, size_t len,
                long *rounds, long *msgs);

/* The experiments: 0 when every result was right (simbench_neighbor.c,
 * simbench_inplace.c, simbench_spmv.c). */
int run_neighbor(const opts *o);
int run_inplace(const opts *o);
int run_spmv(const opts *o);

/* The SpMV exchange as run_spmv set it up, for its nonblocking form
 * (simbench_ispmv.c). */
typedef struct spmv_ex {
    int indeg, outdeg, nrecv, *src, *dst, *scounts, *sdispls, *rcounts, *rdispls;
    double *sbuf, *rbuf, *ref;
    const char *label;
    int avgbytes;
    double mmax, vmax; /* the graph's most messages and bytes/8 of a rank */
} spmv_ex;
/* Start, compute (a simulated sleep of the window), wait: native and each
 * algorithm of o->algos, nhood's graphs created after calls that measured
 * the window.  native: MPI's blocking call (us, 0 if not run). */
int run_ispmv(const opts *o, const spmv_ex *x, double native);

#endif
