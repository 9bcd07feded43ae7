/* MPI test, run preloaded with a warm-up longer than the test
 * (NHOOD_WARMUP=1000000): every call is a cold graph's, which nhood hands
 * to MPI without any agreement among the ranks (docs/algorithms.md,
 * "Tiers").  Where the library orders a repeated peer's blocks wrongly
 * (MPICH before 5.0) the ranks that list a peer twice route their blocks
 * around it and the others pass theirs (api/cold.c); every result must
 * equal the standard's point-to-point equivalent, computed here with PMPI.
 *   - Graphs: a 2-D Moore neighborhood on a periodic grid of all ranks
 *     (every rank lists its peers more than once at 2 and 4 ranks), and a
 *     ring where ranks 0 and 1 list each other three times among single
 *     peers, themselves and (MPICH) MPI_PROC_NULL twice (the other ranks
 *     list no peer twice: the two paths must meet).  Open MPI 5.0.7's own
 *     neighborhood all-to-all crashes on MPI_PROC_NULL in a distributed
 *     graph's lists; nhood hands Open MPI's calls to it unchanged.
 *   - alltoall with MPI_INT and with a strided vector type (the gaps
 *     must stay as they were); alltoallv with counts 0 to 3 and gaps
 *     between blocks; alltoallw whose sender and receiver describe the
 *     same ints with different types.
 *   - Blocking, nonblocking and persistent forms (two starts, the data
 *     changed in between; the program's datatype freed after the init,
 *     with MPICH: Open MPI 5.0.7's own persistent call crashes at the
 *     start after it),
 *     and an MPI_Startall whose array puts MPI's own persistent allgather
 *     before the all-to-all, twice (nhood starts them in array order, as
 *     the standard orders collective starts; MPICH would match them
 *     anyway: it fixes a persistent collective's tag at its init).
 *   - With MPICH 4.0, the library's own v and w calls (PMPI), which nhood
 *     trusts there (mpich40_vw).
 *   - With MPICH, a negative count: MPI's MPI_ERR_COUNT, not a crash.
 * Prints "N passed, N failed" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../common.h"
#include "util/init_forms.h"
/* after mpi-ext.h (init_forms.h) */
#include "../libmpi.h"

#define SENT 0x5A5A5A5A /* where nothing may be written */

static int rank, p;

typedef struct graph {
    MPI_Comm g;
    int indeg, outdeg, *src, *dst;
    const char *name;
} graph;

/* Which occurrence of peer place k is in list (0 for its first place). */
static int occ(const int *list, int k)
{
    int j = 0;
    for (int i = 0; i < k; i++)
        j += list[i] == list[k];
    return j;
}

/* The ints an edge carries: from a to b, its j-th occurrence; 0 to 3
 * (the same from both ends; MPI_PROC_NULL's any). */
static int edge_ints(int a, int b, int j)
{
    return ((a + 2 * b + j) % 4 + 4) % 4;
}

/* One side of a call as the test describes it: place k's block is
 * counts[k] elements of types[k] at base + bdispls[k]. */
typedef struct side {
    int n, *counts;
    MPI_Aint *bdispls;
    MPI_Datatype *types;
    int *buf, len; /* ints */
} side;

static MPI_Datatype vec; /* 2 ints, stride 2: extent 3 ints */

static void side_alloc(side *s, int n, int len)
{
    s->n = n;
    s->counts = calloc((size_t)n + 1, sizeof(int));
    s->bdispls = calloc((size_t)n + 1, sizeof(MPI_Aint));
    s->types = calloc((size_t)n + 1, sizeof(MPI_Datatype));
    s->len = len;
    s->buf = malloc(sizeof(int) * (size_t)(len + 1));
    for (int i = 0; i < len; i++)
        s->buf[i] = SENT;
}

static void side_free(side *s)
{
    free(s->counts);
    free(s->bdispls);
    free(s->types);
    free(s->buf);
}

/* The standard's equivalent: receives in source order, sends in
 * destination order, one tag, PMPI (never nhood's). */
