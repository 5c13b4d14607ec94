/* Every call SimGrid's time-independent traces record and replay, on
   MPI_COMM_WORLD, with explicit computations: the traces of tests/e2e/traces.rs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int n = 100;
  double *a = malloc(sizeof(double) * n * size), *b = malloc(sizeof(double) * n * size);
  for (int i = 0; i < n * size; i++) a[i] = i;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int it = 0; it < 2; it++) {
    MPI_Request r[2];
    MPI_Irecv(b, n, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(a, n, MPI_DOUBLE, next, 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    if (rank % 2 == 0) MPI_Send(a, 100 * (it + 1), MPI_INT, next, 3, MPI_COMM_WORLD);
    else MPI_Recv(b, 100 * (it + 1), MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 50, MPI_DOUBLE, next, 1, b, 50, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request q;
    MPI_Isend(a, 10, MPI_CHAR, prev, 9, MPI_COMM_WORLD, &q);
    MPI_Recv(b, 10, MPI_CHAR, next, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(a, n, MPI_DOUBLE, it % size, MPI_COMM_WORLD);
    MPI_Reduce(a, b, n / 2, MPI_DOUBLE, MPI_SUM, 1 % size, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(a, 20, MPI_INT, b, 20, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(a, 30, MPI_INT, b, 30, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(a, 40, MPI_INT, b, 40, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(a, 25, MPI_INT, b, 25, MPI_INT, MPI_COMM_WORLD);
    int sc[1024], sd[1024], rc[1024], rd[1024];
    for (int i = 0; i < size; i++) { sc[i] = (i + rank) % 5 + 1; sd[i] = 8 * i; rc[i] = (i + rank) % 5 + 1; rd[i] = 8 * i; }
    for (int i = 0; i < size; i++) rc[i] = (rank + i) % 5 + 1;
    MPI_Alltoallv(a, sc, sd, MPI_INT, b, sc, sd, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) rc[i] = i + 1;
    MPI_Gatherv(a, rank + 1, MPI_INT, b, rc, rd, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgatherv(a, rank + 1, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Scatterv(a, rc, rd, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, rc, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, b, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    smpi_execute_flops(1e6 * (rank + 1));
  }
  MPI_Finalize();
  return 0;
}
