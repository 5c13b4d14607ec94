/*
 * global_counter.c - why an MPI emulator must privatize global variables.
 *
 * Shows: on a real cluster every rank is a separate process with its own
 * copy of every global variable. An emulator runs all ranks inside one
 * process, so it must give each rank a private copy ("privatization").
 * Here every rank increments the global `counter` rank+1 times, then the
 * ranks print their value in rank order (rank 0 gathers them).
 *
 *   with privatization (the default):  rank r sees r+1
 *   without (--cfg=smpi/privatization:no): all ranks share one variable,
 *     so the values show the sum of increments made so far, and the
 *     program reports that the globals are shared.
 *
 * Build and run:
 *   smpicc -O2 -o global_counter global_counter.c
 *   smpirun -np 4 ./global_counter
 *   smpirun -np 4 --cfg=smpi/privatization:no ./global_counter
 *
 * Exit status: 0 when every rank saw its own count (globals privatized),
 * 1 when the ranks shared the variable.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int counter = 0;

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int i = 0; i <= rank; i++)
        counter++;

    /* Make sure every rank has finished incrementing before anyone reads. */
    MPI_Barrier(MPI_COMM_WORLD);
    int mine = counter;

    int *all = NULL;
    if (rank == 0)
        all = malloc((size_t)size * sizeof(int));
    MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);

    int privatized = 1;
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            printf("rank %d: counter = %d (expected %d if private)\n", r, all[r], r + 1);
            if (all[r] != r + 1)
                privatized = 0;
        }
        if (privatized)
            printf("each rank has its own copy of the global: privatized\n");
        else
            printf("the ranks share one global variable: NOT privatized "
                   "(total of all increments: %d)\n", size * (size + 1) / 2);
        free(all);
    }

    MPI_Bcast(&privatized, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return privatized ? 0 : 1;
}
