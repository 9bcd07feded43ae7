/* nhood-calibrate's fit: the parameters with which auto picks the fastest.
 *
 * The model prices message phases (core/model.h), and nhood-calibrate
 * measures what pins each parameter of a phase: the send overhead from
 * posting alone, the receive overhead and the latency from exchanges of 1
 * to 32 messages, the per-byte time from their sizes, rendezvous and the
 * node terms from ping-pongs.  Those stay as measured, so that a quick
 * fit and a full one give the same machine the same parameters
 * (docs/tuning.md).  What micro-benchmarks measure least well is the cost
 * of local work inside a real schedule (caches, MPI's datatype engine,
 * nhood's own engine): the fit scales the copies' group (gamma, pack,
 * gather, gather_small, delta) by one factor on a grid (2^(k/4) from 1/64
 * to 64, and 0) and sets the call's cost (0, or 0.01 to 10 us), keeping
 * the pair
 * with which the model picks the measured fastest candidate of every
 * training call, or comes closest (least worst ratio picked / fastest,
 * in steps of `step`: the measurements' noise), and among those the one
 * whose modeled times have the least rms relative error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "core/sched.h"

enum { COPIES = 3, CALL = 4 }; /* the fitted groups (core/model.h) */

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

/* The line through (x[d - 1], t[d]), d = 1 .. n - 1: its slope *b and
 * squared error; -1 where it does not grow over the nodes by more than
 * noise times t[1] (no distance to see). */
static double dist_line(const double *x, const double *t, int n, double noise, double *b)
{
    double a, sse = 0, far = 0;
    cal_line_fit(x, t + 1, n - 1, &a, b); /* t[1 .. n - 1] */
    for (int d = 0; d < n - 1; d++) {
        sse += (a + *b * x[d] - t[d + 1]) * (a + *b * x[d] - t[d + 1]);
        far = x[d] > far ? x[d] : far;
    }
    return *b > 0 && *b * far > noise * t[1] ? sse : -1;
}

void cal_dist_fit(const double *t, int n, double noise, const int *given, double *hop, nh_net *net)
{
    double best = -1, x[1024], b;
    int up;
    *hop = 0;
    memset(net, 0, sizeof(*net));
    if (n < 3 || n > 1024)
        return;
    if (given && given[0] > 0) { /* the tiers are known: the latency per tier */
        nh_net g = {0, {given[0], given[1], given[2]}, {0, 0, 0}, 0};
        for (int d = 1; d < n; d++) /* hops beyond the first, as the model counts them */
            x[d - 1] = nh_tier_hops(&g, 0, d) - 1;
        if (dist_line(x, t, n, noise, &b) >= 0) {
            *hop = b;
            *net = g;
        }
        return;
    }
    for (int R = n; R >= 2; R--) { /* ties to the larger ring */
        for (int d = 1; d < n; d++)
            x[d - 1] = nh_node_hops(0, d, R, &up) - 1;
        double sse = dist_line(x, t, n, noise, &b);
        if (sse >= 0 && (best < 0 || sse < best * (1 - 1e-9))) {
            best = sse;
            *hop = b;
            net->ring = R;
        }
    }
    /* One tier of T nodes (a dragonfly's router): a step at node T, and
     * flat beyond it, as no ring gives; taken where it fits clearly
     * better (a tenth of the ring's error, or none where the ring has some). */
    double tbest = -1, thop = 0;
    int T0 = 0;
    for (int T = 2; T < n; T++) {
        nh_net one = {0, {T, 0, 0}, {0, 0, 0}, 0};
        for (int d = 1; d < n; d++)
            x[d - 1] = nh_tier_hops(&one, 0, d) - 1;
        double sse = dist_line(x, t, n, noise, &b);
        if (sse >= 0 && (tbest < 0 || sse < tbest * (1 - 1e-9))) {
            tbest = sse;
            thop = b;
            T0 = T;
        }
    }
    if (T0 && (best < 0 || tbest < 0.1 * best)) {
        *hop = thop;
        net->ring = 0;
        net->tier[0] = T0;
    }
}

/* The receive overhead that best fits latency L (relative least squares),
 * into *o_r; returns the error. */
