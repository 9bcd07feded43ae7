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
#include "util/window.h"

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

/* What every rank's analysis must agree on (core/facts.h), declared
 * once.  The fast agreement's facts come first, with their widths: on
 * graphs of more than NH_DET_GATHER ranks they travel in its AND words
 * (and_all), and the general agreement's, after F_GENERAL, in one MIN
 * reduction where the fast one did not settle it.  On up to
 * NH_DET_GATHER ranks one allgather carries every rank's values of all
 * of them, and store-and-forward's (nh_stfw_facts), folded here. */
enum {
    F_KEY,        /* this rank's first fit and all that must agree, hashed (62 bits); 0: none */
    F_NATIVE_FIT, /* no rank's sources repeat, as its fit sees them */
    F_NOSTFW,     /* no rank forces store-and-forward */
    F_HOST,       /* every rank is safe for host copies (util/gpu.h) */
    F_WIN,        /* the largest window bucket (util/window.h) */
    F_GENERAL,
    F_BAD = F_GENERAL, /* the first rank whose hint is malformed, else the size */
    F_ORDER,           /* the graph keeps the ranks of the communicator it came from */
    F_CANDS,           /* the candidate list's hash */
    F_NATIVE,          /* no rank's sources repeat (the sources themselves) */
    F_TOP,             /* the largest out-degree, then the smallest rank: TOP below */
    F_HINT,            /* the info keys every rank must give alike, hashed (hint_hash) */
    F_COUNT
};
static const nh_fact facts[F_COUNT] = {
    [F_KEY] = {NH_FACT_SAME, 62}, [F_NATIVE_FIT] = {NH_FACT_MIN, 1}, [F_NOSTFW] = {NH_FACT_MIN, 1},
    [F_HOST] = {NH_FACT_MIN, 1},  [F_WIN] = {NH_FACT_MAX, 6},        [F_BAD] = {NH_FACT_MIN, 0},
    [F_ORDER] = {NH_FACT_MIN, 0}, [F_CANDS] = {NH_FACT_SAME, 0},     [F_NATIVE] = {NH_FACT_MIN, 0},
    [F_TOP] = {NH_FACT_MAX, 0},   [F_HINT] = {NH_FACT_SAME, 0},
};
_Static_assert(F_COUNT == NH_DET_FACTS, "detect_int.h counts the facts");
_Static_assert(NH_WIN_BUCKETS < 64, "F_WIN is 6 bits wide");
#define TOP(deg, rank, size) ((long long)(deg) * (size) + ((size)-1 - (rank)))
#define TOP_RANK(t, size) ((size)-1 - (int)((t) % (size)))
#define TOP_DEG(t, size) ((t) / (size))

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

/* The info keys whose values every rank must give alike, hashed: where
 * they differ the ranks would run different schedules (a forced
 * algorithm or port count on some ranks only, the isomorphic=false of
 * some, whose ranks offer no candidate).  Folded into the fast
 * agreement's key (F_KEY), so that ranks that differ fall to the general
 * agreement, whose F_HINT then fails the analysis on every rank. */
static uint64_t hint_hash(const nh_hint *h)
{
    int v[3] = {h->iso, (int)h->algo, h->ports};
    return fnv64(0x84222325cbf29ce4ull, v, 3) & M62;
}

/* The general agreement, where the fast one did not settle it (meshes,
 * graphs whose ranks see different offsets, malformed hints): its facts
 * (one MIN reduction, or the allgather) name the rank with the largest
 * out-degree (its offsets are the full template); its broadcast, and a
 * MIN reduction over which candidates every rank fits, follow
 * (general_finish).  This rank's values of its facts but F_NATIVE
 * (sorting the sources waits until it is needed). */
static void general_facts(const det *d, const nh_hint *h, int order, unsigned hash, long long *f)
{
    f[F_HINT] = (long long)hint_hash(h);
    f[F_BAD] = h->bad ? d->rank : d->size;
    f[F_ORDER] = order;
    f[F_CANDS] = hash;
    f[F_TOP] = TOP(d->outdeg, d->rank, d->size);
}

/* Templates of up to this many ints (every candidate's) travel whole in
 * one broadcast beside which candidates the top rank vouches for.  Larger
 * ones, where a rank has very many peers (an irregular graph's hub: at
 * 16K ranks its template would be 12 MB to every rank), wait for the
 * edge count: a candidate's template must give the graph's edges
 * (nh_grid_edges), which a hub's rarely does, and only the candidates
 * that pass travel, after their flags. */
#define NH_TEMPLATE_WHOLE 4096

