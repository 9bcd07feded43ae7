/* nhood-spmv: distributed y = A x with a latency-bound halo exchange,
 * native MPI and nhood side by side in one run.
 *
 * Every rank builds the same matrix (src/tools/matgen.h), partitions its
 * rows (x entries follow their rows), and reads its dist-graph arguments
 * off the communication graph: sources = the parts it receives x entries
 * from, destinations = the parts it sends to.  A repetition is a halo
 * exchange with MPI_Neighbor_alltoallv (the needed x entries packed per
 * destination, counts = words) followed by the local multiply.  Native runs
 * on a communicator from PMPI_Dist_graph_create_adjacent with
 * PMPI_Neighbor_alltoallv; nhood on one from MPI_Dist_graph_create_adjacent
 * with MPI_Neighbor_alltoallv (both intercepted when libnhood is preloaded).
 * Repetitions alternate native and nhood (which goes first alternates too);
 * each timing is the maximum over ranks, Tukey-filtered, median.  Before
 * timing, each scheme's y is checked bit for bit against rank 0's
 * sequential product (same summation order).
 *
 * CSV on stdout: matrix,procs,scheme,mmax,mavg,vavg,comm_us,spmv_us
 * mmax/mavg: messages sent per rank (max, average) in the communication
 * graph; vavg: average bytes sent per rank; comm_us: the exchange; spmv_us:
 * exchange plus multiply.  scheme: native, or nhood:ALGORITHM as
 * nhood_algorithm_for reports it (nhood:absent when not preloaded).
 *
 * --form nonblocking: the exchange is MPI_Ineighbor_alltoallv + MPI_Wait
 * (PMPI_* for native), as PETSc and DOLFINx post it; the scheme names
 * then end in "/nb". */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../libmpi.h"
#include "stats.h"
#include "tools/matgen.h"

typedef int (*dgc_fn)(MPI_Comm, int, const int[], const int[], int, const int[], const int[],
                      MPI_Info, int, MPI_Comm *);
typedef int (*a2av_fn)(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                       const int[], MPI_Datatype, MPI_Comm);

