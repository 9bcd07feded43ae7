/* Blocks of memory kept for the process (util/spare.h), one for each
 * use: taken and given back with atomic exchanges, so that threads need
 * no lock.  A block's size and use are written in a header in front of
 * it, so keeping one allocates nothing. */
#include <stddef.h>
#include <stdlib.h>

#include "util/spare.h"

typedef union head {
    struct {
        size_t bytes;     /* what the caller may use, after the header */
        nh_spare_use use; /* the slot it goes back to */
    } b;
    max_align_t al; /* (the block after it aligned as malloc's) */
} head;

static head *slot[NH_SPARE_USES];

char *nh_spare_take(nh_spare_use use, size_t bytes)
{
    head *h = __atomic_exchange_n(&slot[use], NULL, __ATOMIC_ACQ_REL);
    if (h && h->b.bytes < bytes) {
        free(h);
        h = NULL;
    }
    if (!h) {
        if (!(h = malloc(sizeof(head) + bytes + 1)))
            return NULL;
        h->b.bytes = bytes;
        h->b.use = use;
    }
    return (char *)(h + 1);
}

void nh_spare_give(char *mem)
{
    if (!mem)
        return;
    head *h = (head *)mem - 1, *none = NULL, **s = &slot[h->b.use];
    while (!__atomic_compare_exchange_n(s, &none, h, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        /* another block came back first: keep the larger */
        head *o = __atomic_exchange_n(s, NULL, __ATOMIC_ACQ_REL);
        if (o && o->b.bytes > h->b.bytes) {
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
    for (int u = 0; u < NH_SPARE_USES; u++)
        free(__atomic_exchange_n(&slot[u], NULL, __ATOMIC_ACQ_REL));
}
