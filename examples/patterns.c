/* Communication patterns whose simulated times are compared with SimGrid's.
 *
 *   patterns PATTERN BYTES
 *
 * PATTERN is one of
 *   pingpong  rank 0 sends BYTES to rank 1, which sends them back (10 times);
 *   incast    every other rank sends BYTES to rank 0 at once;
 *   ring      every rank sends BYTES to the next one and receives from the
 *             previous one (MPI_Sendrecv);
 *   half      the same shifted by half the ranks: rank r sends to r+P/2;
 *   pairwise  an all-to-all in size-1 rounds: in round k, rank r sends
 *             BYTES to r+k and receives from r-k;
 *   alltoall  one MPI_Alltoall of BYTES-byte blocks (the algorithm is the
 *             emulator's choice, or smpi/alltoall's).
 *
 * Each rank notes the simulated date at which it is done; rank 0 prints the
 * latest one. Nothing else communicates before that date, so the figure is
 * the pattern's own time from MPI_Init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pingpong(int rank, char *buf, int bytes) {
    for (int i = 0; i < 10; i++) {
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static void incast(int rank, int size, char *buf, int bytes) {
    if (rank == 0) {
        MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)size);
        char *in = malloc((size_t)bytes * (size_t)size);
        for (int r = 1; r < size; r++)
            MPI_Irecv(in + (size_t)bytes * (size_t)r, bytes, MPI_BYTE, r, 0, MPI_COMM_WORLD,
                      &reqs[r]);
        MPI_Waitall(size - 1, reqs + 1, MPI_STATUSES_IGNORE);
        free(in);
        free(reqs);
    } else {
        MPI_Send(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
}

static void shift(int rank, int size, char *buf, char *in, int bytes, int k) {
    MPI_Sendrecv(buf, bytes, MPI_BYTE, (rank + k) % size, 0, in, bytes, MPI_BYTE,
                 (rank - k + size) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: patterns pingpong|incast|ring|half|pairwise|alltoall BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    int bytes = atoi(argv[2]);
    char *buf = calloc((size_t)bytes + 1, 1);
    char *in = calloc((size_t)bytes + 1, 1);
    if (!strcmp(pattern, "pingpong") && size >= 2) {
        pingpong(rank, buf, bytes);
    } else if (!strcmp(pattern, "incast")) {
        incast(rank, size, buf, bytes);
    } else if (!strcmp(pattern, "ring")) {
        shift(rank, size, buf, in, bytes, 1);
    } else if (!strcmp(pattern, "half") && size >= 2) {
        shift(rank, size, buf, in, bytes, size / 2);
    } else if (!strcmp(pattern, "pairwise")) {
        for (int k = 1; k < size; k++)
            shift(rank, size, buf, in, bytes, k);
    } else if (!strcmp(pattern, "alltoall")) {
        char *out = calloc((size_t)bytes * (size_t)size + 1, 1);
        char *all = calloc((size_t)bytes * (size_t)size + 1, 1);
        MPI_Alltoall(out, bytes, MPI_BYTE, all, bytes, MPI_BYTE, MPI_COMM_WORLD);
        free(out);
        free(all);
    } else {
        if (rank == 0)
            fprintf(stderr, "unknown pattern '%s' (or fewer than 2 ranks)\n", pattern);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double done = MPI_Wtime(), last;
    MPI_Reduce(&done, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %d bytes on %d ranks: %.9f s\n", pattern, bytes, size, last);
    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
