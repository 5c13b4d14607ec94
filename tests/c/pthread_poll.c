/* Threads that poll instead of blocking still let the others run and the
 * clock move (tests/e2e/threads.rs):
 * - a barrier spun on a mutex (lock, read a counter, unlock, again), as
 *   MPICH's test suite has, among main and 3 threads, right after an
 *   MPI_Barrier whose messages are still in flight for the other rank;
 * - main polling a flag with sched_yield while a thread sleeps 1 s, then
 *   sets it: main sees it at 1 s of simulated time, not earlier. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 4 /* main and 3 created */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int arrived;
static volatile int flag;

static void spin_barrier(void) {
    pthread_mutex_lock(&lock);
    arrived++;
    pthread_mutex_unlock(&lock);
    for (int left = 1; left;) {
        pthread_mutex_lock(&lock);
        left = arrived < THREADS;
        pthread_mutex_unlock(&lock);
    }
}

static void *body(void *arg) {
    spin_barrier();
    return arg;
}

static void *late_setter(void *arg) {
    sleep(1);
    flag = 1;
    return arg;
}

int main(int argc, char **argv) {
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t t[THREADS - 1];
    for (int i = 0; i < THREADS - 1; i++)
        pthread_create(&t[i], NULL, body, NULL);
    spin_barrier();
    for (int i = 0; i < THREADS - 1; i++)
        pthread_join(t[i], NULL);
    double t0 = MPI_Wtime();
    pthread_t setter;
    pthread_create(&setter, NULL, late_setter, NULL);
    while (!flag)
        sched_yield();
    double waited = MPI_Wtime() - t0;
    pthread_join(setter, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("spin barrier of %d threads passed; flag seen after %.6f s\n", arrived, waited);
    MPI_Finalize();
    return 0;
}
