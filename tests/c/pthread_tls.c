/* Thread-local storage per thread (MPI from the main thread only). Checks,
 * on every rank, for main and 3 created threads:
 * - a new thread sees `__thread` variables' initial values (42, and a
 *   zeroed `static __thread` array), whatever main wrote in its own;
 * - each thread writes its own id (100 * rank + thread) into a `__thread
 *   int` and a `static __thread` array, then the four take ROUNDS turns in
 *   a fixed order (a mutex + condition-variable handoff, sched_yield in
 *   between) and at each turn find their own values, updated only by
 *   themselves, and the errno value they set at their previous turn.
 * (Their addresses are not compared: natively each thread's differ, while
 * smpirun's simulated threads of a rank find their own values at one
 * address, as README.md says.)
 * Rank 0 prints one line per thread in join order, then main's; every rank
 * prints what differs. */
#include "check.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>

#define THREADS 4 /* main and 3 created */
#define ROUNDS 3
#define WORDS 8

__thread int my_id = -1;
__thread int tls_init = 42;
static __thread int tls_array[WORDS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int turn; /* under lock: the next turn, thread turn % THREADS plays */

struct result {
    int first_init, first_word; /* what the thread saw before writing */
    int turns, bad;             /* turns taken, checks failed */
};
static struct result results[THREADS];

static void play(int t) {
    struct result *res = &results[t];
    int id = 100 * rank + t;
    res->first_init = tls_init;
    res->first_word = tls_array[WORDS - 1];
    my_id = id;
    tls_init = id;
    for (int k = 0; k < WORDS; k++)
        tls_array[k] = id * WORDS + k;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_mutex_lock(&lock);
        while (turn != r * THREADS + t)
            pthread_cond_wait(&changed, &lock);
        int bad = my_id != id || tls_init != id;
        for (int k = 0; k < WORDS; k++)
            bad |= tls_array[k] != id * WORDS + k + r;
        if (r > 0)
            bad |= errno != 1000 * id + r - 1;
        CHECK(!bad, "thread %d, round %d: my_id %d tls_init %d word0 %d errno %d", t, r, my_id,
              tls_init, tls_array[0], errno);
        res->bad += bad;
        res->turns++;
        for (int k = 0; k < WORDS; k++)
            tls_array[k]++;
        turn++;
        pthread_cond_broadcast(&changed);
        errno = 1000 * id + r;
        pthread_mutex_unlock(&lock);
        sched_yield();
    }
}

static void *body(void *arg) {
    play((int)(long)arg);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    tls_init = 7; /* main's own copy: the threads must still see 42 */
    tls_array[WORDS - 1] = 7;
    pthread_t threads[THREADS];
    for (long t = 1; t < THREADS; t++)
        pthread_create(&threads[t], NULL, body, (void *)t);
    play(0);

    for (int t = 1; t <= THREADS; t++) {
        int i = t % THREADS; /* join order, then main */
        if (i != 0)
            pthread_join(threads[i], NULL);
        struct result *res = &results[i];
        if (i != 0)
            CHECK(res->first_init == 42 && res->first_word == 0,
                  "thread %d started with tls_init %d, last word %d", i, res->first_init,
                  res->first_word);
        if (rank == 0)
            printf("%s %d: tls_init %d at start, %d turns, %d bad, own TLS and errno %s\n",
                   i == 0 ? "main thread" : "thread", i, res->first_init, res->turns, res->bad,
                   res->turns == ROUNDS && res->bad == 0 ? "OK" : "WRONG");
    }
    report_errors();
    MPI_Finalize();
    return 0;
}
