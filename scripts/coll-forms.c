/* What replacing blocking collectives by their nonblocking forms would
 * cost (docs/nonblocking.md, "Why not the alternatives"): per call, at
 * the MPI_Init_thread level given (0: MPI_THREAD_SINGLE, 1: MULTIPLE),
 * 8-byte MPI_Allreduce against MPI_Iallreduce + an MPI_Test loop,
 * MPI_Barrier against MPI_Ibarrier + MPI_Test, and an 8-byte
 * Irecv/Isend/Waitall exchange; the forms alternate within each of 15
 * repetitions of N calls, medians printed by rank 0 (microseconds).
 * Build and run: scripts/run-coll-forms.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4000
#define REP 15

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double med(double *v)
{
    qsort(v, REP, sizeof(double), cmp);
    return v[REP / 2];
}

int main(int argc, char **argv)
{
    int level = argc > 1 ? atoi(argv[1]) : 0, provided, rank, size;
    MPI_Init_thread(&argc, &argv, level ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double ar[REP], iar[REP], ba[REP], iba[REP], pp[REP], x = 1, y;
    for (int rep = 0; rep < REP; rep++) {
        double t = MPI_Wtime();
        for (int i = 0; i < N; i++)
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ar[rep] = (MPI_Wtime() - t) / N * 1e6;
        t = MPI_Wtime();
        for (int i = 0; i < N; i++) {
            MPI_Request q;
            int f = 0;
            MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
            while (!f)
                MPI_Test(&q, &f, MPI_STATUS_IGNORE);
        }
        iar[rep] = (MPI_Wtime() - t) / N * 1e6;
        t = MPI_Wtime();
        for (int i = 0; i < N; i++)
            MPI_Barrier(MPI_COMM_WORLD);
        ba[rep] = (MPI_Wtime() - t) / N * 1e6;
        t = MPI_Wtime();
        for (int i = 0; i < N; i++) {
            MPI_Request q;
            int f = 0;
            MPI_Ibarrier(MPI_COMM_WORLD, &q);
            while (!f)
                MPI_Test(&q, &f, MPI_STATUS_IGNORE);
        }
        iba[rep] = (MPI_Wtime() - t) / N * 1e6;
        t = MPI_Wtime();
        for (int i = 0; i < N; i++) {
            MPI_Request q[2];
            MPI_Status st[2];
            char b = 0, c;
            int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
            MPI_Irecv(&c, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &q[0]);
            MPI_Isend(&b, 1, MPI_CHAR, peer, 0, MPI_COMM_WORLD, &q[1]);
            MPI_Waitall(2, q, st);
        }
        pp[rep] = (MPI_Wtime() - t) / N * 1e6;
    }
    if (rank == 0)
        printf("%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f\n",
               provided == MPI_THREAD_MULTIPLE ? "multiple" : "single", size, med(ar), med(iar),
               med(ba), med(iba), med(pp));
    MPI_Finalize();
    return 0;
}
