/* nhood-simbench: the SpMV halo exchange (see simbench.c). */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../test/bench/stats.h"
#include "nhood.h"
#include "sync.h"
#include "tools/matgen.h"
#include "smpi/simbench.h"

/* ---- SpMV halo exchange (store-and-forward paper, Tables 2 and 3) ---- */

/* The value of word w of the SpMV message from rank s to rank d. */
static double spmv_word(int s, int d, int w, int p)
{
    return ((double)s * p + d) * 1048576.0 + w;
}

/* MPI's own blocking exchange on comm, timed (the robust median of
 * o->reps calls after o->warmup) and checked; t: o->reps doubles. */
static double native_blocking(const opts *o, const spmv_ex *x, MPI_Comm comm, double *t, int *bad)
{
    for (int w = 0; w < o->warmup; w++)
        PMPI_Neighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_DOUBLE, x->rbuf, x->rcounts,
                                x->rdispls, MPI_DOUBLE, comm);
    for (int k = 0; k < o->reps; k++) {
        memset(x->rbuf, 0x5a, sizeof(double) * ((size_t)x->nrecv + 1));
        double t0 = sync_start(comm);
        PMPI_Neighbor_alltoallv(x->sbuf, x->scounts, x->sdispls, MPI_DOUBLE, x->rbuf, x->rcounts,
                                x->rdispls, MPI_DOUBLE, comm);
        if ((t[k] = call_time(t0)) < 0) {
            k--; /* disturbed: again */
            continue;
        }
        int anywrong = differs_anywhere(x->rbuf, x->ref, sizeof(double) * (size_t)x->nrecv);
        *bad |= anywrong;
        if (anywrong && sb_rank == 0)
            fprintf(stderr, "nhood-simbench: spmv native: result differs from the expected\n");
    }
    return robust_median(t, o->reps);
}

/* Rank 0 builds the matrix, partition and communication graph (one copy in
 * the simulator's memory, not one per simulated rank) and hands every rank
 * its sources, destinations and word counts.  The exchange is
 * MPI_Neighbor_alltoallv of doubles with counts = words, as nhood-spmv does
 * it; native is PMPI_Neighbor_alltoallv (MPICH's linear algorithm from
 * compat.c).  The bytes column is the average message size, max_msgs and
 * max_volume are those of the communication graph (mmax and the busiest
 * rank's bytes). */
