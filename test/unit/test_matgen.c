/* Unit tests of the test-matrix generator (src/tools/matgen.c): determinism
 * and shape of the generated matrices, rejection of bad specs, partition
 * balance, the communication graph against a brute-force count, the halo
 * column lists, and the Matrix Market / edge-list readers on the small
 * files in test/unit/data (found through $srcdir). */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"
#include "tools/matgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char datadir[4096];

static int same_csr(const nh_csr *a, const nh_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz)
        return 0;
    return !memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof(long)) &&
           !memcmp(a->col, b->col, (size_t)a->nnz * sizeof(int)) &&
           !memcmp(a->val, b->val, (size_t)a->nnz * sizeof(double));
}

/* Columns of every row strictly ascending and in range. */
static int well_formed(const nh_csr *m)
{
    if (m->rowptr[0] != 0 || m->rowptr[m->nrows] != m->nnz)
        return 0;
    for (int i = 0; i < m->nrows; i++) {
        if (m->rowptr[i + 1] < m->rowptr[i])
            return 0;
        for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++) {
            if (m->col[e] < 0 || m->col[e] >= m->ncols)
                return 0;
            if (e > m->rowptr[i] && m->col[e] <= m->col[e - 1])
                return 0;
        }
    }
    return 1;
}

static double entry(const nh_csr *m, int i, int j)
{
    for (long e = m->rowptr[i]; e < m->rowptr[i + 1]; e++)
        if (m->col[e] == j)
            return m->val[e];
    return 0.0;
}

static void test_powerlaw(void)
{
    char err[512];
    nh_csr a, b, c;
    const char *spec = "powerlaw:20000:8:2.2:3:7";
    CHECK(nh_matgen(spec, &a, err, sizeof(err)) == 0, "%s: %s", spec, err);
    CHECK(nh_matgen(spec, &b, err, sizeof(err)) == 0, "%s: %s", spec, err);
    CHECK(nh_matgen("powerlaw:20000:8:2.2:3:8", &c, err, sizeof(err)) == 0, "seed 8: %s", err);
    CHECK(same_csr(&a, &b), "same spec, different matrices");
    CHECK(!same_csr(&a, &c), "different seeds, same matrix");
    CHECK(a.nrows == 20000 && a.ncols == 20000, "shape %d x %d", a.nrows, a.ncols);
    CHECK(well_formed(&a), "columns not sorted/unique/in range");
    /* Mean AVGDEG plus the 3 dense columns in every row and 3 full rows. */
    long lo = 20000L * 8 / 2, hi = 20000L * (8 + 3) * 2 + 3L * 20000;
    CHECK(a.nnz >= lo && a.nnz <= hi, "nnz %ld outside [%ld, %ld]", a.nnz, lo, hi);
    long maxlen = 0, full = 0;
    int diag = 1;
    for (int i = 0; i < a.nrows; i++) {
        long l = a.rowptr[i + 1] - a.rowptr[i];
        if (l > maxlen)
            maxlen = l;
        full += l == a.ncols;
        if (entry(&a, i, i) == 0.0)
            diag = 0;
    }
    CHECK(diag, "a row without its diagonal");
    CHECK(full >= 3, "%ld full rows, want the 3 dense ones", full);
    /* Dense columns: index (2k+1) n / (2 DENSE), present in every row. */
    int dc = (int)((1L * 20000) / 6), inall = 1;
    for (int i = 0; i < a.nrows; i++)
        if (entry(&a, i, dc) == 0.0)
            inall = 0;
    CHECK(inall, "dense column %d missing from some row", dc);
    /* Power law: the longest ordinary row far above the mean. */
    long maxord = 0;
    for (int i = 0; i < a.nrows; i++) {
        long l = a.rowptr[i + 1] - a.rowptr[i];
        if (l < a.ncols && l > maxord)
            maxord = l;
    }
    CHECK(maxord > 10 * 8, "longest ordinary row %ld: no heavy tail", maxord);
    nh_csr_free(&a);
    nh_csr_free(&b);
    nh_csr_free(&c);

    CHECK(nh_matgen("powerlaw:1:1:3", &a, err, sizeof(err)) == 0 && a.nnz == 1, "1x1 matrix: %s",
          err);
    nh_csr_free(&a);
}

