/* Prints the arguments rank 0 received, to check what smpirun passes on. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("argc=%d", argc);
        for (int i = 1; i < argc; i++)
            printf(" argv[%d]=%s", i, argv[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
