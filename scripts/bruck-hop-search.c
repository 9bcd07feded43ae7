/* Exhaustive searches behind docs/algorithms.md "One port, radius 2":
 * with one port a bruck round is one hop vector, and a block bound for
 * offset c needs a subset of the hops that sums to c.  Which hop sets
 * cover every offset of a radius-2 Moore neighborhood ([-2, 2]^d)?
 *
 *   cc -O2 -o bruck-hop-search scripts/bruck-hop-search.c
 *   ./bruck-hop-search 2d M     five hops in Z_M^2 covering [-2,2]^2 mod M
 *                               (all multisets; M = 8: the 8x8 torus, and
 *                               none there means none on the plane either,
 *                               since a cover on Z^2 reduces mod M to one)
 *   ./bruck-hop-search 3d-axis  the unit vectors and five hops in [-2,2]^3
 *                               covering [-2,2]^3 on Z^3 (all multisets)
 *   ./bruck-hop-search 3d-mod5  checks one eight-hop cover of [-2,2]^3 on
 *                               the 5x5x5 torus
 *   ./bruck-hop-search ring N   the ring distances (rank differences, ranks
 *                               row-major) from every rank of an NxNxN
 *                               torus to its radius-2 Moore neighbors: the
 *                               span a ring digit system must write
 *
 * Prints the number of covers found (and the first few). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long found;
static int sums[9][256][3]; /* sums[k]: the 2^k subset sums of hops 0..k-1 */

/* Adds hop k: sums[k+1] = sums[k] and sums[k] + hop. */
static void extend(int d, int k, const int *h)
{
    int n = 1 << k;
    for (int s = 0; s < n; s++)
        for (int j = 0; j < d; j++) {
            sums[k + 1][s][j] = sums[k][s][j];
            sums[k + 1][s + n][j] = sums[k][s][j] + h[j];
        }
}

/* Do the 2^n sums in sums[n] cover [-2, 2]^d, coordinates taken mod m
 * (m = 0: on Z^d)? */
static int covers(int d, int n, int m)
{
    unsigned char hit[125] = {0};
    int cnt = 0, want = 1;
    for (int j = 0; j < d; j++)
        want *= 5;
    for (int s = 0; s < 1 << n; s++) {
        int q = 0, ok = 1;
        for (int j = d - 1; j >= 0; j--) {
            int v = sums[n][s][j];
            if (m) /* the representative in [-2, m-3] */
                v = ((v + 2) % m + m) % m - 2;
            ok &= v >= -2 && v <= 2;
            q = q * 5 + v + 2;
        }
        if (ok && !hit[q]) {
            hit[q] = 1;
            cnt++;
        }
    }
    return cnt == want;
}

static void report(int d, int n, int hop[][3])
{
    if (found++ >= 3)
        return;
    printf("cover:");
    for (int i = 0; i < n; i++) {
        printf(" (");
        for (int j = 0; j < d; j++)
            printf("%s%d", j ? "," : "", hop[i][j]);
        printf(")");
    }
    printf("\n");
}

/* Hops k..n-1 drawn as a multiset from the nv values val[][d]. */
static void search(int d, int n, int k, int from, int nv, int val[][3], int hop[][3], int m)
{
    if (k == n) {
        if (covers(d, n, m))
            report(d, n, hop);
        return;
    }
    for (int v = from; v < nv; v++) {
        memcpy(hop[k], val[v], sizeof(hop[k]));
        extend(d, k, hop[k]);
        search(d, n, k + 1, v, nv, val, hop, m);
    }
}

int main(int argc, char **argv)
{
    static int val[729][3];
    int hop[8][3] = {{0}}, nv = 0;
    if (argc == 3 && strcmp(argv[1], "2d") == 0) {
        int m = atoi(argv[2]);
        if (m < 5 || m > 27)
            return fprintf(stderr, "M: 5 to 27\n"), 2;
        for (int y = 0; y < m; y++)
            for (int x = 0; x < m; x++)
                if (x || y) {
                    val[nv][0] = x;
                    val[nv++][1] = y;
                }
        search(2, 5, 0, 0, nv, val, hop, m);
    } else if (argc == 2 && strcmp(argv[1], "3d-axis") == 0) {
        for (int z = -2; z <= 2; z++)
            for (int y = -2; y <= 2; y++)
                for (int x = -2; x <= 2; x++)
                    if (x || y || z) {
                        val[nv][0] = x;
                        val[nv][1] = y;
                        val[nv++][2] = z;
                    }
        for (int j = 0; j < 3; j++) {
            hop[j][j] = 1;
            extend(3, j, hop[j]);
        }
        search(3, 8, 3, 0, nv, val, hop, 0);
    } else if (argc == 2 && strcmp(argv[1], "3d-mod5") == 0) {
        static const int h[8][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {2, 0, 0},
                                    {0, 2, 0}, {0, 0, 2}, {1, 1, 1}, {2, 2, 2}};
        memcpy(hop, h, sizeof(h));
        for (int i = 0; i < 8; i++)
            extend(3, i, hop[i]);
        if (covers(3, 8, 5))
            report(3, 8, hop);
    } else if (argc == 3 && strcmp(argv[1], "ring") == 0) {
        int n = atoi(argv[2]), p, lo = 0, hi = 0, digits = 0;
        if (n < 1 || n > 64)
            return fprintf(stderr, "N: 1 to 64\n"), 2;
        p = n * n * n;
        for (int r = 0; r < p; r++)
            for (int o = 0; o < 125; o++) {
                int c[3] = {r / (n * n), r / n % n, r % n}, t = 0;
                for (int j = 0; j < 3; j++)
                    t = t * n + ((c[j] + (o / (j == 0 ? 25 : j == 1 ? 5 : 1)) % 5 - 2) % n + n) % n;
                int dd = ((t - r) % p + p) % p; /* signed: (-p/2, p/2] */
                dd = dd > p / 2 ? dd - p : dd;
                lo = dd < lo ? dd : lo;
                hi = dd > hi ? dd : hi;
            }
        while ((1L << digits) < (long)hi - lo + 1)
            digits++;
        printf("ring distances in [%d, %d]: %d values, %d binary digits\n", lo, hi, hi - lo + 1,
               digits);
        return 0;
    } else {
        fprintf(stderr, "usage: %s 2d M | 3d-axis | 3d-mod5 | ring N\n", argv[0]);
        return 2;
    }
    printf("%ld covers\n", found);
    return 0;
}
