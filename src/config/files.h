/* The files nhood reads at start-up and writes for the next run: the
 * cost file (NHOOD_COST_FILE, written by nhood-calibrate) and the tuning
 * file (NHOOD_TUNE_FILE, written by the autotuner), under MPI.  Their text
 * (key = value lines after a "nhood-cost 2" line, with the fingerprint of
 * where they were written) is parsed without MPI: core/kvfile.h.  Rank 0
 * of MPI_COMM_WORLD reads a file and broadcasts its text, so every rank
 * parses the same bytes and decides alike (docs/tuning.md). */
#ifndef NH_FILES_H
#define NH_FILES_H

#include <stddef.h>
#include <stdio.h>

#include "config/config.h"
#include "core/kvfile.h"

/* This run's fingerprint (date: today).  Collective on MPI_COMM_WORLD
 * (one node split and one reduction); computed once, later calls copy. */
int nh_fingerprint_run(nh_fingerprint *f);

/* Whether f (read from a file) describes this run: the MPI library, the
 * host pattern, ranks per node and, where the file was fitted on one
 * node, that the run has one node too.  Returns 1 on a match, else 0 with
 * the first difference in why. */
int nh_fingerprint_match(const nh_fingerprint *f, const nh_fingerprint *run, char *why,
                         size_t len);

/* Whether a file (kind: "cost file", "tuning file"; at path) whose
 * fingerprint is fp is used in this run.  Rank 0 compares it with this
 * run's and broadcasts the verdict (host names differ between nodes);
 * collective.  Where it differs, mismatch (NHOOD_MISMATCH) decides: use and skip warn
 * once, saying use_says or skip_says; error returns MPI_ERR_OTHER with msg.
 * Returns MPI_SUCCESS with *use set, or an MPI error. */
int nh_file_fits(const char *kind, const char *path, const nh_fingerprint *fp, int mismatch,
                 const char *use_says, const char *skip_says, int *use, char *msg, size_t len);

/* Rank 0 of MPI_COMM_WORLD reads path and every rank gets its text
 * (malloc'ed, NUL-terminated) in *text.  Collective.  Returns
 * MPI_SUCCESS with *text = NULL where the file does not exist (or
 * *text set), or MPI_ERR_FILE with msg where it cannot be read. */
int nh_file_bcast(const char *path, char **text, char *msg, size_t len);

/* The installed default cost file, where there is one (else ""):
 * PREFIX/share/nhood/site.cost beside the library's PREFIX/lib, or the
 * configured pkgdatadir's. */
void nh_site_cost_path(char *buf, size_t len);

/* The cost file (config/config.c): parses text into *out, starting from
 * the current parameters (nh_cost_file_parse); returns 0, or -1 with msg
 * naming the line. */
int nh_config_cost_parse(const char *text, const char *name, nh_cost *out, nh_fingerprint *fp,
                         char *msg, size_t len);
/* Makes c the parameters, the NHOOD_COST_* variables still winning each
 * its own, and name their source. */
void nh_config_cost_use(const nh_cost *c, const char *name);
/* "defaults", the file's name, either with "+env" where a variable set
 * some parameter. */
const char *nh_config_cost_source(void);

#endif
