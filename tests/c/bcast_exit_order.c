/* After a binomial broadcast from rank 0 on 8 ranks, ranks 2 and 4 each
 * send one int to rank 3, which probes for any source. Rank 2 forwards the
 * broadcast to one child (3), rank 4 to two (6, 5): each forward is a
 * simcall in SimGrid, so rank 2 leaves the broadcast first and its message
 * is posted first. Prints the source rank 3 finds first. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 8) {
        if (rank == 0)
            fprintf(stderr, "run on 8 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        value = 42;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 2 || rank == 4)
        MPI_Send(&rank, 1, MPI_INT, 3, 7, MPI_COMM_WORLD);
    if (rank == 3) {
        MPI_Status status;
        int first, second;
        MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &status);
        MPI_Recv(&first, 1, MPI_INT, status.MPI_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("first message from rank %d, then from rank %d (broadcast value %d)\n", first, second, value);
    }
    MPI_Finalize();
    return 0;
}