int run_spmv(const opts *o)
{
    int err_flag = 0, bad = 0;
    char err[512] = "";
    nh_csr m;
    nh_cgraph cg = {0};
    nh_cgraph_stats st = {0};
    int *sc = NULL, *sd = NULL, *packed = NULL;
    int deg[2] = {0, 0}, *degs = NULL;
    if (sb_rank == 0) {
        int *owner = NULL;
        if (nh_matgen(o->matrix, &m, err, sizeof(err))) {
            err_flag = 1;
        } else {
            owner = malloc(((size_t)m.nrows + 1) * sizeof(int));
            if (!owner || nh_partition(&m, sb_p, o->part, owner, err, sizeof(err)))
                err_flag = 1;
            else if (nh_comm_graph(&m, sb_p, owner, &cg)) {
                snprintf(err, sizeof(err), "no communication graph (the matrix must be square)");
                err_flag = 1;
            }
            nh_csr_free(&m);
        }
        free(owner);
        if (err_flag)
            fprintf(stderr, "nhood-simbench: %s\n", err);
    }
    MPI_Bcast(&err_flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (err_flag)
        return 2;
    if (sb_rank == 0) {
        nh_cgraph_stats_of(&cg, &st);
        degs = malloc(sizeof(int) * 2 * (size_t)sb_p);
        sc = malloc(sizeof(int) * (size_t)sb_p);
        sd = malloc(sizeof(int) * (size_t)sb_p);
        long tot = 0;
        for (int r = 0; r < sb_p; r++) {
            degs[2 * r] = cg.indeg[r];
            degs[2 * r + 1] = cg.outdeg[r];
            sc[r] = 2 * (cg.indeg[r] + cg.outdeg[r]);
            sd[r] = (int)tot;
            tot += sc[r];
        }
        packed = malloc(sizeof(int) * ((size_t)tot + 1));
        for (int r = 0; r < sb_p; r++) {
            int *q = packed + sd[r];
            for (int k = 0; k < cg.indeg[r]; k++) {
                *q++ = cg.src[r][k];
                *q++ = (int)cg.inwords[r][k];
            }
            for (int k = 0; k < cg.outdeg[r]; k++) {
                *q++ = cg.dst[r][k];
                *q++ = (int)cg.words[r][k];
            }
        }
        nh_cgraph_free(&cg);
    }
    double stv[4] = {st.mmax, st.mavg, (double)st.vmax, st.vavg};
    MPI_Bcast(stv, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatter(degs, 2, MPI_INT, deg, 2, MPI_INT, 0, MPI_COMM_WORLD);
    int indeg = deg[0], outdeg = deg[1];
    int *mine = malloc(sizeof(int) * (2 * (size_t)(indeg + outdeg) + 1));
    MPI_Scatterv(packed, sc, sd, MPI_INT, mine, 2 * (indeg + outdeg), MPI_INT, 0, MPI_COMM_WORLD);
    free(degs);
    free(sc);
    free(sd);
    free(packed);
    int *src = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *dst = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int *rcounts = malloc(sizeof(int) * ((size_t)indeg + 1)),
        *rdispls = malloc(sizeof(int) * ((size_t)indeg + 1));
    int *scounts = malloc(sizeof(int) * ((size_t)outdeg + 1)),
        *sdispls = malloc(sizeof(int) * ((size_t)outdeg + 1));
    int nrecv = 0, nsend = 0;
    for (int k = 0; k < indeg; k++) {
        src[k] = mine[2 * k];
        rcounts[k] = mine[2 * k + 1];
        rdispls[k] = nrecv;
        nrecv += rcounts[k];
    }
    for (int k = 0; k < outdeg; k++) {
        dst[k] = mine[2 * (indeg + k)];
        scounts[k] = mine[2 * (indeg + k) + 1];
        sdispls[k] = nsend;
        nsend += scounts[k];
    }
    free(mine);
    /* Word w of the message s -> d carries spmv_word(s, d, w), so every
     * rank knows what it must receive without a reference exchange: the
     * graph has one message per pair (matgen.c), and the values are exact
     * and distinct for up to 2^16 ranks and 2^20 words per message. */
    double *sbuf = malloc(sizeof(double) * ((size_t)nsend + 1)),
           *rbuf = malloc(sizeof(double) * ((size_t)nrecv + 1)),
           *ref = malloc(sizeof(double) * ((size_t)nrecv + 1));
    for (int k = 0; k < outdeg; k++)
        for (int w = 0; w < scounts[k]; w++)
            sbuf[sdispls[k] + w] = spmv_word(sb_rank, dst[k], w, sb_p);
    for (int k = 0; k < indeg; k++)
        for (int w = 0; w < rcounts[k]; w++)
            ref[rdispls[k] + w] = spmv_word(src[k], sb_rank, w, sb_p);

    /* The label: the spec without a file's directory, no commas. */
    char label[256];
    const char *slash = strrchr(o->matrix, '/');
    if (slash)
        snprintf(label, sizeof(label), "%.*s%s", (int)(strchr(o->matrix, ':') - o->matrix + 1),
                 o->matrix, slash + 1);
    else
        snprintf(label, sizeof(label), "%s", o->matrix);
    for (char *c = label; *c; c++)
        if (*c == ',')
            *c = ';';
    int avgbytes = stv[1] > 0 ? (int)(8.0 * stv[3] / stv[1] + 0.5) : 0;
    if (sb_rank == 0)
        fprintf(stderr,
                "# matrix %s, %s partition: mmax %.0f, mavg %.1f messages; vmax %.0f, vavg %.0f "
                "bytes per sb_rank\n",
                label, o->part, stv[0], stv[1], 8 * stv[2], 8 * stv[3]);

    spmv_ex x = {indeg,   outdeg, nrecv, src, dst,   scounts,  sdispls, rcounts,
                 rdispls, sbuf,   rbuf,  ref, label, avgbytes, stv[0],  stv[2]};
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    double native = 0;
    if (o->window != -1) { /* nonblocking, on graphs made after a first phase */
        MPI_Comm gn;
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "nhood_algorithm", "pmpi");
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, src, MPI_UNWEIGHTED, outdeg, dst,
                                       MPI_UNWEIGHTED, info, 0, &gn);
        MPI_Info_free(&info);
        if (!o->no_native)
            native = native_blocking(o, &x, gn, t, &bad);
        MPI_Comm_free(&gn);
        bad |= run_ispmv(o, &x, native);
        goto out;
    }
    char *algos[16], *save = NULL, alist[256];
    int nalgo = 0;
    snprintf(alist, sizeof(alist), "%s", o->algos);
    for (char *a = strtok_r(alist, ",", &save); a && nalgo < 16; a = strtok_r(NULL, ",", &save))
        algos[nalgo++] = a;
    MPI_Comm *g = calloc((size_t)nalgo + 1, sizeof(MPI_Comm));
    for (int a = 0; a < nalgo; a++) {
        MPI_Info info = MPI_INFO_NULL;
        if (strcmp(algos[a], "auto") != 0) {
            /* stfw:N forces store-and-forward over an N-dimensional VPT */
            char *colon = strchr(algos[a], ':');
            MPI_Info_create(&info);
            if (colon && strncmp(algos[a], "stfw:", 5) == 0) {
                MPI_Info_set(info, "nhood_stfw_dims", colon + 1);
                MPI_Info_set(info, "nhood_algorithm", "stfw");
            } else {
                MPI_Info_set(info, "nhood_algorithm", algos[a]);
            }
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, indeg, src, MPI_UNWEIGHTED, outdeg, dst,
                                       MPI_UNWEIGHTED, info, 0, &g[a]);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    /* native, on the first communicator, checked like the others; with
     * --no-native not called at all (at 4096 ranks its hundreds of
     * thousands of concurrent messages are most of the simulation) */
    if (!o->no_native)
        native = native_blocking(o, &x, g[0], t, &bad);
    for (int a = 0; a < nalgo; a++) {
        memset(rbuf, 0x5a, sizeof(double) * ((size_t)nrecv + 1));
        MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                               MPI_DOUBLE, g[a]);
        int anywrong = differs_anywhere(rbuf, ref, sizeof(double) * (size_t)nrecv);
        bad |= anywrong;
        for (int w = 1; w < o->warmup; w++)
            MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                   MPI_DOUBLE, g[a]);
        for (int k = 0; k < o->reps; k++) {
            double t0 = sync_start(g[a]);
            MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_DOUBLE, rbuf, rcounts, rdispls,
                                   MPI_DOUBLE, g[a]);
            if ((t[k] = call_time(t0)) < 0)
                k--; /* disturbed: again */
        }
        double us = robust_median(t, o->reps);
        /* Store-and-forward: its stages and the most messages a rank sends
         * (the graph's own figures otherwise). */
        char name[48];
        long rounds, msgs = (long)stv[0];
        algo_label(g[a], algos[a], "alltoallv", avgbytes, name, sizeof(name), &rounds, &msgs);
        if (sb_rank == 0) {
            printf("spmv,%s,0,0,%d,%d,%s,%.3f,%.3f,%.3f,%s,%ld,%ld,%.0f\n", label, sb_p, avgbytes,
                   name, native, us, native > 0 ? us / native : 0, o->platform, rounds, msgs,
                   8 * stv[2]);
            fflush(stdout);
            if (anywrong)
                fprintf(stderr, "nhood-simbench: spmv %s: result differs from the expected\n",
                        algos[a]);
        }
    }
    for (int a = 0; a < nalgo; a++)
        MPI_Comm_free(&g[a]);
    free(g);
out:
    free(t);
    free(sbuf);
    free(rbuf);
    free(ref);
    free(src);
    free(dst);
    free(rcounts);
    free(rdispls);
    free(scounts);
    free(sdispls);
    return bad;
}
