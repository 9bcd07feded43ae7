/* Messages on stderr: warnings from rank 0 only, errors from every rank
 * that has one.  Leaf module: every layer may call it. */
#include <stdarg.h>
#include <stdio.h>

#include "nh.h"

int nh_world_rank;

void nh_warn(const char *fmt, ...)
{
    if (nh_world_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nhood: warning: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

void nh_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nhood: error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}
