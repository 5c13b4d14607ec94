/* One collective over MPI_COMM_WORLD, timed in simulated seconds:
 *
 *   collective allreduce BYTES   MPI_Allreduce (MPI_SUM) of BYTES/8 doubles
 *   collective alltoall BYTES    MPI_Alltoall of BYTES-byte blocks
 *   collective bcast BYTES       MPI_Bcast of BYTES/8 doubles from rank 2
 *   collective reduce BYTES      MPI_Reduce (MPI_SUM) of BYTES/8 doubles to rank 3
 *   collective allgather BYTES   MPI_Allgather of BYTES-byte blocks
 *   collective reduce_scatter BYTES  MPI_Reduce_scatter (MPI_SUM), rank r
 *                                getting BYTES/8 + r % 3 doubles
 *   collective gather BYTES      MPI_Gather of BYTES-byte blocks to rank 1
 *   collective allgatherv BYTES  MPI_Allgatherv, rank r contributing
 *                                BYTES/4 + r % 3 ints
 *
 * (roots modulo the number of ranks). The algorithm is the emulator's
 * choice (smpi/allreduce, smpi/alltoall, smpi/bcast, smpi/reduce,
 * smpi/allgather, smpi/allgatherv, smpi/reduce_scatter, smpi/gather).
 * Every rank checks its result; rank 0 prints the time the slowest rank
 * took, from a barrier before the call, and whether the data was right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int allreduce(int rank, int size, long bytes) {
    long n = bytes / (long)sizeof(double);
    if (n < 1)
        n = 1;
    double *in = malloc(sizeof(double) * (size_t)n);
    double *out = malloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++)
        in[i] = (double)(rank + i % 7);
    MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int bad = 0;
    /* Small integers: the sum is exact whatever the order. */
    for (long i = 0; i < n; i++)
        bad |= out[i] != (double)size * (size - 1) / 2 + (double)size * (double)(i % 7);
    free(in);
    free(out);
    return bad;
}

static long doubles(long bytes) {
    return bytes / (long)sizeof(double) < 1 ? 1 : bytes / (long)sizeof(double);
}

static int bcast(int rank, int size, long bytes) {
    long n = doubles(bytes);
    int root = 2 % size, bad = 0;
    double *buf = malloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++)
        buf[i] = rank == root ? (double)(i % 1000) : -1.0;
    MPI_Bcast(buf, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
    for (long i = 0; i < n; i++)
        bad |= buf[i] != (double)(i % 1000);
    free(buf);
    return bad;
}

static int reduce(int rank, int size, long bytes) {
    long n = doubles(bytes);
    int root = 3 % size, bad = 0;
    double *in = malloc(sizeof(double) * (size_t)n);
    double *out = malloc(sizeof(double) * (size_t)n);
    for (long i = 0; i < n; i++)
        in[i] = (double)(rank + i % 7);
    MPI_Reduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root)
        for (long i = 0; i < n; i++)
            bad |= out[i] != (double)size * (size - 1) / 2 + (double)size * (double)(i % 7);
    free(in);
    free(out);
    return bad;
}

/* Rank r gets BYTES/8 + r % 3 doubles: irregular counts. */
static int reduce_scatter(int rank, int size, long bytes) {
    long n = doubles(bytes), total = 0;
    int *counts = malloc(sizeof(int) * (size_t)size), bad = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(n + r % 3);
        total += counts[r];
    }
    double *in = malloc(sizeof(double) * (size_t)total);
    double *out = malloc(sizeof(double) * (size_t)counts[rank]);
    for (long i = 0; i < total; i++)
        in[i] = (double)(rank + i % 7);
    MPI_Reduce_scatter(in, out, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    long first = 0;
    for (int r = 0; r < rank; r++)
        first += counts[r];
    for (long i = 0; i < counts[rank]; i++)
        bad |= out[i] != (double)size * (size - 1) / 2 + (double)size * (double)((first + i) % 7);
    free(counts);
    free(in);
    free(out);
    return bad;
}

