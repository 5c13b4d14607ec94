/* Every buffer on the ranks' stacks, touched by the runtime while their
 * owner is suspended: what contexts/stack-mode:copy must get right (each
 * rank's frames are elsewhere while another rank runs).
 * - a ring of rendezvous-sized messages (64 KiB) received into a stack
 *   array while the receiver waits, sent from a stack array;
 * - MPI_Irecv into a stack buffer, completed while the receiver is in
 *   other calls (a barrier);
 * - MPI_Allreduce with both buffers on the stack;
 * - a window on a stack array, written by MPI_Put from every other rank
 *   between fences;
 * - a thread of the rank reading and writing a variable on its creator's
 *   stack while the creator waits in MPI_Recv.
 * Each rank checks its values and prints one line; rank 0 prints the
 * simulated time. Any np >= 2. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define RING_DOUBLES 8192 /* 64 KiB */

struct shared_arg {
    int rank;
    long value;
};

static void *thread_body(void *p)
{
    struct shared_arg *arg = p; /* on the creator's stack */
    long seen = arg->value;
    arg->value = seen * 3 + arg->rank;
    /* Lets the creator wake: it waits for this message. */
    MPI_Send(&seen, 1, MPI_LONG, 0, 99, MPI_COMM_SELF);
    return NULL;
}

static int ring(int rank, int size)
{
    double out[RING_DOUBLES], in[RING_DOUBLES];
    for (int i = 0; i < RING_DOUBLES; i++)
        out[i] = rank * 1000.0 + i;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(out, RING_DOUBLES, MPI_DOUBLE, next, 1, in, RING_DOUBLES, MPI_DOUBLE, prev, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < RING_DOUBLES; i++)
        bad += in[i] != prev * 1000.0 + i;
    return bad;
}

static int irecv_across_barrier(int rank, int size)
{
    long got[4] = {0, 0, 0, 0};
    MPI_Request req;
    int prev = (rank + size - 1) % size, next = (rank + 1) % size;
    MPI_Irecv(got, 4, MPI_LONG, prev, 2, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    long mine[4] = {rank, rank * 2L, rank * 3L, -rank};
    MPI_Send(mine, 4, MPI_LONG, next, 2, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return (got[0] != prev) + (got[1] != prev * 2L) + (got[2] != prev * 3L) + (got[3] != -prev);
}

static int window_on_stack(int rank, int size)
{
    int cells[64];
    for (int i = 0; i < 64; i++)
        cells[i] = -1;
    MPI_Win win;
    MPI_Win_create(cells, sizeof cells, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++) {
        int v = rank * 100 + t;
        if (t != rank)
            MPI_Put(&v, 1, MPI_INT, t, rank % 64, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
    }
    MPI_Win_free(&win);
    int bad = 0;
    for (int r = 0; r < size && r < 64; r++)
        bad += r == rank ? cells[r] != -1 : cells[r] != r * 100 + rank;
    return bad;
}

static int thread_on_creator_stack(int rank)
{
    struct shared_arg arg = {rank, 1000 + rank};
    pthread_t t;
    pthread_create(&t, NULL, thread_body, &arg);
    long seen = 0;
    MPI_Recv(&seen, 1, MPI_LONG, 0, 99, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    pthread_join(t, NULL);
    return (seen != 1000 + rank) + (arg.value != (1000 + rank) * 3L + rank);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bad_ring = ring(rank, size);
    int bad_irecv = irecv_across_barrier(rank, size);
    long in = rank + 1, sum = 0;
    MPI_Allreduce(&in, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad_allreduce = sum != (long)size * (size + 1) / 2;
    int bad_window = window_on_stack(rank, size);
    int bad_thread = thread_on_creator_stack(rank);
    printf("rank %d: ring %s, irecv %s, allreduce %s, window %s, thread %s\n", rank,
           bad_ring ? "WRONG" : "ok", bad_irecv ? "WRONG" : "ok", bad_allreduce ? "WRONG" : "ok",
           bad_window ? "WRONG" : "ok", bad_thread ? "WRONG" : "ok");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("simulated time %.9f s\n", MPI_Wtime());
    MPI_Finalize();
    return bad_ring + bad_irecv + bad_allreduce + bad_window + bad_thread != 0;
}