/* --form nonblocking: the exchange started and waited for at once. */
static int native_nb(const void *sbuf, const int sc[], const int sd[], MPI_Datatype st, void *rbuf,
                     const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    MPI_Request req;
    int err = PMPI_Ineighbor_alltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, &req);
    return err ? err : PMPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int nhood_nb(const void *sbuf, const int sc[], const int sd[], MPI_Datatype st, void *rbuf,
                    const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    MPI_Request req;
    int err = MPI_Ineighbor_alltoallv(sbuf, sc, sd, st, rbuf, rc, rd, rt, comm, &req);
    return err ? err : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* This rank's share of the product. */
typedef struct local {
    int nrows, nown, nin, nout;
    int *rows;    /* global row indices, ascending */
    long *rowptr; /* local CSR over xloc indices */
    int *col;
    double *val;
    double *xloc; /* owned x entries, then received ones */
    double *sendbuf, *y;
    int *sendidx; /* xloc index of each packed entry */
    int *scount, *sdispl, *rcount, *rdispl;
    int *src, *dst;
} local;

static double xval(int j)
{
    return 1.0 / (1.0 + (double)(j % 97)) - 0.25 * (j % 3);
}

static void usage(void)
{
    fprintf(
        stderr,
        "usage: nhood-spmv [--matrix SPEC] [--part rowblock|nnz|metis|file:PATH]\n"
        "                  [--reps N] [--name LABEL] [--form blocking|nonblocking] [--no-header]\n"
        "  SPEC: powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]] | rmat:SCALE:EDGEFACTOR[:SEED]\n"
        "        | mtx:PATH | edges:PATH   (default powerlaw:20000:8:2.2:2)\n");
}

/* Local structures of part `me`; returns 0 or -1 (out of memory). */
static int setup_local(const nh_csr *m, const int *owner, const nh_cgraph *g, int me, local *L)
{
    int rc = -1, n = m->nrows;
    long *io = NULL, *oo = NULL;
    int *rcols = NULL, *scols = NULL, *map = malloc((size_t)n * sizeof(int));
    memset(L, 0, sizeof(*L));
    if (!map || nh_halo_cols(m, owner, g, me, &io, &rcols, &oo, &scols))
        goto done;
    L->nin = g->indeg[me];
    L->nout = g->outdeg[me];
    for (int i = 0; i < n; i++)
        L->nrows += owner[i] == me;
    L->nown = L->nrows;
    long nrecv = io[L->nin], nsend = oo[L->nout];
    L->rows = malloc(((size_t)L->nrows + 1) * sizeof(int));
    L->rowptr = malloc(((size_t)L->nrows + 1) * sizeof(long));
    L->xloc = malloc(((size_t)L->nown + nrecv + 1) * sizeof(double));
    L->sendbuf = malloc(((size_t)nsend + 1) * sizeof(double));
    L->sendidx = malloc(((size_t)nsend + 1) * sizeof(int));
    L->y = malloc(((size_t)L->nrows + 1) * sizeof(double));
    L->scount = malloc(((size_t)L->nout + 1) * sizeof(int));
    L->sdispl = malloc(((size_t)L->nout + 1) * sizeof(int));
    L->rcount = malloc(((size_t)L->nin + 1) * sizeof(int));
    L->rdispl = malloc(((size_t)L->nin + 1) * sizeof(int));
    L->src = malloc(((size_t)L->nin + 1) * sizeof(int));
    L->dst = malloc(((size_t)L->nout + 1) * sizeof(int));
    if (!L->rows || !L->rowptr || !L->xloc || !L->sendbuf || !L->sendidx || !L->y || !L->scount ||
        !L->sdispl || !L->rcount || !L->rdispl || !L->src || !L->dst)
        goto done;
    /* xloc: owned entries by ascending global index, then the receive
     * buffer (received straight into place, source by source). */
    for (int i = 0; i < n; i++)
        map[i] = -1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (owner[i] == me) {
            L->rows[k] = i;
            map[i] = k++;
        }
    for (long r = 0; r < nrecv; r++)
        map[rcols[r]] = L->nown + (int)r;
    long nnz = 0;
    for (int r = 0; r < L->nrows; r++)
        nnz += m->rowptr[L->rows[r] + 1] - m->rowptr[L->rows[r]];
    L->col = malloc(((size_t)nnz + 1) * sizeof(int));
    L->val = malloc(((size_t)nnz + 1) * sizeof(double));
    if (!L->col || !L->val)
        goto done;
    long w = 0;
    for (int r = 0; r < L->nrows; r++) {
        L->rowptr[r] = w;
        int i = L->rows[r];
        for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++) {
            L->col[w] = map[m->col[e]];
            L->val[w] = m->val[e];
            if (L->col[w] < 0)
                goto done; /* a column neither owned nor received */
            w++;
        }
    }
    L->rowptr[L->nrows] = w;
    for (long s = 0; s < nsend; s++)
        L->sendidx[s] = map[scols[s]];
    for (int q = 0; q < L->nin; q++) {
        L->src[q] = g->src[me][q];
        L->rcount[q] = (int)(io[q + 1] - io[q]);
        L->rdispl[q] = (int)io[q];
    }
    for (int q = 0; q < L->nout; q++) {
        L->dst[q] = g->dst[me][q];
        L->scount[q] = (int)(oo[q + 1] - oo[q]);
        L->sdispl[q] = (int)oo[q];
    }
    for (int r = 0; r < L->nown; r++)
        L->xloc[r] = xval(L->rows[r]);
    rc = 0;
done:
    free(map);
    free(io);
    free(oo);
    free(rcols);
    free(scols);
    return rc;
}

static void free_local(local *L)
{
    free(L->rows);
    free(L->rowptr);
    free(L->col);
    free(L->val);
    free(L->xloc);
    free(L->sendbuf);
    free(L->sendidx);
    free(L->y);
    free(L->scount);
    free(L->sdispl);
    free(L->rcount);
    free(L->rdispl);
    free(L->src);
    free(L->dst);
}

/* One SpMV: pack, exchange, multiply.  Times in microseconds. */
static void spmv(local *L, a2av_fn a2av, MPI_Comm g, double *comm_us, double *total_us)
{
    double t0 = MPI_Wtime();
    long nsend = L->nout ? L->sdispl[L->nout - 1] + L->scount[L->nout - 1] : 0;
    for (long s = 0; s < nsend; s++)
        L->sendbuf[s] = L->xloc[L->sendidx[s]];
    a2av(L->sendbuf, L->scount, L->sdispl, MPI_DOUBLE, L->xloc + L->nown, L->rcount, L->rdispl,
         MPI_DOUBLE, g);
    double t1 = MPI_Wtime();
    for (int r = 0; r < L->nrows; r++) {
        double acc = 0.0;
        for (long e = L->rowptr[r]; e < L->rowptr[r + 1]; e++)
            acc += L->val[e] * L->xloc[L->col[e]];
        L->y[r] = acc;
    }
    double t2 = MPI_Wtime();
    *comm_us = (t1 - t0) * 1e6;
    *total_us = (t2 - t0) * 1e6;
}

