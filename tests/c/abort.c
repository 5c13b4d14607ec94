/* Rank 2 calls MPI_Abort(7) while the others wait: smpirun exits with 7. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, v;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2)
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
