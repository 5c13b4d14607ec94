/* MPI_THREAD_MULTIPLE with a second thread per rank. Checks:
 * - MPI_Init_thread(MPI_THREAD_MULTIPLE) provides it, MPI_Query_thread
 *   says so, MPI_Is_thread_main is true in main and false in the thread;
 * - the thread runs LAPS laps of a token ring on MPI_COMM_WORLD (tag 7, the
 *   token incremented at each hop) and hands every token it receives to the
 *   main thread through a mutex + condition-variable queue;
 * - meanwhile the main thread runs MPI_Allreduce, MPI_Bcast and MPI_Barrier
 *   on a duplicate of MPI_COMM_WORLD (made before the thread starts) and
 *   takes one token from the queue after each round.
 * Every rank checks its exact values (errors are printed with the rank);
 * rank 0 prints a summary and the elapsed MPI_Wtime (left out when built
 * with -DNATIVE: simulated time is exact, a real run's is not). Any np >= 2.
 */
#include "check.h"
#include <pthread.h>

#define LAPS 5
#define TAG 7

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queue[LAPS + 1], head, tail; /* one slot per lap and the end mark */

static void push(int v) {
    pthread_mutex_lock(&lock);
    queue[tail++] = v;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&lock);
}

static int pop(void) {
    pthread_mutex_lock(&lock);
    while (head == tail)
        pthread_cond_wait(&nonempty, &lock);
    int v = queue[head++];
    pthread_mutex_unlock(&lock);
    return v;
}

/* The token rank r receives in lap l: rank 0 starts each lap by sending
 * l * size + 1, and every hop adds one. */
static int expected_token(int l) { return l * size + (rank == 0 ? size : rank); }

static void *ring(void *arg) {
    (void)arg;
    int flag = -1;
    MPI_Is_thread_main(&flag);
    CHECK(flag == 0, "MPI_Is_thread_main in the ring thread gave %d", flag);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int l = 0; l < LAPS; l++) {
        int token;
        if (rank == 0) {
            token = l * size + 1;
            MPI_Send(&token, 1, MPI_INT, next, TAG, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int out = token + 1;
            MPI_Send(&out, 1, MPI_INT, next, TAG, MPI_COMM_WORLD);
        }
        push(token);
    }
    push(-1);
    return NULL;
}

int main(int argc, char **argv) {
    int provided = -1, query = -1, flag = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Query_thread(&query);
    MPI_Is_thread_main(&flag);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK(query == MPI_THREAD_MULTIPLE, "MPI_Query_thread gave %d", query);
    CHECK(flag == 1, "MPI_Is_thread_main in main gave %d", flag);

    MPI_Comm coll;
    MPI_Comm_dup(MPI_COMM_WORLD, &coll);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();

    pthread_t t;
    pthread_create(&t, NULL, ring, NULL);
    long reduced = 0, bcast = 0, tokens = 0;
    for (int l = 0; l < LAPS; l++) {
        long mine = rank + 1000L * l, sum = 0;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, coll);
        long want = (long)size * (size - 1) / 2 + 1000L * l * size;
        CHECK(sum == want, "lap %d: allreduce %ld, expected %ld", l, sum, want);
        reduced += sum;
        int root = l % size, value = rank == root ? 100 * l + root : -1;
        MPI_Bcast(&value, 1, MPI_INT, root, coll);
        CHECK(value == 100 * l + root, "lap %d: bcast %d", l, value);
        bcast += value;
        MPI_Barrier(coll);
        int token = pop();
        CHECK(token == expected_token(l), "lap %d: token %d, expected %d", l, token,
              expected_token(l));
        tokens += token;
    }
    CHECK(pop() == -1, "no end mark after %d tokens", LAPS);
    pthread_join(t, NULL);
    double elapsed = MPI_Wtime() - t0;

    long all_tokens = 0;
    MPI_Reduce(&tokens, &all_tokens, 1, MPI_LONG, MPI_SUM, 0, coll);
    if (rank == 0) {
        printf("thread level %d (MPI_THREAD_MULTIPLE %d), main thread %d\n", provided,
               MPI_THREAD_MULTIPLE, flag);
        printf("ring: %d laps on %d ranks, rank 0 got tokens summing to %ld, all ranks %ld\n", LAPS,
               size, tokens, all_tokens);
        printf("collectives: allreduce sums %ld, bcast values %ld\n", reduced, bcast);
#ifndef NATIVE
        printf("elapsed %.6f\n", elapsed);
#else
        (void)elapsed;
#endif
    }
    MPI_Comm_free(&coll);
    report_errors();
    MPI_Finalize();
    return 0;
}
