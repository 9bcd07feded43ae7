/* Names of nhood's algorithms, schedule families and collectives, and the
 * builder behind each algorithm name: the one table the configuration,
 * selection and report read. */
#include <string.h>

#include "sched.h"

const nh_algo_info nh_algos[NH_ALGO_COUNT] = {
    [NH_ALGO_AUTO] = {"auto", NULL},
    [NH_ALGO_PMPI] = {"pmpi", NULL},
    [NH_ALGO_DIRECT] = {"direct", nh_build_direct},
    [NH_ALGO_TORUS] = {"torus", nh_build_torus},
    [NH_ALGO_TORUS_DIRECT] = {"torus_direct", nh_build_torus_direct},
    [NH_ALGO_BRUCK] = {"bruck", nh_build_bruck},
    [NH_ALGO_STFW] = {"stfw", NULL}, /* built from all ranks' lists: core/stfw.c */
};

const char *const nh_binding_names[NH_BIND_COUNT + 1] = {"auto", "pack",  "zcopy",
                                                         "each", "whole", NULL};

int nh_parse_algo(const char *v, nh_algo *out)
{
    for (int i = 0; i < NH_ALGO_COUNT; i++)
        if (strcmp(v, nh_algos[i].name) == 0) {
            *out = (nh_algo)i;
            return 0;
        }
    return -1;
}

const char *nh_op_name(nh_op op)
{
    return op == NH_OP_ALLTOALL ? "alltoall" : "allgather";
}

const char *nh_coll_name(nh_coll c)
{
    static const char *const names[NH_COLL_COUNT] = {"alltoall", "allgather", "alltoallv",
                                                     "alltoallw", "allgatherv"};
    return names[c];
}
