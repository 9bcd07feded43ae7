/* Fuzz target: the tuning file's parser (core/tunetext.c over
 * core/kvfile.c: the decision lines, their fields, templates and times)
 * on any text, as every rank of a job reads the file rank 0 wrote at the
 * last MPI_Finalize.  Beyond no crash, no undefined behaviour and no leak:
 *   - a rejected text's message names a line of it, the one at fault
 *     (fz_check_rejected);
 *   - an accepted text's decisions are well formed: a valid grid whose
 *     size is the rank count, an algorithm a decision may name, distinct
 *     candidates with finite non-negative times, no key twice;
 *   - an accepted text written back as rank 0 writes the file (the
 *     fingerprint as nhood writes one) parses to the same fingerprint and
 *     the same decisions in the same order (the times to the two decimals
 *     written), and writing that again gives the same bytes. */
#include <math.h>

#include "fuzz_text.h"
#include "core/tunetext.h"

static int parse1(const char *text, char *msg, size_t len)
{
    nh_fingerprint fp;
    nh_tune_entry *l = NULL;
    int rc = nh_tune_parse(text, FZ_NAME, &fp, &l, msg, len);
    if (rc && l)
        FZ_FAIL("rejected, yet decisions returned");
    nh_tune_free(&l);
    return rc;
}

static void check_entry(const nh_tune_entry *e, const nh_tune_entry *list)
{
    const nh_tune_key *k = &e->k;
    nh_grid g;
    if (k->op != NH_OP_ALLTOALL && k->op != NH_OP_ALLGATHER)
        FZ_FAIL("op %d", (int)k->op);
    if ((unsigned)k->form >= NH_FORM_COUNT)
        FZ_FAIL("form %d", (int)k->form);
    if (nh_grid_init(&g, k->g.ndims, k->g.dims, k->g.periods) || g.size != k->g.size || g.size < 1)
        FZ_FAIL("grid of %d dimensions, size %d", k->g.ndims, k->g.size);
    if (k->s < 0 || (k->s > 0 && !k->off))
        FZ_FAIL("template of %d entries", k->s);
    if ((unsigned)e->d.algo >= NH_ALGO_COUNT || e->d.algo == NH_ALGO_AUTO ||
        e->d.algo == NH_ALGO_STFW)
        FZ_FAIL("algorithm %d", (int)e->d.algo);
    if ((unsigned)e->d.bind >= NH_BIND_COUNT || (e->d.algo == NH_ALGO_PMPI && e->d.bind))
        FZ_FAIL("binding %d of %s", (int)e->d.bind, nh_algos[e->d.algo].name);
    if (e->d.ncand < 0 || e->d.ncand > NH_TUNE_MAXCAND)
        FZ_FAIL("%d candidates", e->d.ncand);
    for (int i = 0; i < e->d.ncand; i++) {
        nh_algo a = e->d.cand[i];
        nh_binding b = e->d.cbind[i];
        if ((unsigned)a >= NH_ALGO_COUNT || a == NH_ALGO_AUTO || a == NH_ALGO_STFW)
            FZ_FAIL("candidate %d", (int)a);
        if ((unsigned)b >= NH_BIND_COUNT || (a == NH_ALGO_PMPI && b))
            FZ_FAIL("candidate %s with binding %d", nh_algos[a].name, (int)b);
        if (!(e->d.us[i] >= 0) || !isfinite(e->d.us[i]))
            FZ_FAIL("time %g", e->d.us[i]);
        for (int j = 0; j < i; j++)
            if (e->d.cand[j] == a && e->d.cbind[j] == b)
                FZ_FAIL("candidate %s twice", nh_algos[a].name);
    }
    for (const nh_tune_entry *o = list; o != e; o = o->next)
        if (nh_tune_key_eq(&o->k, k))
            FZ_FAIL("a key twice");
}

static char *write_back(const nh_fingerprint *fp, const nh_tune_entry *l)
{
    fz_out o;
    fz_open(&o);
    nh_tune_write_header(o.f, fp);
    for (; l; l = l->next)
        nh_tune_write_decision(o.f, &l->k, &l->d);
    return fz_close(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *t = fz_text(data, size), msg[1024];
    nh_fingerprint fp1, fp2, fpw;
    nh_tune_entry *l1 = NULL, *l2 = NULL;
    if (nh_tune_parse(t, FZ_NAME, &fp1, &l1, msg, sizeof(msg))) {
        if (l1)
            FZ_FAIL("rejected, yet decisions returned");
        fz_check_rejected(t, msg, parse1);
        free(t);
        return 0;
    }
    if (fp1.version != NH_TUNE_VERSION)
        FZ_FAIL("accepted with format version %d", fp1.version);
    for (const nh_tune_entry *e = l1; e; e = e->next)
        check_entry(e, l1);
    fpw = fz_fp_written(&fp1);
    char *back = write_back(&fpw, l1);
    if (nh_tune_parse(back, FZ_NAME, &fp2, &l2, msg, sizeof(msg)))
        FZ_FAIL("written back, rejected: %s\n--- input:\n%s\n--- written:\n%s", msg, t, back);
    if (!fz_fp_eq(&fpw, &fp2))
        FZ_FAIL("fingerprint changed when written back: mpi \"%s\"/\"%s\" host \"%s\"/\"%s\" "
                "date \"%s\"/\"%s\" ranks %d/%d per node %d/%d nodes %d/%d",
                fpw.mpi, fp2.mpi, fpw.host, fp2.host, fpw.date, fp2.date, fpw.ranks, fp2.ranks,
                fpw.ranks_per_node, fp2.ranks_per_node, fpw.nodes, fp2.nodes);
    const nh_tune_entry *a = l1, *b = l2;
    for (int i = 1; a || b; i++, a = a->next, b = b->next) {
        if (!a || !b)
            FZ_FAIL("%s decisions when written back", a ? "fewer" : "more");
        if (!nh_tune_key_eq(&a->k, &b->k) || a->d.algo != b->d.algo || a->d.ncand != b->d.ncand)
            FZ_FAIL("decision %d changed when written back:\n%s", i, back);
        for (int j = 0; j < a->d.ncand; j++)
            if (a->d.cand[j] != b->d.cand[j] ||
                !(fabs(a->d.us[j] - b->d.us[j]) <= 0.005 + 1e-12 * a->d.us[j]))
                FZ_FAIL("decision %d, candidate %d: %s:%.17g written back as %s:%.17g", i, j,
                        nh_algos[a->d.cand[j]].name, a->d.us[j], nh_algos[b->d.cand[j]].name,
                        b->d.us[j]);
    }
    char *again = write_back(&fp2, l2);
    if (strcmp(back, again) != 0)
        FZ_FAIL("written twice, the texts differ:\n%s\n---\n%s", back, again);
    free(again);
    free(back);
    nh_tune_free(&l1);
    nh_tune_free(&l2);
    free(t);
    return 0;
}
