/* Every blocking collective on MPI_COMM_WORLD, self-checking, for any
 * number of ranks. Prints " No Errors" on rank 0 when all checks pass. */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



#define N 5

int main(int argc, char **argv)
{
    int i, j, root, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *sbuf = malloc(sizeof(int) * N * size);
    int *rbuf = malloc(sizeof(int) * N * size);
    int *counts = malloc(sizeof(int) * size);
    int *displs = malloc(sizeof(int) * size);
    int *rcounts = malloc(sizeof(int) * size);
    int *rdispls = malloc(sizeof(int) * size);

    MPI_Barrier(MPI_COMM_WORLD);

    for (root = 0; root < size; root += (size > 3 ? size / 3 : 1)) {
        /* bcast */
        for (i = 0; i < N; i++)
            rbuf[i] = rank == root ? 100 + i : -1;
        MPI_Bcast(rbuf, N, MPI_INT, root, MPI_COMM_WORLD);
        for (i = 0; i < N; i++)
            CHECK(rbuf[i] == 100 + i, "bcast root %d [%d]=%d", root, i, rbuf[i]);

        /* reduce: sum and max */
        for (i = 0; i < N; i++)
            sbuf[i] = rank + i;
        MPI_Reduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            for (i = 0; i < N; i++)
                CHECK(rbuf[i] == size * (size - 1) / 2 + i * size, "reduce sum [%d]=%d", i, rbuf[i]);
        double dv = rank * 0.5, dmax = -1;
        MPI_Reduce(&dv, &dmax, 1, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
        if (rank == root)
            CHECK(dmax == (size - 1) * 0.5, "reduce max %g", dmax);
        /* in-place reduce at the root */
        for (i = 0; i < N; i++)
            rbuf[i] = sbuf[i] = rank * i;
        MPI_Reduce(rank == root ? MPI_IN_PLACE : sbuf, rbuf, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank == root)
            for (i = 0; i < N; i++)
                CHECK(rbuf[i] == i * size * (size - 1) / 2, "in-place reduce [%d]=%d", i, rbuf[i]);

        /* gather, gatherv */
        for (i = 0; i < N; i++)
            sbuf[i] = rank * 10 + i;
        MPI_Gather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (j = 0; j < size; j++)
                for (i = 0; i < N; i++)
                    CHECK(rbuf[j * N + i] == j * 10 + i, "gather [%d][%d]=%d", j, i, rbuf[j * N + i]);
        for (j = 0; j < size; j++) {
            counts[j] = j % 3;
            displs[j] = j * 3;
        }
        for (i = 0; i < N * size; i++)
            rbuf[i] = -1;
        MPI_Gatherv(sbuf, rank % 3, MPI_INT, rbuf, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        if (rank == root)
            for (j = 0; j < size; j++)
                for (i = 0; i < counts[j]; i++)
                    CHECK(rbuf[displs[j] + i] == j * 10 + i, "gatherv [%d][%d]=%d", j, i, rbuf[displs[j] + i]);

        /* scatter, scatterv */
        for (i = 0; i < N * size; i++)
            sbuf[i] = rank == root ? i : -1;
        MPI_Scatter(sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, MPI_COMM_WORLD);
        for (i = 0; i < N; i++)
            CHECK(rbuf[i] == rank * N + i, "scatter [%d]=%d", i, rbuf[i]);
        MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, rank % 3, MPI_INT, root, MPI_COMM_WORLD);
        for (i = 0; i < rank % 3; i++)
            CHECK(rbuf[i] == displs[rank] + i, "scatterv [%d]=%d", i, rbuf[i]);
    }

    /* allreduce, in place too */
    for (i = 0; i < N; i++)
        sbuf[i] = rank + 1;
    MPI_Allreduce(sbuf, rbuf, N, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    {
        int fact = 1;
        for (i = 1; i <= size && i < 13; i++)
            fact *= i;
        if (size < 13)
            CHECK(rbuf[0] == fact, "allreduce prod %d", rbuf[0]);
    }
    rbuf[0] = rank;
    MPI_Allreduce(MPI_IN_PLACE, rbuf, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(rbuf[0] == size - 1, "in-place allreduce max %d", rbuf[0]);

    /* allgather, allgatherv */
    for (i = 0; i < N; i++)
        sbuf[i] = rank * 7 + i;
    MPI_Allgather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++)
        for (i = 0; i < N; i++)
            CHECK(rbuf[j * N + i] == j * 7 + i, "allgather [%d][%d]", j, i);
    for (j = 0; j < size; j++) {
        counts[j] = (j % 2) + 1;
        displs[j] = j * 2;
    }
    MPI_Allgatherv(sbuf, rank % 2 + 1, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++)
        for (i = 0; i < counts[j]; i++)
            CHECK(rbuf[displs[j] + i] == j * 7 + i, "allgatherv [%d][%d]", j, i);

    /* alltoall, alltoallv */
    for (j = 0; j < size; j++)
        for (i = 0; i < N; i++)
            sbuf[j * N + i] = rank * 1000 + j * 10 + i;
    MPI_Alltoall(sbuf, N, MPI_INT, rbuf, N, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++)
        for (i = 0; i < N; i++)
            CHECK(rbuf[j * N + i] == j * 1000 + rank * 10 + i, "alltoall [%d][%d]", j, i);
    for (j = 0; j < size; j++) {
        counts[j] = (rank + j) % 3; /* what I send to j */
        displs[j] = j * N;
        rcounts[j] = (j + rank) % 3; /* what j sends me */
        rdispls[j] = j * N;
    }
    MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    for (j = 0; j < size; j++)
        for (i = 0; i < rcounts[j]; i++)
            CHECK(rbuf[j * N + i] == j * 1000 + rank * 10 + i, "alltoallv [%d][%d]", j, i);

    /* alltoallw: one int to each peer, byte displacements, then in place */
    {
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
        for (j = 0; j < size; j++) {
            counts[j] = 1;
            displs[j] = j * (int)sizeof(int);
            types[j] = MPI_INT;
            sbuf[j] = rank * 100 + j;
        }
        MPI_Alltoallw(sbuf, counts, displs, types, rbuf, counts, displs, types, MPI_COMM_WORLD);
        for (j = 0; j < size; j++)
            CHECK(rbuf[j] == j * 100 + rank, "alltoallw [%d]=%d", j, rbuf[j]);
        for (j = 0; j < size; j++)
            rbuf[j] = rank * 1000 + j;
        MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, counts, displs, types, MPI_COMM_WORLD);
        for (j = 0; j < size; j++)
            CHECK(rbuf[j] == j * 1000 + rank, "in-place alltoallw [%d]=%d", j, rbuf[j]);
        free(types);
    }

    /* reduce_scatter_block, reduce_scatter */
    for (i = 0; i < 2 * size; i++)
        sbuf[i] = i;
    MPI_Reduce_scatter_block(sbuf, rbuf, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rbuf[0] == 2 * rank * size && rbuf[1] == (2 * rank + 1) * size, "reduce_scatter_block %d %d", rbuf[0], rbuf[1]);
    for (j = 0; j < size; j++)
        counts[j] = j % 2 + 1;
    {
        int off = 0;
        for (j = 0; j < rank; j++)
            off += counts[j];
        for (i = 0; i < 2 * size; i++)
            sbuf[i] = i;
        MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (i = 0; i < counts[rank]; i++)
            CHECK(rbuf[i] == (off + i) * size, "reduce_scatter [%d]=%d", i, rbuf[i]);
    }

    /* scan, exscan */
    sbuf[0] = rank + 1;
    MPI_Scan(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rbuf[0] == (rank + 1) * (rank + 2) / 2, "scan %d", rbuf[0]);
    rbuf[0] = -5;
    MPI_Exscan(sbuf, rbuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0)
        CHECK(rbuf[0] == rank * (rank + 1) / 2, "exscan %d", rbuf[0]);

    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
    free(rcounts);
    free(rdispls);
    MPI_Finalize();
    return total != 0 && rank == 0;
}
