/* Cost and tuning files: the fingerprint of a run, the key = value text
 * format, and reading a file on one rank for all (config/files.h). */
#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nh.h"
#include "config/files.h"
#include "core/parse.h"
#include "util/resource.h"

/* The host name with every run of digits made '*': nodes of one cluster
 * (nid001234, node17) share the pattern. */
static void host_pattern(char *out, size_t len)
{
    char name[256] = "";
    size_t n = 0;
    if (gethostname(name, sizeof(name) - 1))
        snprintf(name, sizeof(name), "unknown");
    for (const char *c = name; *c && n + 1 < len; c++) {
        if (isdigit((unsigned char)*c)) {
            if (n == 0 || out[n - 1] != '*')
                out[n++] = '*';
        } else if (isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.') {
            out[n++] = *c;
        }
    }
    out[n] = '\0';
}

/* Copies s (n bytes) with every run of blanks made one space: library
 * strings mix tabs and spaces, files written by hand may not. */
static void squeeze(char *out, size_t len, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && s[i] && k + 1 < len; i++)
        if (!isspace((unsigned char)s[i]))
            out[k++] = s[i];
        else if (k > 0 && out[k - 1] != ' ')
            out[k++] = ' ';
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
}

static nh_fingerprint run_fp;
static int run_fp_done;

int nh_fingerprint_run(nh_fingerprint *f)
{
    int rc, len, node_rank, mine[2], all[2];
    MPI_Comm node = MPI_COMM_NULL;
    if (run_fp_done) {
        *f = run_fp;
        return MPI_SUCCESS;
    }
    nh_fingerprint x;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(&x, 0, sizeof(x));
    if ((rc = PMPI_Get_library_version(lib, &len)))
        return rc;
    squeeze(x.mpi, sizeof(x.mpi), lib, strcspn(lib, "\r\n"));
    host_pattern(x.host, sizeof(x.host));
    if ((rc = PMPI_Comm_size(MPI_COMM_WORLD, &x.ranks)))
        return rc;
    if (nh_node_size > 0) { /* NHOOD_NODE_SIZE: the nodes the run pretends */
        x.ranks_per_node = nh_node_size < x.ranks ? nh_node_size : x.ranks;
        x.nodes = (x.ranks + x.ranks_per_node - 1) / x.ranks_per_node;
    } else {
        if ((rc = nh_comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, &node)) ||
            (rc = PMPI_Comm_rank(node, &node_rank)))
            goto cleanup;
        if ((rc = PMPI_Comm_size(node, &mine[1])))
            goto cleanup;
        /* the node count (leaders), then the largest node */
        mine[0] = node_rank == 0;
        if ((rc = PMPI_Allreduce(&mine[0], &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) ||
            (rc = PMPI_Allreduce(&mine[1], &all[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD)))
            goto cleanup;
        x.nodes = all[0];
        x.ranks_per_node = all[1];
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(x.date, sizeof(x.date), "%Y-%m-%d", &tm);
    run_fp = x;
    run_fp_done = 1;
    *f = x;
cleanup:
    if (node != MPI_COMM_NULL)
        nh_comm_free(&node);
    return rc;
}

void nh_fingerprint_write(FILE *out, const nh_fingerprint *f)
{
    fprintf(out,
            "fingerprint.mpi = %s\nfingerprint.host = %s\nfingerprint.ranks = %d\n"
            "fingerprint.ranks_per_node = %d\nfingerprint.nodes = %d\nfingerprint.date = %s\n",
            f->mpi, f->host, f->ranks, f->ranks_per_node, f->nodes, f->date);
}

int nh_fingerprint_match(const nh_fingerprint *f, const nh_fingerprint *run, char *why,
                         size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1))
        host[0] = '\0';
    if (f->mpi[0] && strcmp(f->mpi, run->mpi) != 0)
        snprintf(why, len, "written under \"%s\", this run has \"%s\"", f->mpi, run->mpi);
    else if (f->host[0] && fnmatch(f->host, host, 0) != 0)
        snprintf(why, len, "written on hosts %s, this is %s", f->host, host);
    else if (f->ranks_per_node > 0 && f->ranks_per_node != run->ranks_per_node)
        snprintf(why, len, "written with %d ranks per node, this run has %d", f->ranks_per_node,
                 run->ranks_per_node);
    else if (f->nodes == 1 && run->nodes > 1)
        snprintf(why, len, "written on one node (nothing measured between nodes), this run has %d",
                 run->nodes);
    else
        return 1;
    return 0;
}

