/* Rank 0 puts N ints one by one into its own window inside a fence
 * epoch while rank 1 waits in the closing fence. SimGrid copies what a
 * rank puts to itself, so the fence ends at the same date whatever N.
 * Prints the epoch's time on rank 0 (tests/e2e/rma_timing.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = argc > 1 ? atoi(argv[1]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *mem = calloc(n, sizeof(int));
    MPI_Win win;
    MPI_Win_create(mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    double t = MPI_Wtime();
    if (rank == 0)
        for (int i = 0; i < n; i++) MPI_Put(&i, 1, MPI_INT, 0, i, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        int ok = 1;
        for (int i = 0; i < n; i++) ok &= mem[i] == i;
        printf("%d puts to itself: fence epoch %.9f s, %s\n", n, MPI_Wtime() - t, ok ? "data right" : "DATA WRONG");
    }
    MPI_Win_free(&win);
    free(mem);
    MPI_Finalize();
    return 0;
}
