/* Splits MPI_COMM_WORLD into G groups of contiguous ranks (G = argv[1],
 * default 316) and sums the world ranks in each group with MPI_Allreduce,
 * then checks the sums with one more MPI_Allreduce on MPI_COMM_WORLD.
 * A scale check: run it with -np 100000 (and -no-privatize: it keeps no
 * global state). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, groups = argc > 1 ? atoi(argv[1]) : 316;
    MPI_Comm part;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (groups < 1 || groups > size)
        groups = size;
    /* Group g holds ranks [g*size/groups, (g+1)*size/groups). */
    int color = (int)(((long long)rank * groups + groups - 1) / size);
    while ((long long)color * size / groups > rank)
        color--;
    while ((long long)(color + 1) * size / groups <= rank)
        color++;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &part);

    long long mine = rank, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, part);
    long long lo = (long long)color * size / groups, hi = (long long)(color + 1) * size / groups;
    int bad = sum != (lo + hi - 1) * (hi - lo) / 2, total_bad = 0;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks in %d groups: %s (simulated time %.6f s)\n", size, groups,
               total_bad == 0 ? "all group sums correct" : "WRONG SUMS", MPI_Wtime());
    MPI_Comm_free(&part);
    MPI_Finalize();
    return total_bad != 0;
}
