/* The tuning file's text: decision lines parsed and written
 * (core/tunetext.h).  No MPI. */
#include <stdlib.h>
#include <string.h>

#include "core/parse.h"
#include "core/tunetext.h"

static const char *const form_names[NH_FORM_COUNT] = {"blocking", "nonblocking", "persistent"};

int nh_tune_key_eq(const nh_tune_key *a, const nh_tune_key *b)
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

nh_tune_entry *nh_tune_find(nh_tune_entry *l, const nh_tune_key *k)
{
    for (; l; l = l->next)
        if (nh_tune_key_eq(&l->k, k))
            return l;
    return NULL;
}

void nh_tune_free(nh_tune_entry **l)
{
    while (*l) {
        nh_tune_entry *n = (*l)->next;
        free((*l)->k.off);
        free(*l);
        *l = n;
    }
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

static int parse_template(char *v, nh_tune_key *k, char *msg, size_t len)
{
    int nd = k->g.ndims, s = 1;
    if (strcmp(v, "none") == 0) {
        k->s = 0;
        return 0;
    }
    for (const char *c = v; *c; c++)
        s += *c == ';';
    if (!(k->off = malloc(sizeof(int) * (size_t)s * (size_t)nd))) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    k->s = s;
    char *save = NULL, *ent = strtok_r(v, ";", &save);
    for (int t = 0; t < s; t++, ent = strtok_r(NULL, ";", &save)) {
        char *save2 = NULL, *x = ent ? strtok_r(ent, ",", &save2) : NULL;
        for (int j = 0; j < nd; j++, x = strtok_r(NULL, ",", &save2))
            if (!x || parse_int(x, &k->off[t * nd + j])) {
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

/* A candidate a decision may name: MPI's exchange, or one of nhood's
 * isomorphic schedules with an optional binding (v: cut up here). */
static int parse_tuned_algo(char *v, nh_algo *a, nh_binding *b)
{
    char *slash = strchr(v, '/');
    int i = 0, rc;
    *b = NH_BIND_AUTO;
    if (slash) {
        *slash = '\0';
        while (nh_binding_names[i] && strcmp(slash + 1, nh_binding_names[i]) != 0)
            i++;
        *b = nh_binding_names[i] ? (nh_binding)i : NH_BIND_AUTO;
    }
    rc = (slash && (!nh_binding_names[i] || i == NH_BIND_AUTO)) || nh_parse_algo(v, a) ||
                 *a == NH_ALGO_AUTO || *a == NH_ALGO_STFW ||
                 (*a == NH_ALGO_PMPI && *b != NH_BIND_AUTO && *b != NH_BIND_PACK &&
                  *b != NH_BIND_EACH)
             ? -1
             : 0;
    if (slash) /* v whole again, for messages */
        *slash = '/';
    return rc;
}

void nh_tune_cand_name(nh_algo a, nh_binding b, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", nh_algos[a].name, b == NH_BIND_AUTO ? "" : "/",
             b == NH_BIND_AUTO ? "" : nh_binding_names[b]);
}

static int parse_times(char *v, nh_tune_dec *d, char *msg, size_t len)
{
    char *save = NULL;
    for (char *c = strtok_r(v, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(c, ':'), name[48];
        nh_algo a;
        nh_binding b;
        if (!colon || (*colon = '\0', parse_tuned_algo(c, &a, &b)) ||
            d->ncand == NH_TUNE_MAXCAND || nh_parse_real(colon + 1, &d->us[d->ncand])) {
            snprintf(msg, len,
                     "times_us: expected CANDIDATE:MICROSECONDS,... (candidates "
                     "pmpi|direct|torus|torus_direct|bruck, pmpi with an optional /pack, "
                     "the others with an optional /pack, /zcopy or /each)");
            return -1;
        }
        for (int i = 0; i < d->ncand; i++)
            if (d->cand[i] == a && d->cbind[i] == b) {
                nh_tune_cand_name(a, b, name, sizeof(name));
                snprintf(msg, len, "times_us: %s twice", name);
                return -1;
            }
        d->cbind[d->ncand] = b;
        d->cand[d->ncand++] = a;
    }
    return 0;
}

enum { F_OP, F_FORM, F_RANKS, F_DIMS, F_PERIODS, F_BYTES, F_TEMPLATE, F_ALGO, F_TIMES, F_COUNT };
static const char *const field_names[F_COUNT] = {
    "op", "form", "ranks", "dims", "periods", "bytes", "template", "algorithm", "times_us"};

/* The fields of one decision line (v: a copy, cut up here) into e. */
static int parse_decision(char *v, nh_tune_entry *e, char *msg, size_t len)
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
    if (parse_tuned_algo(f[F_ALGO], &e->d.algo, &e->d.bind)) {
        snprintf(msg, len,
                 "algorithm:%s: not pmpi, direct, torus, torus_direct or bruck (pmpi with an "
                 "optional /pack, the others with an optional /pack, /zcopy or /each)",
                 f[F_ALGO]);
        return -1;
    }
    return parse_template(f[F_TEMPLATE], &e->k, msg, len) ||
                   (f[F_TIMES] && parse_times(f[F_TIMES], &e->d, msg, len))
               ? -1
               : 0;
}

typedef struct parse_ctx {
    nh_tune_entry *head, **tail;
} parse_ctx;

/* nh_kv_fn: every key of the file but the fingerprint's. */
static int on_kv(void *ctx, const char *key, const char *value, char *msg, size_t len)
{
    parse_ctx *c = ctx;
    nh_tune_entry *e;
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
    if (!rc && nh_tune_find(c->head, &e->k)) {
        snprintf(msg, len, "a second decision for the same key");
        rc = -1;
    }
    if (rc) {
        free(e->k.off);
        free(e);
        return -1;
    }
    *c->tail = e;
    c->tail = &e->next;
    return 0;
}

int nh_tune_parse(const char *text, const char *name, nh_fingerprint *fp, nh_tune_entry **out,
                  char *msg, size_t len)
{
    parse_ctx c = {NULL, &c.head};
    int rc = nh_kv_parse(text, name, NH_TUNE_MAGIC, NH_TUNE_VERSION, fp, on_kv, &c, msg, len);
    if (rc)
        nh_tune_free(&c.head);
    *out = c.head;
    return rc;
}

/* ---- writing ---- */

void nh_tune_write_header(FILE *f, const nh_fingerprint *fp)
{
    fprintf(f,
            NH_TUNE_MAGIC
            " %d\n"
            "# The autotuner's decisions (NHOOD_AUTOTUNE=1), written at MPI_Finalize by\n"
            "# rank 0 and read at MPI_Init with NHOOD_TUNE_FILE (docs/tuning.md):\n"
            "# per operation, form, rank count, grid, block size and neighborhood\n"
            "# template (offsets per neighbor, ';' between neighbors), the algorithm and\n"
            "# each candidate's time (slowest rank's fastest call, microseconds).\n",
            NH_TUNE_VERSION);
    nh_fingerprint_write(f, fp);
}

void nh_tune_write_decision(FILE *f, const nh_tune_key *k, const nh_tune_dec *d)
{
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
    char name[48];
    nh_tune_cand_name(d->algo, d->bind, name, sizeof(name));
    fprintf(f, " algorithm:%s", name);
    for (int i = 0; i < d->ncand; i++) {
        nh_tune_cand_name(d->cand[i], d->cbind[i], name, sizeof(name));
        fprintf(f, "%s%s:%.2f", i ? "," : " times_us:", name, d->us[i]);
    }
    fputc('\n', f);
}
