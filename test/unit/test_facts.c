/* Agreed facts (core/facts.h): the three transports combine every table's
 * values as the facts declare, the same as a plain loop over the ranks
 * does; packing refuses values outside a fact's width and words it does
 * not have. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "core/facts.h"

#define RANKS_MAX 9
#define WORDS 4

static unsigned long long seed = 88172645463325252ull;

static unsigned long long rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

/* A random table: every kind, with and without a width, in random order,
 * whose AND words fit in WORDS. */
static int table(nh_fact *f)
{
    int n = 1 + (int)(rnd() % 12), bits = 0;
    for (int i = 0; i < n; i++) {
        f[i].how = (unsigned char)(rnd() % 4);
        f[i].bits = 0;
        if (f[i].how == NH_FACT_SUM || rnd() % 3 == 0)
            continue;
        int b = f[i].how == NH_FACT_SAME ? 1 + (int)(rnd() % 63) : 1 + (int)(rnd() % 6);
        int cost = f[i].how == NH_FACT_SAME ? 2 * b : (1 << b) - 1;
        if (bits + cost <= 64 * WORDS) {
            f[i].bits = (unsigned char)b;
            bits += cost;
        }
    }
    return n;
}

/* A value for fact f: within its width where it has one. */
static long long raw(const nh_fact *f)
{
    if (f->bits) {
        unsigned long long m = f->bits >= 64 ? ~0ull : (1ull << f->bits) - 1;
        return (long long)(rnd() & m & (unsigned long long)LLONG_MAX);
    }
    return (long long)(rnd() % 2000001) - 1000000;
}

/* ... on some rank: a SAME fact's mostly equal on every rank (common). */
static long long value(const nh_fact *f, long long common)
{
    return f->how == NH_FACT_SAME && rnd() % 4 ? common : raw(f);
}

static long long expect(const nh_fact *f, long long v[][NH_FACTS_MAX], int ranks, int i)
{
    long long r = v[0][i];
    for (int k = 1; k < ranks; k++) {
        long long x = v[k][i];
        if (f[i].how == NH_FACT_MIN)
            r = x < r ? x : r;
        else if (f[i].how == NH_FACT_MAX)
            r = x > r ? x : r;
        else if (f[i].how == NH_FACT_SUM)
            r += x;
        else if (x != r)
            return NH_FACT_DIFFER;
    }
    return r;
}

static void one_table(int t)
{
    nh_fact f[NH_FACTS_MAX];
    long long v[RANKS_MAX][NH_FACTS_MAX], common[NH_FACTS_MAX];
    int n = table(f), ranks = 1 + (int)(rnd() % RANKS_MAX);
    for (int i = 0; i < n; i++)
        common[i] = raw(&f[i]);
    for (int k = 0; k < ranks; k++)
        for (int i = 0; i < n; i++)
            v[k][i] = value(&f[i], common[i]);

    /* gathered: fold rank by rank */
    long long acc[NH_FACTS_MAX];
    for (int i = 0; i < n; i++)
        acc[i] = v[0][i];
    for (int k = 1; k < ranks; k++)
        nh_facts_fold(f, n, acc, v[k]);

    /* MIN words: one MIN reduction, one SUM reduction */
    long long w[2 * NH_FACTS_MAX], s[NH_FACTS_MAX], mw[2 * NH_FACTS_MAX], ms[NH_FACTS_MAX];
    int nw = 0, ns = 0;
    for (int k = 0; k < ranks; k++) {
        nw = nh_facts_min_pack(f, n, v[k], w, s, &ns);
        for (int j = 0; j < nw; j++)
            mw[j] = k == 0 || w[j] < mw[j] ? w[j] : mw[j];
        for (int j = 0; j < ns; j++)
            ms[j] = k == 0 ? s[j] : ms[j] + s[j];
    }
    long long bymin[NH_FACTS_MAX];
    nh_facts_min_unpack(f, n, mw, ms, bymin);

    /* AND words */
    uint64_t a[WORDS], all[WORDS];
    int na = 0, packed = 1;
    for (int k = 0; k < ranks; k++) {
        int got = nh_facts_and_pack(f, n, v[k], a, WORDS);
        packed &= got >= 0;
        na = got;
        for (int j = 0; j < WORDS; j++)
            all[j] = k == 0 ? a[j] : all[j] & a[j];
    }
    CHECK(packed && na <= WORDS, "table %d: AND words packed (%d)", t, na);
    long long byand[NH_FACTS_MAX];
    for (int i = 0; i < n; i++)
        byand[i] = 12345;
    nh_facts_and_unpack(f, n, all, byand);

    for (int i = 0; i < n; i++) {
        long long e = expect(f, v, ranks, i);
        CHECK(acc[i] == e, "table %d fact %d (how %d): fold %lld, expected %lld", t, i, f[i].how,
              acc[i], e);
        CHECK(bymin[i] == e, "table %d fact %d (how %d): MIN words %lld, expected %lld", t, i,
              f[i].how, bymin[i], e);
        long long ea = f[i].bits ? e : 12345;
        CHECK(byand[i] == ea, "table %d fact %d (how %d, %d bits): AND words %lld, expected %lld",
              t, i, f[i].how, f[i].bits, byand[i], ea);
    }
}

int main(void)
{
    for (int t = 0; t < 2000; t++)
        one_table(t);

    /* Refusals: a value outside its width, a negative one, a SUM with a
     * width, more bits than words. */
    nh_fact flag = {NH_FACT_MIN, 1}, wide = {NH_FACT_MAX, 6}, sum = {NH_FACT_SUM, 3};
    nh_fact same[3] = {{NH_FACT_SAME, 60}, {NH_FACT_SAME, 60}, {NH_FACT_SAME, 60}};
    uint64_t w[6];
    long long two = 2, minus = -1, big = 63, v3[3] = {1, 2, 3};
    CHECK(nh_facts_and_pack(&flag, 1, &two, w, 2) == -1, "a flag of 2 is refused");
    CHECK(nh_facts_and_pack(&wide, 1, &minus, w, 2) == -1, "a negative MAX is refused");
    CHECK(nh_facts_and_pack(&wide, 1, &big, w, 1) == 1, "MAX 63 of 6 bits packs in one word");
    CHECK(nh_facts_and_pack(&sum, 1, &two, w, 2) == -1, "a SUM has no AND words");
    CHECK(nh_facts_and_pack(same, 3, v3, w, 5) == -1, "360 bits do not fit 5 words");
    CHECK(nh_facts_and_pack(same, 3, v3, w, 6) == 6, "360 bits fit 6 words");

    /* The thermometer's ends: MIN and MAX of 0 and of 63 (6 bits). */
    nh_fact mm[2] = {{NH_FACT_MIN, 6}, {NH_FACT_MAX, 6}};
    long long lo[2] = {0, 0}, hi[2] = {63, 63}, got[2];
    uint64_t a[2], b[2];
    nh_facts_and_pack(mm, 2, lo, a, 2);
    nh_facts_and_pack(mm, 2, hi, b, 2);
    a[0] &= b[0], a[1] &= b[1];
    nh_facts_and_unpack(mm, 2, a, got);
    CHECK(got[0] == 0 && got[1] == 63, "MIN 0, MAX 63 of {0, 63}: %lld, %lld", got[0], got[1]);

    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
