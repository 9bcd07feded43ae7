/* nhood's MPI_Info keys on graph creation, and the algorithm a plan's
 * calls ask for (info key, then NHOOD_ALGO_<OP>, then NHOOD_ALGO). */
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "core/parse.h"
#include "core/stfw.h"
#include "config/settings.h"
#include "plan/plan.h"

NH_HOT nh_algo nh_requested_algo(const nh_plan *p, nh_op op)
{
    nh_algo a = p->algo_info[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo_op[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo;
    return a;
}

#define NH_INFO_VALUE_MAX 255

/* 1 and the value in buf (NH_INFO_VALUE_MAX + 1 bytes) if key is set, 0 if
 * not, -1 with msg if the value is too long to be one of ours (MPI would
 * silently truncate it). */
static int info_get(MPI_Info info, const char *key, char *buf, char *msg, size_t len)
{
    int flag = 0, vlen = 0;
    if (info == MPI_INFO_NULL || nh_mpi_Info_get_valuelen(info, key, &vlen, &flag) != MPI_SUCCESS ||
        !flag)
        return 0;
    if (vlen > NH_INFO_VALUE_MAX) {
        snprintf(msg, len, "info %s has a %d-character value; nhood's values are at most %d", key,
                 vlen, NH_INFO_VALUE_MAX);
        return -1;
    }
    if (nh_mpi_Info_get(info, key, NH_INFO_VALUE_MAX, buf, &flag) != MPI_SUCCESS || !flag)
        return 0;
    buf[NH_INFO_VALUE_MAX] = '\0';
    return 1;
}

/* Keys that look like nhood's but are not (a typo is otherwise silent). */
static void warn_unknown_keys(MPI_Info info)
{
    int n = 0;
    char key[MPI_MAX_INFO_KEY + 1];
    if (info == MPI_INFO_NULL || nh_mpi_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        if (nh_mpi_Info_get_nthkey(info, i, key) != MPI_SUCCESS || strncmp(key, "nhood", 5) != 0)
            continue;
        const nh_setting *s = nh_setting_find(key);
        if (s && s->info)
            continue;
        char list[512];
        size_t len = 0;
        for (int k = 0; k < nh_nsettings && len < sizeof(list); k++)
            if (nh_settings[k].info)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
                                        nh_settings[k].info);
        nh_warn("info key %s is not one of nhood's (%s) and is ignored", key, list);
    }
}

int nh_hint_parse(MPI_Info info, nh_hint *h, char *msg, size_t len)
{
    char v[NH_INFO_VALUE_MAX + 1];
    memset(h, 0, offsetof(nh_hint, msg)); /* (the message is written where needed) */
    h->msg[0] = '\0';
    h->iso = -1;
    h->algo = NH_ALGO_AUTO;
    h->stfw_setup = -1;
    h->host_buffers = -1;
    if (info == MPI_INFO_NULL) /* (most creations: nothing to read) */
        return 0;
    warn_unknown_keys(info);
    /* every info key of the table of settings (config/settings.c), into
     * its field of the hint */
    for (int i = 0; i < nh_nsettings; i++) {
        const nh_setting *s = &nh_settings[i];
        int got;
        if (!s->info || !s->hint)
            continue;
        if ((got = info_get(info, s->info, v, msg, len)) < 0)
            return -1;
        if (got && nh_setting_parse(s, v, (char *)h + s->hint - 1, 1)) {
            char allowed[128];
            nh_setting_allowed(s, allowed, sizeof(allowed), 1);
            snprintf(msg, len, "info %s=\"%s\" is not valid; allowed: %s", s->info, v, allowed);
            return -1;
        }
    }
    if (h->has_periods && h->ndims == 0) {
        snprintf(msg, len, "info nhood_periods is given without nhood_dims");
        return -1;
    }
    if (h->has_periods && h->has_periods != h->ndims) {
        snprintf(msg, len,
                 "info nhood_periods has %d entries; expected one 0 or 1 per entry of nhood_dims "
                 "(%d), e.g. 1,1,0",
                 h->has_periods, h->ndims);
        return -1;
    }
    return 0;
}
