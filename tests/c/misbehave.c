/* Misbehaves on rank 1 as argv[1] says, for the bad-input table: exit
 * before a collective, end without MPI_Finalize, or die of a signal. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank;
    const char *what = argc > 1 ? argv[1] : "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        if (!strcmp(what, "exit5"))
            exit(5);
        if (!strcmp(what, "divide")) {
            volatile int zero = 0;
            rank = 5 / zero;
        }
        if (!strcmp(what, "abort"))
            abort();
        if (!strcmp(what, "ill"))
            raise(SIGILL);
    }
    if (!strcmp(what, "nofinalize"))
        return 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
