/* Predefined reductions on the types MPI defines them for, through
 * MPI_Allreduce and MPI_Reduce: logical operations on C _Bool, MINLOC and
 * MAXLOC on every pair type (ties keep the lowest index), bitwise
 * operations on unsigned types, arithmetic on complex and long double. */
#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* _Bool: element 0 true on every rank, element 1 only on rank 0,
     * element 2 on odd ranks. */
    bool b[3] = {true, rank == 0, rank % 2 == 1}, r[3];
    MPI_Allreduce(b, r, 3, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD);
    CHECK(r[0] && r[1] == (size == 1) && !r[2], "C_BOOL LAND: %d %d %d", r[0], r[1], r[2]);
    MPI_Allreduce(b, r, 3, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD);
    CHECK(r[0] && r[1] && r[2] == (size > 1), "C_BOOL LOR: %d %d %d", r[0], r[1], r[2]);
    MPI_Allreduce(b, r, 3, MPI_C_BOOL, MPI_LXOR, MPI_COMM_WORLD);
    CHECK(r[0] == (size % 2 == 1) && r[1] && r[2] == ((size / 2) % 2 == 1),
          "C_BOOL LXOR: %d %d %d", r[0], r[1], r[2]);

    /* MINLOC / MAXLOC: the value peaks at the middle rank and is tied on
     * both halves, so the lowest index must win. */
    int v = rank < size / 2 ? rank : size - 1 - rank;
    int minv = 0, maxv = (size - 1) / 2;
    int mini = 0, maxi = (size - 1) / 2;
    struct { double v; int i; } di = {v, rank}, dio;
    MPI_Allreduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(dio.v == minv && dio.i == mini, "DOUBLE_INT MINLOC: %g at %d", dio.v, dio.i);
    MPI_Allreduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(dio.v == maxv && dio.i == maxi, "DOUBLE_INT MAXLOC: %g at %d", dio.v, dio.i);
    struct { int v, i; } ii = {v, rank}, iio;
    MPI_Allreduce(&ii, &iio, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(iio.v == maxv && iio.i == maxi, "2INT MAXLOC: %d at %d", iio.v, iio.i);
    struct { float v; int i; } fi = {v, rank}, fio;
    MPI_Allreduce(&fi, &fio, 1, MPI_FLOAT_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(fio.v == minv && fio.i == mini, "FLOAT_INT MINLOC: %g at %d", fio.v, fio.i);
    struct { long v; int i; } li = {v, rank}, lio;
    MPI_Allreduce(&li, &lio, 1, MPI_LONG_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(lio.v == maxv && lio.i == maxi, "LONG_INT MAXLOC: %ld at %d", lio.v, lio.i);
    struct { short v; int i; } si = {(short)v, rank}, sio;
    MPI_Allreduce(&si, &sio, 1, MPI_SHORT_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(sio.v == minv && sio.i == mini, "SHORT_INT MINLOC: %d at %d", sio.v, sio.i);
    struct { long double v; int i; } ldi = {v, rank}, ldio;
    MPI_Reduce(&ldi, &ldio, 1, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        CHECK(ldio.v == maxv && ldio.i == maxi, "LONG_DOUBLE_INT MAXLOC: %Lg at %d", ldio.v,
              ldio.i);

    /* Bitwise on unsigned types: every rank sets its own bit. */
    uint64_t bit = (uint64_t)1 << (rank % 64), all;
    MPI_Allreduce(&bit, &all, 1, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
    uint64_t want = size >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << size) - 1);
    CHECK(all == want, "UINT64 BOR: %llx", (unsigned long long)all);
    unsigned char ones = 0xff, band;
    MPI_Allreduce(&ones, &band, 1, MPI_UNSIGNED_CHAR, MPI_BAND, MPI_COMM_WORLD);
    CHECK(band == 0xff, "UNSIGNED_CHAR BAND: %x", band);

    /* Complex and long double arithmetic. */
    double complex z = rank + 1.0 * I, zs;
    MPI_Allreduce(&z, &zs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECK(creal(zs) == size * (size - 1) / 2.0 && cimag(zs) == size, "C_DOUBLE_COMPLEX SUM");
    double complex zp;
    double complex two = 2.0 * I;
    MPI_Allreduce(&two, &zp, 1, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    double complex expect = 1;
    for (int k = 0; k < size; k++)
        expect *= 2.0 * I;
    CHECK(creal(zp) == creal(expect) && cimag(zp) == cimag(expect), "C_DOUBLE_COMPLEX PROD");
    long double ld = 0.5L + rank, lds;
    MPI_Allreduce(&ld, &lds, 1, MPI_LONG_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(lds == 0.5L * size + size * (size - 1) / 2.0L, "LONG_DOUBLE SUM: %Lg", lds);

    report_errors();
    MPI_Finalize();
    return 0;
}