int nh_file_fits(const char *kind, const char *path, const nh_fingerprint *fp, int mismatch,
                 const char *use_says, const char *skip_says, int *use, char *msg, size_t len)
{
    nh_fingerprint run;
    char why[256] = "";
    int rc, fits = 1;
    *use = 0;
    if ((rc = nh_fingerprint_run(&run)))
        return rc;
    if (nh_world_rank == 0)
        fits = nh_fingerprint_match(fp, &run, why, sizeof(why));
    if ((rc = PMPI_Bcast(&fits, 1, MPI_INT, 0, MPI_COMM_WORLD)))
        return rc;
    if (!fits && mismatch == NH_MISMATCH_ERROR) {
        snprintf(msg, len, "%s %.300s does not fit this run: %s (NHOOD_MISMATCH=error)", kind,
                 path, why);
        return MPI_ERR_OTHER;
    }
    if (!fits)
        nh_warn("%s %s does not fit this run: %s; %s", kind, path, why,
                mismatch == NH_MISMATCH_SKIP ? skip_says : use_says);
    *use = fits || mismatch == NH_MISMATCH_USE;
    return MPI_SUCCESS;
}

/* fingerprint.* keys; 1 where key is one (0 set, else -1 with msg). */
static int fp_key(nh_fingerprint *f, const char *key, const char *v, char *msg, size_t len,
                  int *err)
{
    static const char *const ints[] = {"fingerprint.ranks", "fingerprint.ranks_per_node",
                                       "fingerprint.nodes"};
    int *dst[] = {&f->ranks, &f->ranks_per_node, &f->nodes};
    *err = 0;
    if (strcmp(key, "fingerprint.mpi") == 0) {
        squeeze(f->mpi, sizeof(f->mpi), v, strlen(v));
        return 1;
    }
    if (strcmp(key, "fingerprint.host") == 0) {
        snprintf(f->host, sizeof(f->host), "%s", v);
        return 1;
    }
    if (strcmp(key, "fingerprint.date") == 0) {
        snprintf(f->date, sizeof(f->date), "%s", v);
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (strcmp(key, ints[i]) == 0) {
            long long x;
            if (nh_parse_uint(v, 1 << 30, &x)) {
                snprintf(msg, len, "%s must be a non-negative integer, not \"%s\"", key, v);
                *err = 1;
            } else {
                *dst[i] = (int)x;
            }
            return 1;
        }
    if (strncmp(key, "fingerprint.", 12) == 0) {
        snprintf(msg, len, "unknown key %s", key);
        *err = 1;
        return 1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int nh_kv_parse(const char *text, const char *name, const char *magic, int version,
                nh_fingerprint *fp, nh_kv_fn fn, void *ctx, char *msg, size_t len)
{
    int rc = -1, lineno = 0, seen_magic = 0;
    char *copy = strdup(text), *save = NULL, what[256] = "";
    if (!copy) {
        snprintf(msg, len, "%s: out of memory", name);
        return -1;
    }
    memset(fp, 0, sizeof(*fp));
    /* strtok_r would skip empty lines and miscount them */
    for (char *line = copy; line; line = save) {
        save = strchr(line, '\n');
        if (save)
            *save++ = '\0';
        lineno++;
        char *hash = strchr(line, '#');
        if (hash && (hash == line || hash[-1] == ' ' || hash[-1] == '\t'))
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        if (!seen_magic) {
            size_t m = strlen(magic);
            long long v;
            if (strncmp(s, magic, m) != 0 || s[m] != ' ' || nh_parse_uint(trim(s + m), 1000, &v)) {
                snprintf(what, sizeof(what), "the first line must be \"%s %d\" (found \"%.60s\")",
                         magic, version, s);
                goto cleanup;
            }
            if (v < 1 || v > version) {
                snprintf(what, sizeof(what), "format %s %lld is not known to this nhood (%d)",
                         magic, v, version);
                goto cleanup;
            }
            seen_magic = 1;
            fp->version = (int)v;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            snprintf(what, sizeof(what), "expected key = value, found \"%.60s\"", s);
            goto cleanup;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        int err;
        if (!*key) {
            snprintf(what, sizeof(what), "a value without a key");
            goto cleanup;
        }
        if (fp_key(fp, key, value, what, sizeof(what), &err)) {
            if (err)
                goto cleanup;
        } else if (fn(ctx, key, value, what, sizeof(what))) {
            goto cleanup;
        }
    }
    if (!seen_magic) {
        lineno = 1;
        snprintf(what, sizeof(what), "empty file: the first line must be \"%s %d\"", magic,
                 version);
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc)
        snprintf(msg, len, "%s, line %d: %s", name, lineno, what);
    free(copy);
    return rc;
}

void nh_site_cost_path(char *buf, size_t len)
{
    buf[0] = '\0';
#ifdef NHOOD_SMPI
    (void)len; /* simulated: no installation */
#else
    /* The installation's share/nhood beside this library's lib (make
     * install prefix=DIR moves both; the configured path may not be it),
     * then the configured one. */
    Dl_info info;
    char try[PATH_MAX + 64], real[PATH_MAX];
    if (dladdr((void *)nh_site_cost_path, &info) && info.dli_fname) {
        snprintf(try, sizeof(try), "%s", info.dli_fname);
        char *slash = strrchr(try, '/');
        if (slash) {
            snprintf(slash, sizeof(try) - (size_t)(slash - try), "/../share/nhood/site.cost");
            if (realpath(try, real)) {
                snprintf(buf, len, "%s", real);
                return;
            }
        }
    }
#ifdef NH_PKGDATADIR
    if (access(NH_PKGDATADIR "/site.cost", R_OK) == 0)
        snprintf(buf, len, "%s", NH_PKGDATADIR "/site.cost");
#endif
#endif
}

/* Rank 0's file, up to 1 MiB. */
static long read_file(const char *path, char **text, char *msg, size_t len)
{
    FILE *f = fopen(path, "r");
    long n = -1;
    *text = NULL;
    if (!f) {
        if (errno == ENOENT)
            return -2;
        snprintf(msg, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(1 << 20);
    if (buf) {
        size_t got = fread(buf, 1, (1 << 20) - 1, f);
        if (ferror(f))
            snprintf(msg, len, "%s: %s", path, strerror(errno));
        else if (!feof(f))
            snprintf(msg, len, "%s: larger than 1 MiB", path);
        else if (memchr(buf, '\0', got))
            snprintf(msg, len, "%s: not a text file", path);
        else
            n = (long)got;
    } else {
        snprintf(msg, len, "%s: out of memory", path);
    }
    fclose(f);
    if (n < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    return n;
}

int nh_file_bcast(const char *path, char **text, char *msg, size_t len)
{
    int rank, rc;
    long n = 0;
    char *buf = NULL;
    *text = NULL;
    if ((rc = PMPI_Comm_rank(MPI_COMM_WORLD, &rank)))
        return rc;
    if (rank == 0)
        n = read_file(path, &buf, msg, len);
    /* -2: no such file, -1: unreadable (rank 0's message travels too) */
    char head[sizeof(long) + 256];
    memcpy(head, &n, sizeof(long));
    snprintf(head + sizeof(long), 256, "%s", rank == 0 && n == -1 ? msg : "");
    if ((rc = PMPI_Bcast(head, (int)sizeof(head), MPI_BYTE, 0, MPI_COMM_WORLD)))
        goto cleanup;
    memcpy(&n, head, sizeof(long));
    if (n == -2)
        goto cleanup;
    if (n == -1) {
        snprintf(msg, len, "%s", head + sizeof(long));
        rc = MPI_ERR_FILE;
        goto cleanup;
    }
    if (rank != 0 && !(buf = malloc((size_t)n + 1))) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    if ((rc = PMPI_Bcast(buf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD)))
        goto cleanup;
    buf[n] = '\0';
    *text = buf;
    buf = NULL;
cleanup:
    free(buf);
    return rc;
}
