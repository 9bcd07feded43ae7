/* Public queries (include/nhood.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "config/files.h"
#include "exec/request.h"
#include "select/select.h"
#include "nhood.h"

#define NH_EXPORT __attribute__((visibility("default")))

NH_EXPORT int nhood_comm_query(MPI_Comm comm, nhood_comm_info *info)
{
    nh_plan *p = nh_plan_get(comm);
    memset(info, 0, sizeof(*info));
    if (!p)
        return MPI_ERR_COMM;
    info->isomorphic = p->isomorphic;
    info->coupled = p->isomorphic && nh_plan_coupled(p);
    info->neighbors = p->isomorphic ? p->nb.s : p->outdeg;
    if (p->isomorphic) {
        info->ndims = p->nb.g.ndims;
        for (int j = 0; j < p->nb.g.ndims; j++) {
            info->dims[j] = p->nb.g.dims[j];
            info->periods[j] = p->nb.g.periods[j];
        }
        snprintf(info->source, sizeof(info->source), "%s", p->source);
    } else if (p->cold) /* not analyzed yet (the cold tier, docs/algorithms.md) */
        snprintf(info->source, sizeof(info->source), "cold");
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
    /* "alltoall[v|w]", "ialltoall", "alltoall_init", and the same for allgather */
    const char *base = op[0] == 'i' ? op + 1 : op;
    nh_form f = op[0] == 'i' ? NH_FORM_NONBLOCKING : NH_FORM_BLOCKING;
    char name0[16];
    size_t n = strlen(base);
    if (n > 5 && strcmp(base + n - 5, "_init") == 0) {
        f = NH_FORM_PERSISTENT;
        n -= 5;
    }
    snprintf(name0, sizeof(name0), "%.*s", (int)(n < 15 ? n : 15), base);
    nh_coll coll = NH_COLL_ALLTOALL;
    for (int k = 0; k < NH_COLL_COUNT; k++)
        if (strcmp(name0, nh_coll_name((nh_coll)k)) == 0)
            coll = (nh_coll)k;
    nh_op o = nh_coll_op(coll);
    nh_algo algo = NH_ALGO_PMPI;
    int rc = MPI_SUCCESS;
    nh_binding form_of_own = NH_BIND_AUTO; /* MPI's own: as made, grouped or as its v call */
    if (p && nh_active && p->cold) {
        /* not analyzed yet: the next call goes to MPI as the cold tier's
         * calls do (a forced algorithm applies only once it is analyzed;
         * asking before says nothing of whether it will) */
        form_of_own = nh_cold_form(p, coll, comm);
    } else if (p && nh_active) {
        /* Store-and-forward comes first where set up (as a blocking call of
         * uniform blocks of block_bytes would find it, or as requests do
         * under NHOOD_PROGRESS=poll, or forced with a progress backend). */
        if (nh_stfw_predict(p, o, f == NH_FORM_BLOCKING ? block_bytes : -1) > 0 &&
            nh_stfw_form_allows(p, o, f)) {
            algo = NH_ALGO_STFW;
        } else {
            nh_choice c;
            rc = nh_select_ask(p, coll, f, block_bytes > 0 ? (size_t)block_bytes : 0, 0, &c);
            algo = c.algo;
            if (c.algo == NH_ALGO_PMPI)
                form_of_own = c.o.kind;
        }
    }
    /* pmpi/pack: MPI's exchange in the grouped form, pmpi/each: as its v
     * call; not the program's call */
    snprintf(name, (size_t)len, "%s%s%s", nh_algos[algo].name, form_of_own ? "/" : "",
             form_of_own ? nh_binding_names[form_of_own] : "");
    return rc;
}

