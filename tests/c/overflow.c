/* Rank 0 recurses without bound: a stack overflow smpirun must name. */
#include <mpi.h>
#include <stdio.h>

static int depth(int n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    return n + depth(n + 1) + pad[0];
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("%d\n", depth(0));
    MPI_Finalize();
    return 0;
}
