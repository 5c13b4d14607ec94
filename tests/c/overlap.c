/* Overlap of a rendezvous message with computation: ranks 0 and 1 post
 * an 8 MiB MPI_Isend / MPI_Irecv, compute 20 ms (smpi_execute_flops at
 * 1 Gf), then wait, and print how long it all took. Under SimGrid (and
 * smpi/progress:offload) the transfer moves during the computation: 20 ms;
 * without asynchronous progress (weak) it starts after it. Run on 2 ranks
 * (tests/e2e/progression.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <smpi/smpi.h>
int main(int argc, char **argv) {
    int rank, n = 8 << 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = malloc(n);
    MPI_Request r;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (rank == 0) MPI_Isend(buf, n, MPI_CHAR, 1, 0, MPI_COMM_WORLD, &r);
    else MPI_Irecv(buf, n, MPI_CHAR, 0, 0, MPI_COMM_WORLD, &r);
    smpi_execute_flops(2e7); /* 20 ms at 1 Gf */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    printf("rank %d: %.6f ms\n", rank, (MPI_Wtime() - t) * 1e3);
    MPI_Finalize();
    return 0;
}
