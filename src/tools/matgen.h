/* Test matrices for the SpMV benchmark and the communication-metrics tools:
 * generators of latency-bound sparse matrices (power-law row lengths with a
 * few dense rows and columns, R-MAT), Matrix Market and edge-list readers,
 * row partitioning, and the communication graph of a row-parallel y = A x.
 * Pure C, no MPI: every rank of a benchmark can build the same matrix and
 * read its own dist-graph arguments off the same communication graph. */
#ifndef NH_MATGEN_H
#define NH_MATGEN_H

#include <stddef.h>

/* Compressed sparse rows; columns of each row ascending and distinct. */
typedef struct nh_csr {
    int nrows, ncols;
    long nnz;
    long *rowptr; /* nrows + 1 */
    int *col;     /* nnz */
    double *val;  /* nnz */
} nh_csr;

/* spec:
 *   "powerlaw:ROWS:AVGDEG:EXP[:DENSE[:SEED]]"  square ROWS x ROWS,
 *       structurally symmetric (pattern of B + B^T); the rows of B have
 *       lengths from a discrete power law with exponent EXP (> 1) scaled to
 *       mean AVGDEG, clipped to ROWS, and columns around the diagonal with a
 *       heavy tail, so that most parts talk to a few others and the parts
 *       holding long rows/columns to many; DENSE rows (hence columns) are
 *       full; SEED (default 1) selects the instance.  nnz is about
 *       2 * ROWS * (AVGDEG + DENSE).
 *   "rmat:SCALE:EDGEFACTOR[:SEED]"  2^SCALE x 2^SCALE, EDGEFACTOR * 2^SCALE
 *       R-MAT edges with a, b, c = .57, .19, .19 (duplicates summed).
 *   "mtx:PATH"  Matrix Market coordinate real/integer/pattern, general or
 *       symmetric/skew-symmetric (mirrored); duplicates summed.
 *   "edges:PATH"  lines "i j" (0-based), # comments; square, n = max index + 1.
 * Deterministic for a spec (no global state).  Returns 0, or -1 with a
 * message in err (which names the field or the file's line). */
int nh_matgen(const char *spec, nh_csr *out, char *err, size_t errlen);
void nh_csr_free(nh_csr *m);

/* owner[i] in [0, K) for each row i: how = "rowblock" (contiguous, balanced
 * by rows), "nnz" (contiguous, balanced by nonzeros), "metis" (libmetis on
 * the pattern of A + A^T, if built with it, else an error), "file:PATH" (one
 * part per line).  Returns 0, or -1 with a message in err. */
int nh_partition(const nh_csr *m, int K, const char *how, int *owner, char *err, size_t errlen);

/* Communication graph of y = A x with rows (and x entries: x_j belongs to
 * the owner of row j; A must be square) owned by owner[]: part s sends to
 * part d the distinct x entries that rows of d need from s.
 * dst[s][0..outdeg[s]) ascending, words[s][j] = number of x entries sent to
 * dst[s][j]; src[d][0..indeg[d]) ascending with inwords[d][j] entries
 * received from src[d][j].  No self edges.  Returns 0, or -1 (not square,
 * an owner out of range, out of memory). */
typedef struct nh_cgraph {
    int K;
    int *outdeg, *indeg;
    int **dst, **src;
    long **words, **inwords;
} nh_cgraph;
int nh_comm_graph(const nh_csr *m, int K, const int *owner, nh_cgraph *g);
void nh_cgraph_free(nh_cgraph *g);

/* Summary of a communication graph as in the store-and-forward paper's
 * tables: messages sent per part (maximum, average) and words sent per
 * part (maximum, average). */
typedef struct nh_cgraph_stats {
    int mmax;
    double mavg;
    long vmax;
    double vavg;
} nh_cgraph_stats;
void nh_cgraph_stats_of(const nh_cgraph *g, nh_cgraph_stats *st);

/* The x entries part `part` exchanges, as the halo exchange packs them:
 * recvcols[j] for j in [inoff[i], inoff[i+1]) are the columns (ascending)
 * received from src[part][i]; sendcols likewise for dst[part][i].  Arrays
 * allocated here (free with free()).  Returns 0, or -1 (out of memory). */
int nh_halo_cols(const nh_csr *m, const int *owner, const nh_cgraph *g, int part, long **inoff,
                 int **recvcols, long **outoff, int **sendcols);

#endif
