/* Fuzz target: the cost file's parser (core/kvfile.c: nh_kv_parse, the
 * fingerprint lines, nh_cost_file_parse) on any text, as every rank of
 * every job reads a site's file.  Beyond no crash, no undefined
 * behaviour and no leak:
 *   - a rejected text's message names a line of it, the one at fault
 *     (fz_check_rejected);
 *   - an accepted text sets each parameter or leaves it as it was: parsed
 *     from two different starting points, a parameter either comes out
 *     the same from both or as each started (format 1 without o_recv: 0);
 *   - an accepted text written back as a cost file (the format line, the
 *     fingerprint as nhood writes one, every parameter at full precision)
 *     parses to the same fingerprint and parameters. */
#include <math.h>

#include "fuzz_text.h"

static nh_cost base1, base2;

static int parse1(const char *text, char *msg, size_t len)
{
    nh_cost c;
    nh_fingerprint fp;
    return nh_cost_file_parse(text, FZ_NAME, &base1, &c, &fp, msg, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = fz_text(data, size), msg[1024], msg2[1024];
    nh_cost c1, c2, c3;
    nh_fingerprint fp1, fp2, fp3, fpw;
    base1 = base2 = nh_cost_defaults;
    for (int i = 0; i < nh_cost_nparams; i++) /* another start: each parameter 1000 + i */
        *nh_cost_at(&base2, &nh_cost_params[i]) = 1000 + i;
    int rc1 = nh_cost_file_parse(t, FZ_NAME, &base1, &c1, &fp1, msg, sizeof(msg));
    int rc2 = nh_cost_file_parse(t, FZ_NAME, &base2, &c2, &fp2, msg2, sizeof(msg2));
    if (rc1 != rc2 || (rc1 && strcmp(msg, msg2) != 0))
        FZ_FAIL("the starting parameters changed the verdict: \"%s\" against \"%s\"",
                rc1 ? msg : "accepted", rc2 ? msg2 : "accepted");
    if (rc1) {
        fz_check_rejected(t, msg, parse1);
        free(t);
        return 0;
    }
    if (fp1.version < 1 || fp1.version > NH_COST_VERSION || !fz_fp_eq(&fp1, &fp2))
        FZ_FAIL("accepted with format version %d", fp1.version);
    for (int i = 0; i < nh_cost_nparams; i++) {
        const nh_cost_param *p = &nh_cost_params[i];
        double a = *nh_cost_at(&c1, p), b = *nh_cost_at(&c2, p);
        int kept = a == *nh_cost_at(&base1, p) && b == *nh_cost_at(&base2, p);
        int v1_recv = fp1.version == 1 && strcmp(p->key, "o_recv") == 0 && a == 0 && b == 0;
        /* late, unless the file names it, takes the o each parse ends with */
        int late_o = strcmp(p->key, "late") == 0 && a == c1.o && b == c2.o;
        if (!(a == b || kept || v1_recv || late_o))
            FZ_FAIL("%s: %g from the defaults, %g from another start", p->key, a, b);
        if (!(a >= 0) || !isfinite(a))
            FZ_FAIL("%s: %g accepted", p->key, a);
    }
    /* written back (as nhood-calibrate writes it, at full precision) */
    fz_out o;
    fz_open(&o);
    fpw = fz_fp_written(&fp1);
    fprintf(o.f, NH_COST_MAGIC " %d\n# written back\n", fp1.version);
    nh_fingerprint_write(o.f, &fpw);
    for (int i = 0; i < nh_cost_nparams; i++)
        fprintf(o.f, "%s = %.17g\n", nh_cost_params[i].key, *nh_cost_at(&c1, &nh_cost_params[i]));
    char *back = fz_close(&o);
    if (nh_cost_file_parse(back, FZ_NAME, &base2, &c3, &fp3, msg, sizeof(msg)))
        FZ_FAIL("written back, rejected: %s\n--- input:\n%s\n--- written:\n%s", msg, t, back);
    if (!fz_fp_eq(&fpw, &fp3))
        FZ_FAIL("fingerprint changed when written back: mpi \"%s\"/\"%s\" host \"%s\"/\"%s\" "
                "date \"%s\"/\"%s\" ranks %d/%d per node %d/%d nodes %d/%d version %d/%d",
                fpw.mpi, fp3.mpi, fpw.host, fp3.host, fpw.date, fp3.date, fpw.ranks, fp3.ranks,
                fpw.ranks_per_node, fp3.ranks_per_node, fpw.nodes, fp3.nodes, fpw.version,
                fp3.version);
    for (int i = 0; i < nh_cost_nparams; i++) {
        const nh_cost_param *p = &nh_cost_params[i];
        if (*nh_cost_at(&c1, p) != *nh_cost_at(&c3, p))
            FZ_FAIL("%s: %.17g read, %.17g when written back", p->key, *nh_cost_at(&c1, p),
                    *nh_cost_at(&c3, p));
    }
    free(back);
    free(t);
    return 0;
}
