/* The cost and tuning files without MPI (src/core/kvfile.c, tunetext.c):
 * the documented format and its errors, each naming the file and line;
 * the fingerprint's values read back as written; and nh_file_replace, the
 * tuning file's safe write: no temporary file left, the target never
 * opened (a hard link to it keeps the old text, a link at it is replaced,
 * a link planted at the old fixed temporary name is not followed), the
 * umask honoured, and a directory that cannot be written named in the
 * error with the reason. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "core/kvfile.h"
#include "core/tunetext.h"

static char msg[1024];

static int cost(const char *text, nh_cost *c, nh_fingerprint *fp)
{
    nh_cost base = nh_cost_defaults;
    msg[0] = '\0';
    return nh_cost_file_parse(text, "site.cost", &base, c, fp, msg, sizeof(msg));
}

/* text is rejected with a message starting with want. */
static void cost_bad(const char *text, const char *want)
{
    nh_cost c;
    nh_fingerprint fp;
    int rc = cost(text, &c, &fp);
    CHECK(rc == -1 && strncmp(msg, want, strlen(want)) == 0, "cost file %s: rc %d, \"%s\"", want,
          rc, msg);
}

static void test_cost(void)
{
    nh_cost c;
    nh_fingerprint fp;
    CHECK(
        cost("\n# leading comment\nnhood-cost 2\nfingerprint.mpi = MPICH   Version:\t4.0.2\n"
             "fingerprint.host = nid*  # a comment\nfingerprint.ranks = 64\n"
             "fingerprint.ranks_per_node=16\nfingerprint.nodes = 4\nfingerprint.date = 2026-11-27\n"
             "alpha = 0.5\n\to = .25 \nbeta = 2e-4\nvalidation.groups = 8\n",
             &c, &fp) == 0,
        "a valid file: %s", msg);
    CHECK(c.alpha == 0.5 && c.o == 0.25 && c.beta == 2e-4 && c.gamma == nh_cost_defaults.gamma &&
              c.o_recv == nh_cost_defaults.o_recv,
          "values: alpha %g o %g beta %g gamma %g o_recv %g", c.alpha, c.o, c.beta, c.gamma,
          c.o_recv);
    CHECK(strcmp(fp.mpi, "MPICH Version: 4.0.2") == 0 && strcmp(fp.host, "nid*") == 0 &&
              fp.ranks == 64 && fp.ranks_per_node == 16 && fp.nodes == 4 &&
              strcmp(fp.date, "2026-11-27") == 0 && fp.version == 2,
          "fingerprint: \"%s\" \"%s\" %d %d %d \"%s\" version %d", fp.mpi, fp.host, fp.ranks,
          fp.ranks_per_node, fp.nodes, fp.date, fp.version);
    CHECK(c.late == 0.25, "late without a key of its own: the file's o (%g)", c.late);
    CHECK(cost("nhood-cost 2\no = 0.5\nlate = 0.2\n", &c, &fp) == 0 && c.late == 0.2,
          "late named: %g", c.late);
    CHECK(cost("nhood-cost 1\no = 3\n", &c, &fp) == 0 && c.o_recv == 0 && c.o == 3,
          "format 1 without o_recv: o_recv %g (0), %s", c.o_recv, msg);
    CHECK(cost("nhood-cost 2\nhop = 1#2\n", &c, &fp) == -1, "'#' inside a value is no comment");
    /* the documented error, and one per kind of fault, each on its line */
    cost_bad("nhood-cost 2\nfingerprint.host = *\nalfa = 0.3\n",
             "site.cost, line 3: unknown key \"alfa\" (parameters: alpha, o,");
    cost_bad("nhood-cost 2\n\n\nbeta = -1\n",
             "site.cost, line 4: beta = \"-1\": not a non-negative");
    cost_bad("nhood-cost 2\nbeta = 1e400\n", "site.cost, line 2: beta = \"1e400\"");
    cost_bad("nhood-cost 3\n", "site.cost, line 1: format nhood-cost 3 is not known");
    cost_bad("# nothing\n\n", "site.cost, line 1: empty file");
    cost_bad("", "site.cost, line 1: empty file");
    cost_bad("\n\nalpha = 1\n", "site.cost, line 3: the first line must be \"nhood-cost 2\"");
    cost_bad("nhood-cost 2\nalpha 1\n", "site.cost, line 2: expected key = value");
    cost_bad("nhood-cost 2\n = 1\n", "site.cost, line 2: a value without a key");
    cost_bad("nhood-cost 2\nfingerprint.ranks = -4\n",
             "site.cost, line 2: fingerprint.ranks must be a non-negative integer");
    cost_bad("nhood-cost 2\nfingerprint.cpu = x\n",
             "site.cost, line 2: unknown key fingerprint.cpu");
    /* a real file, as nhood-calibrate writes them */
    char path[4096], *text = NULL;
    const char *srcdir = getenv("srcdir");
    snprintf(path, sizeof(path), "%s/platforms/flat.cost", srcdir ? srcdir : ".");
    FILE *f = fopen(path, "r");
    size_t n = 0;
    if (f && (text = calloc(1, 1 << 16)))
        n = fread(text, 1, (1 << 16) - 1, f);
    CHECK(n > 0 && cost(text, &c, &fp) == 0 && fp.ranks == 256 && c.eager == 7936,
          "%s: %s (%zu bytes)", path, msg, n);
    free(text);
    if (f)
        fclose(f);
}

