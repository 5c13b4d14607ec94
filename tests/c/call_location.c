/* A send, a receive and a barrier on known lines, for the traces' call
 * locations (smpicc -trace-call-location, smpi/trace-call-location). */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD); /* the send */
    else
        MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* the receive */
    MPI_Barrier(MPI_COMM_WORLD); /* the barrier */
    MPI_Finalize();
    return 0;
}