static double phase_err(const double *k, const double *T, int n, double o_s, double L, double *o_r)
{
    double par[CAL_NPARAM] = {0}, c[CAL_NPARAM] = {0}, R[64], num = 0, den = 0, err = 0;
    par[NH_TERM_O] = o_s; /* o_recv 0: the rest of each time is k o_recv */
    par[NH_TERM_ALPHA] = L;
    c[NH_TERM_ALPHA] = 1;
    for (int i = 0; i < n && i < 64; i++) {
        c[NH_TERM_O] = c[NH_TERM_O_RECV] = k[i];
        R[i] = T[i] - nh_cost_phase(par, c, NULL);
        num += k[i] * R[i] / (T[i] * T[i]);
        den += k[i] * k[i] / (T[i] * T[i]);
    }
    *o_r = den > 0 && num > 0 ? num / den : 0;
    for (int i = 0; i < n && i < 64; i++)
        err += (R[i] - k[i] * *o_r) * (R[i] - k[i] * *o_r) / (T[i] * T[i]);
    return err;
}

void cal_phase_fit(const double *k, const double *T, int n, double o_s, double *L, double *o_r)
{
    double tmax = 0, best = -1, lo = 0, hi, o;
    for (int i = 0; i < n; i++)
        tmax = T[i] > tmax ? T[i] : tmax;
    hi = tmax;
    *L = *o_r = 0;
    for (int pass = 0; pass < 3; pass++) { /* L on a grid, finer around the best */
        double step = (hi - lo) / 1000;
        for (int i = 0; i <= 1000; i++) {
            double e = phase_err(k, T, n, o_s, lo + i * step, &o);
            if (best < 0 || e < best) {
                best = e;
                *L = lo + i * step;
                *o_r = o;
            }
        }
        lo = *L - step > 0 ? *L - step : 0;
        hi = *L + step;
    }
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

double cal_cost(const double p[CAL_NPARAM], const cal_row *r)
{
    return nh_cost_phases(p, r->nph, (const double(*)[CAL_NPARAM])r->ph, NULL);
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
        c[r] = cal_cost(p, &set->rows[r]);
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

/* The parameters p with the copies' group scaled by f[0] and the call
 * f[1], into q. */
static void scaled(const double *p, const double f[2], double *q)
{
    for (int i = 0; i < CAL_NPARAM; i++) {
        int g = nh_cost_params[i].group;
        q[i] = g == COPIES ? p[i] * f[0] : g == CALL ? f[1] : p[i];
    }
}

void cal_fit(double p[CAL_NPARAM], const cal_set *train, double step, FILE *log)
{
    int n = train->n;
    if (n == 0)
        return;
    double *c = malloc(sizeof(double) * (size_t)n), q[CAL_NPARAM];
    double best_key[2] = {1e30, 1e30}, best_f[2] = {1, 0};
    /* copies x 2^(k/4), |k| <= 24, or 0; the call 0, or 0.01 us x
     * 2^(k/4) up to about 10 us */
    for (int kc = -25; kc <= 24; kc++)
        for (int kn = -1; kn <= 40; kn++) {
            double f[2] = {kc < -24 ? 0 : pow(2, kc / 4.0), kn < 0 ? 0 : 0.01 * pow(2, kn / 4.0)},
                   err = 0;
            scaled(p, f, q);
            for (int r = 0; r < n; r++) {
                c[r] = cal_cost(q, &train->rows[r]);
                double d = c[r] / train->rows[r].us - 1;
                err += d * d;
            }
            cal_score sc;
            regret(train, c, 0, &sc);
            double key[2] = {round(sc.worst / step), sqrt(err / n)};
            if (key[0] < best_key[0] || (key[0] == best_key[0] && key[1] < best_key[1])) {
                memcpy(best_key, key, sizeof(key));
                memcpy(best_f, f, sizeof(f));
            }
        }
    scaled(p, best_f, q);
    memcpy(p, q, sizeof(q));
    cal_score sc;
    cal_evaluate(p, train, 0.03, &sc);
    if (log)
        fprintf(log,
                "nhood-calibrate: fit over %d training calls in %d groups: copies x %.3g, call "
                "%.3g us, the rest as measured; auto picks the fastest (3 %%) in %d, worst %.3fx, "
                "rms relative error %.0f %%\n",
                n, sc.groups, best_f[0], best_f[1], sc.hits, sc.worst, 100 * best_key[1]);
    free(c);
}

void cal_print_table(FILE *out, const double p[CAL_NPARAM], const cal_set *set, const char *prefix)
{
    for (int lo = 0, hi; lo < set->n; lo = hi) {
        hi = group_end(set, lo);
        double *c = malloc(sizeof(double) * (size_t)hi); /* by row, as pick() reads it */
        int fastest = lo;
        for (int r = lo; r < hi; r++) {
            c[r] = cal_cost(p, &set->rows[r]);
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
