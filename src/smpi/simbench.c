/* nhood-simbench: driver of the simulated experiments (SMPI build only;
 * scripts/nhood-sim runs it).  Everything it reports is simulated time on
 * the SimGrid platform the run was given, never a measurement.
 *
 * Neighborhood operations (alltoall, allgather, alltoallv, alltoallw): one
 * distributed-graph communicator per algorithm, created with the info key
 * nhood_algorithm (none for auto), so every algorithm runs in the same
 * simulation.  native is PMPI_Neighbor_*: under SMPI that is MPICH's linear
 * algorithm as supplied by src/smpi/compat.c (SMPI has no distributed-graph
 * communicators of its own).  The first call of each size is checked byte
 * for byte against native.
 *
 * inplace_alltoallv: native is MPICH 4.0.2's in-place order (pairs (i, j),
 * i <= j, self-swap included) run here with MPI_Sendrecv_replace, as MPICH
 * runs it; the algorithms are nhood's lsa and hsa through MPI_Alltoallv
 * with MPI_IN_PLACE.  Counts are random and symmetric per pair (mean
 * bytes / 8 / p doubles), as in nhood-bench-inplace.
 *
 * spmv: the halo exchange of a row-parallel SpMV (MPI_Neighbor_alltoallv
 * of doubles, counts = words) on the communication graph of --matrix SPEC
 * (src/tools/matgen.h) partitioned with --part over the simulated ranks;
 * see run_spmv.
 *
 * Method: all ranks start a measured call at the same simulated instant
 * (sync_start), the time of a call is the maximum over ranks of its
 * completion, the median over the repetitions after Tukey's fences is
 * reported.  No rank sends anything after a call until the slowest rank's
 * call is over (sync_stop), so the call is measured alone.  nhood-bench
 * on a real machine starts calls after a barrier, whose exit skew
 * (several microseconds at hundreds of ranks) would enter every
 * measurement; the simulated clock is global, so here the start can be
 * exact.  With computation simulation off the simulator is
 * deterministic: few repetitions suffice, and native is measured once per
 * size (shared by all rows).
 *
 * CSV: op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,
 *      platform,rounds,max_msgs,max_volume
 * algorithm: the one forced, or auto:<chosen>; rounds: communication
 * rounds (phases) of that schedule; max_msgs, max_volume: messages and
 * bytes sent by the busiest rank in one call (native: one per neighbor).
 * Every result, native's too, is checked against what each rank computes
 * it must receive (expected, spmv_word); --no-native: native does not run
 * (native_us and ratio are 0). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/common.h"
#include "nhood.h"
#include "plan/stfw_setup.h"
#include "select/select.h"
#include "smpi/simbench.h"
#include "smpi/sync.h"

const char *const op_names[] = {"alltoall",  "allgather",         "alltoallv",
                                "alltoallw", "inplace_alltoallv", "spmv"};

int sb_rank, sb_p, sb_grank;

/* sync_stop's hold, shared by every measurement of the run: it grows to
 * twice the longest call seen, so at most one call per new maximum repeats. */
static double sb_hold = 1e-4;

double call_time(double t0)
{
    return sync_stop(t0, &sb_hold);
}

