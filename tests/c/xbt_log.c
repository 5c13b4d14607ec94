/* SimGrid's logging and toolbox from a program: categories (a default one
 * and a sub-category), XBT_* at every priority, XBT_LOG_ISENABLED,
 * xbt_log_control_set, xbt_new0/xbt_malloc/xbt_free and xbt_assert. The
 * lines go to stderr (checked by tests/e2e/simgrid.rs); stdout says what
 * the program saw. `xbt_log assert` ends with a failed xbt_assert. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <xbt/asserts.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(smpi_test, "Messages of this test");
XBT_LOG_NEW_SUBCATEGORY(smpi_test_detail, smpi_test, "Details of this test");

struct pair {
    int a, b;
};

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    XBT_INFO("I'm %d/%d", rank, size);
    XBT_DEBUG("debug from %d", rank);
    XBT_VERB("verbose from %d", rank);
    XBT_WARN("warning from %d", rank);
    XBT_CRITICAL("critical from %d", rank);
    XBT_CINFO(smpi_test_detail, "detail from %d", rank);
    XBT_CDEBUG(smpi_test_detail, "detail debug from %d", rank);

    /* A long message goes through whole. */
    char long_text[2001];
    memset(long_text, 'x', 2000);
    long_text[2000] = '\0';
    if (rank == 0)
        XBT_INFO("long %s end", long_text);

    /* Simulated time moves the date of the lines; an smpi_execute ends
     * before the line it precedes. */
    MPI_Barrier(MPI_COMM_WORLD);
    smpi_execute_flops(2e9);
    XBT_INFO("after 2 Gflop");

    printf("rank %d: debug enabled %d, info enabled %d\n", rank,
           XBT_LOG_ISENABLED(smpi_test, xbt_log_priority_debug),
           XBT_LOG_ISENABLED(smpi_test, xbt_log_priority_info));

    struct pair *pairs = xbt_new0(struct pair, 4);
    xbt_assert(pairs[3].a == 0 && pairs[3].b == 0, "xbt_new0 did not zero");
    int *ints = xbt_new(int, 8);
    ints[7] = 7;
    char *copy = xbt_strdup("copied");
    xbt_assert(strcmp(copy, "copied") == 0);
    xbt_free(copy);
    xbt_free(ints);
    xbt_free(pairs);

    /* The program changes thresholds while it runs. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        xbt_log_control_set("smpi_test.thres:error");
    MPI_Barrier(MPI_COMM_WORLD);
    XBT_WARN("hidden warning from %d", rank);
    XBT_ERROR("error from %d", rank);
    XBT_CINFO(smpi_test_detail, "hidden detail from %d", rank);
    XBT_CERROR(smpi_test_detail, "detail error from %d", rank);

    if (argc > 1 && strcmp(argv[1], "assert") == 0 && rank == size - 1) {
        int answer = 41;
        xbt_assert(answer == 42);
    }
    if (argc > 1 && strcmp(argv[1], "assert-message") == 0 && rank == size - 1)
        xbt_assert(size < 0, "size is %d", size);

    printf("rank %d done\n", rank);
    MPI_Finalize();
    return 0;
}
