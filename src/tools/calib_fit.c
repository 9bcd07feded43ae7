/* nhood-calibrate's fit: parameters with which auto picks the fastest.
 *
 * The model is linear in its parameters (include/nhood.h,
 * nhood_cost_terms), and what matters is its decisions, not its times:
 * auto compares the modeled costs of the candidates of one call.  The
 * measured parameters are a starting point that misses what no
 * micro-benchmark shows (contention inside a real schedule, overlap of a
 * round's messages, MPI's own algorithm), so the fit scales them in four
 * groups: per phase (alpha), per message (o, rndv), per byte sent (beta),
 * per byte copied (gamma, pack, gather, gather_small, delta).  On a grid
 * of ratios between the groups (factors 2^(k/4) from 1/64 to 64; 0 too
 * for the copies)
 * it keeps the one with which the model picks the measured fastest
 * candidate of every training call, or comes closest (least worst ratio
 * picked / fastest, in steps of `step`: the measurements' noise), and
 * among those the one whose modeled times have the least rms relative
 * error after the best common scale, which it applies: the criterion of
 * scripts/sim-calibrate.sh, which fits the simulated platforms.  The node
 * terms (node, link) are measured between nodes and added after the fit,
 * as there (docs/simulation.md, "Calibration", says why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"

enum { A = NH_TERM_ALPHA, O = NH_TERM_O, B = NH_TERM_BETA };
enum { NGROUPS = 4 };
/* each parameter's group (core/model.h); -1: kept as measured or set */
#define group_of(i) (nh_cost_params[i].group)

/* Least-squares line y = a + b x. */
void cal_line_fit(const double *x, const double *y, int n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sx += x[i];
        sy += y[i];
        sxx += x[i] * x[i];
        sxy += x[i] * y[i];
    }
    double den = n * sxx - sx * sx;
    *b = den != 0 ? (n * sxy - sx * sy) / den : 0;
    *a = (sy - *b * sx) / n;
}

int cal_set_add(cal_set *s, const cal_row *r)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        cal_row *rows = realloc(s->rows, sizeof(cal_row) * (size_t)cap);
        if (!rows)
            return -1;
        s->rows = rows;
        s->cap = cap;
    }
    s->rows[s->n++] = *r;
    return 0;
}

static double dot(const double *p, const double *t)
{
    double x = 0;
    for (int i = 0; i < CAL_NPARAM; i++)
        x += p[i] * t[i];
    return x;
}

/* The row auto picks among rows [lo, hi) of one group under costs c[]:
 * the cheapest of nhood's (the first of equal cost), or MPI's own where
 * it costs no more (select/select.c, model_pick). */
static int pick(const cal_set *s, int lo, int hi, const double *c)
{
    int best = -1, native = -1;
    for (int r = lo; r < hi; r++) {
        if (strcmp(s->rows[r].algo, "pmpi") == 0)
            native = r;
        else if (best < 0 || c[r] < c[best])
            best = r;
    }
    if (native >= 0 && (best < 0 || c[native] <= c[best]))
        return native;
    return best;
}

/* Rows of a group are consecutive (nhood-calibrate adds them so). */
static int group_end(const cal_set *s, int lo)
{
    int hi = lo;
    while (hi < s->n && strcmp(s->rows[hi].group, s->rows[lo].group) == 0)
        hi++;
    return hi;
}

static void regret(const cal_set *s, const double *c, double tol, cal_score *out)
{
    memset(out, 0, sizeof(*out));
    out->worst = 1;
    for (int lo = 0, hi; lo < s->n; lo = hi) {
        hi = group_end(s, lo);
        int k = pick(s, lo, hi, c);
        double fastest = s->rows[lo].us;
        for (int r = lo; r < hi; r++)
            fastest = s->rows[r].us < fastest ? s->rows[r].us : fastest;
        double ratio = s->rows[k].us / fastest;
        out->groups++;
        out->hits += ratio <= 1 + tol;
        out->mean += ratio;
        out->worst = ratio > out->worst ? ratio : out->worst;
    }
    if (out->groups)
        out->mean /= out->groups;
}

void cal_evaluate(const double p[CAL_NPARAM], const cal_set *set, double tol, cal_score *out)
{
    double *c = malloc(sizeof(double) * (size_t)(set->n + 1)),
           *e = malloc(sizeof(double) * (size_t)(set->n + 1));
    for (int r = 0; r < set->n; r++) {
        c[r] = dot(p, set->rows[r].terms);
        e[r] = fabs(c[r] / set->rows[r].us - 1);
    }
    regret(set, c, tol, out);
    if (set->n > 0) {
        for (int i = 1; i < set->n; i++) /* insertion sort: small sets */
            for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
                double t = e[j];
                e[j] = e[j - 1];
                e[j - 1] = t;
            }
        out->err_med = e[set->n / 2];
    }
    free(c);
    free(e);
}

