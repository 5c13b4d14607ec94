/*
 * ring.c - a token travels around a ring of all ranks.
 *
 * Shows: blocking MPI_Send / MPI_Recv between neighbours, and timing with
 * MPI_Wtime. Rank 0 starts a token with value 0; every rank adds 1 to it and
 * passes it on to rank+1 (the last rank sends it back to rank 0). After
 * LAPS laps rank 0 prints the time of each lap and checks that the token
 * equals LAPS * size. Under the emulator the times are simulated times, so
 * they predict how long a lap would take on the simulated network.
 *
 * Build and run:
 *   smpicc -O2 -o ring ring.c
 *   smpirun -np 8 ./ring          (3 laps)
 *   smpirun -np 8 ./ring 10       (10 laps)
 *
 * Exit status: 0 when the token has the expected value, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, laps = 3, lap, token = 0, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        laps = atoi(argv[1]);
    if (laps < 1)
        laps = 1;

    int next = (rank + 1) % size;
    int prev = (rank + size - 1) % size;

    if (size == 1) {
        /* A ring of one: the token just goes round locally. */
        token = laps;
    } else {
        for (lap = 0; lap < laps; lap++) {
            if (rank == 0) {
                double t0 = MPI_Wtime();
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                double t1 = MPI_Wtime();
                printf("lap %d: %.9f s (token %d)\n", lap + 1, t1 - t0, token);
            } else {
                MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                token++;
                MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
            }
        }
    }

    if (rank == 0) {
        int expected = laps * size;
        printf("final token %d, expected %d: %s\n", token, expected,
               token == expected ? "OK" : "WRONG");
        ok = (token == expected);
    }

    MPI_Finalize();
    return ok ? 0 : 1;
}
