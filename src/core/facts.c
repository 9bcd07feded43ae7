/* Agreed facts' three transports (core/facts.h). */
#include "core/facts.h"

#include <string.h>

void nh_facts_fold(const nh_fact *f, int n, long long *acc, const long long *x)
{
    for (int i = 0; i < n; i++)
        switch (f[i].how) {
        case NH_FACT_MIN:
            acc[i] = x[i] < acc[i] ? x[i] : acc[i];
            break;
        case NH_FACT_MAX:
            acc[i] = x[i] > acc[i] ? x[i] : acc[i];
            break;
        case NH_FACT_SUM:
            acc[i] += x[i];
            break;
        default: /* NH_FACT_SAME (NH_FACT_DIFFER stays: no rank's value is it) */
            acc[i] = x[i] == acc[i] ? acc[i] : NH_FACT_DIFFER;
        }
}

int nh_facts_min_pack(const nh_fact *f, int n, const long long *val, long long *w, long long *sum,
                      int *nsum)
{
    int k = 0, s = 0;
    for (int i = 0; i < n; i++)
        switch (f[i].how) {
        case NH_FACT_MIN:
            w[k++] = val[i];
            break;
        case NH_FACT_MAX:
            w[k++] = -val[i];
            break;
        case NH_FACT_SUM:
            sum[s++] = val[i];
            break;
        default: /* SAME: its minimum and its maximum */
            w[k++] = val[i];
            w[k++] = -val[i];
        }
    if (nsum)
        *nsum = s;
    return k;
}

void nh_facts_min_unpack(const nh_fact *f, int n, const long long *w, const long long *sum,
                         long long *val)
{
    int k = 0, s = 0;
    for (int i = 0; i < n; i++)
        switch (f[i].how) {
        case NH_FACT_MIN:
            val[i] = w[k++];
            break;
        case NH_FACT_MAX:
            val[i] = -w[k++];
            break;
        case NH_FACT_SUM:
            val[i] = sum[s++];
            break;
        default:
            val[i] = w[k] == -w[k + 1] ? w[k] : NH_FACT_DIFFER;
            k += 2;
        }
}

/* The low nb bits set. */
static uint64_t low(int nb)
{
    return nb >= 64 ? ~0ull : (1ull << nb) - 1;
}

/* put, get: bits [pos, pos + nb) of the stream w (nb at most 64). */
static void put(uint64_t *w, int pos, uint64_t v, int nb)
{
    int at = pos % 64;
    v &= low(nb);
    w[pos / 64] |= v << at;
    if (at && at + nb > 64)
        w[pos / 64 + 1] |= v >> (64 - at);
}

static uint64_t get(const uint64_t *w, int pos, int nb)
{
    int at = pos % 64;
    uint64_t v = w[pos / 64] >> at;
    if (at && at + nb > 64)
        v |= w[pos / 64 + 1] << (64 - at);
    return v & low(nb);
}

/* A fact's bits in AND words: a SAME value and its complement, a MIN or
 * MAX's thermometer. */
static int and_bits(const nh_fact *f)
{
    return f->how == NH_FACT_SAME ? 2 * f->bits : (1 << f->bits) - 1;
}

static int and_fits(const nh_fact *f)
{
    return f->how == NH_FACT_SAME ? f->bits <= 63 : f->how != NH_FACT_SUM && f->bits <= 6;
}

int nh_facts_and_pack(const nh_fact *f, int n, const long long *val, uint64_t *w, int nw)
{
    int pos = 0;
    memset(w, 0, (size_t)nw * sizeof(*w));
    for (int i = 0; i < n; i++) {
        if (!f[i].bits)
            continue;
        int nb = and_bits(&f[i]);
        if (!and_fits(&f[i]) || val[i] < 0 || (uint64_t)val[i] > low(f[i].bits) ||
            pos + nb > 64 * nw)
            return -1;
        uint64_t v = (uint64_t)val[i];
        if (f[i].how == NH_FACT_SAME) {
            put(w, pos, v, f[i].bits);
            put(w, pos + f[i].bits, ~v, f[i].bits);
        } else /* MIN: bit j is v > j; MAX: bit j is v <= j */
            put(w, pos, f[i].how == NH_FACT_MIN ? low((int)v) : ~low((int)v), nb);
        pos += nb;
    }
    return (pos + 63) / 64;
}

void nh_facts_and_unpack(const nh_fact *f, int n, const uint64_t *w, long long *val)
{
    int pos = 0;
    for (int i = 0; i < n; i++) {
        if (!f[i].bits)
            continue;
        int nb = and_bits(&f[i]);
        if (f[i].how == NH_FACT_SAME) {
            uint64_t all = get(w, pos, f[i].bits), none = get(w, pos + f[i].bits, f[i].bits);
            val[i] = (all ^ none) == low(f[i].bits) ? (long long)all : NH_FACT_DIFFER;
        } else {
            int set = __builtin_popcountll(get(w, pos, nb));
            val[i] = f[i].how == NH_FACT_MIN ? set : nb - set;
        }
        pos += nb;
    }
}
