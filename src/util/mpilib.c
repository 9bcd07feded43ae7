/* The MPI library's own functions (util/mpilib.h): one pointer per
 * function of its mpi.h, each first pointing to a stub that looks the
 * function up in the library, stores it and calls it; and the layer below
 * each of nhood's MPI_X names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "util/objects.h"

/* The MPI library: of the loaded objects that define PMPI_Init, the last
 * in load order (a tool defining PMPI_ names is preloaded or linked before
 * it).  Its handle, and its load address to tell its functions apart. */
static void *lib_handle;
static void *lib_base;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_find(void)
{
    char **names = nh_loaded_objects();
    for (char **n = names; n && *n; n++) {
        Dl_info di;
        void *h = dlopen(*n, RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        void *f = dlsym(h, "PMPI_Init");
        if (f && dladdr(f, &di) && di.dli_fname && !strcmp(di.dli_fname, *n)) {
            if (lib_handle)
                dlclose(lib_handle);
            lib_handle = h;
            lib_base = di.dli_fbase;
            continue;
        }
        dlclose(h);
    }
    free(names);
    if (!lib_handle) { /* the program itself carries MPI (linked statically) */
        Dl_info di;
        void *f = dlsym(RTLD_DEFAULT, "PMPI_Init");
        lib_handle = RTLD_DEFAULT;
        lib_base = f && dladdr(f, &di) ? di.dli_fbase : NULL;
    }
}

/* The MPI library's function name, or NULL. */
static void *lib_sym(const char *name)
{
    pthread_once(&lib_once, lib_find);
    return dlsym(lib_handle, name);
}

void *nh_mpilib_lookup(const char *name)
{
    return lib_sym(name);
}

void *nh_mpilib_sym(const char *name)
{
    void *f = lib_sym(name);
    if (!f) {
        fprintf(stderr, "nhood: error: the MPI library defines no %s\n", name);
        abort();
    }
    return f;
}

/* The object a function lives in (its load address, dladdr's dli_fbase):
 * glibc's _dl_find_object where there is one (2.35 on), a look-up in the
 * loader's sorted table, where dladdr scans the object's symbols (two
 * thirds of nhood's start-up cost, one call per exported name). */
void *nh_mpilib_object_of(void *f)
{
    if (!f)
        return NULL;
#ifdef DLFO_STRUCT_HAS_EH_DBASE
    struct dl_find_object fo;
    if (_dl_find_object(f, &fo) == 0)
        return fo.dlfo_map_start;
#endif
    Dl_info di;
    return dladdr(f, &di) ? di.dli_fbase : NULL;
}

/* Calls nhood kept from a tool loaded after it (keep): the first one's
 * names, for one warning (rank 0), at nhood's start-up or at the first
 * such call passed on to the tool, whichever comes first once MPI runs
 * (the look-up is made when libnhood.so is loaded). */
static char kept_fn[64], kept_tool[256];
static int kept_said;

void nh_mpilib_warn(void)
{
    int flag = 0, rank = -1;
    if (!kept_fn[0] || kept_said || nh_mpi_Initialized(&flag) || !flag ||
        nh_mpi_Comm_rank(MPI_COMM_WORLD, &rank))
        return;
    kept_said = 1;
    if (rank == 0)
        fprintf(stderr,
                "nhood: warning: %s of %s (loaded after nhood) reaches MPI past nhood: nhood "
                "keeps the completion calls made while its requests are live from it; preload "
                "nhood after it (docs/tools.md)\n",
                kept_fn, kept_tool);
}

/* The completion and start calls of nhood's requests. */
static int kept_call(const char *name)
{
    static const char *const kept[] = {
        "MPI_Wait",  "MPI_Waitall",  "MPI_Waitany",  "MPI_Waitsome",           "MPI_Test",
        "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_get_status", "MPI_Request_free",
        "MPI_Cancel", "MPI_Start",   "MPI_Startall", "MPI_Request_get_status_all",
        "MPI_Request_get_status_any", "MPI_Request_get_status_some", "MPIX_Request_is_complete"};
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
        if (!strcmp(name, kept[i]))
            return 1;
    return 0;
}

void *nh_mpilib_next(const char *name, void *own, void **bypass)
{
    *bypass = NULL;
    pthread_once(&lib_once, lib_find);
    void *next = dlsym(RTLD_NEXT, name);
    void *obj = nh_mpilib_object_of(next);
    if (!next || obj == lib_base)
        return own;
    if (kept_call(name)) { /* does that tool reach the library past nhood's PMPI_X? */
        char pname[80];
        Dl_info di;
        snprintf(pname, sizeof(pname), "P%s", name);
        void *p = dlsym(RTLD_NEXT, pname);
        if (p && nh_mpilib_object_of(p) == obj) {
            if (!kept_fn[0] && dladdr(next, &di) && di.dli_fname) {
                snprintf(kept_fn, sizeof(kept_fn), "%s", name);
                snprintf(kept_tool, sizeof(kept_tool), "%s", di.dli_fname);
            }
            nh_mpilib_warn();
            *bypass = next;
            return own;
        }
    }
    return next;
}

#if defined(OPEN_MPI) || defined(MPICH_VERSION)
/* The version in the library string after tag ("MPICH Version:	4.2.1",
 * "Open MPI v5.0.7"); 0 where the string has none. */
static int lib_version(const char *tag, int *major, int *minor)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    const char *at = nh_mpi_Get_library_version(v, &len) == MPI_SUCCESS ? strstr(v, tag) : NULL;
    *minor = 0;
    return at && sscanf(at + strlen(tag), "%d.%d", major, minor) >= 1;
}
#endif

