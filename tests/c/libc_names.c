/* Globals named like C library functions (err from <err.h>, y0 and j1
 * from libm) must be the program's own variables, as in an executable:
 * each rank writes its own and reads it back. Prints " No Errors". */
#include <mpi.h>

#include "check.h"

int err = 0;
double y0 = 0.0;
long j1 = 0;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(err == 0 && y0 == 0.0 && j1 == 0, "initial values %d %g %ld", err, y0, j1);
    err = rank + 1;
    y0 = 2.5 * rank;
    j1 = 1000L * rank;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(err == rank + 1 && y0 == 2.5 * rank && j1 == 1000L * rank, "values %d %g %ld", err,
          y0, j1);
    report_errors();
    MPI_Finalize();
    return 0;
}
