/* nhood-calibrate's parts: the program and its validation
 * (nhood-calibrate.c), the measurements (calib_run.c), the fit
 * (calib_fit.c) and its files (calib_io.c).  Programs, not part of the
 * library: they talk to nhood only through MPI and include/nhood.h, and
 * share the pure core's cost model (core/model.h). */
#ifndef NH_CALIB_H
#define NH_CALIB_H

#include <stdio.h>

#include "core/model.h"
#include "core/sched.h"

#define CAL_NPARAM NH_NTERMS /* the cost model's terms (NHOOD_COST_TERMS) */
#define CAL_MAXCAND 12       /* pmpi, direct, torus, torus_direct, bruck:1..8 */
#define CAL_MAXPH 40         /* phases of one call's schedule (more: not used) */

/* term i's name in the cost file: nh_cost_params[i].key (core/model.h) */

/* One measured call: a neighborhood, an operation and block size (a
 * group), an algorithm, its median time and the model's counts for it,
 * phase by phase (include/nhood.h, nhood_cost_phases): its modeled time
 * under parameters p is nh_cost_phases(p, nph, ph, NULL). */
typedef struct cal_row {
    char group[64];
    char algo[16];
    double us;
    int nph;
    double ph[CAL_MAXPH][CAL_NPARAM];
} cal_row;

typedef struct cal_set {
    cal_row *rows;
    int n, cap;
} cal_set;

int cal_set_add(cal_set *s, const cal_row *r);

/* One phase of k[i] messages sent and received took T[i] (n <= 64
 * points): the latency *L and receive overhead *o_r that fit them best
 * (relative least squares) under the model's phase (core/model.h) with
 * send overhead o_s. */
void cal_phase_fit(const double *k, const double *T, int n, double o_s, double *L, double *o_r);

/* Least-squares line y = a + b x over n points (b = 0 where all x are
 * equal); also nhood-simcalib's (src/smpi/calib.c). */
void cal_line_fit(const double *x, const double *y, int n, double *a, double *b);

/* The network between nodes from one-way times t[d] from the first node
 * to node d (d = 1 .. n - 1, in rank order; t[0] unused), as
 * core/sched.h's nh_net: where `given` names tiers (given[0] > 0, up to
 * NH_NET_TIERS nodes per unit), those, and the latency per tier crossed;
 * otherwise the ring size R (2 to n; nh_node_hops) whose least-squares
 * line of the latency per hop beyond the first fits the times best, or
 * one tier of T nodes (a step at node T and flat beyond: a dragonfly's
 * router) where that fits clearly better.  *hop = 0 and *net all 0 (no
 * distance) where no line grows over the nodes by more than `noise`
 * times t[1]. */
void cal_dist_fit(const double *t, int n, double noise, const int *given, double *hop, nh_net *net);

/* Fits the parameters p (in: the measured ones; out: the fitted ones)
 * to the training calls, telling ratios apart in steps of step (0.005:
 * half a per cent): see calib_fit.c.  Writes what it did to log. */
/* The modeled time of row r under parameters p. */
double cal_cost(const double p[CAL_NPARAM], const cal_row *r);
void cal_fit(double p[CAL_NPARAM], const cal_set *train, double step, FILE *log);

/* Against p: how often the model picks the measured fastest of a group
 * (within tol, e.g. 0.03), the worst ratio picked / fastest, and the
 * median absolute relative error of the modeled times (after the fit's
 * scale, i.e. as they are). */
typedef struct cal_score {
    int groups, hits;
    double worst, mean, err_med;
} cal_score;

void cal_evaluate(const double p[CAL_NPARAM], const cal_set *set, double tol, cal_score *out);

/* The validation table: per group, measured and predicted per algorithm. */
void cal_print_table(FILE *out, const double p[CAL_NPARAM], const cal_set *set, const char *prefix);

/* Everything a run measured (calib_io.c). */
typedef struct cal_result {
    double measured[CAL_NPARAM], fitted[CAL_NPARAM], eager, ring;
    double tier[NH_NET_TIERS]; /* nodes per unit of each tier (0: rings, or none) */
    double tier_links[NH_NET_TIERS]; /* links a tier's link stands for (--tiers; 0: one) */
    int gateway; /* --gateway: the third tier's links on one router pair (tier3_gateway) */
    double spread[CAL_NPARAM]; /* (max - min) / median over the repetitions; < 0: one */
    double step;               /* the fit's resolution of ratios (0: 0.005) */
    cal_set train, valid;
    char notes[16384];      /* the measurements, as "# ..." lines */
    char fingerprint[1024]; /* fingerprint.* lines */
} cal_result;

/* Fits r->fitted from r->measured and the training calls, validates, and
 * writes the cost file out (how: " --quick" or "" for its header).
 * Returns 0, or -1 with a message on stderr. */
int cal_finish(cal_result *r, const char *out, const char *how);
/* --rows: every call measured, with the measurements; --refit reads it. */
int cal_rows_write(const char *path, const cal_result *r);
int cal_rows_read(const char *path, cal_result *r);

/* Measurements (calib_run.c), on every rank of MPI_COMM_WORLD. */
#include <mpi.h>

extern int rank, nprocs, quick;    /* in MPI_COMM_WORLD; --quick */
extern int tiers[NH_NET_TIERS];    /* --tiers (0: not given) */
extern int tier_links[NH_NET_TIERS]; /* --tiers' links per tier (1 unless given) */
extern int tier_gateway;             /* --gateway */
extern double rse_target, t_start; /* the relative standard error sought; MPI_Wtime at start */
extern int max_reps;               /* repetitions at most */
extern const int sim_reps;         /* under simulation: repetitions (times repeat exactly) */

/* A line of progress on stderr from rank 0. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cmp_double(const void *a, const void *b);
/* Times ncand operations fn(ctx, c), alternating, until each one's median
 * of the slowest rank's times has a relative standard error under
 * rse_target (identical decision everywhere: the times are reduced) or
 * max_reps; us[c]: medians in microseconds per call. */
typedef void (*op_fn)(void *ctx, int cand);
void measure(op_fn fn, void *ctx, int ncand, double *us);
/* One-way time between rank 0 and peer, microseconds. */
double pingpong(int peer, int m);
/* Time per byte of two messages of 16 and 64 KiB that rank 0 sends at
 * once until each is answered: per_byte[0] both to rank a, per_byte[1]
 * one to a and one to b (timed in turn within each repetition). */
void fanout(int a, int b, double per_byte[2]);
/* Microseconds of an exchange of k messages of m bytes among the ranks of
 * comm (each rank in one; exchange: MPI_COMM_WORLD) with the ranks at
 * +-stride, +-2 stride, ...; with struct_n > 0 also (us[1]) the same bytes
 * as struct messages of struct_n blocks (what the zcopy binding sends). */
void exchange_in(MPI_Comm comm, int k, int m, int stride, int struct_n, double us[2]);
void exchange(int k, int m, int stride, int struct_n, double us[2]);
/* The same for n exchanges (k[c] messages of m[c] bytes), timed in turn
 * within each repetition, so that a slow spell of the machine weighs on
 * all of them alike (a fit across them stays consistent); us[c]. */
void exchange_set(MPI_Comm comm, int n, const int *k, const int *m, int stride, double *us);
/* Microseconds a rank takes to post k[c] sends of 8 B and see them
 * complete, the n counts timed in turn within each repetition; us[c]. */
void posting_set(int n, const int *k, int stride, double *us);
/* Local copies: microseconds per byte (rank 0's, broadcast). */
double copy_cost(int blocks, int bl, int stride);

#endif
