/* Shared by the self-checking test programs: CHECK(cond, fmt, ...) counts
 * a failed check and prints which rank and line it was on. */
#ifndef SMPI_TESTS_CHECK_H
#define SMPI_TESTS_CHECK_H

#include <mpi.h>
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

/* Prints " No Errors" at rank 0 when no rank's check failed (the MPICH
 * test suite's convention). Collective over MPI_COMM_WORLD. */
static inline void report_errors(void) {
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_errors == 0)
        printf(" No Errors\n");
}

#endif
