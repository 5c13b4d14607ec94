/* SMPI_SAMPLE_*: measured loops run their body only while they measure it,
 * then inject the mean for every pass; DELAY and FLOPS never run theirs.
 * Prints " No Errors" when every check holds. */
#include "check.h"
#include <smpi.h>
#include <stdio.h>

static volatile double sink;

static void work(void) {
    for (int k = 0; k < 200000; k++)
        sink += k * 0.5;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* LOCAL, 3 measures: every rank runs the body 3 times of 100. */
    int local_runs = 0, passes = 0;
    double t0 = MPI_Wtime();
    SMPI_SAMPLE_LOCAL(int i = 0, i < 100, i++, 3, -1) {
        local_runs++;
        work();
    }
    double local_time = MPI_Wtime() - t0;
    CHECK(local_runs == 3, "LOCAL ran its body %d times, not 3", local_runs);
    CHECK(local_time > 0, "LOCAL injected no time");

    /* The loop variable and the loop's other effects are the program's:
     * a plain loop after it runs as usual. */
    for (int i = 0; i < 10; i++)
        passes++;
    CHECK(passes == 10, "a plain loop ran %d times", passes);

    /* GLOBAL, 4 measures shared by all ranks: 4 bodies in all. */
    int global_runs = 0, all_global_runs = 0;
    SMPI_SAMPLE_GLOBAL(int i = 0, i < 50, i++, 4, -1) {
        global_runs++;
        work();
    }
    MPI_Allreduce(&global_runs, &all_global_runs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_global_runs == 4, "GLOBAL ran %d bodies in all, not 4", all_global_runs);

    /* A threshold: stops measuring once the error is small enough, and
     * never measures more than asked. */
    int thres_runs = 0;
    SMPI_SAMPLE_LOCAL_TAG(int i = 0, i < 1000, i++, 20, 0.5, "thres") {
        thres_runs++;
        work();
    }
    CHECK(thres_runs >= 2 && thres_runs <= 20, "threshold loop ran %d times", thres_runs);

    /* DELAY and FLOPS: no body, exactly that much computation. */
    int skipped = 0;
    double t1 = MPI_Wtime();
    SMPI_SAMPLE_FLOPS(1e9) { skipped++; }
    double one = MPI_Wtime() - t1;
    double t2 = MPI_Wtime();
    SMPI_SAMPLE_FLOPS(2e9) { skipped++; }
    double two = MPI_Wtime() - t2;
    SMPI_SAMPLE_DELAY(0.001) { skipped++; }
    CHECK(skipped == 0, "a DELAY or FLOPS body ran");
    CHECK(one > 0 && two > 1.99 * one && two < 2.01 * one, "FLOPS took %g then %g s", one, two);

    report_errors();
    MPI_Finalize();
    return 0;
}
