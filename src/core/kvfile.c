/* The key = value text of the cost and tuning files, and the safe
 * replacement of a file (core/kvfile.h).  No MPI. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/kvfile.h"
#include "core/parse.h"

void nh_squeeze(char *out, size_t len, const char *s, size_t n)
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

void nh_fingerprint_value(char *out, size_t len, const char *s, size_t n)
{
    nh_squeeze(out, len, s, n);
    char *h = out;
    while ((h = strchr(h, '#')) && h != out && h[-1] != ' ')
        h++;
    if (h) {
        while (h > out && h[-1] == ' ')
            h--;
        *h = '\0';
    }
}

void nh_fingerprint_write(FILE *out, const nh_fingerprint *f)
{
    fprintf(out,
            "fingerprint.mpi = %s\nfingerprint.host = %s\nfingerprint.ranks = %d\n"
            "fingerprint.ranks_per_node = %d\nfingerprint.nodes = %d\nfingerprint.date = %s\n",
            f->mpi, f->host, f->ranks, f->ranks_per_node, f->nodes, f->date);
}

/* v into out, cut to len - 1 bytes and then of blanks at its end, as the
 * value would read back (a cut may leave some). */
static void copy_value(char *out, size_t len, const char *v)
{
    size_t n = strlen(v) < len - 1 ? strlen(v) : len - 1;
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    memcpy(out, v, n);
    out[n] = '\0';
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
        nh_squeeze(f->mpi, sizeof(f->mpi), v, strlen(v));
        return 1;
    }
    if (strcmp(key, "fingerprint.host") == 0) {
        copy_value(f->host, sizeof(f->host), v);
        return 1;
    }
    if (strcmp(key, "fingerprint.date") == 0) {
        copy_value(f->date, sizeof(f->date), v);
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

/* The cost file's keys are the parameters' names (core/model.h: alpha,
 * o, beta, ...); validation.* keys carry nhood-calibrate's figures for
 * people and are not read. */
static int cost_key(void *ctx, const char *key, const char *v, char *msg, size_t len)
{
    nh_cost *c = ctx;
    if (strncmp(key, "validation.", 11) == 0)
        return 0;
    for (int i = 0; i < nh_cost_nparams; i++)
        if (strcmp(nh_cost_params[i].key, key) == 0) {
            if (nh_parse_real(v, nh_cost_at(c, &nh_cost_params[i]))) {
                snprintf(msg, len, "%s = \"%s\": not a non-negative number", key, v);
                return -1;
            }
            return 0;
        }
    size_t n = (size_t)snprintf(msg, len, "unknown key \"%s\" (parameters:", key);
    for (int i = 0; i < nh_cost_nparams && n < len; i++)
        n += (size_t)snprintf(msg + n, len - n, " %s%s", nh_cost_params[i].key,
                              i + 1 < nh_cost_nparams ? "," : ";");
    if (n < len)
        snprintf(msg + n, len - n, " validation.*; fingerprint.*)");
    return -1;
}

int nh_cost_file_parse(const char *text, const char *name, const nh_cost *base, nh_cost *out,
                       nh_fingerprint *fp, char *msg, size_t len)
{
    *out = *base;
    out->o_recv = out->late = -1; /* not set by the file (yet) */
    int rc = nh_kv_parse(text, name, NH_COST_MAGIC, NH_COST_VERSION, fp, cost_key, out, msg, len);
    /* Format 1 predates the per-phase model: its o was a message's whole
     * cost, its alpha a phase's, added; read so, without a receive
     * overhead, they price about as they did (docs/tuning.md). */
    if (out->o_recv < 0)
        out->o_recv = fp->version == 1 ? 0 : base->o_recv;
    /* the posting before a link's first message: the file's o, unless
     * it names its own */
    if (out->late < 0)
        out->late = out->o;
    return rc;
}

/* ---- writing a file safely ---- */

/* A suffix for a temporary name: not guessable in advance without the
 * process id and the clock, and different on every try (O_EXCL keeps the
 * file safe where a name is guessed; a guess only costs a try). */
static unsigned long long tmp_suffix(void)
{
    static unsigned long long count;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long x = (unsigned long long)getpid() << 32 ^
                           (unsigned long long)ts.tv_sec * 1000000007ULL ^
                           (unsigned long long)ts.tv_nsec ^ (uintptr_t)&ts ^ ++count << 48;
    /* splitmix64's finalizer */
    x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ x >> 27) * 0x94d049bb133111ebULL;
    return x ^ x >> 31;
}

int nh_file_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx, char *msg,
                    size_t len)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    /* the directory, for messages: dlen bytes of dir */
    const char *dir = slash ? path : ".";
    int dlen = !slash || slash == path ? 1 : (int)(slash - path), rc = -1, fd = -1, made = 0, err;
    size_t n = strlen(path) + 24;
    char *tmp = malloc(n);
    FILE *f = NULL;
    if (!tmp) {
        snprintf(msg, len, "out of memory");
        return -1;
    }
    if (!*base) {
        snprintf(msg, len, "%s names a directory, not a file", path);
        goto cleanup;
    }
    /* .NAME.XXXXXXXXXXXX beside the file: the same file system, so the
     * rename is atomic; hidden from ls */
    for (int tries = 0; tries < 100 && fd < 0; tries++) {
        snprintf(tmp, n, "%.*s.%s.%012llx", (int)(base - path), path, base,
                 tmp_suffix() & 0xffffffffffffULL);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(msg, len, "cannot create a file in %.*s: %s", dlen, dir, strerror(errno));
        goto cleanup;
    }
    made = 1;
    if (!(f = fdopen(fd, "w"))) {
        snprintf(msg, len, "%s: %s", tmp, strerror(errno));
        goto cleanup;
    }
    fd = -1;
    errno = 0;
    if (fill(f, ctx) || fflush(f) || ferror(f) || fsync(fileno(f))) {
        err = errno ? errno : EIO;
        snprintf(msg, len, "writing %s: %s", tmp, strerror(err));
        goto cleanup;
    }
    err = fclose(f);
    f = NULL;
    if (err) {
        snprintf(msg, len, "writing %s: %s", tmp, strerror(errno));
        goto cleanup;
    }
    if (rename(tmp, path)) {
        snprintf(msg, len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (f)
        fclose(f);
    if (fd >= 0)
        close(fd);
    if (rc && made)
        unlink(tmp);
    free(tmp);
    return rc;
}
