/* Power states and host energy (simgrid/host.h, simgrid/plugins/energy.h)
 * on the platform of tests/e2e/simgrid.rs's energy test: host a (4 cores,
 * 1 Gf/500 Mf, watts 100:120:200 then 80:90:130) runs ranks 0 and 1, host
 * b (1 core, 2 Gf/1 Gf, 50:150 then 40:100) runs rank 2, host c (no
 * wattage) runs nothing. Run with --cfg=plugin:host_energy and
 * computation timing off (with `bad-pstate`, it asks for a pstate that does
 * not exist). Prints " No Errors" when every check holds. */
#include "check.h"
#include <math.h>
#include <simgrid/host.h>
#include <simgrid/plugins/energy.h>
#include <smpi/smpi.h>
#include <string.h>

#define NEAR(x, y) (fabs((x) - (y)) < 1e-6 * (1 + fabs(y)))

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sg_host_t me = sg_host_self();
    if (argc > 1 && strcmp(argv[1], "bad-pstate") == 0)
        sg_host_set_pstate(me, 7); /* stops the simulation, naming the call */
    sg_host_t a = sg_host_by_name("a"), b = sg_host_by_name("b");
    CHECK(sg_host_count() == 3, "%zu hosts", sg_host_count());
    CHECK(sg_host_by_name("nowhere") == NULL, "a host that does not exist");
    CHECK(strcmp(sg_host_get_name(me), rank < 2 ? "a" : "b") == 0, "on %s", sg_host_get_name(me));
    CHECK(strcmp(sg_host_self_get_name(), sg_host_get_name(me)) == 0, "self name");
    CHECK(sg_host_get_nb_pstates(a) == 2 && sg_host_core_count(a) == 4, "host a's shape");
    CHECK(sg_host_get_pstate_speed(b, 1) == 1e9, "b at pstate 1: %g", sg_host_get_pstate_speed(b, 1));
    CHECK(sg_host_get_wattmin_at(a, 1) == 90 && sg_host_get_wattmax_at(a, 1) == 130 &&
              sg_host_get_idle_consumption_at(a, 0) == 100 && sg_host_get_power_range_slope_at(a, 0) == 80,
          "host a's watts");

    /* Phase 1, 0 to 1 s: rank 0 computes 1 Gf on a (one core of four:
     * 120 + 0.25 * 80 = 140 W), rank 2 computes 2 Gf on b (150 W), rank 1
     * waits. */
    if (rank == 0)
        smpi_execute_flops_benched(1e9);
    if (rank == 2)
        smpi_execute_flops_benched(2e9);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    CHECK(NEAR(t, 1.0), "phase 1 ended at %.9f", t);
    CHECK(NEAR(sg_host_get_consumed_energy(a), 140.0), "a: %.9f J", sg_host_get_consumed_energy(a));
    CHECK(NEAR(sg_host_get_consumed_energy(b), 150.0), "b: %.9f J", sg_host_get_consumed_energy(b));

    /* Phase 2: rank 1 computes 1 Gf on a; 0.5 s in, rank 0 slows host a
     * to 500 Mf: the last 0.5 Gf take 1 s more. Host a: 0.5 s at 140 W,
     * then 1 s at 90 + 0.25 * 40 = 100 W. */
    if (rank == 1)
        smpi_execute_flops_benched(1e9);
    if (rank == 0) {
        smpi_execute_benched(0.5);
        sg_host_set_pstate(a, 1);
        CHECK(sg_host_get_pstate(a) == 1 && sg_host_get_speed(a) == 5e8, "pstate 1");
        CHECK(NEAR(sg_host_get_current_consumption(a), 100.0), "a draws %g W", sg_host_get_current_consumption(a));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    CHECK(NEAR(t, 2.5), "phase 2 ended at %.9f (the pstate change did not slow the computation)", t);
    /* 140 + 0.5 s at 140 W (rank 0's wait computes too: 2 cores busy,
     * 120 + 0.5 * 80 = 160 W) ... */
    double ea = sg_host_get_consumed_energy(a);
    CHECK(NEAR(ea, 140.0 + 0.5 * 160.0 + 1.0 * 100.0), "a: %.9f J", ea);
    /* b idle for 1.5 s at 50 W. */
    CHECK(NEAR(sg_host_get_consumed_energy(b), 150.0 + 1.5 * 50.0), "b: %.9f J", sg_host_get_consumed_energy(b));
    report_errors();
    MPI_Finalize();
    return 0;
}
