/* The prototypes of nhood's entry points: nh_impl_MPI_<name> for every
 * line of the interception table (intercept/functions.h), with the MPI
 * function's parameters and result.  intercept/intercept.c's exported
 * MPI_X and PMPI_X call them; they are defined by layer:
 * exec/completion.c (the completion calls), api/lifecycle.c (start-up,
 * shut-down, Sessions), api/create.c (graph creation), api/alltoall.c
 * (the in-place all-to-all),
 * api/neighbor.c (the neighborhood collectives in every form) and
 * api/large.c (their large-count _c forms, the in-place _c all-to-all).
 * nhood's own layers above exec call some of them too: iso/ (graph
 * creation, persistent requests) and overlap/ (the completion calls). */
#ifndef NH_IMPL_H
#define NH_IMPL_H

#include <mpi.h>

#define NH_FN(name, params, args) int nh_impl_MPI_##name params;
#define NH_FNX(name, params, args) int nh_impl_MPIX_##name params;
#define NH_FN_DONE NH_FN
#define NH_FN_OV NH_FN
#include "intercept/functions.h"
#undef NH_FN
#undef NH_FNX
#undef NH_FN_DONE
#undef NH_FN_OV

#endif
