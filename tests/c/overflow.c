/* One rank (the first argument, 0 by default) recurses without bound: a
 * stack overflow smpirun must name. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    if (rank == (argc > 1 ? atoi(argv[1]) : 0))
        printf("%d\n", depth(0));
    MPI_Finalize();
    return 0;
}
