/* Lab: a 2-D stencil's halo exchange and the solver's dot product.
 *
 *   halo_allreduce CELLS STEPS
 *
 * The other pattern of the exascale study's grid-point models: the ranks
 * form a periodic 2-D Cartesian grid (MPI_Dims_create, MPI_Cart_create,
 * rank order kept), each owning a patch of the horizontal domain. Every
 * step each rank exchanges one face of CELLS doubles (the points along an
 * edge times the vertical levels) with each of its four neighbours
 * (MPI_Isend, MPI_Irecv, MPI_Waitall), then the iterative solver needs a
 * global dot product: one MPI_Allreduce of one double. The faces are
 * latency and bandwidth, local; the dot product is latency, global.
 *
 * Rank 0 prints the simulated time per step of the halo exchange and of
 * the allreduce (the slowest rank's, summed over the steps, divided by
 * STEPS), and checks every face and every sum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Face element k that world rank `from` sends in direction d at step s. */
static double face(int from, int d, int s, long k) {
    return (double)from * 8.0 + d + s * 0.5 + (double)(k % 1024) * 1e-3;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: halo_allreduce CELLS STEPS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long cells = atol(argv[1]);
    int steps = atoi(argv[2]);
    if (cells < 1 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "CELLS, STEPS >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    /* Directions 0..3: -x, +x, -y, +y; what goes out in direction d comes
     * in from the neighbour in direction d ^ 1, tagged d. */
    int peer[4];
    MPI_Cart_shift(grid, 0, 1, &peer[0], &peer[1]);
    MPI_Cart_shift(grid, 1, 1, &peer[2], &peer[3]);
    double *out = malloc(sizeof(double) * 4 * (size_t)cells);
    double *in = malloc(sizeof(double) * 4 * (size_t)cells);
    double halo_time = 0, allreduce_time = 0;
    int bad = 0;
    for (int s = 0; s < steps; s++) {
        for (int d = 0; d < 4; d++)
            for (long k = 0; k < cells; k++)
                out[d * cells + k] = face(rank, d, s, k);
        MPI_Barrier(grid);
        double start = MPI_Wtime();
        MPI_Request r[8];
        for (int d = 0; d < 4; d++)
            MPI_Irecv(in + d * cells, (int)cells, MPI_DOUBLE, peer[d ^ 1], d, grid, &r[d]);
        for (int d = 0; d < 4; d++)
            MPI_Isend(out + d * cells, (int)cells, MPI_DOUBLE, peer[d], d, grid, &r[4 + d]);
        MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
        double after_halo = MPI_Wtime();
        double dot = (double)rank + s, sum;
        MPI_Allreduce(&dot, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
        double end = MPI_Wtime();
        for (int d = 0; d < 4; d++)
            for (long k = 0; k < cells; k++)
                bad |= in[d * cells + k] != face(peer[d ^ 1], d, s, k);
        bad |= sum != (double)size * (size - 1) / 2 + (double)size * s;
        double mine[2] = {after_halo - start, end - after_halo}, slowest[2];
        MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, grid);
        halo_time += slowest[0];
        allreduce_time += slowest[1];
    }
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, grid);
    if (rank == 0)
        printf("%d x %d ranks, faces of %ld doubles, %d steps: per step halo %.9f s, "
               "allreduce %.9f s, data %s\n",
               dims[0], dims[1], cells, steps, halo_time / steps, allreduce_time / steps,
               anybad ? "WRONG" : "right");
    free(out);
    free(in);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return anybad;
}
