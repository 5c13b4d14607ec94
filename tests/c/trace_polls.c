/* MPI_Testany, MPI_Testall and MPI_Testsome polls, traced: SimGrid's
 * Paje traces show a state per call and its TI traces a line naming it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, flag = 0, index, outcount, indices[2];
    int data[2] = {0, 0};
    MPI_Request req[2];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer < size) {
        MPI_Irecv(&data[0], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&rank, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req[1]);
        int polls = 0;
        do {
            MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE);
            polls++;
        } while (!flag);
        MPI_Irecv(&data[1], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &req[0]);
        MPI_Send(&rank, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
        do {
            MPI_Testany(1, req, &index, &flag, MPI_STATUS_IGNORE);
        } while (!flag);
        MPI_Irecv(&data[1], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &req[0]);
        MPI_Send(&rank, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
        outcount = 0;
        do {
            MPI_Testsome(1, req, &outcount, indices, MPI_STATUSES_IGNORE);
        } while (outcount == 0);
        printf("rank %d got %d and %d after %s polls\n", rank, data[0], data[1],
               polls > 0 ? "some" : "no");
    }
    MPI_Finalize();
    return 0;
}
