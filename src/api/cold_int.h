/* What the cold tier's all-to-all calls share where MPI orders a repeated
 * peer's blocks wrongly (api/cold.c, cold_typed.c, cold_copy.c): a call's
 * sides as places, a group's datatype, datatypes' layouts and copies.
 * Private to them. */
#ifndef NH_COLD_INT_H
#define NH_COLD_INT_H

#include <stdint.h>

#include "api/api.h"
#include "util/copy.h"

/* One side of a call as places: place k's count, address and type. */
typedef struct nh_cold_side {
    char *base;
    int n, count;              /* count: regular calls */
    const int *counts;         /* v, w */
    const int *displs;         /* v: in extents */
    const MPI_Aint *bdispls;   /* w: in bytes */
    MPI_Datatype type;         /* regular, v */
    const MPI_Datatype *types; /* w */
    MPI_Aint ext;              /* type's extent (regular, v) */
} nh_cold_side;

static inline int nh_cold_cnt(const nh_cold_side *s, int k)
{
    return s->counts ? s->counts[k] : s->count;
}

static inline char *nh_cold_addr(const nh_cold_side *s, int k)
{
    if (s->bdispls)
        return (char *)((uintptr_t)s->base + (uintptr_t)s->bdispls[k]);
    MPI_Aint e = s->displs ? (MPI_Aint)s->displs[k] : (MPI_Aint)k * s->count;
    return (char *)((uintptr_t)s->base + (uintptr_t)(e * s->ext));
}

static inline MPI_Datatype nh_cold_typ(const nh_cold_side *s, int k)
{
    return s->types ? s->types[k] : s->type;
}

/* The sides of a call of coll with arguments a (its arrays, not copies):
 * outdeg and indeg places; sext, rext: the extents of a regular or v
 * call's types (api/cold_copy.c). */
void nh_cold_sides(nh_coll coll, const nh_args *a, int outdeg, int indeg, MPI_Aint sext,
                   MPI_Aint rext, nh_cold_side *s, nh_cold_side *r);
/* The blocks of the group at place k of s (next: the group's later
 * places) as one committed struct datatype: at their addresses (for
 * MPI_BOTTOM), or (from_first) at their offsets from the first block's. */
int nh_cold_group_type(const nh_cold_side *s, int k, const int *next, int from_first,
                       MPI_Datatype *out);

/* A type's layout: contiguous data (size == true extent == extent) can be
 * copied with memcpy where no GPU runtime is loaded. */
typedef struct nh_cold_layout {
    MPI_Aint lb, ext, tlb, text;
    int size, contig;
} nh_cold_layout;

/* (The layouts of the most used predefined types are found once.) */
int nh_cold_layout_of(MPI_Datatype t, nh_cold_layout *l);
/* Is t one of the predefined types programs use most (MPI_DOUBLE,
 * MPI_INT, ...)?  0 says nothing about the others. */
int nh_cold_common_type(MPI_Datatype t);
/* count elements of ft (layout fl) from one place to another, as the
 * elements of tt (layout tl) that hold the same data. */
int nh_cold_copy(const char *from, int count, MPI_Datatype ft, const nh_cold_layout *fl, char *to,
                 MPI_Datatype tt, const nh_cold_layout *tl, MPI_Comm comm);
/* Contiguous host data copied a run at a time (api/cold_copy.c): blocks
 * that follow each other at both ends join the run; nh_cold_run_end
 * copies what is left. */
typedef struct nh_cold_run {
    char *from, *to;
    size_t len;
} nh_cold_run;

static inline void nh_cold_run_add(nh_cold_run *r, char *from, char *to, size_t n)
{
    if (r->len && from == r->from + r->len && to == r->to + r->len) {
        r->len += n;
        return;
    }
    if (r->len)
        nh_copy(r->to, r->from, r->len);
    *r = (nh_cold_run){from, to, n};
}

static inline void nh_cold_run_end(nh_cold_run *r)
{
    if (r->len)
        nh_copy(r->to, r->from, r->len);
    r->len = 0;
}
/* The blocks this rank sends itself (the places from dself on, dnext,
 * of s), each into the receive place of r (from rself on, rnext) that the
 * standard pairs it with: the j-th place of self among the destinations
 * with the j-th among the sources. */
int nh_cold_self(const nh_cold_side *s, const nh_cold_layout *ls, int dself, const int *dnext,
                 const nh_cold_side *r, const nh_cold_layout *lr, int rself, const int *rnext,
                 MPI_Comm comm);
/* A repeated peer's group of at least this many bytes travels in place
 * (cold_typed.c; w calls: cold.c), smaller ones are copied.  MPICH 4.0.2, 2
 * ranks, 3-D Moore ialltoall (groups of 18 blocks), cold calls against
 * MPI's own, means of four runs: 1 MiB blocks 1.49 in place against 2.05
 * copied, 256 KiB 1.82 against 1.79, 64 KiB 1.43 against 1.37 (MPI packs a
 * datatype's message through its own buffers too; past the caches the
 * copies cost most) */
#define NH_COLD_INPLACE_MIN (4L << 20)

/* A regular or v call of a rank that lists a peer twice (ls, lr: its
 * types' layouts; es, er: the elements of all its places on each side),
 * moved by MPI without copies where its repeated peers' blocks are large
 * (api/cold_typed.c): MPI's result, or NH_COLD_UNTYPED where this does
 * not apply (the caller copies). */
#define NH_COLD_UNTYPED (-2) /* (not NH_TO_PMPI) */
int nh_cold_typed(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, MPI_Comm comm,
                  const nh_cold_lists *l, const nh_cold_layout *ls, const nh_cold_layout *lr,
                  long es, long er, MPI_Request *req);

#endif
