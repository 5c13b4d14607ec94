/* Adversarial traffic for a dragonfly: every rank sends BYTES to the rank
 * PER_GROUP places further (the same position in the next group), so under
 * minimal routing all of a group's traffic crosses one blue link. Rank 0
 * prints the latest completion date.
 *
 *   dragonfly_shift PER_GROUP BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int per_group = atoi(argv[1]), bytes = atoi(argv[2]);
    char *out = calloc((size_t)bytes, 1), *in = calloc((size_t)bytes, 1);
    int to = (rank + per_group) % size, from = (rank - per_group + size) % size;
    MPI_Sendrecv(out, bytes, MPI_BYTE, to, 0, in, bytes, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double t = MPI_Wtime(), last;
    MPI_Reduce(&t, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.9f\n", last);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
