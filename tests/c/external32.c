/* MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size in
 * external32 (MPI 3.1 section 13.5.2): big-endian bytes, C long and
 * unsigned long in 4 bytes, wchar_t in 2, long double as IEEE binary128;
 * basic types, a struct mixing them and a strided vector, checked byte
 * by byte against hand-written encodings, then unpacked back. Prints
 * " No Errors" when all hold. */
#include <mpi.h>
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "check.h"

/* Packs `count` elements of `t` at `in`, compares the bytes with `want`
 * (`n` bytes), unpacks them into `out` and compares `out` with `in`
 * (`native` bytes, the elements' data without holes). */
static void round_trip(const char *what, MPI_Datatype t, int count, const void *in, void *out,
                       size_t native, const unsigned char *want, int n)
{
    unsigned char buf[256];
    MPI_Aint size = -1, pos = 0;
    MPI_Pack_external_size("external32", count, t, &size);
    CHECK(size == n, "%s: MPI_Pack_external_size says %ld bytes, expected %d", what, (long)size,
          n);
    memset(buf, 0xee, sizeof buf);
    MPI_Pack_external("external32", in, count, t, buf, sizeof buf, &pos);
    CHECK(pos == n, "%s: packing moved the position to %ld, expected %d", what, (long)pos, n);
    for (int i = 0; i < n && i < (int)sizeof buf; i++)
        CHECK(buf[i] == want[i], "%s: byte %d is 0x%02x, expected 0x%02x", what, i, buf[i],
              want[i]);
    CHECK(buf[n] == 0xee, "%s: packing wrote past its %d bytes", what, n);
    pos = 0;
    MPI_Unpack_external("external32", buf, sizeof buf, &pos, out, count, t);
    CHECK(pos == n, "%s: unpacking moved the position to %ld, expected %d", what, (long)pos, n);
    CHECK(memcmp(in, out, native) == 0, "%s: the unpacked data differ from the packed", what);
}

