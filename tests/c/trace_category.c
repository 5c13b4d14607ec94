/* Declares a tracing category, whose per-category resource use the Paje
 * trace does not draw: smpirun says so under -trace-resource. */
#include <mpi.h>
#include <simgrid/instr.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    TRACE_smpi_set_category("phase1");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
