/* A cold graph's regular or v all-to-all on a rank that lists a peer
 * twice, where the MPI library orders a repeated peer's blocks wrongly
 * (api/cold.c), moved by MPI in place where the blocks are large.
 *
 * cold.c sends each repeated peer's blocks in one message from a region
 * they are copied into, and receives them into a region they are copied
 * out of: for large groups those copies cost more than the exchange
 * (MPICH 4.0.2, 2 ranks, 3-D Moore ialltoall of 1 MiB blocks, 18 to a
 * group: 3.7 to 4.1 times the fastest fixed choice over 1000 calls).  MPI
 * can read and write the blocks in place instead, through a datatype that
 * describes a whole group: the call stays MPI_Neighbor_alltoallv (every
 * rank makes the same call), with one type per side, so this applies
 * where every group of a side has the same shape (the same counts at the
 * same offsets from its first block: a small periodic torus's repeated
 * peers, as at 2 or 3 ranks a dimension) and every place MPI moves is in
 * a group:
 *  - the type: the group's blocks at their offsets from the first,
 *    resized to an extent of one byte, so that the v displacements are
 *    the groups' first blocks' byte offsets from the buffer;
 *  - send: one of it at a group's first place, nothing at its other
 *    places; receive: one of it at every place of the group (whichever
 *    place MPI matches the message with, it lands in the program's
 *    blocks; the empty ones write nothing), as cold.c does with regions;
 *  - a rank's blocks to itself are copied at the start (nh_cold_self).
 * A message's type signature is the group's blocks in list order, as
 * from cold.c's regions, so each rank decides for itself, side by side.
 * Nonblocking calls keep the arrays until completion (nhood's request
 * around MPI's); the types are freed at once (MPI keeps what a pending
 * operation uses).  Persistent calls copy (cold.c). */
#include <limits.h>
#include <stdlib.h>

#include "api/cold_int.h"
#include "exec/request.h"
#include "util/resource.h"

#ifndef NHOOD_SMPI

#define TYPED_MAXG 64 /* places per group, at most */

/* A group's shape: its places' counts, and their blocks' byte offsets
 * from its first block's; k: the first group's first place. */
typedef struct shape {
    int g, k;
    int lens[TYPED_MAXG];
    MPI_Aint offs[TYPED_MAXG];
} shape;

static MPI_Aint offset(const char *at, const char *from)
{
    return (MPI_Aint)((uintptr_t)at - (uintptr_t)from);
}

/* Does every place of s that MPI moves (not MPI_PROC_NULL's, not the
 * group at self) belong to a repeated peer, every group of one shape
 * (*sh) of at least NH_COLD_INPLACE_MIN bytes, its first block within an int's
 * reach of the buffer? */
static int uniform(const nh_cold_side *s, const int *first, const int *next, int self, int size,
                   shape *sh)
{
    sh->g = 0;
    for (int k = 0; k < s->n; k++) {
        if (first[k] != k || k == self)
            continue;
        MPI_Aint d = offset(nh_cold_addr(s, k), s->base);
        int fresh = sh->g == 0, g = 0;
        long bytes = 0;
        if (next[k] < 0 || d < INT_MIN || d > INT_MAX)
            return 0;
        for (int j = k; j >= 0; j = next[j], g++) {
            MPI_Aint off = offset(nh_cold_addr(s, j), nh_cold_addr(s, k));
            if (g == TYPED_MAXG ||
                (!fresh && (g >= sh->g || sh->lens[g] != nh_cold_cnt(s, j) || sh->offs[g] != off)))
                return 0;
            sh->lens[g] = nh_cold_cnt(s, j);
            sh->offs[g] = off;
            bytes += (long)nh_cold_cnt(s, j) * size;
        }
        if ((!fresh && g != sh->g) || bytes < NH_COLD_INPLACE_MIN)
            return 0;
        if (fresh)
            sh->k = k;
        sh->g = g;
    }
    return sh->g > 0;
}

