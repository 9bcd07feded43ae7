/* Fuzz target: the strict settings parsers (src/core/parse.c) against
 * an independent oracle written from their grammar.  A parser must accept
 * exactly the strings the oracle accepts, with the same value:
 *   uint:      [0-9]+ with value <= max
 *   uint list: uint (',' uint)*, at most max entries, each in [lo, hi]
 *   real:      ([0-9]+ ('.' [0-9]*)? | '.' [0-9]+) ([eE] [+-]? [0-9]+)?,
 *              finite and representable (strtod without ERANGE). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "core/parse.h"

static int digits(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

/* Value of n decimal digits if <= max, else -1 (compares digit strings,
 * so it cannot overflow). */
static long long value_upto(const char *s, size_t n, long long max)
{
    char m[32];
    int mlen = snprintf(m, sizeof(m), "%lld", max);
    while (n > 1 && *s == '0')
        s++, n--;
    if ((int)n > mlen || ((int)n == mlen && memcmp(s, m, n) > 0))
        return -1;
    long long x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (s[i] - '0');
    return x;
}

static int oracle_list(const char *s, int *out, int max, int lo, int hi)
{
    int n = 0;
    for (;;) {
        const char *c = strchr(s, ',');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        long long x;
        if (n == max || !digits(s, len) || (x = value_upto(s, len, hi)) < 0 || x < lo)
            return -1;
        out[n++] = (int)x;
        if (!c)
            return n;
        s = c + 1;
    }
}

static int oracle_real(const char *s, double *out)
{
    size_t i = 0, n = strlen(s), a, b = 0;
    for (a = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        a++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            b++;
    if (a + b == 0)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            e++;
        if (e == 0)
            return -1;
    }
    if (i != n)
        return -1;
    errno = 0;
    double x = strtod(s, NULL);
    if (errno || !isfinite(x))
        return -1;
    *out = x;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long long maxes[] = {0, 1, 9, 10, 99, 1LL << 30, 1LL << 40, LLONG_MAX};
    fz f = {data, size};
    int which = fz_range(&f, 0, 2);
    long long max = maxes[fz_range(&f, 0, 7)];
    int lmax = fz_range(&f, 1, 8), lo = fz_range(&f, 0, 2), hi = lo + fz_range(&f, 0, 1 << 30);
    char s[300];
    size_t n = f.n < sizeof(s) - 1 ? f.n : sizeof(s) - 1;
    memcpy(s, f.p, n);
    s[n] = '\0';
    if (which == 0) {
        long long got = -7, want;
        int rc = nh_parse_uint(s, max, &got);
        size_t len = strlen(s);
        int ok = digits(s, len) && (want = value_upto(s, len, max)) >= 0;
        if ((rc == 0) != ok || (ok && got != want))
            FZ_FAIL("nh_parse_uint(\"%s\", %lld): rc %d value %lld, oracle %d", s, max, rc, got,
                    ok);
    } else if (which == 1) {
        int got[8], want[8];
        int rc = nh_parse_uint_list(s, got, lmax, lo, hi);
        int w = oracle_list(s, want, lmax, lo, hi);
        if (rc != w || (rc > 0 && memcmp(got, want, sizeof(int) * (size_t)rc) != 0))
            FZ_FAIL("nh_parse_uint_list(\"%s\", %d, %d, %d): %d, oracle %d", s, lmax, lo, hi, rc,
                    w);
    } else {
        double got = -1, want = -2;
        int rc = nh_parse_real(s, &got), w = oracle_real(s, &want);
        if (rc != w || (rc == 0 && got != want))
            FZ_FAIL("nh_parse_real(\"%s\"): rc %d %g, oracle %d %g", s, rc, got, w, want);
    }
    return 0;
}
