/* Linear shift (Hofmann and Runger, EuroMPI 2013, Fig. 3): in step i rank r
 * swaps with (i - r) mod p.  The relation is symmetric (partner of the
 * partner is r in the same step), so every step is a perfect matching with
 * at most one rank idle (the one for which i - r = r): p steps, p - 1
 * swaps per rank. */
#include "inplace.h"

int nh_inplace_lsa(int p, int rank, int *partners)
{
    int n = 0;
    for (int i = 0; i < p; i++) {
        int j = ((i - rank) % p + p) % p;
        if (j != rank)
            partners[n++] = j;
    }
    return n;
}