/* The run's fingerprint values read back from a file as they were. */
static void test_fingerprint(void)
{
    static const char *const lib[][2] = {{"MPICH  Version:\t4.0.2 ", "MPICH Version: 4.0.2"},
                                         {"Some MPI 3.1 build #7 (rc)", "Some MPI 3.1 build"},
                                         {"#1 MPI", ""},
                                         {"MPI#1 ok", "MPI#1 ok"}};
    for (size_t i = 0; i < sizeof(lib) / sizeof(lib[0]); i++) {
        nh_fingerprint w = {0}, r;
        nh_fingerprint_value(w.mpi, sizeof(w.mpi), lib[i][0], strlen(lib[i][0]));
        snprintf(w.host, sizeof(w.host), "nid*");
        snprintf(w.date, sizeof(w.date), "2026-11-27");
        w.ranks = 8;
        w.version = 2;
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        fprintf(f, "nhood-cost 2\n");
        nh_fingerprint_write(f, &w);
        fclose(f);
        nh_cost c;
        int rc = cost(text, &c, &r);
        CHECK(strcmp(w.mpi, lib[i][1]) == 0, "\"%s\" as a value: \"%s\"", lib[i][0], w.mpi);
        CHECK(rc == 0 && strcmp(r.mpi, w.mpi) == 0 && strcmp(r.host, w.host) == 0 &&
                  strcmp(r.date, w.date) == 0 && r.ranks == 8,
              "\"%s\" written, read back as \"%s\" (%s)", w.mpi, r.mpi, msg);
        free(text);
    }
}

