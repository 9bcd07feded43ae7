/* The cost model's parameter table (src/core/model.h): one row per
 * parameter, terms first in NH_TERM_* order, each key its field's name,
 * each variable NHOOD_COST_ and the key in upper case, the defaults the
 * rows'; the dot product and the oversubscription excess. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "core/model.h"

int main(void)
{
    nh_cost d = NH_COST_DEFAULTS, probe;
    CHECK(nh_cost_nparams > NH_NTERMS, "terms and other parameters: %d rows", nh_cost_nparams);
    for (int i = 0; i < nh_cost_nparams; i++) {
        const nh_cost_param *p = &nh_cost_params[i];
        char env[64] = "NHOOD_COST_";
        for (size_t k = 0; p->key[k] && k + 12 < sizeof(env); k++)
            env[11 + k] = (char)toupper((unsigned char)p->key[k]);
        CHECK(strcmp(env, p->env) == 0, "%s: variable %s", p->key, p->env);
        CHECK(p->term == (i < NH_NTERMS ? i : -1), "%s: term %d at row %d", p->key, p->term, i);
        CHECK(*nh_cost_at(&d, p) == p->def && *nh_cost_at((nh_cost *)&nh_cost_defaults, p) == p->def,
              "%s: default %g", p->key, p->def);
        CHECK(p->offset % sizeof(double) == 0 && p->offset < sizeof(nh_cost), "%s: offset", p->key);
        CHECK(p->help && p->help[0], "%s: a description", p->key);
        CHECK(p->group >= -1 && p->group <= 3, "%s: fit group %d", p->key, p->group);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(nh_cost_params[j].key, p->key) != 0 &&
                      nh_cost_params[j].offset != p->offset,
                  "%s: unique", p->key);
    }
    CHECK(sizeof(nh_cost) == (size_t)nh_cost_nparams * sizeof(double), "every field has a row");
    /* the dot product weighs term i by parameter i alone */
    for (int i = 0; i < NH_NTERMS; i++) {
        double t[NH_NTERMS] = {0};
        memset(&probe, 0, sizeof(probe));
        *nh_cost_at(&probe, &nh_cost_params[i]) = 3;
        t[i] = 2;
        CHECK(nh_cost_dot(&probe, t) == 6, "dot: term %s", nh_cost_params[i].key);
    }
    CHECK(nh_cost_excess(27, 2) == 12.5 && nh_cost_excess(8, 2) == 3, "excess 27/2, 8/2");
    CHECK(nh_cost_excess(2, 2) == 0 && nh_cost_excess(1, 16) == 0, "no excess at one per CPU");
    CHECK(nh_cost_excess(0, 0) == 0 && nh_cost_excess(4, 0) == 0, "no excess where unknown");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