/* The rest once the facts f are agreed.  may[k] (NULL: unknown) rules
 * candidates out beforehand, identically everywhere; where it rules out
 * every one, nothing more is exchanged.  edges: the graph's edge count,
 * or -1 (then reduced here where the templates are large). */
static int general_finish(det *d, const nh_hint *h, const long long *f, const int *may,
                          long long edges, int *native, int *chosen, int *s)
{
    int rc, *tbuf = NULL, any = !may;
    if (f[F_BAD] < d->size) { /* a malformed hint (api/create.c): the first such rank says why */
        if (d->rank == f[F_BAD])
            nh_error("%s", h->msg);
        return MPI_ERR_INFO_VALUE;
    }
    if (f[F_HINT] == NH_FACT_DIFFER) { /* (they would take different schedules) */
        if (d->rank == 0)
            nh_error("the info keys isomorphic, nhood_algorithm and nhood_ports differ across a "
                     "graph's ranks; each must be the same on every rank");
        return MPI_ERR_INFO_VALUE;
    }
    *native = (int)f[F_NATIVE];
    for (int k = 0; may && k < d->ncand; k++)
        any |= may[k];
    if (!f[F_ORDER] || f[F_CANDS] == NH_FACT_DIFFER || !any)
        return MPI_SUCCESS;
    int top = TOP_RANK(f[F_TOP], d->size);
    *s = (int)TOP_DEG(f[F_TOP], d->size);
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

/* v[0..NH_DET_AND) become their bitwise AND over all ranks.  On up to
 * NH_GATHER_MAX ranks an allgather and a local AND: on MPICH 4.0.2 at 2
 * ranks it costs half what MPI_Allreduce does (0.6 against 1.0 us). */
#define NH_GATHER_MAX 256

static int and_all(uint64_t *v, MPI_Comm comm, int size)
{
    if (size > NH_GATHER_MAX)
        return nh_mpi_Allreduce(MPI_IN_PLACE, v, NH_DET_AND, MPI_UINT64_T, MPI_BAND, comm);
    uint64_t all[NH_DET_AND * NH_GATHER_MAX];
    int rc = nh_mpi_Allgather(v, NH_DET_AND, MPI_UINT64_T, all, NH_DET_AND, MPI_UINT64_T, comm);
    for (int i = 0; !rc && i < size; i++)
        for (int j = 0; j < NH_DET_AND; j++)
            v[j] &= all[NH_DET_AND * i + j];
    return rc;
}

/* The fast agreement's facts f are agreed: what they always settle, and
 * 1 where they settle the candidate too (every rank's first fit the same
 * kf, this rank's). */
static int fast_settled(det *d, const long long *f, int *native, int *no_stfw, int *chosen, int *s)
{
    d->win = (int)f[F_WIN];
    d->gpu = !f[F_HOST];
    *no_stfw = (int)f[F_NOSTFW];
    if (f[F_KEY] == NH_FACT_DIFFER || f[F_KEY] == 0)
        return 0;
    *chosen = d->kf;
    *s = d->outdeg;
    *native = (int)f[F_NATIVE_FIT];
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
    GW_FACTS = 0,
    GW_STFW = GW_FACTS + F_COUNT,
    GW_SUMMARY = GW_STFW + NH_STFW_PRE, /* candidate k's mask, then its hash */
    GW_COUNT = GW_SUMMARY + 2 * NH_DET_SUMMED
};
_Static_assert(GW_COUNT == NH_DET_WORDS, "detect_int.h sizes the gathered words");
#define GW_MASK(k) (GW_SUMMARY + 2 * (k))
#define GW_HASH(k) (GW_SUMMARY + 2 * (k) + 1)

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
            int nd = g->ndims, head[3] = {(int)(unsigned)d->fact[F_CANDS], d->outdeg, k};
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

/* The one allgather's outcome (d->all): every rank's facts and
 * store-and-forward's, folded here identically on every rank. */
static int agree_all(det *d, const nh_hint *h, int *native, int *no_stfw, int *chosen, int *s)
{
    long long f[F_COUNT], x[F_COUNT];
    long long *st = d->stfw, y[NH_STFW_PRE];
    int may[NH_MAXCAND];
    for (int i = 0; i < d->size; i++) {
        const uint64_t *w = d->all + (size_t)i * GW_COUNT;
        memcpy(i ? x : f, w + GW_FACTS, sizeof(x));
        memcpy(i ? y : st, w + GW_STFW, sizeof(y));
        if (i) {
            nh_facts_fold(facts, F_COUNT, f, x);
            nh_facts_fold(nh_stfw_facts, NH_STFW_PRE, st, y);
        }
    }
    d->stfw_agreed = 1;
    if (f[F_HINT] == NH_FACT_DIFFER) /* (general_finish fails it on every rank) */
        return general_finish(d, h, f, NULL, -1, native, chosen, s);
    if (fast_settled(d, f, native, no_stfw, chosen, s))
        return MPI_SUCCESS;
    if (tori_settled(d, chosen, s)) {
        *native = (int)f[F_NATIVE_FIT];
        return MPI_SUCCESS;
    }
    drop_fits(d); /* the general agreement builds them again */
    /* On a torus every peer exists: a rank's offsets are the whole
     * template, elsewhere those of its peers that exist. */
    int top = TOP_RANK(f[F_TOP], d->size);
    long long tdeg = TOP_DEG(f[F_TOP], d->size);
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
            long long t;
            memcpy(&t, w + GW_FACTS + F_TOP, sizeof(t));
            uint64_t m = w[GW_MASK(k)];
            may[k] =
                (m >> 63) && !(m & ~tm) && (!torus || (m == tm && TOP_DEG(t, d->size) == tdeg));
        }
    }
    return general_finish(d, h, f, may, st[NH_STFW_EDGES], native, chosen, s);
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
 * bytes a rank (and_all, the fast facts' AND words).  Each rank takes
 * the first candidate its own lists fit with its own sorted destination
 * offsets as the template and hashes that choice with everything that
 * must agree (the candidate list, the isomorphic hint, the degree, the
 * offsets; 62 bits, F_KEY); 0 where it has none, a malformed hint or a
 * reordered communicator.  Where every rank has the same key, MPI's graph
 * consistency gives rank r the sources r - t, so on a torus they are
 * matched to the template when first needed (nh_nbhd_torus_dests,
 * plan_sched.c) and repeat where the destinations do.  Beside the key
 * travel whether no rank's sources repeat (MPI's own exchange may then
 * stand in; MPICH orders repeated edges wrongly), whether no rank forces
 * store-and-forward, whether every rank is safe for host copies (no GPU
 * runtime loaded without the promise of host buffers: util/gpu.h) and
 * the largest window bucket (util/window.h).  Anything else takes the
 * general agreement; on up to NH_DET_GATHER ranks both, and
 * store-and-forward's, travel in one collective (agree_all). */
