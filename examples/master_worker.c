/*
 * master_worker.c - dynamic load balancing with a task farm.
 *
 * Shows: MPI_ANY_SOURCE and MPI_ANY_TAG, reading the sender and tag from
 * MPI_Status, and tags used as a small protocol. Rank 0 (the master) hands
 * out NTASKS tasks (default 100); a task is a number k, and its result is
 * k*k. Every worker asks for work by sending a result (the first one is
 * empty), and gets either a new task (tag TASK) or a stop message (tag
 * STOP). The master checks that the sum of the results is
 * sum(k*k, k=1..NTASKS) and reports how many tasks each worker did.
 *
 * Build and run:
 *   smpicc -O2 -o master_worker master_worker.c
 *   smpirun -np 4 ./master_worker          (100 tasks)
 *   smpirun -np 4 ./master_worker 1000     (1000 tasks)
 *
 * Exit status: 0 when the total is right, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_READY = 1, TAG_RESULT = 2, TAG_TASK = 3, TAG_STOP = 4 };

static long long do_task(long long k)
{
    return k * k;
}

int main(int argc, char **argv)
{
    int rank, size, ntasks = 100, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        ntasks = atoi(argv[1]);
    if (ntasks < 0)
        ntasks = 0;
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "master_worker needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    if (rank == 0) {
        long long total = 0, expected = 0, msg;
        int next_task = 1, running = size - 1;
        int *done = calloc((size_t)size, sizeof(int));
        MPI_Status st;

        /* Every message from a worker asks for more work. */
        while (running > 0) {
            MPI_Recv(&msg, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_RESULT) {
                total += msg;
                done[st.MPI_SOURCE]++;
            }
            if (next_task <= ntasks) {
                msg = next_task++;
                MPI_Send(&msg, 1, MPI_LONG_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
            } else {
                MPI_Send(&msg, 0, MPI_LONG_LONG, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
                running--;
            }
        }

        for (long long k = 1; k <= ntasks; k++)
            expected += k * k;
        for (int w = 1; w < size; w++)
            printf("worker %d did %d tasks\n", w, done[w]);
        printf("total %lld, expected %lld: %s\n", total, expected,
               total == expected ? "OK" : "WRONG");
        ok = (total == expected);
        free(done);
    } else {
        long long msg = 0;
        MPI_Status st;
        MPI_Send(&msg, 0, MPI_LONG_LONG, 0, TAG_READY, MPI_COMM_WORLD);
        for (;;) {
            MPI_Recv(&msg, 1, MPI_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP)
                break;
            msg = do_task(msg);
            MPI_Send(&msg, 1, MPI_LONG_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
    }

    MPI_Finalize();
    return ok ? 0 : 1;
}
