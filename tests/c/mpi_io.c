/* MPI-IO end to end: a collective write of one block per rank, each rank
 * reading its neighbour's block back independently and checking every
 * value; interleaved views, shared and ordered pointers, non-blocking and
 * split collective forms; the error classes of bad calls.
 *
 * Usage: mpi_io PATH [INTS_PER_RANK]   (self-checking, prints the time of
 *        the collective write as "write_time SECONDS")
 *        mpi_io PATH fatal            (opens a missing file under
 *        MPI_ERRORS_ARE_FATAL)
 *        mpi_io PATH nospace          (writes 4 KiB, which a disk of 1 KiB
 *        refuses: prints "nospace ok" on rank 0) */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int class_of(int code) {
    int c;
    MPI_Error_class(code, &c);
    return c;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            printf("usage: mpi_io PATH [INTS_PER_RANK | fatal]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    char missing[4096];
    snprintf(missing, sizeof missing, "%s.missing/none", path);
    if (argc > 2 && strcmp(argv[2], "fatal") == 0) {
        MPI_File fh;
        MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
        MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
        printf("rank %d: not reached\n", rank);
        MPI_Finalize();
        return 0;
    }
    if (argc > 2 && strcmp(argv[2], "nospace") == 0) {
        MPI_File fh;
        MPI_Status st;
        static char block[4096];
        MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
        int rc = MPI_File_write_at(fh, 0, block, rank == 0 ? 512 : 4096, MPI_BYTE, &st);
        int want = rank == 0 ? MPI_SUCCESS : MPI_ERR_NO_SPACE;
        CHECK(class_of(rc) == want, "write: class %d, expected %d", class_of(rc), want);
        MPI_File_close(&fh);
        int bad;
        MPI_Reduce(&errors, &bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0 && bad == 0)
            printf("nospace ok\n");
        MPI_Finalize();
        return 0;
    }
    int n = argc > 2 ? atoi(argv[2]) : 65536;
    int *mine = malloc(n * sizeof(int));
    int *got = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        mine[i] = rank * 1000003 + i;

    /* 1. Collective write of one block per rank, timed. */
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                           &fh);
    CHECK(rc == MPI_SUCCESS, "open for writing failed: %d", rc);
    MPI_File_set_size(fh, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Status st;
    MPI_Offset block = (MPI_Offset)n * sizeof(int);
    rc = MPI_File_write_at_all(fh, rank * block, mine, n, MPI_INT, &st);
    double t1 = MPI_Wtime(), dt = t1 - t0, slowest;
    MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("write_time %.9f\n", slowest);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && count == n, "write_at_all: rc %d, count %d", rc, count);
    MPI_File_sync(fh);

    /* 2. Each rank reads its right neighbour's block independently. */
    int right = (rank + 1) % size;
    rc = MPI_File_read_at(fh, right * block, got, n, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && count == n, "read_at: rc %d, count %d", rc, count);
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += got[i] != right * 1000003 + i;
    CHECK(bad == 0, "%d wrong values in the block of rank %d", bad, right);
    MPI_Offset fsize;
    MPI_File_get_size(fh, &fsize);
    CHECK(fsize == size * block, "file size %lld, expected %lld", (long long)fsize,
          (long long)(size * block));

    /* 3. Reading past the end is not an error: the count says what came. */
    rc = MPI_File_read_at(fh, size * block - sizeof(int), got, 4, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(rc == MPI_SUCCESS && count == 1, "read past the end: rc %d, count %d", rc, count);

    /* 4. An interleaved view: rank r owns every size-th int from r. */
    MPI_Datatype filetype;
    MPI_Type_vector(1, 1, size, MPI_INT, &filetype);
    MPI_Datatype tiled;
    MPI_Type_create_resized(filetype, 0, size * sizeof(int), &tiled);
    MPI_Type_commit(&tiled);
    MPI_File_set_view(fh, rank * sizeof(int), MPI_INT, tiled, "native", MPI_INFO_NULL);
    int m = n < 64 ? n : 64;
    MPI_File_write_all(fh, mine, m, MPI_INT, &st);
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == m, "individual pointer at %lld after %d ints", (long long)pos, m);
    MPI_Offset byte;
    MPI_File_get_byte_offset(fh, 2, &byte);
    CHECK(byte == (MPI_Offset)(rank + 2 * size) * (MPI_Offset)sizeof(int),
          "byte offset of etype 2: %lld", (long long)byte);
    MPI_Datatype etype, ft;
    MPI_Offset disp;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &etype, &ft, rep);
    CHECK(disp == rank * (MPI_Offset)sizeof(int) && etype == MPI_INT && strcmp(rep, "native") == 0,
          "get_view: disp %lld, datarep %s", (long long)disp, rep);
    MPI_Type_free(&ft);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    int *all = malloc(size * m * sizeof(int));
    MPI_File_read_at(fh, 0, all, size * m, MPI_INT, &st);
    bad = 0;
    for (int i = 0; i < size * m; i++)
        bad += all[i] != (i % size) * 1000003 + i / size;
    CHECK(bad == 0, "%d wrong values in the interleaved part", bad);

    /* 5. Ordered writes at the shared pointer, read back in order. */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    int mark[2] = {rank, -rank};
    MPI_File_write_ordered(fh, mark, rank % 2 + 1, MPI_INT, &st);
    MPI_File_get_position_shared(fh, &pos);
    int expect = 0;
    for (int r = 0; r < size; r++)
        expect += (r % 2 + 1) * sizeof(int);
    CHECK(pos == expect, "shared pointer at %lld, expected %d", (long long)pos, expect);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    int back[2] = {-7, -7};
    MPI_File_read_ordered(fh, back, rank % 2 + 1, MPI_INT, &st);
    CHECK(back[0] == rank && (rank % 2 == 0 || back[1] == -rank), "read_ordered: %d %d",
          back[0], back[1]);

    /* 6. Non-blocking and split collective forms. */
    MPI_Request req;
    int word = 42 + rank, word_back = 0;
    MPI_File_iwrite_at(fh, rank * sizeof(int), &word, 1, MPI_INT, &req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 1, "iwrite_at: count %d", count);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at_all_begin(fh, rank * sizeof(int), &word_back, 1, MPI_INT);
    MPI_File_read_at_all_end(fh, &word_back, &st);
    CHECK(word_back == 42 + rank, "split read_at_all: %d", word_back);
    MPI_File_seek(fh, rank * sizeof(int), MPI_SEEK_SET);
    word_back = 0;
    MPI_File_iread(fh, &word_back, 1, MPI_INT, &req);
    MPI_Wait(&req, &st);
    CHECK(word_back == 42 + rank, "iread: %d", word_back);

    /* 7. Errors, returned (MPI_ERRORS_RETURN is the default of files). */
    rc = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external64", MPI_INFO_NULL);
    CHECK(class_of(rc) == MPI_ERR_UNSUPPORTED_DATAREP, "bad datarep: class %d", class_of(rc));
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_BYTE, &three);
    MPI_Type_commit(&three);
    rc = MPI_File_set_view(fh, 0, MPI_INT, three, "native", MPI_INFO_NULL);
    CHECK(class_of(rc) == MPI_ERR_TYPE, "filetype not of etypes: class %d", class_of(rc));
    rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    CHECK(class_of(rc) == MPI_ERR_ARG, "seek before the start: class %d", class_of(rc));
    MPI_File_close(&fh);
    CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");

    MPI_File ro;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    rc = MPI_File_write_at(ro, 0, mine, 1, MPI_INT, &st);
    CHECK(class_of(rc) == MPI_ERR_ACCESS, "write on a read-only file: class %d", class_of(rc));
    MPI_File_close(&ro);
    rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &ro);
    CHECK(class_of(rc) == MPI_ERR_NO_SUCH_FILE, "missing file: class %d", class_of(rc));
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &ro);
    CHECK(class_of(rc) == MPI_ERR_AMODE, "bad amode: class %d", class_of(rc));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        rc = MPI_File_delete(path, MPI_INFO_NULL);
        CHECK(rc == MPI_SUCCESS, "delete: %d", rc);
        rc = MPI_File_delete(path, MPI_INFO_NULL);
        CHECK(class_of(rc) == MPI_ERR_NO_SUCH_FILE, "delete twice: class %d", class_of(rc));
    }
    MPI_Type_free(&filetype);
    MPI_Type_free(&tiled);
    MPI_Type_free(&three);
    free(mine);
    free(got);
    free(all);
    report_errors();
    MPI_Finalize();
    return 0;
}