int nh_det_agree_start(det *d, const nh_hint *h, int order, int *native, int no_stfw,
                       MPI_Comm comm)
{
    int kf = -1;
    unsigned hash =
        nh_det_cand_hash(d->c, d->ncand) ^ (h->iso == 1 ? 0x2545f491u : 0) ^ (unsigned)hint_hash(h);
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
    } else if (h->iso == 0 && !h->bad && order) {
        /* isomorphic=false: no candidate (start, detect.c), settled as
         * such where every rank says so alike */
        x = hash62(0x9e3779b97f4a7c15ull ^ hash);
    }
    long long *f = d->fact;
    f[F_KEY] = (long long)x;
    f[F_NATIVE_FIT] = *native != 0;
    f[F_NOSTFW] = no_stfw != 0;
    f[F_HOST] = !d->gpu;
    f[F_WIN] = d->win;
    d->kf = kf;
    general_facts(d, h, order, hash, f);
    if (d->size > NH_DET_GATHER) /* the fast facts' words now, the general ones when needed */
        return nh_facts_and_pack(facts, F_COUNT, f, d->v, NH_DET_AND) < 0 ? MPI_ERR_INTERN
                                                                             : MPI_SUCCESS;
    /* The general agreement's F_NATIVE takes the sources themselves (the
     * templates may differ). */
    f[F_NATIVE] = !nh_det_repeats(d->srcs, d->indeg);
    memcpy(d->words + GW_FACTS, f, sizeof(d->fact));
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
    long long *f = d->fact;
    if ((rc = and_all(d->v, d->graph, d->size)))
        return rc;
    nh_facts_and_unpack(facts, F_GENERAL, d->v, f);
    if (fast_settled(d, f, native, no_stfw, chosen, s))
        return MPI_SUCCESS;
    drop_fits(d); /* the general agreement builds them again */
    f[F_NATIVE] = !nh_det_repeats(d->srcs, d->indeg);
    if ((rc = nh_facts_allreduce(facts + F_GENERAL, F_COUNT - F_GENERAL, f + F_GENERAL,
                                 f + F_GENERAL, d->graph)))
        return rc;
    return general_finish(d, h, f, NULL, -1, native, chosen, s);
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
