/* Blocks of memory kept for the process (util/spare.h), one for each
 * size class: taken and given back with atomic exchanges, so that
 * threads need no lock.  A block's size is written in a header in front
 * of it, so keeping one allocates nothing. */
#include <stddef.h>
#include <stdlib.h>

#include "util/spare.h"

typedef union head {
    size_t bytes;   /* what the caller may use, after the header */
    max_align_t al; /* (the block after it aligned as malloc's) */
} head;

static head *slot[2]; /* blocks of at most NH_SPARE_MIN bytes, and above */

static head **slot_of(size_t bytes)
{
    return &slot[bytes > NH_SPARE_MIN];
}

char *nh_spare_take(size_t bytes)
{
    head *h = __atomic_exchange_n(slot_of(bytes), NULL, __ATOMIC_ACQ_REL);
    if (h && h->bytes < bytes) {
        free(h);
        h = NULL;
    }
    if (!h) {
        if (!(h = malloc(sizeof(head) + bytes + 1)))
            return NULL;
        h->bytes = bytes;
    }
    return (char *)(h + 1);
}

void nh_spare_give(char *mem)
{
    if (!mem)
        return;
    head *h = (head *)mem - 1, *none = NULL, **s = slot_of(h->bytes);
    while (!__atomic_compare_exchange_n(s, &none, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        /* another block came back first: keep the larger */
        head *o = __atomic_exchange_n(s, NULL, __ATOMIC_ACQ_REL);
        if (o && o->bytes > h->bytes) {
            head *x = h;
            h = o;
            o = x;
        }
        free(o);
        none = NULL;
    }
}

void nh_spare_fini(void)
{
    for (int c = 0; c < 2; c++)
        free(__atomic_exchange_n(&slot[c], NULL, __ATOMIC_ACQ_REL));
}
