/* SimGrid's tracing interface from a program (simgrid/instr.h), as SMPI
 * programs use it: categories around phases, marks, user variables,
 * states. No trace is written; the program checks that the calls return
 * and that TRACE_smpi_set_category spends the computation before it.
 * `simgrid_instr null` ends with a null category name. */
#include <mpi.h>
#include <simgrid/instr.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    TRACE_category_with_color("exchange", "0 0 1");
    TRACE_category("compute");
    TRACE_declare_mark("phase");
    TRACE_declare_mark_value_with_color("phase", "start", "1 0 0");
    TRACE_declare_mark_value("phase", "end");
    TRACE_host_variable_declare("load");
    TRACE_host_variable_declare_with_color("queue", "0 1 0");
    TRACE_link_variable_declare("bytes");
    TRACE_link_variable_declare_with_color("msgs", "1 1 0");
    TRACE_host_state_declare("activity");
    TRACE_host_state_declare_value("activity", "busy", "1 0 0");

    char name[16];
    snprintf(name, sizeof name, "rank%d", rank);
    TRACE_smpi_set_category(name);
    TRACE_mark("phase", "start");
    TRACE_host_variable_set("node-0", "load", 1.0);
    TRACE_host_variable_add("node-0", "load", 2.0);
    TRACE_host_variable_sub("node-0", "load", 1.0);
    TRACE_host_variable_set_with_time(0.5, "node-0", "queue", 3.0);
    TRACE_link_variable_add("some-link", "bytes", 8.0);
    TRACE_link_variable_sub_with_time(1.0, "some-link", "msgs", 1.0);
    TRACE_host_push_state("node-0", "activity", "busy");
    TRACE_host_pop_state("node-0", "activity");
    TRACE_host_set_state("node-0", "activity", "busy");

    /* The computation asked for before a category change belongs to the
     * previous category: it is spent at the call. */
    double t0 = MPI_Wtime();
    smpi_execute_flops(1e9);
    TRACE_smpi_set_category("compute");
    TRACE_smpi_set_category(NULL);
    double spent = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    TRACE_mark("phase", "end");

    if (argc > 1 && strcmp(argv[1], "null") == 0 && rank == 1)
        TRACE_category(NULL);
    printf("rank %d spent %.6f\n", rank, spent);
    MPI_Finalize();
    return 0;
}
