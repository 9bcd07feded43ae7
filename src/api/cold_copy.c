/* What the cold tier's all-to-all calls where MPI orders a repeated
 * peer's blocks wrongly share (api/cold_int.h): a call's sides, a group's
 * datatype, datatypes' layouts, typed and contiguous copies, a rank's
 * blocks to itself. */
#include <stdlib.h>

#include "api/cold_int.h"
#include "util/copy.h"
#include "util/gpu.h"
#include "util/mpilib.h"
#include "util/resource.h"
#include "util/sync.h"

#ifndef NHOOD_SMPI

void nh_cold_sides(nh_coll coll, const nh_args *a, int outdeg, int indeg, MPI_Aint sext,
                   MPI_Aint rext, nh_cold_side *s, nh_cold_side *r)
{
    int v = coll == NH_COLL_ALLTOALLV, w = coll == NH_COLL_ALLTOALLW;
    *s = (nh_cold_side){.base = (char *)(uintptr_t)a->sbuf, .n = outdeg, .ext = sext};
    *r = (nh_cold_side){.base = a->rbuf, .n = indeg, .ext = rext};
    if (coll == NH_COLL_ALLTOALL) {
        s->count = a->scount;
        r->count = a->rcount;
    } else {
        s->counts = a->scounts;
        r->counts = a->rcounts;
    }
    if (w) {
        s->bdispls = a->sdisplsw;
        r->bdispls = a->rdisplsw;
        s->types = a->stypes;
        r->types = a->rtypes;
    } else {
        s->displs = v ? a->sdispls : NULL;
        r->displs = v ? a->rdispls : NULL;
        s->type = a->stype;
        r->type = a->rtype;
    }
}

int nh_cold_group_type(const nh_cold_side *s, int k, const int *next, int from_first,
                       MPI_Datatype *out)
{
    int g = 0, rc;
    for (int j = k; j >= 0; j = next[j])
        g++;
    MPI_Aint *at = malloc((size_t)g * (sizeof(MPI_Aint) + sizeof(MPI_Datatype) + sizeof(int)));
    if (!at)
        return MPI_ERR_NO_MEM;
    MPI_Datatype *types = (MPI_Datatype *)(at + g);
    int *lens = (int *)(types + g);
    uintptr_t origin = from_first ? (uintptr_t)nh_cold_addr(s, k) : 0;
    g = 0;
    for (int j = k; j >= 0; j = next[j], g++) {
        lens[g] = nh_cold_cnt(s, j);
        at[g] = (MPI_Aint)((uintptr_t)nh_cold_addr(s, j) - origin);
        types[g] = nh_cold_typ(s, j);
    }
    rc = nh_type_create_struct(g, lens, at, types, out);
    free(at);
    return rc;
}

/* The layouts of the predefined types found so far: such a type is never
 * freed, so its handle always names it (the three queries cost a cold
 * call a tenth of nhood's part of it: MPICH 4.2.1, 2 ranks, a 3-D Moore
 * graph made, used once and freed).  Entries are only added, each
 * written before the count that publishes it. */
#define NH_KNOWN_TYPES 8
static MPI_Datatype known_type[NH_KNOWN_TYPES];
static nh_cold_layout known_layout[NH_KNOWN_TYPES];
static int nknown;

int nh_cold_common_type(MPI_Datatype t)
{
    return t == MPI_DOUBLE || t == MPI_BYTE || t == MPI_INT || t == MPI_FLOAT || t == MPI_CHAR ||
           t == MPI_LONG || t == MPI_LONG_LONG || t == MPI_UNSIGNED || t == MPI_INT64_T ||
           t == MPI_INT32_T || t == MPI_C_DOUBLE_COMPLEX;
}

/* t's place among the first n known types; n where it is not one. */
static int known_at(MPI_Datatype t, int n)
{
    int i = 0;
    while (i < n && known_type[i] != t)
        i++;
    return i;
}

