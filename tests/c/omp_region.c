/* An OpenMP region of 4 threads, each doing the work of the serial loop
 * after it, then a `parallel for schedule(dynamic)` of 4 such pieces on 4
 * threads: prints the simulated time of each region over the serial
 * loop's, which smpi/omp-model:cpu makes 4 on a 1-core host and 1 on a
 * 4-core host (tests/e2e/programs.rs). */
#include <mpi.h>
#include <stdio.h>

static volatile double sink;

static void work(long n) {
    double x = 0;
    for (long i = 0; i < n; i++)
        x += i * 1e-9;
    sink = x;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();
#pragma omp parallel num_threads(4)
    work(30000000);
    double t1 = MPI_Wtime();
    work(30000000);
    double t2 = MPI_Wtime();
#pragma omp parallel for schedule(dynamic) num_threads(4)
    for (int i = 0; i < 4; i++)
        work(30000000);
    double t3 = MPI_Wtime();
    printf("region %.6f serial %.6f ratio %.3f loop %.3f\n", t1 - t0, t2 - t1,
           (t1 - t0) / (t2 - t1), (t3 - t2) / (t2 - t1));
    MPI_Finalize();
    return 0;
}
