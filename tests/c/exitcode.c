/* Rank 1 returns 3 from main, rank 2 calls exit(5): smpirun reports the
 * first non-zero exit code in rank order (3), after every rank ends. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2)
        exit(5);
    printf("rank %d returns\n", rank);
    MPI_Finalize();
    return rank == 1 ? 3 : 0;
}
