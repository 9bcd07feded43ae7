/* The tests' assertion: counts passes and failures, explains failures on
 * stderr (prefixed with check_prefix, e.g. the MPI rank). */
#ifndef NH_TEST_CHECK_H
#define NH_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;
static char check_prefix[32];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            fprintf(stderr, "FAIL %s%s:%d: ", check_prefix, __FILE__, __LINE__);                  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

#endif
