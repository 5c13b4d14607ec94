/* A target that polls MPI_Win_test for the end of its exposure epoch
 * while its origin puts: the polling must let the origin run (MPI_Win_test
 * costs what MPI_Test costs, smpi/test), or the run never ends. The
 * origin starts 1 ms late, so that the target polls more than once (each
 * poll is charged before it looks). Prints " No Errors". */
#include <mpi.h>
#include <unistd.h>

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cell = -1;
    MPI_Win win;
    MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    if (rank == 0) {
        MPI_Win_post(peer, 0, win);
        int done = 0, polls = 0;
        while (!done) {
            MPI_Win_test(win, &done);
            polls++;
        }
        CHECK(cell == 42, "the put arrived: %d", cell);
        CHECK(polls > 1, "polled %d times", polls);
    } else if (rank == 1) {
        usleep(1000);
        MPI_Win_start(peer, 0, win);
        int value = 42;
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    report_errors();
    MPI_Finalize();
    return 0;
}
