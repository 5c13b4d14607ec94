/* Traffic patterns for SimGrid's InfiniBand network model
 * (--cfg=network/model:IB), whose penalties depend on how many messages
 * each node sends and receives at once. Run on 5 ranks, one per host
 * (see tests/e2e/models.rs); every rank prints the date each of its
 * messages completes, as "phase rank peer date". The phases, separated by
 * barriers:
 *  1. incast: ranks 1-4 send 1 MiB, 512 KiB, 256 KiB, 2 MiB to rank 0;
 *  2. outcast: rank 0 sends 2 MiB, 1 MiB, 256 KiB, 512 KiB to ranks 1-4;
 *  3. mixed: 0->1 2 MiB, 2->1 1 MiB, 1->3 768 KiB, 3->4 128 KiB,
 *     4->0 1.5 MiB, 2->3 64 KiB, all at once;
 *  4. small detached messages: ranks 1-4 send 4 messages each to rank 0,
 *     rank r's k-th of 1000 r + 300 k bytes (sizes that differ, so that no
 *     two arrive at once: SimGrid's order among simultaneous arrivals,
 *     which the IB model depends on, is not ours);
 *  5. staggered: rank 1 sends 1 MiB to rank 0; rank 2 sends it 1 MiB
 *     100 us later (rank 1's message is still in its latency phase), rank 3
 *     512 KiB 4 ms later (while rank 1's flows), rank 4 256 KiB to rank 3
 *     at 6 ms (rank 3's message is still flowing). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXREQ 16

static char *buf;
static int rank;
static MPI_Request req[MAXREQ];
static int peer[MAXREQ];
static int nreq;

static void isend(int to, int bytes, int tag)
{
    peer[nreq] = to;
    MPI_Isend(buf, bytes, MPI_BYTE, to, tag, MPI_COMM_WORLD, &req[nreq++]);
}

static void irecv(int from, int bytes, int tag)
{
    peer[nreq] = from;
    MPI_Irecv(buf + (8 << 20), bytes, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req[nreq++]);
}

/* Waits for every request, printing when each one completes. */
static void wait_all(int phase)
{
    for (int done = 0; done < nreq; done++) {
        int which;
        MPI_Waitany(nreq, req, &which, MPI_STATUS_IGNORE);
        printf("%d %d %d %.12f\n", phase, rank, peer[which], MPI_Wtime());
    }
    nreq = 0;
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 5) {
        if (rank == 0)
            printf("needs 5 ranks\n");
        MPI_Finalize();
        return 1;
    }
    buf = calloc(16 << 20, 1);
    static const int sizes[5] = {0, 1 << 20, 512 << 10, 256 << 10, 2 << 20};

    /* 1. Incast. */
    if (rank == 0)
        for (int r = 1; r < 5; r++)
            irecv(r, sizes[r], 1);
    else
        isend(0, sizes[rank], 1);
    wait_all(1);

    /* 2. Outcast. */
    static const int out[5] = {0, 2 << 20, 1 << 20, 256 << 10, 512 << 10};
    if (rank == 0)
        for (int r = 1; r < 5; r++)
            isend(r, out[r], 2);
    else
        irecv(0, out[rank], 2);
    wait_all(2);

    /* 3. Mixed. */
    static const int mixed[][3] = {{0, 1, 2 << 20},   {2, 1, 1 << 20},    {1, 3, 768 << 10},
                                   {3, 4, 128 << 10}, {4, 0, 1536 << 10}, {2, 3, 64 << 10}};
    for (int m = 0; m < 6; m++) {
        if (mixed[m][0] == rank)
            isend(mixed[m][1], mixed[m][2], 30 + m);
        if (mixed[m][1] == rank)
            irecv(mixed[m][0], mixed[m][2], 30 + m);
    }
    wait_all(3);

    /* 4. Small detached messages. */
    if (rank == 0) {
        for (int k = 0; k < 4; k++)
            for (int r = 1; r < 5; r++)
                irecv(r, 1000 * r + 300 * k, 40 + k);
    } else {
        for (int k = 0; k < 4; k++)
            isend(0, 1000 * rank + 300 * k, 40 + k);
    }
    wait_all(4);

    /* 5. Staggered starts. */
    if (rank == 0) {
        irecv(1, 1 << 20, 5);
        irecv(2, 1 << 20, 5);
        irecv(3, 512 << 10, 5);
    } else if (rank == 1) {
        isend(0, 1 << 20, 5);
    } else if (rank == 2) {
        usleep(100);
        isend(0, 1 << 20, 5);
    } else if (rank == 3) {
        irecv(4, 256 << 10, 5);
        usleep(4000);
        isend(0, 512 << 10, 5);
    } else {
        usleep(6000);
        isend(3, 256 << 10, 5);
    }
    wait_all(5);

    if (rank == 0)
        printf("end %.12f\n", MPI_Wtime());
    free(buf);
    MPI_Finalize();
    return 0;
}
