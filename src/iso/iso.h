/* The isomorphic sparse collectives interface (include/nhood.h,
 * "Isomorphic, sparse collectives"): internal declarations. */
#ifndef NH_ISO_H
#define NH_ISO_H

#include "nh.h"
#include "sched/reduce.h"

/* What Iso_neighborhood_create attaches to the communicator it makes. */
typedef struct nh_iso {
    nh_grid g;
    int coords[NH_MAXDIMS];
    int rank;
    int s;
    int *off;               /* s x g.ndims, as the user gave them */
    int *targets, *sources; /* s, MPI_PROC_NULL outside a mesh */
    int outdeg, indeg;
    int *tidx, *sidx; /* offset index of the k-th graph destination / source */
    int nulls;        /* some process has MPI_PROC_NULL neighbors (same on every rank) */
    nh_red_algo red;  /* NHOOD_ISO_REDUCE, agreed at creation; NH_RED_COUNT = auto */
    MPI_Comm pcomm;   /* private duplicate for the reductions, made by the first one */
    nh_rsched *rs[2][NH_RED_COUNT]; /* [scatter][algo], built on first use */
    /* auto: counts of an interior rank (the grid made periodic), the same
     * on every rank; valid once msgs >= 0 */
    struct {
        long msgs, blocks;
        int steps;
    } tmpl[2][NH_RED_COUNT];
} nh_iso;

/* The iso state of a communicator, or NULL (with an error message naming
 * fn) when it was not made by Iso_neighborhood_create. */
nh_iso *nh_iso_get(MPI_Comm comm, const char *fn);
/* The reduction schedule for blocks of m bytes: NHOOD_ISO_REDUCE, or
 * (auto) the cheaper by nhood's cost model for an interior rank; m is the
 * same on every rank (count x datatype must match), so is the choice.
 * Returns -1 when out of memory. */
int nh_iso_red_algo(nh_iso *I, int scatter, size_t m, nh_red_algo *out);

/* Reentry guard of the MPI entry points (intercept/intercept.c): Iso_*
 * functions hold it too, so MPI calls made while they run reach PMPI. */
int nh_guard_enter(void);
void nh_guard_leave(int prev);

/* NHOOD_CHECK (nh_cfg.check): verify promises with extra collectives.
 * Returns 0 or 1 (the setting was validated at MPI_Init). */
int nh_iso_check_env(char *msg, size_t len);
/* NHOOD_ISO_REDUCE=auto|direct|dimwise: auto is NH_RED_COUNT; -1 if malformed. */
int nh_iso_reduce_env(char *msg, size_t len);
/* 1 if name (n characters) is one of the variables read here (for the
 * unknown-variable warning of select/config.c). */
int nh_iso_knob(const char *name, size_t n);

int nh_iso_reduce_run(nh_iso *I, MPI_Comm comm, int scatter, const void *sendbuf,
                      const int *sendcount, const MPI_Aint *senddisp, const MPI_Datatype *sendtype,
                      void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op);

#endif
