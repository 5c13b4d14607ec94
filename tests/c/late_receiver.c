/* Rank 0 sends 8 bytes at once; rank 1 sleeps 1 simulated second before
 * receiving. Rank 1 prints when the receive completed. With the default
 * protocol the transfer starts when the receive is posted; below
 * smpi/async-small-thresh it starts at the send, so it is over by then. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    double v = 1.5;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        sleep(1);
        MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("received at %.9f\n", MPI_Wtime());
    }
    MPI_Finalize();
    return 0;
}
