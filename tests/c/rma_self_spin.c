/* A rank spins with MPI_Compare_and_swap on its own memory until another
 * rank's MPI_Put lands there. SimGrid copies what a rank swaps on itself:
 * the loop takes no simulated time, and SimGrid 3.32 spins forever at one
 * date. Ours lets the others run and the clock move after 100,000 such
 * calls by one rank at one date, so the loop ends
 * (tests/e2e/rma_timing.rs). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank;
    long word = 0, flag = 1, zero = 0, old = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_create(&word, sizeof word, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Put(&flag, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
    } else if (rank == 0) {
        do
            MPI_Compare_and_swap(&zero, &zero, &old, MPI_LONG, 0, 0, win);
        while (old == 0);
        printf("rank 0 saw the flag\n");
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
