/* Lab: the transpositions of a spectral transform on a 2-D decomposition.
 *
 *   transpose_2d ROWS BYTES [STEPS [shared]]
 *
 * A spectral atmosphere model at scale (the exascale study's) splits its
 * P ranks into a ROWS x COLS grid, rank = row * COLS + col. Going from
 * grid space to spectral space it transposes its fields twice: first
 * inside each row (the COLS ranks of a row, contiguous: the Fourier
 * transform along the latitudes needs whole latitude circles), then
 * inside each column (the ROWS ranks of a column, COLS apart: the Legendre
 * transform needs whole columns of wavenumbers). Each transposition is one
 * MPI_Alltoallv in every row (or column) communicator at the same time.
 *
 * The row transposition is even: BYTES from every member to every member.
 * The column one follows the triangular truncation: zonal wavenumber m has
 * fewer coefficients the larger m is, and the wavenumbers are dealt to the
 * members of a column in blocks, so member j of a column of n receives
 * BYTES * (2n - 2j - 1) / n from each member: about twice BYTES for the
 * first member, BYTES / n for the last, BYTES on average.
 *
 * STEPS (default 1) transforms run one after the other. Rank 0 prints the
 * simulated time of the row transpositions and of both (the slowest
 * rank's, measured from a common start, summed over the steps), and
 * whether every byte arrived. With "shared" the buffers come from
 * SMPI_SHARED_MALLOC (folded: their content is meaningless, so nothing is
 * checked), so that 16,384 ranks fit in memory; the simulated times are
 * the same. */
#include <mpi.h>
#include <smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes that a member sends to member j of a communicator of n. */
static long row_block(long bytes) { return bytes; }
static long column_block(int j, int n, long bytes) {
    return bytes * (2L * n - 2L * j - 1) / n;
}

/* The byte k of what world rank `from` sends to world rank `to` at a step. */
static unsigned char payload(int from, int to, int step, long k) {
    return (unsigned char)(from * 131 + to * 7 + step * 29 + k);
}

struct exchange {
    MPI_Comm comm;
    int me, n;
    int *world; /* world rank of each member */
    int *sc, *sd, *rc, *rd;
    long stotal, rtotal;
};

/* The exchange inside `comm`, whose member j is world rank first + j * stride. */
static void plan(struct exchange *x, MPI_Comm comm, int first, int stride, long bytes, int column) {
    x->comm = comm;
    MPI_Comm_rank(comm, &x->me);
    MPI_Comm_size(comm, &x->n);
    int n = x->n;
    x->world = malloc(sizeof(int) * (size_t)n);
    for (int j = 0; j < n; j++)
        x->world[j] = first + j * stride;
    x->sc = malloc(sizeof(int) * (size_t)n);
    x->sd = malloc(sizeof(int) * (size_t)n);
    x->rc = malloc(sizeof(int) * (size_t)n);
    x->rd = malloc(sizeof(int) * (size_t)n);
    x->stotal = x->rtotal = 0;
    for (int j = 0; j < n; j++) {
        x->sc[j] = (int)(column ? column_block(j, n, bytes) : row_block(bytes));
        x->rc[j] = (int)(column ? column_block(x->me, n, bytes) : row_block(bytes));
        x->sd[j] = (int)x->stotal;
        x->rd[j] = (int)x->rtotal;
        x->stotal += x->sc[j];
        x->rtotal += x->rc[j];
    }
}

static void release(struct exchange *x) {
    free(x->world);
    free(x->sc);
    free(x->sd);
    free(x->rc);
    free(x->rd);
    MPI_Comm_free(&x->comm);
}

static void fill(const struct exchange *x, unsigned char *out, int rank, int step) {
    for (int j = 0; j < x->n; j++)
        for (long k = 0; k < x->sc[j]; k++)
            out[x->sd[j] + k] = payload(rank, x->world[j], step, k);
}

static int check(const struct exchange *x, const unsigned char *in, int rank, int step) {
    int bad = 0;
    for (int j = 0; j < x->n; j++)
        for (long k = 0; k < x->rc[j]; k++)
            bad |= in[x->rd[j] + k] != payload(x->world[j], rank, step, k);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || argc > 5) {
        if (rank == 0)
            fprintf(stderr, "usage: transpose_2d ROWS BYTES [STEPS [shared]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rows = atoi(argv[1]);
    long bytes = atol(argv[2]);
    int steps = argc > 3 ? atoi(argv[3]) : 1;
    int shared = argc > 4 && strcmp(argv[4], "shared") == 0;
    if (rows < 1 || size % rows != 0 || bytes < 1 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "ROWS must divide the %d ranks; BYTES, STEPS >= 1\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int cols = size / rows;
    MPI_Comm row_comm, column_comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank / cols, rank, &row_comm);
    MPI_Comm_split(MPI_COMM_WORLD, rank % cols, rank, &column_comm);
    struct exchange row, column;
    plan(&row, row_comm, rank / cols * cols, 1, bytes, 0);
    plan(&column, column_comm, rank % cols, cols, bytes, 1);
    long most = row.stotal;
    if (row.rtotal > most)
        most = row.rtotal;
    if (column.stotal > most)
        most = column.stotal;
    if (column.rtotal > most)
        most = column.rtotal;
    size_t len = (size_t)most + 1;
    unsigned char *out = shared ? SMPI_SHARED_MALLOC(len) : malloc(len);
    unsigned char *in = shared ? SMPI_SHARED_MALLOC(len) : malloc(len);
    double row_time = 0, both_time = 0;
    int bad = 0;
    for (int s = 0; s < steps; s++) {
        if (!shared)
            fill(&row, out, rank, 2 * s);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        MPI_Alltoallv(out, row.sc, row.sd, MPI_BYTE, in, row.rc, row.rd, MPI_BYTE, row.comm);
        double after_rows = MPI_Wtime();
        if (!shared) {
            bad |= check(&row, in, rank, 2 * s);
            fill(&column, out, rank, 2 * s + 1);
        }
        MPI_Alltoallv(out, column.sc, column.sd, MPI_BYTE, in, column.rc, column.rd, MPI_BYTE,
                      column.comm);
        double end = MPI_Wtime();
        if (!shared)
            bad |= check(&column, in, rank, 2 * s + 1);
        double mine[2] = {after_rows - start, end - start}, slowest[2];
        MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        row_time += slowest[0];
        both_time += slowest[1];
    }
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d x %d ranks, %ld bytes per pair, %d step%s: rows %.9f s, rows+columns %.9f s, "
               "data %s\n",
               rows, cols, bytes, steps, steps > 1 ? "s" : "", row_time, both_time,
               shared ? "not checked (shared buffers)" : anybad ? "WRONG" : "right");
    if (shared) {
        SMPI_SHARED_FREE(out);
        SMPI_SHARED_FREE(in);
    } else {
        free(out);
        free(in);
    }
    release(&row);
    release(&column);
    MPI_Finalize();
    return anybad;
}
