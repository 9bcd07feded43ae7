/* Messages on stderr: warnings from rank 0 only, errors from every rank
 * that has one.  Leaf module: every layer may call it. */
#include <stdarg.h>
#include <stdio.h>
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
