/* Replays fuzz inputs without libFuzzer: runs the linked target's
 * LLVMFuzzerTestOneInput over every file named on the command line or
 * found in the directories named there (the committed corpus under
 * test/fuzz/corpus/).  A violated invariant aborts the target, so a
 * regression fails `make check`. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static long nfiles;

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0, k;
    uint8_t *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf) {
        fprintf(stderr, "replay: out of memory\n");
        return -1;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    nfiles++;
    return 0;
}

static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "replay: cannot stat %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dir)) && rc == 0) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(len);
        if (!full) {
            rc = -1;
            break;
        }
        snprintf(full, len, "%s/%s", path, e->d_name);
        rc = replay_path(full);
        free(full);
    }
    closedir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i]))
            return 1;
    if (nfiles == 0) {
        fprintf(stderr, "replay: no inputs\n");
        return 1;
    }
    printf("%ld inputs replayed\n", nfiles);
    return 0;
}
