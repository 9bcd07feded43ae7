/* nhood-calibrate's parts: measurements (nhood-calibrate.c) and the fit,
 * its validation and the cost file (calib_fit.c).  Programs, not part of
 * the library: they talk to nhood only through MPI and include/nhood.h. */
#ifndef NH_CALIB_H
#define NH_CALIB_H

#include <stdio.h>

#include "core/model.h"

#define CAL_NPARAM NH_NTERMS /* the cost model's terms (NHOOD_COST_TERMS) */
#define CAL_MAXCAND 12 /* pmpi, direct, torus, torus_direct, bruck:1..8 */

/* term i's name in the cost file: nh_cost_params[i].key (core/model.h) */

/* One measured call: a neighborhood, an operation and block size (a
 * group), an algorithm, its median time and the model's terms for it. */
typedef struct cal_row {
    char group[64];
    char algo[16];
    double us;
    double terms[CAL_NPARAM];
} cal_row;

typedef struct cal_set {
    cal_row *rows;
    int n, cap;
} cal_set;

int cal_set_add(cal_set *s, const cal_row *r);

/* Least-squares line y = a + b x over n points (b = 0 where all x are
 * equal); also nhood-simcalib's (src/smpi/calib.c). */
void cal_line_fit(const double *x, const double *y, int n, double *a, double *b);

/* Fits the parameters p (in: the measured ones; out: the fitted ones)
 * to the training calls, telling ratios apart in steps of step (0.005:
 * half a per cent): see calib_fit.c.  Writes what it did to log. */
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
    double measured[CAL_NPARAM], fitted[CAL_NPARAM], eager;
    double step; /* the fit's resolution of ratios (0: 0.005) */
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

#endif
