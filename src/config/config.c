/* Configuration: the environment, read once at start-up (MPI_Init, a late
 * start, or the first graph under Sessions: api/lifecycle.c) through the
 * table of settings (config/settings.c), and the cost file.  Every value is
 * validated; a bad one is reported with the allowed values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "core/parse.h"
#include "config/files.h"
#include "config/settings.h"
#include "util/gpu.h"

/* Whether nhood runs (set at start-up from NHOOD_DISABLE). */
int nh_active;

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
        if (nh_setting_parse(s, v, (char *)&nh_cfg + s->cfg - 1, 0)) {
            char allowed[128];
            nh_setting_allowed(s, allowed, sizeof(allowed), 0);
            snprintf(msg, len, "%s=\"%s\" is not valid (%s); allowed: %s", s->env, v, s->help,
                     allowed);
            return -1;
        }
    }
    nh_gpu_set_dev_dir(nh_cfg.gpu_dev_dir);
    nh_log_to(nh_cfg.report_file);
    if (nh_cfg.report_file && *nh_cfg.report_file)
        nh_cfg.report = 1;
    return 0;
}

int nh_config_cost_parse(const char *text, const char *name, nh_cost *out, nh_fingerprint *fp,
                         char *msg, size_t len)
{
    return nh_cost_file_parse(text, name, &nh_cfg.cost, out, fp, msg, len);
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
        char name[64];
        if (strncmp(*e, "NHOOD_", 6) != 0)
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)n, *e);
        const nh_setting *s = n < sizeof(name) ? nh_setting_find(name) : NULL;
        if (!s || !s->env)
            nh_warn("%.*s is not an nhood setting and is ignored (nhood-info lists them; "
                    "docs/configuration.md)",
                    (int)n, *e);
    }
}
