/* nhood-calibrate's fit (src/tools/calib_fit.c) on synthetic training
 * calls whose times are the model's under known parameters: started from
 * parameters whose groups are off by factors of 10 to 30 in both
 * directions (so that the model picks a slower candidate somewhere), the
 * fit must find ones with which it picks the fastest candidate of every
 * call, and recover the parameters within the grid's resolution (2^(1/4)
 * per group, then a common scale); the evaluation and the table must say
 * so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/calib.h"

int main(void)
{
    /* true parameters: alpha o beta gamma pack gather gather_small delta rndv node link core */
    const double truth[CAL_NPARAM] = {0.8, 0.2, 1e-4, 2e-5, 3e-5, 1e-4, 8e-4, 0.02, 3.0, 0, 0, 0};
    static const char *const algos[3] = {"direct", "torus", "torus_direct"};
    cal_set train = {0};
    int fails = 0;
    /* groups: a block size m; candidates differ in phases, messages and bytes */
    const double sizes[] = {8, 64, 512, 4096, 32768, 262144};
    for (int i = 0; i < 6; i++) {
        double m = sizes[i];
        const double shape[3][3] = {{1, 26, 26}, {3, 6, 54}, {3, 6, 42}}; /* phases, msgs, blocks */
        for (int a = 0; a < 3; a++) {
            cal_row r;
            memset(&r, 0, sizeof(r));
            snprintf(r.group, sizeof(r.group), "alltoall m=%g", m);
            snprintf(r.algo, sizeof(r.algo), "%s", algos[a]);
            r.terms[0] = shape[a][0];
            r.terms[1] = shape[a][1];
            r.terms[2] = shape[a][2] * m;
            r.terms[4] = a ? 2 * shape[a][2] * m : 0; /* combined messages are packed */
            r.terms[8] = m > 8192 ? shape[a][1] : 0;
            r.us = 0;
            for (int k = 0; k < CAL_NPARAM; k++)
                r.us += truth[k] * r.terms[k];
            if (cal_set_add(&train, &r))
                return 1;
        }
    }
    double p[CAL_NPARAM];
    memcpy(p, truth, sizeof(p));
    p[0] *= 0.05; /* per phase, per message (with rndv), per byte copied */
    p[1] *= 30;
    p[8] *= 30;
    for (int k = 3; k <= 7; k++)
        p[k] *= 0.1;
    cal_score before, after;
    cal_evaluate(p, &train, 0, &before);
    cal_fit(p, &train, 0.005, stdout);
    cal_evaluate(p, &train, 0, &after);
    printf("before: %d of %d groups fastest, worst %.3f; after: %d, worst %.3f, median error %.3f\n",
           before.hits, before.groups, before.worst, after.hits, after.groups == 6 ? after.worst : -1,
           after.err_med);
    if (before.hits == before.groups) {
        fprintf(stderr, "the wrong parameters already pick the fastest: the test tests nothing\n");
        fails++;
    }
    if (after.groups != 6 || after.hits != 6 || after.worst > 1.0001) {
        fprintf(stderr, "the fit does not pick the fastest everywhere\n");
        fails++;
    }
    const int fitted[] = {0, 1, 2, 4, 8};
    for (int i = 0; i < 5; i++) {
        int k = fitted[i];
        double rel = fabs(p[k] / truth[k] - 1);
        printf("%s: %.4g (true %.4g)\n", nh_cost_params[k].key, p[k], truth[k]);
        if (rel > 0.15) {
            fprintf(stderr, "%s is %.0f %% off\n", nh_cost_params[k].key, 100 * rel);
            fails++;
        }
    }
    if (after.err_med > 0.05) {
        fprintf(stderr, "modeled times %.0f %% off\n", 100 * after.err_med);
        fails++;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    cal_print_table(mem, p, &train, "# ");
    fclose(mem);
    if (!buf || !strstr(buf, "# alltoall m=8: direct ") || !strstr(buf, "picks ")) {
        fprintf(stderr, "the table lacks its rows\n");
        fails++;
    }
    free(buf);
    free(train.rows);
    printf("%s\n", fails ? "FAIL" : "PASS");
    return fails != 0;
}
