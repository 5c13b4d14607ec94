/* The malloc family as values and as member names, which a macro-based
 * interception would rewrite or reject: the program text is compiled as
 * written (tests/e2e/programs.rs). Each rank also leaks, on purpose, one
 * block of its own (LEAK program), one of a library built with the plain
 * cc (tests/c/plain_alloc_lib.c) and one made by the C library for it
 * (strdup's, which is the C library's allocation, not the program's).
 * Prints " No Errors". */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

void *plain_alloc_make(size_t size, int fill);

struct allocator {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
};

static struct allocator heap = {malloc, calloc, realloc, free};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *v = heap.calloc(4, sizeof(int));
    CHECK(v && v[3] == 0, "calloc through a member");
    v = heap.realloc(v, 8 * sizeof(int));
    for (int i = 0; i < 8; i++)
        v[i] = rank * 10 + i;
    MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(v[7] == 10 * size * (size - 1) / 2 + 7 * size, "allreduce %d", v[7]);
    heap.free(v);

    void *(*get)(size_t) = malloc;
    char *kept = get(16 * (rank + 1)); /* LEAK program */
    kept[0] = (char)rank;

    /* Large enough to be folded with smpi/auto-shared-malloc-thresh:1MiB. */
    unsigned char *lib = plain_alloc_make(2u << 20, rank + 1);
    CHECK(lib[0] == rank + 1, "the library's block");
    char *copy = strdup("made by the C library");
    CHECK(strcmp(copy, "made by the C library") == 0, "strdup");

    MPI_Barrier(MPI_COMM_WORLD);
    report_errors();
    MPI_Finalize();
    return 0;
}
