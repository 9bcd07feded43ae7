/* MPICH's in-place order (for the step model) and the step simulator. */
#include <stdlib.h>

#include "inplace.h"

const char *const nh_inplace_names[NH_INPLACE_COUNT] = {"auto", "pmpi", "lsa", "hsa", "mpich"};

/* MPICH 4.0.2 (alltoallv_intra_pairwise_sendrecv_replace.c): all pairs
 * (i, j), i <= j, in lexicographic order; rank r acts where it is i or j,
 * including a swap with itself. */
int nh_inplace_mpich(int p, int rank, int *partners)
{
    int n = 0;
    for (int i = 0; i < p; i++)
        for (int j = i; j < p; j++)
            if (i == rank)
                partners[n++] = j;
            else if (j == rank)
                partners[n++] = i;
    return n;
}

int nh_inplace_partners(nh_inplace_algo a, int p, int rank, int *partners)
{
    switch (a) {
    case NH_INPLACE_LSA:
        return nh_inplace_lsa(p, rank, partners);
    case NH_INPLACE_MPICH:
        return nh_inplace_mpich(p, rank, partners);
    default:
        return nh_inplace_hsa(p, rank, partners);
    }
}

int nh_inplace_steps(nh_inplace_algo a, int p)
{
    int rc = -3, steps = 0;
    int *seq = malloc(sizeof(int) * 2 * (size_t)p * (size_t)p + 1);
    int *len = calloc((size_t)p, sizeof(int)), *pos = calloc((size_t)p, sizeof(int));
    int *t = calloc((size_t)p, sizeof(int));
    unsigned char *seen = calloc((size_t)p * (size_t)p, 1);
    if (!seq || !len || !pos || !t || !seen)
        goto out;
    for (int r = 0; r < p; r++)
        len[r] = nh_inplace_partners(a, p, r, seq + (size_t)r * 2 * p);
    /* Swaps only proceed when both ends are ready: keep sweeping until all
     * sequences are done or a sweep makes no progress (deadlock). */
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < p; r++) {
            if (pos[r] == len[r])
                continue;
            int j = seq[(size_t)r * 2 * p + pos[r]];
            if (j == r) { /* self swap: a step of its own */
                t[r]++;
                pos[r]++;
                progress = 1;
                continue;
            }
            if (pos[j] == len[j] || seq[(size_t)j * 2 * p + pos[j]] != r)
                continue;
            int when = (t[r] > t[j] ? t[r] : t[j]) + 1;
            t[r] = t[j] = when;
            pos[r]++;
            pos[j]++;
            rc = -2;
            if (seen[(size_t)r * p + j]++ || seen[(size_t)j * p + r]++)
                goto out;
            progress = 1;
        }
    }
    for (int r = 0; r < p; r++) {
        if (pos[r] != len[r]) {
            rc = -1;
            goto out;
        }
        steps = t[r] > steps ? t[r] : steps;
    }
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++)
            if (j != r && !seen[(size_t)r * p + j]) {
                rc = -2;
                goto out;
            }
    rc = steps;
out:
    free(seq);
    free(len);
    free(pos);
    free(t);
    free(seen);
    return rc;
}
