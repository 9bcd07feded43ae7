/* Hierarchical sets (Hofmann and Runger, EuroMPI 2013, Fig. 4): split the
 * current set of consecutive ranks in two halves, swap across the halves
 * with a shifted linear order, recurse into the own half.  Swaps stay
 * inside ever smaller sets (locality: on-node last with block placement);
 * at most p + ceil(log2 p) - 2 steps, p - 1 for powers of two. */
#include "inplace.h"

int nh_inplace_hsa(int p, int rank, int *partners)
{
    int low = 0, high = p, k = 0;
    while (low + 1 < high) {
        int mid = (low + high) / 2;
        if (rank < mid) {
            int n = high - mid, shift = rank - low < n - 1 ? rank - low : n - 1;
            for (int i = 0; i < n; i++)
                partners[k++] = mid + (i + shift) % n;
            high = mid;
        } else {
            int n = mid - low, shift = rank - mid < n - 1 ? rank - mid : n - 1;
            for (int i = 0; i < n; i++)
                partners[k++] = low + ((shift - i) % n + n) % n;
            low = mid;
        }
    }
    return k;
}
