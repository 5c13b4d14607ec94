/* Lab: the transposition of a spectral model, many MPI_Alltoallv at once.
 *
 *   spectral_transpose GROUP BYTES
 *
 * A spectral atmosphere model moves between grid space and spectral space
 * by transposing its fields: the ranks are cut into sub-communicators of
 * GROUP contiguous ranks (MPI_Comm_split), and every sub-communicator runs
 * its own MPI_Alltoallv at the same time as the others. The truncation
 * makes the blocks uneven: rank i sends BYTES * (1 + (i + j) % 3) / 2 to
 * member j. Rank 0 prints the simulated time of one transposition (the
 * slowest rank's) and whether every byte arrived. The algorithm is
 * smpi/alltoallv's: compare them with --cfg=smpi/alltoallv:NAME. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long block(int i, int j, long bytes) {
    return bytes * (1 + (i + j) % 3) / 2;
}

static unsigned char payload(int i, int j, long k) {
    return (unsigned char)(i * 13 + j * 7 + k);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: spectral_transpose GROUP BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int group = atoi(argv[1]);
    long bytes = atol(argv[2]);
    if (group < 1 || size % group != 0) {
        if (rank == 0)
            fprintf(stderr, "GROUP must divide the %d ranks\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank / group, rank, &sub);
    int me, n;
    MPI_Comm_rank(sub, &me);
    MPI_Comm_size(sub, &n);
    int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
    int *rc = malloc(sizeof(int) * (size_t)n), *rd = malloc(sizeof(int) * (size_t)n);
    long stotal = 0, rtotal = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = (int)block(me, j, bytes);
        rc[j] = (int)block(j, me, bytes);
        sd[j] = (int)stotal;
        rd[j] = (int)rtotal;
        stotal += sc[j];
        rtotal += rc[j];
    }
    unsigned char *out = malloc((size_t)stotal + 1), *in = malloc((size_t)rtotal + 1);
    for (int j = 0; j < n; j++)
        for (long k = 0; k < sc[j]; k++)
            out[sd[j] + k] = payload(me, j, k);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Alltoallv(out, sc, sd, MPI_BYTE, in, rc, rd, MPI_BYTE, sub);
    double took = MPI_Wtime() - start, slowest;
    int bad = 0, anybad = 0;
    for (int j = 0; j < n; j++)
        for (long k = 0; k < rc[j]; k++)
            bad |= in[rd[j] + k] != payload(j, me, k);
    MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d groups of %d ranks, %ld bytes per pair on average: %.9f s, data %s\n",
               size / group, group, bytes, slowest, anybad ? "WRONG" : "right");
    free(out);
    free(in);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    MPI_Comm_free(&sub);
    MPI_Finalize();
    return 0;
}
