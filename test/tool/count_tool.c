/* A minimal PMPI tool, for the tests of nhood beside other tools: it
 * wraps a few MPI calls, counts them, and at MPI_Finalize each rank
 * writes one line to stderr:
 *   count_tool: rank=R init=1 MPI_Barrier=2 MPI_Isend=8 ...
 * (every wrapped name, zeros included).  Two builds of this file:
 * - mpiP's way (default): defines MPI_X and calls PMPI_X by name;
 * - Darshan's way (-DCOUNT_TOOL_BOTH_NAMES): defines MPI_X and PMPI_X
 *   alike and reaches the next layer with dlsym(RTLD_NEXT, "PMPI_X");
 *   with -DCOUNT_TOOL_NO_NEIGHBOR, only what Darshan's AutoPerf MPI module
 *   wraps of the list: point-to-point, completion, barrier and reduction,
 *   start-up and shut-down, not graphs nor neighborhood collectives.
 * Linked into a program instead of preloaded, it stands for a tool
 * linked into the executable.
 *
 * mpiP's way also wraps Fortran names, as mpiP does: MPI_INIT and
 * MPI_FINALIZE (mpif.h and `use mpi`: mpi_init_, mpi_finalize_; mpi_f08:
 * mpi_init_f08_, mpi_finalize_f08_), so that it reports for Fortran
 * programs whose library binding calls PMPI_Init (Open MPI, every
 * mpi_f08), and MPI_NEIGHBOR_ALLTOALL (mpi_neighbor_alltoall_, counted as
 * F_MPI_Neighbor_alltoall).  Each counts and calls the next definition of
 * its own name (dlsym(RTLD_NEXT)). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COUNTED_P2P(X)                                                                             \
    X(MPI_Barrier, (MPI_Comm comm), (comm))                                                        \
    X(MPI_Allreduce,                                                                               \
      (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm),                   \
      (s, r, n, t, op, comm))                                                                      \
    X(MPI_Isend,                                                                                   \
      (const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm comm, MPI_Request *req),   \
      (b, n, t, dst, tag, comm, req))                                                              \
    X(MPI_Irecv, (void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm,                 \
                  MPI_Request *req),                                                               \
      (b, n, t, src, tag, comm, req))                                                              \
    X(MPI_Send, (const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm comm),           \
      (b, n, t, dst, tag, comm))                                                                   \
    X(MPI_Recv,                                                                                    \
      (void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm, MPI_Status *st),           \
      (b, n, t, src, tag, comm, st))                                                               \
    X(MPI_Wait, (MPI_Request * req, MPI_Status *st), (req, st))                                    \
    X(MPI_Waitall, (int n, MPI_Request reqs[], MPI_Status sts[]), (n, reqs, sts))                  \
    X(MPI_Test, (MPI_Request * req, int *flag, MPI_Status *st), (req, flag, st))
#ifdef COUNT_TOOL_NO_NEIGHBOR
#define COUNTED(X) COUNTED_P2P(X)
#else
#define COUNTED(X)                                                                                 \
    COUNTED_P2P(X)                                                                                 \
    X(MPI_Comm_dup, (MPI_Comm comm, MPI_Comm * out), (comm, out))                                  \
    X(MPI_Comm_free, (MPI_Comm * comm), (comm))                                                    \
    X(MPI_Dist_graph_create_adjacent,                                                              \
      (MPI_Comm comm, int indeg, const int srcs[], const int sw[], int outdeg, const int dsts[],   \
       const int dw[], MPI_Info info, int reorder, MPI_Comm *out),                                 \
      (comm, indeg, srcs, sw, outdeg, dsts, dw, info, reorder, out))                               \
    X(MPI_Neighbor_alltoall,                                                                       \
      (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm),   \
      (s, sc, st, r, rc, rt, comm))                                                                \
    X(MPI_Neighbor_allgather,                                                                      \
      (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm),   \
      (s, sc, st, r, rc, rt, comm))                                                                \
    X(MPI_Ineighbor_alltoall,                                                                      \
      (const void *s, int sc, MPI_Datatype st, void *r, int rc, MPI_Datatype rt, MPI_Comm comm,    \
       MPI_Request *req),                                                                          \
      (s, sc, st, r, rc, rt, comm, req))                                                           \
    X(MPI_Neighbor_alltoallv,                                                                      \
      (const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r, const int rc[],    \
       const int rd[], MPI_Datatype rt, MPI_Comm comm),                                            \
      (s, sc, sd, st, r, rc, rd, rt, comm))
#endif

enum {
#define X_ENUM(name, params, args) IDX_##name,
    COUNTED(X_ENUM) NCOUNTED
};
static const char *const names[] = {
#define X_NAME(name, params, args) #name,
    COUNTED(X_NAME)};
static long counts[NCOUNTED];
static int init_seen;
#ifndef COUNT_TOOL_BOTH_NAMES
static long f_alltoall; /* mpi_neighbor_alltoall_ */
#endif
static int reported;

