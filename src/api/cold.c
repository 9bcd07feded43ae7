/* A cold graph's all-to-all calls where the MPI library orders a repeated
 * peer's blocks wrongly (MPICH before 5.0: nh_mpilib_dup_edges_wrong;
 * docs/platforms.md, "Duplicate edges").
 *
 * The cold tier hands a graph's first calls to MPI without any agreement
 * among the ranks (docs/algorithms.md, "Tiers"), so no rank knows whether
 * another lists a peer twice.  Every rank therefore makes the same MPI
 * call, whose result does not depend on how the library pairs a repeated
 * peer's messages:
 *  - MPI_Neighbor_alltoall goes to MPI as MPI_Neighbor_alltoallv of the
 *    same blocks (v as v, w as w); a rank that lists no peer twice passes
 *    its own buffers;
 *  - a rank that lists a peer twice (the peer then lists it twice too: an
 *    edge is in both ranks' lists) sends all of that peer's blocks in one
 *    message at the peer's first place, in list order, and nothing
 *    (count 0) at its other places; at every place of a repeated source
 *    it receives the whole of that source's blocks into one region, so
 *    that whichever place MPI matches the message with, the data land in
 *    the region (the empty messages write nothing: a receive count is an
 *    upper bound, and no location is written twice), and nhood copies
 *    the blocks out in list order;
 *  - a rank's blocks to itself never go to MPI (count 0 at those places on
 *    both sides, a rank being its only peer there): they are copied at
 *    the start, each to the receive place the standard pairs it with
 *    (v and regular calls; MPICH 4.0.2, 2 ranks, 3-D Moore ialltoall:
 *    1.42-1.46 of MPI's own at 4 KiB before, 1.20-1.38 after; 64 KiB
 *    1.68-1.72, 1.32-1.36; 1 MiB 2.27-2.46, 2.00-2.18);
 *  - v: the regions are in the call's own types (one per side);
 *    w: MPI_BOTTOM with absolute addresses, a repeated peer's blocks
 *    packed (MPI_PACKED) and the others the program's own.
 * Nonblocking and persistent calls of such a rank are nhood's requests
 * around MPI's (exec/request.h, nh_req_wrap_ops): the copies in at each
 * start, out at completion.  allgather and allgatherv need none of this:
 * every place of a source receives the same block.
 *
 * MPICH 4.0 misorders only the regular form (it posts the receives of
 * MPI_Neighbor_alltoall in reverse list order, and those of the v and w
 * forms in list order; 4.1 reverses all three): there every rank makes a
 * regular call as the v call of the same blocks, and v and w calls as
 * the program made them, with no grouping and no copy (nh_right_call).
 *
 * The grouped form (nh_grouped_call) is MPI's own exchange among the
 * learning's candidates on analyzed graphs where the program's call would
 * be wrong (pmpi/pack, select/mpi_own.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/cold_int.h"
#include "exec/request.h"
#include "nh_impl.h"
#include "util/gpu.h"
#include "util/mpilib.h"
#include "util/spare.h"

#ifndef NHOOD_SMPI /* SimGrid's own exchange follows the lists (util/mpilib.h) */

/* A call's state on a rank that lists a peer twice (one allocation):
 * its sides (a nonblocking or persistent call's arrays copied: the
 * large-count forms' narrowed arrays live for the call only), MPI's
 * arrays and the regions; the lists' groups are the plan's. */
typedef struct op {
    nh_cold_side s, r;
    MPI_Comm comm;
    int w;
    const int *sfirst, *snext, *rfirst, *rnext; /* groups by peer (plan.h, nh_cold_lists) */
    int *cs, *cr, *ds, *dr;               /* MPI's counts; displacements (v) */
    MPI_Aint *bs, *br;                    /* ... (w: absolute) */
    MPI_Datatype *ts, *tr;                /* w: MPI's types */
    char *regs, *regr;                    /* the regions: v typed, w packed */
    char *mem;                            /* their memory (nh_spare_take; NULL: in o's block) */
    int sself, rself;                     /* v: the first place of this rank itself among the
                                           * destinations, the sources (-1: none); its blocks
                                           * are copied here, MPI moves none of them */
    nh_cold_layout ls, lr; /* v: the types' */
    MPI_Datatype *kept;    /* types nhood uses after the call returns (duplicated), nkept */
    int nkept;
} op;

