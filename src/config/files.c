/* Cost and tuning files under MPI: the fingerprint of a run, whether a
 * file's fits it, and reading a file on one rank for all
 * (config/files.h; their text: core/kvfile.c). */
#define _GNU_SOURCE /* dladdr */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "config/files.h"
#include "util/resource.h"

/* The host name with every run of digits made '*': nodes of one cluster
 * (nid001234, node17) share the pattern. */
static void host_pattern(char *out, size_t len)
{
    char name[256] = "";
    size_t n = 0;
    if (gethostname(name, sizeof(name) - 1))
        snprintf(name, sizeof(name), "unknown");
    for (const char *c = name; *c && n + 1 < len; c++) {
        if (isdigit((unsigned char)*c)) {
            if (n == 0 || out[n - 1] != '*')
                out[n++] = '*';
        } else if (isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.') {
            out[n++] = *c;
        }
    }
    out[n] = '\0';
}

static nh_fingerprint run_fp;
static int run_fp_done;

int nh_fingerprint_run(nh_fingerprint *f)
{
    int rc, len, node_rank, mine[2], all[2];
    MPI_Comm node = MPI_COMM_NULL;
    if (run_fp_done) {
        *f = run_fp;
        return MPI_SUCCESS;
    }
    nh_fingerprint x;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    memset(&x, 0, sizeof(x));
    if ((rc = nh_mpi_Get_library_version(lib, &len)))
        return rc;
    nh_fingerprint_value(x.mpi, sizeof(x.mpi), lib, strcspn(lib, "\r\n"));
    host_pattern(x.host, sizeof(x.host));
    if ((rc = nh_mpi_Comm_size(MPI_COMM_WORLD, &x.ranks)))
        return rc;
    if (nh_node_size > 0) { /* NHOOD_NODE_SIZE: the nodes the run pretends */
        x.ranks_per_node = nh_node_size < x.ranks ? nh_node_size : x.ranks;
        x.nodes = (x.ranks + x.ranks_per_node - 1) / x.ranks_per_node;
    } else {
        if ((rc = nh_comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, &node)) ||
            (rc = nh_mpi_Comm_rank(node, &node_rank)))
            goto cleanup;
        if ((rc = nh_mpi_Comm_size(node, &mine[1])))
            goto cleanup;
        /* the node count (leaders), then the largest node */
        mine[0] = node_rank == 0;
        if ((rc = nh_mpi_Allreduce(&mine[0], &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) ||
            (rc = nh_mpi_Allreduce(&mine[1], &all[1], 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD)))
            goto cleanup;
        x.nodes = all[0];
        x.ranks_per_node = all[1];
    }
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(x.date, sizeof(x.date), "%Y-%m-%d", &tm);
    run_fp = x;
    run_fp_done = 1;
    *f = x;
cleanup:
    if (node != MPI_COMM_NULL)
        nh_comm_free(&node);
    return rc;
}

int nh_fingerprint_match(const nh_fingerprint *f, const nh_fingerprint *run, char *why,
                         size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1))
        host[0] = '\0';
    if (f->mpi[0] && strcmp(f->mpi, run->mpi) != 0)
        snprintf(why, len, "written under \"%s\", this run has \"%s\"", f->mpi, run->mpi);
    else if (f->host[0] && fnmatch(f->host, host, 0) != 0)
        snprintf(why, len, "written on hosts %s, this is %s", f->host, host);
    else if (f->ranks_per_node > 0 && f->ranks_per_node != run->ranks_per_node)
        snprintf(why, len, "written with %d ranks per node, this run has %d", f->ranks_per_node,
                 run->ranks_per_node);
    else if (f->nodes == 1 && run->nodes > 1)
        snprintf(why, len, "written on one node (nothing measured between nodes), this run has %d",
                 run->nodes);
    else
        return 1;
    return 0;
}

