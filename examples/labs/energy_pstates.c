/* Lab: energy to solution against the power state (DVFS).
 *
 *   energy_pstates compute GFLOP     a compute-bound program
 *   energy_pstates comm MIB          a communication-bound program
 *
 * Run it with one rank per node of examples/labs/energy_cluster.xml and
 * --cfg=plugin:host_energy. For each power state of the nodes, from the
 * fastest to the slowest, every rank puts its node in that state and runs
 * the same work: ten steps of GFLOP Gflop of computation each followed by
 * an MPI_Allreduce (compute), or ten steps of an exchange of MIB MiB with
 * both ring neighbours and 1 Mflop of computation (comm). Rank 0 prints,
 * per pstate, the speed, the simulated time of the work (the slowest
 * rank's) and the energy the nodes consumed meanwhile.
 *
 * A slower pstate draws less power but, when the work is computation,
 * takes longer: the idle part of the power is paid for longer. When the
 * work is communication, the time hardly depends on the speed. Rank 0
 * checks that every rank ran every step and prints WRONG otherwise. */
#include <mpi.h>
#include <simgrid/host.h>
#include <simgrid/plugins/energy.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STEPS 10

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || (strcmp(argv[1], "compute") && strcmp(argv[1], "comm"))) {
        if (rank == 0)
            fprintf(stderr, "usage: energy_pstates compute GFLOP | comm MIB\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int compute = strcmp(argv[1], "compute") == 0;
    double amount = atof(argv[2]);
    size_t bytes = compute ? 0 : (size_t)(amount * 1048576);
    char *out = malloc(bytes + 1), *in = malloc(bytes + 1);
    memset(out, rank & 0x7f, bytes + 1);

    sg_host_t node = sg_host_self();
    unsigned long pstates = sg_host_get_nb_pstates(node);
    if (rank == 0)
        printf("%-7s %10s %12s %14s\n", "pstate", "speed", "time (s)", "energy (J)");
    for (unsigned long p = 0; p < pstates; p++) {
        sg_host_set_pstate(node, p);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime(), e0 = sg_host_get_consumed_energy(node);
        int steps = 0;
        for (int s = 0; s < STEPS; s++) {
            if (compute) {
                smpi_execute_flops_benched(amount * 1e9);
                int one = 1, all;
                MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                steps += all == size;
            } else {
                int right = (rank + 1) % size, left = (rank + size - 1) % size;
                MPI_Sendrecv(out, (int)bytes, MPI_CHAR, right, s, in, (int)bytes, MPI_CHAR, left, s,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                smpi_execute_flops_benched(1e6);
                steps += bytes == 0 || in[bytes / 2] == (char)(left & 0x7f);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double time = MPI_Wtime() - t0, energy = sg_host_get_consumed_energy(node) - e0;
        double total;
        int all_steps;
        MPI_Reduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Reduce(&steps, &all_steps, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("%-7lu %8.1f Gf %12.6f %14.1f%s\n", p, sg_host_get_speed(node) / 1e9, time, total,
                   all_steps == STEPS * size ? "" : "  WRONG");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