/* v regions up to this many bytes share their call's state block (one
 * allocation); larger ones, and w's, come from the block kept for data. */
#define NH_COLD_INLINE 65536

/* The bytes a region of n elements of layout l spans; *lo: the offset
 * of its first byte from the region's base (MPI's buffer argument). */
static size_t span(long n, const nh_cold_layout *l, MPI_Aint *lo)
{
    MPI_Aint last = n > 0 ? (MPI_Aint)(n - 1) * l->ext : 0, hi;
    *lo = (last < 0 ? last : 0) + l->tlb;
    hi = (last > 0 ? last : 0) + l->tlb + l->text;
    return n > 0 && hi > *lo ? (size_t)(hi - *lo) : 0;
}

/* v: the elements a side's region holds: all its places' (all, from the
 * call's one pass over its counts) but those of MPI_PROC_NULL (nulls
 * places) and of the group at self (next). */
static long total_v(const nh_cold_side *s, long all, int nulls, const int *first, const int *next,
                    int self)
{
    long t = all;
    for (int k = 0; nulls && k < s->n; k++)
        if (first[k] < 0)
            t -= nh_cold_cnt(s, k);
    for (int j = self; j >= 0; j = next[j])
        t -= nh_cold_cnt(s, j);
    return t;
}

/* v: MPI's counts and displacements for one side (first/next: its
 * groups): a group's total at its first place and nothing at the others
 * (send), or the total at each of its places (receive), at the group's
 * offset in the region (its size: total_v); nothing at the group at self.
 * Places written nothing (MPI_PROC_NULL's, a sent group's later places)
 * are left as they are (zero). */
static int groups_v(const nh_cold_side *s, const int *first, const int *next, int recv, int self,
                    int *c, int *d)
{
    const nh_cold_side x = *s; /* (a local: the stores below cannot change it) */
    long off = 0;
    for (int k = 0; k < x.n; k++) {
        if (first[k] != k)
            continue;
        long t = 0;
        if (k != self)
            for (int j = k; j >= 0; j = next[j])
                t += nh_cold_cnt(&x, j);
        if (t > INT32_MAX || off + t > INT32_MAX)
            return MPI_ERR_COUNT;
        if (!recv) { /* (the group's other places stay as they are: zero) */
            c[k] = (int)t;
            d[k] = (int)off;
        }
        for (int j = k; recv && j >= 0; j = next[j]) {
            c[j] = (int)t;
            d[j] = (int)off;
        }
        off += t;
    }
    return MPI_SUCCESS;
}

/* v, contiguous data on the host (l: the side's layout, size == extent):
 * one copy per run of blocks that follow each other both in the
 * program's buffer and in the region.  The side is read through a local,
 * which no copy can change (through s the compiler reloads its fields
 * after every memcpy: this runs at every call). */
static void move_contig(const nh_cold_side *s, const int *first, const int *next, const int *d,
                        int self, char *reg, const nh_cold_layout *l, int out)
{
    const nh_cold_side x = *s;
    nh_cold_run cur = {0};
    for (int k = 0; k < x.n; k++) {
        if (first[k] != k || k == self)
            continue;
        char *at = reg + (MPI_Aint)d[k] * l->ext + l->tlb;
        for (int j = k; j >= 0; j = next[j]) {
            char *user = nh_cold_addr(&x, j) + l->tlb;
            size_t bytes = (size_t)nh_cold_cnt(&x, j) * (size_t)l->size;
            nh_cold_run_add(&cur, out ? at : user, out ? user : at, bytes);
            at += bytes;
        }
    }
    nh_cold_run_end(&cur);
}

/* v: the program's blocks into the send region, or out of the receive
 * region, group by group in list order. */