void cal_fit(double p[CAL_NPARAM], const cal_set *train, double step, FILE *log)
{
    int n = train->n;
    if (n == 0)
        return;
    /* per row: the groups' parts of the cost at the measured parameters,
     * and the part kept as measured */
    double (*part)[NGROUPS] = calloc((size_t)n, sizeof(*part)),
        *c = malloc(sizeof(double) * (size_t)n), base[CAL_NPARAM];
    memcpy(base, p, sizeof(base));
    /* Starting points the grid can scale: a round's fixed cost measures
     * near 0 where messages overlap, so alpha starts from o at least */
    if (!(base[O] > 0))
        base[O] = 0.1;
    if (!(base[A] > base[O]))
        base[A] = base[O];
    if (!(base[B] > 0))
        base[B] = 1e-4;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < CAL_NPARAM; i++) {
            double x = base[i] * train->rows[r].terms[i];
            if (group_of(i) >= 0) /* the node terms are added after the fit */
                part[r][group_of(i)] += x;
        }
    double best_key[2] = {1e30, 1e30}, best_f[NGROUPS] = {1, 1, 1, 1}, best_scale = 1;
    const int K = 24; /* factors 2^(k/4), |k| <= K, and 0 */
    /* phases and messages always cost something: their factors stay
     * positive (with few ranks their counts barely differ between the
     * schedules, and a zero would make the model ignore them elsewhere) */
    for (int ka = -K; ka <= K; ka++)
        for (int ko = -K; ko <= K; ko++)
            for (int kc = -K - 1; kc <= K; kc++) {
                double f[NGROUPS] = {pow(2, ka / 4.0), pow(2, ko / 4.0), 1,
                                     kc < -K ? 0 : pow(2, kc / 4.0)};
                /* the best common scale s for relative errors:
                 * minimize sum (s x / T - 1)^2 */
                double num = 0, den = 0;
                for (int r = 0; r < n; r++) {
                    double x = 0, T = train->rows[r].us;
                    for (int g = 0; g < NGROUPS; g++)
                        x += f[g] * part[r][g];
                    c[r] = x;
                    num += x / T;
                    den += x / T * (x / T);
                }
                double s = den > 0 ? num / den : 1, err = 0;
                if (!(s > 0))
                    continue;
                for (int r = 0; r < n; r++) {
                    double d = s * c[r] / train->rows[r].us - 1;
                    err += d * d;
                    c[r] = s * c[r];
                }
                cal_score sc;
                regret(train, c, 0, &sc);
                double key[2] = {round(sc.worst / step), sqrt(err / n)};
                if (key[0] < best_key[0] || (key[0] == best_key[0] && key[1] < best_key[1])) {
                    memcpy(best_key, key, sizeof(key));
                    memcpy(best_f, f, sizeof(f));
                    best_scale = s;
                }
            }
    for (int i = 0; i < CAL_NPARAM; i++)
        if (group_of(i) >= 0)
            p[i] = base[i] * best_f[group_of(i)] * best_scale;
    cal_score sc;
    cal_evaluate(p, train, 0.03, &sc);
    if (log)
        fprintf(log,
                "nhood-calibrate: fit over %d training calls in %d groups: factors alpha %.3g, "
                "per message %.3g, per byte 1, copies %.3g, scale %.3g; auto picks the fastest (3 %%) in "
                "%d, worst %.3fx, rms relative error %.0f %%\n",
                n, sc.groups, best_f[0], best_f[1], best_f[3], best_scale, sc.hits, sc.worst,
                100 * best_key[1]);
    free(part);
    free(c);
}

void cal_print_table(FILE *out, const double p[CAL_NPARAM], const cal_set *set, const char *prefix)
{
    for (int lo = 0, hi; lo < set->n; lo = hi) {
        hi = group_end(set, lo);
        double *c = malloc(sizeof(double) * (size_t)hi); /* by row, as pick() reads it */
        int fastest = lo;
        for (int r = lo; r < hi; r++) {
            c[r] = dot(p, set->rows[r].terms);
            fastest = set->rows[r].us < set->rows[fastest].us ? r : fastest;
        }
        int k = pick(set, lo, hi, c);
        fprintf(out, "%s%s:", prefix, set->rows[lo].group);
        for (int r = lo; r < hi; r++)
            fprintf(out, " %s %.2f/%.2f", set->rows[r].algo, set->rows[r].us, c[r]);
        fprintf(out, " us (measured/modeled); picks %s (%.3fx the fastest, %s)\n",
                set->rows[k].algo, set->rows[k].us / set->rows[fastest].us,
                set->rows[fastest].algo);
        free(c);
    }
}
