/* The tuning file's text (NHOOD_TUNE_FILE, select/tunefile.h reads and
 * writes it under MPI): the autotuner's decisions, each keyed by
 * everything the measured time depends on that nhood can name: the
 * operation, the form, the neighborhood template (the plan's normalized,
 * sorted offsets), the grid, the block size and the rank count.  The
 * cost file's format (core/kvfile.h) with one line per decision:
 *   decision = op:alltoall form:blocking ranks:4 dims:2x2 periods:1,1
 *              bytes:8 template:-1,-1;-1,0;... algorithm:torus/pack
 *              times_us:pmpi:9.10,direct/zcopy:7.81,torus/pack:3.62
 * (on one line; fields in any order, times_us optional; docs/tuning.md).
 * A candidate is an algorithm, for nhood's own with the binding it was
 * timed with (ALGORITHM/BINDING; without one: the cost model's).
 * Pure functions: fuzzed by test/fuzz/fuzz_tunefile.c. */
#ifndef NH_TUNETEXT_H
#define NH_TUNETEXT_H

#include <stddef.h>
#include <stdio.h>

#include "core/kvfile.h"
#include "core/sched.h"

#define NH_TUNE_MAGIC "nhood-tune"
#define NH_TUNE_VERSION 1

/* The most candidates a decision holds: each algorithm with each binding. */
#define NH_TUNE_MAXCAND (NH_ALGO_COUNT * NH_BIND_COUNT)

/* A decision of the learning: the algorithm and binding chosen (AUTO: the
 * cost model's) and, where known, every candidate's with its time (the
 * slowest rank's median call, in microseconds; ncand 0 where a tuning
 * file gave none). */
typedef struct nh_tune_dec {
    nh_algo algo;
    nh_binding bind;
    int ncand;
    nh_algo cand[NH_TUNE_MAXCAND];
    nh_binding cbind[NH_TUNE_MAXCAND];
    double us[NH_TUNE_MAXCAND];
} nh_tune_dec;

/* "direct/pack" or "pmpi" (the model's binding: the algorithm alone). */
void nh_tune_cand_name(nh_algo a, nh_binding b, char *buf, size_t len);

typedef struct nh_tune_key {
    nh_op op;
    nh_form form;
    size_t m;  /* block size in bytes */
    nh_grid g; /* dims, periods; g.size: the communicator's size */
    int s;     /* template entries */
    int *off;  /* s * g.ndims offsets (a lookup's may be borrowed) */
} nh_tune_key;

/* A list of decisions (each key once); off owned by the entry. */
typedef struct nh_tune_entry {
    struct nh_tune_entry *next;
    nh_tune_key k;
    nh_tune_dec d;
    int written; /* select/tunefile.c: a measured one, saved in place of the file's */
} nh_tune_entry;

int nh_tune_key_eq(const nh_tune_key *a, const nh_tune_key *b);
/* l's entry with key k, or NULL. */
nh_tune_entry *nh_tune_find(nh_tune_entry *l, const nh_tune_key *k);
void nh_tune_free(nh_tune_entry **l);

/* Parses a tuning file's text (named name, for messages): its decisions
 * in file order into *out (NULL: none), its fingerprint into *fp.
 * Returns 0, or -1 with *out NULL and msg "NAME, line N: what". */
int nh_tune_parse(const char *text, const char *name, nh_fingerprint *fp, nh_tune_entry **out,
                  char *msg, size_t len);

/* The file's first line, the comment that says what it is, and fp. */
void nh_tune_write_header(FILE *f, const nh_fingerprint *fp);
/* One decision line (times with two decimals). */
void nh_tune_write_decision(FILE *f, const nh_tune_key *k, const nh_tune_dec *d);

#endif