/* y gathered on rank 0 and compared bit for bit with the sequential
 * product; returns the number of wrong entries (on every rank). */
static long verify(const nh_csr *m, const int *owner, local *L, a2av_fn a2av, MPI_Comm g, int rank,
                   int p)
{
    long nrecv = L->nin ? L->rdispl[L->nin - 1] + L->rcount[L->nin - 1] : 0;
    for (long r = 0; r < nrecv; r++)
        L->xloc[L->nown + r] = -1e300; /* poison: a missed entry shows */
    for (int r = 0; r < L->nrows; r++)
        L->y[r] = -1e300;
    double c, t;
    spmv(L, a2av, g, &c, &t);
    int *counts = NULL, *displs = NULL;
    double *all = NULL;
    long bad = 0;
    if (rank == 0) {
        counts = calloc((size_t)p, sizeof(int));
        displs = malloc((size_t)p * sizeof(int));
        all = malloc(((size_t)m->nrows + 1) * sizeof(double));
        for (int i = 0; i < m->nrows; i++)
            counts[owner[i]]++;
        for (int q = 0, d = 0; q < p; q++) {
            displs[q] = d;
            d += counts[q];
        }
    }
    MPI_Gatherv(L->y, L->nrows, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        /* Each part's rows arrive ascending: walk rows, advancing per part. */
        for (int i = 0; i < m->nrows; i++) {
            double ref = 0.0;
            for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
                ref += m->val[e] * xval(m->col[e]);
            double got = all[displs[owner[i]]++];
            if (memcmp(&ref, &got, sizeof(double)) != 0) {
                if (bad < 5)
                    fprintf(stderr, "nhood-spmv: y[%d] = %.17g, sequential %.17g\n", i, got, ref);
                bad++;
            }
        }
    }
    MPI_Bcast(&bad, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    free(counts);
    free(displs);
    free(all);
    return bad;
}

int main(int argc, char **argv)
{
    const char *spec = "powerlaw:20000:8:2.2:2", *how = "rowblock", *name = NULL;
    int reps = 100, header = 1, rank, p, bad = 0, rc = 0, nb = 0;
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
        if (strcmp(a, "--matrix") == 0)
            spec = v;
        else if (strcmp(a, "--part") == 0)
            how = v;
        else if (strcmp(a, "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(a, "--name") == 0)
            name = v;
        else if (strcmp(a, "--form") == 0) {
            nb = strcmp(v, "nonblocking") == 0;
            bad |= !nb && strcmp(v, "blocking") != 0;
        } else
            bad = 1;
    }
    if (bad || reps < 4) {
        if (rank == 0)
            usage();
        MPI_Finalize();
        return 2;
    }
    /* The label: the spec, with a file's directory dropped; no commas. */
    char label[256];
    const char *slash = strrchr(spec, '/');
    if (name)
        snprintf(label, sizeof(label), "%s", name);
    else if (slash && (!strncmp(spec, "mtx:", 4) || !strncmp(spec, "edges:", 6)))
        snprintf(label, sizeof(label), "%.*s%s", (int)(strchr(spec, ':') - spec + 1), spec,
                 slash + 1);
    else
        snprintf(label, sizeof(label), "%s", spec);
    for (char *c = label; *c; c++)
        if (*c == ',')
            *c = ';';

    /* Every rank builds the same matrix, partition and graph: the generator
     * is deterministic, so no rank has to distribute anything. */
    char err[512];
    nh_csr m;
    nh_cgraph g;
    int *owner = NULL;
    if (nh_matgen(spec, &m, err, sizeof(err))) {
        if (rank == 0)
            fprintf(stderr, "nhood-spmv: %s\n", err);
        MPI_Finalize();
        return 2;
    }
    owner = malloc(((size_t)m.nrows + 1) * sizeof(int));
    if (!owner || nh_partition(&m, p, how, owner, err, sizeof(err))) {
        if (rank == 0)
            fprintf(stderr, "nhood-spmv: %s\n", owner ? err : "out of memory");
        MPI_Finalize();
        return 2;
    }
    if (nh_comm_graph(&m, p, owner, &g)) {
        if (rank == 0)
            fprintf(stderr, "nhood-spmv: no communication graph (the matrix must be square)\n");
        MPI_Finalize();
        return 2;
    }
    local L;
    if (setup_local(&m, owner, &g, rank, &L)) {
        fprintf(stderr, "nhood-spmv: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    nh_cgraph_stats st;
    nh_cgraph_stats_of(&g, &st);

    MPI_Comm comm[2];
    dgc_fn create[2] = {PMPI_Dist_graph_create_adjacent, MPI_Dist_graph_create_adjacent};
    a2av_fn a2av[2] = {PMPI_Neighbor_alltoallv, MPI_Neighbor_alltoallv};
    if (nb) {
        a2av[0] = native_nb;
        a2av[1] = nhood_nb;
    }
    for (int k = 0; k < 2; k++)
        create[k](MPI_COMM_WORLD, L.nin, L.src, MPI_UNWEIGHTED, L.nout, L.dst, MPI_UNWEIGHTED,
                  MPI_INFO_NULL, 0, &comm[k]);

    int (*algo_for)(MPI_Comm, const char *, int, char *, int) =
        (int (*)(MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT,
                                                                 "nhood_algorithm_for");
    /* nhood:ALGORITHM when libnhood intercepts MPI_Neighbor_alltoallv;
     * nhood:pmpi when it is preloaded but passes the call through. */
    char scheme[2][48] = {"native", "nhood:absent"};
    const char *suffix = nb ? "/nb" : "";
    if (algo_for) {
        char algo[32] = "pmpi";
        Dl_info info;
        void *fn = dlsym(RTLD_DEFAULT, "MPI_Neighbor_alltoallv");
        if (fn && dladdr(fn, &info) && info.dli_fname && strstr(info.dli_fname, "libnhood")) {
            int avgbytes = st.mavg > 0 ? (int)(8.0 * st.vavg / st.mavg) : 0;
            algo_for(comm[1], nb ? "ialltoallv" : "alltoallv", avgbytes, algo, sizeof(algo));
        }
        snprintf(scheme[1], sizeof(scheme[1]), "nhood:%s%s", algo, suffix);
    }
    snprintf(scheme[0], sizeof(scheme[0]), "native%s", suffix);

    for (int k = 0; k < 2; k++) {
        long wrong = verify(&m, owner, &L, a2av[k], comm[k], rank, p);
        if (wrong) {
            if (rank == 0)
                fprintf(stderr,
                        "nhood-spmv: %s: %ld of %d entries of y differ from the "
                        "sequential product\n",
                        scheme[k], wrong, m.nrows);
            rc = 1;
        }
    }

    /* Per repetition: comm and total of native and nhood. */
    double *t = malloc(sizeof(double) * (size_t)reps * 4),
           *mx = malloc(sizeof(double) * (size_t)reps * 4);
    for (int w = 0; w < 5; w++)
        for (int k = 0; k < 2; k++) {
            double c, tt;
            spmv(&L, a2av[k], comm[k], &c, &tt);
        }
    for (int r = 0; r < reps; r++)
        for (int j = 0; j < 2; j++) {
            int k = (r + j) % 2;
            MPI_Barrier(MPI_COMM_WORLD);
            spmv(&L, a2av[k], comm[k], &t[(2 * k) * reps + r], &t[(2 * k + 1) * reps + r]);
        }
    MPI_Reduce(t, mx, reps * 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (header)
            printf("matrix,procs,scheme,mmax,mavg,vavg,comm_us,spmv_us\n");
        for (int k = 0; k < 2; k++)
            printf("%s,%d,%s,%d,%.1f,%.0f,%.2f,%.2f\n", label, p, scheme[k], st.mmax, st.mavg,
                   8.0 * st.vavg, robust_median(mx + (2 * k) * reps, reps),
                   robust_median(mx + (2 * k + 1) * reps, reps));
        fflush(stdout);
    }
    free(t);
    free(mx);
    PMPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    free_local(&L);
    nh_cgraph_free(&g);
    free(owner);
    nh_csr_free(&m);
    MPI_Finalize();
    return rc;
}
