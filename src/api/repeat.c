/* The last v or w call's sizes, per plan, collective and form, where
 * every rank knows them alike (nh_sizes_known: the isomorphic=true
 * promise, Iso_* calls): a call with the same counts and types has the
 * same block size and signature, so where MPI's own exchange stands for
 * them it goes there without nh_call_init's allocations and a type query
 * per block, which cost about what MPI's exchange of small blocks does.
 *
 * A type's handle compared is not its size: a type freed and another
 * made may get the old handle on one rank and not on another, and the
 * first would go on to MPI's own exchange with the old sizes while the
 * others choose for the new ones (a nhood schedule or a trial against
 * MPI's exchange: a hang).  So every derived type a kept call names
 * carries an attribute whose delete callback counts the frees, and a
 * free since a call was kept ends its repeats (on every rank: the
 * program frees the type everywhere before it makes the other). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "select/select.h"
#include "util/sync.h"

/* The attribute, made at the first call kept, and the frees it counted. */
static int type_keyval = MPI_KEYVAL_INVALID;
static unsigned long types_freed;

static int type_freed(MPI_Datatype type, int keyval, void *attr, void *extra)
{
    (void)type;
    (void)keyval;
    (void)attr;
    (void)extra;
    __atomic_add_fetch(&types_freed, 1, __ATOMIC_RELAXED);
    return MPI_SUCCESS;
}

/* Whether a free of t will be counted: a predefined type is never
 * freed; a derived one gets the attribute, once. */
static int watched(MPI_Datatype t)
{
    int ni, na, nt, comb, flag = 0;
    void *v;
    if (t == MPI_DATATYPE_NULL)
        return 1;
    if (nh_mpi_Type_get_envelope(t, &ni, &na, &nt, &comb) != MPI_SUCCESS)
        return 0;
    if (comb == MPI_COMBINER_NAMED)
        return 1;
    if (nh_mpi_Type_get_attr(t, type_keyval, &v, &flag) != MPI_SUCCESS)
        return 0;
    return flag || nh_mpi_Type_set_attr(t, type_keyval, NULL) == MPI_SUCCESS;
}

typedef struct kept {
    int valid;
    int scount;                /* allgatherv's */
    MPI_Datatype stype, rtype; /* v: the type of each side */
    int *counts;               /* the send counts, then the receive counts */
    MPI_Datatype *types;       /* w: the send types, then the receive types */
    size_t m;
    unsigned long sig;
    unsigned long freed; /* types_freed when kept */
} kept;

/* Every type of k watched (w: the n of k->types, else k->stype and
 * k->rtype); 0 where one could not be. */
static int all_watched(const kept *k, int w, int n)
{
    if (__atomic_load_n(&type_keyval, __ATOMIC_ACQUIRE) == MPI_KEYVAL_INVALID) {
        int rc = MPI_SUCCESS, kv;
        nh_lock(NH_LOCK_MISC);
        if (type_keyval == MPI_KEYVAL_INVALID &&
            (rc = nh_mpi_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_freed, &kv, NULL)) ==
                MPI_SUCCESS)
            __atomic_store_n(&type_keyval, kv, __ATOMIC_RELEASE);
        nh_unlock(NH_LOCK_MISC);
        if (rc != MPI_SUCCESS)
            return 0;
    }
    if (!w)
        return watched(k->stype) && watched(k->rtype);
    for (int i = 0; i < n; i++)
        if ((i == 0 || k->types[i] != k->types[i - 1]) && !watched(k->types[i]))
            return 0;
    return 1;
}

/* Whether a's types are k's, handle by handle (w: ns send and nr receive
 * types, else the one of each side). */
NH_HOT static int same_types(const kept *k, int w, const nh_args *a, int ns, int nr)
{
    if (!w)
        return k->stype == a->stype && k->rtype == a->rtype;
    return (!ns || !memcmp(k->types, a->stypes, sizeof(MPI_Datatype) * (size_t)ns)) &&
           (!nr || !memcmp(k->types + ns, a->rtypes, sizeof(MPI_Datatype) * (size_t)nr));
}

void nh_call_keep_fini(void)
{
    if (type_keyval != MPI_KEYVAL_INVALID)
        nh_mpi_Type_free_keyval(&type_keyval);
}

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
    if (!k->valid || k->freed != __atomic_load_n(&types_freed, __ATOMIC_RELAXED))
        return 0;
    if (!same_types(k, coll == NH_COLL_ALLTOALLW, a, ns, nr) ||
        (coll == NH_COLL_ALLGATHERV && k->scount != a->scount))
        return 0;
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
    unsigned long freed = __atomic_load_n(&types_freed, __ATOMIC_RELAXED);
    /* the types of the call kept last, none freed since: watched already */
    int known = k->valid && k->freed == freed && same_types(k, w, a, ns, nr);
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
    if (!known && !all_watched(k, w, ns + nr))
        return;
    k->m = m;
    k->sig = sig;
    k->freed = freed;
    k->valid = 1;
}
