/* Strict parsers for nhood's settings (environment variables and MPI_Info
 * values).  Pure functions, no MPI: fuzzed by test/fuzz/fuzz_parse.c.
 * Unlike strtol/strtod they reject leading blanks, signs, hexadecimal,
 * "inf"/"nan", empty strings, trailing characters and overflow, so a
 * value means exactly what it looks like or is refused. */
#ifndef NH_PARSE_H
#define NH_PARSE_H

/* Decimal digits only, value <= max.  Returns 0 and sets *out, or -1. */
int nh_parse_uint(const char *s, long long max, long long *out);

/* A non-negative decimal number: digits with an optional fraction and an
 * optional exponent (1, 0.5, .5, 2., 1e-3, 2.5E+4); finite.  Returns 0 and
 * sets *out, or -1. */
int nh_parse_real(const char *s, double *out);

/* 1..max comma-separated nh_parse_uint values within [lo, hi] (lo >= 0),
 * no blanks, no empty entries.  Returns the count, or -1. */
int nh_parse_uint_list(const char *s, int *out, int max, int lo, int hi);

#endif
