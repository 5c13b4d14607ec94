/* Leaves some of what it makes unfreed, on purpose, for the memory
 * analysis of --cfg=smpi/list-leaks and smpi/display-allocs
 * (tests/e2e/leaks.rs, which finds the lines by their LEAK comments):
 * per rank, a communicator (and so its group), a datatype and a buffer.
 * Everything else is freed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* LEAK comm */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair); /* LEAK type */
    MPI_Type_commit(&pair);

    MPI_Datatype vector;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vector);
    MPI_Type_free(&vector);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Group group;
    MPI_Comm_group(half, &group);
    MPI_Group_free(&group);
    MPI_Comm_free(&half);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_free(&world);

    int *kept = malloc((rank + 1) * sizeof(int)); /* LEAK buffer */
    double *scratch = calloc(8, sizeof(double)); /* BIGGEST */
    scratch = realloc(scratch, 4 * sizeof(double));
    free(scratch);

    int x[2] = {rank, 1};
    MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_INT, MPI_SUM, dup);
    kept[0] = x[0];
    printf("rank %d: %d\n", rank, kept[0]);
    MPI_Finalize();
    return 0;
}
