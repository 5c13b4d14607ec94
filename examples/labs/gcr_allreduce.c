/* Lab: the communication of a GCR solver iteration.
 *
 *   gcr_allreduce ITERATIONS HALO_BYTES
 *
 * Each iteration of a generalized conjugate residual solver, as in the
 * atmospheric model of the exascale study, exchanges a halo with its two
 * neighbours on a ring of ranks (HALO_BYTES each way) and then needs two
 * small global sums: one MPI_Allreduce of one double (a norm) and one of
 * two doubles (two dot products). At scale the small allreduces, all
 * latency, dominate. Rank 0 prints the simulated time per iteration and
 * checks the sums. Compare --cfg=smpi/allreduce:NAME (and
 * smpi/coll-radix for recursive_k). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: gcr_allreduce ITERATIONS HALO_BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int iterations = atoi(argv[1]);
    int halo = atoi(argv[2]);
    char *out = calloc((size_t)halo + 1, 2), *in = calloc((size_t)halo + 1, 2);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int it = 0; it < iterations; it++) {
        MPI_Request r[4];
        MPI_Irecv(in, halo, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(in + halo, halo, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(out, halo, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(out + halo, halo, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        double norm = rank + it, norm_sum;
        MPI_Allreduce(&norm, &norm_sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double dots[2] = {1.0, (double)rank}, dot_sums[2];
        MPI_Allreduce(dots, dot_sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double ranks = (double)size * (size - 1) / 2;
        bad |= norm_sum != ranks + (double)size * it;
        bad |= dot_sums[0] != size || dot_sums[1] != ranks;
    }
    double took = MPI_Wtime() - start, slowest;
    int anybad = 0;
    MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d iterations on %d ranks: %.9f s per iteration, sums %s\n", iterations, size,
               slowest / iterations, anybad ? "WRONG" : "right");
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
