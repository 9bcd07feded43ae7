/* MPI test, run preloaded: in-place MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw through nhood must leave the buffer byte-identical to
 * PMPI's in-place call on the same input: random symmetric counts with
 * zeros, contiguous and strided types, per-peer types and byte
 * displacements with gaps (which must stay untouched).  Where nhood is
 * loaded, its in-place order query must name what NHOOD_INPLACE_ALGO set,
 * and for auto the order its rule gives for this rank placement.
 * Prints "N passed, N failed" on rank 0 (totals over ranks). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "../libmpi.h"

static int rank, p;

/* Symmetric pseudo-random count in 0..4 for the pair (i, j). */
static int pair_count(int i, int j, int seed)
{
    unsigned a = (unsigned)(i < j ? i : j), b = (unsigned)(i < j ? j : i);
    unsigned h = (a * 2654435761u) ^ (b * 40503u) ^ (unsigned)seed * 97u;
    h ^= h >> 13;
    return (int)(h % 5u);
}

static void fill(unsigned char *buf, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(rank * 37 + i * 11 + seed);
}

static void test_alltoall(MPI_Datatype type, int count, const char *what)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    size_t n = (size_t)ext * count * p + 16;
    unsigned char *ref = malloc(n), *got = malloc(n);
    fill(ref, n, count);
    memcpy(got, ref, n);
    int rc1 = PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, count, type, MPI_COMM_WORLD);
    int rc2 = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got, count, type, MPI_COMM_WORLD);
    CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "alltoall %s: rc %d %d", what, rc1, rc2);
    CHECK(memcmp(ref, got, n) == 0, "alltoall %s x%d differs from PMPI", what, count);
    free(ref);
    free(got);
}

static void test_alltoallv(MPI_Datatype type, int seed, const char *what)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p), total = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = pair_count(rank, j, seed);
        displs[j] = total + 1; /* a one-element gap before every block */
        total += counts[j] + 1;
    }
    size_t n = (size_t)ext * (total + 1) + 16;
    unsigned char *ref = malloc(n), *got = malloc(n);
    fill(ref, n, seed);
    memcpy(got, ref, n);
    int rc1 = PMPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ref, counts, displs, type,
                             MPI_COMM_WORLD);
    int rc2 = MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, got, counts, displs, type,
                            MPI_COMM_WORLD);
    CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "alltoallv %s: rc %d %d", what, rc1, rc2);
    CHECK(memcmp(ref, got, n) == 0, "alltoallv %s seed %d differs from PMPI", what, seed);
    free(ref);
    free(got);
    free(counts);
    free(displs);
}

static void test_alltoallw(int seed)
{
    MPI_Datatype vec, pick[3];
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    pick[0] = MPI_INT;
    pick[1] = MPI_DOUBLE;
    pick[2] = vec;
    int *counts = malloc(sizeof(int) * p), *displs = malloc(sizeof(int) * p), off = 0;
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * p);
    for (int j = 0; j < p; j++) {
        MPI_Aint lb, ext;
        types[j] = pick[(rank + j + seed) % 3]; /* symmetric in (rank, j) */
        counts[j] = pair_count(rank, j, seed);
        MPI_Type_get_extent(types[j], &lb, &ext);
        displs[j] = off + 3; /* byte displacements with gaps */
        off += (int)(counts[j] * ext) + 3 + 8;
    }
    size_t n = (size_t)off + 64;
    unsigned char *ref = malloc(n), *got = malloc(n);
    fill(ref, n, seed);
    memcpy(got, ref, n);
    int rc1 =
        PMPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, ref, counts, displs, types, MPI_COMM_WORLD);
    int rc2 =
        MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, got, counts, displs, types, MPI_COMM_WORLD);
    CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "alltoallw: rc %d %d", rc1, rc2);
    CHECK(memcmp(ref, got, n) == 0, "alltoallw seed %d differs from PMPI", seed);
    MPI_Type_free(&vec);
    free(ref);
    free(got);
    free(counts);
    free(displs);
    free(types);
}

/* The order nhood's in-place calls on MPI_COMM_WORLD take, by its query,
 * against NHOOD_INPLACE_ALGO; for auto, lsa exactly where the ranks fill
 * two nodes split at p/2, hsa elsewhere (worked out here independently).
 * A fresh duplicate has made no in-place call: no answer yet. */
static void test_query(void)
{
    int (*algo_for)(MPI_Comm, const char *, int, char *, int) = (int (*)(
        MPI_Comm, const char *, int, char *, int))dlsym(RTLD_DEFAULT, "nhood_algorithm_for");
    const char *env = getenv("NHOOD_INPLACE_ALGO");
    char name[32] = "";
    if (!algo_for) {
        CHECK(!getenv("NHOOD_LIB"), "nhood is not preloaded");
        return;
    }
    const char *want = env && strcmp(env, "auto") != 0 ? env : NULL;
    if (!want) {
        MPI_Comm node;
        int lowest, two, mine;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
        MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, node);
        MPI_Comm_free(&node);
        mine = p > 1 && lowest == (rank < p / 2 ? 0 : p / 2);
        MPI_Allreduce(&mine, &two, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        want = two ? "lsa" : "hsa";
    }
    CHECK(algo_for(MPI_COMM_WORLD, "inplace_alltoallv", 0, name, sizeof(name)) == MPI_SUCCESS &&
              strcmp(name, want) == 0,
          "in-place order query: %s, expected %s", name, want);
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    CHECK(algo_for(fresh, "inplace_alltoall", 0, name, sizeof(name)) == MPI_ERR_COMM,
          "in-place order query answered before any in-place call");
    MPI_Comm_free(&fresh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(check_prefix, sizeof(check_prefix), "rank %d ", rank);
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 3, MPI_SHORT, &vec);
    MPI_Type_commit(&vec);
    for (int count = 0; count <= 300; count = count ? count * 10 : 1) {
        test_alltoall(MPI_INT, count, "int");
        test_alltoall(vec, count, "vector");
    }
    for (int seed = 0; seed < 4; seed++) {
        test_alltoallv(MPI_DOUBLE, seed, "double");
        test_alltoallv(vec, seed, "vector");
        test_alltoallw(seed);
    }
    test_query();
    /* A non-in-place call passes through untouched. */
    int *s = malloc(sizeof(int) * p), *r1 = malloc(sizeof(int) * p), *r2 = malloc(sizeof(int) * p);
    for (int j = 0; j < p; j++)
        s[j] = rank * 100 + j;
    PMPI_Alltoall(s, 1, MPI_INT, r1, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(s, 1, MPI_INT, r2, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(memcmp(r1, r2, sizeof(int) * p) == 0, "regular alltoall differs");
    free(s);
    free(r1);
    free(r2);
    MPI_Type_free(&vec);
    return check_finish_mpi();
}
