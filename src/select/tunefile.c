/* NHOOD_TUNE_FILE: the autotuner's decisions survive the run.
 *
 * At MPI_Init rank 0 of MPI_COMM_WORLD reads the file and broadcasts its
 * text (config/files.h); every rank parses the same bytes, so every rank
 * holds the same decisions and applies them alike without agreeing again.
 * Rank 0 alone judges the fingerprint (host names may differ between
 * nodes) and broadcasts its verdict.  At MPI_Finalize rank 0 writes what
 * it knows: the file's decisions, with those measured in this run
 * replacing the ones of the same key, and the new ones after them.
 *
 * Decisions measured in this run are saved but never applied to another
 * communicator: the ranks of a communicator that did not measure them may
 * not all have seen them (disjoint communicators of one shape), while the
 * file's are on every rank.
 *
 * One line per decision (key = value, as the cost file):
 *   decision = op:alltoall form:blocking ranks:4 dims:2x2 periods:1,1
 *              bytes:8 template:-1,-1;-1,0;... algorithm:torus
 *              times_us:direct:7.81,torus:3.62
 * (on one line; fields in any order, times_us optional). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/files.h"
#include "core/parse.h"
#include "select/tunefile.h"
#include "util/sync.h"

typedef struct entry {
    struct entry *next;
    nh_tune_key k;
    nh_tune_dec d;
    int written; /* a measured one, saved in place of the file's */
} entry;

static entry *loaded;                                /* the file's, the same on every rank */
static entry *measured, **measured_tail = &measured; /* this run's (rank 0) */
static nh_fingerprint run_fp;
static int have_fp;

static const char *const form_names[NH_FORM_COUNT] = {"blocking", "nonblocking", "persistent"};

static void free_list(entry **l)
{
    while (*l) {
        entry *n = (*l)->next;
        free((*l)->k.off);
        free(*l);
        *l = n;
    }
}

static int key_eq(const nh_tune_key *a, const nh_tune_key *b)
{
    int nd = a->g.ndims;
    if (a->op != b->op || a->form != b->form || a->m != b->m || a->g.size != b->g.size ||
        nd != b->g.ndims || a->s != b->s)
        return 0;
    for (int j = 0; j < nd; j++)
        if (a->g.dims[j] != b->g.dims[j] || a->g.periods[j] != b->g.periods[j])
            return 0;
    return a->s == 0 || memcmp(a->off, b->off, sizeof(int) * (size_t)a->s * (size_t)nd) == 0;
}

static entry *find(entry *l, const nh_tune_key *k)
{
    for (; l; l = l->next)
        if (key_eq(&l->k, k))
            return l;
    return NULL;
}

/* ---- parsing ---- */

/* An optionally negative decimal within +-2^30. */
static int parse_int(const char *s, int *out)
{
    long long x;
    int neg = *s == '-';
    if (nh_parse_uint(s + neg, 1LL << 30, &x))
        return -1;
    *out = neg ? -(int)x : (int)x;
    return 0;
}

static int parse_template(char *v, entry *e, char *msg, size_t len)
{
    int nd = e->k.g.ndims, s = 1;
    if (strcmp(v, "none") == 0) {
        e->k.s = 0;
        return 0;
    }
    for (const char *c = v; *c; c++)
        s += *c == ';';
    if (!(e->k.off = malloc(sizeof(int) * (size_t)s * (size_t)nd))) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    e->k.s = s;
    char *save = NULL, *ent = strtok_r(v, ";", &save);
    for (int t = 0; t < s; t++, ent = strtok_r(NULL, ";", &save)) {
        char *save2 = NULL, *x = ent ? strtok_r(ent, ",", &save2) : NULL;
        for (int j = 0; j < nd; j++, x = strtok_r(NULL, ",", &save2))
            if (!x || parse_int(x, &e->k.off[t * nd + j])) {
                snprintf(msg, len, "template: entry %d is not %d integers separated by ','", t + 1,
                         nd);
                return -1;
            }
        if (x) {
            snprintf(msg, len, "template: entry %d has more than %d offsets", t + 1, nd);
            return -1;
        }
    }
    return 0;
}

/* An algorithm a decision may name: MPI's exchange or one of nhood's
 * isomorphic schedules. */
static int parse_tuned_algo(const char *v, nh_algo *a)
{
    return nh_parse_algo(v, a) || *a == NH_ALGO_AUTO || *a == NH_ALGO_STFW ? -1 : 0;
}