int differs_anywhere(const void *got, const void *ref, size_t n)
{
    int wrong = memcmp(got, ref, n) != 0, any;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

long max_long(long v)
{
    long m;
    MPI_Allreduce(&v, &m, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* If comm runs store-and-forward (chosen "stfw"): chosen becomes
 * "stfw:N", rounds its N stages and msgs the most messages a rank sends. */
void stfw_figures(MPI_Comm comm, char *chosen, size_t len, long *rounds, long *msgs)
{
    nh_plan *pl = nh_plan_get(comm);
    int sd = pl ? nh_stfw_predict(pl, NH_OP_ALLTOALL, -1) : 0;
    if (sd > 0 && strcmp(chosen, "stfw") == 0) {
        *rounds = sd;
        *msgs = pl->stfw->mmax[NH_OP_ALLTOALL];
        if (pl->stfw->v.agg) /* node aggregation */
            snprintf(chosen, len, "stfw:agg");
        else
            snprintf(chosen, len, "stfw:%d", sd);
    }
}

void algo_label(MPI_Comm comm, const char *asked, const char *op, int bytes, char *name, size_t len,
                long *rounds, long *msgs)
{
    char chosen[32] = "pmpi";
    nhood_algorithm_for(comm, op, bytes, chosen, sizeof(chosen));
    *rounds = 1;
    stfw_figures(comm, chosen, sizeof(chosen), rounds, msgs);
    if (strcmp(asked, "auto") == 0)
        snprintf(name, len, "auto:%s", chosen);
    else if (strcmp(asked, chosen) == 0)
        snprintf(name, len, "%s", chosen);
    else
        snprintf(name, len, "%s>%s", asked, chosen);
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: nhood-simbench --op alltoall|allgather|alltoallv|alltoallw|inplace_alltoallv|spmv\n"
        "         [--nbhd moore|vonneumann|octant|shales] [--dims D] [--radius R]\n"
        "         [--bytes 8,64] [--algos auto,direct,torus,torus_direct | auto,lsa,hsa]\n"
        "         [--reps N] [--warmup N] [--platform NAME] [--no-header] [--no-native]\n"
        "         [--place block|box:K]   (node boxes of K ranks on the grid)\n"
        "         [--mesh] [--box]   (no periodic dimension; alltoallv/w: box halos of edge\n"
        "                             n = each --bytes value, n^(D-k) doubles per block)\n"
        "         [--matrix SPEC] [--part rowblock|nnz|metis|file:PATH]   (spmv)\n"
        "         [--window-us US|native]   (spmv: nonblocking, US of compute before the wait)\n");
}

int main(int argc, char **argv)
{
    opts o = {.op = OP_ALLTOALL,
              .nbhd = "moore",
              .platform = "-",
              .d = 3,
              .r = 1,
              .reps = 3,
              .warmup = 1,
              .header = 1,
              .matrix = "powerlaw:100000:8:2.2:2",
              .part = "rowblock",
              .window = -1};
    int bad = 0, op_given = 0;
    const char *algos = NULL;
    snprintf(o.bytes, sizeof(o.bytes), "8");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &sb_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sb_p);
    sb_grank = sb_rank;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            o.header = 0;
            continue;
        }
        if (strcmp(a, "--box") == 0 || strcmp(a, "--mesh") == 0) {
            *(a[2] == 'b' ? &o.box : &o.mesh) = 1;
            continue;
        }
        if (strcmp(a, "--no-native") == 0) { /* native not run */
            o.no_native = 1;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        i++;
        if (strcmp(a, "--op") == 0) {
            o.op = -1;
            for (int k = 0; k < 6; k++)
                if (strcmp(v, op_names[k]) == 0)
                    o.op = k;
            bad |= o.op < 0;
            op_given = 1;
        } else if (strcmp(a, "--nbhd") == 0)
            o.nbhd = v;
        else if (strcmp(a, "--dims") == 0)
            o.d = atoi(v);
        else if (strcmp(a, "--radius") == 0)
            o.r = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            o.reps = atoi(v);
        else if (strcmp(a, "--warmup") == 0)
            o.warmup = atoi(v);
        else if (strcmp(a, "--platform") == 0)
            o.platform = v;
        else if (strcmp(a, "--bytes") == 0)
            snprintf(o.bytes, sizeof(o.bytes), "%s", v);
        else if (strcmp(a, "--algos") == 0)
            algos = v;
        else if (strcmp(a, "--matrix") == 0)
            o.matrix = v;
        else if (strcmp(a, "--part") == 0)
            o.part = v;
        else if (strcmp(a, "--place") == 0) {
            o.place = strncmp(v, "box:", 4) == 0 ? atoi(v + 4) : strcmp(v, "block") == 0 ? 0 : -1;
            bad |= o.place < 0 || (o.place == 0 && strcmp(v, "block") != 0);
        } else if (strcmp(a, "--window-us") == 0) {
            o.window = strcmp(v, "native") == 0 ? -2 : atof(v);
            bad |= o.window < 0 && strcmp(v, "native") != 0;
        } else
            bad = 1;
    }
    int *off;
    bad |= o.window != -1 && (o.op != OP_SPMV || (o.window == -2 && o.no_native));
    bad |= o.box && o.op != OP_ALLTOALLV && o.op != OP_ALLTOALLW;
    bad |= o.place > 0 && (o.op >= OP_INPLACE || sb_p % o.place != 0);
    if (bad || !op_given || o.reps < 1 || o.warmup < 0 || o.d < 1 || o.d > TC_MAXD || o.r < 1 ||
        (o.op < OP_INPLACE && tc_offsets(o.nbhd, o.d, o.r, &off) < 0)) {
        if (sb_rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    if (o.op < OP_INPLACE)
        free(off);
    snprintf(o.algos, sizeof(o.algos), "%s",
             algos                ? algos
             : o.op == OP_INPLACE ? "auto,lsa,hsa"
             : o.op == OP_SPMV    ? "auto"
                                  : "auto,direct,torus,torus_direct");
    if (sb_rank == 0 && o.header && o.window != -1)
        printf("op,nbhd,window_us,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,"
               "max_msgs,max_volume,native_blocking_us\n");
    else if (sb_rank == 0 && o.header)
        printf("op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio,platform,rounds,"
               "max_msgs,max_volume\n");
    bad = o.op == OP_INPLACE ? run_inplace(&o) : o.op == OP_SPMV ? run_spmv(&o) : run_neighbor(&o);
    MPI_Finalize();
    return bad ? 1 : 0;
}
