/* Every rank computes FLOPS (argument, default 1e9) with smpi_execute_flops,
 * in PIECES calls (second argument, default 1); rank 0 prints the date at
 * which each rank finished. Ranks on one host share its cores: with c cores
 * and k ranks, each gets min(1, c/k) of a core. After MPI_Finalize, every
 * rank computes AFTER flops more (third argument, default 0): they end the
 * simulation later. */
#include <mpi.h>
#include <smpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double flops = argc > 1 ? atof(argv[1]) : 1e9;
    int pieces = argc > 2 ? atoi(argv[2]) : 1;
    double after = argc > 3 ? atof(argv[3]) : 0;
    for (int i = 0; i < pieces; i++)
        smpi_execute_flops(flops / pieces);
    double done = MPI_Wtime();
    double *all = malloc(sizeof(double) * (size_t)size);
    MPI_Gather(&done, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            printf("rank %d done at %.6f\n", r, all[r]);
    free(all);
    MPI_Finalize();
    smpi_execute_flops(after);
    return 0;
}
