/* Lab: a sparse exchange, MPI_Alltoallv against the crystal router.
 *
 *   sparse_exchange BYTES [REPEATS]
 *
 * The ranks form a periodic 3-D grid (MPI_Dims_create); every rank sends
 * BYTES to each of its 26 neighbours, as a spectral-element code does when
 * it assembles values shared along faces, edges and corners. This is done
 * two ways, REPEATS times each (default 1), and rank 0 prints the
 * simulated time of one exchange for each:
 *
 *   alltoallv  one MPI_Alltoallv whose counts are zero except for the
 *              neighbours: the library's algorithm decides what the zeros
 *              cost (the default posts a message to every rank);
 *   crystal    the crystal router, written here on point-to-point calls as
 *              applications do: log2(P) stages; in each, the ranks split
 *              into two halves, every rank hands the records bound for the
 *              other half to its partner there, and carries on in its own
 *              half. A record is (destination, source, length, payload).
 *              With P not a power of two the halves differ by one rank, and
 *              the extra rank of the larger half sends to the last rank of
 *              the smaller one (recursive bisection).
 *
 * Both methods check every byte received. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEIGHBOURS 26

static int nranks, me, dims[3], coords[3];
static long bytes;
static int *neighbour; /* NEIGHBOURS ranks, with repeats on small grids */

static int rank_at(int x, int y, int z) {
    x = (x % dims[0] + dims[0]) % dims[0];
    y = (y % dims[1] + dims[1]) % dims[1];
    z = (z % dims[2] + dims[2]) % dims[2];
    return (x * dims[1] + y) * dims[2] + z;
}

/* Byte k of what rank src sends to rank dst. */
static unsigned char payload(int src, int dst, long k) {
    return (unsigned char)(src * 131 + dst * 31 + k * 7);
}

/* ------------------------------------------------------------ alltoallv */

static int exchange_alltoallv(void) {
    int *scounts = calloc((size_t)nranks, sizeof(int));
    int *rcounts = calloc((size_t)nranks, sizeof(int));
    int *sdispls = calloc((size_t)nranks, sizeof(int));
    int *rdispls = calloc((size_t)nranks, sizeof(int));
    /* The grid is symmetric: whoever I send to sends to me, as often. */
    for (int i = 0; i < NEIGHBOURS; i++) {
        scounts[neighbour[i]] += (int)bytes;
        rcounts[neighbour[i]] += (int)bytes;
    }
    for (int r = 1; r < nranks; r++) {
        sdispls[r] = sdispls[r - 1] + scounts[r - 1];
        rdispls[r] = rdispls[r - 1] + rcounts[r - 1];
    }
    long total = NEIGHBOURS * bytes;
    unsigned char *out = malloc((size_t)total + 1), *in = malloc((size_t)total + 1);
    for (int r = 0; r < nranks; r++)
        for (long k = 0; k < scounts[r]; k++)
            out[sdispls[r] + k] = payload(me, r, k % bytes);
    MPI_Alltoallv(out, scounts, sdispls, MPI_BYTE, in, rcounts, rdispls, MPI_BYTE,
                  MPI_COMM_WORLD);
    int bad = 0;
    for (int r = 0; r < nranks; r++)
        for (long k = 0; k < rcounts[r]; k++)
            bad |= in[rdispls[r] + k] != payload(r, me, k % bytes);
    free(out);
    free(in);
    free(scounts);
    free(rcounts);
    free(sdispls);
    free(rdispls);
    return bad;
}

/* -------------------------------------------------------- crystal router */

struct records {
    unsigned char *data;
    long used, capacity;
};

struct header {
    int dest, src;
    long len;
};

static void append(struct records *r, const struct header *h, const unsigned char *body) {
    long need = r->used + (long)sizeof *h + h->len;
    if (need > r->capacity) {
        r->capacity = need * 2;
        r->data = realloc(r->data, (size_t)r->capacity);
    }
    memcpy(r->data + r->used, h, sizeof *h);
    memcpy(r->data + r->used + sizeof *h, body, (size_t)h->len);
    r->used = need;
}

