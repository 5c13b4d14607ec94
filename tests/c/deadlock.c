/* Every rank receives from its right neighbour before sending: a deadlock
 * smpirun must report (each blocked rank, its call, peer, tag, comm).
 * With the argument "waitall", each rank waits in MPI_Waitall for two
 * receives (tags 42 and 43), and the report counts the second one. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0, w = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size;
    if (argc > 1 && strcmp(argv[1], "waitall") == 0) {
        MPI_Request r[2];
        MPI_Irecv(&v, 1, MPI_INT, right, 42, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(&w, 1, MPI_INT, right, 43, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
        MPI_Recv(&v, 1, MPI_INT, right, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Send(&v, 1, MPI_INT, (rank + size - 1) % size, 42, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
