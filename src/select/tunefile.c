/* NHOOD_TUNE_FILE: the autotuner's decisions survive the run.
 *
 * At MPI_Init rank 0 of MPI_COMM_WORLD reads the file and broadcasts its
 * text (config/files.h); every rank parses the same bytes
 * (core/tunetext.h), so every rank holds the same decisions and applies
 * them alike without agreeing again.  Rank 0 alone judges the fingerprint
 * (host names may differ between nodes) and broadcasts its verdict.  At
 * MPI_Finalize rank 0 writes what it knows: the file's decisions, with
 * those measured in this run replacing the ones of the same key, and the
 * new ones after them; into a temporary file renamed over the file
 * (core/kvfile.h: nh_file_replace), so a job reading it meanwhile sees
 * the old file or the new one, and no link planted beside it is followed.
 *
 * Decisions measured in this run are saved but never applied to another
 * communicator: the ranks of a communicator that did not measure them may
 * not all have seen them (disjoint communicators of one shape), while the
 * file's are on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/files.h"
#include "select/tunefile.h"
#include "util/sync.h"

typedef nh_tune_entry entry;

static entry *loaded;                                /* the file's, the same on every rank */
static entry *measured, **measured_tail = &measured; /* this run's (rank 0) */
static nh_fingerprint run_fp;
static int have_fp;

int nh_tune_file_load(char *msg, size_t len)
{
    const char *path = nh_cfg.tune_file;
    char *text = NULL, inner[700] = "";
    nh_fingerprint fp;
    int rc, use;
    if ((rc = nh_fingerprint_run(&run_fp))) {
        snprintf(msg, len, "NHOOD_TUNE_FILE: this run's fingerprint failed (MPI error %d)", rc);
        goto cleanup;
    }
    have_fp = 1;
    if ((rc = nh_file_bcast(path, &text, inner, sizeof(inner)))) {
        if (rc != MPI_ERR_FILE) /* only rank 0's reading failures come with a message */
            snprintf(inner, sizeof(inner), "%s: MPI error %d", path, rc);
        snprintf(msg, len, "NHOOD_TUNE_FILE: %s", inner);
        goto cleanup;
    }
    if (!text) /* the first run: the file is written at MPI_Finalize */
        goto cleanup;
    if (nh_tune_parse(text, path, &fp, &loaded, inner, sizeof(inner))) {
        snprintf(msg, len, "NHOOD_TUNE_FILE: %s", inner);
        rc = MPI_ERR_OTHER;
        goto cleanup;
    }
    if ((rc = nh_file_fits("tuning file", path, &fp, nh_cfg.mismatch,
                           "using its decisions anyway (NHOOD_MISMATCH=use)",
                           "tuning again, its decisions ignored (NHOOD_MISMATCH=skip)", &use, inner,
                           sizeof(inner)))) {
        if (rc == MPI_ERR_OTHER)
            snprintf(msg, len, "%s", inner);
        else
            snprintf(msg, len, "NHOOD_TUNE_FILE: MPI error %d", rc);
        goto cleanup;
    }
    if (!use)
        nh_tune_free(&loaded);
cleanup:
    free(text);
    if (rc)
        nh_tune_free(&loaded);
    return rc;
}

int nh_tune_file_lookup(const nh_tune_key *k, nh_tune_dec *d)
{
    const entry *e = nh_tune_find(loaded, k); /* read-only after MPI_Init */
    if (!e)
        return -1;
    *d = e->d;
    return 0;
}

void nh_tune_file_put(const nh_tune_key *k, const nh_tune_dec *d)
{
    if (!nh_cfg.tune_file || nh_world_rank != 0)
        return;
    size_t n = sizeof(int) * (size_t)k->s * (size_t)k->g.ndims;
    nh_lock(NH_LOCK_MISC); /* communicators' agreements may race */
    entry *e = nh_tune_find(measured, k);
    if (e) {
        e->d = *d;
    } else if ((e = calloc(1, sizeof(*e))) && (n == 0 || (e->k.off = malloc(n)))) {
        int *off = e->k.off; /* the key's own copy of the template */
        e->k = *k;
        e->k.off = off;
        if (n)
            memcpy(off, k->off, n);
        e->d = *d;
        *measured_tail = e;
        measured_tail = &e->next;
    } else {
        free(e); /* out of memory: this decision is not saved */
    }
    nh_unlock(NH_LOCK_MISC);
}

/* nh_file_replace's fill: the file's text. */
static int write_text(FILE *f, void *ctx)
{
    (void)ctx;
    nh_tune_write_header(f, &run_fp);
    for (const entry *e = loaded; e; e = e->next) {
        entry *now = nh_tune_find(measured, &e->k);
        nh_tune_write_decision(f, now ? &now->k : &e->k, now ? &now->d : &e->d);
        if (now)
            now->written = 1;
    }
    for (const entry *e = measured; e; e = e->next)
        if (!e->written)
            nh_tune_write_decision(f, &e->k, &e->d);
    return ferror(f);
}

void nh_tune_file_save(void)
{
    const char *path = nh_cfg.tune_file;
    char why[600];
    if (path && have_fp && measured && nh_world_rank == 0 &&
        nh_file_replace(path, write_text, NULL, why, sizeof(why)))
        nh_warn("could not write the tuning file %s: %s; this run's decisions are not saved", path,
                why);
    nh_tune_free(&loaded);
    nh_tune_free(&measured);
    measured_tail = &measured;
}