/* The Fortran bindings' bugs of the library at hand (util/mpilib.h), as
 * measured with each library's own binding (docs/fortran.md): Open MPI's
 * NEIGHBOR_ALLTOALLW fix added ompi_fortran_neighbor_count, found among
 * its exported names, and came with the REQUEST_GET_STATUS one (6.0),
 * which also hangs the nonblocking and persistent forms' converted arrays
 * on the request (ompi_coll_base_add_release_arrays_cb exported);
 * MPICH's are told by the version in its library string.  A library of
 * either family whose string says no version (a derivative naming itself
 * otherwise) gets every fix of its family: a converter is right whether
 * or not the binding is. */
static int fortran_bugs(void)
{
    int major = 0, minor = 0;
#if defined(OPEN_MPI)
    int bugs = dlsym(RTLD_DEFAULT, "ompi_fortran_neighbor_count") ? 0 : NH_FBUG_W_TYPES;
    /* 6.0's generated mpi_f08 MPI_Testany sets neither flag nor index with
     * no active request */
    if (!lib_version("Open MPI v", &major, &minor))
        bugs |= NH_FBUG_STATUS_IGNORE | NH_FBUG_ANY_NONE_F08;
    else
        bugs |= major < 6 ? NH_FBUG_STATUS_IGNORE : NH_FBUG_ANY_NONE_F08;
    if (dlsym(RTLD_DEFAULT, "ompi_coll_base_add_release_arrays_cb"))
        bugs |= NH_FBUG_W_REQUEST;
    return bugs;
#elif defined(MPICH_VERSION)
    if (!lib_version("MPICH Version:", &major, &minor))
        return NH_FBUG_ANY_NONE_F77 | NH_FBUG_ANY_NONE_F08 | NH_FBUG_INDEX_F08;
    if (major >= 5)
        return 0;
    if (major == 4 && minor >= 2)
        return NH_FBUG_ANY_NONE_F08;
    return NH_FBUG_ANY_NONE_F77 | NH_FBUG_INDEX_F08;
#else
    (void)major;
    (void)minor;
    return 0;
#endif
}

