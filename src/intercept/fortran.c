/* Fortran entry points (table in fortran.h).
 *
 * MPICH 4.0.2's mpif.h / `use mpi` bindings call the C MPI_* functions, so
 * a preloaded nhood sees Fortran callers there anyway; Open MPI 4.1's call
 * PMPI_* and bypass it.  Exporting the Fortran names from libnhood makes
 * both behave the same: a Fortran call lands here, its arguments are
 * converted as the MPI library's own binding would, and the C MPI_* entry
 * point runs (nhood's intercept, or the library's for calls nhood does not
 * handle).
 *
 * Sentinels.  In Fortran MPI_IN_PLACE, MPI_BOTTOM, MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY are variables in common blocks, recognized by address,
 * and each library finds them its own way, which we copy:
 *  - MPICH: pointers MPIR_F_MPI_IN_PLACE etc. in libmpichfort, filled by
 *    mpirinitf_ the first time any binding runs (MPIR_F_NeedInit);
 *  - Open MPI: the common blocks themselves, mpi_fortran_in_place_ etc.,
 *    in each of the four manglings (OMPI_IS_FORTRAN_IN_PLACE).
 * Both are looked up with dlsym, so libnhood links no Fortran library and
 * C programs are unaffected.
 *
 * Start-up.  mpi_init / mpi_init_thread forward to the library's own
 * Fortran routine (found with RTLD_NEXT: it may set up Fortran state),
 * then make sure nhood started: MPICH's routine calls the C MPI_Init,
 * which nhood intercepts, Open MPI's calls PMPI_Init, which it does not. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "nh.h"

#define NH_EXPORT __attribute__((visibility("default")))

/* Integer arrays (counts, ranks, weights) are passed through unconverted. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "nhood's Fortran entry points assume "
                                                "MPI_Fint is int");

enum { F_IN_PLACE = 0, F_BOTTOM, F_UNWEIGHTED, F_WEIGHTS_EMPTY, F_NSENTINELS };
enum { F_NADDR = 5 }; /* MPICH's pointer, Open MPI's four manglings */

static void *sentinel[F_NSENTINELS][F_NADDR];
static pthread_once_t sentinel_once = PTHREAD_ONCE_INIT;

static void sentinel_lookup(void)
{
    static const char *const mpich[F_NSENTINELS] = {"MPIR_F_MPI_IN_PLACE", "MPIR_F_MPI_BOTTOM",
                                                    "MPIR_F_MPI_UNWEIGHTED",
                                                    "MPIR_F_MPI_WEIGHTS_EMPTY"};
    static const char *const ompi[F_NSENTINELS] = {"mpi_fortran_in_place", "mpi_fortran_bottom",
                                                   "mpi_fortran_unweighted",
                                                   "mpi_fortran_weights_empty"};
    int *need_init = dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
    void (*mpich_initf)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "mpirinitf_");
    if (need_init && *need_init && mpich_initf) {
        mpich_initf();
        *need_init = 0;
    }
    for (int k = 0; k < F_NSENTINELS; k++) {
        void **p = dlsym(RTLD_DEFAULT, mpich[k]);
        char name[64];
        sentinel[k][0] = p ? *p : NULL;
        for (int v = 0; v < 4; v++) {
            snprintf(name, sizeof(name), "%s%s", ompi[k], v == 1 ? "_" : v == 2 ? "__" : "");
            if (v == 3)
                for (char *c = name; *c; c++)
                    *c = (char)toupper((unsigned char)*c);
            sentinel[k][1 + v] = dlsym(RTLD_DEFAULT, name);
        }
    }
}

static int is_sentinel(const void *p, int k)
{
    pthread_once(&sentinel_once, sentinel_lookup);
    for (int i = 0; i < F_NADDR; i++)
        if (sentinel[k][i] && p == sentinel[k][i])
            return 1;
    return 0;
}

static void *f_buf(void *p)
{
    return is_sentinel(p, F_IN_PLACE) ? MPI_IN_PLACE : is_sentinel(p, F_BOTTOM) ? MPI_BOTTOM : p;
}

static const int *f_weights(const MPI_Fint *w)
{
    return is_sentinel(w, F_UNWEIGHTED)      ? MPI_UNWEIGHTED
           : is_sentinel(w, F_WEIGHTS_EMPTY) ? MPI_WEIGHTS_EMPTY
                                             : w;
}

#define F_BUF(p) f_buf(p)
#define F_TYPE(h) PMPI_Type_f2c(*(h))
#define F_COMM(h) PMPI_Comm_f2c(*(h))
/* Fortran .FALSE. is 0 in gfortran and in both libraries' conversions. */
#define F_LOGICAL(l) (*(l) != 0)

