/* The MPI profile's test (smpi/profile, smpi/profile-file): every rank
   reduces COUNT doubles ROUNDS times with MPI_Allreduce, then a bcast from
   rank 0, a ring of sendrecvs and a barrier, and checks the sums. Rank 0
   prints the result after the last call, so that the profile's table
   follows the program's output. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 1000
#define ROUNDS 7

int main(int argc, char **argv) {
  int rank, size, errors = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double *in = malloc(sizeof(double) * COUNT), *out = malloc(sizeof(double) * COUNT);
  for (int round = 0; round < ROUNDS; round++) {
    for (int i = 0; i < COUNT; i++) in[i] = rank + round + i;
    MPI_Allreduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < COUNT; i++) {
      /* The sum over ranks of rank + round + i. */
      double want = (double)size * (size - 1) / 2 + (double)size * (round + i);
      if (out[i] != want) errors++;
    }
  }
  int seed = rank == 0 ? 42 : 0;
  MPI_Bcast(&seed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (seed != 42) errors++;
  int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (got != prev) errors++;
  int all_errors = 0;
  MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%d ranks, %d allreduces: %d errors\n", size, ROUNDS, all_errors);
  free(in);
  free(out);
  MPI_Finalize();
  return all_errors != 0;
}