static void test_tune(void)
{
    const char *good = "nhood-tune 1\nfingerprint.mpi = MPICH Version: 4.0.2\n"
                       "decision = op:alltoall form:blocking ranks:4 dims:2x2 periods:1,1 bytes:8 "
                       "template:0,1;1,0;1,1 algorithm:torus/zcopy "
                       "times_us:direct:7.81,torus:3.62,torus/zcopy:3.10,pmpi:9\n"
                       "decision = algorithm:pmpi template:none bytes:0 periods:0 dims:3 ranks:3 "
                       "form:nonblocking op:allgather\n";
    nh_fingerprint fp;
    nh_tune_entry *l = NULL;
    int rc = nh_tune_parse(good, "app.tune", &fp, &l, msg, sizeof(msg));
    CHECK(rc == 0 && l && l->next && !l->next->next, "a valid tuning file: %s", msg);
    if (rc == 0 && l && l->next) {
        const nh_tune_entry *a = l, *b = l->next;
        CHECK(a->k.op == NH_OP_ALLTOALL && a->k.form == NH_FORM_BLOCKING && a->k.g.ndims == 2 &&
                  a->k.g.size == 4 && a->k.m == 8 && a->k.s == 3 && a->k.off[5] == 1 &&
                  a->d.algo == NH_ALGO_TORUS && a->d.bind == NH_BIND_ZCOPY && a->d.ncand == 4 &&
                  a->d.us[1] == 3.62 && a->d.cbind[1] == NH_BIND_AUTO &&
                  a->d.cand[2] == NH_ALGO_TORUS && a->d.cbind[2] == NH_BIND_ZCOPY &&
                  a->d.cand[3] == NH_ALGO_PMPI,
              "first decision (a candidate with and without a binding)");
        CHECK(b->k.op == NH_OP_ALLGATHER && b->k.form == NH_FORM_NONBLOCKING && b->k.s == 0 &&
                  b->k.g.periods[0] == 0 && b->d.algo == NH_ALGO_PMPI && b->d.ncand == 0,
              "second decision (fields in another order, no times)");
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        nh_tune_write_header(f, &fp);
        for (const nh_tune_entry *e = l; e; e = e->next)
            nh_tune_write_decision(f, &e->k, &e->d);
        fclose(f);
        nh_tune_entry *l2 = NULL;
        CHECK(nh_tune_parse(text, "app.tune", &fp, &l2, msg, sizeof(msg)) == 0 && l2 &&
                  nh_tune_key_eq(&l2->k, &l->k) && l2->next &&
                  nh_tune_key_eq(&l2->next->k, &l->next->k) && l2->d.bind == NH_BIND_ZCOPY &&
                  l2->d.ncand == 4 && l2->d.cbind[2] == NH_BIND_ZCOPY &&
                  l2->d.cbind[1] == NH_BIND_AUTO,
              "written back and read again: %s\n%s", msg, text);
        nh_tune_free(&l2);
        free(text);
    }
    nh_tune_free(&l);
    static const char *const bad[][2] = {
        {"nhood-tune 1\n# line 2\ndecision = op:alltoall form:blocking ranks:2 dims:2 bytes:8\n",
         "app.tune, line 3: decision: no periods: field (needs op form ranks dims periods bytes "
         "template algorithm)"},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:2 dims:2 periods:1 bytes:8 "
         "template:0;1 algorithm:torus\n\n"
         "decision = op:alltoall form:blocking ranks:2 dims:2 periods:1 bytes:8 template:0;1 "
         "algorithm:bruck\n",
         "app.tune, line 4: a second decision for the same key"},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:4 dims:2x2 periods:1,1 bytes:8 "
         "template:0,1;1 algorithm:torus\n",
         "app.tune, line 2: template: entry 2 is not 2 integers"},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:5 dims:2x2 periods:1,1 bytes:8 "
         "template:none algorithm:torus\n",
         "app.tune, line 2: ranks, dims, periods:"},
        {"nhood-tune 1\nalgorithm = torus\n", "app.tune, line 2: unknown key \"algorithm\""},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:2 dims:2 periods:1 bytes:8 "
         "template:none algorithm:pmpi/zcopy\n",
         "app.tune, line 2: algorithm:pmpi/zcopy: not pmpi,"},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:2 dims:2 periods:1 bytes:8 "
         "template:none algorithm:torus times_us:torus/pack:1,torus/pack:2\n",
         "app.tune, line 2: times_us: torus/pack twice"},
        {"nhood-tune 1\ndecision = op:alltoall form:blocking ranks:2 dims:2 periods:1 bytes:8 "
         "template:none algorithm:torus/auto\n",
         "app.tune, line 2: algorithm:torus/auto: not pmpi,"},
        {"nhood-cost 2\n", "app.tune, line 1: the first line must be \"nhood-tune 1\""},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        l = NULL;
        rc = nh_tune_parse(bad[i][0], "app.tune", &fp, &l, msg, sizeof(msg));
        CHECK(rc == -1 && !l && strncmp(msg, bad[i][1], strlen(bad[i][1])) == 0,
              "tuning file error %zu: \"%s\", expected \"%s\"", i, msg, bad[i][1]);
        nh_tune_free(&l);
    }
}

/* ---- nh_file_replace ---- */

static int fill_text(FILE *f, void *ctx)
{
    return fputs(ctx, f) < 0;
}

static int fill_fails(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("half a file", f);
    return -1;
}

static int same_text(const char *path, const char *want)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, want) == 0;
}

/* The names in dir, sorted, joined by spaces. */
static void listing(const char *dir, char *out, size_t len)
{
    struct dirent **e;
    int n = scandir(dir, &e, NULL, alphasort), k = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(e[i]->d_name, ".") != 0 && strcmp(e[i]->d_name, "..") != 0)
            k += snprintf(out + k, len - (size_t)k, "%s%s", k ? " " : "", e[i]->d_name);
        free(e[i]);
    }
    free(e);
}