static void test_rmat(void)
{
    char err[512];
    nh_csr a, b;
    CHECK(nh_matgen("rmat:12:8:3", &a, err, sizeof(err)) == 0, "rmat: %s", err);
    CHECK(nh_matgen("rmat:12:8:3", &b, err, sizeof(err)) == 0, "rmat: %s", err);
    CHECK(same_csr(&a, &b), "rmat not deterministic");
    CHECK(a.nrows == 4096 && a.ncols == 4096, "rmat shape %d x %d", a.nrows, a.ncols);
    CHECK(a.nnz > 4096L * 8 / 2 && a.nnz <= 4096L * 8, "rmat nnz %ld", a.nnz);
    CHECK(well_formed(&a), "rmat columns not sorted/unique");
    /* R-MAT skew: row 0 (quadrant a every level) is the heaviest region. */
    CHECK(a.rowptr[1] - a.rowptr[0] > 8 * 4, "rmat row 0 has only %ld entries",
          a.rowptr[1] - a.rowptr[0]);
    nh_csr_free(&a);
    nh_csr_free(&b);
}

static void expect_error(const char *spec, const char *needle)
{
    char err[512] = "";
    nh_csr m;
    int rc = nh_matgen(spec, &m, err, sizeof(err));
    CHECK(rc == -1, "'%s' accepted", spec);
    CHECK(strstr(err, needle) != NULL, "'%s': message '%s' does not name '%s'", spec, err, needle);
    if (rc == 0)
        nh_csr_free(&m);
}

static void test_bad_specs(void)
{
    expect_error("powerlaw:abc:8:2", "ROWS");
    expect_error("powerlaw:0:8:2", "ROWS");
    expect_error("powerlaw:100:0.5:2", "AVGDEG");
    expect_error("powerlaw:100:8:1", "EXP");
    expect_error("powerlaw:100:8:2x", "EXP");
    expect_error("powerlaw:100:8:2:101", "DENSE");
    expect_error("powerlaw:100:8:2:1:-4", "SEED");
    expect_error("powerlaw:100:8", "fields");
    expect_error("powerlaw:100:8:2:1:1:1", "fields");
    expect_error("rmat:40:16", "SCALE");
    expect_error("rmat:10:0", "EDGEFACTOR");
    expect_error("rmat:10", "fields");
    expect_error("banded:10", "unknown matrix kind");
    expect_error("mtx:/nonexistent/x.mtx", "cannot open");
}