/* The type of s's groups (their shape sh; next: a group's later
 * places), of extent 1. */
static int group_type(const nh_cold_side *s, const shape *sh, const int *next, MPI_Datatype *out)
{
    MPI_Datatype st;
    int rc = nh_cold_group_type(s, sh->k, next, 1, &st);
    if (rc)
        return rc;
    rc = nh_type_create_resized(st, 0, 1, out);
    nh_type_free(&st);
    return rc;
}

/* MPI's counts and displacements for one side: one of the type at a
 * group's first place (send) or every place (receive), at the group's
 * first block; nothing elsewhere. */
static void groups_typed(const nh_cold_side *s, const int *first, const int *next, int recv,
                         int self, int *c, int *d)
{
    for (int k = 0; k < s->n; k++)
        c[k] = d[k] = 0;
    for (int k = 0; k < s->n; k++) {
        if (first[k] != k || k == self)
            continue;
        int at = (int)offset(nh_cold_addr(s, k), s->base);
        for (int j = k; j >= 0; j = next[j]) {
            c[j] = recv || j == k;
            d[j] = at;
        }
    }
}

static const nh_wrap_ops arrays_ops = {NULL, NULL, free};

int nh_cold_typed(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                  const nh_cold_lists *l, const nh_cold_layout *lsp, const nh_cold_layout *lrp,
                  long es, long er, MPI_Request *req)
{
    shape shs, shr;
    nh_cold_side s, r;
    int ns = l->outdeg, nr = l->indeg, rc;
    if (form == NH_FORM_PERSISTENT || coll == NH_COLL_ALLTOALLW || /* (a quick bound) */
        es * lsp->size < NH_COLD_INPLACE_MIN || er * lrp->size < NH_COLD_INPLACE_MIN)
        return NH_COLD_UNTYPED;
    nh_cold_sides(coll, a, ns, nr, lsp->ext, lrp->ext, &s, &r);
    if (!uniform(&s, l->dfirst, l->dnext, l->dself, lsp->size, &shs) ||
        !uniform(&r, l->sfirst, l->snext, l->sself, lrp->size, &shr))
        return NH_COLD_UNTYPED;
    MPI_Datatype ts = MPI_DATATYPE_NULL, tr = MPI_DATATYPE_NULL;
    int *arr = malloc((size_t)(2 * ns + 2 * nr + 1) * sizeof(int));
    if (!arr)
        return MPI_ERR_NO_MEM;
    int *cs = arr, *ds = arr + ns, *cr = ds + ns, *dr = cr + nr;
    groups_typed(&s, l->dfirst, l->dnext, 0, l->dself, cs, ds);
    groups_typed(&r, l->sfirst, l->snext, 1, l->sself, cr, dr);
    if ((rc = group_type(&s, &shs, l->dnext, &ts)) || (rc = group_type(&r, &shr, l->snext, &tr)) ||
        (rc = nh_cold_self(&s, lsp, l->dself, l->dnext, &r, lrp, l->sself, l->snext, comm)))
        goto cleanup;
    if (form == NH_FORM_BLOCKING) {
        rc = nh_mpi_Neighbor_alltoallv(a->sbuf, cs, ds, ts, a->rbuf, cr, dr, tr, comm);
    } else {
        MPI_Request inner;
        if (!(rc = nh_mpi_Ineighbor_alltoallv(a->sbuf, cs, ds, ts, a->rbuf, cr, dr, tr, comm,
                                              &inner))) {
            rc = nh_req_wrap_ops(p, inner, 0, &arrays_ops, arr, comm, req);
            arr = NULL; /* the request's (freed where the wrap failed) */
        }
    }
cleanup:
    if (ts != MPI_DATATYPE_NULL)
        nh_type_free(&ts);
    if (tr != MPI_DATATYPE_NULL)
        nh_type_free(&tr);
    free(arr);
    return rc;
}

#endif
