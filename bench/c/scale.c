/* One MPI_Allreduce of one double over MPI_COMM_WORLD, then one step of a
 * ring (each rank sends an int to the next, receives from the previous);
 * rank 0 checks both and prints the simulated time. The scale benchmark
 * (bench/src/bin/scale.rs) runs it from 2^15 to 2^20 ranks and more. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double in = rank, sum = 0;
    MPI_Allreduce(&in, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int ok = sum == (double)size * (size - 1) / 2 && got == prev;
    int all_ok = 0;
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks: allreduce and ring %s, %.9f s simulated\n", size,
               all_ok ? "right" : "WRONG", MPI_Wtime());
    MPI_Finalize();
    return ok ? 0 : 1;
}
