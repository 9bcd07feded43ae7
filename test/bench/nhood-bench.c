/* nhood-bench: native (PMPI_Neighbor_*) and nhood (MPI_Neighbor_*, which
 * nhood intercepts when preloaded) side by side in one run, on one
 * communicator and the same buffers, alternating call by call.
 *
 * Method (as in the isomorphic-collectives paper): barrier before each
 * measured call, the time of a call is the maximum over ranks, outliers
 * beyond 3 inter-quartile ranges are dropped (Tukey), the median remains.
 * CSV on stdout: op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio
 * where algorithm is what nhood ran (pmpi when not preloaded). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#include "../common.h"

typedef int (*coll_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

static void usage(void)
{
    fprintf(stderr,
            "usage: nhood-bench [--op alltoall|allgather] [--nbhd moore|vonneumann|octant]\n"
            "                   [--dims D] [--radius R] [--bytes 8,64,4096] [--reps N]\n"
            "                   [--no-header]\n");
}

int main(int argc, char **argv)
{
    const char *op = "alltoall", *nbhd = "moore";
    char bytes_list[256] = "8,64,4096";
    int d = 3, r = 1, reps = 1000, header = 1, rank, p, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-header") == 0) {
            header = 0;
            continue;
        }
        if (!v) {
            bad = 1;
            break;
        }
        i++;
        if (strcmp(a, "--op") == 0)
            op = v;
        else if (strcmp(a, "--nbhd") == 0)
            nbhd = v;
        else if (strcmp(a, "--dims") == 0)
            d = atoi(v);
        else if (strcmp(a, "--radius") == 0)
            r = atoi(v);
        else if (strcmp(a, "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(a, "--bytes") == 0)
            snprintf(bytes_list, sizeof(bytes_list), "%s", v);
        else
            bad = 1;
    }
    int alltoall = strcmp(op, "alltoall") == 0;
    if (bad || (!alltoall && strcmp(op, "allgather") != 0) || d < 1 || d > TC_MAXD || r < 1 ||
        reps < 4) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    int *off, s = tc_offsets(nbhd, d, r, &off);
    if (s < 0) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    int dims[TC_MAXD] = {0}, periods[TC_MAXD] = {1, 1, 1, 1, 1}, outdeg, indeg;
    MPI_Dims_create(p, d, dims);
    MPI_Comm graph;
    tc_graph(MPI_COMM_WORLD, d, dims, periods, s, off, MPI_INFO_NULL, 0, &graph, &outdeg, &indeg);

    coll_fn native = alltoall ? PMPI_Neighbor_alltoall : PMPI_Neighbor_allgather;
    coll_fn nhood = alltoall ? MPI_Neighbor_alltoall : MPI_Neighbor_allgather;
    int (*algo_for)(MPI_Comm, const char *, int, char *, int) =
        (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                 "nhood_algorithm_for");

    if (rank == 0 && header)
        printf("op,nbhd,dims,radius,procs,bytes,algorithm,native_us,nhood_us,ratio\n");
    double *tn = malloc(sizeof(double) * reps), *th = malloc(sizeof(double) * reps);
    double *mn = malloc(sizeof(double) * reps), *mh = malloc(sizeof(double) * reps);
    for (char *tok = strtok(bytes_list, ","); tok; tok = strtok(NULL, ",")) {
        int bytes = atoi(tok);
        size_t sblk = (size_t)bytes * (alltoall ? outdeg : 1), rblk = (size_t)bytes * indeg;
        char *sbuf = malloc(sblk + 1), *rbuf = malloc(rblk + 1);
        for (size_t i = 0; i < sblk; i++)
            sbuf[i] = (char)(rank + i);
        for (int w = 0; w < 10; w++) { /* warm-up, also builds nhood's schedules */
            native(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, graph);
            nhood(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, graph);
        }
        for (int k = 0; k < reps; k++) {
            MPI_Barrier(graph);
            double t0 = MPI_Wtime();
            native(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, graph);
            tn[k] = (MPI_Wtime() - t0) * 1e6;
            MPI_Barrier(graph);
            t0 = MPI_Wtime();
            nhood(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, graph);
            th[k] = (MPI_Wtime() - t0) * 1e6;
        }
        MPI_Reduce(tn, mn, reps, MPI_DOUBLE, MPI_MAX, 0, graph);
        MPI_Reduce(th, mh, reps, MPI_DOUBLE, MPI_MAX, 0, graph);
        char algo[32] = "pmpi";
        if (algo_for)
            algo_for(graph, op, bytes, algo, sizeof(algo));
        if (rank == 0) {
            double a = robust_median(mn, reps), b = robust_median(mh, reps);
            printf("%s,%s,%d,%d,%d,%d,%s,%.2f,%.2f,%.3f\n", op, nbhd, d, r, p, bytes, algo, a, b,
                   b / a);
            fflush(stdout);
        }
        free(sbuf);
        free(rbuf);
    }
    free(tn);
    free(th);
    free(mn);
    free(mh);
    free(off);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
