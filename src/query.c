/* Public queries (include/nhood.h). */
#include <stdio.h>
#include <string.h>

#include "exec/stfw_exec.h"
#include "nh.h"
#include "nhood.h"
#include "vcoll/vcoll.h"

#define NH_EXPORT __attribute__((visibility("default")))

NH_EXPORT int nhood_comm_query(MPI_Comm comm, nhood_comm_info *info)
{
    nh_plan *p = nh_plan_get(comm);
    memset(info, 0, sizeof(*info));
    if (!p)
        return MPI_ERR_COMM;
    info->isomorphic = p->isomorphic;
    info->coupled = p->coupled;
    info->neighbors = p->isomorphic ? p->nb.s : p->outdeg;
    if (p->isomorphic) {
        info->ndims = p->nb.g.ndims;
        for (int j = 0; j < p->nb.g.ndims; j++) {
            info->dims[j] = p->nb.g.dims[j];
            info->periods[j] = p->nb.g.periods[j];
        }
        snprintf(info->source, sizeof(info->source), "%s", p->source);
    }
    return MPI_SUCCESS;
}

NH_EXPORT int nhood_algorithm_for(MPI_Comm comm, const char *op, int block_bytes, char *name,
                                  int len)
{
    if (strncmp(op, "inplace_", 8) == 0) {
        const char *ip;
        int rc = nh_inplace_algorithm(comm, &ip);
        if (rc == MPI_SUCCESS)
            snprintf(name, (size_t)len, "%s", ip);
        return rc;
    }
    nh_plan *p = nh_plan_get(comm);
    nh_choice c = {NH_ALGO_PMPI, NH_BIND_AUTO, 0};
    /* "alltoall[v|w]", "ialltoall", "alltoall_init", and the same for allgather */
    const char *base = op[0] == 'i' ? op + 1 : op;
    nh_form f = op[0] == 'i' ? NH_FORM_NONBLOCKING : NH_FORM_BLOCKING;
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, "_init") == 0)
        f = NH_FORM_PERSISTENT;
    nh_op o = strncmp(base, "allgather", 9) == 0 ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    /* Store-and-forward runs first where set up (blocking alltoall[v],
     * allgather[v]; not alltoallw). */
    if (p && f == NH_FORM_BLOCKING && strcmp(base, "alltoallw") != 0 &&
        nh_stfw_predict(p, o, block_bytes) > 0) {
        snprintf(name, (size_t)len, "%s", nh_algos[NH_ALGO_STFW].name);
        return MPI_SUCCESS;
    }
    nh_algo va;
    if (nh_valgorithm_for(p, op, block_bytes, &va) == 0) { /* alltoallv, alltoallw, allgatherv */
        snprintf(name, (size_t)len, "%s", nh_algos[va].name);
        return MPI_SUCCESS;
    }
    int rc = p ? nh_select(p, o, f, (size_t)block_bytes, &c) : MPI_SUCCESS;
    snprintf(name, (size_t)len, "%s", nh_algos[c.algo].name);
    return rc;
}

NH_EXPORT void nhood_progress(void)
{
    if (nh_active)
        nh_req_progress();
}
