/* Sleeps and timed waits in threads. Checks, on every rank:
 * - a sleeper thread calls sleep(2), usleep(250000) and nanosleep(0.125 s)
 *   and notes MPI_Wtime after each (MPI_THREAD_MULTIPLE);
 * - a waiter thread calls pthread_cond_timedwait twice with an absolute
 *   CLOCK_REALTIME deadline computed from clock_gettime: the first (0.5 s,
 *   nobody signals) returns ETIMEDOUT, the second (10 s) returns 0, being
 *   signalled by main after main's own sleep(1);
 * - every date is at least what the sleeps add up to.
 * Rank 0 prints the dates (MPI_Wtime since a barrier, %.6f: exact in
 * simulated time) and the wait results; built with -DNATIVE it prints only
 * whether each date is late enough, since real dates vary. */
#include "check.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double t0;
static double slept[3];     /* dates after sleep, usleep, nanosleep */
static double waited[2];    /* dates after each timed wait */
static int wait_result[2];  /* what each timed wait returned */
static const double slept_min[3] = {2.0, 2.25, 2.375}, waited_min[2] = {0.5, 1.0};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int signalled; /* under lock */

static void *sleeper(void *arg) {
    (void)arg;
    sleep(2);
    slept[0] = MPI_Wtime() - t0;
    usleep(250000);
    slept[1] = MPI_Wtime() - t0;
    struct timespec d = {0, 125000000};
    nanosleep(&d, NULL);
    slept[2] = MPI_Wtime() - t0;
    return NULL;
}

/* Waits on cond until `signalled` or the deadline `seconds` from now. */
static int timed_wait(long seconds, long nanoseconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    deadline.tv_nsec += nanoseconds;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    int rc = 0;
    pthread_mutex_lock(&lock);
    while (!signalled && rc == 0)
        rc = pthread_cond_timedwait(&cond, &lock, &deadline);
    pthread_mutex_unlock(&lock);
    return rc;
}

static void *waiter(void *arg) {
    (void)arg;
    wait_result[0] = timed_wait(0, 500000000L); /* main signals only at 1 s */
    waited[0] = MPI_Wtime() - t0;
    wait_result[1] = timed_wait(10, 0);
    waited[1] = MPI_Wtime() - t0;
    return NULL;
}

static void print_date(const char *what, double date, double min) {
#ifdef NATIVE
    printf("%s: %s\n", what, date >= min ? "late enough" : "too early");
#else
    (void)min;
    printf("%s: %.6f\n", what, date);
#endif
}

static const char *result_name(int rc) {
    return rc == 0 ? "0" : rc == ETIMEDOUT ? "ETIMEDOUT" : strerror(rc);
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();

    pthread_t s, w;
    pthread_create(&s, NULL, sleeper, NULL);
    pthread_create(&w, NULL, waiter, NULL);
    sleep(1);
    pthread_mutex_lock(&lock);
    signalled = 1;
    pthread_cond_signal(&cond);
    pthread_mutex_unlock(&lock);
    double signal_date = MPI_Wtime() - t0;
    pthread_join(w, NULL);
    double waiter_joined = MPI_Wtime() - t0;
    pthread_join(s, NULL);
    double sleeper_joined = MPI_Wtime() - t0;

    CHECK(wait_result[0] == ETIMEDOUT, "first timed wait returned %d", wait_result[0]);
    CHECK(wait_result[1] == 0, "second timed wait returned %d", wait_result[1]);
    for (int i = 0; i < 3; i++)
        CHECK(slept[i] >= slept_min[i], "sleep %d ended at %f", i, slept[i]);
    for (int i = 0; i < 2; i++)
        CHECK(waited[i] >= waited_min[i], "timed wait %d ended at %f", i, waited[i]);
    CHECK(signal_date >= 1.0 && sleeper_joined >= 2.375, "main's dates %f %f", signal_date,
          sleeper_joined);

    if (rank == 0) {
        printf("timed wait 1 (0.5 s, not signalled): %s\n", result_name(wait_result[0]));
        printf("timed wait 2 (10 s, signalled at 1 s): %s\n", result_name(wait_result[1]));
        print_date("after sleep(2)", slept[0], slept_min[0]);
        print_date("after usleep(250000)", slept[1], slept_min[1]);
        print_date("after nanosleep(0.125 s)", slept[2], slept_min[2]);
        print_date("after timed wait 1", waited[0], waited_min[0]);
        print_date("after timed wait 2", waited[1], waited_min[1]);
        print_date("main signalled after sleep(1)", signal_date, 1.0);
        print_date("waiter joined", waiter_joined, 1.0);
        print_date("sleeper joined", sleeper_joined, 2.375);
    }
    report_errors();
    MPI_Finalize();
    return 0;
}
