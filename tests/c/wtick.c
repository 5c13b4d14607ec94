/* Prints MPI_Wtick: the simulated clock's resolution. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("MPI_Wtick %g\n", MPI_Wtick());
    MPI_Finalize();
    return 0;
}
