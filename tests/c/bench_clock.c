/* A burst that computes nothing: the rank sleeps 100 ms in the kernel
 * (a raw nanosleep system call, which smpirun does not turn into simulated
 * sleep) between two MPI calls, and prints how much simulated time the
 * burst took. Measured on the thread's CPU clock (smpi/bench-clock:cpu) it
 * is next to nothing; on the monotonic clock (wall) it is the 100 ms. */
#include <mpi.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct timespec nap = {0, 100000000};
    MPI_Init(&argc, &argv);
    double before = MPI_Wtime();
    syscall(SYS_nanosleep, &nap, NULL);
    double after = MPI_Wtime();
    printf("burst %.6f\n", after - before);
    MPI_Finalize();
    return 0;
}
