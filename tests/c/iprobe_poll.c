/* Rank 1 sleeps one simulated second, then sends rank 0 an int; rank 0
 * polls MPI_Iprobe until it sees it and prints how many probes it made and
 * the date it saw the message at. Each probe costs smpi/iprobe times one
 * more than the failed probes before it (SimGrid's rule). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        sleep(1);
        int v = 42;
        MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    } else if (rank == 0) {
        double start = MPI_Wtime();
        int flag = 0, probes = 0;
        while (!flag) {
            MPI_Iprobe(1, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            probes++;
        }
        double seen = MPI_Wtime() - start;
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("probes %d seen %.9f value %d\n", probes, seen, v);
    }
    MPI_Finalize();
    return 0;
}
