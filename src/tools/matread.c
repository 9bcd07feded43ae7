/* Matrix readers: Matrix Market coordinate files and plain edge lists
 * (the file: and edges: specs of matgen.h). */
#define _POSIX_C_SOURCE 200809L
#include "matgen_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- readers ---- */

int nh_read_mtx(const char *path, nh_csr *out, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        nh_mat_seterr(err, errlen, "mtx: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0;
    triplets t = {0};
    char obj[64], fmt[64], field[64], sym[64];
    if (getline(&line, &lcap, fp) < 0) {
        nh_mat_seterr(err, errlen, "mtx: %s: empty file", path);
        goto done;
    }
    lineno = 1;
    if (sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field, sym) != 4) {
        nh_mat_seterr(err, errlen,
                      "mtx: %s:1: expected '%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'",
                      path);
        goto done;
    }
    for (char *p = obj; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = fmt; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = field; *p; p++)
        *p = (char)(*p | 0x20);
    for (char *p = sym; *p; p++)
        *p = (char)(*p | 0x20);
    if (strcmp(obj, "matrix") || strcmp(fmt, "coordinate")) {
        nh_mat_seterr(err, errlen, "mtx: %s:1: only 'matrix coordinate' is supported, got '%s %s'",
                      path, obj, fmt);
        goto done;
    }
    int pattern = !strcmp(field, "pattern");
    if (!pattern && strcmp(field, "real") && strcmp(field, "integer")) {
        nh_mat_seterr(err, errlen, "mtx: %s:1: field '%s' not supported (real, integer, pattern)",
                      path, field);
        goto done;
    }
    int mirror = !strcmp(sym, "symmetric") ? 1 : !strcmp(sym, "skew-symmetric") ? -1 : 0;
    if (!mirror && strcmp(sym, "general")) {
        nh_mat_seterr(err, errlen,
                      "mtx: %s:1: symmetry '%s' not supported (general, symmetric, skew-symmetric)",
                      path, sym);
        goto done;
    }
    long nr = -1, nc = -1, nz = -1, got = 0;
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '%' || *p == '\n' || *p == '\r' || !*p)
            continue;
        if (nr < 0) {
            char extra;
            if (sscanf(p, "%ld %ld %ld %c", &nr, &nc, &nz, &extra) != 3 || nr < 1 || nc < 1 ||
                nz < 0 || nr > INT_MAX / 2 || nc > INT_MAX / 2) {
                nh_mat_seterr(err, errlen, "mtx: %s:%ld: expected the size line 'ROWS COLS NNZ'",
                              path, lineno);
                goto done;
            }
            continue;
        }
        long i, j;
        double v = 1.0;
        char *end;
        errno = 0;
        i = strtol(p, &end, 10);
        int ok = end != p;
        p = end;
        j = strtol(p, &end, 10);
        ok = ok && end != p && !errno;
        p = end;
        if (ok && !pattern) {
            v = strtod(p, &end);
            ok = end != p;
            p = end;
        }
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || *p) {
            nh_mat_seterr(err, errlen, "mtx: %s:%ld: expected 'I J%s'", path, lineno,
                          pattern ? "" : " VALUE");
            goto done;
        }
        if (i < 1 || i > nr || j < 1 || j > nc) {
            nh_mat_seterr(err, errlen, "mtx: %s:%ld: index (%ld, %ld) outside 1..%ld x 1..%ld",
                          path, lineno, i, j, nr, nc);
            goto done;
        }
        if (++got > nz) {
            nh_mat_seterr(err, errlen, "mtx: %s:%ld: more entries than the %ld announced", path,
                          lineno, nz);
            goto done;
        }
        if (mirror && j > i) {
            nh_mat_seterr(err, errlen,
                          "mtx: %s:%ld: entry (%ld, %ld) above the diagonal in a %s file", path,
                          lineno, i, j, sym);
            goto done;
        }
        if (nh_trip_add(&t, (int)(i - 1), (int)(j - 1), v) ||
            (mirror && i != j && nh_trip_add(&t, (int)(j - 1), (int)(i - 1), mirror * v))) {
            nh_mat_seterr(err, errlen, "mtx: %s: out of memory", path);
            goto done;
        }
    }
    if (nr < 0) {
        nh_mat_seterr(err, errlen, "mtx: %s: no size line", path);
        goto done;
    }
    if (got < nz) {
        nh_mat_seterr(err, errlen, "mtx: %s:%ld: %ld entries, the size line announced %ld", path,
                      lineno, got, nz);
        goto done;
    }
    if (nh_trip_to_csr(&t, (int)nr, (int)nc, out)) {
        nh_mat_seterr(err, errlen, "mtx: %s: out of memory", path);
        goto done;
    }
    rc = 0;
done:
    nh_trip_free(&t);
    free(line);
    fclose(fp);
    return rc;
}

int nh_read_edges(const char *path, nh_csr *out, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        nh_mat_seterr(err, errlen, "edges: cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    char *line = NULL;
    size_t lcap = 0;
    long lineno = 0, n = 0;
    triplets t = {0};
    while (getline(&line, &lcap, fp) >= 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
            continue;
        char *end;
        errno = 0;
        long i = strtol(p, &end, 10);
        int ok = end != p;
        p = end;
        long j = strtol(p, &end, 10);
        ok = ok && end != p && !errno;
        p = end;
        while (ok && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (!ok || (*p && *p != '#')) {
            nh_mat_seterr(err, errlen, "edges: %s:%ld: expected 'I J' (0-based)", path, lineno);
            goto done;
        }
        if (i < 0 || j < 0 || i >= INT_MAX / 2 || j >= INT_MAX / 2) {
            nh_mat_seterr(err, errlen, "edges: %s:%ld: index out of range (0..%d)", path, lineno,
                          INT_MAX / 2 - 1);
            goto done;
        }
        if (i >= n)
            n = i + 1;
        if (j >= n)
            n = j + 1;
        if (nh_trip_add(&t, (int)i, (int)j, 1.0)) {
            nh_mat_seterr(err, errlen, "edges: %s: out of memory", path);
            goto done;
        }
    }
    if (n == 0) {
        nh_mat_seterr(err, errlen, "edges: %s: no edges", path);
        goto done;
    }
    if (nh_trip_to_csr(&t, (int)n, (int)n, out)) {
        nh_mat_seterr(err, errlen, "edges: %s: out of memory", path);
        goto done;
    }
    rc = 0;
done:
    nh_trip_free(&t);
    free(line);
    fclose(fp);
    return rc;
}
