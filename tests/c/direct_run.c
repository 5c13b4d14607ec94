/* Run directly (./direct_run, not under smpirun): prints its rank and
 * size, its arguments and what it reads from stdin, then exits with the
 * code its first argument names (`exit:N` calls exit). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    char line[256];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d of %d, argv[0]=%s\n", rank, size, argv[0]);
    for (int i = 1; i < argc; i++)
        printf("argv[%d]=%s\n", i, argv[i]);
    while (fgets(line, sizeof line, stdin))
        printf("stdin: %s", line);
    MPI_Finalize();
    if (argc > 1 && strncmp(argv[1], "exit:", 5) == 0)
        exit(atoi(argv[1] + 5));
    return argc > 1 ? atoi(argv[1]) : 0;
}
