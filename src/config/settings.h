/* nhood's settings, one table (config/settings.c): every NHOOD_*
 * environment variable the library or an installed script reads, and
 * every MPI_Info key of graph creation, with its type, default and one
 * line of description.  The environment is read through it
 * (config/config.c), the info keys are parsed with it (plan/hint.c),
 * nhood-info prints it (include/nhood.h: nhood_setting_get) and
 * docs/configuration.md is generated from it (nhood-info --markdown). */
#ifndef NH_SETTINGS_H
#define NH_SETTINGS_H

#include <stddef.h>

/* Where a setting is read. */
typedef enum {
    NH_SET_LIBRARY, /* the library, at MPI_Init (and as an info key where it has one) */
    NH_SET_COST,    /* the library: a cost model parameter (core/model.h) */
    NH_SET_INFO,    /* an MPI_Info key of graph creation only */
    NH_SET_RUN,     /* nhood-run (installed) */
    NH_SET_DEV,     /* the development scripts of the source tree (not installed) */
    NH_SET_GROUPS
} nh_set_group;

typedef struct nh_setting {
    const char *env;  /* NHOOD_..., or NULL (an info key only) */
    const char *info; /* the MPI_Info key, or NULL */
    nh_set_group group;
    int kind;    /* how its value is parsed (settings.c) */
    size_t cfg;  /* 1 + its offset in nh_config (nh_cfg), 0: none */
    size_t hint; /* 1 + its offset in nh_hint, 0: none */
    const char *help;
} nh_setting;

extern const nh_setting nh_settings[];
extern const int nh_nsettings;
extern const char *const nh_set_group_names[NH_SET_GROUPS];

/* The setting whose variable or info key is name, or NULL. */
const nh_setting *nh_setting_find(const char *name);

/* Parses v as s's value into dst (a field of s's type: in nh_cfg at
 * s->cfg - 1, in an nh_hint at s->hint - 1), as its environment variable
 * (info 0) or its info key (info 1: MPI's words true and false for a
 * boolean, where the variable takes 0 and 1).  Returns 0, or -1 where v
 * is not one of its allowed values. */
int nh_setting_parse(const nh_setting *s, const char *v, void *dst, int info);

/* The allowed values of s (as parsed with info), for messages and the
 * docs. */
void nh_setting_allowed(const nh_setting *s, char *buf, size_t len, int info);

/* s's value in this process's environment, or NULL (config/config.c: the
 * library's one reader of its environment). */
const char *nh_setting_value(const nh_setting *s);

/* s's default, as text ("" where it has none: an info key). */
void nh_setting_default(const nh_setting *s, char *buf, size_t len);

#endif
