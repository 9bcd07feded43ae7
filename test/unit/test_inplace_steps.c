/* In-place swap orders without MPI: for p = 1..200 every pair swaps
 * exactly once, blocking swaps never deadlock, and the step counts are the
 * paper's: linear shift p (p - 1 swaps per rank), hierarchical sets at most
 * p + ceil(log2 p) - 2 and p - 1 for powers of two, MPICH 2p - 1. */
#include "../check.h"
#include "core/inplace.h"

int main(void)
{
    int partners[512];
    for (int p = 1; p <= 200; p++) {
        int lg = 0;
        while ((1 << lg) < p)
            lg++;
        int lsa = nh_inplace_steps(NH_INPLACE_LSA, p), hsa = nh_inplace_steps(NH_INPLACE_HSA, p);
        int mpich = nh_inplace_steps(NH_INPLACE_MPICH, p);
        CHECK(lsa == (p == 1 ? 0 : p - (p == 2)), "p=%d lsa steps %d", p, lsa);
        CHECK(hsa >= 0 && (p == 1 ? hsa == 0 : hsa <= p + lg - 2), "p=%d hsa steps %d > %d", p, hsa,
              p + lg - 2);
        if ((p & (p - 1)) == 0 && p > 1)
            CHECK(hsa == p - 1, "p=%d (power of two) hsa steps %d", p, hsa);
        CHECK(mpich == 2 * p - 1, "p=%d mpich steps %d", p, mpich);
        if (p <= 256) {
            for (int r = 0; r < p; r++) {
                CHECK(nh_inplace_lsa(p, r, partners) == p - 1, "p=%d rank %d lsa swaps", p, r);
                CHECK(nh_inplace_hsa(p, r, partners) == p - 1, "p=%d rank %d hsa swaps", p, r);
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
