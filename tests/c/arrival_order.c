/* Two messages of one size start at one date on disjoint links (rank 0 to
 * rank 2, then rank 1 to rank 3) and so arrive at one date. Each receiver
 * then reports to rank 0, which takes the first report from any source:
 * which receiver SimGrid wakes first. With a third message sharing rank
 * 0's link for a while (argument "shared"), the first one's rate changes
 * after it started. Prints the order of the reports. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    static char data[4000], other[2000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int shared = argc > 1 && strcmp(argv[1], "shared") == 0;
    if (size != 5) {
        if (rank == 0)
            fprintf(stderr, "run on 5 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 || rank == 1) {
        MPI_Request r[2];
        int n = 0;
        MPI_Isend(data, sizeof data, MPI_CHAR, rank + 2, 1, MPI_COMM_WORLD, &r[n++]);
        if (rank == 0 && shared)
            MPI_Isend(other, sizeof other, MPI_CHAR, 4, 1, MPI_COMM_WORLD, &r[n++]);
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    } else if (rank == 2 || rank == 3) {
        MPI_Recv(data, sizeof data, MPI_CHAR, rank - 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 4 && shared) {
        MPI_Recv(other, sizeof other, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0) {
        int first, second;
        MPI_Recv(&first, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("reports from rank %d, then rank %d\n", first, second);
    }
    MPI_Finalize();
    return 0;
}
