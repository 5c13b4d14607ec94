/* Lab: a halo wider than the neighbour's subdomain.
 *
 *   wide_halo CELLS WIDTH
 *
 * A periodic 1-D domain is cut into blocks of CELLS doubles, one per rank.
 * Each rank needs WIDTH cells on each side (a wide stencil, or several
 * time steps per exchange). When WIDTH > CELLS the halo reaches past the
 * neighbours, to the neighbours of neighbours. Two ways to fill it:
 *
 *   direct  every rank exchanges with each rank within reach, all
 *           messages posted at once (2 ceil(WIDTH/CELLS) partners);
 *   relay   ceil(WIDTH/CELLS) steps of nearest-neighbour exchange, each
 *           forwarding what the previous step brought.
 *
 * Direct sends fewer bytes through fewer hops but more messages; relay
 * pays one latency per step. Rank 0 prints the simulated time of each
 * (the slowest rank's) and checks every halo cell. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static long n, w; /* cells per rank, halo width */
static double *a; /* [left halo w | own n | right halo w] */

static long min(long x, long y) { return x < y ? x : y; }

/* Cells that distance-d partners exchange. */
static long chunk(long d) { return min(d * n, w) - (d - 1) * n; }

static void fill(void) {
    for (long i = 0; i < 2 * w + n; i++)
        a[i] = (i >= w && i < w + n) ? (double)(rank * n + i - w) : -1.0;
}

static int check(void) {
    long total = n * size;
    int bad = 0;
    for (long i = 0; i < 2 * w + n; i++) {
        long g = ((rank * n - w + i) % total + total) % total;
        bad |= a[i] != (double)g;
    }
    return bad;
}

static void direct(void) {
    long reach = (w + n - 1) / n;
    MPI_Request *r = malloc(sizeof(MPI_Request) * (size_t)(4 * reach));
    int k = 0;
    for (long d = 1; d <= reach; d++) {
        long c = chunk(d);
        int lower = (int)((rank - d) % size + size) % size, upper = (int)((rank + d) % size);
        MPI_Irecv(a + w - (d - 1) * n - c, (int)c, MPI_DOUBLE, lower, (int)d, MPI_COMM_WORLD, &r[k++]);
        MPI_Irecv(a + w + n + (d - 1) * n, (int)c, MPI_DOUBLE, upper, (int)(-d + 1000000),
                  MPI_COMM_WORLD, &r[k++]);
        MPI_Isend(a + w + n - c, (int)c, MPI_DOUBLE, upper, (int)d, MPI_COMM_WORLD, &r[k++]);
        MPI_Isend(a + w, (int)c, MPI_DOUBLE, lower, (int)(-d + 1000000), MPI_COMM_WORLD, &r[k++]);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    free(r);
}

static void relay(void) {
    long steps = (w + n - 1) / n;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (long t = 1; t <= steps; t++) {
        long c = chunk(t);
        MPI_Request r[4];
        MPI_Irecv(a + w - (t - 1) * n - c, (int)c, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Irecv(a + w + n + (t - 1) * n, (int)c, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(a + w + n - (t - 1) * n - c, (int)c, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &r[2]);
        MPI_Isend(a + w + (t - 1) * n, (int)c, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: wide_halo CELLS WIDTH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    n = atol(argv[1]);
    w = atol(argv[2]);
    if (n < 1 || w < 1 || 2 * ((w + n - 1) / n) >= size) {
        if (rank == 0)
            fprintf(stderr, "need CELLS >= 1 and a halo reaching fewer than half the %d ranks\n",
                    size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    a = malloc(sizeof(double) * (size_t)(2 * w + n));
    const char *names[2] = {"direct", "relay"};
    void (*methods[2])(void) = {direct, relay};
    if (rank == 0)
        printf("%d ranks, %ld cells each, halo of %ld cells (%ld ranks deep)\n", size, n, w,
               (w + n - 1) / n);
    for (int m = 0; m < 2; m++) {
        fill();
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        methods[m]();
        double took = MPI_Wtime() - start, slowest;
        int bad = check(), anybad = 0;
        MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("  %-7s %.9f s, halo %s\n", names[m], slowest, anybad ? "WRONG" : "right");
    }
    free(a);
    MPI_Finalize();
    return 0;
}
