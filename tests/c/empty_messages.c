/* Empty messages carry SMPI's 16-byte envelope: once its latency is paid,
 * an empty message is a 16-byte flow that shares the links like any other
 * (SimGrid 3.32's teshsuite bug-17132 depends on it, through its barrier).
 *
 * Ranks 0 and 2 on host0, rank 1 on host1 (see tests/e2e/programs.rs):
 *  1. rank 0 sends an empty message to rank 1, which answers with one;
 *     rank 0 prints the round trip;
 *  2. rank 2 sends 200000 bytes to rank 1; 10 ms later, while that flow
 *     runs, rank 0 sends it an empty message: rank 1 prints when each
 *     arrived (the empty one shares the link with the large one);
 *  3. rank 0 sends an empty message to rank 2, on the same host (the
 *     loopback link); rank 2 prints when it arrived.
 * Rank 0 prints the time at the end, after a barrier (empty messages). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0)
            printf("needs 3 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int big = 200000;
    char *buf = malloc(big);

    /* 1. Round trip of empty messages. */
    double t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Send(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("round trip %.9f\n", MPI_Wtime() - t0);
    } else if (rank == 1) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. An empty message beside a large one. */
    t0 = MPI_Wtime();
    if (rank == 0) {
        usleep(10000);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Send(buf, big, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    } else {
        MPI_Request r[2];
        double done[2];
        MPI_Irecv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(buf, big, MPI_BYTE, 2, 2, MPI_COMM_WORLD, &r[1]);
        for (int i = 0; i < 2; i++) {
            int which;
            MPI_Waitany(2, r, &which, MPI_STATUS_IGNORE);
            done[which] = MPI_Wtime() - t0;
        }
        printf("beside a large message: empty %.9f large %.9f\n", done[0], done[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. Empty message on the loopback link. */
    t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Send(NULL, 0, MPI_BYTE, 2, 3, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("loopback %.9f\n", MPI_Wtime() - t0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("end %.9f\n", MPI_Wtime());
    free(buf);
    MPI_Finalize();
    return 0;
}
