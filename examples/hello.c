/*
 * hello.c - the smallest useful MPI program.
 *
 * Shows: MPI_Init / MPI_Finalize, MPI_Comm_rank, MPI_Comm_size and
 * MPI_Get_processor_name. Every rank prints one line; under the emulator
 * the "processor name" is the simulated host the rank was placed on.
 * The lines of different ranks may appear in any order.
 *
 * Build and run:
 *   smpicc -O2 -o hello hello.c
 *   smpirun -np 4 ./hello
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    printf("Hello from rank %d of %d on %s\n", rank, size, name);

    MPI_Finalize();
    return 0;
}
