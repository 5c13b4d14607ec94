/* Lab: overlapping a halo exchange with computation, under the four
 * progression models of smpirun (--cfg=smpi/progress:MODE).
 *
 *   progress_overlap FACE_BYTES COMPUTE_US STEPS
 *
 * The ranks form a ring. Every step each rank posts the receives and
 * sends of its two faces (FACE_BYTES each, MPI_Irecv / MPI_Isend), computes
 * its interior for COMPUTE_US microseconds (smpi_execute: that long at
 * the host's speed), then waits for the faces (MPI_Waitall) and checks them.
 * The code is written to overlap; whether it does depends on who moves the
 * bytes while the rank computes:
 *   offload    the network does (SimGrid's model): a step costs the larger
 *              of the computation and the exchange;
 *   weak       nobody (MPI without an asynchronous progress thread): a
 *              large face's rendezvous starts only when both ranks are back
 *              in MPI, so a step costs their sum;
 *   thread     a progress thread per rank does, but takes a share of the
 *              core (smpi/progress-thread-share): the computation is longer;
 *   dedicated  a core per host does: hosts compute with one core less.
 *
 * Rank 0 prints the simulated time per step and, for comparison, the time
 * of the computation alone and of the exchange alone. */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: progress_overlap FACE_BYTES COMPUTE_US STEPS\n");
        MPI_Finalize();
        return 1;
    }
    long bytes = atol(argv[1]);
    double seconds = atof(argv[2]) * 1e-6;
    int steps = atoi(argv[3]);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char *out = malloc(2 * bytes), *in = malloc(2 * bytes);
    int wrong = 0;
    double phase[3] = {0, 0, 0}; /* overlapped, compute only, exchange only */
    for (int mode = 0; mode < 3; mode++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int s = 0; s < steps; s++) {
            MPI_Request r[4];
            int n = 0;
            if (mode != 1) {
                out[0] = (char)(rank + s);
                out[bytes] = (char)(rank - s);
                MPI_Irecv(in, bytes, MPI_CHAR, left, s, MPI_COMM_WORLD, &r[n++]);
                MPI_Irecv(in + bytes, bytes, MPI_CHAR, right, s, MPI_COMM_WORLD, &r[n++]);
                MPI_Isend(out, bytes, MPI_CHAR, right, s, MPI_COMM_WORLD, &r[n++]);
                MPI_Isend(out + bytes, bytes, MPI_CHAR, left, s, MPI_COMM_WORLD, &r[n++]);
            }
            if (mode != 2)
                smpi_execute(seconds);
            MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
            if (mode != 1 && (in[0] != (char)(left + s) || in[bytes] != (char)(right - s)))
                wrong++;
        }
        double mine = (MPI_Wtime() - t0) / steps, slowest;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        phase[mode] = slowest;
    }
    int all_wrong;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks, faces of %ld bytes, %s us of computation per step\n", size, bytes,
               argv[2]);
        printf("  overlapped  %.6f s per step\n", phase[0]);
        printf("  compute     %.6f s per step\n", phase[1]);
        printf("  exchange    %.6f s per step\n", phase[2]);
        printf("  faces %s\n", all_wrong ? "WRONG" : "right");
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