/* The next definition of a name: the next layer's PMPI_X, as Darshan
 * reaches it, or of a Fortran name (the library's binding, or nhood's
 * entry point when nhood is loaded after the tool). */
__attribute__((unused)) static void *next_sym(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "count_tool: no %s below\n", name);
        abort();
    }
    return f;
}

#ifdef COUNT_TOOL_BOTH_NAMES
#define NEXT(name, type) ((type)next_sym("P" #name))
#define WRAP(name, params, args)                                                                   \
    int P##name params                                                                             \
    {                                                                                              \
        counts[IDX_##name]++;                                                                      \
        return NEXT(name, int(*) params) args;                                                     \
    }                                                                                              \
    int name params __attribute__((alias("P" #name)));
#else
#define NEXT(name, type) P##name
#define WRAP(name, params, args)                                                                   \
    int name params                                                                                \
    {                                                                                              \
        counts[IDX_##name]++;                                                                      \
        return P##name args;                                                                       \
    }
#endif
COUNTED(WRAP)

#ifdef COUNT_TOOL_BOTH_NAMES
int PMPI_Init(int *argc, char ***argv)
{
    init_seen = 1;
    return NEXT(MPI_Init, int (*)(int *, char ***))(argc, argv);
}
int MPI_Init(int *argc, char ***argv) __attribute__((alias("PMPI_Init")));
int PMPI_Init_thread(int *argc, char ***argv, int req, int *prov)
{
    init_seen = 1;
    return NEXT(MPI_Init_thread, int (*)(int *, char ***, int, int *))(argc, argv, req, prov);
}
int MPI_Init_thread(int *argc, char ***argv, int req, int *prov)
    __attribute__((alias("PMPI_Init_thread")));
#define FINALIZE PMPI_Finalize
#else
int MPI_Init(int *argc, char ***argv)
{
    init_seen = 1;
    return PMPI_Init(argc, argv);
}
int MPI_Init_thread(int *argc, char ***argv, int req, int *prov)
{
    init_seen = 1;
    return PMPI_Init_thread(argc, argv, req, prov);
}
#define FINALIZE MPI_Finalize
#endif

/* The counts, once (a Fortran MPI_FINALIZE may come back through the C
 * MPI_Finalize): one line appended with one write to the file
 * COUNT_TOOL_LOG names (the ranks' lines whole, however the launcher
 * forwards stderr: MPICH 4.2's cuts long lines apart), else on stderr. */
static void report(void)
{
    char line[2048];
    int rank = -1, len;
    if (reported++)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    len = snprintf(line, sizeof(line), "count_tool: rank=%d init=%d", rank, init_seen);
    for (int i = 0; i < NCOUNTED && len < (int)sizeof(line); i++)
        len += snprintf(line + len, sizeof(line) - len, " %s=%ld", names[i], counts[i]);
#ifndef COUNT_TOOL_BOTH_NAMES
    snprintf(line + len, sizeof(line) - len, " F_MPI_Neighbor_alltoall=%ld", f_alltoall);
#endif
    const char *path = getenv("COUNT_TOOL_LOG");
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (fd < 0) {
        fprintf(stderr, "%s\n", line);
        fflush(stderr);
        return;
    }
    len = (int)strlen(line);
    line[len < (int)sizeof(line) - 1 ? len++ : len - 1] = '\n';
    if (write(fd, line, (size_t)len) != len)
        fprintf(stderr, "count_tool: cannot write %s\n", path);
    close(fd);
}

int FINALIZE(void)
{
    report();
    return NEXT(MPI_Finalize, int (*)(void))();
}

#ifndef COUNT_TOOL_BOTH_NAMES
#define F_NEXT(name, type) ((type *)next_sym(#name))
typedef void f_ierr(MPI_Fint *); /* MPI_INIT, MPI_FINALIZE */
typedef void f_coll(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                    MPI_Fint *);
void mpi_init_(MPI_Fint *ierr)
{
    init_seen = 1;
    F_NEXT(mpi_init_, f_ierr)(ierr);
}
void mpi_init_f08_(MPI_Fint *ierr)
{
    init_seen = 1;
    F_NEXT(mpi_init_f08_, f_ierr)(ierr);
}
void mpi_finalize_(MPI_Fint *ierr)
{
    report();
    F_NEXT(mpi_finalize_, f_ierr)(ierr);
}
void mpi_finalize_f08_(MPI_Fint *ierr)
{
    report();
    F_NEXT(mpi_finalize_f08_, f_ierr)(ierr);
}
void mpi_neighbor_alltoall_(void *s, MPI_Fint *sc, MPI_Fint *st, void *r, MPI_Fint *rc,
                            MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    f_alltoall++;
    F_NEXT(mpi_neighbor_alltoall_, f_coll)(s, sc, st, r, rc, rt, comm, ierr);
}
#endif
#ifdef COUNT_TOOL_BOTH_NAMES
int MPI_Finalize(void) __attribute__((alias("PMPI_Finalize")));
#endif
