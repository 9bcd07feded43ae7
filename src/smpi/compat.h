/* SMPI build only: MPICH's linear neighborhood exchange (compat.c), shared
 * with its nonblocking forms (compat_nb.c), and the programs' dlsym. */
#ifndef NH_SMPI_COMPAT_H
#define NH_SMPI_COMPAT_H

#include <mpi.h>

/* Per-neighbor blocks: send k at sdispl(k), receive l at rdispl(l). */
typedef struct lin_args {
    const void *sbuf;
    void *rbuf;
    const int *scounts, *rcounts;       /* NULL: scount/rcount for all */
    const MPI_Aint *sdispls, *rdispls;  /* bytes; NULL: regular layout */
    const int *sdispl_ext, *rdispl_ext; /* in extents (v variants) */
    int scount, rcount;
    MPI_Datatype stype, rtype;
    const MPI_Datatype *stypes, *rtypes; /* w variant */
    int gather;                          /* allgather: one send block */
} lin_args;

/* The arguments of (I)neighbor_alltoall and (I)neighbor_alltoallv. */
static inline lin_args lin_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                    int rcount, MPI_Datatype rtype)
{
    return (lin_args){.sbuf = sbuf,
                      .rbuf = rbuf,
                      .scount = scount,
                      .rcount = rcount,
                      .stype = stype,
                      .rtype = rtype};
}

static inline lin_args lin_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                                     MPI_Datatype stype, void *rbuf, const int *rcounts,
                                     const int *rdispls, MPI_Datatype rtype)
{
    return (lin_args){.sbuf = sbuf,
                      .rbuf = rbuf,
                      .scounts = scounts,
                      .rcounts = rcounts,
                      .sdispl_ext = sdispls,
                      .rdispl_ext = rdispls,
                      .stype = stype,
                      .rtype = rtype};
}

/* Posts the linear exchange on comm's private duplicate: *req (malloc'ed,
 * freed by the caller) gets the *n requests posted, also on error. */
int nh_smpi_linear_post(MPI_Comm comm, const lin_args *a, MPI_Request **req, int *n);

/* The programs' dlsym (compat.c; smpi/prog.h, force-included into them,
 * declares it there): nhood's linked-in queries by name, else dlsym's
 * own answer. */
void *nh_smpi_dlsym(void *handle, const char *name);

#endif
