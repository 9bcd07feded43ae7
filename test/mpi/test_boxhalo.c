/* MPI test, run preloaded: box-stencil halo exchanges as structured codes
 * write them.  A D-dimensional grid of MPI_COMM_WORLD (mesh: no periodic
 * dimension; torus; channel: periodic in the first dimension only), the
 * Moore neighborhood (3^D - 1 neighbors, fewer at walls), created with
 * MPI_Dist_graph_create_adjacent and no hint.  A block holds
 * n^(D - k) doubles for a direction with k nonzero coordinates (faces,
 * edges, corners), so sizes depend on the direction, not on the rank;
 * n changes from call to call, and "ragged" calls let the size depend on
 * the sender too (a legal call the isomorphic promise would not cover).
 * MPI_Neighbor_alltoallv and MPI_Neighbor_alltoallw (the w form with a
 * strided derived type on the send side), blocking, nonblocking
 * (MPI_Ineighbor_* + MPI_Wait) and persistent (MPI_Neighbor_*_init,
 * where the MPI library has it), each call against the standard's
 * point-to-point equivalent, bit for bit, on poisoned receive buffers.
 *
 * Usage: test_boxhalo [D [N [mesh|torus|channel]]]  (defaults 3 4 mesh)
 * Prints "N passed, N failed" on rank 0 (totals over ranks). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"

enum { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS };
static const char *const formnames[] = {"blocking", "nonblocking", "persistent"};
static int rank, p, d;
static MPI_Datatype strided; /* one double every other double */

typedef struct halo {
    MPI_Comm g;
    int indeg, outdeg;
    int *src, *dst;
    int *soff, *roff; /* nonzero coordinates of each list entry's direction */
} halo;

/* Nonzero coordinates of the offset from a to b on the grid (shortest
 * way round periodic dimensions, which tc_graph's offsets are). */
static int nonzero(const int *dims, int a, int b)
{
    int k = 0;
    for (int j = d - 1; j >= 0; j--) {
        k += a % dims[j] != b % dims[j];
        a /= dims[j];
        b /= dims[j];
    }
    return k;
}

static void halo_init(halo *h, const int *dims, const int *periods)
{
    int *off, s = tc_offsets("moore", d, 1, &off);
    tc_graph(MPI_COMM_WORLD, d, dims, periods, s, off, MPI_INFO_NULL, 0, &h->g, &h->outdeg,
             &h->indeg);
    free(off);
    h->src = malloc(sizeof(int) * (h->indeg + 1));
    h->dst = malloc(sizeof(int) * (h->outdeg + 1));
    h->roff = malloc(sizeof(int) * (h->indeg + 1));
    h->soff = malloc(sizeof(int) * (h->outdeg + 1));
    int *sw = malloc(sizeof(int) * (h->indeg + 1)), *dw = malloc(sizeof(int) * (h->outdeg + 1));
    MPI_Dist_graph_neighbors(h->g, h->indeg, h->src, sw, h->outdeg, h->dst, dw);
    for (int i = 0; i < h->indeg; i++)
        h->roff[i] = nonzero(dims, rank, h->src[i]);
    for (int i = 0; i < h->outdeg; i++)
        h->soff[i] = nonzero(dims, rank, h->dst[i]);
    free(sw);
    free(dw);
}

/* Doubles in the block a sender sends in a direction with k nonzero
 * coordinates, in a call with edge length n. */
static int block(int sender, int k, int n, int ragged)
{
    int e = n + (ragged ? sender % 3 : 0), c = 1;
    for (int j = 0; j < d - k; j++)
        c *= e;
    return c;
}

typedef struct call {
    int *sc, *sd, *rc, *rd;           /* v: counts and displacements in doubles */
    int *wsc;                         /* w: send counts in strided elements */
    MPI_Aint *wsd, *wrd;              /* w: displacements in bytes */
    MPI_Datatype *wst, *wrt;          /* w: types */
    double *sbuf, *rbuf, *ref, *wbuf; /* wbuf: the strided send buffer of the w form */
    int stotal, rtotal;
} call;

