/* Configuration: the environment, read once at start-up (MPI_Init, a late
 * start, or the first graph under Sessions: api/lifecycle.c) through the
 * table of settings (config/settings.c), and the cost file.  Every value is
 * validated; a bad one is reported with the allowed values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nh.h"
#include "core/parse.h"
#include "config/files.h"
#include "config/settings.h"

/* Whether nhood runs (set at start-up from NHOOD_DISABLE). */
int nh_active;

void nh_config_help(char *buf, size_t len, const char *var)
{
    const nh_setting *s = nh_setting_find(var);
    if (s)
        nh_setting_allowed(s, buf, len);
    else
        snprintf(buf, len, "?");
}

/* Where the cost parameters come from, for the report. */
static char cost_source[300] = "defaults";
static int cost_env; /* some NHOOD_COST_* is set */

const char *nh_config_cost_source(void)
{
    return cost_env && strcmp(cost_source, "defaults") == 0 ? "defaults+env" : cost_source;
}

const char *nh_setting_value(const nh_setting *s)
{
    return s->env ? getenv(s->env) : NULL;
}

int nh_config_load(char *msg, size_t len)
{
    for (int i = 0; i < nh_nsettings; i++) {
        const nh_setting *s = &nh_settings[i];
        const char *v = s->cfg ? nh_setting_value(s) : NULL;
        if (!v)
            continue;
        if (s->group == NH_SET_COST)
            cost_env = 1;
        if (nh_setting_parse(s, v, (char *)&nh_cfg + s->cfg - 1)) {
            char allowed[128];
            nh_setting_allowed(s, allowed, sizeof(allowed));
            snprintf(msg, len, "%s=\"%s\" is not valid (%s); allowed: %s", s->env, v, s->help,
                     allowed);
            return -1;
        }
    }
    return 0;
}

/* The cost file's keys are the parameters' names (core/model.h: alpha,
 * o, beta, ...); validation.* keys carry nhood-calibrate's figures for
 * people and are not read. */
static int cost_key(void *ctx, const char *key, const char *v, char *msg, size_t len)
{
    nh_cost *c = ctx;
    if (strncmp(key, "validation.", 11) == 0)
        return 0;
    for (int i = 0; i < nh_cost_nparams; i++)
        if (strcmp(nh_cost_params[i].key, key) == 0) {
            if (nh_parse_real(v, nh_cost_at(c, &nh_cost_params[i]))) {
                snprintf(msg, len, "%s = \"%s\": not a non-negative number", key, v);
                return -1;
            }
            return 0;
        }
    size_t n = (size_t)snprintf(msg, len, "unknown key \"%s\" (parameters:", key);
    for (int i = 0; i < nh_cost_nparams && n < len; i++)
        n += (size_t)snprintf(msg + n, len - n, " %s%s", nh_cost_params[i].key,
                              i + 1 < nh_cost_nparams ? "," : ";");
    if (n < len)
        snprintf(msg + n, len - n, " validation.*; fingerprint.*)");
    return -1;
}

int nh_config_cost_parse(const char *text, const char *name, nh_cost *out, nh_fingerprint *fp,
                         char *msg, size_t len)
{
    *out = nh_cfg.cost;
    out->o_recv = -1; /* not set by the file (yet) */
    int rc = nh_kv_parse(text, name, "nhood-cost", 2, fp, cost_key, out, msg, len);
    /* Format 1 predates the per-phase model: its o was a message's whole
     * cost, its alpha a phase's, added; read so, without a receive
     * overhead, they price about as they did (docs/tuning.md). */
    if (out->o_recv < 0)
        out->o_recv = fp->version == 1 ? 0 : nh_cfg.cost.o_recv;
    return rc;
}

void nh_config_cost_use(const nh_cost *c, const char *name)
{
    char msg[8];
    nh_cfg.cost = *c;
    cost_env = 0;
    (void)nh_config_load(msg, sizeof(msg)); /* the environment wins (valid: read before) */
    snprintf(cost_source, sizeof(cost_source), "%s%s", name, cost_env ? "+env" : "");
}

extern char **environ;

void nh_config_warn_unknown(void)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
        int known = 0;
        if (strncmp(*e, "NHOOD_", 6) != 0)
            continue;
        for (int i = 0; i < nh_nsettings && !known; i++)
            known = nh_settings[i].env && strlen(nh_settings[i].env) == n &&
                    strncmp(nh_settings[i].env, *e, n) == 0;
        if (!known)
            nh_warn("%.*s is not an nhood setting and is ignored (nhood-info lists them; "
                    "docs/configuration.md)",
                    (int)n, *e);
    }
}
