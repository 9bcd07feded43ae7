/* Random irregular distributed graphs for the store-and-forward tests:
 * every rank draws the same global graph from the seed and keeps its own
 * lists. */
#ifndef NH_TEST_RANDGRAPH_H
#define NH_TEST_RANDGRAPH_H

#include <mpi.h>
#include <stdlib.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread" /* MPI_UNWEIGHTED (Open MPI) */
#endif

static unsigned long long randgraph_rng;
static inline unsigned randgraph_rnd(void)
{
    randgraph_rng ^= randgraph_rng << 13;
    randgraph_rng ^= randgraph_rng >> 7;
    randgraph_rng ^= randgraph_rng << 17;
    return (unsigned)(randgraph_rng >> 11);
}

/* kind 0: random lists with empty rows, self and duplicate edges; 1: a
 * star (rank 0 sends to everyone, everyone to rank 0); 2: empty.  The
 * graph is created on MPI_COMM_WORLD (p ranks, this one rank) with info;
 * *outdeg and *indeg, when not NULL, get this rank's degrees. */
static inline void random_graph(int kind, unsigned seed, int rank, int p, MPI_Info info,
                                MPI_Comm *g, int *outdeg, int *indeg)
{
    int cap = 4 * p + 16, no = 0, ni = 0;
    int *dst = malloc(sizeof(int) * cap * p), *deg = calloc((size_t)p, sizeof(int));
    randgraph_rng = 0x9E3779B97F4A7C15ULL ^ (seed * 0x2545F4914F6CDD1DULL);
    for (int s = 0; s < p; s++) {
        int d =
            kind == 0
                ? (randgraph_rnd() % 4 == 0 ? 0 : (int)(randgraph_rnd() % (unsigned)(2 * p + 2)))
            : kind == 1 ? (s == 0 ? p : 1)
                        : 0;
        for (int j = 0; j < d; j++) {
            unsigned x = randgraph_rnd() % 8;
            int t = kind == 1         ? (s == 0 ? j : 0)
                    : x == 0          ? s
                    : x == 1 && j > 0 ? dst[s * cap + j - 1]
                                      : (int)(randgraph_rnd() % (unsigned)p);
            dst[s * cap + j] = t;
        }
        deg[s] = d;
    }
    int *mydst = malloc(sizeof(int) * (cap + 1)), *mysrc = malloc(sizeof(int) * (cap * p + 1));
    for (int j = 0; j < deg[rank]; j++)
        mydst[no++] = dst[rank * cap + j];
    for (int s = 0; s < p; s++)
        for (int j = 0; j < deg[s]; j++)
            if (dst[s * cap + j] == rank)
                mysrc[ni++] = s;
    /* A rank-dependent order of the sources (MPI matches duplicates by
     * order within one source, not by position). */
    for (int i = ni - 1; i > 0; i--) {
        int k = (int)(randgraph_rnd() % (unsigned)(i + 1)), t = mysrc[i];
        mysrc[i] = mysrc[k];
        mysrc[k] = t;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, mysrc, MPI_UNWEIGHTED, no, mydst,
                                   MPI_UNWEIGHTED, info, 0, g);
    if (outdeg)
        *outdeg = no;
    if (indeg)
        *indeg = ni;
    free(dst);
    free(deg);
    free(mydst);
    free(mysrc);
}

#endif
