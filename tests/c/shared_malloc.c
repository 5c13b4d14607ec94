/* SMPI_SHARED_MALLOC under each folding strategy.
 *
 *   shared_malloc global MiB   every rank allocates MiB MiB and touches it
 *                              all; the process's private memory must grow
 *                              by far less, and every block of the
 *                              allocation shows the same bytes
 *   shared_malloc local        allocations at one call site are shared
 *                              between ranks, at another they are not
 *   shared_malloc copies       (local) a message between two folded buffers
 *                              is not copied; into plain memory it is
 *   shared_malloc partial      SMPI_PARTIAL_SHARED_MALLOC: only the listed
 *                              range is shared
 *   shared_malloc no           allocations are private
 *   shared_malloc huge MiB     one allocation of MiB MiB (for the error
 *                              path: too many mappings)
 *   shared_malloc auto folded|private
 *                              plain malloc, calloc and realloc of 4 MiB:
 *                              folded or private as expected (run with and
 *                              without smpi/auto-shared-malloc-thresh);
 *                              small ones always private
 *   shared_malloc unfold       smpi_shared_unfold makes one page of a
 *                              folded buffer private
 *   shared_malloc hugepage     (with smpi/shared-malloc-hugepage) an
 *                              allocation of 8 MiB is folded in huge
 *                              pages: the kernel says so for its mapping;
 *                              unfolding a few bytes in it makes one
 *                              normal page private
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

/* The kernel page size of the mapping holding p, in KiB (from
 * /proc/self/smaps), or -1. */
static long page_kib_at(const void *p) {
    char line[256];
    long kib = -1;
    int inside = 0;
    unsigned long lo, hi, at = (unsigned long)p;
    FILE *f = fopen("/proc/self/smaps", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = lo <= at && at < hi;
        else if (inside && sscanf(line, "KernelPageSize: %ld kB", &kib) == 1)
            break;
    }
    if (f)
        fclose(f);
    return kib;
}

static char *site_a(size_t n) { return SMPI_SHARED_MALLOC(n); }
static char *site_b(size_t n) { return SMPI_SHARED_MALLOC(n); }

/* Whether every rank sees the same byte at p (folded memory: the last
 * writer's) rather than its own. */