static void test_replace(const char *dir)
{
    char path[512], other[1024], names[1024];
    struct stat st;
    snprintf(path, sizeof(path), "%s/app.tune", dir);
    snprintf(other, sizeof(other), "%s/other", dir);

    mode_t old = umask(022);
    CHECK(nh_file_replace(path, fill_text, "one\n", msg, sizeof(msg)) == 0, "new file: %s", msg);
    listing(dir, names, sizeof(names));
    CHECK(same_text(path, "one\n") && strcmp(names, "app.tune") == 0, "written, alone: %s", names);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644, "mode %o under umask 022",
          (unsigned)st.st_mode & 07777);
    umask(077);
    /* an existing file is replaced, not rewritten: a hard link keeps the old text */
    CHECK(link(path, other) == 0, "link: %s", strerror(errno));
    CHECK(nh_file_replace(path, fill_text, "two\n", msg, sizeof(msg)) == 0, "replace: %s", msg);
    CHECK(same_text(path, "two\n") && same_text(other, "one\n"),
          "the old file untouched (opened for writing?)");
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600, "mode %o under umask 077",
          (unsigned)st.st_mode & 07777);
    umask(old);
    /* a link at the target is replaced, never written through */
    CHECK(unlink(path) == 0 && symlink(other, path) == 0, "symlink: %s", strerror(errno));
    CHECK(nh_file_replace(path, fill_text, "three\n", msg, sizeof(msg)) == 0, "over a link: %s",
          msg);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && same_text(path, "three\n") &&
              same_text(other, "one\n"),
          "a link at the target was followed");
    /* links planted where a predictable temporary file would be */
    char planted[600];
    snprintf(planted, sizeof(planted), "%s.tmp", path);
    CHECK(symlink(other, planted) == 0, "symlink: %s", strerror(errno));
    CHECK(nh_file_replace(path, fill_text, "four\n", msg, sizeof(msg)) == 0, "beside a link: %s",
          msg);
    CHECK(same_text(path, "four\n") && same_text(other, "one\n"), "a planted link was followed");
    unlink(planted);
    /* a failed write leaves the file as it was and no temporary file */
    CHECK(nh_file_replace(path, fill_fails, NULL, msg, sizeof(msg)) == -1 &&
              strstr(msg, "writing "),
          "a failing write: \"%s\"", msg);
    listing(dir, names, sizeof(names));
    CHECK(same_text(path, "four\n") && strcmp(names, "app.tune other") == 0,
          "after a failed write: %s", names);
    unlink(other);
    unlink(path);
    /* no such directory */
    snprintf(path, sizeof(path), "%s/missing/app.tune", dir);
    snprintf(other, sizeof(other), "cannot create a file in %s/missing: %s", dir, strerror(ENOENT));
    CHECK(nh_file_replace(path, fill_text, "x\n", msg, sizeof(msg)) == -1 &&
              strcmp(msg, other) == 0,
          "no directory: \"%s\"", msg);
}

/* A directory this process may not write: EACCES, named.  As root, in a
 * child that is nobody (root writes anywhere). */
static void test_unwritable(const char *dir)
{
    char sub[512], path[600], want[700];
    snprintf(sub, sizeof(sub), "%s/ro", dir);
    snprintf(path, sizeof(path), "%s/app.tune", sub);
    snprintf(want, sizeof(want), "cannot create a file in %s: %s", sub, strerror(EACCES));
    if (mkdir(sub, 0555) || chmod(sub, 0555) || chmod(dir, 0755)) {
        CHECK(0, "mkdir %s: %s", sub, strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
            _exit(77);
        int rc = nh_file_replace(path, fill_text, "x\n", msg, sizeof(msg));
        if (rc != -1 || strcmp(msg, want) != 0) {
            fprintf(stderr, "unwritable directory: rc %d, \"%s\", expected \"%s\"\n", rc, msg,
                    want);
            _exit(1);
        }
        _exit(access(path, F_OK) == 0 ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77)
        printf("skipped: an unwritable directory (cannot drop root here)\n");
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unwritable directory");
    rmdir(sub);
}

int main(void)
{
    char dir[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/nhood-test-files.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    test_cost();
    test_fingerprint();
    test_tune();
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp: %s", strerror(errno));
    } else {
        test_replace(dir);
        test_unwritable(dir);
        CHECK(rmdir(dir) == 0, "%s left with files in it", dir);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