static void call_make(call *c, const halo *h, int n, int ragged, int seed)
{
    memset(c, 0, sizeof(*c));
    c->sc = malloc(sizeof(int) * (h->outdeg + 1));
    c->sd = malloc(sizeof(int) * (h->outdeg + 1));
    c->wsc = malloc(sizeof(int) * (h->outdeg + 1));
    c->wsd = malloc(sizeof(MPI_Aint) * (h->outdeg + 1));
    c->wst = malloc(sizeof(MPI_Datatype) * (h->outdeg + 1));
    c->rc = malloc(sizeof(int) * (h->indeg + 1));
    c->rd = malloc(sizeof(int) * (h->indeg + 1));
    c->wrd = malloc(sizeof(MPI_Aint) * (h->indeg + 1));
    c->wrt = malloc(sizeof(MPI_Datatype) * (h->indeg + 1));
    for (int i = 0; i < h->outdeg; i++) {
        c->sc[i] = c->wsc[i] = block(rank, h->soff[i], n, ragged);
        c->sd[i] = c->stotal + i; /* a gap of one double between blocks */
        c->wsd[i] = (MPI_Aint)c->sd[i] * 2 * sizeof(double);
        c->wst[i] = strided;
        c->stotal += c->sc[i];
    }
    c->stotal += h->outdeg;
    for (int i = 0; i < h->indeg; i++) {
        c->rc[i] = block(h->src[i], h->roff[i], n, ragged);
        c->rd[i] = c->rtotal + 2 * i;
        c->wrd[i] = (MPI_Aint)c->rd[i] * sizeof(double);
        c->wrt[i] = MPI_DOUBLE;
        c->rtotal += c->rc[i];
    }
    c->rtotal += 2 * h->indeg;
    c->sbuf = malloc(sizeof(double) * (c->stotal + 1));
    c->wbuf = malloc(sizeof(double) * (2 * c->stotal + 1));
    c->rbuf = malloc(sizeof(double) * (c->rtotal + 1));
    c->ref = malloc(sizeof(double) * (c->rtotal + 1));
    for (int x = 0; x < c->stotal; x++)
        c->sbuf[x] = c->wbuf[2 * x] = rank * 1000003.0 + x * 7.0 + seed;
    for (int x = 0; x < c->rtotal; x++)
        c->ref[x] = -1;
    /* the standard's equivalent: receives in source order, sends in
     * destination order, one tag */
    MPI_Request *req = malloc(sizeof(MPI_Request) * (h->indeg + h->outdeg + 1));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (h->indeg + h->outdeg + 1));
    for (int i = 0; i < h->indeg; i++)
        PMPI_Irecv(c->ref + c->rd[i], c->rc[i], MPI_DOUBLE, h->src[i], 0, h->g, &req[i]);
    for (int i = 0; i < h->outdeg; i++)
        PMPI_Isend(c->sbuf + c->sd[i], c->sc[i], MPI_DOUBLE, h->dst[i], 0, h->g,
                   &req[h->indeg + i]);
    PMPI_Waitall(h->indeg + h->outdeg, req, st);
    free(req);
    free(st);
}

static void call_free(call *c)
{
    free(c->sc), free(c->sd), free(c->wsc), free(c->wsd), free(c->wst);
    free(c->rc), free(c->rd), free(c->wrd), free(c->wrt);
    free(c->sbuf), free(c->wbuf), free(c->rbuf), free(c->ref);
}

