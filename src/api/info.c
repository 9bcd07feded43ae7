/* What nhood is and how this run uses it, for nhood-info
 * (include/nhood.h: nhood_setting_get, nhood_info). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "config/files.h"
#include "config/settings.h"
#include "exec/progress.h"
#include "nhood.h"

#define NH_EXPORT __attribute__((visibility("default")))

NH_EXPORT int nhood_setting_get(int i, nhood_setting *s)
{
    if (i < 0 || i >= nh_nsettings)
        return 0;
    const nh_setting *t = &nh_settings[i];
    memset(s, 0, sizeof(*s));
    s->name = t->env;
    s->info_key = t->info;
    s->group = nh_set_group_names[t->group];
    s->help = t->help;
    s->value = nh_setting_value(t);
    s->valid = 1;
    if (s->value && t->cfg) { /* parsed into a scratch copy of the configuration */
        nh_config scratch = nh_cfg;
        s->valid = nh_setting_parse(t, s->value, (char *)&scratch + t->cfg - 1, 0) == 0;
    }
    nh_setting_default(t, s->def, sizeof(s->def));
    nh_setting_allowed(t, s->allowed, sizeof(s->allowed), 0);
    return 1;
}

/* The MPI library nhood was compiled against. */
static void mpi_built(char *v, size_t len)
{
#if defined(MPICH_VERSION)
    snprintf(v, len, "MPICH %s (MPI %d.%d)", MPICH_VERSION, MPI_VERSION, MPI_SUBVERSION);
#elif defined(OMPI_MAJOR_VERSION)
    snprintf(v, len, "Open MPI %d.%d.%d (MPI %d.%d)", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION, MPI_VERSION, MPI_SUBVERSION);
#else
    snprintf(v, len, "MPI %d.%d", MPI_VERSION, MPI_SUBVERSION);
#endif
}

NH_EXPORT int nhood_info(const char *key, char *value, int len)
{
    size_t n = len > 0 ? (size_t)len : 0;
    const char *cost_fp, *state = nh_start_state(&cost_fp);
    int before = strcmp(state, "before MPI_Init") == 0;
    char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int rlen = 0;
    if (n == 0)
        return MPI_ERR_ARG;
    if (strcmp(key, "version") == 0) {
        snprintf(value, n, "%s", NHOOD_VERSION);
    } else if (strcmp(key, "mpi_built") == 0) {
        mpi_built(value, n);
    } else if (strcmp(key, "mpi_library") == 0) {
        if (nh_mpi_Get_library_version(buf, &rlen) != MPI_SUCCESS)
            snprintf(buf, sizeof(buf), "unknown");
        buf[strcspn(buf, "\n")] = '\0'; /* its first line, tabs as spaces */
        for (char *c = buf; *c; c++)
            *c = *c == '\t' ? ' ' : *c;
        snprintf(value, n, "%s", buf);
    } else if (strcmp(key, "state") == 0) {
        snprintf(value, n, "%s", state);
    } else if (strcmp(key, "progress") == 0) {
        snprintf(value, n, "%s", before ? state : nh_prog_name());
    } else if (strcmp(key, "fortran_fixes") == 0) {
#ifdef NHOOD_SMPI /* simulated ranks run no Fortran */
        snprintf(value, n, "none");
#else
        nh_mpilib_fortran_fix_names(nh_mpilib_fortran_fixes(nh_cfg.fortran_fixes), value, n);
#endif
    } else if (strcmp(key, "progress_backends") == 0) {
        snprintf(value, n, "%s", nh_prog_backends());
    } else if (strcmp(key, "ranks_per_node") == 0 || strcmp(key, "cpus") == 0) {
        if (before)
            snprintf(value, n, "%s", state);
        else
            snprintf(value, n, "%d", key[0] == 'r' ? nh_node_ranks : nh_node_cpus);
    } else if (strcmp(key, "cost_source") == 0) {
        snprintf(value, n, "%s", before ? state : nh_config_cost_source());
    } else if (strcmp(key, "cost_file") == 0) {
        if (nh_cfg.cost_file)
            snprintf(value, n, "%s (NHOOD_COST_FILE)", nh_cfg.cost_file);
        else {
            nh_site_cost_path(buf, sizeof(buf));
            snprintf(value, n, "%s", buf[0] ? buf : "none (no site.cost installed)");
        }
    } else if (strcmp(key, "cost_fingerprint") == 0) {
        snprintf(value, n, "%s", cost_fp);
    } else if (strcmp(key, "tune_file") == 0) {
        snprintf(value, n, "%s",
                 !nh_cfg.tune_file ? "none"
                 : nh_cfg.autotune ? nh_cfg.tune_file
                                   : "ignored (read only under NHOOD_AUTOTUNE=1)");
    } else {
        value[0] = '\0';
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}
