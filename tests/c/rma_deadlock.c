/* A lock that is never released: rank 0 holds an exclusive lock on its
 * own window and waits for a message that rank 1 sends only after it gets
 * the same lock. smpirun must report both blocked calls. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, slot = 0, token = 0;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Recv(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_unlock(0, win);
    } else if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
