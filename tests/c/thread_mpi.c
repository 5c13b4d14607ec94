/* MPI called from a thread the rank started itself: with argument
 * "pthread", from a pthread (a simulated thread: the call works); with
 * "omp", from every thread of an OpenMP parallel region (built with
 * -fopenmp, run with OMP_NUM_THREADS=2), which run natively: smpirun must
 * end the run with one line naming the rank and the call
 * (tests/e2e/failures.rs). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *body(void *arg) {
    int rank;
    (void)arg;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && argc > 1 && strcmp(argv[1], "pthread") == 0) {
        pthread_t t;
        pthread_create(&t, NULL, body, NULL);
        pthread_join(t, NULL);
    } else if (rank == 1 && argc > 1 && strcmp(argv[1], "omp") == 0) {
#pragma omp parallel
        {
            int r;
            MPI_Comm_size(MPI_COMM_WORLD, &r);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
