/* Distributed graph topologies and neighbourhood collectives, checked
 * against hand-computed answers. Prints " No Errors" when all hold. */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"

/* A directed ring with weights: rank r sends to r+1 (weight 10+r) and
 * r+2; built with the general form from rank 0 only. */
static void dist_graph_general(void)
{
    MPI_Comm g;
    int n = rank == 0 ? size : 0;
    int *srcs = malloc(size * sizeof(int)), *degs = malloc(size * sizeof(int));
    int *dsts = malloc(2 * size * sizeof(int)), *wts = malloc(2 * size * sizeof(int));
    int i;
    for (i = 0; i < size; i++) {
        srcs[i] = i;
        degs[i] = 2;
        dsts[2 * i] = (i + 1) % size;
        dsts[2 * i + 1] = (i + 2) % size;
        wts[2 * i] = 10 + i;
        wts[2 * i + 1] = 20 + i;
    }
    MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, degs, dsts, wts, MPI_INFO_NULL, 0, &g);
    int status, indeg, outdeg, weighted;
    MPI_Topo_test(g, &status);
    CHECK(status == MPI_DIST_GRAPH, "topology %d", status);
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    CHECK(indeg == 2 && outdeg == 2 && weighted, "counts %d %d %d", indeg, outdeg, weighted);
    int in[2], inw[2], out[2], outw[2];
    MPI_Dist_graph_neighbors(g, 2, in, inw, 2, out, outw);
    for (i = 0; i < 2; i++) {
        int s = in[i], d = out[i];
        int want_in_w = s == (rank + size - 1) % size ? 10 + s : 20 + s;
        CHECK(s == (rank + size - 1) % size || s == (rank + size - 2) % size, "source %d", s);
        CHECK(inw[i] == want_in_w || size <= 2, "source %d weight %d", s, inw[i]);
        CHECK(d == (rank + 1 + i) % size, "destination %d is %d", i, d);
        CHECK(outw[i] == (i == 0 ? 10 : 20) + rank, "destination weight %d", outw[i]);
    }
    MPI_Comm_free(&g);
    free(srcs);
    free(degs);
    free(dsts);
    free(wts);
}

/* The adjacent form, unweighted: in from the left, out to the right;
 * then every neighbourhood collective over it. */
static void neighbourhood_collectives(void)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, MPI_UNWEIGHTED, 1, &right,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    CHECK(indeg == 1 && outdeg == 1 && !weighted, "adjacent counts %d %d %d", indeg, outdeg,
          weighted);

    int mine[2] = {rank, 100 * rank}, got[2] = {-1, -1};
    MPI_Neighbor_allgather(mine, 2, MPI_INT, got, 2, MPI_INT, g);
    CHECK(got[0] == left && got[1] == 100 * left, "allgather got %d %d", got[0], got[1]);

    MPI_Request req;
    got[0] = got[1] = -1;
    MPI_Ineighbor_alltoall(mine, 2, MPI_INT, got, 2, MPI_INT, g, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(got[0] == left && got[1] == 100 * left, "ialltoall got %d %d", got[0], got[1]);

    int rc[1] = {1}, rd[1] = {1}, sc[1] = {1}, sd[1] = {1};
    got[0] = got[1] = -1;
    MPI_Neighbor_alltoallv(mine, sc, sd, MPI_INT, got, rc, rd, MPI_INT, g);
    CHECK(got[0] == -1 && got[1] == 100 * left, "alltoallv got %d %d", got[0], got[1]);

    got[0] = got[1] = -1;
    MPI_Ineighbor_allgatherv(&mine[1], 1, MPI_INT, got, rc, rd, MPI_INT, g, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(got[1] == 100 * left, "iallgatherv got %d", got[1]);

    MPI_Aint wd[1] = {sizeof(int)};
    MPI_Datatype ty[1] = {MPI_INT};
    got[0] = got[1] = -1;
    MPI_Neighbor_alltoallw(mine, sc, wd, ty, got, rc, wd, ty, g);
    CHECK(got[1] == 100 * left, "alltoallw got %d", got[1]);
    MPI_Comm_free(&g);
}

/* A periodic 1-D Cartesian grid: block 0 comes from the left, block 1
 * from the right, even when both are the same rank (size 2) or this rank
 * itself (size 1). */
static void cartesian_exchange(void)
{
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm c;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c);
    int send[2] = {10 * rank + 1, 10 * rank + 2}; /* to left, to right */
    int recv[2] = {-1, -1};
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    CHECK(recv[0] == 10 * left + 2, "from the left %d, expected %d", recv[0], 10 * left + 2);
    CHECK(recv[1] == 10 * right + 1, "from the right %d, expected %d", recv[1], 10 * right + 1);
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    dist_graph_general();
    neighbourhood_collectives();
    cartesian_exchange();
    /* Errors: a neighbourhood collective needs a topology. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, cls, rc = MPI_Neighbor_allgather(&x, 1, MPI_INT, &x, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "no topology: class %d", cls);
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
