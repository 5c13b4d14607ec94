/* Each rank sleeps its rank's number of seconds, then all meet: traced
 * with tracing/smpi/sleeping, the sleeps are states and TI lines. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    sleep(rank);
    usleep(250000);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
