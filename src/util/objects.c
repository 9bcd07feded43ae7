/* The loaded objects' file names (util/objects.h). */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/objects.h"

typedef struct walk {
    size_t n, bytes;   /* counted, or copied so far */
    size_t cap, space; /* room in names[] and in the text after it */
    char **names;
    int short_of_room;
} walk;

static int count(struct dl_phdr_info *info, size_t size, void *arg)
{
    walk *w = arg;
    (void)size;
    if (info->dlpi_name && info->dlpi_name[0]) {
        w->n++;
        w->bytes += strlen(info->dlpi_name) + 1;
    }
    return 0;
}

static int copy(struct dl_phdr_info *info, size_t size, void *arg)
{
    walk *w = arg;
    (void)size;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0;
    size_t len = strlen(info->dlpi_name) + 1;
    if (w->n == w->cap || w->bytes + len > w->space) {
        w->short_of_room = 1; /* loaded during the walks: count again */
        return 1;
    }
    char *text = (char *)(w->names + w->cap + 1) + w->bytes;
    memcpy(text, info->dlpi_name, len);
    w->names[w->n++] = text;
    w->bytes += len;
    return 0;
}

/* The first object's view of the loader's counters: stop at once. */
static int generation(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *g = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
        *g = (unsigned long long)info->dlpi_adds + (unsigned long long)info->dlpi_subs;
    return 1;
}

unsigned long long nh_loaded_generation(void)
{
    unsigned long long g = 0;
    dl_iterate_phdr(generation, &g);
    return g;
}

char **nh_loaded_objects(void)
{
    for (size_t slack = 8;; slack *= 4) {
        walk w = {0};
        dl_iterate_phdr(count, &w);
        w.cap = w.n + slack;
        w.space = w.bytes + 64 * slack;
        w.names = malloc((w.cap + 1) * sizeof *w.names + w.space);
        if (!w.names)
            return NULL;
        w.n = w.bytes = 0;
        dl_iterate_phdr(copy, &w);
        if (!w.short_of_room) {
            w.names[w.n] = NULL;
            return w.names;
        }
        free(w.names);
    }
}
