/* Fortran handles, statuses and sentinels to C and back, for the Fortran
 * entry points (fortran.c, declarations in fortran_int.h).
 *
 * Sentinels.  In Fortran MPI_IN_PLACE and MPI_BOTTOM are variables in
 * common blocks, recognized by address,
 * and each library finds them its own way, which we copy:
 *  - MPICH: pointers MPIR_F_MPI_IN_PLACE etc. in libmpichfort, filled by
 *    mpirinitf_ the first time any binding runs (MPIR_F_NeedInit);
 *  - Open MPI: the common blocks themselves, mpi_fortran_in_place_ etc.,
 *    in each of the four manglings (OMPI_IS_FORTRAN_IN_PLACE).
 * Both are looked up with dlsym, so libnhood links no Fortran library and
 * C programs are unaffected.  MPI_STATUS(ES)_IGNORE likewise (MPICH: the
 * standard's MPI_F_STATUS(ES)_IGNORE pointers, set by the same routine).
 * MPICH's mpi_f08 sentinels are other variables (MPIR_F08_MPI_IN_PLACE,
 * ...); Open MPI's are the common blocks above. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "intercept/fortran_int.h"

enum { F_IN_PLACE = 0, F_BOTTOM, F_STATUS_IGNORE, F_STATUSES_IGNORE, F_NSENTINELS };
/* MPICH's pointer (mpif.h, use mpi), Open MPI's four manglings (every
 * binding), MPICH's mpi_f08 object */
enum { F_NADDR = 6 };

static void *sentinel[F_NSENTINELS][F_NADDR];
static pthread_once_t sentinel_once = PTHREAD_ONCE_INIT;

static void sentinel_lookup(void)
{
    static const char *const mpich[F_NSENTINELS] = {"MPIR_F_MPI_IN_PLACE", "MPIR_F_MPI_BOTTOM",
                                                    "MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE"};
    static const char *const ompi[F_NSENTINELS] = {"mpi_fortran_in_place", "mpi_fortran_bottom",
                                                   "mpi_fortran_status_ignore",
                                                   "mpi_fortran_statuses_ignore"};
    static const char *const mpich_f08[F_NSENTINELS] = {
        "MPIR_F08_MPI_IN_PLACE", "MPIR_F08_MPI_BOTTOM", "MPIR_F08_MPI_STATUS_IGNORE_OBJ",
        "MPIR_F08_MPI_STATUSES_IGNORE_OBJ"};
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
        sentinel[k][5] = dlsym(RTLD_DEFAULT, mpich_f08[k]);
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

void *f_buf(void *p)
{
    return is_sentinel(p, F_IN_PLACE) ? MPI_IN_PLACE : is_sentinel(p, F_BOTTOM) ? MPI_BOTTOM : p;
}

#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else /* Open MPI 4.1: MPI_STATUS_SIZE integers hold the C struct */
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Where a call found an error before reaching MPI (out of memory). */
int f_fail(int rc)
{
    nh_mpi_Comm_call_errhandler(MPI_COMM_WORLD, rc);
    return rc;
}

/* n C requests for Fortran handles (n + 1: never a zero-size allocation). */
MPI_Request *f_reqs(int n, const MPI_Fint *f)
{
    MPI_Request *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(*c));
    for (int i = 0; c && i < n; i++)
        c[i] = nh_mpi_Request_f2c(f[i]);
    return c;
}

/* *c: C statuses for n Fortran ones, MPI_STATUSES_IGNORE for the sentinel
 * (Open MPI's is NULL); MPI_ERR_NO_MEM when out of memory. */
int f_statuses(int n, const MPI_Fint *f, MPI_Status **c)
{
    if (is_sentinel(f, F_STATUSES_IGNORE)) {
        *c = MPI_STATUSES_IGNORE;
        return MPI_SUCCESS;
    }
    *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(MPI_Status));
    return *c ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void f_statuses_free(MPI_Status *c)
{
    if (c != MPI_STATUSES_IGNORE)
        free(c);
}

/* After a multiple-completion call: every handle back to Fortran, and
 * the first n statuses (none where st is MPI_STATUSES_IGNORE). */
void f_back(int nreq, const MPI_Request *c, MPI_Fint *f, int n, const MPI_Status *st,
                   MPI_Fint *fst)
{
    for (int i = 0; i < nreq; i++)
        f[i] = nh_mpi_Request_c2f(c[i]);
    for (int i = 0; st != MPI_STATUSES_IGNORE && i < n; i++)
        nh_mpi_Status_c2f(&st[i], fst + (size_t)i * F_STATUS_SIZE);
}

/* The C status for a Fortran status argument (MPI_STATUS_IGNORE for the
 * sentinel), and its conversion back. */
MPI_Status *f_status(const MPI_Fint *f, MPI_Status *c)
{
    return is_sentinel(f, F_STATUS_IGNORE) ? MPI_STATUS_IGNORE : c;
}

void f_status_back(const MPI_Status *c, MPI_Fint *f)
{
    if (c != MPI_STATUS_IGNORE)
        nh_mpi_Status_c2f(c, f);
}

/* The n C datatypes of Fortran handles; NULL when out of memory. */
MPI_Datatype *f_types(int n, const MPI_Fint *f)
{
    MPI_Datatype *c = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(*c));
    for (int i = 0; c && i < n; i++)
        c[i] = nh_mpi_Type_f2c(f[i]);
    return c;
}