static void basic_types(void)
{
    int ints[2] = {1, -2}, ints_out[2];
    const unsigned char ints_x[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    round_trip("int", MPI_INT, 2, ints, ints_out, sizeof ints, ints_x, 8);

    long longs[2] = {258, -3}, longs_out[2];
    const unsigned char longs_x[] = {0, 0, 1, 2, 0xff, 0xff, 0xff, 0xfd};
    round_trip("long", MPI_LONG, 2, longs, longs_out, sizeof longs, longs_x, 8);

    unsigned long ulongs[2] = {4000000000UL, 7}, ulongs_out[2];
    const unsigned char ulongs_x[] = {0xee, 0x6b, 0x28, 0, 0, 0, 0, 7};
    round_trip("unsigned long", MPI_UNSIGNED_LONG, 2, ulongs, ulongs_out, sizeof ulongs,
               ulongs_x, 8);

    long long lls[1] = {-2}, lls_out[1];
    const unsigned char lls_x[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    round_trip("long long", MPI_LONG_LONG_INT, 1, lls, lls_out, sizeof lls, lls_x, 8);

    short shorts[2] = {0x1234, -1}, shorts_out[2];
    const unsigned char shorts_x[] = {0x12, 0x34, 0xff, 0xff};
    round_trip("short", MPI_SHORT, 2, shorts, shorts_out, sizeof shorts, shorts_x, 4);

    double doubles[1] = {-2.5}, doubles_out[1];
    const unsigned char doubles_x[] = {0xc0, 0x04, 0, 0, 0, 0, 0, 0};
    round_trip("double", MPI_DOUBLE, 1, doubles, doubles_out, sizeof doubles, doubles_x, 8);

    /* 1.0 and -0.75 in binary128: exponent bias 16383, 112 fraction bits. */
    long double lds[2] = {1.0L, -0.75L}, lds_out[2];
    unsigned char lds_x[32] = {0x3f, 0xff};
    lds_x[16] = 0xbf;
    lds_x[17] = 0xfe;
    lds_x[18] = 0x80;
    /* The padding of an x87 long double is not data: compare values. */
    round_trip("long double", MPI_LONG_DOUBLE, 2, lds, lds_out, 0, lds_x, 32);
    CHECK(lds_out[0] == 1.0L && lds_out[1] == -0.75L, "long double: unpacked %Lg %Lg",
          lds_out[0], lds_out[1]);
    long double third = 1.0L / 3.0L, third_out = 0;
    unsigned char buf[16];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", &third, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
    pos = 0;
    MPI_Unpack_external("external32", buf, sizeof buf, &pos, &third_out, 1, MPI_LONG_DOUBLE);
    CHECK(third_out == third, "long double 1/3 does not survive external32");

    wchar_t wide[2] = {L'A', 0x20ac}, wide_out[2];
    const unsigned char wide_x[] = {0, 0x41, 0x20, 0xac};
    round_trip("wchar_t", MPI_WCHAR, 2, wide, wide_out, sizeof wide, wide_x, 4);

    /* A complex number is two reals, each big-endian. */
    float complex z[1] = {1.0f - 2.0f * I}, z_out[1];
    const unsigned char z_x[] = {0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0};
    round_trip("float complex", MPI_C_FLOAT_COMPLEX, 1, z, z_out, sizeof z, z_x, 8);

    bool flags[2] = {true, false}, flags_out[2];
    const unsigned char flags_x[] = {1, 0};
    round_trip("bool", MPI_C_BOOL, 2, flags, flags_out, sizeof flags, flags_x, 2);

    /* MPI_LONG_INT: a 4-byte long then an int, no padding. */
    struct {
        long v;
        int i;
    } li[1] = {{-1, 5}}, li_out[1];
    const unsigned char li_x[] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 5};
    memset(li_out, 0, sizeof li_out);
    round_trip("long int", MPI_LONG_INT, 1, li, li_out, 0, li_x, 8);
    CHECK(li_out[0].v == -1 && li_out[0].i == 5, "long int: unpacked %ld %d", li_out[0].v,
          li_out[0].i);
}

struct record {
    char tag;
    long count;
    double weight;
    long double exact;
};

static void derived_types(void)
{
    /* A struct with padding: external32 has none, and its long is 4 bytes. */
    struct record r[2] = {{'x', -7, 0.5, 2.0L}, {'y', 70000, -1.0, -1.0L}}, r_out[2];
    int lens[4] = {1, 1, 1, 1};
    MPI_Aint disps[4] = {offsetof(struct record, tag), offsetof(struct record, count),
                         offsetof(struct record, weight), offsetof(struct record, exact)};
    MPI_Datatype types[4] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE}, t;
    MPI_Type_create_struct(4, lens, disps, types, &t);
    MPI_Type_commit(&t);
    unsigned char want[2 * 29] = {0};
    /* 'x', -7, 0.5, 2.0L */
    want[0] = 'x';
    memcpy(want + 1, "\xff\xff\xff\xf9", 4);
    memcpy(want + 5, "\x3f\xe0\0\0\0\0\0\0", 8);
    want[13] = 0x40;
    /* 'y', 70000, -1.0, -1.0L */
    want[29] = 'y';
    memcpy(want + 30, "\0\x01\x11\x70", 4);
    memcpy(want + 34, "\xbf\xf0\0\0\0\0\0\0", 8);
    want[42] = 0xbf;
    want[43] = 0xff;
    memset(r_out, 0, sizeof r_out);
    round_trip("struct", t, 2, r, r_out, 0, want, sizeof want);
    for (int k = 0; k < 2; k++)
        CHECK(r_out[k].tag == r[k].tag && r_out[k].count == r[k].count &&
                  r_out[k].weight == r[k].weight && r_out[k].exact == r[k].exact,
              "struct %d: unpacked {%c, %ld, %g, %Lg}", k, r_out[k].tag, r_out[k].count,
              r_out[k].weight, r_out[k].exact);
    MPI_Type_free(&t);

    /* Every other long of six: 0, 2, 4. */
    long strided[6] = {10, -1, -20, -1, 30, -1}, strided_out[6] = {0};
    MPI_Type_vector(3, 1, 2, MPI_LONG, &t);
    MPI_Type_commit(&t);
    const unsigned char v_x[] = {0, 0, 0, 10, 0xff, 0xff, 0xff, 0xec, 0, 0, 0, 30};
    round_trip("vector", t, 1, strided, strided_out, 0, v_x, 12);
    CHECK(strided_out[0] == 10 && strided_out[2] == -20 && strided_out[4] == 30 &&
              strided_out[1] == 0,
          "vector: unpacked %ld %ld %ld %ld", strided_out[0], strided_out[1], strided_out[2],
          strided_out[4]);
    MPI_Type_free(&t);
}

static void positions_and_errors(void)
{
    /* Packing goes on from the position: two calls make one stream. */
    unsigned char buf[16];
    MPI_Aint pos = 0;
    int one = 1;
    long two = 2;
    MPI_Pack_external("external32", &one, 1, MPI_INT, buf, sizeof buf, &pos);
    MPI_Pack_external("external32", &two, 1, MPI_LONG, buf, sizeof buf, &pos);
    CHECK(pos == 8, "two packs end at %ld, expected 8", (long)pos);
    CHECK(buf[3] == 1 && buf[7] == 2, "two packs: bytes %d %d", buf[3], buf[7]);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls;
    pos = 0;
    long three[3] = {1, 2, 3};
    int rc = MPI_Pack_external("external32", three, 3, MPI_LONG, buf, 11, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "12 bytes into 11: class %d", cls);
    pos = 4;
    rc = MPI_Unpack_external("external32", buf, 8, &pos, three, 2, MPI_LONG);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "unpacking past the end: class %d", cls);
    MPI_Aint size;
    rc = MPI_Pack_external_size("native", 1, MPI_INT, &size);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_DATAREP, "representation 'native': class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    basic_types();
    derived_types();
    positions_and_errors();
    report_errors();
    MPI_Finalize();
    return 0;
}
