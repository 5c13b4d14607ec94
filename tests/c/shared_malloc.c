/* SMPI_SHARED_MALLOC under each folding strategy.
 *
 *   shared_malloc global MiB   every rank allocates MiB MiB and touches it
 *                              all; the process's private memory must grow
 *                              by far less, and every block of the
 *                              allocation shows the same bytes
 *   shared_malloc local        allocations at one call site are shared
 *                              between ranks, at another they are not
 *   shared_malloc no           allocations are private
 *   shared_malloc huge MiB     one allocation of MiB MiB (for the error
 *                              path: too many mappings)
 *
 * Prints " No Errors" when every check holds. */
#include "check.h"
#include <smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Private anonymous memory of the process (RssAnon), in MiB: what plain
 * mallocs of that size would add, and folded memory does not. */
static long private_mib(void) {
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib / 1024;
}

static char *site_a(size_t n) { return SMPI_SHARED_MALLOC(n); }
static char *site_b(size_t n) { return SMPI_SHARED_MALLOC(n); }

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "global";
    long mib = argc > 2 ? atol(argv[2]) : 64;
    size_t n = (size_t)mib << 20;

    if (!strcmp(mode, "global")) {
        long before = private_mib();
        char *p = SMPI_SHARED_MALLOC(n);
        memset(p, 1 + rank, n);
        MPI_Barrier(MPI_COMM_WORLD);
        /* One physical block under everything: the last writer's byte is
         * everywhere, in every rank's allocation. */
        char seen = p[0];
        for (size_t off = 0; off < n; off += 4096)
            CHECK(p[off] == seen, "byte %zu is %d, not %d", off, p[off], seen);
        long grown = private_mib() - before;
        long total;
        MPI_Reduce(&mib, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("%ld MiB allocated in all, private memory grew by %ld MiB\n", total, grown);
            CHECK(grown < total / 8, "folding saved too little");
        }
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "local")) {
        char *a = site_a(1 << 16), *b = site_b(1 << 16);
        if (rank == 0) {
            memset(a, 'a', 1 << 16);
            memset(b, 'b', 1 << 16);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* Same call site: rank 0's bytes; the other site has its own. */
        CHECK(a[12345] == 'a', "same call site, not shared");
        CHECK(b[12345] == 'b', "another call site, shared");
        MPI_Barrier(MPI_COMM_WORLD);
        SMPI_SHARED_FREE(a);
        SMPI_SHARED_FREE(b);
    } else if (!strcmp(mode, "no")) {
        char *p = SMPI_SHARED_MALLOC(1 << 16);
        CHECK(p[100] == 0, "fresh memory is not zeroed");
        memset(p, 1 + rank, 1 << 16);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(p[100] == 1 + rank, "private memory was shared");
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "huge")) {
        char *p = SMPI_SHARED_MALLOC(n);
        SMPI_SHARED_FREE(p);
    }
    /* Freeing NULL does nothing, as free(NULL). */
    SMPI_SHARED_FREE(NULL);
    int all_errors;
    MPI_Allreduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_errors == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
