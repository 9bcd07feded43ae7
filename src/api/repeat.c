/* The last v or w call's sizes, per plan, collective and form, where
 * every rank knows them alike (nh_sizes_known: the isomorphic=true
 * promise, Iso_* calls): a call with the same counts and types has the
 * same block size and signature, so where MPI's own exchange stands for
 * them it goes there without nh_call_init's allocations and a type query
 * per block, which cost about what MPI's exchange of small blocks does.
 * A type freed and another made under its handle can only send a call to
 * MPI's own exchange, always right, that nhood might have sped up. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "select/select.h"

typedef struct kept {
    int valid;
    int scount;                /* allgatherv's */
    MPI_Datatype stype, rtype; /* v: the type of each side */
    int *counts;               /* the send counts, then the receive counts */
    MPI_Datatype *types;       /* w: the send types, then the receive types */
    size_t m;
    unsigned long sig;
} kept;

typedef struct repeat_state {
    kept k[NH_COLL_COUNT][NH_FORM_COUNT];
} repeat_state;

static void repeat_fini(nh_plan *p, void *state)
{
    repeat_state *st = state;
    (void)p;
    for (int c = 0; c < NH_COLL_COUNT; c++)
        for (int f = 0; f < NH_FORM_COUNT; f++) {
            free(st->k[c][f].counts);
            free(st->k[c][f].types);
        }
}

/* The send side's count of arrays (allgatherv: one count, no array). */
static int sends(const nh_plan *p, nh_coll coll)
{
    return coll == NH_COLL_ALLGATHERV ? 0 : p->outdeg;
}

NH_HOT static int applies(nh_plan *p, nh_coll coll, nh_form form)
{
    return nh_coll_vec(coll) && form != NH_FORM_PERSISTENT && nh_sizes_known(p, coll);
}

NH_HOT int nh_call_repeats(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, size_t *m,
                           unsigned long *sig)
{
    repeat_state *st = p->ext[NH_EXT_REPEAT];
    if (!st || !applies(p, coll, form))
        return 0;
    const kept *k = &st->k[coll][form];
    int ns = sends(p, coll), nr = p->indeg;
    if (!k->valid)
        return 0;
    if (coll == NH_COLL_ALLTOALLW) {
        if ((ns && memcmp(k->types, a->stypes, sizeof(MPI_Datatype) * (size_t)ns)) ||
            (nr && memcmp(k->types + ns, a->rtypes, sizeof(MPI_Datatype) * (size_t)nr)))
            return 0;
    } else if (k->stype != a->stype || k->rtype != a->rtype ||
               (coll == NH_COLL_ALLGATHERV && k->scount != a->scount)) {
        return 0;
    }
    if ((ns && memcmp(k->counts, a->scounts, sizeof(int) * (size_t)ns)) ||
        (nr && memcmp(k->counts + ns, a->rcounts, sizeof(int) * (size_t)nr)))
        return 0;
    *m = k->m;
    *sig = k->sig;
    return 1;
}

void nh_call_keep(nh_plan *p, nh_coll coll, nh_form form, const nh_args *a, size_t m,
                  unsigned long sig)
{
    if (!applies(p, coll, form))
        return;
    repeat_state *st = nh_plan_ext(p, NH_EXT_REPEAT, sizeof(repeat_state), repeat_fini);
    if (!st)
        return;
    kept *k = &st->k[coll][form];
    int ns = sends(p, coll), nr = p->indeg, w = coll == NH_COLL_ALLTOALLW;
    k->valid = 0;
    if (!k->counts && !(k->counts = malloc(sizeof(int) * ((size_t)ns + nr + 1))))
        return;
    if (w && !k->types && !(k->types = malloc(sizeof(MPI_Datatype) * ((size_t)ns + nr + 1))))
        return;
    if (ns)
        memcpy(k->counts, a->scounts, sizeof(int) * (size_t)ns);
    if (nr)
        memcpy(k->counts + ns, a->rcounts, sizeof(int) * (size_t)nr);
    if (w) {
        if (ns)
            memcpy(k->types, a->stypes, sizeof(MPI_Datatype) * (size_t)ns);
        if (nr)
            memcpy(k->types + ns, a->rtypes, sizeof(MPI_Datatype) * (size_t)nr);
    }
    k->scount = a->scount;
    k->stype = a->stype;
    k->rtype = a->rtype;
    k->m = m;
    k->sig = sig;
    k->valid = 1;
}
