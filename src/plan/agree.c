/* The agreement at graph creation: which candidate grid (if any) every
 * rank's lists fit, identically on every rank (see nh_det_agree_start's
 * comment below for the fast agreement, general_finish for the general
 * one).  On up to NH_DET_GATHER ranks one allgather carries all of it and
 * store-and-forward's words; it is started before MPI creates the graph
 * where the ranks will not change (plan/detect.c), so that MPI's own
 * creation and nhood's analysis overlap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/detect_int.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Does a rank appear twice in the list?  (1 also when out of memory.) */
int nh_det_repeats(const int *ranks, int n)
{
    uint64_t seen = 0; /* ranks 0 to 63, the small graphs' ranks: a bit each */
    int i = 0;
    for (; i < n && ranks[i] >= 0 && ranks[i] < 64; i++) {
        if (seen >> ranks[i] & 1)
            return 1;
        seen |= 1ull << ranks[i];
    }
    if (i == n)
        return 0;
    int small[64], *v = n <= 64 ? small : malloc((size_t)n * sizeof(int)), r = 0;
    if (!v)
        return 1;
    if (n > 0)
        memcpy(v, ranks, (size_t)n * sizeof(int));
    if (v == small) /* short lists: insertion sort */
        for (int i = 1; i < n; i++) {
            int x = v[i], j = i;
            for (; j > 0 && x < v[j - 1]; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    else
        qsort(v, (size_t)n, sizeof(int), cmp_int);
    for (int i = 1; i < n && !r; i++)
        r = v[i] == v[i - 1];
    if (v != small)
        free(v);
    return r;
}

/* FNV-1a over 64 bits of n ints, continuing from a. */
static unsigned long long fnv64(unsigned long long a, const int *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        a = (a ^ (unsigned)v[i]) * 0x100000001b3ull;
    return a;
}

#define M62 ((1ull << 62) - 1)

/* A 62-bit hash, never 0: a finalizer spreads every bit of a over the
 * bits kept. */
static uint64_t hash62(unsigned long long a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    a *= 0xc4ceb9fe1a85ec53ull;
    a ^= a >> 33;
    uint64_t h = a & M62;
    return h ? h : 1;
}

/* Equality of a value x across ranks in a MIN reduction: x and -x enter,
 * and all are equal iff min(x) == -min(-x). */
static int all_same(const long long *v, int i)
{
    return v[i] == -v[i + 1];
}

/* The general agreement, where the fast one did not settle it (meshes,
 * graphs whose ranks see different offsets, malformed hints): one MIN
 * reduction for what must agree plus the rank with the largest
 * out-degree (its offsets are the full template), its broadcast, and a
 * MIN reduction over which candidates every rank fits. */
enum { SL_BAD, SL_ORDER, SL_CH, SL_NCH, SL_NATIVE, SL_NOSTFW, SL_TOP, SL_WIN, SL_COUNT };


/* Where candidate k's offsets start in a list of n offsets for each
 * candidate, each at its grid's dimensions. */
static size_t cand_at(const det *d, int k, size_t n)
{
    size_t at = 0;
    for (int j = 0; j < k; j++)
        at += (size_t)d->c[j].g.ndims;
    return at * n;
}

static int *own_offsets(det *d, int k)
{
    return d->mine + cand_at(d, k, (size_t)d->outdeg);
}

/* The general agreement's inputs, for every candidate. */
static int local_offsets(det *d)
{
    if (!d->mine) {
        d->perm = malloc(((size_t)d->outdeg + 1) * sizeof(int));
        d->mine = malloc((cand_at(d, d->ncand, (size_t)d->outdeg) + 1) * sizeof(int));
        if (!d->perm || !d->mine)
            return MPI_ERR_NO_MEM;
    }
    for (; d->done < d->ncand; d->done++)
        d->local_ok[d->done] = nh_local_offsets(&d->c[d->done].g, d->rank, d->outdeg, d->dsts, +1,
                                                own_offsets(d, d->done), d->perm) == 0;
    return MPI_SUCCESS;
}

static void drop_fits(det *d)
{
    for (int k = 0; k < NH_MAXCAND; k++)
        if (d->fit[k]) {
            d->pending[k] = 0;
            nh_nbhd_fini(&d->nbs[k]);
            memset(&d->nbs[k], 0, sizeof(d->nbs[k]));
            d->fit[k] = 0;
        }
}

/* The general agreement's words, reduced by MIN. */
static void general_words(const det *d, const nh_hint *h, int order, unsigned hash, int native,
                          int no_stfw, long long *v)
{
    v[SL_BAD] = h->bad ? d->rank : d->size;
    v[SL_ORDER] = order;
    v[SL_CH] = hash;
    v[SL_NCH] = -(long long)hash;
    v[SL_NATIVE] = native;
    v[SL_NOSTFW] = no_stfw;
    v[SL_TOP] = -((long long)d->outdeg * d->size + (d->size - 1 - d->rank)); /* max deg, min rank */
    v[SL_WIN] = -d->win;
}

/* Templates of up to this many ints (every candidate's) travel whole in
 * one broadcast beside which candidates the top rank vouches for.  Larger
 * ones, where a rank has very many peers (an irregular graph's hub: at
 * 16K ranks its template would be 12 MB to every rank), wait for the
 * edge count: a candidate's template must give the graph's edges
 * (nh_grid_edges), which a hub's rarely does, and only the candidates
 * that pass travel, after their flags. */
#define NH_TEMPLATE_WHOLE 4096

/* The rest once the words v are reduced.  may[k] (NULL: unknown) rules
 * candidates out beforehand, identically everywhere; where it rules out
 * every one, nothing more is exchanged.  edges: the graph's edge count,
 * or -1 (then reduced here where the templates are large). */
static int general_finish(det *d, const nh_hint *h, const long long *v, const int *may,
                          long long edges, int *native, int *no_stfw, int *chosen, int *s)
{
    int rc, *tbuf = NULL, any = !may;
    if (v[SL_BAD] < d->size) { /* a malformed hint (api/create.c): the first such rank says why */
        if (d->rank == v[SL_BAD])
            nh_error("%s", h->msg);
        return MPI_ERR_INFO_VALUE;
    }
    *native = (int)v[SL_NATIVE];
    *no_stfw = (int)v[SL_NOSTFW];
    d->win = (int)-v[SL_WIN];
    for (int k = 0; may && k < d->ncand; k++)
        any |= may[k];
    if (!v[SL_ORDER] || !all_same(v, SL_CH) || !any)
        return MPI_SUCCESS;
    int top = d->size - 1 - (int)(-v[SL_TOP] % d->size);
    *s = (int)(-v[SL_TOP] / d->size);
    /* Collective from here on: a rank short of memory still takes part
     * (it fits nothing). */
    if (local_offsets(d))
        for (int k = 0; k < NH_MAXCAND; k++)
            d->local_ok[k] = 0;
    size_t every = cand_at(d, d->ncand, (size_t)*s), at[NH_MAXCAND], n = 0;
    int whole = every <= NH_TEMPLATE_WHOLE, flag[NH_MAXCAND] = {0};
    if (!whole && edges < 0) {
        long long mine = d->outdeg;
        if ((rc = nh_mpi_Allreduce(&mine, &edges, 1, MPI_LONG_LONG, MPI_SUM, d->graph)))
            return rc;
    }
    if (d->rank == top)
        for (int k = 0; k < d->ncand; k++)
            flag[k] = d->local_ok[k] && (!may || may[k]) &&
                      (edges < 0 || nh_grid_edges(&d->c[k].g, *s, own_offsets(d, k)) == edges);
    if (!whole && (rc = nh_mpi_Bcast(flag, NH_MAXCAND, MPI_INT, top, d->graph)))
        return rc;
    for (int k = 0; k < d->ncand; k++) {
        at[k] = n;
        n += whole || flag[k] ? (size_t)*s * d->c[k].g.ndims : 0;
    }
    if (n + NH_MAXCAND > INT32_MAX) /* (agreed: n follows from agreed values) */
        return MPI_SUCCESS;
    if (!(tbuf = malloc((n + NH_MAXCAND) * sizeof(int))))
        return MPI_ERR_NO_MEM;
    if (d->rank == top) {
        for (int k = 0; k < d->ncand; k++)
            if (flag[k])
                memcpy(tbuf + at[k], own_offsets(d, k), (size_t)*s * d->c[k].g.ndims * sizeof(int));
        memcpy(tbuf + n, flag, sizeof(flag));
    }
    if ((whole || n > 0) &&
        (rc = nh_mpi_Bcast(tbuf, (int)(whole ? n + NH_MAXCAND : n), MPI_INT, top, d->graph)))
        goto out;
    if (whole)
        memcpy(flag, tbuf + n, sizeof(flag));
    /* Does every rank fit?  One MIN reduction over the fit flags. */
    int agree[NH_MAXCAND] = {0};
    for (int k = 0; k < d->ncand; k++)
        if (d->local_ok[k] && flag[k] && (!may || may[k]))
            agree[k] = d->fit[k] = nh_nbhd_init(&d->nbs[k], &d->c[k].g, d->rank, *s, tbuf + at[k],
                                                d->outdeg, d->dsts, d->indeg, d->srcs) == 0;
    if ((rc = nh_mpi_Allreduce(MPI_IN_PLACE, agree, NH_MAXCAND, MPI_INT, MPI_MIN, d->graph)))
        goto out;
    *chosen = nh_det_pick(d->c, d->ncand, agree, d->nbs);
out:
    free(tbuf);
    return rc;
}

/* v[0..2] become their bitwise AND over all ranks.  On up to
 * NH_GATHER_MAX ranks an allgather and a local AND: on MPICH 4.0.2 at 2
 * ranks it costs half what MPI_Allreduce does (0.6 against 1.0 us). */
#define NH_GATHER_MAX 256

static int and_all(uint64_t *v, MPI_Comm comm, int size)
{
    if (size > NH_GATHER_MAX)
        return nh_mpi_Allreduce(MPI_IN_PLACE, v, 3, MPI_UINT64_T, MPI_BAND, comm);
    uint64_t all[3 * NH_GATHER_MAX];
    int rc = nh_mpi_Allgather(v, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm);
    for (int i = 0; !rc && i < size; i++)
        for (int j = 0; j < 3; j++)
            v[j] &= all[3 * i + j];
    return rc;
}

/* The fast agreement's outcome from the ANDed words v: 1 where it
 * settles the candidate (kf, this rank's fit). */
static int fast_settled(det *d, const uint64_t *v, int kf, int *native, int *no_stfw, int *chosen,
                        int *s)
{
    d->win = __builtin_ctzll(v[2]); /* bit 63 is set on every rank */
    uint64_t all = v[0] >> 1, any = ~(v[1] >> 1) & M62;
    if (all != any || all == 0)
        return 0;
    *chosen = kf;
    *s = d->outdeg;
    *native = (int)(v[0] & 1);
    *no_stfw = (int)(v[1] & 1);
    return 1;
}

/* Graphs of up to NH_DET_GATHER ranks: one allgather carries the fast
 * agreement's words, the general agreement's, store-and-forward's
 * (nh_stfw_pre), a 64-bit summary of each rank's offsets on every
 * candidate grid (bit 63 where its lists lie on the grid, one of bits
 * 0-62 per offset) and a hash of them in order, repeats included (0
 * where they do not lie on it, a malformed hint or a reordered
 * communicator).  The general agreement's template is the top rank's
 * offsets, which every rank's must be a subset of, so a rank with a bit
 * the top rank lacks rules the candidate out: irregular graphs are
 * settled in this one collective, without the broadcast and reduction.
 * On a torus every rank's offsets are the template, so equal hashes
 * settle it too where ranks' first fits differ (a small folded torus:
 * on a ring of 4, a 2x2 grid's ranks repeat different peers). */
enum {
    GW_SL = 3,
    GW_STFW = GW_SL + SL_COUNT,
    GW_SUMMARY = GW_STFW + NH_STFW_PRE, /* candidate k's mask, then its hash */
    GW_COUNT = GW_SUMMARY + 2 * NH_DET_SUMMED
};
_Static_assert(GW_COUNT == NH_DET_WORDS, "detect_int.h sizes the gathered words");
#define GW_MASK(k) (GW_SUMMARY + 2 * (k))
#define GW_HASH(k) (GW_SUMMARY + 2 * (k) + 1)
_Static_assert(SL_COUNT == 8, "NH_DET_WORDS counts 8 general words");

/* Each candidate's offset summary (mask) and template hash (hash; 0
 * where none may agree: ok 0).  A summary is of the set of offsets, so it
 * needs no sorting: a fit's are at hand, the others are computed as they
 * come, once for the grids of the same dimensions (sorting them for every
 * candidate cost 3 us of a 4-rank creation). */
static void offset_masks(det *d, int ok)
{
    uint64_t *w = d->words;
    int nk = d->ncand < NH_DET_SUMMED ? d->ncand : NH_DET_SUMMED, done[NH_DET_SUMMED] = {0};
    memset(w + GW_SUMMARY, 0, 2 * NH_DET_SUMMED * sizeof(uint64_t));
    for (int k = 0; k < nk; k++) {
        const nh_grid *g = &d->c[k].g;
        if (d->fit[k]) { /* a fit's template is this rank's sorted offsets */
            int nd = g->ndims, head[3] = {(int)d->hash, d->outdeg, k};
            const int *o = d->nbs[k].off;
            w[GW_MASK(k)] = d->nbs[k].summary ? d->nbs[k].summary
                                              : nh_offsets_summary(g, d->outdeg, o);
            if (ok) /* agreed, every rank has its neighborhood at hand */
                w[GW_HASH(k)] =
                    hash62(fnv64(fnv64(0xcbf29ce484222325ull, head, 3), o, (size_t)d->outdeg * nd));
            continue;
        }
        if (done[k])
            continue;
        const nh_grid *gs[NH_DET_SUMMED];
        int of[NH_DET_SUMMED], ng = 0;
        for (int j = k; j < nk; j++)
            if (!d->fit[j] && !done[j] && d->c[j].g.ndims == g->ndims &&
                memcmp(d->c[j].g.dims, g->dims, (size_t)g->ndims * sizeof(int)) == 0) {
                gs[ng] = &d->c[j].g;
                of[ng++] = j;
                done[j] = 1;
            }
        uint64_t m[NH_DET_SUMMED];
        nh_dests_summaries(gs, ng, d->rank, d->outdeg, d->dsts, m);
        for (int i = 0; i < ng; i++)
            w[GW_MASK(of[i])] = m[i];
    }
}

/* Is candidate c a torus (every dimension periodic or of one rank)? */
static int is_torus(const cand *c)
{
    int torus = 1;
    for (int j = 0; torus && j < c->g.ndims; j++)
        torus = c->g.periods[j] || c->g.dims[j] == 1;
    return torus;
}

/* The inferred tori every rank's offsets agree on (the gathered hashes),
 * where the ranks' first fits differed: their pick, as the general
 * agreement would make it (it prefers a torus to any mesh, and on a
 * torus a rank fits the top rank's template iff its own offsets are it).
 * Returns 1 where that settles the agreement. */
static int tori_settled(det *d, int *chosen, int *s)
{
    int agreed[NH_MAXCAND] = {0}, any = 0;
    if (d->ncand == 0 || strcmp(d->c[0].source, "inferred") != 0)
        return 0;
    for (int k = 0; k < d->ncand && k < NH_DET_SUMMED; k++) {
        uint64_t h = d->all[GW_HASH(k)];
        agreed[k] = h != 0 && is_torus(&d->c[k]);
        for (int i = 1; i < d->size && agreed[k]; i++)
            agreed[k] = d->all[(size_t)i * GW_COUNT + GW_HASH(k)] == h;
        any |= agreed[k]; /* (a hash is sent only beside a built neighborhood) */
    }
    if (!any)
        return 0;
    *chosen = nh_det_pick(d->c, d->ncand, agreed, d->nbs);
    *s = d->outdeg;
    return 1;
}

/* The one allgather's outcome (d->all): ANDed, MIN, MAX and summed
 * words computed here, identically on every rank. */
static int agree_all(det *d, const nh_hint *h, int *native, int *no_stfw, int *chosen, int *s)
{
    long long sl[SL_COUNT];
    int may[NH_MAXCAND];
    uint64_t *v = d->v;
    long *st = d->stfw;
    memcpy(sl, d->words + GW_SL, sizeof(sl));
    for (int i = 0; i < d->size; i++) {
        const uint64_t *w = d->all + (size_t)i * GW_COUNT;
        long long x[SL_COUNT];
        long y[NH_STFW_PRE];
        memcpy(x, w + GW_SL, sizeof(x));
        memcpy(y, w + GW_STFW, sizeof(y));
        for (int j = 0; j < 3; j++)
            v[j] &= w[j];
        for (int j = 0; j < SL_COUNT; j++)
            sl[j] = x[j] < sl[j] ? x[j] : sl[j];
        for (int j = 0; j < NH_STFW_PRE; j++) /* MAX, the last word summed */
            st[j] = i == 0                    ? y[j]
                    : j == NH_STFW_PRE - 1    ? st[j] + y[j]
                    : y[j] > st[j]            ? y[j]
                                              : st[j];
    }
    d->stfw_agreed = 1;
    d->gpu = !(v[1] >> 63);
    if (fast_settled(d, v, d->kf, native, no_stfw, chosen, s))
        return MPI_SUCCESS;
    if (tori_settled(d, chosen, s)) {
        *native = (int)(v[0] & 1);
        *no_stfw = (int)(v[1] & 1);
        return MPI_SUCCESS;
    }
    drop_fits(d); /* the general agreement builds them again */
    /* On a torus every peer exists: a rank's offsets are the whole
     * template, elsewhere those of its peers that exist. */
    int top = d->size - 1 - (int)(-sl[SL_TOP] % d->size);
    long long tdeg = -sl[SL_TOP] / d->size;
    for (int k = 0; k < NH_MAXCAND; k++) {
        if (k >= NH_DET_SUMMED) { /* no summary: the general agreement's own test */
            may[k] = k < d->ncand;
            continue;
        }
        uint64_t tm = d->all[(size_t)top * GW_COUNT + GW_MASK(k)];
        int torus = k < d->ncand && is_torus(&d->c[k]);
        may[k] = k < d->ncand && (tm >> 63);
        for (int i = 0; i < d->size && may[k]; i++) {
            const uint64_t *w = d->all + (size_t)i * GW_COUNT;
            long long x;
            memcpy(&x, w + GW_SL + SL_TOP, sizeof(x));
            uint64_t m = w[GW_MASK(k)];
            may[k] = (m >> 63) && !(m & ~tm) && (!torus || (m == tm && -x / d->size == tdeg));
        }
    }
    return general_finish(d, h, sl, may, st[NH_STFW_PRE - 1], native, no_stfw, chosen, s);
}

/* The one collective's words travel point to point on nhood's private
 * duplicate of MPI_COMM_WORLD where comm's ranks are its own, up to
 * NH_PAIRWISE_MAX of them: posting MPI_Iallgather costs more than a
 * whole exchange there (MPICH 4.0.2 at 2 ranks: 0.8 us; MPI's creation
 * and free took 3.0-3.3 us, 3.4-3.9 beside the exchange and 4.0-4.6
 * beside the allgather).
 * Each pair of ranks meets once per creation, and creations over the
 * same ranks come in the same order on each of them (one thread at a
 * time calls MPI: nh_world_priv exists only then), so a fixed tag
 * matches each message with its own creation's receive. */
enum { AGREE_TAG = 1 };

static int pairwise(const det *d, MPI_Comm comm)
{
    int same = MPI_UNEQUAL, world;
    if (nh_world_priv == MPI_COMM_NULL || d->size > NH_PAIRWISE_MAX || d->size < 2)
        return 0;
    if (comm == MPI_COMM_WORLD)
        return 1;
    return nh_mpi_Comm_size(MPI_COMM_WORLD, &world) == MPI_SUCCESS && world == d->size &&
           nh_mpi_Comm_compare(comm, MPI_COMM_WORLD, &same) == MPI_SUCCESS &&
           (same == MPI_IDENT || same == MPI_CONGRUENT);
}

static int exchange(det *d)
{
    /* the summaries of the candidates there are (2 ranks have one): a
     * rank with other candidates (a hint that differs) sends fewer or
     * more, and the candidate lists' hash then fails the agreement; a
     * receive takes up to all of them and is zeroed past what came */
    int rc = MPI_SUCCESS, n = GW_MASK(d->ncand < NH_DET_SUMMED ? d->ncand : NH_DET_SUMMED);
    memset(d->all, 0, (size_t)d->size * GW_COUNT * sizeof(uint64_t));
    memcpy(d->all + (size_t)d->rank * GW_COUNT, d->words, sizeof(d->words));
    for (int i = 0; i < d->size && !rc; i++) {
        if (i == d->rank)
            continue;
        if (!(rc = nh_irecv(d->all + (size_t)i * GW_COUNT, GW_COUNT, MPI_UINT64_T, i, AGREE_TAG,
                            nh_world_priv, &d->pair[d->npair])))
            d->npair++;
        if (!rc && !(rc = nh_isend(d->words, n, MPI_UINT64_T, i, AGREE_TAG, nh_world_priv,
                                   &d->pair[d->npair])))
            d->npair++;
    }
    return rc;
}

/* Which candidate grid (if any) every rank's lists fit, identically
 * everywhere.  The fast agreement settles tori in one collective of 24
 * bytes a rank (and_all).  Each rank takes the first candidate its own
 * lists fit with its own sorted destination offsets as the template and
 * hashes that choice with everything that must agree (the candidate list,
 * the isomorphic hint, the degree, the offsets; 62 bits); 0 where it has
 * none, a malformed hint or a reordered communicator.  A bitwise AND of
 * the hash h and its complement gives AND(h) and ~OR(h): equal iff every
 * h is.  Where every rank has one template, MPI's graph consistency gives
 * rank r the sources r - t, so on a torus they are matched to the
 * template when first needed (nh_nbhd_torus_dests, plan_sched.c) and
 * repeat where the destinations do.  The spare bits carry whether no
 * rank's sources repeat (MPI's own exchange may then stand in; MPICH
 * orders repeated edges wrongly), whether no rank forces
 * store-and-forward and (bit 63 of the second word) whether no rank has a
 * GPU runtime loaded without promising host buffers (util/gpu.h).  A
 * third word agrees on the largest window bucket
 * (util/window.h): bucket b as the bits b and up, whose AND keeps the
 * bits from the largest b up.  Anything else takes the general
 * agreement; on up to NH_DET_GATHER ranks both, and store-and-forward's,
 * travel in one collective (agree_all). */
int nh_det_agree_start(det *d, const nh_hint *h, int order, int *native, int no_stfw,
                       MPI_Comm comm)
{
    int kf = -1;
    unsigned hash = nh_det_cand_hash(d->c, d->ncand) ^ (h->iso == 1 ? 0x2545f491u : 0);
    uint64_t x = 0;
    d->req = MPI_REQUEST_NULL;
    /* Inferred candidates are all tried (the cheapest fit wins), others
     * until the first fit; where the lists repeat a peer (a property of
     * the lists: every grid's template repeats it, and pick then keeps the
     * first fit), inferred meshes are not, but inferred tori still are:
     * their template hashes may settle the agreement (tori_settled), which
     * takes only neighborhoods every rank has built. */
    int inferred = d->ncand > 0 && strcmp(d->c[0].source, "inferred") == 0, every = inferred;
    for (int k = 0; k < d->ncand && (inferred || kf < 0); k++) {
        if (!every && kf >= 0 && !is_torus(&d->c[k]))
            continue;
        if ((d->pending[k] = nh_nbhd_torus_dests(&d->nbs[k], &d->c[k].g, d->rank, d->outdeg,
                                                 d->dsts, d->indeg) == 0) ||
            nh_nbhd_init(&d->nbs[k], &d->c[k].g, d->rank, d->outdeg, NULL, d->outdeg, d->dsts,
                         d->indeg, d->srcs) == 0) {
            d->fit[kf = k] = 1;
            every = every && !nh_det_repeats_offset(&d->nbs[k]);
        }
    }
    if (kf >= 0)
        kf = nh_det_pick(d->c, d->ncand, d->fit, d->nbs);
    /* Repeated sources: the fit saw them where it sorted its lists. */
    *native = kf >= 0 && d->nbs[kf].src_repeats >= 0 ? !d->nbs[kf].src_repeats
                                                     : !nh_det_repeats(d->srcs, d->indeg);
    if (kf >= 0 && !h->bad && order) {
        int head[3] = {(int)hash, d->outdeg, kf};
        x = hash62(fnv64(fnv64(0xcbf29ce484222325ull, head, 3), d->nbs[kf].off,
                         (size_t)d->outdeg * d->c[kf].g.ndims));
    }
    d->v[0] = x << 1 | (*native != 0);
    /* bit 63, free above the hash: set where this rank is safe for host
     * copies (util/gpu.h), so the AND says whether every rank is */
    d->v[1] = (~x & M62) << 1 | (no_stfw != 0) | (uint64_t)!d->gpu << 63;
    d->v[2] = ~0ull << d->win;
    d->kf = kf;
    d->hash = hash;
    d->order = order;
    if (d->size > NH_DET_GATHER)
        return MPI_SUCCESS;
    /* The general agreement's words take the sources themselves (the
     * templates may differ). */
    long long sl[SL_COUNT];
    memcpy(d->words, d->v, sizeof(d->v));
    general_words(d, h, order, hash, !nh_det_repeats(d->srcs, d->indeg), no_stfw, sl);
    memcpy(d->words + GW_SL, sl, sizeof(sl));
    memcpy(d->words + GW_STFW, d->stfw, sizeof(d->stfw));
    offset_masks(d, !h->bad && order);
    /* (malloc'ed for the ranks there are: a creation's cost at 2 ranks is
     * a few microseconds, and zeroing room for NH_DET_GATHER was a tenth) */
    if (!(d->all = malloc((size_t)d->size * GW_COUNT * sizeof(uint64_t))))
        return MPI_ERR_NO_MEM;
    if (pairwise(d, comm))
        return exchange(d);
    return nh_mpi_Iallgather(d->words, GW_COUNT, MPI_UINT64_T, d->all, GW_COUNT, MPI_UINT64_T, comm,
                           &d->req);
}

int nh_det_agree_finish(det *d, const nh_hint *h, int *native, int *no_stfw, int *chosen, int *s)
{
    int rc;
    if (d->size <= NH_DET_GATHER) {
        if ((rc = d->npair ? nh_waitall(d->npair, d->pair, MPI_STATUSES_IGNORE)
                           : nh_mpi_Wait(&d->req, MPI_STATUS_IGNORE)))
            return rc;
        d->npair = 0;
        return agree_all(d, h, native, no_stfw, chosen, s);
    }
    if ((rc = and_all(d->v, d->graph, d->size)))
        return rc;
    d->gpu = !(d->v[1] >> 63);
    if (fast_settled(d, d->v, d->kf, native, no_stfw, chosen, s))
        return MPI_SUCCESS;
    drop_fits(d);                                /* the general agreement builds them again */
    *native = !nh_det_repeats(d->srcs, d->indeg); /* the sources themselves, templates may differ */
    long long sl[SL_COUNT];
    general_words(d, h, d->order, d->hash, *native, *no_stfw, sl);
    if ((rc = nh_mpi_Allreduce(MPI_IN_PLACE, sl, SL_COUNT, MPI_LONG_LONG, MPI_MIN, d->graph)))
        return rc;
    return general_finish(d, h, sl, NULL, -1, native, no_stfw, chosen, s);
}

void nh_det_fini(det *d)
{
    if (d->req != MPI_REQUEST_NULL) /* every rank started it: it completes */
        nh_mpi_Wait(&d->req, MPI_STATUS_IGNORE);
    if (d->npair)
        nh_waitall(d->npair, d->pair, MPI_STATUSES_IGNORE);
    drop_fits(d);
    free(d->mine);
    free(d->perm);
    free(d->all);
}