static void remember_known(MPI_Datatype t, const nh_cold_layout *l)
{
    nh_lock(NH_LOCK_MISC);
    int n = nknown;
    if (known_at(t, n) == n && n < NH_KNOWN_TYPES) {
        known_type[n] = t;
        known_layout[n] = *l;
        __atomic_store_n(&nknown, n + 1, __ATOMIC_RELEASE);
    }
    nh_unlock(NH_LOCK_MISC);
}

int nh_cold_layout_of(MPI_Datatype t, nh_cold_layout *l)
{
    int rc, n = __atomic_load_n(&nknown, __ATOMIC_ACQUIRE), i = known_at(t, n);
    if (i < n) {
        *l = known_layout[i];
        return MPI_SUCCESS;
    }
    if ((rc = nh_mpi_Type_size(t, &l->size)) || (rc = nh_mpi_Type_get_extent(t, &l->lb, &l->ext)) ||
        (rc = nh_mpi_Type_get_true_extent(t, &l->tlb, &l->text)))
        return rc;
    l->contig = (MPI_Aint)l->size == l->text && l->text == l->ext;
    if (n < NH_KNOWN_TYPES && nh_cold_common_type(t))
        remember_known(t, l);
    return MPI_SUCCESS;
}

/* (The same type and layout where the data only move between the program
 * and a region.) */
int nh_cold_copy(const char *from, int count, MPI_Datatype ft, const nh_cold_layout *fl, char *to,
                 MPI_Datatype tt, const nh_cold_layout *tl, MPI_Comm comm)
{
    if (count == 0 || fl->size == 0)
        return MPI_SUCCESS;
    if (fl->contig && tl->contig && !__atomic_load_n(&nh_gpu_runtimes, __ATOMIC_RELAXED)) {
        nh_copy(to + tl->tlb, from + fl->tlb, (size_t)count * (size_t)fl->size);
        return MPI_SUCCESS;
    }
    int size, pos = 0, rc = nh_mpi_Pack_size(count, ft, comm, &size);
    char *tmp = rc ? NULL : malloc((size_t)size + 1);
    if (!rc && !tmp)
        rc = MPI_ERR_NO_MEM;
    if (!rc && !(rc = nh_pack(from, count, ft, tmp, size, &pos, comm))) {
        int n = tl->size ? (int)((long)count * fl->size / tl->size) : 0;
        pos = 0;
        rc = nh_unpack(tmp, size, &pos, to, n, tt, comm);
    }
    free(tmp);
    return rc;
}

int nh_cold_self(const nh_cold_side *s, const nh_cold_layout *ls, int dself, const int *dnext,
                 const nh_cold_side *r, const nh_cold_layout *lr, int rself, const int *rnext,
                 MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    if (ls->contig && lr->contig && !__atomic_load_n(&nh_gpu_runtimes, __ATOMIC_RELAXED)) {
        /* contiguous host data, a run at a time; the sides read through
         * locals, which no copy can change (through s and r the compiler
         * reloads them after every memcpy: this runs at every call) */
        const nh_cold_side sl = *s, rl = *r;
        nh_cold_run cur = {0};
        for (int i = dself, j = rself; i >= 0 && j >= 0; i = dnext[i], j = rnext[j]) {
            long bytes = (long)nh_cold_cnt(&sl, i) * ls->size;
            if (bytes > (long)nh_cold_cnt(&rl, j) * lr->size) {
                rc = MPI_ERR_TRUNCATE;
                break;
            }
            nh_cold_run_add(&cur, nh_cold_addr(&sl, i) + ls->tlb, nh_cold_addr(&rl, j) + lr->tlb,
                            (size_t)bytes);
        }
        nh_cold_run_end(&cur);
        return rc;
    }
    for (int i = dself, j = rself; !rc && i >= 0 && j >= 0; i = dnext[i], j = rnext[j])
        rc = (long)nh_cold_cnt(s, i) * ls->size > (long)nh_cold_cnt(r, j) * lr->size
                 ? MPI_ERR_TRUNCATE
                 : nh_cold_copy(nh_cold_addr(s, i), nh_cold_cnt(s, i), s->type, ls,
                                nh_cold_addr(r, j), r->type, lr, comm);
    return rc;
}

#endif
