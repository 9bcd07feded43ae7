/* Shared by the file-format fuzz targets (fuzz_costfile.c,
 * fuzz_tunefile.c): the input as a file's text, the oracle for a rejected
 * file's message, and text written to memory. */
#ifndef NH_FUZZ_TEXT_H
#define NH_FUZZ_TEXT_H

#include <string.h>

#include "fuzz.h"
#include "core/kvfile.h"

/* The name parsers see: messages must start "FZ_NAME, line N: ". */
#define FZ_NAME "fuzz.file"

/* A parse of a whole text: 0, or -1 with msg. */
typedef int (*fz_parse_fn)(const char *text, char *msg, size_t len);

/* A NUL-terminated copy of the first n bytes at p. */
static inline char *fz_copy(const void *p, size_t n)
{
    char *t = malloc(n + 1);
    if (!t)
        FZ_FAIL("out of memory");
    memcpy(t, p, n);
    t[n] = '\0';
    return t;
}

/* The input up to its first NUL (the files are read as text: nhood
 * refuses a file holding a NUL before parsing it), NUL-terminated. */
static inline char *fz_text(const uint8_t *data, size_t size)
{
    size_t n = 0;
    while (n < size && data[n])
        n++;
    return fz_copy(data, n);
}

static inline int fz_lines(const char *t)
{
    int n = 1;
    for (; *t; t++)
        n += *t == '\n';
    return n;
}

/* A copy of t's lines 1..k (without the newline after line k). */
static inline char *fz_head(const char *t, int k)
{
    const char *c = t;
    for (int i = 0; i < k && c; i++) {
        c = strchr(c, '\n');
        if (c && i + 1 < k)
            c++;
    }
    return fz_copy(t, k == 0 ? 0 : c ? (size_t)(c - t) : strlen(t));
}

/* A rejected text's message (msg, from parse) names a line of it, and the
 * fault is on that line: the text up to and including it is rejected
 * with the same message, the text before it is accepted (or rejected
 * only for want of a first line, which is reported as line 1). */
static inline void fz_check_rejected(const char *t, const char *msg, fz_parse_fn parse)
{
    static const char prefix[] = FZ_NAME ", line ";
    char again[1024];
    int line = 0, k = 0;
    if (strncmp(msg, prefix, sizeof(prefix) - 1) != 0)
        FZ_FAIL("rejected without naming the line: \"%s\"", msg);
    if (sscanf(msg + sizeof(prefix) - 1, "%d:%n", &line, &k) != 1 || k == 0)
        FZ_FAIL("no line number followed by ':' in \"%s\"", msg);
    if (line < 1 || line > fz_lines(t))
        FZ_FAIL("\"%s\" names line %d of a text of %d lines", msg, line, fz_lines(t));
    char *head = fz_head(t, line);
    if (parse(head, again, sizeof(again)) == 0 || strcmp(again, msg) != 0)
        FZ_FAIL("lines 1..%d alone: \"%s\", the whole text: \"%s\"", line, again, msg);
    free(head);
    head = fz_head(t, line - 1);
    if (parse(head, again, sizeof(again)) != 0 && !strstr(again, ", line 1: empty file"))
        FZ_FAIL("lines 1..%d, before the fault at line %d, are rejected: \"%s\"", line - 1, line,
                again);
    free(head);
}

/* Text written to memory: fz_open, fprintf to .f, fz_close gives .buf. */
typedef struct fz_out {
    FILE *f;
    char *buf;
    size_t len;
} fz_out;

static inline void fz_open(fz_out *o)
{
    o->buf = NULL;
    o->len = 0;
    if (!(o->f = open_memstream(&o->buf, &o->len)))
        FZ_FAIL("open_memstream failed");
}

static inline char *fz_close(fz_out *o)
{
    if (fclose(o->f))
        FZ_FAIL("writing to memory failed");
    return o->buf;
}

/* fp as nhood writes a run's fingerprint: its values as a file reads them
 * back (nh_fingerprint_value; the host pattern and the date are made so
 * too, and any text a file held may end up there). */
static inline nh_fingerprint fz_fp_written(const nh_fingerprint *fp)
{
    nh_fingerprint w = *fp;
    nh_fingerprint_value(w.mpi, sizeof(w.mpi), fp->mpi, sizeof(fp->mpi));
    nh_fingerprint_value(w.host, sizeof(w.host), fp->host, sizeof(fp->host));
    nh_fingerprint_value(w.date, sizeof(w.date), fp->date, sizeof(fp->date));
    return w;
}

static inline int fz_fp_eq(const nh_fingerprint *a, const nh_fingerprint *b)
{
    return strcmp(a->mpi, b->mpi) == 0 && strcmp(a->host, b->host) == 0 &&
           strcmp(a->date, b->date) == 0 && a->ranks == b->ranks &&
           a->ranks_per_node == b->ranks_per_node && a->nodes == b->nodes &&
           a->version == b->version;
}

#endif
