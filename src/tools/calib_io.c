/* nhood-calibrate's files: the cost file it writes (docs/tuning.md), and
 * the calls it measured (--rows), from which --refit fits again without
 * measuring. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"

/* Rows file: "# measured" with the measured parameters, the eager limit,
 * the ring size and the tiers; "# links" the links each tier's link
 * stands for and the gateway flag (--tiers, --gateway; a file without
 * the line: one link each, no gateway); "# spread" their spreads;
 * "# step" the fit's resolution; "# note" lines with the measurements'
 * comments; "# fingerprint" lines; then CSV rows
 * set,group,algorithm,us,phases and each phase's counts (as many
 * columns as parameters, phase after phase). */
int cal_rows_write(const char *path, const cal_result *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# measured");
    for (int i = 0; i < CAL_NPARAM; i++)
        fprintf(f, ",%.9g", r->measured[i]);
    fprintf(f, ",%.0f,%.0f", r->eager, r->ring);
    for (int k = 0; k < NH_NET_TIERS; k++)
        fprintf(f, ",%.0f", r->tier[k]);
    fprintf(f, "\n# links");
    for (int k = 0; k < NH_NET_TIERS; k++)
        fprintf(f, ",%.0f", r->tier_links[k]);
    fprintf(f, ",%d\n# spread", r->gateway);
    for (int i = 0; i < CAL_NPARAM; i++)
        fprintf(f, ",%.4g", r->spread[i]);
    fprintf(f, "\n# step,%g\n", r->step);
    for (const char *l = r->notes; *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(f, "# note %.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
    for (const char *l = r->fingerprint; *l;) {
        size_t n = strcspn(l, "\n");
        fprintf(f, "# fingerprint %.*s\n", (int)n, l);
        l += n + (l[n] == '\n');
    }
    fprintf(f, "set,group,algorithm,us,phases");
    for (int i = 0; i < CAL_NPARAM; i++)
        fprintf(f, ",%s", nh_cost_params[i].key);
    fprintf(f, ",...\n");
    const cal_set *sets[2] = {&r->train, &r->valid};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < sets[k]->n; j++) {
            const cal_row *w = &sets[k]->rows[j];
            fprintf(f, "%s,%s,%s,%.6g,%d", k ? "validation" : "training", w->group, w->algo,
                    w->us, w->nph);
            for (int ph = 0; ph < w->nph; ph++)
                for (int i = 0; i < CAL_NPARAM; i++)
                    fprintf(f, ",%.9g", w->ph[ph][i]);
            fprintf(f, "\n");
        }
    return fclose(f);
}

static void append(char *buf, size_t len, const char *s)
{
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s\n", s);
}

int cal_rows_read(const char *path, cal_result *r)
{
    FILE *f = fopen(path, "r");
    char line[16384];
    int rc = -1, lineno = 0;
    if (!f)
        return -1;
    for (int i = 0; i < CAL_NPARAM; i++)
        r->spread[i] = -1; /* unless the file has them */
    while (fgets(line, sizeof(line), f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "# measured,", 11) == 0) {
            char *c = line + 10;
            for (int i = 0; i <= CAL_NPARAM + 1 + NH_NET_TIERS && c && *c == ','; i++) {
                double x = strtod(c + 1, &c);
                if (i < CAL_NPARAM)
                    r->measured[i] = x;
                else if (i == CAL_NPARAM)
                    r->eager = x;
                else if (i == CAL_NPARAM + 1)
                    r->ring = x;
                else
                    r->tier[i - CAL_NPARAM - 2] = x;
            }
        } else if (strncmp(line, "# links,", 8) == 0) {
            char *c = line + 7;
            for (int i = 0; i <= NH_NET_TIERS && c && *c == ','; i++) {
                double x = strtod(c + 1, &c);
                if (i < NH_NET_TIERS)
                    r->tier_links[i] = x;
                else
                    r->gateway = x != 0;
            }
        } else if (strncmp(line, "# spread,", 9) == 0) {
            char *c = line + 8;
            for (int i = 0; i < CAL_NPARAM && c && *c == ','; i++)
                r->spread[i] = strtod(c + 1, &c);
        } else if (strncmp(line, "# step,", 7) == 0) {
            r->step = strtod(line + 7, NULL);
        } else if (strncmp(line, "# note ", 7) == 0) {
            append(r->notes, sizeof(r->notes), line + 7);
        } else if (strncmp(line, "# fingerprint ", 14) == 0) {
            append(r->fingerprint, sizeof(r->fingerprint), line + 14);
        } else if (strncmp(line, "set,", 4) == 0) {
            /* the parameters the counts are columns of: this build's? */
            char want[1024] = "set,group,algorithm,us,phases";
            for (int i = 0; i < CAL_NPARAM; i++) {
                size_t n = strlen(want);
                snprintf(want + n, sizeof(want) - n, ",%s", nh_cost_params[i].key);
            }
            if (strcmp(line, strcat(want, ",...")) != 0) {
                fprintf(stderr,
                        "nhood-calibrate: %s, line %d: the counts are of other parameters "
                        "(another nhood's --rows); measure again\n",
                        path, lineno);
                rc = -2;
                goto cleanup;
            }
        } else if (line[0] && line[0] != '#') {
            static cal_row w;
            char *set = strtok(line, ","), *group = strtok(NULL, ","), *algo = strtok(NULL, ",");
            char *c = strtok(NULL, "");
            memset(&w, 0, sizeof(w));
            if (!set || !group || !algo || !c)
                goto cleanup;
            snprintf(w.group, sizeof(w.group), "%s", group);
            snprintf(w.algo, sizeof(w.algo), "%s", algo);
            w.us = strtod(c, &c);
            if (*c != ',')
                goto cleanup;
            w.nph = (int)strtol(c + 1, &c, 10);
            if (w.nph < 1 || w.nph > CAL_MAXPH)
                goto cleanup;
            for (int ph = 0; ph < w.nph; ph++)
                for (int i = 0; i < CAL_NPARAM; i++) {
                    if (*c != ',')
                        goto cleanup;
                    w.ph[ph][i] = strtod(c + 1, &c);
                }
            if (cal_set_add(strcmp(set, "validation") == 0 ? &r->valid : &r->train, &w))
                goto cleanup;
        }
    }
    rc = r->train.n > 0 ? 0 : -1;
cleanup:
    if (rc == -1)
        fprintf(stderr, "nhood-calibrate: %s, line %d: not a file of --rows\n", path, lineno);
    fclose(f);
    return rc ? -1 : 0;
}