static void reference(const graph *x, const side *s, const side *r)
{
    MPI_Request *q = malloc(sizeof(MPI_Request) * (size_t)(x->indeg + x->outdeg + 1));
    MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t)(x->indeg + x->outdeg + 1));
    for (int l = 0; l < x->indeg; l++)
        PMPI_Irecv((char *)r->buf + r->bdispls[l], r->counts[l], r->types[l], x->src[l], 0, x->g,
                   &q[l]);
    for (int k = 0; k < x->outdeg; k++)
        PMPI_Isend((char *)s->buf + s->bdispls[k], s->counts[k], s->types[k], x->dst[k], 0, x->g,
                   &q[x->indeg + k]);
    PMPI_Waitall(x->indeg + x->outdeg, q, st);
    free(q);
    free(st);
}

/* The sides of one call of kind 0 (alltoall, MPI_INT x3), 1 (alltoall,
 * vec x2), 2 (alltoallv of ints with gaps), 3 (alltoallw): the send data
 * from salt. */
static void describe(const graph *x, int kind, int salt, side *s, side *r)
{
    int n[2] = {x->outdeg, x->indeg};
    for (int i = 0; i < 2; i++) {
        side *y = i ? r : s;
        const int *list = i ? x->src : x->dst;
        side_alloc(y, n[i], 12 * n[i] + 4);
        int at = 1; /* ints: a gap before every block */
        for (int k = 0; k < n[i]; k++) {
            int a = i ? list[k] : rank, b = i ? rank : list[k], j = occ(list, k);
            int m = edge_ints(a, b, j), sender_vec = ((a + b + j) % 2 + 2) % 2;
            if (kind <= 1) {
                y->counts[k] = kind ? 2 : 3;
                y->types[k] = kind ? vec : MPI_INT;
                y->bdispls[k] = (MPI_Aint)(k * (kind ? 6 : 3)) * (MPI_Aint)sizeof(int);
                continue;
            }
            int use_vec = kind == 3 && (i ? !sender_vec : sender_vec) && m % 2 == 0;
            y->counts[k] = use_vec ? m / 2 : m;
            y->types[k] = use_vec ? vec : MPI_INT;
            y->bdispls[k] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
            at += (use_vec ? 3 * (m / 2) : m) + 1;
        }
    }
    for (int i = 0; i < s->len; i++)
        s->buf[i] = rank * 100000 + salt * 1000 + i;
}

/* The program's v arrays (in extents of MPI_INT) from a side of kind 2. */
static int *displs_v(const side *y)
{
    int *d = malloc(sizeof(int) * (size_t)(y->n + 1));
    for (int k = 0; k < y->n; k++)
        d[k] = (int)(y->bdispls[k] / (MPI_Aint)sizeof(int));
    return d;
}

/* Starts (or makes: persistent) the call of kind on x; *req set for the
 * nonblocking and persistent forms.  sd, rd: kind 2's displacements
 * (displs_v), which MPI may read until the request is freed. */
static int call(const graph *x, int kind, int form, side *s, side *r, const int *sd, const int *rd,
                MPI_Request *req)
{
    MPI_Datatype t = kind == 1 ? vec : MPI_INT;
    int c = kind == 1 ? 2 : 3;
    if (kind <= 1)
        return form == 0   ? MPI_Neighbor_alltoall(s->buf, c, t, r->buf, c, t, x->g)
               : form == 1 ? MPI_Ineighbor_alltoall(s->buf, c, t, r->buf, c, t, x->g, req)
                           : MPI_Neighbor_alltoall_init(s->buf, c, t, r->buf, c, t, x->g,
                                                        MPI_INFO_NULL, req);
    if (kind == 2)
        return form == 0 ? MPI_Neighbor_alltoallv(s->buf, s->counts, sd, MPI_INT, r->buf, r->counts,
                                                  rd, MPI_INT, x->g)
               : form == 1
                   ? MPI_Ineighbor_alltoallv(s->buf, s->counts, sd, MPI_INT, r->buf, r->counts, rd,
                                             MPI_INT, x->g, req)
                   : MPI_Neighbor_alltoallv_init(s->buf, s->counts, sd, MPI_INT, r->buf, r->counts,
                                                 rd, MPI_INT, x->g, MPI_INFO_NULL, req);
    return form == 0   ? MPI_Neighbor_alltoallw(s->buf, s->counts, s->bdispls, s->types, r->buf,
                                                r->counts, r->bdispls, r->types, x->g)
           : form == 1 ? MPI_Ineighbor_alltoallw(s->buf, s->counts, s->bdispls, s->types, r->buf,
                                                 r->counts, r->bdispls, r->types, x->g, req)
                       : MPI_Neighbor_alltoallw_init(s->buf, s->counts, s->bdispls, s->types,
                                                     r->buf, r->counts, r->bdispls, r->types, x->g,
                                                     MPI_INFO_NULL, req);
}