static int move_v(op *o, int out)
{
    const nh_cold_side *s = out ? &o->r : &o->s;
    const int *first = out ? o->rfirst : o->sfirst, *next = out ? o->rnext : o->snext;
    const int *d = out ? o->dr : o->ds;
    int self = out ? o->rself : o->sself;
    char *reg = out ? o->regr : o->regs;
    const nh_cold_layout *l = out ? &o->lr : &o->ls;
    if (l->contig && !__atomic_load_n(&nh_gpu_runtimes, __ATOMIC_RELAXED)) {
        move_contig(s, first, next, d, self, reg, l, out);
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS;
    for (int k = 0; !rc && k < s->n; k++) {
        if (first[k] != k || k == self)
            continue;
        MPI_Aint pos = d[k];
        for (int j = k; !rc && j >= 0; j = next[j]) {
            char *at = reg + pos * l->ext, *user = nh_cold_addr(s, j);
            pos += nh_cold_cnt(s, j);
            rc = out ? nh_cold_copy(at, nh_cold_cnt(s, j), s->type, l, user, s->type, l, o->comm)
                     : nh_cold_copy(user, nh_cold_cnt(s, j), s->type, l, at, s->type, l, o->comm);
        }
    }
    return rc;
}

/* w: the blocks of the group at place k of s (next) as one datatype at
 * MPI_BOTTOM (their absolute addresses), freed with o. */
static int group_w(op *o, const nh_cold_side *s, int k, const int *next, MPI_Datatype *out)
{
    int rc = nh_cold_group_type(s, k, next, 0, out);
    if (!rc)
        o->kept[o->nkept++] = *out;
    return rc;
}

/* w: MPI's arrays for one side: a place of a peer listed once keeps the
 * program's block (absolute address), a repeated peer's group travels
 * packed (sizes from MPI_Pack_size: the same on both ends, whose type
 * signatures match), or where inplace and it packs to at least
 * NH_COLD_INPLACE_MIN bytes as one datatype of its blocks (group_w: one
 * at its first place to send, at each of its places to receive, as
 * cold_typed.c; both ends decide alike, from the same size); *bytes: the
 * packed region's size. */
static int groups_w(op *o, const nh_cold_side *s, const int *first, const int *next, int recv,
                    int inplace, int *c, MPI_Aint *b, MPI_Datatype *t, MPI_Aint *bytes)
{
    MPI_Aint off = 0;
    for (int k = 0; k < s->n; k++) {
        if (first[k] < 0) { /* MPI_PROC_NULL */
            c[k] = 0;
            b[k] = 0;
            t[k] = MPI_BYTE;
        }
        if (first[k] != k)
            continue;
        if (next[k] < 0) { /* listed once */
            c[k] = nh_cold_cnt(s, k);
            b[k] = (MPI_Aint)(uintptr_t)nh_cold_addr(s, k);
            t[k] = nh_cold_typ(s, k);
            continue;
        }
        long sum = 0;
        for (int j = k; j >= 0; j = next[j]) {
            int size, rc = nh_mpi_Pack_size(nh_cold_cnt(s, j), nh_cold_typ(s, j), o->comm, &size);
            if (rc)
                return rc;
            sum += size;
        }
        if (sum > INT32_MAX)
            return MPI_ERR_COUNT;
        if (inplace && sum >= NH_COLD_INPLACE_MIN) { /* in place, as one datatype */
            int rc = group_w(o, s, k, next, &t[k]);
            if (rc)
                return rc;
            for (int j = k; j >= 0; j = next[j]) {
                c[j] = recv || j == k;
                b[j] = 0;
                t[j] = t[k];
            }
            continue;
        }
        for (int j = k; j >= 0; j = next[j]) {
            c[j] = recv || j == k ? (int)sum : 0;
            b[j] = off; /* made absolute once the region exists */
            t[j] = MPI_PACKED;
        }
        off += sum;
    }
    *bytes = off;
    return MPI_SUCCESS;
}

/* Is place k in a repeated peer's group packed into a region (t: MPI's
 * types for the side)? */
static int packed(const int *first, const int *next, const MPI_Datatype *t, int k)
{
    return first[k] >= 0 && (first[k] != k || next[k] >= 0) && t[k] == MPI_PACKED;
}

static void absolute_w(const nh_cold_side *s, const int *first, const int *next,
                       const MPI_Datatype *t, MPI_Aint *b, const char *reg)
{
    for (int k = 0; k < s->n; k++)
        if (packed(first, next, t, k))
            b[k] += (MPI_Aint)(uintptr_t)reg;
}

/* w: the repeated peers' groups packed from the program's blocks, or
 * unpacked into them. */
static int move_w(op *o, int out)
{
    const nh_cold_side *s = out ? &o->r : &o->s;
    const int *first = out ? o->rfirst : o->sfirst, *next = out ? o->rnext : o->snext;
    const int *c = out ? o->cr : o->cs;
    const MPI_Aint *b = out ? o->br : o->bs;
    const MPI_Datatype *t = out ? o->tr : o->ts;
    int rc = MPI_SUCCESS;
    for (int k = 0; !rc && k < s->n; k++) {
        if (first[k] != k || !packed(first, next, t, k))
            continue;
        char *reg = (char *)(uintptr_t)b[k];
        int pos = 0, size = c[k]; /* the group's, at its first place on both sides */
        for (int j = k; !rc && j >= 0; j = next[j])
            rc = out ? nh_unpack(reg, size, &pos, nh_cold_addr(s, j), nh_cold_cnt(s, j),
                                 nh_cold_typ(s, j), o->comm)
                     : nh_pack(nh_cold_addr(s, j), nh_cold_cnt(s, j), nh_cold_typ(s, j), reg, size,
                               &pos, o->comm);
        if (!out && !rc && pos < size) /* (MPI_Pack_size is an upper bound: MPI sends it all) */
            memset(reg + pos, 0, (size_t)(size - pos));
    }
    return rc;
}

static int op_in(void *ctx)
{
    op *o = ctx;
    int rc = o->w ? move_w(o, 0) : move_v(o, 0);
    return rc || o->w ? rc
                      : nh_cold_self(&o->s, &o->ls, o->sself, o->snext, &o->r, &o->lr, o->rself,
                                     o->rnext, o->comm);
}

static int op_out(void *ctx)
{
    op *o = ctx;
    return o->w ? move_w(o, 1) : move_v(o, 1);
}

static void op_free(void *ctx)
{
    op *o = ctx;
    for (int i = 0; i < o->nkept; i++)
        nh_type_free(&o->kept[i]);
    if (o->mem)
        nh_spare_give(o->mem);
    nh_spare_give((char *)o); /* (the block MPI's arrays and small v regions share) */
}

static const nh_wrap_ops op_ops = {op_in, op_out, op_free};

/* t, held for use after the call returns: a duplicate unless predefined
 * (the program may free its own meanwhile), recorded for op_free. */
static int keep(op *o, MPI_Datatype t, MPI_Datatype *out)
{
    int ni, na, nd, comb, rc;
    *out = t;
    if (nh_cold_common_type(t))
        return MPI_SUCCESS;
    if ((rc = nh_mpi_Type_get_envelope(t, &ni, &na, &nd, &comb)) || comb == MPI_COMBINER_NAMED)
        return rc;
    if ((rc = nh_type_dup(t, out)))
        return rc;
    o->kept[o->nkept++] = *out;
    return MPI_SUCCESS;
}

/* A bump allocator over one block. */
static void *take(char **at, size_t bytes)
{
    void *p = *at;
    *at += (bytes + 15) & ~(size_t)15;
    return p;
}

/* ... zeroed (MPI's arrays: a place no group writes, MPI_PROC_NULL's,
 * moves nothing). */
static void *take0(char **at, size_t bytes)
{
    return memset(take(at, bytes), 0, bytes);
}

/* The sides of the call (w: the w arrays; else v's, or a regular call's
 * count), arrays copied into o where copy. */
static void sides(op *o, nh_coll coll, const nh_args *a, int outdeg, int indeg, int copy, char **at)
{
    nh_cold_side *s = &o->s, *r = &o->r;
    nh_cold_sides(coll, a, outdeg, indeg, o->ls.ext, o->lr.ext, s, r);
    if (!copy)
        return;
    for (int i = 0; i < 2; i++) {
        nh_cold_side *x = i ? r : s;
        if (x->counts)
            x->counts =
                memcpy(take(at, (size_t)x->n * sizeof(int)), x->counts, (size_t)x->n * sizeof(int));
        if (x->displs)
            x->displs =
                memcpy(take(at, (size_t)x->n * sizeof(int)), x->displs, (size_t)x->n * sizeof(int));
        if (x->bdispls)
            x->bdispls = memcpy(take(at, (size_t)x->n * sizeof(MPI_Aint)), x->bdispls,
                                (size_t)x->n * sizeof(MPI_Aint));
        if (x->types) {
            MPI_Datatype *t = take(at, (size_t)x->n * sizeof(MPI_Datatype));
            for (int k = 0; k < x->n; k++)
                t[k] = x->types[k];
            x->types = t;
        }
    }
}

/* The state of a call on a rank that lists a peer twice: MPI's arrays
 * and the regions.  persistent: the send side's types kept too (packed
 * at every start); nonblocking and persistent: the receive side's
 * (unpacked at completion) and the arrays copied. */
static int op_make(nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                   const nh_cold_lists *l, const nh_cold_layout *lsp, const nh_cold_layout *lrp,
                   long es, long er, op **out)
{
    int ns = l->outdeg, nr = l->indeg, copy = form != NH_FORM_BLOCKING,
        w = coll == NH_COLL_ALLTOALLW, rc;
    size_t per = 4 * sizeof(int) + 2 * sizeof(MPI_Aint) + 3 * sizeof(MPI_Datatype), rs = 0, rr = 0;
    nh_cold_layout ls = *lsp, lr = *lrp;
    MPI_Aint los = 0, lor = 0;
    int sself = w ? -1 : l->dself, rself = w ? -1 : l->sself; /* sends go to the destinations */
    if (!w) { /* the v regions' bytes, in the same block */
        nh_cold_side s = {
            .n = ns, .count = a->scount, .counts = coll == NH_COLL_ALLTOALL ? NULL : a->scounts};
        nh_cold_side r = {
            .n = nr, .count = a->rcount, .counts = coll == NH_COLL_ALLTOALL ? NULL : a->rcounts};
        rs = span(total_v(&s, es, l->dnull, l->dfirst, l->dnext, sself), &ls, &los);
        rr = span(total_v(&r, er, l->snull, l->sfirst, l->snext, rself), &lr, &lor);
    }
    /* The regions: v's up to NH_COLD_INLINE bytes in the same block, above
     * it (and w's) from the block kept for data (util/spare.h: a fresh
     * calloc of megabytes at every call, MPICH 4.0.2, 2 ranks, 3-D Moore
     * ialltoall of 1 MiB blocks, cost 7.3 times MPI's own, most of it in
     * page faults).  Not zeroed: every byte MPI or nhood reads is written
     * first. */
    size_t regb = rs + rr + 32, head = sizeof(op) + (size_t)(ns + nr + 2) * per + 64 * 16;
    int inline_v = !w && regb <= NH_COLD_INLINE;
    /* (only the op and MPI's arrays zeroed, not the whole block, 5 KB
     * where 26 places each list one peer: every byte of the rest is
     * written before it is read) */
    size_t need = head + (inline_v ? regb : 0);
    char *at = nh_spare_take(NH_SPARE_STATE, need); /* (a graph used once: the last call's) */
    *out = NULL;
    if (!at)
        return MPI_ERR_NO_MEM;
    op *o = (op *)at;
    memset(o, 0, sizeof(*o));
    take(&at, sizeof(op));
    if (!w && !inline_v && !(o->mem = nh_spare_take(NH_SPARE_DATA, regb))) {
        nh_spare_give((char *)o);
        return MPI_ERR_NO_MEM;
    }
    o->comm = comm;
    o->w = w;
    o->sself = sself;
    o->rself = rself;
    if (!w) {
        o->ls = ls;
        o->lr = lr;
    }
    o->kept = take(&at, (size_t)(ns + nr + 2) * sizeof(MPI_Datatype));
    sides(o, coll, a, ns, nr, copy, &at);
    /* (the plan's: nhood's request holds the plan until the op is freed) */
    o->sfirst = l->dfirst; /* sends go to the destinations */
    o->snext = l->dnext;
    o->rfirst = l->sfirst;
    o->rnext = l->snext;
    o->cs = take0(&at, (size_t)ns * sizeof(int));
    o->cr = take0(&at, (size_t)nr * sizeof(int));
    if (!w) {
        o->ds = take0(&at, (size_t)ns * sizeof(int));
        o->dr = take0(&at, (size_t)nr * sizeof(int));
        char *m = inline_v ? at : o->mem;
        o->regs = (char *)take(&m, rs) - los;
        o->regr = (char *)take(&m, rr) - lor;
        if ((rc = groups_v(&o->s, o->sfirst, o->snext, 0, sself, o->cs, o->ds)) ||
            (rc = groups_v(&o->r, o->rfirst, o->rnext, 1, rself, o->cr, o->dr)))
            goto fail;
        if (form == NH_FORM_PERSISTENT && (rc = keep(o, o->s.type, &o->s.type)))
            goto fail;
        if (copy && (rc = keep(o, o->r.type, &o->r.type)))
            goto fail;
    } else {
        MPI_Aint bs, br;
        o->bs = take0(&at, (size_t)ns * sizeof(MPI_Aint));
        o->br = take0(&at, (size_t)nr * sizeof(MPI_Aint));
        o->ts = take0(&at, (size_t)ns * sizeof(MPI_Datatype));
        o->tr = take0(&at, (size_t)nr * sizeof(MPI_Datatype));
        int inplace = form != NH_FORM_PERSISTENT; /* (persistent: packed at every start) */
        if ((rc = groups_w(o, &o->s, o->sfirst, o->snext, 0, inplace, o->cs, o->bs, o->ts, &bs)) ||
            (rc = groups_w(o, &o->r, o->rfirst, o->rnext, 1, inplace, o->cr, o->br, o->tr, &br)))
            goto fail;
        if (!(o->mem = nh_spare_take(NH_SPARE_DATA, (size_t)bs + (size_t)br + 32))) {
            rc = MPI_ERR_NO_MEM;
            goto fail;
        }
        char *m = o->mem;
        o->regs = take(&m, (size_t)bs);
        o->regr = take(&m, (size_t)br);
        absolute_w(&o->s, o->sfirst, o->snext, o->ts, o->bs, o->regs);
        absolute_w(&o->r, o->rfirst, o->rnext, o->tr, o->br, o->regr);
        /* the types nhood packs with after the call returns */
        for (int i = 0; i < 2; i++) {
            nh_cold_side *x = i ? &o->r : &o->s;
            const int *first = i ? o->rfirst : o->sfirst, *next = i ? o->rnext : o->snext;
            if (i ? !copy : form != NH_FORM_PERSISTENT)
                continue;
            for (int k = 0; k < x->n; k++)
                if (packed(first, next, i ? o->tr : o->ts, k) &&
                    (rc = keep(o, x->types[k], (MPI_Datatype *)&x->types[k])))
                    goto fail;
        }
    }
    *out = o;
    return MPI_SUCCESS;
fail:
    op_free(o);
    return rc;
}

/* MPI's call for o in form (*req: MPI's request, nonblocking and
 * persistent). */
static int op_call(op *o, nh_form form, MPI_Request *req)
{
    if (o->w) {
        if (form == NH_FORM_BLOCKING)
            return nh_mpi_Neighbor_alltoallw(MPI_BOTTOM, o->cs, o->bs, o->ts, MPI_BOTTOM, o->cr,
                                             o->br, o->tr, o->comm);
        if (form == NH_FORM_NONBLOCKING)
            return nh_mpi_Ineighbor_alltoallw(MPI_BOTTOM, o->cs, o->bs, o->ts, MPI_BOTTOM, o->cr,
                                              o->br, o->tr, o->comm, req);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        return nh_mpi_Neighbor_alltoallw_init(MPI_BOTTOM, o->cs, o->bs, o->ts, MPI_BOTTOM, o->cr,
                                              o->br, o->tr, o->comm, MPI_INFO_NULL, req);
#endif
    } else {
        if (form == NH_FORM_BLOCKING)
            return nh_mpi_Neighbor_alltoallv(o->regs, o->cs, o->ds, o->s.type, o->regr, o->cr,
                                             o->dr, o->r.type, o->comm);
        if (form == NH_FORM_NONBLOCKING)
            return nh_mpi_Ineighbor_alltoallv(o->regs, o->cs, o->ds, o->s.type, o->regr, o->cr,
                                              o->dr, o->r.type, o->comm, req);
#ifdef HAVE_MPI_NEIGHBOR_ALLTOALL_INIT
        return nh_mpi_Neighbor_alltoallv_init(o->regs, o->cs, o->ds, o->s.type, o->regr, o->cr,
                                              o->dr, o->r.type, o->comm, MPI_INFO_NULL, req);
#endif
    }
    return MPI_ERR_INTERN;
}

/* The elements of a side's n places (counts; NULL: count at each), or -1
 * where a count is negative: such a call goes to MPI, whose error it is,
 * before anything here sizes a region by it.  The one pass over the
 * counts at every call: nh_cold_typed bounds the groups by the sums, and
 * op_make sizes the regions from them (total_v). */
static long elements(const int *counts, int count, int n)
{
    long t = 0;
    int bad = 0;
    if (!counts)
        return count < 0 ? -1 : (long)count * n;
    for (int k = 0; k < n; k++) {
        t += counts[k];
        bad |= counts[k] < 0;
    }
    return bad ? -1 : t;
}

/* A rank that lists a peer twice. */
static int run_repeats(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                       const nh_cold_lists *l, MPI_Request *req)
{
    op *o;
    MPI_Request inner;
    nh_cold_layout ls = {0}, lr = {0}; /* (regular and v) */
    int rc = MPI_SUCCESS, regular = coll == NH_COLL_ALLTOALL;
    long es = elements(regular ? NULL : a->scounts, a->scount, l->outdeg),
         er = elements(regular ? NULL : a->rcounts, a->rcount, l->indeg);
    if (es < 0 || er < 0)
        return NH_TO_PMPI; /* (MPI's error) */
    if (coll != NH_COLL_ALLTOALLW) {
        if ((rc = nh_cold_layout_of(a->stype, &ls)))
            return rc;
        if (a->rtype == a->stype)
            lr = ls;
        else if ((rc = nh_cold_layout_of(a->rtype, &lr)))
            return rc;
        if ((rc = nh_cold_typed(p, coll, form, a, comm, l, &ls, &lr, es, er, req)) !=
            NH_COLD_UNTYPED)
            return rc;
    }
    if ((rc = op_make(coll, form, a, comm, l, &ls, &lr, es, er, &o)))
        return rc;
    if (form != NH_FORM_PERSISTENT && (rc = op_in(o)))
        goto fail;
    if ((rc = op_call(o, form, &inner)))
        goto fail;
    if (form != NH_FORM_BLOCKING) /* owns o from here */
        return nh_req_wrap_ops(p, inner, form == NH_FORM_PERSISTENT, &op_ops, o, comm, req);
    rc = op_out(o);
fail:
    op_free(o);
    return rc;
}

int nh_grouped_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                    MPI_Request *req)
{
    if (nh_coll_op(coll) == NH_OP_ALLGATHER || a->sbuf == MPI_IN_PLACE)
        return NH_TO_PMPI;
    int rep = nh_plan_cold_repeats(p, comm), rc;
    const nh_cold_lists *l = rep > 0 ? nh_plan_cold_lists(p, comm) : NULL;
    if (rep < 0 || (rep && !l))
        rc = MPI_ERR_NO_MEM;
    else if (rep)
        rc = run_repeats(p, coll, form, a, comm, l, req);
    else
        rc = coll == NH_COLL_ALLTOALL ? nh_cold_regular(form, a, comm, p->outdeg, p->indeg, req)
                                      : NH_TO_PMPI;
    return rc;
}

