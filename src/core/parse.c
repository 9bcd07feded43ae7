/* Strict parsers for settings (see parse.h). */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digits from s up to the first non-digit; *end points there. */
static int scan_uint(const char *s, long long max, long long *out, const char **end)
{
    long long x = 0;
    const char *p = s;
    if (!is_digit(*p))
        return -1;
    for (; is_digit(*p); p++) {
        int d = *p - '0';
        if (d > max || x > (max - d) / 10)
            return -1; /* above max, or would overflow */
        x = x * 10 + d;
    }
    *out = x;
    *end = p;
    return 0;
}

int nh_parse_uint(const char *s, long long max, long long *out)
{
    long long x;
    const char *end;
    if (max < 0 || scan_uint(s, max, &x, &end) || *end != '\0')
        return -1;
    *out = x;
    return 0;
}

int nh_parse_real(const char *s, double *out)
{
    /* Check the shape first; strtod then converts exactly that text (no
     * sign, blank, hex or inf/nan can reach it). */
    const char *p = s;
    int digits = 0;
    while (is_digit(*p))
        p++, digits++;
    if (*p == '.')
        for (p++; is_digit(*p); p++)
            digits++;
    if (digits == 0)
        return -1;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return -1;
        while (is_digit(*p))
            p++;
    }
    if (*p != '\0')
        return -1;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* ERANGE on underflow still gives a usable (tiny or zero) value, but a
     * setting that small is a typo: refuse both directions. */
    if (errno || end != p || !isfinite(x) || x < 0)
        return -1;
    *out = x;
    return 0;
}

int nh_parse_uint_list(const char *s, int *out, int max, int lo, int hi)
{
    int n = 0;
    const char *p = s;
    if (lo < 0 || hi < lo)
        return -1;
    for (;;) {
        long long x;
        const char *end;
        if (n == max || scan_uint(p, hi, &x, &end) || x < lo)
            return -1;
        out[n++] = (int)x;
        if (*end == '\0')
            return n;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}
