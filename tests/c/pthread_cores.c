/* Simulated threads compute on their host's cores: main starts THREADS
 * threads that each compute 1e9 flops (smpi_execute_flops, no measured
 * time) at once, joins them and prints the simulated time it took. On a
 * 1 Gf host with C cores, min(THREADS, C) run at full speed together:
 * THREADS / min(THREADS, C) seconds (tests/e2e/threads.rs). */
#include <mpi.h>
#include <pthread.h>
#include <smpi/smpi.h>
#include <stdio.h>

#define THREADS 4

static void *work(void *arg) {
    (void)arg;
    smpi_execute_flops(1e9);
    return NULL;
}

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = MPI_Wtime();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    if (rank == 0)
        printf("%d threads of 1e9 flops: %.6f s\n", THREADS, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
