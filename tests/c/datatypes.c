/* Datatype constructors and queries against hand-computed answers:
 * darray distributions, MPI_Type_get_contents, MPI_Type_match_size and
 * the MPI_LB/MPI_UB markers. Prints " No Errors" when all hold. */
#include <mpi.h>
#include <string.h>

#include "check.h"

/* Packs one element of `t` from the array 0, 1, 2, ... and compares the
 * packed ints with `want`. */
static void check_picks(MPI_Datatype t, const int *want, int n, const char *what)
{
    int src[64], packed[64], pos = 0, i;
    for (i = 0; i < 64; i++)
        src[i] = i;
    MPI_Pack(src, 1, t, packed, sizeof packed, &pos, MPI_COMM_SELF);
    CHECK(pos == n * (int)sizeof(int), "%s: packed %d bytes, expected %d", what, pos,
          n * (int)sizeof(int));
    for (i = 0; i < n && i * (int)sizeof(int) < pos; i++)
        CHECK(packed[i] == want[i], "%s: element %d is %d, expected %d", what, i, packed[i],
              want[i]);
}

static void darrays(void)
{
    MPI_Datatype t;
    MPI_Aint lb, extent;
    /* 10 ints, cyclic(2) over 3 processes: process 1 owns 2,3 and 8,9. */
    int g1[1] = {10}, d1[1] = {MPI_DISTRIBUTE_CYCLIC}, a1[1] = {2}, p1[1] = {3};
    MPI_Type_create_darray(3, 1, 1, g1, d1, a1, p1, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int want1[4] = {2, 3, 8, 9};
    check_picks(t, want1, 4, "cyclic(2)");
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(lb == 0 && extent == 10 * sizeof(int), "cyclic extent %ld", (long)extent);
    MPI_Type_free(&t);

    /* 4x4 ints, block x block over 2x2 processes: process 1 (coordinates
     * 0,1) owns rows 0-1, columns 2-3. */
    int g2[2] = {4, 4}, d2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int a2[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p2[2] = {2, 2};
    MPI_Type_create_darray(4, 1, 2, g2, d2, a2, p2, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int want_c[4] = {2, 3, 6, 7};
    check_picks(t, want_c, 4, "block C order");
    MPI_Type_free(&t);
    /* Fortran order: element (i, j) is at i + 4 j. */
    MPI_Type_create_darray(4, 1, 2, g2, d2, a2, p2, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    int want_f[4] = {8, 9, 12, 13};
    check_picks(t, want_f, 4, "block Fortran order");
    MPI_Type_free(&t);

    /* A process grid that does not match the size is an error. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Type_create_darray(3, 0, 2, g2, d2, a2, p2, MPI_ORDER_C, MPI_INT, &t);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "bad process grid: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void contents(void)
{
    MPI_Datatype vec, two, types[2];
    int ni, na, nd, combiner, ints[8];
    MPI_Aint addrs[2];
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_get_envelope(vec, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1,
          "vector envelope %d %d %d %d", combiner, ni, na, nd);
    MPI_Type_get_contents(vec, 8, 2, 2, ints, addrs, types);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == MPI_INT,
          "vector contents %d %d %d type %d", ints[0], ints[1], ints[2], types[0]);

    /* A derived component comes back as a new handle the program frees;
     * the original stays usable. */
    MPI_Type_contiguous(2, vec, &two);
    MPI_Type_get_contents(two, 8, 2, 2, ints, addrs, types);
    int size_inner, size_vec;
    MPI_Type_size(types[0], &size_inner);
    MPI_Type_size(vec, &size_vec);
    CHECK(ints[0] == 2 && size_inner == 6 * sizeof(int), "contiguous contents %d, size %d",
          ints[0], size_inner);
    MPI_Type_free(&types[0]);
    CHECK(size_vec == 6 * sizeof(int), "original vector size %d", size_vec);
    MPI_Type_free(&two);
    MPI_Type_free(&vec);

    MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &types[0]);
    int sz;
    MPI_Type_size(types[0], &sz);
    CHECK(sz == sizeof(double), "match_size real 8 gave size %d", sz);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &types[0]);
    MPI_Type_size(types[0], &sz);
    CHECK(sz == 8, "match_size complex 8 gave size %d", sz);
}

static void markers(void)
{
    MPI_Datatype t;
    MPI_Aint lb, extent;
    int lens[3] = {1, 1, 1};
    MPI_Aint disps[3] = {-4, 0, 20};
    MPI_Datatype parts[3] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Type_struct(3, lens, disps, parts, &t);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(lb == -4 && extent == 24, "LB/UB struct: lb %ld extent %ld", (long)lb, (long)extent);
    /* The bounds stick through a constructor built on it. */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, t, &pair);
    MPI_Type_get_extent(pair, &lb, &extent);
    CHECK(lb == -4 && extent == 48, "contiguous of it: lb %ld extent %ld", (long)lb, (long)extent);
    MPI_Type_free(&pair);
    MPI_Type_free(&t);
    /* Only an LB marker: the upper bound stays at 0. */
    MPI_Aint at10 = 10;
    MPI_Datatype lbonly = MPI_LB;
    MPI_Type_struct(1, lens, &at10, &lbonly, &t);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(lb == 10 && extent == -10, "LB only: lb %ld extent %ld", (long)lb, (long)extent);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    darrays();
    contents();
    markers();
    if (errors == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errors != 0;
}
