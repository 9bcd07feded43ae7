/* A neighbor list's places grouped by peer (places.h). */
#include <stdint.h>
#include <stdlib.h>

#include "core/places.h"

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Lists of ranks below 64 (the small graphs') in one pass, remembering
 * each rank's last place; others sorted by (peer, place), which groups
 * each peer's places in list order. */
int nh_places(const int *restrict list, int n, int me, int null, int *restrict first,
              int *restrict next, int *self, int *nulls)
{
    int last[64], rep = 0, i = 0, nul = 0; /* last[r]: valid where r is in seen */
    uint64_t seen = 0;
    for (; i < n; i++) {
        int r = list[i];
        next[i] = -1;
        if ((unsigned)r >= 64u) {
            if (r != null)
                break;
            first[i] = -1;
            nul++;
        } else if (seen >> r & 1) {
            first[i] = first[last[r]];
            next[last[r]] = i;
            last[r] = i;
            rep = 1;
        } else {
            first[i] = last[r] = i;
            seen |= 1ull << r;
        }
    }
    *nulls = nul;
    if (i == n) {
        *self = me >= 0 && me < 64 && (seen >> me & 1) ? first[last[me]] : -1;
        return rep;
    }
    uint64_t *key = malloc(((size_t)n + 1) * sizeof(*key));
    rep = nul = 0;
    if (!key)
        return -1;
    /* (peer - null, place): null sorts as a peer below every rank; both
     * halves fit 32 bits for any int rank above a negative null */
    for (int k = 0; k < n; k++)
        key[k] = (uint64_t)((int64_t)list[k] - null) << 32 | (uint32_t)k;
    qsort(key, (size_t)n, sizeof(*key), by_key);
    *self = -1;
    for (int i = 0; i < n; i++) {
        int k = (int)(key[i] & 0xffffffffu), prev = i > 0 ? (int)(key[i - 1] & 0xffffffffu) : -1;
        int same = prev >= 0 && list[prev] == list[k] && list[k] != null;
        first[k] = list[k] == null ? -1 : same ? first[prev] : k;
        next[k] = -1;
        nul += list[k] == null;
        if (same) {
            next[prev] = k;
            rep = 1;
        } else if (list[k] == me) {
            *self = k;
        }
    }
    *nulls = nul;
    free(key);
    return rep;
}
