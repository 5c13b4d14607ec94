/* SimGrid's smpi/errors-are-fatal:no and smpi/init: run with
 * --cfg=smpi/errors-are-fatal:no --cfg=smpi/init:0.25 (and computation
 * timing off). Prints " No Errors" when every check holds. */
#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double t = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(t >= 0.25 && t < 0.2501, "MPI_Init ended at %g, not after smpi/init's 0.25 s", t);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_COMM_WORLD's default handler is not MPI_ERRORS_RETURN");
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 7, 0, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "a send to rank %d gave class %d, not MPI_ERR_RANK", size + 7, cls);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    rc = MPI_Bcast(&x, -1, MPI_INT, 0, dup);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "a bcast of -1 on a dup gave class %d", cls);
    MPI_Comm_free(&dup);
    report_errors();
    MPI_Finalize();
    return 0;
}
