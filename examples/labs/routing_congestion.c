/* Lab: minimal against Valiant routing on a dragonfly, seen link by link.
 *
 *   routing_congestion PER_GROUP BYTES STEPS
 *
 * The traffic of a domain-decomposed model on a dragonfly: each step,
 * every rank exchanges BYTES with its two neighbours in rank order (a
 * halo, mostly inside its group), then BYTES with the rank at the same
 * place in the next group (a transposition between groups, adversarial
 * for minimal routing: all of a group's traffic crosses the one global
 * link to the next group). PER_GROUP is the number of ranks per dragonfly
 * group. Rank 0 prints the simulated time of the STEPS steps (the slowest
 * rank's) and checks that every byte arrived.
 *
 * Run it with --cfg=network/routing:minimal, valiant or ugal, and
 * --cfg=smpi/network-stats:FILE.csv to see which links saturate and how
 * much slower messages get (scripts/routing-lab.sh draws both). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned char mark(int from, int step, long k) {
    return (unsigned char)(from * 31 + step * 7 + k);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: routing_congestion PER_GROUP BYTES STEPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int per_group = atoi(argv[1]), steps = atoi(argv[3]);
    long bytes = atol(argv[2]);
    if (per_group < 1 || size % per_group != 0 || bytes < 1 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "PER_GROUP must divide the %d ranks; BYTES, STEPS >= 1\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)(3 * bytes));
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int next = (rank + per_group) % size, prev = (rank - per_group + size) % size;
    int errors = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        for (long k = 0; k < bytes; k++)
            out[k] = mark(rank, s, k);
        MPI_Request r[6];
        MPI_Irecv(in, (int)bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(in + bytes, (int)bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(out, (int)bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(out, (int)bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[3]);
        MPI_Irecv(in + 2 * bytes, (int)bytes, MPI_BYTE, prev, 2, MPI_COMM_WORLD, &r[4]);
        MPI_Isend(out, (int)bytes, MPI_BYTE, next, 2, MPI_COMM_WORLD, &r[5]);
        MPI_Waitall(6, r, MPI_STATUSES_IGNORE);
        int from[3] = {left, right, prev};
        for (int m = 0; m < 3; m++)
            for (long k = 0; k < bytes; k += 4093)
                errors += in[m * bytes + k] != mark(from[m], s, k);
    }
    double elapsed = MPI_Wtime() - start, slowest;
    int all_errors = 0;
    MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %ld bytes, %d steps: %.6f ms, %s\n", size, bytes, steps,
               slowest * 1e3, all_errors ? "DATA ERRORS" : "data ok");
    free(out);
    free(in);
    MPI_Finalize();
    return all_errors != 0;
}
