/* POSIX threads' synchronisation objects on every rank (MPI from the main
 * thread only). Checks:
 * - a bounded buffer (SLOTS items) with POSIX semaphores (sem_init,
 *   sem_wait, sem_post; sem_trywait on an empty one fails with EAGAIN;
 *   sem_getvalue) between two producer threads and one consumer thread;
 * - a pthread_barrier of the three workers and main (one serial thread);
 * - pthread_once (the routine runs once for four callers);
 * - pthread_key_create with a destructor: every worker and a detached thread
 *   set a value, and each exit runs the destructor once (counted);
 * - pthread_rwlock: the consumer writes a pair under the write lock,
 *   yielding in between, and the producers check it under the read lock;
 *   the try forms' results while main holds it;
 * - pthread_join's values: pthread_exit(value) in one producer, a return
 *   value in the other, the consumer's checksum;
 * - a pthread_detach'ed thread that finishes (its destructor posts a
 *   semaphore main waits on);
 * then an MPI_Reduce of the per-rank checksums. Rank 0 prints the exact
 * values; every rank checks its own and prints what differs. */
#include "check.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>

#define SLOTS 4
#define ITEMS 100 /* per producer */

static long buffer[SLOTS];
static int in, out;
static sem_t empty, full, guard, destructed;

static pthread_barrier_t start;
static int serial_threads; /* updated under `guard` */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_calls;
static void once_init(void) { once_calls++; }

static pthread_key_t key;
static int destructor_calls; /* updated under `guard` */
static void destructor(void *value) {
    sem_wait(&guard);
    destructor_calls += *(int *)value;
    sem_post(&guard);
    sem_post(&destructed);
}

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long pair_a, pair_b; /* pair_b == 2 * pair_a under the lock */
static int reader_checks, inconsistent; /* updated under `guard` */

static int one = 1;

/* What every worker does first. */
static void worker_start(void) {
    pthread_once(&once, once_init);
    pthread_setspecific(key, &one);
    int r = pthread_barrier_wait(&start);
    if (r == PTHREAD_BARRIER_SERIAL_THREAD) {
        sem_wait(&guard);
        serial_threads++;
        sem_post(&guard);
    }
}

static void *producer(void *arg) {
    long p = (long)(intptr_t)arg, count = 0;
    worker_start();
    for (long i = 0; i < ITEMS; i++) {
        sem_wait(&empty);
        sem_wait(&guard);
        buffer[in] = rank * 100000L + p * 1000 + i;
        in = (in + 1) % SLOTS;
        sem_post(&guard);
        sem_post(&full);
        count++;
        pthread_rwlock_rdlock(&rw);
        int ok = pair_b == 2 * pair_a;
        pthread_rwlock_unlock(&rw);
        sem_wait(&guard);
        reader_checks++;
        inconsistent += !ok;
        sem_post(&guard);
    }
    if (p == 0)
        pthread_exit((void *)(intptr_t)count);
    return (void *)(intptr_t)count;
}

static void *consumer(void *arg) {
    (void)arg;
    long sum = 0;
    worker_start();
    for (int i = 0; i < 2 * ITEMS; i++) {
        sem_wait(&full);
        sem_wait(&guard);
        long v = buffer[out];
        out = (out + 1) % SLOTS;
        sem_post(&guard);
        sem_post(&empty);
        sum += v;
        pthread_rwlock_wrlock(&rw);
        pair_a = sum;
        sched_yield();
        pair_b = 2 * sum;
        pthread_rwlock_unlock(&rw);
    }
    return (void *)(intptr_t)sum;
}

