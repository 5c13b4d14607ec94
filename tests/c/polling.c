/* Polling costs: rank 0 polls with MPI_Test, MPI_Testall, MPI_Testany,
 * MPI_Testsome and MPI_Iprobe for messages rank 1 sends at known dates,
 * and prints how many polls each loop made and the simulated dates. Run
 * with computation timing off, on 2 ranks; the dates are SimGrid 3.32's
 * to the nanosecond (tests/e2e/polling.rs). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static double t0;
static void at(const char *what) { printf("%-28s %.9f\n", what, MPI_Wtime() - t0); }

int main(int argc, char **argv) {
    int rank, v = 1, w[3] = {0}, flag, idx, n, ids[3];
    MPI_Request r[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (rank == 0) {
        /* 1: a test of a request already complete. */
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Barrier(MPI_COMM_WORLD); /* rank 1 sent before */
        usleep(100);
        at("before test of done");
        MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
        at("test of done");
        /* 2: a test loop on a message sent 1 ms later. */
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        int polls = 0;
        do { MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE); polls++; } while (!flag);
        printf("test loop polls %d\n", polls);
        at("test loop");
        /* 3: testall over three, the last two 1 ms and 2 ms later. */
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&w[i], 1, MPI_INT, 1, 10 + i, MPI_COMM_WORLD, &r[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        polls = 0;
        do { MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE); polls++; } while (!flag);
        printf("testall polls %d\n", polls);
        at("testall loop");
        /* 4: testany. */
        for (int i = 0; i < 2; i++)
            MPI_Irecv(&w[i], 1, MPI_INT, 1, 20 + i, MPI_COMM_WORLD, &r[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        polls = 0;
        for (int got = 0; got < 2;) {
            MPI_Testany(2, r, &idx, &flag, MPI_STATUS_IGNORE);
            polls++;
            if (flag) got++;
        }
        printf("testany polls %d\n", polls);
        at("testany loop");
        /* 5: testsome. */
        for (int i = 0; i < 3; i++)
            MPI_Irecv(&w[i], 1, MPI_INT, 1, 30 + i, MPI_COMM_WORLD, &r[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        polls = 0;
        for (int got = 0; got < 3;) {
            MPI_Testsome(3, r, &n, ids, MPI_STATUSES_IGNORE);
            polls++;
            if (n != MPI_UNDEFINED) got += n;
        }
        printf("testsome polls %d\n", polls);
        at("testsome loop");
        /* 6: iprobe loop, then probe. */
        MPI_Barrier(MPI_COMM_WORLD);
        polls = 0;
        do { MPI_Iprobe(1, 40, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); polls++; } while (!flag);
        MPI_Recv(&v, 1, MPI_INT, 1, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("iprobe polls %d\n", polls);
        at("iprobe loop");
    } else if (rank == 1) {
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(1000);
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);
        usleep(1000);
        MPI_Send(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
        usleep(1000);
        MPI_Send(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(500);
        MPI_Send(&v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
        usleep(500);
        MPI_Send(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, 0, 31, MPI_COMM_WORLD);
        usleep(700);
        MPI_Send(&v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD);
        usleep(700);
        MPI_Send(&v, 1, MPI_INT, 0, 32, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(1500);
        MPI_Send(&v, 1, MPI_INT, 0, 40, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < 6; i++) MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
