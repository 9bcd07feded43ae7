/* nhood-simbench: the SpMV halo exchange in its nonblocking form, as the
 * applications that call neighborhood collectives run it (start, compute,
 * wait): MPI_Ineighbor_alltoallv, a simulated computation of the window,
 * MPI_Wait.  The time of a call is from its synchronized start to the end
 * of the wait, the computation included; the ratio compares it with MPI's
 * own exchange run the same way.
 *
 * auto prices the window it measured on the calls made before a graph was
 * created (util/window.h): a first phase here runs the exchange PROBE
 * times on a ring (a cheap graph: what is measured is the program's time
 * between start and wait, not the exchange) with the same computation,
 * then the timed graphs are created.  SMPI has no progress backend; the
 * runs use NHOOD_PROGRESS=poll, whose promise the loop keeps (its only
 * MPI calls between start and completion are the wait). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../test/bench/stats.h"
#include "nhood.h"
#include "sync.h"
#include "smpi/simbench.h"

#define PROBE 8 /* first-phase calls, more than the window's minimum */

/* The computation: a simulated sleep (SMPI's clock). */
static void compute(double us)
{
    if (us <= 0)
        return;
    struct timespec ts = {(time_t)(us / 1e6),
                          (long)((us - 1e6 * (double)(time_t)(us / 1e6)) * 1e3)};
    nanosleep(&ts, NULL);
}

/* The first phase: PROBE nonblocking exchanges on a ring, each with us of
 * computation between start and wait, through nhood (which measures the
 * window and passes the calls to MPI). */
static void first_phase(double us)
{
    int src = (sb_rank + sb_p - 1) % sb_p, dst = (sb_rank + 1) % sb_p;
    double s = sb_rank, r = -1;
    MPI_Comm ring;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "nhood_algorithm", "pmpi");
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                   info, 0, &ring);
    MPI_Info_free(&info);
    for (int k = 0; k < PROBE; k++) {
        MPI_Request req;
        MPI_Ineighbor_alltoall(&s, 1, MPI_DOUBLE, &r, 1, MPI_DOUBLE, ring, &req);
        compute(us);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&ring);
}

/* o->warmup untimed and o->reps timed calls on g (native: MPI's own
 * exchange); the robust median, *bad set where a result is wrong. */
static double timed(const opts *o, const spmv_ex *x, MPI_Comm g, int native, double us, double *t,
                    int *bad, const char *what)
{
    for (int k = -o->warmup; k < o->reps; k++) {
        memset(x->rbuf, 0x5a, sizeof(double) * ((size_t)x->nrecv + 1));
        double t0 = sync_start(g);
        MPI_Request req;
        if (native)
            PMPI_Ineighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_DOUBLE, x->rbuf,
                                     x->rcounts, x->rdispls, MPI_DOUBLE, g, &req);
        else
            MPI_Ineighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_DOUBLE, x->rbuf,
                                    x->rcounts, x->rdispls, MPI_DOUBLE, g, &req);
        compute(us);
        if (native)
            PMPI_Wait(&req, MPI_STATUS_IGNORE);
        else
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        double dt = call_time(t0);
        if (dt < 0) {
            k--; /* disturbed: again */
            continue;
        }
        if (k >= 0)
            t[k] = dt;
        int anywrong = differs_anywhere(x->rbuf, x->ref, sizeof(double) * (size_t)x->nrecv);
        *bad |= anywrong;
        if (anywrong && sb_rank == 0)
            fprintf(stderr, "nhood-simbench: ispmv %s: result differs from the expected\n", what);
    }
    return robust_median(t, o->reps);
}

int run_ispmv(const opts *o, const spmv_ex *x, double native_blocking)
{
    int bad = 0, nalgo = 0;
    double us = o->window == -2 ? native_blocking : o->window;
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    char *algos[16], *save = NULL, alist[256];
    MPI_Comm g[16];
    if (sb_rank == 0)
        fprintf(stderr, "# nonblocking: %.3f us of computation between start and wait\n", us);
    first_phase(us);
    snprintf(alist, sizeof(alist), "%s", o->algos);
    for (char *a = strtok_r(alist, ",", &save); a && nalgo < 16; a = strtok_r(NULL, ",", &save))
        algos[nalgo++] = a;
    for (int a = 0; a < nalgo; a++) {
        MPI_Info info = MPI_INFO_NULL;
        if (strcmp(algos[a], "auto") != 0) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "nhood_algorithm", algos[a]);
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, x->indeg, x->src, MPI_UNWEIGHTED, x->outdeg,
                                       x->dst, MPI_UNWEIGHTED, info, 0, &g[a]);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    double native = o->no_native ? 0 : timed(o, x, g[0], 1, us, t, &bad, "native");
    for (int a = 0; a < nalgo; a++) {
        double mine = timed(o, x, g[a], 0, us, t, &bad, algos[a]);
        char name[48];
        long rounds, msgs = (long)x->mmax;
        algo_label(g[a], algos[a], "ialltoallv", x->avgbytes, name, sizeof(name), &rounds, &msgs);
        if (sb_rank == 0) {
            printf("ispmv,%s,%.3f,%d,%d,%s,%.3f,%.3f,%.3f,%s,%ld,%ld,%.0f,%.3f\n", x->label, us,
                   sb_p, x->avgbytes, name, native, mine, native > 0 ? mine / native : 0,
                   o->platform, rounds, msgs, 8 * x->vmax, native_blocking);
            fflush(stdout);
        }
    }
    for (int a = 0; a < nalgo; a++)
        MPI_Comm_free(&g[a]);
    free(t);
    return bad;
}
