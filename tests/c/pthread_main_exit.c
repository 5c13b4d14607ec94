/* main calls pthread_exit while its thread still runs: the rank goes on
 * until the thread ends (2 simulated seconds later), as a process whose
 * main thread exits does (tests/e2e/threads.rs). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int rank;

static void *body(void *arg) {
    sleep(2);
    printf("rank %d: thread done at %.6f\n", rank, MPI_Wtime());
    MPI_Finalize();
    return arg;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_t t;
    pthread_create(&t, NULL, body, NULL);
    pthread_exit(NULL);
}
