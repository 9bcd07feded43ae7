/* The in-place all-to-all (inplace.c) as the API layer calls it. */
#ifndef NH_EXEC_INPLACE_H
#define NH_EXEC_INPLACE_H

#include "plan/plan.h"

typedef enum { NH_INPLACE_ALLTOALL = 0, NH_INPLACE_ALLTOALLV, NH_INPLACE_ALLTOALLW } nh_inplace_op;
typedef struct nh_inplace_args {
    nh_inplace_op op;
    void *buf;
    int count;                  /* alltoall */
    MPI_Datatype type;          /* alltoall, alltoallv */
    const int *counts, *displs; /* alltoallv (displs in extents), alltoallw (in bytes) */
    const MPI_Datatype *types;  /* alltoallw */
} nh_inplace_args;
/* Runs an in-place all-to-all with nhood's algorithm; returns MPI_SUCCESS,
 * an MPI error, or NH_TO_PMPI (nhood off, no intracommunicator, the
 * order pmpi). */
int nh_inplace(MPI_Comm comm, const nh_inplace_args *a);
/* The order the in-place calls on comm take now (the configured one, or
 * what auto decided at the first of them); MPI_ERR_COMM before that. */
int nh_inplace_algorithm(MPI_Comm comm, const char **name);
int nh_inplace_init(void);
void nh_inplace_fini(void);
void nh_inplace_report_print(void);
void nh_inplace_report_free(void);

#endif
