/* A deadlock between a rank's threads: main holds a mutex and joins a
 * thread that waits for that mutex. smpirun must report it, naming the
 * main thread in pthread_join and the thread in pthread_mutex_lock
 * (tests/e2e/threads.rs). */
#include <mpi.h>
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *body(void *arg) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    return arg;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, body, NULL);
    pthread_join(t, NULL);
    pthread_mutex_unlock(&m);
    MPI_Finalize();
    return 0;
}