static void compare(const graph *x, int kind, int form, const side *r, const int *ref,
                    const char *what)
{
    CHECK(memcmp(r->buf, ref, sizeof(int) * (size_t)r->len) == 0,
          "%s, kind %d, form %d (%s): result differs from the reference", x->name, kind, form,
          what);
}

/* What a case made: kind 2's displacements, its sides and the reference's. */
static void one_free(int *sd, int *rd, side *s, side *r, side *rs, side *rr)
{
    free(sd);
    free(rd);
    side_free(s);
    side_free(r);
    side_free(rs);
    side_free(rr);
}

static void one(const graph *x, int kind, int form)
{
    side s, r, rs, rr;
    MPI_Request q = MPI_REQUEST_NULL;
    describe(x, kind, 1, &s, &r);
    describe(x, kind, 1, &rs, &rr);
    reference(x, &rs, &rr);
    int *sd = kind == 2 ? displs_v(&s) : NULL, *rd = kind == 2 ? displs_v(&r) : NULL;
    int rc = call(x, kind, form, &s, &r, sd, rd, &q);
    if (rc == MPI_SUCCESS && form == 2)
        rc = MPI_Start(&q);
    if (rc == MPI_SUCCESS && form)
        rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "%s, kind %d, form %d: error %d", x->name, kind, form, rc);
    compare(x, kind, form, &r, rr.buf, "first");
    if (form == 2) { /* a second start, new data */
        side s2, r2;
        describe(x, kind, 2, &s2, &r2);
        reference(x, &s2, &r2);
        memcpy(s.buf, s2.buf, sizeof(int) * (size_t)s.len);
        for (int i = 0; i < r.len; i++)
            r.buf[i] = SENT;
        if ((rc = MPI_Start(&q)) == MPI_SUCCESS)
            rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "%s, kind %d: second start: error %d", x->name, kind, rc);
        compare(x, kind, form, &r, r2.buf, "second start");
        MPI_Request_free(&q);
        side_free(&s2);
        side_free(&r2);
    }
    one_free(sd, rd, &s, &r, &rs, &rr);
}

/* What nhood's cold calls rely on with MPICH 4.0 (api/cold.c,
 * nh_right_call): the library's own v and w calls, blocking and
 * nonblocking, order a repeated source's blocks as the standard says
 * (only its regular form reverses them), so nhood hands them over as they
 * are and makes a regular call their v call.  Checked with PMPI on the
 * library whose string says MPICH 4.0. */
static void mpich40_vw(const graph *x)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len, major = 0, minor = -1;
    MPI_Get_library_version(v, &len);
    const char *at = strstr(v, "MPICH Version:");
    if (!at || sscanf(at + strlen("MPICH Version:"), "%d.%d", &major, &minor) != 2 || major != 4 ||
        minor != 0)
        return;
    for (int kind = 2; kind < 4; kind++)
        for (int form = 0; form < 2; form++) {
            side s, r, rs, rr;
            MPI_Request q = MPI_REQUEST_NULL;
            describe(x, kind, 1, &s, &r);
            describe(x, kind, 1, &rs, &rr);
            reference(x, &rs, &rr);
            int *sd = displs_v(&s), *rd = displs_v(&r), rc;
            if (kind == 2)
                rc = form ? PMPI_Ineighbor_alltoallv(s.buf, s.counts, sd, MPI_INT, r.buf, r.counts,
                                                     rd, MPI_INT, x->g, &q)
                          : PMPI_Neighbor_alltoallv(s.buf, s.counts, sd, MPI_INT, r.buf, r.counts,
                                                    rd, MPI_INT, x->g);
            else
                rc = form ? PMPI_Ineighbor_alltoallw(s.buf, s.counts, s.bdispls, s.types, r.buf,
                                                     r.counts, r.bdispls, r.types, x->g, &q)
                          : PMPI_Neighbor_alltoallw(s.buf, s.counts, s.bdispls, s.types, r.buf,
                                                    r.counts, r.bdispls, r.types, x->g);
            if (rc == MPI_SUCCESS && form)
                rc = PMPI_Wait(&q, MPI_STATUS_IGNORE);
            CHECK(rc == MPI_SUCCESS, "%s, MPICH 4.0's own kind %d form %d: error %d", x->name, kind,
                  form, rc);
            compare(x, kind, form, &r, rr.buf, "MPICH 4.0's own, which nhood trusts");
            one_free(sd, rd, &s, &r, &rs, &rr);
        }
}