static int allgather(int rank, int size, long bytes) {
    long n = bytes / (long)sizeof(int) < 1 ? 1 : bytes / (long)sizeof(int);
    int *mine = malloc(sizeof(int) * (size_t)n);
    int *all = malloc(sizeof(int) * (size_t)n * (size_t)size);
    for (long i = 0; i < n; i++)
        mine[i] = rank * 7919 + (int)(i % 1000);
    MPI_Allgather(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    for (long r = 0; r < size; r++)
        for (long i = 0; i < n; i++)
            bad |= all[r * n + i] != (int)r * 7919 + (int)(i % 1000);
    free(mine);
    free(all);
    return bad;
}

/* Rank r contributes BYTES/4 + r % 3 ints: irregular counts. */
static int allgatherv(int rank, int size, long bytes) {
    long n = bytes / (long)sizeof(int) < 1 ? 1 : bytes / (long)sizeof(int);
    int *counts = malloc(sizeof(int) * (size_t)size);
    int *displs = malloc(sizeof(int) * (size_t)size);
    long total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)(n + r % 3);
        displs[r] = (int)total;
        total += counts[r];
    }
    int *mine = malloc(sizeof(int) * (size_t)counts[rank]);
    int *all = malloc(sizeof(int) * (size_t)total);
    for (long i = 0; i < counts[rank]; i++)
        mine[i] = rank * 7919 + (int)(i % 1000);
    MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    for (int r = 0; r < size; r++)
        for (long i = 0; i < counts[r]; i++)
            bad |= all[displs[r] + i] != r * 7919 + (int)(i % 1000);
    free(counts);
    free(displs);
    free(mine);
    free(all);
    return bad;
}

static int gather(int rank, int size, long bytes) {
    long n = bytes / (long)sizeof(int) < 1 ? 1 : bytes / (long)sizeof(int);
    int root = 1 % size, bad = 0;
    int *mine = malloc(sizeof(int) * (size_t)n);
    int *all = rank == root ? malloc(sizeof(int) * (size_t)n * (size_t)size) : NULL;
    for (long i = 0; i < n; i++)
        mine[i] = rank * 7919 + (int)(i % 1000);
    MPI_Gather(mine, (int)n, MPI_INT, all, (int)n, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        for (long r = 0; r < size; r++)
            for (long i = 0; i < n; i++)
                bad |= all[r * n + i] != (int)r * 7919 + (int)(i % 1000);
    free(mine);
    free(all);
    return bad;
}

static int alltoall(int rank, int size, long bytes) {
    long n = bytes / (long)sizeof(int);
    if (n < 1)
        n = 1;
    int *out = malloc(sizeof(int) * (size_t)n * (size_t)size);
    int *in = malloc(sizeof(int) * (size_t)n * (size_t)size);
    for (long r = 0; r < size; r++)
        for (long i = 0; i < n; i++)
            out[r * n + i] = rank * 7919 + (int)r * 31 + (int)(i % 1000);
    MPI_Alltoall(out, (int)n, MPI_INT, in, (int)n, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    for (long r = 0; r < size; r++)
        for (long i = 0; i < n; i++)
            bad |= in[r * n + i] != (int)r * 7919 + rank * 31 + (int)(i % 1000);
    free(out);
    free(in);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: collective "
                    "allreduce|alltoall|allgather|allgatherv|bcast|reduce|reduce_scatter|gather "
                    "BYTES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bytes = atol(argv[2]);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    int bad;
    if (!strcmp(argv[1], "allreduce")) {
        bad = allreduce(rank, size, bytes);
    } else if (!strcmp(argv[1], "alltoall")) {
        bad = alltoall(rank, size, bytes);
    } else if (!strcmp(argv[1], "allgather")) {
        bad = allgather(rank, size, bytes);
    } else if (!strcmp(argv[1], "bcast")) {
        bad = bcast(rank, size, bytes);
    } else if (!strcmp(argv[1], "reduce")) {
        bad = reduce(rank, size, bytes);
    } else if (!strcmp(argv[1], "allgatherv")) {
        bad = allgatherv(rank, size, bytes);
    } else if (!strcmp(argv[1], "gather")) {
        bad = gather(rank, size, bytes);
    } else if (!strcmp(argv[1], "reduce_scatter")) {
        bad = reduce_scatter(rank, size, bytes);
    } else {
        if (rank == 0)
            fprintf(stderr, "unknown collective '%s'\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 2);
        return 2;
    }
    double took = MPI_Wtime() - start, slowest;
    int anybad = 0;
    MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s of %ld bytes on %d ranks: %.9f s simulated, data %s\n", argv[1], bytes, size,
               slowest, anybad ? "WRONG" : "right");
    MPI_Finalize();
    return anybad;
}
