/* Links tests/c/plain_clock_lib.c, built without smpicc: each rank sleeps
 * 101.875 + rank simulated seconds in it, and its clocks agree with
 * MPI_Wtime. Also reads the clock through a function pointer (a use of
 * gettimeofday as a value, which no macro can redirect). */
#include <mpi.h>
#include <stdio.h>
#include <sys/time.h>

double plain_wait(unsigned seconds);
double plain_now(void);
double plain_clock(void);
long plain_time(void);

int main(int argc, char **argv)
{
    int rank;
    int (*read_clock)(struct timeval *, void *) = gettimeofday;
    struct timeval tv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double before = MPI_Wtime();
    double waited = plain_wait(100 + (unsigned)rank);
    double moved = MPI_Wtime() - before;
    read_clock(&tv, NULL);
    printf("rank %d: waited %.3f s in the library, MPI_Wtime moved %.3f s, library clock "
           "%.3f s, clock() %.3f s, time() %ld s, gettimeofday by pointer %ld s\n",
           rank, waited, moved, plain_now(), plain_clock(), plain_time(), (long)tv.tv_sec);
    MPI_Finalize();
    return 0;
}