/* Brute force: need[d * n + j] = rows of part d touch column j. */
static void test_comm_graph(const char *spec, int K, const char *how)
{
    char err[512];
    nh_csr m;
    if (nh_matgen(spec, &m, err, sizeof(err))) {
        CHECK(0, "%s: %s", spec, err);
        return;
    }
    int n = m.nrows;
    int *owner = malloc((size_t)n * sizeof(int));
    char *need = calloc((size_t)K * n, 1);
    nh_cgraph g;
    if (nh_partition(&m, K, how, owner, err, sizeof(err))) {
        CHECK(0, "partition %s: %s", how, err);
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (long e = m.rowptr[i]; e < m.rowptr[i + 1]; e++)
            need[(size_t)owner[i] * n + m.col[e]] = 1;
    if (nh_comm_graph(&m, K, owner, &g)) {
        CHECK(0, "%s K=%d: comm graph failed", spec, K);
        goto out;
    }
    long out = 0, in = 0, nout = 0, nin = 0, bad = 0;
    for (int s = 0; s < K; s++) {
        nout += g.outdeg[s];
        nin += g.indeg[s];
        for (int k = 0; k < g.outdeg[s]; k++) {
            out += g.words[s][k];
            bad += g.dst[s][k] == s || (k > 0 && g.dst[s][k] <= g.dst[s][k - 1]);
        }
        for (int k = 0; k < g.indeg[s]; k++) {
            in += g.inwords[s][k];
            bad += g.src[s][k] == s || (k > 0 && g.src[s][k] <= g.src[s][k - 1]);
        }
    }
    CHECK(!bad, "%s K=%d: %ld self edges or unsorted lists", spec, K, bad);
    CHECK(out == in && nout == nin, "%s K=%d: out %ld/%ld words/msgs, in %ld/%ld", spec, K, out,
          nout, in, nin);
    /* Every (s, d) count against the brute force, both sides. */
    long mism = 0, total = 0;
    for (int d = 0; d < K; d++)
        for (int s = 0; s < K; s++) {
            if (s == d)
                continue;
            long w = 0;
            for (int j = 0; j < n; j++)
                w += need[(size_t)d * n + j] && owner[j] == s;
            total += w;
            long gw = 0, gi = 0;
            for (int k = 0; k < g.outdeg[s]; k++)
                if (g.dst[s][k] == d)
                    gw = g.words[s][k];
            for (int k = 0; k < g.indeg[d]; k++)
                if (g.src[d][k] == s)
                    gi = g.inwords[d][k];
            mism += gw != w || gi != w;
        }
    CHECK(!mism && total == out, "%s K=%d %s: %ld pair counts differ from brute force", spec, K,
          how, mism);
    /* Halo lists: what d receives from s is exactly what s sends to d. */
    long **io = calloc((size_t)K, sizeof(long *)), **oo = calloc((size_t)K, sizeof(long *));
    int **rcv = calloc((size_t)K, sizeof(int *)), **snd = calloc((size_t)K, sizeof(int *));
    int ok = 1;
    for (int p = 0; p < K && ok; p++)
        ok = !nh_halo_cols(&m, owner, &g, p, &io[p], &rcv[p], &oo[p], &snd[p]);
    CHECK(ok, "%s K=%d: nh_halo_cols failed", spec, K);
    long hmism = 0;
    for (int d = 0; ok && d < K; d++)
        for (int k = 0; k < g.indeg[d]; k++) {
            int s = g.src[d][k], ks = -1;
            for (int q = 0; q < g.outdeg[s]; q++)
                if (g.dst[s][q] == d)
                    ks = q;
            if (ks < 0 || io[d][k + 1] - io[d][k] != oo[s][ks + 1] - oo[s][ks]) {
                hmism++;
                continue;
            }
            for (long x = 0; x < io[d][k + 1] - io[d][k]; x++) {
                int j = rcv[d][io[d][k] + x];
                hmism += j != snd[s][oo[s][ks] + x] || owner[j] != s || !need[(size_t)d * n + j] ||
                         (x > 0 && j <= rcv[d][io[d][k] + x - 1]);
            }
        }
    CHECK(ok && !hmism, "%s K=%d: %ld halo list mismatches", spec, K, hmism);
    for (int p = 0; p < K; p++) {
        free(io[p]);
        free(oo[p]);
        free(rcv[p]);
        free(snd[p]);
    }
    free(io);
    free(oo);
    free(rcv);
    free(snd);
    nh_cgraph_stats st;
    nh_cgraph_stats_of(&g, &st);
    CHECK(st.mmax <= K - 1 && st.mavg <= st.mmax && st.vavg * K == (double)out,
          "%s K=%d: stats mmax %d mavg %g vavg %g", spec, K, st.mmax, st.mavg, st.vavg);
    nh_cgraph_free(&g);
out:
    free(need);
    free(owner);
    nh_csr_free(&m);
}

static void test_partition(void)
{
    char err[512], path[4200];
    nh_csr m;
    if (nh_matgen("powerlaw:10007:6:2.1:2:5", &m, err, sizeof(err))) {
        CHECK(0, "%s", err);
        return;
    }
    int n = m.nrows, K = 16;
    int *owner = malloc((size_t)n * sizeof(int));
    long cnt[16], nz[16];
    CHECK(nh_partition(&m, K, "rowblock", owner, err, sizeof(err)) == 0, "rowblock: %s", err);
    memset(cnt, 0, sizeof(cnt));
    int contiguous = 1;
    for (int i = 0; i < n; i++) {
        cnt[owner[i]]++;
        contiguous &= i == 0 || owner[i] == owner[i - 1] || owner[i] == owner[i - 1] + 1;
    }
    long mn = n, mx = 0;
    for (int p = 0; p < K; p++) {
        mn = cnt[p] < mn ? cnt[p] : mn;
        mx = cnt[p] > mx ? cnt[p] : mx;
    }
    CHECK(contiguous && mx - mn <= 1, "rowblock: parts of %ld..%ld rows", mn, mx);

    CHECK(nh_partition(&m, K, "nnz", owner, err, sizeof(err)) == 0, "nnz: %s", err);
    memset(nz, 0, sizeof(nz));
    long maxrow = 0;
    contiguous = 1;
    for (int i = 0; i < n; i++) {
        long l = m.rowptr[i + 1] - m.rowptr[i];
        nz[owner[i]] += l;
        maxrow = l > maxrow ? l : maxrow;
        contiguous &= i == 0 || owner[i] >= owner[i - 1];
    }
    long nzmax = 0;
    for (int p = 0; p < K; p++)
        nzmax = nz[p] > nzmax ? nz[p] : nzmax;
    CHECK(contiguous && nzmax <= m.nnz / K + maxrow + 1, "nnz: heaviest part %ld, ideal %ld", nzmax,
          m.nnz / K);

    int mr = nh_partition(&m, K, "metis", owner, err, sizeof(err));
#ifdef NH_HAVE_METIS
    CHECK(mr == 0, "metis: %s", err);
    int inrange = 1;
    for (int i = 0; i < n; i++)
        inrange &= owner[i] >= 0 && owner[i] < K;
    CHECK(inrange, "metis: part out of range");
#else
    CHECK(mr == -1 && strstr(err, "--with-metis"), "metis without libmetis: '%s'", err);
#endif
    CHECK(nh_partition(&m, K, "spectral", owner, err, sizeof(err)) == -1 && strstr(err, "rowblock"),
          "unknown method: '%s'", err);
    CHECK(nh_partition(&m, 0, "rowblock", owner, err, sizeof(err)) == -1, "K = 0 accepted");

    /* file: one part per line; then one with a bad line. */
    snprintf(path, sizeof(path), "/tmp/nh_test_matgen_%d.part", (int)getpid());
    FILE *fp = fopen(path, "w");
    if (fp) {
        fprintf(fp, "# parts\n");
        for (int i = 0; i < n; i++)
            fprintf(fp, "%d\n", (i * 7) % K);
        fclose(fp);
        char how[4300];
        snprintf(how, sizeof(how), "file:%s", path);
        CHECK(nh_partition(&m, K, how, owner, err, sizeof(err)) == 0 && owner[3] == 21 % K,
              "file: %s", err);
        CHECK(nh_partition(&m, 4, how, owner, err, sizeof(err)) == -1 && strstr(err, ":3:"),
              "file with parts >= K: '%s'", err);
        fp = fopen(path, "w");
        fprintf(fp, "0\n1\n");
        fclose(fp);
        CHECK(nh_partition(&m, K, how, owner, err, sizeof(err)) == -1 && strstr(err, "2 parts"),
              "short file: '%s'", err);
        remove(path);
    }
    free(owner);
    nh_csr_free(&m);
}

static void test_readers(void)
{
    char err[512], spec[4300];
    nh_csr m;
    snprintf(spec, sizeof(spec), "mtx:%s/sym.mtx", datadir);
    if (nh_matgen(spec, &m, err, sizeof(err)) == 0) {
        CHECK(m.nrows == 4 && m.ncols == 4 && m.nnz == 7, "sym.mtx: %d x %d, %ld nonzeros", m.nrows,
              m.ncols, m.nnz);
        CHECK(well_formed(&m), "sym.mtx not well formed");
        CHECK(entry(&m, 0, 1) == -1.5 && entry(&m, 1, 0) == -1.5 && entry(&m, 1, 3) == 0.25 &&
                  entry(&m, 3, 1) == 0.25 && entry(&m, 3, 3) == 10.0 && entry(&m, 2, 2) == 4.0,
              "sym.mtx values wrong");
        nh_csr_free(&m);
    } else {
        CHECK(0, "%s", err);
    }
    snprintf(spec, sizeof(spec), "mtx:%s/general.mtx", datadir);
    if (nh_matgen(spec, &m, err, sizeof(err)) == 0) {
        CHECK(m.nrows == 3 && m.ncols == 5 && m.nnz == 3, "general.mtx: %d x %d, %ld nonzeros",
              m.nrows, m.ncols, m.nnz);
        CHECK(entry(&m, 0, 1) == 2.0 && entry(&m, 2, 4) == 1.0 && entry(&m, 1, 0) == 1.0,
              "general.mtx: duplicate not summed or pattern value not 1");
        nh_cgraph g;
        int own[3] = {0, 0, 1};
        CHECK(nh_comm_graph(&m, 2, own, &g) == -1, "comm graph of a non-square matrix");
        nh_csr_free(&m);
    } else {
        CHECK(0, "%s", err);
    }
    snprintf(spec, sizeof(spec), "mtx:%s/bad.mtx", datadir);
    CHECK(nh_matgen(spec, &m, err, sizeof(err)) == -1 && strstr(err, "bad.mtx:4:"), "bad.mtx: '%s'",
          err);
    snprintf(spec, sizeof(spec), "edges:%s/small.edges", datadir);
    if (nh_matgen(spec, &m, err, sizeof(err)) == 0) {
        CHECK(m.nrows == 4 && m.nnz == 5 && entry(&m, 2, 3) == 1.0 && entry(&m, 3, 0) == 1.0,
              "small.edges: %d rows %ld nonzeros", m.nrows, m.nnz);
        nh_csr_free(&m);
    } else {
        CHECK(0, "%s", err);
    }

    /* Malformed files written here: each error names its line. */
    const struct {
        const char *text, *needle;
    } bad[] = {
        {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "coordinate"},
        {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", "complex"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", ":3: index"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n", "announced 2"},
        {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.0\n2 2 1.0\n", ":4: more"},
        {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n", ":3: entry"},
        {"%%MatrixMarket matrix coordinate real general\n% only comments\n", "no size line"},
        {"not a header\n", ":1:"},
    };
    char path[4200];
    snprintf(path, sizeof(path), "/tmp/nh_test_matgen_%d.mtx", (int)getpid());
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
        FILE *fp = fopen(path, "w");
        if (!fp)
            break;
        fputs(bad[k].text, fp);
        fclose(fp);
        snprintf(spec, sizeof(spec), "mtx:%s", path);
        int rc = nh_matgen(spec, &m, err, sizeof(err));
        CHECK(rc == -1 && strstr(err, bad[k].needle), "malformed mtx %zu: rc %d, '%s' lacks '%s'",
              k, rc, err, bad[k].needle);
        if (rc == 0)
            nh_csr_free(&m);
    }
    remove(path);
}

int main(void)
{
    const char *sd = getenv("srcdir");
    snprintf(datadir, sizeof(datadir), "%s/test/unit/data", sd ? sd : ".");
    test_powerlaw();
    test_rmat();
    test_bad_specs();
    test_partition();
    test_readers();
    test_comm_graph("powerlaw:3000:6:2.0:2:11", 8, "rowblock");
    test_comm_graph("powerlaw:3000:6:2.0:2:11", 13, "nnz");
    test_comm_graph("rmat:11:6:2", 16, "rowblock");
    test_comm_graph("powerlaw:500:4:2.5:0:1", 1, "rowblock");
    test_comm_graph("powerlaw:5:2:2.5:1:1", 8, "rowblock");
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
