/* Atomics contending for one target: ranks 1 to 3 fetch-and-add on rank
 * 0's counter at one date while rank 0 compare-and-swaps its own. SimGrid
 * 3.32 runs the atomics to one target one at a time (the target window's
 * mutex, held from before the get to after its last wait), so the second
 * waits for the first's round trip. Each rank prints what it fetched and
 * when its call returned; run on 4 ranks with computation timing off
 * (tests/e2e/rma_timing.rs). */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
    int rank;
    long counter[2] = {0, 0}, one = 1, old = -1, zero = 0, mine = 7;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_create(counter, sizeof counter, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (rank > 0)
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
    else
        MPI_Compare_and_swap(&mine, &zero, &old, MPI_LONG, 0, 1, win);
    double dt = MPI_Wtime() - t;
    MPI_Win_flush_all(win);
    printf("rank %d fetched %ld after %.9f\n", rank, old, dt);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("counter %ld swapped %ld\n", counter[0], counter[1]);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
