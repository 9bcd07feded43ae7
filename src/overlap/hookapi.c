/* libnhood.so's side of overlap/hooks.h: what the C library wrappers of
 * libnhood-overlap.so call, and whether they are in place. */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "overlap/hooks.h"
#include "overlap/ov_int.h"

#define NH_EXPORT __attribute__((visibility("default")))

static const void *anchor; /* an address in libnhood-overlap.so, once loaded */

NH_EXPORT int *nhood_overlap_hook_live(void)
{
    return &nh_ov_live;
}

NH_EXPORT void nhood_overlap_hook_fence(const char *what)
{
    if (nh_ov_pending() && !nh_guard)
        nh_ov_fence(what);
}

NH_EXPORT int nhood_overlap_hook_segv(const struct sigaction *act, struct sigaction *old)
{
    return nh_guard ? -1 : nh_ov_segv_action(act, old);
}

NH_EXPORT void nhood_overlap_hook_register(const void *where)
{
    anchor = where;
}

const char *nh_ov_hooks_missing(int defer)
{
    Dl_info mine, theirs;
    if (!anchor)
        return "libnhood-overlap.so is not loaded (nhood-run preloads it when NHOOD_OVERLAP "
               "is report or defer; docs/overlap.md)";
    if (defer && !(dladdr(anchor, &mine) && dladdr(dlsym(RTLD_DEFAULT, "malloc"), &theirs) &&
                   mine.dli_fbase == theirs.dli_fbase))
        return "another library interposes malloc before libnhood-overlap.so";
    return NULL;
}