/* MPI_Startall([allgather_init, alltoall_init]): the allgather is MPI's
 * own on every rank, the all-to-all nhood's request on a rank that lists
 * a peer twice. */
static void startall(const graph *x)
{
    side s, r, rs, rr;
    describe(x, 0, 3, &s, &r);
    describe(x, 0, 3, &rs, &rr);
    reference(x, &rs, &rr);
    int mine = rank * 7 + 1, *all = malloc(sizeof(int) * (size_t)(x->indeg + 1));
    MPI_Request q[2];
    MPI_Neighbor_allgather_init(&mine, 1, MPI_INT, all, 1, MPI_INT, x->g, MPI_INFO_NULL, &q[0]);
    call(x, 0, 2, &s, &r, NULL, NULL, &q[1]);
    for (int round = 0; round < 2; round++) {
        MPI_Startall(2, q);
        MPI_Status st[2];
        MPI_Waitall(2, q, st);
        compare(x, 0, 2, &r, rr.buf, "MPI_Startall");
        for (int l = 0; l < x->indeg; l++)
            CHECK(x->src[l] == MPI_PROC_NULL || all[l] == x->src[l] * 7 + 1,
                  "%s: MPI_Startall's allgather: place %d got %d from %d", x->name, l, all[l],
                  x->src[l]);
    }
    MPI_Request_free(&q[0]);
    MPI_Request_free(&q[1]);
    free(all);
    side_free(&s);
    side_free(&r);
    side_free(&rs);
    side_free(&rr);
}

