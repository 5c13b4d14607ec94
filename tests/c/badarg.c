/* An invalid destination rank: with the default MPI_ERRORS_ARE_FATAL the
 * simulation stops with a message naming the rank, the call and the error;
 * with MPI_ERRORS_RETURN (argv[1] = "return") the call returns
 * MPI_ERR_RANK and the program goes on. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, v = 1, rc, cls;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        rc = MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        printf("MPI_Send returned class %d (MPI_ERR_RANK is %d)\n", cls, MPI_ERR_RANK);
    }
    MPI_Finalize();
    return 0;
}
