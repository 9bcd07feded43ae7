/* The MPI library's own functions, for the tests' references and the
 * benchmarks' baselines.  nhood answers the PMPI_ names as well (it sits
 * beneath PMPI tools), so PMPI_X would run nhood: a program that wants
 * MPI's own result looks the function up in the MPI library itself, the
 * last loaded object that defines PMPI_Init.  Including this header maps
 * the PMPI_ names the tests and benchmarks use onto those functions (one
 * look-up per call site, then a load and a branch).  The SMPI build, where
 * nhood is linked into the program and answers MPI_ names only, keeps
 * PMPI_X as it is. */
#ifndef NH_TEST_LIBMPI_H
#define NH_TEST_LIBMPI_H

#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NHOOD_SMPI
static void *test_libmpi_handle;

/* The loaded objects in load order (the dynamic linker's list): the last
 * one through which PMPI_Init resolves is the MPI library (tools come
 * before it, its own dependencies after it do not know the name). */
static void test_libmpi_find(void)
{
    for (struct link_map *l = _r_debug.r_map; l; l = l->l_next) {
        void *h = l->l_name[0] ? dlopen(l->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (h && dlsym(h, "PMPI_Init"))
            test_libmpi_handle = h;
        else if (h)
            dlclose(h);
    }
}

__attribute__((unused)) static void *test_libmpi_sym(const char *name)
{
    if (!test_libmpi_handle)
        test_libmpi_find();
    void *f = test_libmpi_handle ? dlsym(test_libmpi_handle, name) : NULL;
    if (!f) {
        fprintf(stderr, "test: the MPI library defines no %s\n", name);
        abort();
    }
    return f;
}

#define NH_TEST_LIB(name)                                                                          \
    (*__extension__({                                                                              \
        static __typeof__(&name) f_;                                                               \
        if (!f_)                                                                                   \
            f_ = (__typeof__(&name))test_libmpi_sym(#name);                                        \
        f_;                                                                                        \
    }))
#define PMPI_Allreduce NH_TEST_LIB(PMPI_Allreduce)
#define PMPI_Alltoall NH_TEST_LIB(PMPI_Alltoall)
#define PMPI_Alltoallv NH_TEST_LIB(PMPI_Alltoallv)
#define PMPI_Alltoallw NH_TEST_LIB(PMPI_Alltoallw)
#define PMPI_Barrier NH_TEST_LIB(PMPI_Barrier)
#define PMPI_Comm_dup NH_TEST_LIB(PMPI_Comm_dup)
#define PMPI_Comm_free NH_TEST_LIB(PMPI_Comm_free)
#define PMPI_Dist_graph_create_adjacent NH_TEST_LIB(PMPI_Dist_graph_create_adjacent)
#define PMPI_Ineighbor_allgather NH_TEST_LIB(PMPI_Ineighbor_allgather)
#define PMPI_Ineighbor_allgatherv NH_TEST_LIB(PMPI_Ineighbor_allgatherv)
#define PMPI_Ineighbor_alltoall NH_TEST_LIB(PMPI_Ineighbor_alltoall)
#define PMPI_Ineighbor_alltoallv NH_TEST_LIB(PMPI_Ineighbor_alltoallv)
#define PMPI_Ineighbor_alltoallw NH_TEST_LIB(PMPI_Ineighbor_alltoallw)
#define PMPI_Irecv NH_TEST_LIB(PMPI_Irecv)
#define PMPI_Isend NH_TEST_LIB(PMPI_Isend)
#define PMPI_Neighbor_allgather NH_TEST_LIB(PMPI_Neighbor_allgather)
#define PMPI_Neighbor_allgatherv NH_TEST_LIB(PMPI_Neighbor_allgatherv)
#define PMPI_Neighbor_alltoall NH_TEST_LIB(PMPI_Neighbor_alltoall)
#define PMPI_Neighbor_alltoallv NH_TEST_LIB(PMPI_Neighbor_alltoallv)
#define PMPI_Neighbor_alltoallw NH_TEST_LIB(PMPI_Neighbor_alltoallw)
#define PMPI_Request_free NH_TEST_LIB(PMPI_Request_free)
#define PMPI_Start NH_TEST_LIB(PMPI_Start)
#define PMPI_Test NH_TEST_LIB(PMPI_Test)
#define PMPI_Wait NH_TEST_LIB(PMPI_Wait)
#define PMPI_Waitall NH_TEST_LIB(PMPI_Waitall)
#ifdef HAVE_MPIX_NEIGHBOR_ALLTOALL_INIT
/* Open MPI 4.1: the MPI-4 names of util/init_forms.h, MPI's own */
#define PMPI_Neighbor_alltoall_init NH_TEST_LIB(PMPIX_Neighbor_alltoall_init)
#define PMPI_Neighbor_allgather_init NH_TEST_LIB(PMPIX_Neighbor_allgather_init)
#define PMPI_Neighbor_alltoallv_init NH_TEST_LIB(PMPIX_Neighbor_alltoallv_init)
#define PMPI_Neighbor_allgatherv_init NH_TEST_LIB(PMPIX_Neighbor_allgatherv_init)
#define PMPI_Neighbor_alltoallw_init NH_TEST_LIB(PMPIX_Neighbor_alltoallw_init)
#else
#define PMPI_Neighbor_alltoall_init NH_TEST_LIB(PMPI_Neighbor_alltoall_init)
#define PMPI_Neighbor_allgather_init NH_TEST_LIB(PMPI_Neighbor_allgather_init)
#define PMPI_Neighbor_alltoallv_init NH_TEST_LIB(PMPI_Neighbor_alltoallv_init)
#define PMPI_Neighbor_allgatherv_init NH_TEST_LIB(PMPI_Neighbor_allgatherv_init)
#define PMPI_Neighbor_alltoallw_init NH_TEST_LIB(PMPI_Neighbor_alltoallw_init)
#endif

#endif /* NHOOD_SMPI */

#endif