/* A persistent call whose program datatype is freed after the init. */
static __attribute__((unused)) void freed_type(const graph *x)
{
    MPI_Datatype mine;
    MPI_Type_dup(vec, &mine);
    side s, r, rs, rr;
    describe(x, 1, 4, &s, &r);
    describe(x, 1, 4, &rs, &rr);
    reference(x, &rs, &rr);
    MPI_Request q;
    MPI_Neighbor_alltoall_init(s.buf, 2, mine, r.buf, 2, mine, x->g, MPI_INFO_NULL, &q);
    MPI_Type_free(&mine);
    MPI_Start(&q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    compare(x, 1, 2, &r, rr.buf, "datatype freed after the init");
    MPI_Request_free(&q);
    side_free(&s);
    side_free(&r);
    side_free(&rs);
    side_free(&rr);
}

static void lists_of(graph *x)
{
    int w;
    MPI_Dist_graph_neighbors_count(x->g, &x->indeg, &x->outdeg, &w);
    x->src = malloc(sizeof(int) * (size_t)(x->indeg + 1));
    x->dst = malloc(sizeof(int) * (size_t)(x->outdeg + 1));
    int *sw = malloc(sizeof(int) * (size_t)(x->indeg + 1)),
        *dw = malloc(sizeof(int) * (size_t)(x->outdeg + 1));
    MPI_Dist_graph_neighbors(x->g, x->indeg, x->src, sw, x->outdeg, x->dst, dw);
    free(sw);
    free(dw);
}

/* The ring with ranks 0 and 1 listing each other three times. */
static void mixed(graph *x)
{
#if defined(MPICH_VERSION) && !defined(OPEN_MPI)
    const int proc_null = 1;
#else
    const int proc_null = 0;
#endif
    int next = (rank + 1) % p, prev = (rank + p - 1) % p, other = rank == 0 ? 1 : 0;
    int dst[8], src[8], nd = 0, ns = 0;
    dst[nd++] = next;
    src[ns++] = prev;
    if (proc_null) {
        dst[nd++] = MPI_PROC_NULL;
        src[ns++] = MPI_PROC_NULL;
    }
    if (rank <= 1) {
        dst[nd++] = other;
        src[ns++] = other;
    }
    dst[nd++] = rank;
    src[ns++] = rank;
    if (rank <= 1) {
        dst[nd++] = other;
        src[ns++] = other;
    }
    if (proc_null) {
        dst[nd++] = MPI_PROC_NULL;
        src[ns++] = MPI_PROC_NULL;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ns, src, MPI_UNWEIGHTED, nd, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &x->g);
    x->name = "mixed ring";
}

/* A large call's blocks: 200000 ints, or 100000 of vec (300000 ints from
 * the first to the last's extent); the ints a side's buffer needs per
 * place (a gap of 6 before each block). */
enum { M = 200000, GAP = 6 };
static int span(int use_vec)
{
    return use_vec ? 3 * (M / 2) : M;
}
#define LARGE_INTS(use_vec) (span(use_vec) + GAP)

/* Place k's block in list order, or (rev) the last place first with a
 * gap before each block; *d: the v displacements (in the type's extents). */
static void large_side(side *y, int n, int rev, int use_vec, int *buf, int **d)
{
    int unit = use_vec ? 3 : 1;
    side_alloc(y, n, 0);
    free(y->buf);
    y->buf = buf;
    y->len = LARGE_INTS(use_vec) * n;
    *d = malloc(sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < n; k++) {
        int at = rev ? LARGE_INTS(use_vec) * (n - 1 - k) + GAP : span(use_vec) * k;
        y->counts[k] = use_vec ? M / 2 : M;
        y->types[k] = use_vec ? vec : MPI_INT;
        y->bdispls[k] = (MPI_Aint)at * (MPI_Aint)sizeof(int);
        (*d)[k] = at / unit;
    }
}

/* Large blocks (a repeated peer's pass 4 MiB at 2 ranks: MPI moves them in place
 * where its groups have one shape, api/cold_typed.c, and in w calls,
 * api/cold.c; else through regions whose memory nhood keeps for the next
 * call), each round with new data: two nonblocking all-to-alls
 * outstanding at once, a blocking one, then alltoallv and alltoallw with
 * the blocks in reverse order and gaps between them (nonblocking, then
 * blocking; alltoallv with a strided type, whose gaps must stay as they
 * were, on both sides, alltoallw sending it and receiving ints). */
static void large(const graph *x)
{
    int *sb[2], *rb[2], *ref[2];
    for (int round = 0; round < 6; round++) {
        MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Status st[2]; /* MPI_STATUSES_IGNORE trips gcc 12's -Wstringop-overflow with MPICH */
        int v = round >= 2, w = round >= 4, calls = round == 0 ? 2 : 1;
        int svec = round == 3 || round == 4, rvec = round == 3; /* w: 2 ints as one vec */
        size_t sn = (size_t)LARGE_INTS(svec) * x->outdeg, rn = (size_t)LARGE_INTS(rvec) * x->indeg;
        for (int i = 0; i < calls; i++) {
            side s, r;
            int *sd, *rd;
            sb[i] = malloc(sizeof(int) * (sn + 1));
            rb[i] = malloc(sizeof(int) * (rn + 1));
            ref[i] = malloc(sizeof(int) * (rn + 1));
            for (size_t k = 0; k < sn; k++)
                sb[i][k] = (int)(k * 7 + (size_t)rank * 1000003 + (size_t)round * 31 + (size_t)i);
            for (size_t k = 0; k < rn; k++)
                rb[i][k] = ref[i][k] = SENT;
            large_side(&s, x->outdeg, v, svec, sb[i], &sd);
            large_side(&r, x->indeg, v, rvec, ref[i], &rd);
            reference(x, &s, &r);
            MPI_Datatype t = svec ? vec : MPI_INT;
            if (w && round == 4)
                MPI_Ineighbor_alltoallw(sb[i], s.counts, s.bdispls, s.types, rb[i], r.counts,
                                        r.bdispls, r.types, x->g, &q[i]);
            else if (w)
                MPI_Neighbor_alltoallw(sb[i], s.counts, s.bdispls, s.types, rb[i], r.counts,
                                       r.bdispls, r.types, x->g);
            else if (!v && round == 0)
                MPI_Ineighbor_alltoall(sb[i], M, MPI_INT, rb[i], M, MPI_INT, x->g, &q[i]);
            else if (!v)
                MPI_Neighbor_alltoall(sb[i], M, MPI_INT, rb[i], M, MPI_INT, x->g);
            else if (!svec)
                MPI_Ineighbor_alltoallv(sb[i], s.counts, sd, t, rb[i], r.counts, rd, t, x->g,
                                        &q[i]);
            else
                MPI_Neighbor_alltoallv(sb[i], s.counts, sd, t, rb[i], r.counts, rd, t, x->g);
            if (v) /* (MPI reads the arrays until then) */
                MPI_Waitall(2, q, st);
            s.buf = r.buf = NULL;
            free(sd);
            free(rd);
            side_free(&s);
            side_free(&r);
        }
        MPI_Waitall(2, q, st);
        for (int i = 0; i < calls; i++) {
            CHECK(memcmp(rb[i], ref[i], sizeof(int) * rn) == 0,
                  "%s, large blocks, round %d, call %d: result differs from the reference", x->name,
                  round, i);
            free(sb[i]);
            free(rb[i]);
            free(ref[i]);
        }
    }
}

/* A negative count in a v call on every rank: MPI's error (MPI_ERR_COUNT,
 * returned under MPI_ERRORS_RETURN), never a copy sized by it. */
static __attribute__((unused)) void negative(const graph *x)
{
    int n = x->outdeg > x->indeg ? x->outdeg : x->indeg, *c = malloc(sizeof(int) * (size_t)(n + 1)),
        *d = calloc((size_t)n + 1, sizeof(int)), buf[4] = {0}, rbuf[4], cls = MPI_SUCCESS;
    for (int k = 0; k <= n; k++)
        c[k] = 1;
    c[0] = -1;
    MPI_Comm_set_errhandler(x->g, MPI_ERRORS_RETURN);
    for (int form = 0; form < 2; form++) {
        MPI_Request q = MPI_REQUEST_NULL;
        int rc = form ? MPI_Ineighbor_alltoallv(buf, c, d, MPI_INT, rbuf, c, d, MPI_INT, x->g, &q)
                      : MPI_Neighbor_alltoallv(buf, c, d, MPI_INT, rbuf, c, d, MPI_INT, x->g);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_COUNT,
              "%s, form %d: a count of -1 gave error %d (class %d), not MPI_ERR_COUNT", x->name,
              form, rc, cls);
        if (rc == MPI_SUCCESS && q != MPI_REQUEST_NULL)
            MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    MPI_Comm_set_errhandler(x->g, MPI_ERRORS_ARE_FATAL);
    free(c);
    free(d);
}

static void moore(graph *x)
{
    int dims[2] = {0, 0}, periods[2] = {1, 1}, *off, s = tc_offsets("moore", 2, 1, &off), o, i;
    MPI_Dims_create(p, 2, dims);
    tc_graph(MPI_COMM_WORLD, 2, dims, periods, s, off, MPI_INFO_NULL, 0, &x->g, &o, &i);
    free(off);
    x->name = "2-D Moore";
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d: ", rank);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    void (*make[2])(graph *) = {moore, mixed};
    for (int gi = 0; gi < 2; gi++) {
        graph x;
        make[gi](&x);
        lists_of(&x);
        for (int kind = 0; kind < 4; kind++)
            for (int form = 0; form < 3; form++)
                one(&x, kind, form);
        startall(&x);
        large(&x);
        mpich40_vw(&x);
#if defined(MPICH_VERSION) && !defined(OPEN_MPI) /* Open MPI 5.0.7's own crashes there */
        freed_type(&x);
        negative(&x);
#endif
        MPI_Comm_free(&x.g);
        free(x.src);
        free(x.dst);
    }
    MPI_Type_free(&vec);
    return check_finish_mpi();
}
