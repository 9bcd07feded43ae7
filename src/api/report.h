/* The report (report.c): one record per communicator, collective and
 * form, printed at MPI_Finalize under NHOOD_REPORT=1. */
#ifndef NH_API_REPORT_H
#define NH_API_REPORT_H

#include "plan/plan.h"

typedef struct nh_report_rec {
    struct nh_report_rec *next;
    int comm_id;
    nh_coll coll;
    nh_form form;
    int isomorphic;
    char dims[64];
    char periods[32];
    const char *source;
    int neighbors;
    long calls[NH_ALGO_COUNT];
    long cold; /* of the calls, those made before the graph's analysis (the cold tier) */
    long binds; /* bindings the engine made for them (exec/engine.h: a cached one serves
                 * the same call again) */
    /* of the calls, learning's trials, per algorithm; whether the last
     * call was one, or took another form's interim choice (no decision yet) */
    long trials[NH_ALGO_COUNT];
    int measuring;
    int rounds[NH_ALGO_COUNT];
    long msgs[NH_ALGO_COUNT];
    nh_binding last_binding;
    /* store-and-forward (irregular graphs): VPT dimension (0 = none), its
     * sizes, and messages a rank sends, max and average over ranks, with
     * STFW and with one message per neighbor */
    int stfw_dims;
    char stfw_vpt[64];
    long stfw_mmax, bl_mmax;
    double stfw_mavg, bl_mavg;
    /* auto's re-check at the first blocking call: mean block in bytes (0:
     * none made) and whether STFW is off for the operation */
    double stfw_block;
    int stfw_off;
    const char *stfw_setup;          /* where its set-up ran (nh_stfw_when) */
    double create_us, create_mpi_us; /* this rank's graph creation (nh_plan) */
    int dup_of;                      /* nh_plan.dup_of */
    nh_algo asked;                   /* NHOOD_ALGO / nhood_algorithm for the op */
    /* Nonblocking and persistent forms: the agreed window bucket
     * (util/window.h) and why auto's last call did not forward (nh_why,
     * select/select.h; 0: it did, or would not anyway) */
    int window, why;
    /* NHOOD_AUTOTUNE=1: where the calls' choices came from, one bit per
     * nh_tuned (select/select.h) */
    int tuned;
} nh_report_rec;
/* The record of calls of coll in form on p (NULL without NHOOD_REPORT,
 * or when out of memory). */
nh_report_rec *nh_report_rec_get(nh_plan *p, nh_coll coll, nh_form form);
/* p's analysis just ran (the cold tier): its records take its facts. */
void nh_report_analyzed(nh_plan *p);
/* Fills the record's store-and-forward fields (dims, VPT, message counts). */
void nh_report_stfw(const nh_plan *p, nh_op op, nh_report_rec *r);
void nh_report_print(void);
void nh_report_free(void);
/* Adds one graph creation (this rank's: under nhood, MPI's own part) to
 * the report's totals line. */
void nh_report_creation(double us, double mpi_us);
/* Counts one reduction at a parent's point (api/parents.c; never under
 * MPI_THREAD_MULTIPLE, which has none). */
void nh_report_parent_reduction(void);

#endif
