/* Cartesian and graph topologies, self-checking, for 12 or more ranks: a periodic
 * 4 x 3 grid, coordinates and ranks, shifts, sub-grids, and a halo swap
 * along each dimension. Prints " No Errors" on rank 0. */
#include <mpi.h>
#include "check.h"

int main(int argc, char **argv)
{
    int dims[2] = {4, 3}, periods[2] = {1, 0}, coords[2], r, src, dst, total, status;
    int remain[2] = {0, 1}, sub_size, sub_dims[1], sub_periods[1], sub_coords[1];
    MPI_Comm grid, row;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    if (rank >= 12) {
        CHECK(grid == MPI_COMM_NULL, "rank %d is outside the grid but got a communicator", rank);
    } else {
        MPI_Topo_test(grid, &status);
        CHECK(status == MPI_CART, "topo_test %d", status);
        MPI_Cart_coords(grid, rank, 2, coords);
        CHECK(coords[0] == rank / 3 && coords[1] == rank % 3, "coords %d %d", coords[0], coords[1]);
        MPI_Cart_rank(grid, coords, &r);
        CHECK(r == rank, "cart_rank %d", r);
        /* dimension 0 is periodic, dimension 1 is not */
        MPI_Cart_shift(grid, 0, 1, &src, &dst);
        CHECK(src == (rank + 9) % 12 && dst == (rank + 3) % 12, "shift 0: %d %d", src, dst);
        MPI_Cart_shift(grid, 1, 1, &src, &dst);
        CHECK(src == (coords[1] == 0 ? MPI_PROC_NULL : rank - 1), "shift 1 source %d", src);
        CHECK(dst == (coords[1] == 2 ? MPI_PROC_NULL : rank + 1), "shift 1 dest %d", dst);
        /* a halo swap along dimension 1 (non-periodic ends get nothing) */
        {
            int mine = rank, got = -1;
            MPI_Sendrecv(&mine, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, grid, MPI_STATUS_IGNORE);
            CHECK(got == (src == MPI_PROC_NULL ? -1 : src), "halo got %d", got);
        }
        MPI_Cart_sub(grid, remain, &row);
        MPI_Comm_size(row, &sub_size);
        MPI_Cart_get(row, 1, sub_dims, sub_periods, sub_coords);
        CHECK(sub_size == 3 && sub_dims[0] == 3 && sub_periods[0] == 0 && sub_coords[0] == rank % 3,
              "sub-grid size %d dims %d coords %d", sub_size, sub_dims[0], sub_coords[0]);
        MPI_Comm_free(&row);
        MPI_Comm_free(&grid);
    }
    /* a ring graph over the first 4 ranks */
    {
        int index[4] = {2, 4, 6, 8}, edges[8] = {1, 3, 0, 2, 1, 3, 0, 2}, n, nb[2], nn, ne;
        MPI_Comm ring;
        MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &ring);
        if (rank < 4) {
            MPI_Topo_test(ring, &status);
            MPI_Graphdims_get(ring, &nn, &ne);
            MPI_Graph_neighbors_count(ring, rank, &n);
            MPI_Graph_neighbors(ring, rank, 2, nb);
            CHECK(status == MPI_GRAPH && nn == 4 && ne == 8 && n == 2, "graph %d %d %d %d", status, nn, ne, n);
            CHECK(nb[0] == (rank + 1) % 4 || nb[1] == (rank + 1) % 4, "ring neighbours %d %d", nb[0], nb[1]);
            MPI_Comm_free(&ring);
        } else {
            CHECK(ring == MPI_COMM_NULL, "rank %d outside the graph got a communicator", rank);
        }
    }
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0 && rank == 0;
}
