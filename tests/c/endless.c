/* A program that never ends, for smpirun's time limits
 * (smpi/wall-time-limit, MPIEXEC_TIMEOUT, smpi/simulated-time-limit).
 * Rank 0 runs forever in the way its argument says; every other rank
 * waits in MPI_Recv for a message rank 0 never sends.
 *   wtime:   polls MPI_Wtime (each call costs smpi/wtime of simulated time)
 *   sleep:   sleeps a simulated second at a time
 *   compute: loops in its own code without calling MPI or the simulator */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    const char *mode = argc > 1 ? argv[1] : "wtime";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("rank 0 runs forever (%s)\n", mode);
        fflush(stdout);
        if (strcmp(mode, "sleep") == 0) {
            for (;;)
                sleep(1);
        } else if (strcmp(mode, "compute") == 0) {
            volatile unsigned long spins = 0;
            for (;;)
                spins++;
        } else {
            double start = MPI_Wtime();
            while (MPI_Wtime() - start >= 0)
                ;
        }
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
