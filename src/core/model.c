/* The cost model's parameter table and its arithmetic (core/model.h). */
#include "core/model.h"

#define NH_COST_ROW_(N, k, d, g, h)                                                                \
    {#k, "NHOOD_COST_" #N, offsetof(nh_cost, k), d, NH_TERM_##N, g, h},
#define NH_COST_OTHER_(N, k, d, g, h) {#k, "NHOOD_COST_" #N, offsetof(nh_cost, k), d, -1, g, h},
const nh_cost_param nh_cost_params[] = {NH_COST_TERMS(NH_COST_ROW_) NH_COST_OTHERS(NH_COST_OTHER_)};
#undef NH_COST_ROW_
#undef NH_COST_OTHER_
const int nh_cost_nparams = (int)(sizeof(nh_cost_params) / sizeof(nh_cost_params[0]));

#define NH_COST_DEF_(N, k, d, g, h) .k = d,
const nh_cost nh_cost_defaults = {NH_COST_TERMS(NH_COST_DEF_) NH_COST_OTHERS(NH_COST_DEF_)};
#undef NH_COST_DEF_

double nh_cost_dot(const nh_cost *c, const double t[NH_NTERMS])
{
    double s = 0;
#define NH_COST_SUM_(N, k, d, g, h) s += t[NH_TERM_##N] * c->k;
    NH_COST_TERMS(NH_COST_SUM_)
#undef NH_COST_SUM_
    return s;
}

double nh_cost_excess(int ranks, int cpus)
{
    return ranks > 0 && cpus > 0 && ranks > cpus ? (double)ranks / cpus - 1 : 0;
}
