/* Messages on stderr: warnings from rank 0 only, errors from every rank
 * that has one; and the report's lines, on stderr or in NHOOD_REPORT_FILE.
 * Leaf module: every layer may call it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

int nh_world_rank;
int nh_no_world;

/* One line in one write: the lines of several ranks (and threads) sharing
 * stderr do not interleave mid-line. */
static void emit(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "nhood: %s: ", kind);
    if (n > 0 && (size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    size_t len = strlen(line);
    if (len == sizeof(line) - 1) /* cut: keep the newline */
        len--;
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}

void nh_warn(const char *fmt, ...)
{
    if (nh_world_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit("warning", fmt, ap);
    va_end(ap);
}

void nh_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    emit("error", fmt, ap);
    va_end(ap);
}

/* The report's lines.  Each is written whole in one write (a launcher that
 * reads its ranks' stderr in chunks, as Open MPI 5's does in 4 KiB ones,
 * can otherwise cut a line and move its start into stdout).  With
 * NHOOD_REPORT_FILE they are appended to that file, opened at the first
 * line. */
static const char *report_path;
static FILE *report_fp;
static int report_failed;

void nh_log_to(const char *path)
{
    report_path = path && *path ? path : NULL;
}

/* (threads: the first line of two at once may open the file twice; the
 * loser closes its copy) */
static FILE *report_stream(void)
{
    FILE *f = __atomic_load_n(&report_fp, __ATOMIC_ACQUIRE), *none = NULL;
    if (f || !report_path || __atomic_load_n(&report_failed, __ATOMIC_RELAXED))
        return f ? f : stderr;
    if (!(f = fopen(report_path, "a"))) {
        int err = errno;
        if (!__atomic_exchange_n(&report_failed, 1, __ATOMIC_RELAXED)) /* warned once */
            nh_warn("NHOOD_REPORT_FILE: cannot write %s (%s); the report goes to stderr",
                    report_path, strerror(err));
        return stderr;
    }
    if (!__atomic_compare_exchange_n(&report_fp, &none, f, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        fclose(f);
        f = none;
    }
    return f;
}

void nh_log_line(const char *fmt, ...)
{
    char line[2048], *big = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line) && (big = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
    } else if ((size_t)n >= sizeof(line)) { /* cut (no memory): keep the newline */
        line[sizeof(line) - 2] = '\n';
    }
    FILE *f = report_stream();
    fwrite(big ? big : line, 1, big ? (size_t)n : strlen(line), f);
    fflush(f);
    free(big);
}
