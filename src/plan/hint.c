/* nhood's MPI_Info keys on graph creation, and the algorithm a plan's
 * calls ask for (info key, then NHOOD_ALGO_<OP>, then NHOOD_ALGO). */
#include <stdio.h>
#include <string.h>

#include "core/parse.h"
#include "core/stfw.h"
#include "nh.h"

nh_algo nh_requested_algo(const nh_plan *p, nh_op op)
{
    nh_algo a = p->algo_info[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo_op[op];
    if (a == NH_ALGO_AUTO)
        a = nh_cfg.algo;
    return a;
}

#define NH_INFO_VALUE_MAX 255

/* (in the order the unknown-key warning lists them) */
static const char *const info_keys[] = {"isomorphic",       "nhood_dims",      "nhood_periods",
                                        "nhood_algorithm",  "nhood_stfw_dims", "nhood_stfw_setup",
                                        "nhood_ports",      "nhood_host_buffers", NULL};

/* 1 and the value in buf (NH_INFO_VALUE_MAX + 1 bytes) if key is set, 0 if
 * not, -1 with msg if the value is too long to be one of ours (MPI would
 * silently truncate it). */
static int info_get(MPI_Info info, const char *key, char *buf, char *msg, size_t len)
{
    int flag = 0, vlen = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_valuelen(info, key, &vlen, &flag) != MPI_SUCCESS ||
        !flag)
        return 0;
    if (vlen > NH_INFO_VALUE_MAX) {
        snprintf(msg, len, "info %s has a %d-character value; nhood's values are at most %d", key,
                 vlen, NH_INFO_VALUE_MAX);
        return -1;
    }
    if (PMPI_Info_get(info, key, NH_INFO_VALUE_MAX, buf, &flag) != MPI_SUCCESS || !flag)
        return 0;
    buf[NH_INFO_VALUE_MAX] = '\0';
    return 1;
}

/* Keys that look like nhood's but are not (a typo is otherwise silent). */
static void warn_unknown_keys(MPI_Info info)
{
    int n = 0;
    char key[MPI_MAX_INFO_KEY + 1];
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        int known = 0;
        if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS || strncmp(key, "nhood", 5) != 0)
            continue;
        for (int k = 0; info_keys[k] && !known; k++)
            known = strcmp(key, info_keys[k]) == 0;
        if (known)
            continue;
        char list[512];
        size_t len = 0;
        for (int k = 0; info_keys[k] && len < sizeof(list); k++)
            len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", k ? ", " : "",
                                    info_keys[k]);
        nh_warn("info key %s is not one of nhood's (%s) and is ignored", key, list);
    }
}

int nh_hint_parse(MPI_Info info, nh_hint *h, char *msg, size_t len)
{
    char v[NH_INFO_VALUE_MAX + 1];
    int got;
    memset(h, 0, sizeof(*h));
    h->iso = -1;
    h->algo = NH_ALGO_AUTO;
    h->host_buffers = -1;
    warn_unknown_keys(info);
    if ((got = info_get(info, "isomorphic", v, msg, len)) < 0)
        return -1;
    if (got) {
        if (strcmp(v, "true") == 0)
            h->iso = 1;
        else if (strcmp(v, "false") == 0)
            h->iso = 0;
        else {
            snprintf(msg, len, "info isomorphic=\"%s\" is not valid; allowed: true|false", v);
            return -1;
        }
    }
    if ((got = info_get(info, "nhood_dims", v, msg, len)) < 0)
        return -1;
    if (got) {
        h->ndims = nh_parse_uint_list(v, h->dims, NH_MAXDIMS, 1, 1 << 30);
        if (h->ndims < 0) {
            snprintf(msg, len,
                     "info nhood_dims=\"%s\" is not valid; expected 1 to %d positive integers "
                     "separated by commas, e.g. 4,4,2",
                     v, NH_MAXDIMS);
            return -1;
        }
    }
    if ((got = info_get(info, "nhood_periods", v, msg, len)) < 0)
        return -1;
    if (got) {
        int n = nh_parse_uint_list(v, h->periods, NH_MAXDIMS, 0, 1);
        if (h->ndims == 0) {
            snprintf(msg, len, "info nhood_periods=\"%s\" is given without nhood_dims", v);
            return -1;
        }
        if (n != h->ndims) {
            snprintf(msg, len,
                     "info nhood_periods=\"%s\" is not valid; expected one 0 or 1 per entry of "
                     "nhood_dims (%d), e.g. 1,1,0",
                     v, h->ndims);
            return -1;
        }
        h->has_periods = 1;
    }
    if ((got = info_get(info, "nhood_algorithm", v, msg, len)) < 0)
        return -1;
    if (got && nh_parse_algo(v, &h->algo)) {
        char allowed[128];
        nh_config_help(allowed, sizeof(allowed), "NHOOD_ALGO");
        snprintf(msg, len, "info nhood_algorithm=\"%s\" is not valid; allowed: %s", v, allowed);
        return -1;
    }
    if ((got = info_get(info, "nhood_stfw_dims", v, msg, len)) < 0)
        return -1;
    if (got && nh_parse_stfw_dims(v, &h->stfw_dims)) {
        snprintf(msg, len,
                 "info nhood_stfw_dims=\"%s\" is not valid; expected a store-and-forward VPT "
                 "dimension from 1 to %d, or agg (node aggregation)",
                 v, NH_STFW_MAXDIMS);
        return -1;
    }
    if ((got = info_get(info, "nhood_stfw_setup", v, msg, len)) < 0)
        return -1;
    if (got) {
        static const char *const w[] = {"auto", "creation", "call"};
        for (int i = 0; i < 3 && !h->stfw_setup; i++)
            if (strcmp(v, w[i]) == 0)
                h->stfw_setup = i + 1;
        if (!h->stfw_setup) {
            snprintf(msg, len,
                     "info nhood_stfw_setup=\"%s\" is not valid; allowed: auto, creation, call", v);
            return -1;
        }
    }
    if ((got = info_get(info, "nhood_ports", v, msg, len)) < 0)
        return -1;
    if (got && nh_parse_ports(v, &h->ports)) {
        snprintf(msg, len, "info nhood_ports=\"%s\" is not valid; expected auto or 1 to %d", v,
                 NH_MAX_PORTS);
        return -1;
    }
    /* The program's promise that this graph's buffers are host memory
     * where a GPU runtime is loaded (util/gpu.h, plan/detect.c). */
    if ((got = info_get(info, "nhood_host_buffers", v, msg, len)) < 0)
        return -1;
    if (got) {
        h->host_buffers = strcmp(v, "true") == 0 ? 1 : strcmp(v, "false") == 0 ? 0 : -2;
        if (h->host_buffers == -2) {
            snprintf(msg, len, "info nhood_host_buffers=\"%s\" is not valid; allowed: true|false",
                     v);
            return -1;
        }
    }
    return 0;
}