/* The library's own Fortran routine of this name, in any mangling. */
static void *next_fortran(const char *lower)
{
    char name[64];
    for (int v = 0; v < 4; v++) {
        snprintf(name, sizeof(name), "%s%s", lower,
                 v == 0   ? "_"
                 : v == 1 ? ""
                 : v == 2 ? "__"
                          : "");
        if (v == 3)
            for (char *c = name; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        void *f = dlsym(RTLD_NEXT, name);
        if (f)
            return f;
    }
    return NULL;
}

static void nh_f_mpi_init(MPI_Fint *ierr)
{
    void (*real)(MPI_Fint *) = (void (*)(MPI_Fint *))next_fortran("mpi_init");
    if (real)
        real(ierr);
    else
        *ierr = MPI_Init(NULL, NULL);
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

static void nh_f_mpi_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    void (*real)(MPI_Fint *, MPI_Fint *, MPI_Fint *) =
        (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))next_fortran("mpi_init_thread");
    if (real) {
        real(required, provided, ierr);
    } else {
        int p = 0;
        *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
        *provided = p;
    }
    if (*ierr == MPI_SUCCESS)
        *ierr = nh_start_late();
}

static void nh_f_mpi_dist_graph_create_adjacent(MPI_Fint *comm_old, MPI_Fint *indegree,
                                                MPI_Fint *sources, MPI_Fint *sourceweights,
                                                MPI_Fint *outdegree, MPI_Fint *destinations,
                                                MPI_Fint *destweights, MPI_Fint *info,
                                                MPI_Fint *reorder, MPI_Fint *comm_dist_graph,
                                                MPI_Fint *ierr)
{
    MPI_Comm c;
    *ierr = MPI_Dist_graph_create_adjacent(
        F_COMM(comm_old), *indegree, sources, f_weights(sourceweights), *outdegree, destinations,
        f_weights(destweights), PMPI_Info_f2c(*info), F_LOGICAL(reorder), &c);
    if (*ierr == MPI_SUCCESS)
        *comm_dist_graph = PMPI_Comm_c2f(c);
}

static void nh_f_mpi_dist_graph_create(MPI_Fint *comm_old, MPI_Fint *n, MPI_Fint *sources,
                                       MPI_Fint *degrees, MPI_Fint *destinations, MPI_Fint *weights,
                                       MPI_Fint *info, MPI_Fint *reorder, MPI_Fint *comm_dist_graph,
                                       MPI_Fint *ierr)
{
    MPI_Comm c;
    *ierr = MPI_Dist_graph_create(F_COMM(comm_old), *n, sources, degrees, destinations,
                                  f_weights(weights), PMPI_Info_f2c(*info), F_LOGICAL(reorder), &c);
    if (*ierr == MPI_SUCCESS)
        *comm_dist_graph = PMPI_Comm_c2f(c);
}

/* One C handle per peer; MPI ignores the send types of an in-place call,
 * so they are not read. */
static void nh_f_mpi_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                               MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                               MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                               MPI_Fint *ierr)
{
    MPI_Comm c = F_COMM(comm);
    void *sbuf = F_BUF(sendbuf);
    MPI_Datatype *st = NULL, *rt = NULL;
    int inter = 0, n = 0, rc;
    if ((rc = PMPI_Comm_test_inter(c, &inter)) ||
        (rc = inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n))) {
        *ierr = rc;
        return;
    }
    rt = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
    if (sbuf != MPI_IN_PLACE)
        st = malloc(((size_t)n + 1) * sizeof(MPI_Datatype));
    if (!rt || (sbuf != MPI_IN_PLACE && !st)) {
        rc = MPI_ERR_NO_MEM;
        PMPI_Comm_call_errhandler(c, rc);
    } else {
        for (int i = 0; i < n; i++) {
            rt[i] = PMPI_Type_f2c(recvtypes[i]);
            if (st)
                st[i] = PMPI_Type_f2c(sendtypes[i]);
        }
        rc = MPI_Alltoallw(sbuf, sendcounts, sdispls, st, F_BUF(recvbuf), recvcounts, rdispls, rt,
                           c);
    }
    free(st);
    free(rt);
    *ierr = rc;
}

#define NH_FORTRAN_CALL(lower, UPPER, params, call)                                                \
    static void nh_f_##lower params                                                                \
    {                                                                                              \
        *ierr = call;                                                                              \
    }                                                                                              \
    NH_FORTRAN(lower, UPPER, params)
#define NH_FORTRAN(lower, UPPER, params)                                                           \
    NH_EXPORT void lower params __attribute__((alias("nh_f_" #lower)));                            \
    NH_EXPORT void lower##_ params __attribute__((alias("nh_f_" #lower)));                         \
    NH_EXPORT void lower##__ params __attribute__((alias("nh_f_" #lower)));                        \
    NH_EXPORT void UPPER params __attribute__((alias("nh_f_" #lower)));
#include "fortran.h"
#undef NH_FORTRAN
#undef NH_FORTRAN_CALL