/* Moves the records of `all` bound for [lo, hi) to `out`, keeps the rest. */
static void split(struct records *all, struct records *out, int lo, int hi) {
    struct records keep = {0};
    for (long at = 0; at < all->used;) {
        struct header h;
        memcpy(&h, all->data + at, sizeof h);
        const unsigned char *body = all->data + at + sizeof h;
        append(h.dest >= lo && h.dest < hi ? out : &keep, &h, body);
        at += (long)sizeof h + h.len;
    }
    free(all->data);
    *all = keep;
}

static void receive_into(struct records *r, int from, int tag) {
    MPI_Status st;
    int n;
    MPI_Probe(from, tag, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    if (r->used + n > r->capacity) {
        r->capacity = (r->used + n) * 2;
        r->data = realloc(r->data, (size_t)r->capacity);
    }
    MPI_Recv(r->data + r->used, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    r->used += n;
}

static int exchange_crystal(void) {
    struct records held = {0};
    unsigned char *body = malloc((size_t)bytes + 1);
    for (int i = 0; i < NEIGHBOURS; i++) {
        for (long k = 0; k < bytes; k++)
            body[k] = payload(me, neighbour[i], k);
        struct header h = {neighbour[i], me, bytes};
        append(&held, &h, body);
    }
    int lo = 0, hi = nranks, tag = 0;
    while (hi - lo > 1) {
        int n = hi - lo, nl = (n + 1) / 2, nh = n - nl, mid = lo + nl;
        int lower = me < mid;
        struct records away = {0};
        if (lower)
            split(&held, &away, mid, hi);
        else
            split(&held, &away, lo, mid);
        /* Partners: lower offset i <-> upper offset i; the extra lower rank
         * (n odd) sends to the last upper rank and receives nothing. */
        int off = lower ? me - lo : me - mid;
        int partner = lower ? (off < nh ? mid + off : hi - 1) : lo + off;
        MPI_Request req;
        MPI_Isend(away.data, (int)away.used, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &req);
        if (!lower || off < nh)
            receive_into(&held, partner, tag);
        if (!lower && off == nh - 1 && nl > nh)
            receive_into(&held, mid - 1, tag);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(away.data);
        if (lower)
            hi = mid;
        else
            lo = mid;
        tag++;
    }
    /* Everything held is for me: check it, and that each neighbour's
     * records all arrived. */
    int bad = 0, got = 0;
    for (long at = 0; at < held.used;) {
        struct header h;
        memcpy(&h, held.data + at, sizeof h);
        const unsigned char *b = held.data + at + sizeof h;
        bad |= h.dest != me || h.len != bytes;
        for (long k = 0; k < h.len && !bad; k++)
            bad |= b[k] != payload(h.src, me, k);
        got++;
        at += (long)sizeof h + h.len;
    }
    bad |= got != NEIGHBOURS;
    free(held.data);
    free(body);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (argc < 2) {
        if (me == 0)
            fprintf(stderr, "usage: sparse_exchange BYTES [REPEATS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bytes = atol(argv[1]);
    int repeats = argc > 2 ? atoi(argv[2]) : 1;
    MPI_Dims_create(nranks, 3, dims);
    coords[0] = me / (dims[1] * dims[2]);
    coords[1] = me / dims[2] % dims[1];
    coords[2] = me % dims[2];
    neighbour = malloc(sizeof(int) * NEIGHBOURS);
    int n = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++)
                if (dx || dy || dz)
                    neighbour[n++] = rank_at(coords[0] + dx, coords[1] + dy, coords[2] + dz);
    const char *names[2] = {"alltoallv", "crystal"};
    int (*methods[2])(void) = {exchange_alltoallv, exchange_crystal};
    if (me == 0)
        printf("%d ranks (%dx%dx%d), 26 neighbours, %ld bytes each\n", nranks, dims[0], dims[1],
               dims[2], bytes);
    for (int m = 0; m < 2; m++) {
        int bad = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < repeats; i++)
            bad |= methods[m]();
        double took = (MPI_Wtime() - start) / repeats, slowest;
        int anybad = 0;
        MPI_Reduce(&took, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("  %-10s %.9f s per exchange, data %s\n", names[m], slowest,
                   anybad ? "WRONG" : "right");
    }
    free(neighbour);
    MPI_Finalize();
    return 0;
}
