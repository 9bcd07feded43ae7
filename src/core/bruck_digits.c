/* bruck's digit systems (see bruck_digits.h).
 *
 * In one direction a coordinate value v in [lo, hi] is written in base
 * b = k+1 with phase i's digits in [-a_i, k-a_i], where the a_i are the
 * base-b digits of N = -lo, which writes every value in
 * ceil(log_b(hi - lo + 1)) phases (one port: hops +-2^i, the signs from
 * N's binary digits, so [-2, 2] gets the hops 1, -2, 4); or with
 * non-negative digits plus one shift phase -N (fewer messages; a
 * one-hop shift phase can also share a phase with other dimensions'
 * shifts, see bruck.c); or, where the dimension is not periodic, with
 * digits of v's own sign only, so that every position a block passes lies
 * between its origin and its target and exists on a mesh.  The cheapest
 * system that writes every value wins (fewest phases, then messages, then
 * hops taken). */
#include "bruck_digits.h"

#include <stdlib.h>
#include <string.h>

static int pow_cover(int base, int need)
{ /* phases m with base^m - 1 >= need (need >= 0) */
    long v = 1;
    int m = 0;
    while (v - 1 < need && m < BR_MAXPH) {
        v *= base;
        m++;
    }
    return m;
}

/* Fills dp over sums reachable with the system, restricted to hops of
 * sign sgn (0: any).  Returns 0 or -1 (memory). */
int nh_br_dp_run(const sys1 *y, int sgn, dp1 *d)
{
    long span = 0;
    for (int i = 0; i < y->nph; i++) {
        int m = 0;
        for (int q = 0; q < y->nhop[i]; q++)
            m = abs(y->hop[i][q]) > m ? abs(y->hop[i][q]) : m;
        span += m;
    }
    if (span > (1 << 20))
        return -1;
    d->lo = -(int)span;
    d->w = 2 * (int)span + 1;
    size_t n = (size_t)(y->nph + 1) * (size_t)d->w;
    d->cost = malloc(n * sizeof(short));
    d->via = malloc(n);
    if (!d->cost || !d->via)
        return -1;
    for (size_t i = 0; i < n; i++)
        d->cost[i] = -1;
    d->cost[0 - d->lo] = 0;
    for (int i = 0; i < y->nph; i++) {
        const short *c0 = d->cost + (size_t)i * d->w;
        short *c1 = d->cost + (size_t)(i + 1) * d->w;
        signed char *v1 = d->via + (size_t)(i + 1) * d->w;
        for (int x = 0; x < d->w; x++) {
            if (c0[x] < 0)
                continue;
            if (c1[x] < 0 || c1[x] > c0[x]) { /* staying wins ties */
                c1[x] = c0[x];
                v1[x] = -1;
            }
            for (int q = 0; q < y->nhop[i]; q++) {
                int h = y->hop[i][q], t = x + h;
                if ((sgn > 0 && h < 0) || (sgn < 0 && h > 0) || t < 0 || t >= d->w)
                    continue;
                if (c1[t] < 0 || c1[t] > c0[x] + 1) {
                    c1[t] = (short)(c0[x] + 1);
                    v1[t] = (signed char)q;
                }
            }
        }
    }
    return 0;
}

/* The hop of each phase that writes v (-1: none); -1 if v is not written. */
int nh_br_dp_path(const sys1 *y, const dp1 *d, int v, int *choice)
{
    int x = v - d->lo;
    if (x < 0 || x >= d->w || d->cost[(size_t)y->nph * d->w + x] < 0)
        return -1;
    for (int i = y->nph; i > 0; i--) {
        int q = d->via[(size_t)i * d->w + x];
        choice[i - 1] = q;
        if (q >= 0)
            x -= y->hop[i - 1][q];
    }
    return x == -d->lo ? 0 : -1;
}

void nh_br_dp_free(dp1 *d)
{
    free(d->cost);
    free(d->via);
    d->cost = NULL;
    d->via = NULL;
}

/* Does y write every value (monotone: with hops of the value's sign)?
 * *hops: total hops taken, for ties.  0 yes, 1 no, -1 memory. */
static int sys_check(const sys1 *y, const int *vals, int n, int monotone, long *hops)
{
    dp1 d[3] = {{0}};
    int choice[BR_MAXPH], rc = -1;
    *hops = 0;
    for (int sg = monotone ? 1 : 0; sg < (monotone ? 3 : 1); sg++)
        if (nh_br_dp_run(y, sg == 2 ? -1 : sg, &d[sg]))
            goto out;
    rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (vals[i] == 0)
            continue;
        const dp1 *dd = &d[monotone ? (vals[i] > 0 ? 1 : 2) : 0];
        if (nh_br_dp_path(y, dd, vals[i], choice))
            rc = 1;
        else
            *hops += dd->cost[(size_t)y->nph * dd->w + vals[i] - dd->lo];
    }
