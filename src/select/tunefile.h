/* NHOOD_TUNE_FILE (tunefile.c): the autotuner's decisions, loaded at
 * MPI_Init and saved at MPI_Finalize for the next run.  A decision is
 * keyed by everything the measured time depends on that nhood can name:
 * the operation, the form, the neighborhood template (the plan's
 * normalized, sorted offsets), the grid, the block size and the rank
 * count (nh_tune_key, core/tunetext.h, which reads and writes the text).
 * File format: docs/tuning.md, "The tuning file". */
#ifndef NH_TUNEFILE_H
#define NH_TUNEFILE_H

#include "select/select.h"

/* Reads NHOOD_TUNE_FILE on rank 0 of MPI_COMM_WORLD and gives every rank
 * its decisions (a missing file: none).  Collective over MPI_COMM_WORLD;
 * every rank gets the same result.  Returns MPI_SUCCESS, or an MPI error
 * with msg (a malformed or unreadable file, or NHOOD_MISMATCH=error on a
 * file written elsewhere): the run stops as on a bad setting. */
int nh_tune_file_load(char *msg, size_t len);
/* The file's decision for k, or -1.  Identical on every rank. */
int nh_tune_file_lookup(const nh_tune_key *k, nh_tune_dec *d);
/* A decision measured in this run, to be saved (kept on rank 0 of
 * MPI_COMM_WORLD, which writes the file; a no-op elsewhere). */
void nh_tune_file_put(const nh_tune_key *k, const nh_tune_dec *d);
/* Rank 0 writes the file where this run measured something: the file's
 * decisions, those measured now replacing them; into a temporary file
 * beside it, renamed over it (nh_file_replace: atomic, no link followed).
 * A failure is a one-line warning naming the file and the reason; the
 * run ends normally.  Then every rank frees the decisions. */
void nh_tune_file_save(void);

#endif
