/* A 1-byte ping-pong between ranks 0 and 1: N round trips (argument,
 * default 200000), 2N messages. Prints the simulated time of the loop
 * with full precision, so that runs can be compared bit for bit. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    char byte = 0;
    double start = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&byte, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    double end = MPI_Wtime();
    if (rank == 0)
        printf("%ld round trips in %.17g s of simulated time\n", n, end - start);
    MPI_Finalize();
    return 0;
}
