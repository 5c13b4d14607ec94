/* The time of MPI_Allreduce for one message size: the program of
 * examples/sweeps/allreduce.toml.
 *
 * Usage: allreduce BYTES [CALLS]
 * Prints "per call: SECONDS s" (the slowest rank's mean) on rank 0, and
 * checks the sums. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long bytes = argc > 1 ? atol(argv[1]) : 8;
    int calls = argc > 2 ? atoi(argv[2]) : 5;
    long n = bytes / (long)sizeof(double);
    if (n < 1)
        n = 1;
    double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
    for (long i = 0; i < n; i++)
        in[i] = rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int c = 0; c < calls; c++)
        MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / calls, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double expect = (double)size * (size - 1) / 2;
    int wrong = out[0] != expect || out[n - 1] != expect + (double)size * (n - 1);
    if (rank == 0)
        printf("allreduce of %ld bytes on %d ranks: per call: %.9f s%s\n", n * (long)sizeof(double),
               size, slowest, wrong ? " WRONG SUM" : "");
    free(in);
    free(out);
    MPI_Finalize();
    return wrong;
}
