/* A thread-local variable: its globals cannot be swapped between ranks,
 * so smpi/privatization:auto gives each rank a copy of its own. */
#include <mpi.h>
#include <stdio.h>
static __thread int counter;
int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    counter = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf("ok %d\n", counter);
    MPI_Finalize();
    return 0;
}
