/* Every rank receives from its right neighbour before sending: a deadlock
 * smpirun must report (each blocked rank, its call, peer, tag, comm). */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Recv(&v, 1, MPI_INT, (rank + 1) % size, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, (rank + size - 1) % size, 42, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