int nh_file_fits(const char *kind, const char *path, const nh_fingerprint *fp, int mismatch,
                 const char *use_says, const char *skip_says, int *use, char *msg, size_t len)
{
    nh_fingerprint run;
    char why[256] = "";
    int rc, fits = 1;
    *use = 0;
    if ((rc = nh_fingerprint_run(&run)))
        return rc;
    if (nh_world_rank == 0)
        fits = nh_fingerprint_match(fp, &run, why, sizeof(why));
    if ((rc = nh_mpi_Bcast(&fits, 1, MPI_INT, 0, MPI_COMM_WORLD)))
        return rc;
    if (!fits && mismatch == NH_MISMATCH_ERROR) {
        snprintf(msg, len, "%s %.300s does not fit this run: %s (NHOOD_MISMATCH=error)", kind,
                 path, why);
        return MPI_ERR_OTHER;
    }
    if (!fits)
        nh_warn("%s %s does not fit this run: %s; %s", kind, path, why,
                mismatch == NH_MISMATCH_SKIP ? skip_says : use_says);
    *use = fits || mismatch == NH_MISMATCH_USE;
    return MPI_SUCCESS;
}

void nh_site_cost_path(char *buf, size_t len)
{
    buf[0] = '\0';
#ifdef NHOOD_SMPI
    (void)len; /* simulated: no installation */
#else
    /* The installation's share/nhood beside this library's lib (make
     * install prefix=DIR moves both; the configured path may not be it),
     * then the configured one. */
    Dl_info info;
    char try[PATH_MAX + 64], real[PATH_MAX];
    if (dladdr((void *)nh_site_cost_path, &info) && info.dli_fname) {
        snprintf(try, sizeof(try), "%s", info.dli_fname);
        char *slash = strrchr(try, '/');
        if (slash) {
            snprintf(slash, sizeof(try) - (size_t)(slash - try), "/../share/nhood/site.cost");
            if (realpath(try, real)) {
                snprintf(buf, len, "%s", real);
                return;
            }
        }
    }
#ifdef NH_PKGDATADIR
    if (access(NH_PKGDATADIR "/site.cost", R_OK) == 0)
        snprintf(buf, len, "%s", NH_PKGDATADIR "/site.cost");
#endif
#endif
}

/* Rank 0's file, up to 1 MiB. */
static long read_file(const char *path, char **text, char *msg, size_t len)
{
    FILE *f = fopen(path, "r");
    long n = -1;
    *text = NULL;
    if (!f) {
        if (errno == ENOENT)
            return -2;
        snprintf(msg, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(1 << 20);
    if (buf) {
        size_t got = fread(buf, 1, (1 << 20) - 1, f);
        if (ferror(f))
            snprintf(msg, len, "%s: %s", path, strerror(errno));
        else if (!feof(f))
            snprintf(msg, len, "%s: larger than 1 MiB", path);
        else if (memchr(buf, '\0', got))
            snprintf(msg, len, "%s: not a text file", path);
        else
            n = (long)got;
    } else {
        snprintf(msg, len, "%s: out of memory", path);
    }
    fclose(f);
    if (n < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *text = buf;
    return n;
}

int nh_file_bcast(const char *path, char **text, char *msg, size_t len)
{
    int rank, rc;
    long n = 0;
    char *buf = NULL;
    *text = NULL;
    if ((rc = nh_mpi_Comm_rank(MPI_COMM_WORLD, &rank)))
        return rc;
    if (rank == 0)
        n = read_file(path, &buf, msg, len);
    /* -2: no such file, -1: unreadable (rank 0's message travels too) */
    char head[sizeof(long) + 256];
    memcpy(head, &n, sizeof(long));
    snprintf(head + sizeof(long), 256, "%s", rank == 0 && n == -1 ? msg : "");
    if ((rc = nh_mpi_Bcast(head, (int)sizeof(head), MPI_BYTE, 0, MPI_COMM_WORLD)))
        goto cleanup;
    memcpy(&n, head, sizeof(long));
    if (n == -2)
        goto cleanup;
    if (n == -1) {
        snprintf(msg, len, "%s", head + sizeof(long));
        rc = MPI_ERR_FILE;
        goto cleanup;
    }
    if (rank != 0 && !(buf = malloc((size_t)n + 1))) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    if ((rc = nh_mpi_Bcast(buf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD)))
        goto cleanup;
    buf[n] = '\0';
    *text = buf;
    buf = NULL;
cleanup:
    free(buf);
    return rc;
}
