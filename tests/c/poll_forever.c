/* Rank 0 polls with MPI_Test for a message rank 1 never sends: a
 * livelock, which smpirun must report (naming the rank and the call)
 * instead of polling forever, whatever the polls cost. */
#include <mpi.h>

int main(int argc, char **argv) {
    int rank, v, flag = 0;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Irecv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
        while (!flag)
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
