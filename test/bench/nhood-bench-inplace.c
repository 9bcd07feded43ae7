/* nhood-bench-inplace: MPICH's in-place all-to-all (PMPI_Alltoall[v|w]
 * with MPI_IN_PLACE, called directly) and nhood's (MPI_*, intercepted when
 * preloaded) side by side in one run, alternating call by call on the same
 * communicator, with the same input restored before every call.  Barrier
 * before each call, maximum over ranks, Tukey outlier removal (3 IQR),
 * median.  alltoallv uses random symmetric counts around the mean.
 * CSV: op,procs,bytes_per_rank,algorithm,native_us,nhood_us,ratio */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libmpi.h"
#include "stats.h"

/* Symmetric count for the pair (i, j): mean +- 50 %. */
static int pair_count(int i, int j, int mean)
{
    unsigned a = (unsigned)(i < j ? i : j), b = (unsigned)(i < j ? j : i);
    unsigned h = (a * 2654435761u) ^ (b * 40503u);
    h ^= h >> 13;
    return mean / 2 + (int)(h % (unsigned)(mean + 1));
}

int main(int argc, char **argv)
{
    const char *op = "alltoallv";
    char bytes_list[256] = "1024,65536,1048576";
    int reps = 200, header = 1, rank, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-header") == 0)
            header = 0;
        else if (i + 1 < argc && strcmp(argv[i], "--op") == 0)
            op = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--bytes") == 0)
            snprintf(bytes_list, sizeof(bytes_list), "%s", argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--reps") == 0)
            reps = atoi(argv[++i]);
        else
            bad = 1;
    }
    int kind = strcmp(op, "alltoall") == 0    ? 0
               : strcmp(op, "alltoallv") == 0 ? 1
               : strcmp(op, "alltoallw") == 0 ? 2
                                              : -1;
    if (bad || kind < 0 || reps < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: nhood-bench-inplace [--op alltoall|alltoallv|alltoallw] "
                            "[--bytes 1024,65536] [--reps N] [--no-header]\n");
        MPI_Finalize();
        return 2;
    }
    const char *algo = getenv("NHOOD_INPLACE_ALGO");
    if (!algo || !*algo || strcmp(algo, "auto") == 0)
        algo = "hsa";
    if (rank == 0 && header)
        printf("op,procs,bytes_per_rank,algorithm,native_us,nhood_us,ratio\n");
    double *tn = malloc(sizeof(double) * reps), *th = malloc(sizeof(double) * reps);
    double *mn = malloc(sizeof(double) * reps), *mh = malloc(sizeof(double) * reps);
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * p);
    /* strtok_r: under SMPI all simulated ranks share libc's strtok state. */
    char *save = NULL;
    for (char *tok = strtok_r(bytes_list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int bytes = atoi(tok), mean = bytes / 8 / p, total = 0;
        if (mean < 1)
            mean = 1;
        for (int j = 0; j < p; j++) {
            counts[j] = kind == 1 ? pair_count(rank, j, mean) : mean;
            displs[j] = kind == 2 ? total * 8 : total;
            types[j] = MPI_DOUBLE;
            total += counts[j];
        }
        double *orig = malloc(sizeof(double) * total + 8),
               *buf = malloc(sizeof(double) * total + 8);
        for (int i = 0; i < total; i++)
            orig[i] = rank * 1e6 + i;
        for (int k = -5; k < reps; k++) { /* five warm-up rounds */
            double t0;
            for (int which = 0; which < 2; which++) {
                memcpy(buf, orig, sizeof(double) * total);
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                if (kind == 0)
                    (which ? MPI_Alltoall : PMPI_Alltoall)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                                                           mean, MPI_DOUBLE, MPI_COMM_WORLD);
                else if (kind == 1)
                    (which ? MPI_Alltoallv : PMPI_Alltoallv)(MPI_IN_PLACE, NULL, NULL,
                                                             MPI_DATATYPE_NULL, buf, counts, displs,
                                                             MPI_DOUBLE, MPI_COMM_WORLD);
                else
                    (which ? MPI_Alltoallw : PMPI_Alltoallw)(MPI_IN_PLACE, NULL, NULL, NULL, buf,
                                                             counts, displs, types, MPI_COMM_WORLD);
                double t = (MPI_Wtime() - t0) * 1e6;
                if (k >= 0)
                    (which ? th : tn)[k] = t;
            }
        }
        MPI_Reduce(tn, mn, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(th, mh, reps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        int all_bytes = total * 8, max_bytes;
        MPI_Reduce(&all_bytes, &max_bytes, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double a = robust_median(mn, reps), b = robust_median(mh, reps);
            printf("%s,%d,%d,%s,%.2f,%.2f,%.3f\n", op, p, bytes, algo, a, b, b / a);
            fflush(stdout);
        }
        free(orig);
        free(buf);
    }
    free(tn);
    free(th);
    free(mn);
    free(mh);
    free(counts);
    free(displs);
    free(types);
    MPI_Finalize();
    return 0;
}
