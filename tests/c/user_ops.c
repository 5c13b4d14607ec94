/* User reduction operations (MPI_Op_create): a non-commutative one (2x2
 * integer matrix product, whose result depends on the order of the
 * ranks), a commutative one on a struct datatype, MPI_Op_commutative,
 * MPI_Op_free and MPI_Reduce_local. Prints " No Errors" when every check
 * holds. */
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

typedef struct {
    int a, b, c, d;
} mat;

/* inout = in x inout, for each of *len matrices. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    mat *x = in, *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        mat r = {x[i].a * y[i].a + x[i].b * y[i].c, x[i].a * y[i].b + x[i].b * y[i].d,
                 x[i].c * y[i].a + x[i].d * y[i].c, x[i].c * y[i].b + x[i].d * y[i].d};
        y[i] = r;
    }
}

/* A matrix per rank that does not commute with its neighbours'. */
static mat of(int r, int k) {
    mat m = {1, r + k, 0, 1};
    if (r % 2)
        m = (mat){1, 0, r + k, 1};
    return m;
}

/* of(lo) x of(lo+1) x ... x of(hi-1), element k. */
static mat product(int lo, int hi, int k) {
    mat p = {1, 0, 0, 1};
    for (int r = hi - 1; r >= lo; r--) {
        mat x = of(r, k);
        int one = 1;
        matmul(&x, &p, &one, NULL);
    }
    return p;
}

static int same(mat x, mat y) { return !memcmp(&x, &y, sizeof x); }

typedef struct {
    double v;
    int n;
} pair;

static void pairsum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    pair *x = in, *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        y[i].v += x[i].v;
        y[i].n += x[i].n;
    }
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { K = 3 };

    MPI_Datatype mat_t;
    MPI_Type_contiguous(4, MPI_INT, &mat_t);
    MPI_Type_commit(&mat_t);
    MPI_Op prod, sum;
    MPI_Op_create(matmul, 0, &prod);
    int commute = -1;
    MPI_Op_commutative(prod, &commute);
    CHECK(commute == 0, "MPI_Op_commutative says %d for a non-commutative op", commute);

    mat mine[K], out[K];
    for (int k = 0; k < K; k++)
        mine[k] = of(rank, k);

    for (int root = 0; root < size; root++) {
        memset(out, 0, sizeof out);
        MPI_Reduce(mine, out, K, mat_t, prod, root, MPI_COMM_WORLD);
        if (rank == root)
            for (int k = 0; k < K; k++)
                CHECK(same(out[k], product(0, size, k)), "reduce to %d, element %d", root, k);
    }
    MPI_Allreduce(mine, out, K, mat_t, prod, MPI_COMM_WORLD);
    for (int k = 0; k < K; k++)
        CHECK(same(out[k], product(0, size, k)), "allreduce, element %d", k);
    memcpy(out, mine, sizeof out);
    MPI_Allreduce(MPI_IN_PLACE, out, K, mat_t, prod, MPI_COMM_WORLD);
    CHECK(same(out[1], product(0, size, 1)), "allreduce in place");
    MPI_Scan(mine, out, K, mat_t, prod, MPI_COMM_WORLD);
    for (int k = 0; k < K; k++)
        CHECK(same(out[k], product(0, rank + 1, k)), "scan, element %d", k);
    MPI_Exscan(mine, out, K, mat_t, prod, MPI_COMM_WORLD);
    if (rank > 0)
        for (int k = 0; k < K; k++)
            CHECK(same(out[k], product(0, rank, k)), "exscan, element %d", k);
    {
        mat *all = malloc(sizeof(mat) * (size_t)size), got;
        for (int r = 0; r < size; r++)
            all[r] = of(rank, r);
        MPI_Reduce_scatter_block(all, &got, 1, mat_t, prod, MPI_COMM_WORLD);
        CHECK(same(got, product(0, size, rank)), "reduce_scatter_block");
        free(all);
    }

    /* A commutative op on a struct with padding. */
    MPI_Datatype pair_t;
    int lens[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(pair, v), offsetof(pair, n)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(2, lens, disp, types, &pair_t);
    MPI_Type_commit(&pair_t);
    MPI_Op_create(pairsum, 1, &sum);
    MPI_Op_commutative(sum, &commute);
    CHECK(commute == 1, "MPI_Op_commutative says %d for a commutative op", commute);
    pair p = {rank + 0.5, 1}, total;
    MPI_Allreduce(&p, &total, 1, pair_t, sum, MPI_COMM_WORLD);
    CHECK(total.n == size && total.v == size * (size - 1) / 2.0 + size * 0.5,
          "pair sum %g %d", total.v, total.n);

    /* MPI_Reduce_local, user and predefined. */
    mat a = {1, 2, 0, 1}, b = {1, 0, 3, 1};
    MPI_Reduce_local(&a, &b, 1, mat_t, prod);
    CHECK(same(b, (mat){7, 2, 3, 1}), "reduce_local product %d %d %d %d", b.a, b.b, b.c, b.d);
    int xs[3] = {1, 2, 3}, ys[3] = {10, 20, 30};
    MPI_Reduce_local(xs, ys, 3, MPI_INT, MPI_SUM);
    CHECK(ys[0] == 11 && ys[1] == 22 && ys[2] == 33, "reduce_local sum");
    MPI_Op_commutative(MPI_SUM, &commute);
    CHECK(commute == 1, "MPI_SUM is commutative");

    /* What MPICH accepts beyond the standard: arithmetic on MPI_CHAR (as
     * signed char) and logical operations on floating types. */
    char c = (char)(rank + 1), csum = 0;
    MPI_Allreduce(&c, &csum, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
    CHECK(csum == (char)(size * (size + 1) / 2), "MPI_CHAR sum %d", csum);
    double d = rank % 2, dx = -1;
    MPI_Allreduce(&d, &dx, 1, MPI_DOUBLE, MPI_LXOR, MPI_COMM_WORLD);
    CHECK(dx == (double)((size / 2) % 2), "MPI_LXOR on doubles gives %g", dx);

    MPI_Op_free(&prod);
    MPI_Op_free(&sum);
    CHECK(prod == MPI_OP_NULL && sum == MPI_OP_NULL, "freed handles are MPI_OP_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op builtin = MPI_MAX;
    CHECK(MPI_Op_free(&builtin) != MPI_SUCCESS, "MPI_MAX cannot be freed");
    int x = 1, y;
    CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, prod, MPI_COMM_WORLD) != MPI_SUCCESS,
          "a freed op is refused");

    MPI_Type_free(&mat_t);
    MPI_Type_free(&pair_t);
    report_errors();
    MPI_Finalize();
    return 0;
}
