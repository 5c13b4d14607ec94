/* ITERATIONS (default 10) rounds of a real computation (WORK multiply-adds,
 * default 100000, measured by the simulator) followed by an MPI_Allreduce
 * of one double: the program of the replay benchmark, where the online run
 * executes the computation and a replay of its trace only simulates it.
 * Rank 0 prints the simulated time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iterations = argc > 1 ? atoi(argv[1]) : 10;
    long work = argc > 2 ? atol(argv[2]) : 100000;
    volatile double x = rank;
    double out = 0;
    for (int i = 0; i < iterations; i++) {
        for (long k = 0; k < work; k++)
            x = x * 0.999999 + 1.0;
        double in = x;
        MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%d rounds on ranks: %.9f s simulated (%g)\n", iterations, MPI_Wtime(), out);
    MPI_Finalize();
    return 0;
}
