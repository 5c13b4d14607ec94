/* Lab: a global-address-space workload on one-sided MPI, and how its
 * remote accesses progress (--cfg=smpi/progress:offload or weak).
 *
 *   gas_rma OPS COMPUTE_US
 *
 * As in a one-sided (PGAS-style) runtime, a distributed array of counters
 * is spread over the ranks: each exposes 1024 of them in a window. Inside
 * one passive-target epoch (MPI_Win_lock_all) every rank does OPS times:
 * compute for COMPUTE_US microseconds (smpi_execute), read a counter of a
 * pseudo-random rank (MPI_Get + MPI_Win_flush) and increment a counter of
 * another (MPI_Accumulate MPI_SUM + MPI_Win_flush). Nobody calls MPI on
 * behalf of the targets: under `offload` the network serves the accesses
 * while their targets compute; under `weak` (no asynchronous progress) an
 * access to a rank that computes waits until that rank is back in MPI, so
 * the latency of a remote access grows to a share of the computation, and
 * the run's time with it.
 *
 * Rank 0 prints the simulated time per operation (the slowest rank's) and
 * checks that the counters sum to ranks x OPS. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 1024

/* A deterministic pseudo-random rank for access k of `rank`. */
static int pick(int rank, int k, int salt, int size) {
    unsigned long x = (unsigned long)rank * 2654435761UL + (unsigned long)k * 40503UL + salt;
    x ^= x >> 13;
    x *= 0x5bd1e995UL;
    x ^= x >> 15;
    return (int)(x % (unsigned long)size);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: gas_rma OPS COMPUTE_US\n");
        MPI_Finalize();
        return 1;
    }
    int ops = atoi(argv[1]);
    double seconds = atof(argv[2]) * 1e-6;
    long *cells;
    MPI_Win win;
    MPI_Win_allocate(CELLS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &cells,
                     &win);
    for (int i = 0; i < CELLS; i++)
        cells[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Win_lock_all(0, win);
    long one = 1, seen = 0;
    for (int k = 0; k < ops; k++) {
        smpi_execute(seconds);
        int from = pick(rank, k, 1, size), to = pick(rank, k, 2, size);
        MPI_Get(&seen, 1, MPI_LONG, from, k % CELLS, 1, MPI_LONG, win);
        MPI_Win_flush(from, win);
        MPI_Accumulate(&one, 1, MPI_LONG, to, (rank + k) % CELLS, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(to, win);
    }
    MPI_Win_unlock_all(win);
    double mine = (MPI_Wtime() - t0) / ops, slowest;
    MPI_Barrier(MPI_COMM_WORLD);
    long local = 0, total;
    for (int i = 0; i < CELLS; i++)
        local += cells[i];
    MPI_Reduce(&local, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks, %d operations of %s us of computation each\n", size, ops, argv[2]);
        printf("  per-operation  %.6f s (computation %.6f s)\n", slowest, seconds);
        printf("  counters %s\n", total == (long)size * ops ? "right" : "WRONG");
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
