/* A program written for SimGrid's headers: it includes <smpi/mpi.h> only
 * and uses what SimGrid's mpi.h brings along: the SMPI extensions
 * (smpi_execute_flops_benched with a double argument, SMPI_SAMPLE_*,
 * SMPI_SHARED_*, SMPI_SHARED_CALL, smpi_global_size), struct option from <getopt.h>, and the C library
 * headers (no #include <stdio.h>, <stdlib.h> nor <string.h> here).
 * Run with --cfg=smpi/host-speed:1Gf; prints " No Errors" when every
 * check holds. */
#include "smpi/mpi.h"

static int errors = 0;
static int rank;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            errors++;                                     \
            printf("rank %d: line %d: ", rank, __LINE__); \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
        }                                                 \
    } while (0)

static const struct option long_options[] = {
    {"verbose", no_argument, 0, 'v'},
    {0, 0, 0, 0},
};

static int computed = 0;

/* Computed once in the whole simulation (each rank has its own `computed`
 * under privatization: the sum over ranks counts the calls); the result
 * lives on the heap, which the ranks share. */
static void *square_of(const char *input) {
    computed++;
    int n = atoi(input);
    int *cell = (int *)malloc(sizeof *cell);
    *cell = n * n;
    return cell;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(strcmp(long_options[0].name, "verbose") == 0, "struct option is not getopt's");

    /* 762960000 flops at 1 Gf: 0.76296 s (an integer literal, converted to
     * the double the prototype says). */
    double t0 = MPI_Wtime();
    smpi_execute_flops_benched(762960000);
    double spent = MPI_Wtime() - t0;
    CHECK(spent > 0.76295 && spent < 0.76297, "smpi_execute_flops_benched took %g s", spent);

    t0 = MPI_Wtime();
    smpi_execute_benched(0.5);
    spent = MPI_Wtime() - t0;
    CHECK(spent > 0.49999 && spent < 0.50001, "smpi_execute_benched took %g s", spent);

    int runs = 0;
    SMPI_SAMPLE_GLOBAL(int i = 0, i < 10, i++, 2, -1) {
        runs++;
    }
    CHECK(runs <= 2, "SMPI_SAMPLE_GLOBAL ran its body %d times", runs);
    SMPI_SAMPLE_FLOPS(1e9) {
        CHECK(0, "SMPI_SAMPLE_FLOPS ran its body");
    }

    double *shared = (double *)SMPI_SHARED_MALLOC(1 << 20);
    size_t blocks[] = {0, 4096};
    char *partial = (char *)SMPI_PARTIAL_SHARED_MALLOC(1 << 20, blocks, 1);
    CHECK(shared != NULL && partial != NULL, "shared allocations failed");
    shared[0] = 1.0;
    partial[8192] = 'x';
    SMPI_SHARED_FREE(partial);
    SMPI_SHARED_FREE(shared);

    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(smpi_global_size() == size, "smpi_global_size() is %d, not %d", smpi_global_size(), size);

    /* Rank 0 computes; the others, after the barrier, get its result. */
    int *result = NULL;
    if (rank == 0)
        result = (int *)SMPI_SHARED_CALL(square_of, "12", "12");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        result = (int *)SMPI_SHARED_CALL(square_of, "12", "12");
    CHECK(result != NULL && *result == 144, "SMPI_SHARED_CALL gave %d", result ? *result : -1);
    CHECK(smpi_shared_known_call("square_of", "12") && !smpi_shared_known_call("square_of", "13"),
          "smpi_shared_known_call does not know what was stored");
    int calls;
    MPI_Allreduce(&computed, &calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(calls == 1, "SMPI_SHARED_CALL called its function %d times", calls);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
