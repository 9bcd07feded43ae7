/* Graph creation's analysis, private to plan/: its state (det, detect.c),
 * the agreement (agree.c) and the candidate grids (candidates.c). */
#ifndef NH_DETECT_INT_H
#define NH_DETECT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "core/facts.h"
#include "plan/plan.h"
#include "plan/stfw_setup.h"

#define NH_MAXCAND 24

typedef struct cand {
    nh_grid g;
    const char *source;
    int mesh; /* inferred with a dimension that has no period: tried after the tori */
} cand;

/* The one-collective agreement (agree.c): graphs of up to NH_DET_GATHER
 * ranks, NH_DET_WORDS 64-bit words a rank. */
#define NH_DET_GATHER 64
/* The candidates whose offset summaries and template hashes travel in
 * it (the first ones: inferred grids rarely number more; the rest are
 * left to the general agreement, which decides alike). */
#define NH_DET_SUMMED 8
/* The agreed facts (agree.c's table), and the fast ones' AND words. */
#define NH_DET_FACTS 11
#define NH_DET_AND 3
#define NH_DET_WORDS (NH_DET_FACTS + NH_STFW_PRE + 2 * NH_DET_SUMMED)

/* A graph in the cold tier (docs/algorithms.md, "Tiers"): what its
 * analysis will need that the graph communicator cannot tell later (the
 * hint, the parent's grid, whether the parent's ranks were the graph's;
 * the lists MPI gives back as the caller gave them, MPI-4.0 7.5.4), and
 * its calls so far.  It lives in the plan's allocation, after the plan:
 * one small allocation per creation. */
struct nh_plan_cold {
    nh_grid parent;
    int has_parent, order, calls;
    int ripe;              /* counted in nh_plan_nripe */
    int switch_at;         /* analyzed at a parent's point: the call that ends the tier, or 0 */
    int analyzed;          /* analyze() ran: the plan may hold an analysis while still cold */
    char *msg;             /* a malformed value's message (the hint's bad), or NULL */
    int repeats;           /* this rank lists a peer twice: 1, 0, -1 not known yet (cold.c) */
    unsigned char hint[offsetof(nh_hint, msg)]; /* the hint up to its message */
};

/* One creation's analysis state. */
typedef struct det {
    MPI_Comm graph;
    int rank, size, indeg, outdeg, ncand;
    const int *srcs, *dsts;
    int done;                 /* candidates whose local offsets are known */
    int local_ok[NH_MAXCAND]; /* this rank's lists lie on candidate k's grid */
    int fit[NH_MAXCAND];      /* nbs[k] holds a neighborhood */
    int pending[NH_MAXCAND];  /* ... whose sources' half waits (nh_nbhd_torus_dests) */
    int *mine; /* per candidate: this rank's sorted destination offsets */
    int *perm;
    int win; /* the window bucket: this rank's, then the largest (util/window.h) */
    /* store-and-forward's agreement (nh_stfw_pre): this rank's words, the
     * agreed ones once stfw_agreed (the one-collective path below) */
    long long stfw[NH_STFW_PRE];
    int stfw_agreed;
    /* the agreement in flight (nh_det_agree_start): its inputs and, on up
     * to NH_DET_GATHER ranks, its one allgather */
    int kf;
    /* this rank's facts (agree.c); on more than NH_DET_GATHER ranks the
     * agreed ones once agreed */
    long long fact[NH_DET_FACTS];
    /* GPU buffers (util/gpu.h): this rank has a runtime loaded and no
     * promise of host buffers; after the agreement, some rank has */
    int gpu;
    uint64_t v[NH_DET_AND]; /* the fast facts' AND words (more than NH_DET_GATHER ranks) */
    MPI_Request req;
    /* ... or its point-to-point exchange on nh_world_priv (npair requests) */
    MPI_Request pair[2 * (NH_PAIRWISE_MAX - 1)];
    int npair;
    uint64_t words[NH_DET_WORDS], *all; /* all: size * NH_DET_WORDS, or NULL */
    /* Last, and not zeroed before use (nh_plan_start's allocation): the
     * candidates (the first ncand are filled), their neighborhoods (each
     * built before fit[k] is set) */
    cand c[NH_MAXCAND];
    nh_nbhd nbs[NH_MAXCAND];
} det;
#define NH_DET_ZEROED offsetof(det, c)

/* The agreement on which candidate (if any) every rank's lists fit
 * (agree.c).  start: this rank's part, and on up to NH_DET_GATHER ranks
 * the allgather started on comm (whose ranks are the graph's); finish:
 * the rest, collective over d->graph.  *native, *no_stfw: this rank's
 * inputs, the agreed values after finish; *chosen: the candidate or -1,
 * *s its template size. */
int nh_det_agree_start(det *d, const nh_hint *h, int order, int *native, int no_stfw,
                       MPI_Comm comm);
int nh_det_agree_finish(det *d, const nh_hint *h, int *native, int *no_stfw, int *chosen, int *s);
/* Frees d's fits and buffers (an agreement in flight is completed). */
void nh_det_fini(det *d);
/* Does a rank appear twice in the list?  (1 also when out of memory.) */
int nh_det_repeats(const int *ranks, int n);

/* The grids a new graph communicator's lists are tried on: its
 * Cartesian parent (NULL: none), the nhood_dims hint, or else the
 * inferred ones (candidates.c says which, in which order).  Returns how
 * many. */
int nh_det_candidates(const nh_grid *parent, int size, const nh_hint *h, cand *c);
/* comm_old's Cartesian grid where it has one (local; a candidate where
 * its size is the graph's). */
int nh_det_parent(MPI_Comm comm_old, nh_grid *g);
/* Of the candidates fit[] marks, the one to keep (-1: none). */
int nh_det_pick(const cand *c, int n, const int *fit, const nh_nbhd *nbs);
/* A template names some peer twice (-1 and +1 on a dimension of 2). */
int nh_det_repeats_offset(const nh_nbhd *nb);
/* A hash of the candidate list, the same wherever the list is. */
unsigned nh_det_cand_hash(const cand *c, int n);

#endif