static int same_everywhere(const char *p) {
    int v = *p, lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

static void plain_allocations(int folded) {
    size_t big = 4 << 20;
    char *p = malloc(big), *small = malloc(100);
    memset(p, 1 + rank, big);
    memset(small, 1 + rank, 100);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(small[50] == 1 + rank, "a small malloc was folded");
    CHECK(same_everywhere(p) == folded, "malloc(4 MiB) is %s", folded ? "private" : "folded");
    CHECK(same_everywhere(p + big - 1) == folded, "the end of malloc(4 MiB) differs");
    char *z = calloc(big / 8, 8);
    for (size_t off = 0; off < big; off += big / 16)
        CHECK(z[off] == 0, "calloc: byte %zu is %d", off, z[off]);
    CHECK(same_everywhere(z + 1) == 1, "calloc'd memory differs"); /* zero either way */
    char *r = malloc(1000);
    memset(r, 'x', 1000);
    r = realloc(r, big);
    CHECK(r[0] == 'x' && r[999] == 'x', "realloc lost the content");
    r[1] = (char)(1 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(same_everywhere(r + 1) == folded, "realloc to 4 MiB is %s", folded ? "private" : "folded");
    r[0] = 'y';
    r = realloc(r, 100);
    CHECK(r[0] == 'y', "realloc back to 100 bytes lost the content");
    free(r);
    free(z);
    free(small);
    free(p);
}

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
    } else if (!strcmp(mode, "copies") && size >= 2) {
        /* Folded bytes are never copied (their content is meaningless):
         * a message into a folded buffer leaves it alone, and the folded
         * bytes of a message arrive in plain memory as zeros, while its
         * private bytes arrive. 1 MiB goes past the eager threshold; 3
         * pages, the middle one folded, stay under it. */
        size_t m = 1 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
        size_t middle[2] = {page, 2 * page};
        char *a = site_a(m), *b = site_b(m), *plain = calloc(m, 1);
        char *part = SMPI_PARTIAL_SHARED_MALLOC(3 * page, middle, 1);
        char *small = malloc(3 * page);
        memset(small, 'x', 3 * page);
        if (rank == 0) {
            memset(a, 'a', m);
            memset(b, 'b', m);
            memset(part, 'p', 3 * page);
            MPI_Send(a, (int)m, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Send(a, (int)m, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Send(part, (int)(3 * page), MPI_CHAR, 1, 2, MPI_COMM_WORLD);
            /* Eager sends from a wholly folded buffer. */
            MPI_Send(a, (int)page, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
            MPI_Send(a, (int)page, MPI_CHAR, 1, 4, MPI_COMM_WORLD);
            MPI_Send(a, (int)(3 * page), MPI_CHAR, 1, 5, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(b, (int)m, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(plain, (int)m, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(small, (int)(3 * page), MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(b[m / 2] == 'b', "a copy between folded buffers happened");
            CHECK(plain[m / 2] == 0, "folded bytes were copied into plain memory (%d)", plain[m / 2]);
            CHECK(small[10] == 'p' && small[3 * page - 1] == 'p', "private bytes were lost");
            CHECK(small[page + 10] == 0, "folded bytes were sent eagerly (%d)", small[page + 10]);
            /* A wholly folded buffer sent eagerly arrives as zeros in plain
             * memory, leaves a folded buffer alone, and zeroes only the
             * private pages of a partly folded one. */
            char *one = malloc(page);
            memset(one, 'x', page);
            MPI_Recv(one, (int)page, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(one[0] == 0 && one[page - 1] == 0, "folded bytes arrived as %d, not zeros", one[0]);
            MPI_Recv(b, (int)page, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(b[10] == 'b', "an eager copy into a folded buffer happened");
            memset(part, 'q', page);
            part[2 * page + 5] = 'q';
            MPI_Recv(part, (int)(3 * page), MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(part[10] == 0 && part[2 * page + 5] == 0, "private pages kept %d and %d",
                  part[10], part[2 * page + 5]);
            CHECK(part[page + 10] == 'p', "the folded page was written (%d)", part[page + 10]);
            free(one);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        SMPI_SHARED_FREE(a);
        SMPI_SHARED_FREE(b);
        SMPI_SHARED_FREE(part);
        free(plain);
        free(small);
    } else if (!strcmp(mode, "partial")) {
        /* The middle MiB of 3 is folded, the rest private: every rank's
         * middle is the same memory, its ends are its own. */
        size_t mib1 = 1 << 20, offsets[2] = {mib1, 2 * mib1};
        char *p = SMPI_PARTIAL_SHARED_MALLOC(3 * mib1, offsets, 1);
        p[0] = (char)(1 + rank);
        p[mib1 + 10] = (char)(1 + rank);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(p[0] == 1 + rank, "a private part was shared");
        int mine = p[mib1 + 10] == 1 + rank, all_mine;
        MPI_Allreduce(&mine, &all_mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(size == 1 || all_mine == 1, "the shared part is private (%d ranks see their own)", all_mine);
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "no")) {
        char *p = SMPI_SHARED_MALLOC(1 << 16);
        CHECK(p[100] == 0, "fresh memory is not zeroed");
        memset(p, 1 + rank, 1 << 16);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(p[100] == 1 + rank, "private memory was shared");
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "auto")) {
        plain_allocations(argc > 2 && !strcmp(argv[2], "folded"));
    } else if (!strcmp(mode, "unfold")) {
        char *p = SMPI_SHARED_MALLOC(1 << 20);
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        char *at = p + page + 100;
        CHECK(smpi_shared_unfold(at, 8) == page, "unfolding 8 bytes did not take one page");
        CHECK(smpi_shared_unfold(at, 8) == 0, "unfolding twice");
        *at = (char)(1 + rank);
        p[10] = (char)(1 + rank);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(*at == 1 + rank, "the unfolded page is shared");
        CHECK(same_everywhere(p + 10), "the rest is no longer folded");
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "hugepage")) {
        size_t mib8 = 8 << 20;
        char *p = SMPI_SHARED_MALLOC(mib8);
        memset(p, 1 + rank, mib8);
        CHECK(((unsigned long)p & ((2 << 20) - 1)) == 0, "not aligned to a huge page: %p", (void *)p);
        CHECK(page_kib_at(p + mib8 / 2) >= 2048, "mapped in pages of %ld KiB", page_kib_at(p + mib8 / 2));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(same_everywhere(p + 12345), "huge-page folding is not shared");
        /* Unfolding inside a huge page makes one normal page private; the
         * rest of that huge page stays folded. */
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        char *at = p + (2 << 20) + page + 100;
        CHECK(smpi_shared_unfold(at, 8) == page, "unfolding 8 bytes did not take one page");
        *at = (char)(1 + rank);
        at[3 * page] = (char)(1 + rank);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(*at == 1 + rank, "the unfolded page is shared");
        CHECK(same_everywhere(at + 3 * page), "the rest of the huge page is no longer folded");
        SMPI_SHARED_FREE(p);
    } else if (!strcmp(mode, "huge")) {
        char *p = SMPI_SHARED_MALLOC(n);
        SMPI_SHARED_FREE(p);
    }
    /* Freeing NULL does nothing, as free(NULL). */
    SMPI_SHARED_FREE(NULL);
    report_errors();
    MPI_Finalize();
    return 0;
}
