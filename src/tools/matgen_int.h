/* Shared by the matgen files (matgen.c, matread.c, partition.c) only. */
#ifndef NH_MATGEN_INT_H
#define NH_MATGEN_INT_H

#include <stddef.h>

#include "matgen.h"

/* Formats an error message into err (when given). */
void nh_mat_seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* qsort order of ints. */
int nh_mat_cmp_int(const void *a, const void *b);

/* Growable (row, column, value) triplets, turned into CSR at the end. */
typedef struct triplets {
    long n, cap;
    int *i, *j;
    double *v;
} triplets;
int nh_trip_add(triplets *t, int i, int j, double v);
void nh_trip_free(triplets *t);
/* Rows bucketed in input order, then each row sorted by column with
 * duplicates summed in input order (deterministic). */
int nh_trip_to_csr(const triplets *t, int nrows, int ncols, nh_csr *out);

/* The file: and edges: specs (matread.c). */
int nh_read_mtx(const char *path, nh_csr *out, char *err, size_t errlen);
int nh_read_edges(const char *path, nh_csr *out, char *err, size_t errlen);

#endif