static void *detached(void *arg) {
    (void)arg;
    pthread_once(&once, once_init);
    pthread_setspecific(key, &one);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    sem_init(&empty, 0, SLOTS);
    sem_init(&full, 0, 0);
    sem_init(&guard, 0, 1);
    sem_init(&destructed, 0, 0);
    pthread_barrier_init(&start, NULL, 4);
    pthread_key_create(&key, destructor);

    /* The try forms, before any thread exists. */
    errno = 0;
    int r = sem_trywait(&full);
    CHECK(r == -1 && errno == EAGAIN, "sem_trywait on an empty semaphore: %d, errno %d", r, errno);
    int v = -1;
    CHECK(sem_trywait(&empty) == 0, "sem_trywait on a free slot failed");
    sem_getvalue(&empty, &v);
    CHECK(v == SLOTS - 1, "sem_getvalue after a trywait: %d", v);
    sem_post(&empty);
    pthread_rwlock_rdlock(&rw);
    CHECK(pthread_rwlock_tryrdlock(&rw) == 0, "second read lock refused");
    pthread_rwlock_unlock(&rw);
    CHECK(pthread_rwlock_trywrlock(&rw) == EBUSY, "write lock granted over a read lock");
    pthread_rwlock_unlock(&rw);
    CHECK(pthread_rwlock_trywrlock(&rw) == 0, "write lock refused on a free rwlock");
    CHECK(pthread_rwlock_tryrdlock(&rw) == EBUSY, "read lock granted over a write lock");
    pthread_rwlock_unlock(&rw);

    pthread_t prod[2], cons, det;
    for (long p = 0; p < 2; p++)
        pthread_create(&prod[p], NULL, producer, (void *)(intptr_t)p);
    pthread_create(&cons, NULL, consumer, NULL);
    pthread_create(&det, NULL, detached, NULL);
    pthread_detach(det);
    pthread_once(&once, once_init);
    if (pthread_barrier_wait(&start) == PTHREAD_BARRIER_SERIAL_THREAD) {
        sem_wait(&guard);
        serial_threads++;
        sem_post(&guard);
    }

    void *ret[2], *sum;
    for (int p = 0; p < 2; p++)
        pthread_join(prod[p], &ret[p]);
    pthread_join(cons, &sum);
    for (int i = 0; i < 4; i++) /* three joined threads and the detached one */
        sem_wait(&destructed);

    long checksum = (long)(intptr_t)sum;
    long expected = 2 * ITEMS * 100000L * rank + 1000L * ITEMS + ITEMS * (ITEMS - 1);
    CHECK(checksum == expected, "checksum %ld, expected %ld", checksum, expected);
    CHECK((long)(intptr_t)ret[0] == ITEMS && (long)(intptr_t)ret[1] == ITEMS,
          "join values %ld %ld", (long)(intptr_t)ret[0], (long)(intptr_t)ret[1]);
    int e = -1, f = -1;
    sem_getvalue(&empty, &e);
    sem_getvalue(&full, &f);
    CHECK(e == SLOTS && f == 0, "semaphores at the end: empty %d, full %d", e, f);
    CHECK(once_calls == 1, "once routine ran %d times", once_calls);
    CHECK(serial_threads == 1, "%d serial threads at the barrier", serial_threads);
    CHECK(destructor_calls == 4, "destructor ran %d times", destructor_calls);
    CHECK(reader_checks == 2 * ITEMS && inconsistent == 0, "%d reader checks, %d inconsistent",
          reader_checks, inconsistent);
    CHECK(pair_a == checksum && pair_b == 2 * checksum, "pair %ld %ld", pair_a, pair_b);

    long total = 0;
    MPI_Reduce(&checksum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("semaphores: trywait on empty -> %s, empty %d full %d at the end\n",
               r == -1 ? "EAGAIN" : "taken", e, f);
        printf("join: %ld (pthread_exit) and %ld (return) items produced, consumer checksum %ld\n",
               (long)(intptr_t)ret[0], (long)(intptr_t)ret[1], checksum);
        printf("once: %d call(s); barrier: %d serial thread(s) of 4; key destructor: %d call(s)\n",
               once_calls, serial_threads, destructor_calls);
        printf("rwlock: %d reader checks, %d inconsistent, pair %ld %ld\n", reader_checks,
               inconsistent, pair_a, pair_b);
        printf("reduce: total checksum %ld over %d ranks\n", total, size);
    }
    pthread_key_delete(key);
    pthread_barrier_destroy(&start);
    sem_destroy(&empty);
    sem_destroy(&full);
    sem_destroy(&guard);
    sem_destroy(&destructed);
    report_errors();
    MPI_Finalize();
    return 0;
}