static int parse_times(char *v, nh_tune_dec *d, char *msg, size_t len)
{
    char *save = NULL;
    for (char *c = strtok_r(v, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(c, ':');
        nh_algo a;
        if (!colon || (*colon = '\0', parse_tuned_algo(c, &a)) ||
            nh_parse_real(colon + 1, &d->us[d->ncand])) {
            snprintf(msg, len,
                     "times_us: expected ALGORITHM:MICROSECONDS,... (algorithms "
                     "pmpi|direct|torus|torus_direct|bruck)");
            return -1;
        }
        for (int i = 0; i < d->ncand; i++)
            if (d->cand[i] == a) {
                snprintf(msg, len, "times_us: %s twice", nh_algos[a].name);
                return -1;
            }
        d->cand[d->ncand++] = a;
    }
    return 0;
}

enum { F_OP, F_FORM, F_RANKS, F_DIMS, F_PERIODS, F_BYTES, F_TEMPLATE, F_ALGO, F_TIMES, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "op", "form", "ranks", "dims", "periods", "bytes", "template", "algorithm", "times_us"};

/* The fields of one decision line (v: a copy, cut up here) into e. */
static int parse_decision(char *v, entry *e, char *msg, size_t len)
{
    char *f[F_COUNT] = {0}, *save = NULL;
    long long x;
    int n, dims[NH_MAXDIMS], periods[NH_MAXDIMS];
    for (char *tok = strtok_r(v, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        char *colon = strchr(tok, ':');
        int i = 0;
        if (colon)
            *colon = '\0';
        while (i < F_COUNT && strcmp(tok, field_names[i]) != 0)
            i++;
        if (!colon || i == F_COUNT || f[i]) {
            snprintf(msg, len, "decision: \"%s\" is %s", tok,
                     !colon         ? "not FIELD:VALUE"
                     : i == F_COUNT ? "no field"
                                    : "given twice");
            return -1;
        }
        f[i] = colon + 1;
    }
    for (int i = 0; i < F_TIMES; i++)
        if (!f[i]) {
            snprintf(msg, len,
                     "decision: no %s: field (needs op form ranks dims periods bytes "
                     "template algorithm)",
                     field_names[i]);
            return -1;
        }
    if (strcmp(f[F_OP], "alltoall") == 0)
        e->k.op = NH_OP_ALLTOALL;
    else if (strcmp(f[F_OP], "allgather") == 0)
        e->k.op = NH_OP_ALLGATHER;
    else {
        snprintf(msg, len, "op:%s: not alltoall or allgather", f[F_OP]);
        return -1;
    }
    for (n = 0; n < NH_FORM_COUNT && strcmp(f[F_FORM], form_names[n]) != 0; n++)
        ;
    if (n == NH_FORM_COUNT) {
        snprintf(msg, len, "form:%s: not blocking, nonblocking or persistent", f[F_FORM]);
        return -1;
    }
    e->k.form = (nh_form)n;
    for (char *c = f[F_DIMS]; *c; c++) /* 4x4x2 as a list */
        if (*c == 'x')
            *c = ',';
    if (nh_parse_uint(f[F_RANKS], 1LL << 30, &x) || x < 1 ||
        (n = nh_parse_uint_list(f[F_DIMS], dims, NH_MAXDIMS, 1, 1 << 30)) < 1 ||
        nh_parse_uint_list(f[F_PERIODS], periods, NH_MAXDIMS, 0, 1) != n ||
        nh_grid_init(&e->k.g, n, dims, periods) || e->k.g.size != x) {
        snprintf(msg, len,
                 "ranks, dims, periods: expected ranks:P dims:AxBx... (product P, at "
                 "most %d) periods:0|1,... (one per dimension)",
                 NH_MAXDIMS);
        return -1;
    }
    if (nh_parse_uint(f[F_BYTES], 1LL << 40, &x)) {
        snprintf(msg, len, "bytes:%s: not a block size in bytes", f[F_BYTES]);
        return -1;
    }
    e->k.m = (size_t)x;
    if (parse_tuned_algo(f[F_ALGO], &e->d.algo)) {
        snprintf(msg, len, "algorithm:%s: not pmpi, direct, torus, torus_direct or bruck",
                 f[F_ALGO]);
        return -1;
    }
    return parse_template(f[F_TEMPLATE], e, msg, len) ||
                   (f[F_TIMES] && parse_times(f[F_TIMES], &e->d, msg, len))
               ? -1
               : 0;
}

/* nh_kv_fn: every key of the file but the fingerprint's; ctx: where the
 * next decision goes (the tail of the list). */
static int on_kv(void *ctx, const char *key, const char *value, char *msg, size_t len)
{
    entry ***tail = ctx, *e;
    char *v = NULL;
    if (strcmp(key, "decision") != 0) {
        snprintf(msg, len, "unknown key \"%s\" (a tuning file holds fingerprint.* and decision)",
                 key);
        return -1;
    }
    if (!(e = calloc(1, sizeof(*e))) || !(v = strdup(value))) {
        free(e);
        snprintf(msg, len, "out of memory");
        return -1;
    }
    int rc = parse_decision(v, e, msg, len);
    free(v);
    if (!rc && find(loaded, &e->k)) {
        snprintf(msg, len, "a second decision for the same key");
        rc = -1;
    }
    if (rc) {
        free(e->k.off);
        free(e);
        return -1;
    }
    **tail = e;
    *tail = &e->next;
    return 0;
}

int nh_tune_file_load(char *msg, size_t len)
{
    const char *path = nh_cfg.tune_file;
    char *text = NULL, inner[700] = "";
    nh_fingerprint fp;
    entry **tail = &loaded;
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
    memset(&fp, 0, sizeof(fp));
    if (nh_kv_parse(text, path, "nhood-tune", 1, &fp, on_kv, &tail, inner, sizeof(inner))) {
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
        free_list(&loaded);
cleanup:
    free(text);
    if (rc)
        free_list(&loaded);
    return rc;
}

int nh_tune_file_lookup(const nh_tune_key *k, nh_tune_dec *d)
{
    const entry *e = find(loaded, k); /* read-only after MPI_Init */
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
    entry *e = find(measured, k);
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

static void write_entry(FILE *f, const entry *e)
{
    const nh_tune_key *k = &e->k;
    char dims[128];
    nh_grid_format(&k->g, dims, sizeof(dims));
    fprintf(f, "decision = op:%s form:%s ranks:%d dims:%s periods:", nh_op_name(k->op),
            form_names[k->form], k->g.size, dims);
    for (int j = 0; j < k->g.ndims; j++)
        fprintf(f, "%s%d", j ? "," : "", k->g.periods[j]);
    fprintf(f, " bytes:%zu template:%s", k->m, k->s ? "" : "none");
    for (int t = 0; t < k->s; t++)
        for (int j = 0; j < k->g.ndims; j++)
            fprintf(f, "%s%d", j ? "," : t ? ";" : "", k->off[t * k->g.ndims + j]);
    fprintf(f, " algorithm:%s", nh_algos[e->d.algo].name);
    for (int i = 0; i < e->d.ncand; i++)
        fprintf(f, "%s%s:%.2f", i ? "," : " times_us:", nh_algos[e->d.cand[i]].name, e->d.us[i]);
    fputc('\n', f);
}

static int write_file(const char *tmp)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    fprintf(f, "nhood-tune 1\n"
               "# The autotuner's decisions (NHOOD_AUTOTUNE=1), written at MPI_Finalize by\n"
               "# rank 0 and read at MPI_Init with NHOOD_TUNE_FILE (docs/algorithms.md):\n"
               "# per operation, form, rank count, grid, block size and neighborhood\n"
               "# template (offsets per neighbor, ';' between neighbors), the algorithm and\n"
               "# each candidate's time (slowest rank's fastest call, microseconds).\n");
    nh_fingerprint_write(f, &run_fp);
    for (const entry *e = loaded; e; e = e->next) {
        entry *now = find(measured, &e->k);
        write_entry(f, now ? now : e);
        if (now)
            now->written = 1;
    }
    for (const entry *e = measured; e; e = e->next)
        if (!e->written)
            write_entry(f, e);
    int bad = ferror(f);
    return fclose(f) || bad ? -1 : 0;
}

void nh_tune_file_save(void)
{
    const char *path = nh_cfg.tune_file;
    if (path && have_fp && measured && nh_world_rank == 0) {
        size_t n = strlen(path) + 5;
        char *tmp = malloc(n);
        int err = ENOMEM;
        if (tmp) {
            snprintf(tmp, n, "%s.tmp", path);
            errno = 0;
            err = write_file(tmp) || rename(tmp, path) ? (errno ? errno : EIO) : 0;
        }
        if (err) {
            nh_warn("could not write the tuning file %s (%s); this run's decisions are not "
                    "saved",
                    path, strerror(err));
            if (tmp)
                remove(tmp);
        }
        free(tmp);
    }
    free_list(&loaded);
    free_list(&measured);
    measured_tail = &measured;
}