/* The terms' order is public (include/nhood.h): every term in place. */
_Static_assert((int)NH_NTERMS == (int)NHOOD_COST_TERMS, "as many public terms as terms");
#define SAME_TERM(N, key, def, group, help)                                                        \
    _Static_assert((int)NH_TERM_##N == (int)NHOOD_TERM_##N, "NHOOD_TERM_" #N " in place");
NH_COST_TERMS(SAME_TERM)
#undef SAME_TERM

/* What nhood_cost_terms and nhood_cost_phases describe: a plan, an
 * operation, the schedule (NULL: MPI's own exchange), its binding and
 * the block size. */
typedef struct cost_query {
    nh_plan *p;
    nh_op o;
    const nh_sched *s;
    nh_binding b;
    size_t m;
} cost_query;

static int cost_query_init(MPI_Comm comm, const char *op, const char *algorithm, int block_bytes,
                           cost_query *q, char *binding, int len)
{
    nh_algo a;
    q->p = nh_active ? nh_plan_get(comm) : NULL;
    q->o = strcmp(op, "allgather") == 0 ? NH_OP_ALLGATHER : NH_OP_ALLTOALL;
    q->s = NULL;
    q->b = NH_BIND_AUTO;
    q->m = block_bytes > 0 ? (size_t)block_bytes : 0;
    if (!q->p || !q->p->isomorphic)
        return MPI_ERR_COMM;
    if ((strcmp(op, "alltoall") != 0 && q->o != NH_OP_ALLGATHER) || nh_parse_algo(algorithm, &a) ||
        a == NH_ALGO_AUTO || a == NH_ALGO_STFW)
        return MPI_ERR_ARG;
    if (a == NH_ALGO_PMPI) {
        snprintf(binding, (size_t)len, "-");
        return q->p->native_ok ? MPI_SUCCESS : MPI_ERR_ARG;
    }
    if (!(q->s = nh_sched_forced(q->p, q->o, a, q->m)))
        return MPI_ERR_ARG;
    q->b = nh_pick_binding(q->s, q->m); /* NHOOD_BINDING's where set, as the call */
    snprintf(binding, (size_t)len, "%s", nh_binding_name(q->b));
    return MPI_SUCCESS;
}

NH_EXPORT int nhood_cost_terms(MPI_Comm comm, const char *op, const char *algorithm,
                               int block_bytes, double terms[NHOOD_COST_TERMS], char *binding,
                               int len)
{
    cost_query q;
    int rc = cost_query_init(comm, op, algorithm, block_bytes, &q, binding, len);
    if (rc)
        return rc;
    if (q.s)
        nh_cost_terms(q.s, q.b, q.m, terms);
    else
        nh_native_terms(q.p, q.o, q.m, terms);
    return MPI_SUCCESS;
}

NH_EXPORT int nhood_cost_phases(MPI_Comm comm, const char *op, const char *algorithm,
                                int block_bytes, double (*phases)[NHOOD_COST_TERMS], int max,
                                int *nphases, char *binding, int len)
{
    cost_query q;
    int rc = cost_query_init(comm, op, algorithm, block_bytes, &q, binding, len);
    if (rc)
        return rc;
    if (max < 0 || (max > 0 && !phases) || !nphases)
        return MPI_ERR_ARG;
    *nphases = q.s ? nh_cost_phase_counts(q.s, q.b, q.m, phases, max)
                   : nh_native_phase_counts(q.p, q.o, q.m, phases, max);
    return MPI_SUCCESS;
}

NH_EXPORT int nhood_fingerprint(char *text, int len)
{
    nh_fingerprint f;
    int rc = nh_fingerprint_run(&f);
    if (rc)
        return rc;
    char *buf = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&buf, &n);
    if (!mem)
        return MPI_ERR_NO_MEM;
    nh_fingerprint_write(mem, &f);
    fclose(mem);
    snprintf(text, (size_t)len, "%s", buf ? buf : "");
    free(buf);
    return MPI_SUCCESS;
}

NH_EXPORT void nhood_progress(void)
{
    if (nh_active)
        nh_req_progress();
}