static int bugs_found, dup_edges_wrong, dup_edges_wrong_vw;
static pthread_once_t bugs_once = PTHREAD_ONCE_INIT;

static void bugs_find(void)
{
    bugs_found = fortran_bugs();
#if defined(MPICH_VERSION) && !defined(OPEN_MPI)
    int major = 0, minor = 0; /* a version not found: wrong in every form */
    int found = lib_version("MPICH Version:", &major, &minor);
    dup_edges_wrong = !found || major < 5;
    /* MPICH posts a neighborhood all-to-all's receives in reverse list
     * order (for a Cartesian dimension of 1 or 2 ranks); 4.0 did so only
     * in the regular form, 4.1 in the v and w forms too (its commit
     * 2e4b922e79).  Only 4.0 is trusted with them: the one checked
     * (test_cold, mpich40_vw) */
    dup_edges_wrong_vw = dup_edges_wrong && !(major == 4 && minor == 0);
#endif
}

int nh_mpilib_dup_edges_wrong(void)
{
    pthread_once(&bugs_once, bugs_find);
    return dup_edges_wrong;
}

int nh_mpilib_dup_edges_wrong_vw(void)
{
    pthread_once(&bugs_once, bugs_find);
    return dup_edges_wrong_vw;
}

int nh_mpilib_fortran_fixes(int mode)
{
    if (mode == NH_FIXES_ALL)
        return NH_FBUG_ALL;
    if (mode == NH_FIXES_NONE)
        return 0;
    pthread_once(&bugs_once, bugs_find);
    return bugs_found;
}

void nh_mpilib_fortran_fix_names(int bits, char *out, size_t len)
{
    static const char *const names[] = {"waitany_none", "waitany_none_f08", "index_f08",
                                        "neighbor_alltoallw_types", "get_status_ignore",
                                        "neighbor_alltoallw_request"};
    size_t n = 0;
    out[0] = '\0';
    for (int k = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
        if (bits & (1 << k))
            n += (size_t)snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? " " : "", names[k]);
    if (!n)
        snprintf(out, len, "none");
}

/* One pointer per function, first pointing to its look-up. */
#define NH_LIB_FN(ret, name, nhname, params, args)                                                 \
    static ret nh_lib_first_##name params;                                                         \
    ret(*nhname) params = nh_lib_first_##name;                                                     \
    static ret nh_lib_first_##name params                                                          \
    {                                                                                              \
        __typeof__(nhname) f = (__typeof__(f))nh_mpilib_sym("P" #name);                           \
        __atomic_store_n(&nhname, f, __ATOMIC_RELAXED);                                            \
        return f args;                                                                             \
    }                                                                                              \
    static void nh_lib_find_##name(void)                                                           \
    {                                                                                              \
        void *f = lib_sym("P" #name);                                                              \
        if (f)                                                                                     \
            __atomic_store_n(&nhname, (__typeof__(nhname))f, __ATOMIC_RELAXED);                    \
    }                                                                                              \
    NH_MPILIB_AT_LOAD(nh_lib_find_##name)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include "util/mpilib_gen.h"
#ifdef HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
#define NH_LIB_INIT_DEF(name, params, args)                                                        \
    NH_LIB_FN(int, MPIX_Neighbor_##name##_init, nh_mpi_Neighbor_##name##_init, params, args)
NH_LIB_INIT_FNS(NH_LIB_INIT_DEF)
#endif

/* Sets every pointer at load time (NH_MPILIB_AT_LOAD), those of the
 * other files (intercept.c, fence.c) included: the linker gathers their
 * setters in one section. */
extern void (*const __start_nh_mpilib_at_load[])(void);
extern void (*const __stop_nh_mpilib_at_load[])(void);

__attribute__((constructor)) static void set_all_at_load(void)
{
    for (void (*const *f)(void) = __start_nh_mpilib_at_load; f < __stop_nh_mpilib_at_load; f++)
        (*f)();
}
