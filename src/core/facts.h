/* Agreed facts: values every rank of a communicator contributes and every
 * rank must end with the same combination of, declared once (a table of
 * nh_fact, one row per fact: how it combines and how wide it is) and
 * carried by whichever transport a caller's size takes.  Pure functions,
 * no MPI: the callers move the words.
 *
 * Three transports, each with its own packing here, all giving the same
 * combined values (test/unit/test_facts.c holds them to it):
 *
 * gathered   every rank's values travel whole (an allgather, or point to
 *            point); nh_facts_fold combines them one rank at a time.
 * MIN words  one MPI_MIN reduction (nh_facts_min_pack, _unpack): MAX as
 *            the negation, SAME as the value and its negation.  SUM facts
 *            take a second reduction (MPI_SUM) of their own words.
 * AND words  one bitwise-AND reduction of a few 64-bit words, or an
 *            allgather and a local AND (nh_facts_and_pack, _unpack): the
 *            cheapest collective there is, for the facts that declare a
 *            width.  A b-bit SAME value travels as its bits and their
 *            complement (2b bits: the AND of both says whether all
 *            agree); a MIN or MAX over [0, 2^b) as a thermometer of
 *            2^b - 1 bits (bit i: the value is above i, or not above i,
 *            whose AND gives the minimum or the maximum).
 *
 * Values lie in (LLONG_MIN, LLONG_MAX]: a SAME fact whose ranks differ
 * combines to NH_FACT_DIFFER. */
#ifndef NH_FACTS_H
#define NH_FACTS_H

#include <limits.h>
#include <stdint.h>

typedef enum {
    NH_FACT_MIN, /* the smallest; a flag every rank must have (width 1) */
    NH_FACT_MAX, /* the largest; a flag some rank has (width 1) */
    NH_FACT_SUM, /* the sum (gathered and MIN-word transports only) */
    NH_FACT_SAME /* the value where every rank has the same, else NH_FACT_DIFFER */
} nh_fact_how;

#define NH_FACT_DIFFER LLONG_MIN

typedef struct nh_fact {
    unsigned char how;  /* nh_fact_how */
    unsigned char bits; /* travels in AND words, its values in [0, 2^bits): at most 6 for
                           MIN and MAX, 63 for SAME; 0: not in AND words */
} nh_fact;

/* The most facts one table may have. */
#define NH_FACTS_MAX 64

/* acc (n values) combined with one more rank's values x. */
void nh_facts_fold(const nh_fact *f, int n, long long *acc, const long long *x);

/* MIN words: w gets this rank's words for an MPI_MIN reduction (returns
 * how many, at most 2n), sum its SUM facts' values for an MPI_SUM one
 * (*nsum of them; sum may be NULL where the table has none). */
int nh_facts_min_pack(const nh_fact *f, int n, const long long *val, long long *w, long long *sum,
                      int *nsum);
/* The combined values from the reduced words. */
void nh_facts_min_unpack(const nh_fact *f, int n, const long long *w, const long long *sum,
                         long long *val);

/* AND words: the facts with a width, packed in order into words (zeroed
 * first; returns how many, or -1 where they need more than nw or a value
 * lies outside its width).  Facts without a width are left out of both
 * pack and unpack (unpack leaves their val alone). */
int nh_facts_and_pack(const nh_fact *f, int n, const long long *val, uint64_t *w, int nw);
void nh_facts_and_unpack(const nh_fact *f, int n, const uint64_t *w, long long *val);

#endif