out:
    for (int i = 0; i < 3; i++)
        nh_br_dp_free(&d[i]);
    return rc;
}

static void add_phase(sys1 *y)
{
    if (y->nph < BR_MAXPH)
        y->nhop[y->nph++] = 0;
}

static void add_hop(sys1 *y, int h)
{
    if (y->nph > 0 && y->nhop[y->nph - 1] < NH_MAX_PORTS)
        y->hop[y->nph - 1][y->nhop[y->nph - 1]++] = h;
}

/* Phases of base-b digits 1..kp (sign sg) for magnitudes up to need,
 * starting at phase `at` of y (phases are added as needed). */
static void add_digits(sys1 *y, int at, int kp, int sg, int need)
{
    int m = pow_cover(kp + 1, need);
    long w = 1;
    for (int i = 0; i < m; i++, w *= kp + 1) {
        while (y->nph <= at + i)
            add_phase(y);
        for (int dgt = 1; dgt <= kp; dgt++)
            if (y->nhop[at + i] < NH_MAX_PORTS)
                y->hop[at + i][y->nhop[at + i]++] = sg * dgt * (int)w;
    }
}

/* The candidate digit systems for values in [lo, hi] (lo <= 0 <= hi). */
static int candidates(int lo, int hi, int k, int monotone, sys1 *c)
{
    int n = 0, N = -lo, b = k + 1;
    if (!monotone) {
        /* Phase i's digits -a_i .. k-a_i, a_i the i-th base-b digit of N
         * (or of the room left above hi): the range [-N, b^m - 1 - N]
         * takes the fewest phases, ceil(log_b(hi - lo + 1)). */
        for (int side = 0; side < 2; side++) {
            int m = pow_cover(b, hi - lo), low = side ? 0 : N;
            sys1 *y = &c[n++];
            memset(y, 0, sizeof(*y));
            long w = 1, top = 1;
            for (int i = 0; i < m; i++)
                top *= b;
            if (side) /* the digits of top - 1 - hi on the negative side */
                low = (int)(top - 1 - hi);
            for (int i = 0; i < m; i++, w *= b) {
                int a = (int)(low / w % b);
                add_phase(y);
                for (int dgt = -a; dgt <= k - a; dgt++)
                    if (dgt)
                        add_hop(y, dgt * (int)w);
            }
        }
        if (lo < 0 && hi > 0) { /* non-negative digits and one shift (each sign) */
            for (int sg = 1; sg >= -1; sg -= 2) {
                sys1 *y = &c[n++];
                memset(y, 0, sizeof(*y));
                int far = sg > 0 ? N : hi, near = sg > 0 ? hi : N;
                add_phase(y);
                add_hop(y, -sg * far);
                add_digits(y, 1, k, sg, near > far - 1 ? near : far - 1);
            }
        }
    }
    /* Monotone: digits of the value's sign, positive and negative phases
     * one after the other, or side by side with the ports split. */
    sys1 *y = &c[n++];
    memset(y, 0, sizeof(*y));
    add_digits(y, 0, k, 1, hi);
    add_digits(y, y->nph, k, -1, N);
    for (int k1 = 1; k1 < k && hi > 0 && N > 0; k1++) {
        y = &c[n++];
        memset(y, 0, sizeof(*y));
        add_digits(y, 0, k1, 1, hi);
        add_digits(y, 0, k - k1, -1, N);
    }
    return n;
}

static int msgs_of(const sys1 *y)
{
    int m = 0;
    for (int i = 0; i < y->nph; i++)
        m += y->nhop[i];
    return m;
}

/* The cheapest candidate that writes every value: 0, or -1 (memory). */
int nh_br_best_sys(const int *vals, int n, int k, int monotone, sys1 *out)
{
    int lo = 0, hi = 0, found = 0;
    long best_hops = 0;
    for (int i = 0; i < n; i++) {
        lo = vals[i] < lo ? vals[i] : lo;
        hi = vals[i] > hi ? vals[i] : hi;
    }
    sys1 *c = malloc((2 * NH_MAX_PORTS + 4) * sizeof(sys1));
    if (!c)
        return -1;
    int nc = candidates(lo, hi, k, monotone, c);
    for (int i = 0; i < nc; i++) {
        long hops;
        int r = sys_check(&c[i], vals, n, monotone, &hops);
        if (r < 0) {
            free(c);
            return -1;
        }
        if (r > 0)
            continue;
        int better = !found || c[i].nph < out->nph ||
                     (c[i].nph == out->nph && (msgs_of(&c[i]) < msgs_of(out) ||
                                               (msgs_of(&c[i]) == msgs_of(out) && hops < best_hops)));
        if (better) {
            *out = c[i];
            best_hops = hops;
            found = 1;
        }
    }
    free(c);
    /* the monotone systems always write every value; every phase a
     * candidate has holds a hop */
    return found ? 0 : -1;
}
