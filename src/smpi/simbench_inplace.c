/* nhood-simbench: in-place alltoallv (see simbench.c). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/bench/stats.h"
#include "plan/stfw_setup.h"
#include "nhood.h"
#include "sync.h"
#include "smpi/simbench.h"

/* Symmetric count for the pair (i, j): mean +- 50 % (nhood-bench-inplace). */
static int pair_count(int i, int j, int mean)
{
    unsigned a = (unsigned)(i < j ? i : j), b = (unsigned)(i < j ? j : i);
    unsigned h = (a * 2654435761u) ^ (b * 40503u);
    h ^= h >> 13;
    return mean / 2 + (int)(h % (unsigned)(mean + 1));
}

/* MPICH 4.0.2's in-place MPI_Alltoallv, as it runs it. */
static int mpich_inplace(double *buf, const int *counts, const int *displs, MPI_Comm comm,
                         const int *partners, int n)
{
    int rc = MPI_SUCCESS;
    for (int k = 0; k < n && !rc; k++) {
        int j = partners[k];
        if (counts[j] > 0 && j != sb_rank)
            rc = MPI_Sendrecv_replace(buf + displs[j], counts[j], MPI_DOUBLE, j, 0, j, 0, comm,
                                      MPI_STATUS_IGNORE);
    }
    return rc;
}

static double time_inplace(int native, double *buf, const double *orig, int total, int *counts,
                           int *displs, MPI_Comm comm, const int *partners, int n, int reps)
{
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int k = 0; k < reps; k++) {
        memcpy(buf, orig, sizeof(double) * (size_t)total);
        double t0 = sync_start(comm);
        if (native)
            mpich_inplace(buf, counts, displs, comm, partners, n);
        else
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                          MPI_DOUBLE, comm);
        if ((t[k] = call_time(t0)) < 0)
            k--; /* disturbed: again */
    }
    double med = robust_median(t, reps);
    free(t);
    return med;
}

int run_inplace(const opts *o)
{
    int bad = 0, *counts = malloc(sizeof(int) * sb_p), *displs = malloc(sizeof(int) * sb_p);
    int *mpich = malloc(sizeof(int) * 2 * (size_t)sb_p + 1);
    int nmpich = nh_inplace_mpich(sb_p, sb_rank, mpich);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    char *save = NULL, alist[256];
    for (char *tok = strtok_r((char *)o->bytes, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int bytes = atoi(tok), mean = bytes / 8 / sb_p, total = 0;
        if (mean < 1)
            mean = 1;
        for (int j = 0; j < sb_p; j++) {
            counts[j] = pair_count(sb_rank, j, mean);
            displs[j] = total;
            total += counts[j];
        }
        double *orig = malloc(sizeof(double) * total + 8),
               *buf = malloc(sizeof(double) * total + 8), *ref = malloc(sizeof(double) * total + 8);
        for (int i = 0; i < total; i++)
            orig[i] = sb_rank * 1e6 + i;
        memcpy(ref, orig, sizeof(double) * (size_t)total);
        mpich_inplace(ref, counts, displs, comm, mpich, nmpich);
        double native =
            time_inplace(1, buf, orig, total, counts, displs, comm, mpich, nmpich, o->reps);
        long sent = 0;
        for (int j = 0; j < sb_p; j++)
            sent += j == sb_rank ? 0 : counts[j] * 8L;
        long vol = max_long(sent);
        char *save2 = NULL;
        snprintf(alist, sizeof(alist), "%s", o->algos);
        for (char *a = strtok_r(alist, ",", &save2); a; a = strtok_r(NULL, ",", &save2)) {
            nh_inplace_algo al = strcmp(a, "lsa") == 0    ? NH_INPLACE_LSA
                                 : strcmp(a, "auto") == 0 ? NH_INPLACE_AUTO
                                                          : NH_INPLACE_HSA;
            /* Per measurement, what NHOOD_INPLACE_ALGO sets for a whole run. */
            nh_cfg.inplace = al;
            memcpy(buf, orig, sizeof(double) * (size_t)total);
            MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs,
                          MPI_DOUBLE, comm);
            int anywrong = differs_anywhere(buf, ref, sizeof(double) * (size_t)total);
            bad |= anywrong;
            int is_auto = al == NH_INPLACE_AUTO;
            if (is_auto) { /* decided by the call above */
                char chosen[32] = "";
                if (nhood_algorithm_for(comm, "inplace_alltoallv", 0, chosen, sizeof(chosen)))
                    bad = 1;
                al = strcmp(chosen, "lsa") == 0 ? NH_INPLACE_LSA : NH_INPLACE_HSA;
            }
            double us = time_inplace(0, buf, orig, total, counts, displs, comm, NULL, 0, o->reps);
            if (sb_rank == 0) {
                printf("%s,-,0,0,%d,%d,%s%s,%.3f,%.3f,%.3f,%s,%d,%d,%ld\n", op_names[o->op], sb_p,
                       bytes, is_auto ? "auto:" : "", nh_inplace_names[al], native, us, us / native,
                       o->platform, nh_inplace_steps(al, sb_p), sb_p - 1, vol);
                fflush(stdout);
                if (anywrong)
                    fprintf(stderr, "nhood-simbench: in-place %s %d B differs from MPICH's order\n",
                            a, bytes);
            }
        }
        free(orig);
        free(buf);
        free(ref);
    }
    MPI_Comm_free(&comm);
    free(counts);
    free(displs);
    free(mpich);
    return bad;
}
