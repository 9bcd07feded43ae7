/* nhood public interface.
 *
 * Programs normally use nhood without including this header: preloaded,
 * it intercepts the MPI neighborhood collectives.  This header declares
 * the queries a program (or a test) can make when it links libnhood or
 * looks the symbols up in a preloaded one. */
#ifndef NHOOD_H
#define NHOOD_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NHOOD_VERSION "0.1.0"

typedef struct nhood_comm_info {
    int isomorphic; /* 1 if nhood proved the neighborhood isomorphic */
    int coupled;    /* 1 if block sizes are provably uniform (size-aware auto) */
    int ndims;      /* grid of the neighborhood (0 if not isomorphic) */
    int dims[8];
    int periods[8];
    int neighbors;   /* template size */
    char source[16]; /* "cart", "hint", "inferred" or "" */
} nhood_comm_info;

/* Fills *info for a distributed-graph communicator.  Returns MPI_SUCCESS,
 * or MPI_ERR_COMM if nhood has no record of the communicator. */
int nhood_comm_query(MPI_Comm comm, nhood_comm_info *info);

/* The algorithm nhood would run for op ("alltoall" or "allgather", with
 * an "i" prefix for the nonblocking and an "_init" suffix for the
 * persistent form; or "alltoallv", "alltoallw", "allgatherv", where
 * block_bytes is the mean block size) with blocks of the given size,
 * written into name (e.g. "torus", "pmpi"). */
int nhood_algorithm_for(MPI_Comm comm, const char *op, int block_bytes, char *name, int len);

/* Advances nhood's outstanding nonblocking and persistent neighborhood
 * collectives without blocking.  Completion calls (MPI_Test, MPI_Wait and
 * their variants) do this already; call it from long computations between
 * start and completion when NHOOD_PROGRESS=poll lets operations forward
 * data.  Not thread-safe (nhood steps aside under MPI_THREAD_MULTIPLE). */
void nhood_progress(void);

/* Live MPI objects and cached state that nhood created for itself (never
 * the application's): private communicator duplicates, derived datatypes,
 * requests not yet completed, and per-communicator plans (graph analyses
 * and in-place contexts).  Once the communicators nhood worked on are
 * freed, every count is back where it was; test/mpi/test_leaks.c checks
 * this over 10,000 create/use/free cycles.  Returns MPI_SUCCESS. */
typedef struct nhood_resources {
    long comms;
    long datatypes;
    long requests;
    long plans;
} nhood_resources;
int nhood_resource_counts(nhood_resources *counts);

#ifdef __cplusplus
}
#endif
#endif