int cal_finish(cal_result *r, const char *out, const char *how)
{
    double *p = r->fitted;
    memcpy(p, r->measured, sizeof(r->measured));
    cal_fit(p, &r->train, r->step > 0 ? r->step : 0.005, stderr);
    cal_score tr, va, va0;
    cal_evaluate(p, &r->train, 0.03, &tr);
    cal_evaluate(p, &r->valid, 0.03, &va);
    cal_evaluate(r->measured, &r->valid, 0.03, &va0);
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return -1;
    }
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fprintf(f,
            "nhood-cost 2\n# nhood's cost model fitted to this machine by nhood-calibrate%s, %s\n"
            "# (docs/tuning.md: the workflow and this format)\n",
            how, date);
    fputs(r->fingerprint, f);
    for (int i = 0; i < CAL_NPARAM; i++)
        fprintf(f, "%s = %.6g\n", nh_cost_params[i].key, p[i]);
    fprintf(f, "eager = %.0f\n", r->eager);
    if (r->ring > 0)
        fprintf(f, "ring = %.0f\n", r->ring);
    for (int k = 0; k < NH_NET_TIERS; k++)
        if (r->tier[k] > 0)
            fprintf(f, "tier%d = %.0f\n", k + 1, r->tier[k]);
    for (int k = 0; k < NH_NET_TIERS; k++)
        if (r->tier[k] > 0 && r->tier_links[k] > 1)
            fprintf(f, "tier%d_links = %.0f\n", k + 1, r->tier_links[k]);
    if (r->gateway)
        fprintf(f, "tier3_gateway = 1\n");
    fprintf(f, "# each measured parameter's spread over the repetitions, (max - min) / median\n");
    for (int i = 0; i < CAL_NPARAM; i++)
        if (r->spread[i] >= 0 && nh_cost_params[i].group >= 0 && nh_cost_params[i].group < 3)
            fprintf(f, "validation.spread.%s = %.3f\n", nh_cost_params[i].key, r->spread[i]);
    fprintf(f, "# stage and fwd (store-and-forward) keep nhood's defaults: fitted to\n"
               "# simulated runs of hundreds of ranks (docs/simulation.md); core is\n"
               "# nhood's default too (ranks beyond one per core, docs/algorithms.md)\n");
    fprintf(f,
            "validation.train_groups = %d\nvalidation.train_picks_fastest = %d\n"
            "validation.train_worst_ratio = %.3f\n",
            tr.groups, tr.hits, tr.worst);
    fprintf(f,
            "validation.groups = %d\nvalidation.picks_fastest = %d\n"
            "validation.worst_ratio = %.3f\nvalidation.mean_ratio = %.3f\n"
            "validation.median_error = %.3f\nvalidation.measured_only_picks_fastest = %d\n",
            va.groups, va.hits, va.worst, va.mean, va.err_med, va0.hits);
    fprintf(f, "# measurements\n%s", r->notes);
    fprintf(f, "# validation (other neighborhoods): modeled with the fitted parameters\n");
    cal_print_table(f, p, &r->valid, "# ");
    fprintf(f, "# training\n");
    cal_print_table(f, p, &r->train, "# ");
    if (fclose(f)) {
        perror(out);
        return -1;
    }
    fprintf(stderr,
            "nhood-calibrate: wrote %s: on %d validation cases auto's model picks the fastest "
            "(within 3 %%) in %d, worst %.3fx the fastest, median error of the modeled times "
            "%.0f %%\n",
            out, va.groups, va.hits, va.worst, 100 * va.err_med);
    return 0;
}