/* One exchange of form f (w: the w form) through nhood; MPI's return code. */
static int exchange(const halo *h, call *c, int w, int f)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    for (int x = 0; x < c->rtotal; x++)
        c->rbuf[x] = -1;
    if (f == BLOCKING)
        return w ? MPI_Neighbor_alltoallw(c->wbuf, c->wsc, c->wsd, c->wst, c->rbuf, c->rc, c->wrd,
                                          c->wrt, h->g)
                 : MPI_Neighbor_alltoallv(c->sbuf, c->sc, c->sd, MPI_DOUBLE, c->rbuf, c->rc, c->rd,
                                          MPI_DOUBLE, h->g);
    if (f == NONBLOCKING)
        rc = w ? MPI_Ineighbor_alltoallw(c->wbuf, c->wsc, c->wsd, c->wst, c->rbuf, c->rc, c->wrd,
                                         c->wrt, h->g, &req)
               : MPI_Ineighbor_alltoallv(c->sbuf, c->sc, c->sd, MPI_DOUBLE, c->rbuf, c->rc, c->rd,
                                         MPI_DOUBLE, h->g, &req);
    else {
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        rc = w ? MPI_Neighbor_alltoallw_init(c->wbuf, c->wsc, c->wsd, c->wst, c->rbuf, c->rc,
                                             c->wrd, c->wrt, h->g, MPI_INFO_NULL, &req)
               : MPI_Neighbor_alltoallv_init(c->sbuf, c->sc, c->sd, MPI_DOUBLE, c->rbuf, c->rc,
                                             c->rd, MPI_DOUBLE, h->g, MPI_INFO_NULL, &req);
        /* started twice: the second start sends the same data again */
        for (int k = 0; !rc && k < 2; k++)
            if (!(rc = MPI_Start(&req)))
                rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (req != MPI_REQUEST_NULL)
            MPI_Request_free(&req);
        return rc;
#else
        return MPI_SUCCESS;
#endif
    }
    return rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    d = argc > 1 ? atoi(argv[1]) : 3;
    int n0 = argc > 2 ? atoi(argv[2]) : 4;
    const char *kind = argc > 3 ? argv[3] : "mesh";
    if (d < 1 || d > 3 || n0 < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: test_boxhalo [D (1-3) [N [mesh|torus|channel]]]\n");
        MPI_Finalize();
        return 2;
    }
    int dims[TC_MAXD] = {0}, periods[TC_MAXD] = {0};
    MPI_Dims_create(p, d, dims);
    for (int j = 0; j < d; j++)
        periods[j] = strcmp(kind, "torus") == 0 || (strcmp(kind, "channel") == 0 && j == 0);
    MPI_Type_vector(1, 1, 2, MPI_DOUBLE, &strided);
    MPI_Datatype t;
    MPI_Type_create_resized(strided, 0, 2 * sizeof(double), &t);
    MPI_Type_free(&strided);
    strided = t;
    MPI_Type_commit(&strided);
    halo h;
    halo_init(&h, dims, periods);
    MPI_Comm_set_errhandler(h.g, MPI_ERRORS_RETURN);
    int nforms = 2;
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
    nforms = NFORMS;
#endif
    for (int f = 0; f < nforms; f++)
        for (int w = 0; w < 2; w++)
            for (int k = 0; k < 6; k++) { /* n changes between calls; every third is ragged */
                call c;
                int n = n0 + k % 2, ragged = k % 3 == 2;
                call_make(&c, &h, n, ragged, k);
                int rc = exchange(&h, &c, w, f);
                CHECK(rc == MPI_SUCCESS, "%s %s call %d: error %d", formnames[f],
                      w ? "alltoallw" : "alltoallv", k, rc);
                CHECK(memcmp(c.rbuf, c.ref, sizeof(double) * c.rtotal) == 0,
                      "%s %s call %d (n=%d%s): result differs from the point-to-point reference",
                      formnames[f], w ? "alltoallw" : "alltoallv", k, n, ragged ? ", ragged" : "");
                call_free(&c);
            }
    MPI_Comm_free(&h.g);
    free(h.src), free(h.dst), free(h.soff), free(h.roff);
    MPI_Type_free(&strided);
    return check_finish_mpi();
}
