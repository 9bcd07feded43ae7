/* One block of memory kept for the process (util/spare.h): taken and
 * given back with atomic exchanges, so that threads need no lock. */
#include <stdlib.h>

#include "util/spare.h"

static struct spare {
    char *mem;
    size_t bytes;
} * spare;

char *nh_spare_take(size_t bytes, size_t *got)
{
    struct spare *s =
        bytes > NH_SPARE_MIN ? __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL) : NULL;
    char *mem;
    if (s && s->bytes >= bytes) {
        mem = s->mem;
        *got = s->bytes;
    } else {
        if (s)
            free(s->mem);
        mem = malloc(bytes + 1);
        *got = bytes;
    }
    free(s);
    return mem;
}

void nh_spare_give(char *mem, size_t bytes)
{
    struct spare *s = bytes > NH_SPARE_MIN ? malloc(sizeof(*s)) : NULL, *none = NULL;
    if (!s) {
        free(mem);
        return;
    }
    s->mem = mem;
    s->bytes = bytes;
    while (!__atomic_compare_exchange_n(&spare, &none, s, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        /* another block came back first: keep the larger */
        struct spare *o = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);
        if (o && o->bytes > s->bytes) {
            struct spare *x = s;
            s = o;
            o = x;
        }
        if (o) {
            free(o->mem);
            free(o);
        }
        none = NULL;
    }
}

void nh_spare_fini(void)
{
    struct spare *s = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);
    if (s) {
        free(s->mem);
        free(s);
    }
}