/* The form of MPI's exchange that is right on this library whatever the
 * lists repeat (nh_right_call):
 * - the program's own call where MPI orders a repeated peer's blocks
 *   right, and for allgather and in-place calls;
 * - MPICH 4.0 orders them right in the v and w forms: every rank makes
 *   the regular call as the v call of the same blocks, copying nothing
 *   (MPICH 4.0.2, 2 ranks, a 3-D Moore graph made, used once by an
 *   MPI_Ineighbor_alltoallv of 8-byte blocks and freed: 1.22 times MPI's
 *   own in the grouped form, 1.06 so), and v and w calls as made;
 * - before 5.0 otherwise the grouped form where this rank lists a peer
 *   twice (or its lists could not be grouped: nh_grouped_call says so),
 *   else as on MPICH 4.0. */
static nh_binding right_form(nh_plan *p, nh_coll coll, int in_place, MPI_Comm comm)
{
    if (!nh_mpilib_dup_edges_wrong() || nh_coll_op(coll) == NH_OP_ALLGATHER || in_place)
        return NH_BIND_AUTO;
    if (nh_mpilib_dup_edges_wrong_vw() && nh_plan_cold_repeats(p, comm) != 0)
        return NH_BIND_PACK;
    return coll == NH_COLL_ALLTOALL ? NH_BIND_EACH : NH_BIND_AUTO;
}

