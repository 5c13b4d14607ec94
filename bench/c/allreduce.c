/* ITERATIONS (default 10) MPI_Allreduce of one double over MPI_COMM_WORLD;
 * rank 0 prints the simulated time and checks the sum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    double in = rank, out = 0;
    for (int i = 0; i < iterations; i++)
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double expected = (double)size * (size - 1) / 2;
    if (rank == 0)
        printf("%d allreduce on %d ranks: %.9f s simulated, sum %s\n", iterations, size,
               MPI_Wtime(), out == expected ? "right" : "WRONG");
    MPI_Finalize();
    return out == expected ? 0 : 1;
}
