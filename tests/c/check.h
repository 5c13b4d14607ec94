/* Shared by the self-checking test programs: CHECK(cond, fmt, ...) counts
 * a failed check and prints which rank and line it was on. */
#ifndef SMPI_TESTS_CHECK_H
#define SMPI_TESTS_CHECK_H

#include <stdio.h>

static int errors = 0;
static int rank, size;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            errors++;                                     \
            printf("rank %d: line %d: ", rank, __LINE__); \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
        }                                                 \
    } while (0)

#endif