NH_HOT int nh_own_call(nh_plan *p, nh_binding form_of_own, nh_coll coll, nh_form form,
                       const nh_args *a, MPI_Comm comm, MPI_Request *req)
{
    if (form_of_own == NH_BIND_EACH)
        return nh_cold_regular(form, a, comm, p->outdeg, p->indeg, req);
    return form_of_own == NH_BIND_PACK ? nh_grouped_call(p, coll, form, a, comm, req) : NH_TO_PMPI;
}

int nh_right_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                  MPI_Request *req)
{
    return nh_own_call(p, right_form(p, coll, a->sbuf == MPI_IN_PLACE, comm), coll, form, a, comm,
                       req);
}

nh_binding nh_cold_form(nh_plan *p, nh_coll coll, MPI_Comm comm)
{
    /* (NHOOD_ALGO=pmpi asks for MPI's own exchange, as it is, at every call) */
    if (nh_forced_algo(p, NH_OP_ALLTOALL) == NH_ALGO_PMPI)
        return NH_BIND_AUTO;
    return right_form(p, coll, 0, comm);
}

int nh_cold_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                 MPI_Request *req)
{
    if (!nh_mpilib_dup_edges_wrong()) /* (the common case, without the plan's lists) */
        return NH_TO_PMPI;
    nh_binding f = a->sbuf == MPI_IN_PLACE ? NH_BIND_AUTO : nh_cold_form(p, coll, comm);
    return nh_call_result(comm, nh_own_call(p, f, coll, form, a, comm, req));
}

#else

nh_binding nh_cold_form(nh_plan *p, nh_coll coll, MPI_Comm comm)
{
    (void)p, (void)coll, (void)comm;
    return NH_BIND_AUTO;
}

int nh_grouped_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                    MPI_Request *req)
{
    (void)p, (void)coll, (void)form, (void)a, (void)comm, (void)req;
    return NH_TO_PMPI;
}

int nh_own_call(nh_plan *p, nh_binding form_of_own, nh_coll coll, nh_form form, const nh_args *a,
                MPI_Comm comm, MPI_Request *req)
{
    (void)form_of_own;
    return nh_grouped_call(p, coll, form, a, comm, req);
}

int nh_right_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                  MPI_Request *req)
{
    return nh_grouped_call(p, coll, form, a, comm, req);
}

int nh_cold_call(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                 MPI_Request *req)
{
    return nh_grouped_call(p, coll, form, a, comm, req);
}

#endif
