/* Globals used as message buffers and window memory. Under swap
 * privatization only the running rank's globals are in place, so every
 * copy into or out of another rank's globals must put that rank's in place
 * first; this program checks the data of each such path.
 *
 * Needs at least 2 ranks; prints " No Errors" when every check passes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BIG 1024 /* ints: 4 KiB; run with smpi/send-is-detached-thresh below that */

static int big_out[BIG], big_in[BIG];
static int small_in[16];
static int strided[32];
static int window_mem[8];
static int origin_vals[8], result_vals[8];
static int my_rank = -1;
static int errors;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            errors++;                                                                          \
            printf("rank %d: ", my_rank);                                                      \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static void fill(int *a, int n, int seed) {
    for (int i = 0; i < n; i++)
        a[i] = seed * 100000 + i;
}

static int same(const int *a, int n, int seed) {
    for (int i = 0; i < n; i++)
        if (a[i] != seed * 100000 + i)
            return 0;
    return 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (my_rank + 1) % size, prev = (my_rank - 1 + size) % size;

    /* Rendezvous: the receiver posts first (the copy happens while the
     * sender runs), then the sender sends first (while the receiver runs). */
    fill(big_out, BIG, my_rank + 1);
    memset(big_in, 0, sizeof big_in);
    if (my_rank % 2 == 0) {
        MPI_Recv(big_in, BIG, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(big_out, BIG, MPI_INT, next, 1, MPI_COMM_WORLD);
    } else {
        MPI_Send(big_out, BIG, MPI_INT, next, 1, MPI_COMM_WORLD);
        MPI_Recv(big_in, BIG, MPI_INT, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    CHECK(same(big_in, BIG, prev + 1), "rendezvous data from rank %d is wrong", prev);
    CHECK(same(big_out, BIG, my_rank + 1), "own send buffer changed");

    /* A small message into a global posted early, and a strided one. */
    MPI_Request req;
    MPI_Irecv(small_in, 16, MPI_INT, prev, 2, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    int small_out[16];
    fill(small_out, 16, 50 + my_rank);
    MPI_Send(small_out, 16, MPI_INT, next, 2, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(same(small_in, 16, 50 + prev), "early receive into a global is wrong");

    MPI_Datatype every_other;
    MPI_Type_vector(16, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int i = 0; i < 32; i++)
        strided[i] = i % 2 ? -1 : my_rank * 1000 + i / 2;
    int got[16];
    MPI_Sendrecv(strided, 1, every_other, next, 3, got, 16, MPI_INT, prev, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < 16; i++)
        CHECK(got[i] == prev * 1000 + i, "strided element %d is %d", i, got[i]);
    MPI_Type_free(&every_other);

    /* A window over a global array, reached from globals of the origin. */
    for (int i = 0; i < 8; i++)
        window_mem[i] = my_rank * 10 + i;
    MPI_Win win;
    MPI_Win_create(window_mem, sizeof window_mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 8; i++)
        origin_vals[i] = 1000 * (my_rank + 1);
    MPI_Put(origin_vals, 2, MPI_INT, next, 0, 2, MPI_INT, win);
    MPI_Accumulate(origin_vals, 2, MPI_INT, next, 2, 2, MPI_INT, MPI_SUM, win);
    MPI_Get(result_vals, 2, MPI_INT, next, 4, 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(window_mem[0] == 1000 * (prev + 1) && window_mem[1] == 1000 * (prev + 1),
          "put into a global window gave %d %d", window_mem[0], window_mem[1]);
    CHECK(window_mem[2] == my_rank * 10 + 2 + 1000 * (prev + 1), "accumulate gave %d",
          window_mem[2]);
    CHECK(result_vals[0] == next * 10 + 4 && result_vals[1] == next * 10 + 5,
          "get from a global window gave %d %d", result_vals[0], result_vals[1]);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
    int one = 1, before = -1, compare = next * 10 + 6, swapped = -1;
    MPI_Fetch_and_op(&one, &before, MPI_INT, next, 7, MPI_SUM, win);
    MPI_Compare_and_swap(origin_vals, &compare, &swapped, MPI_INT, next, 6, win);
    MPI_Win_unlock(next, win);
    CHECK(before == next * 10 + 7, "fetch-and-op read %d", before);
    CHECK(swapped == next * 10 + 6, "compare-and-swap read %d", swapped);
    MPI_Win_fence(0, win);
    CHECK(window_mem[7] == my_rank * 10 + 8, "fetch-and-op left %d", window_mem[7]);
    CHECK(window_mem[6] == 1000 * (prev + 1), "compare-and-swap left %d", window_mem[6]);
    MPI_Win_free(&win);

    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (my_rank == 0 && total == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return total != 0;
}
