/* The text of the files nhood reads at start-up and writes for the next
 * run, without MPI (config/files.h reads and judges them under MPI): the
 * cost file (NHOOD_COST_FILE, written by nhood-calibrate) and the tuning
 * file (NHOOD_TUNE_FILE, core/tunetext.h).  Both are
 *
 *   nhood-cost 2                 first line: the format and its version
 *   # comment                    '#' to the end of the line, blank lines
 *   key = value                  one setting per line
 *
 * with the fingerprint of where they were written (fingerprint.mpi,
 * .host, .ranks, .ranks_per_node, .nodes, .date).  Pure functions of the
 * text: fuzzed by test/fuzz/fuzz_costfile.c and fuzz_tunefile.c.  And the
 * safe replacement of a file (nh_file_replace), for the tuning file. */
#ifndef NH_KVFILE_H
#define NH_KVFILE_H

#include <stddef.h>
#include <stdio.h>

#include "core/model.h"

#define NH_COST_MAGIC "nhood-cost"
#define NH_COST_VERSION 2

typedef struct nh_fingerprint {
    char mpi[128]; /* first line of MPI_Get_library_version */
    char host[64]; /* host name pattern (fnmatch): digit runs become '*' */
    int ranks;     /* MPI_COMM_WORLD's size */
    int ranks_per_node;
    int nodes;
    char date[16]; /* YYYY-MM-DD, when written */
    int version;   /* the file's format version (nh_kv_parse) */
} nh_fingerprint;

/* Copies s (n bytes, or up to a NUL) into out with every run of blanks
 * made one space and none at either end: library strings mix tabs and
 * spaces, files written by hand may not. */
void nh_squeeze(char *out, size_t len, const char *s, size_t n);

/* s (n bytes, or up to a NUL) as a file would read it back from a
 * "key = value" line: squeezed (nh_squeeze), cut before a '#' that
 * begins it or follows a blank (a comment there).  This run's fingerprint
 * is made of such values, so a file written with it reads back the same. */
void nh_fingerprint_value(char *out, size_t len, const char *s, size_t n);

/* Writes f as fingerprint.* lines. */
void nh_fingerprint_write(FILE *out, const nh_fingerprint *f);

/* One key = value of a file: returns 0, or -1 with msg set (the caller
 * adds the file and line). */
typedef int (*nh_kv_fn)(void *ctx, const char *key, const char *value, char *msg, size_t len);

/* Parses text (a file named name, for messages) whose first line must be
 * "magic VERSION" with VERSION <= version; fingerprint.* keys fill *fp,
 * every other key goes to fn.  Returns 0, or -1 with msg "NAME, line N:
 * what" (N the line at fault, counted from 1; 1 for a file without a
 * first line). */
int nh_kv_parse(const char *text, const char *name, const char *magic, int version,
                nh_fingerprint *fp, nh_kv_fn fn, void *ctx, char *msg, size_t len);

/* The cost file: parses text into *out, starting from base (keys: the
 * parameters' names, core/model.h; validation.* skipped).  Returns 0, or
 * -1 with msg naming the line (nh_kv_parse). */
int nh_cost_file_parse(const char *text, const char *name, const nh_cost *base, nh_cost *out,
                       nh_fingerprint *fp, char *msg, size_t len);

/* Writes path anew through fill (which returns 0, or nonzero on an error)
 * without ever opening path itself: into a temporary file of an
 * unpredictable name beside it, created exclusively (O_EXCL, O_NOFOLLOW:
 * no link planted in a shared directory is followed; mode 0644 less the
 * umask), flushed to disk, then renamed over path, so a reader sees the
 * old file or the new one whole, and a link at path is replaced, not
 * written through.  Returns 0, or -1 with msg saying what failed and why
 * (strerror), the temporary file removed. */
int nh_file_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx, char *msg,
                    size_t len);

#endif
