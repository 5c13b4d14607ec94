/* Two threads of rank 1 fetch-and-add on rank 0's counter at one date:
 * the target's atomic mutex (SimGrid 3.32's atomic_mut_, which ours
 * keeps per actor) lets one at a time, so the second thread's call lasts
 * two round trips. Prints both threads' times, shortest first, and the
 * counter (tests/e2e/rma_timing.rs). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static MPI_Win win;
static double took[2];

static void *body(void *arg) {
    long one = 1, old;
    int k = *(int *)arg;
    double t = MPI_Wtime();
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
    took[k] = MPI_Wtime() - t;
    return NULL;
}

int main(int argc, char **argv) {
    int provided, rank;
    long counter = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&counter, sizeof counter, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        pthread_t t[2];
        int ids[2] = {0, 1};
        for (int k = 0; k < 2; k++) pthread_create(&t[k], NULL, body, &ids[k]);
        for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
        int first = took[0] <= took[1] ? 0 : 1;
        printf("threads took %.9f and %.9f\n", took[first], took[1 - first]);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("counter %ld\n", counter);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
