/* Every MPI_Group_* call, and the communicator queries (compare, names,
 * test_inter, remote group), checked against hand-computed answers.
 * Prints " No Errors" on rank 0. Run with 4 or more ranks. */
#include <mpi.h>
#include <string.h>

#include "check.h"

/* World ranks of a group, in group order. */
static void members(MPI_Group g, MPI_Group world, int *out, int *n)
{
    int ranks[64];
    MPI_Group_size(g, n);
    for (int i = 0; i < *n; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(g, *n, ranks, world, out);
}

static int same(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

static void groups(void)
{
    MPI_Group world, evens, odds, firsthalf, u, in, d, r, e, empty;
    int got[64], n, cmp, r0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(world, &n);
    CHECK(n == size, "world group size %d", n);
    MPI_Group_rank(world, &r0);
    CHECK(r0 == rank, "world group rank %d", r0);

    int even_ranks[64], ne = 0;
    for (int i = 0; i < size; i += 2)
        even_ranks[ne++] = i;
    MPI_Group_incl(world, ne, even_ranks, &evens);
    MPI_Group_excl(world, ne, even_ranks, &odds);
    members(odds, world, got, &n);
    CHECK(n == size / 2 && got[0] == 1 && got[n - 1] == 2 * n - 1, "excl: n %d first %d", n,
          got[0]);
    MPI_Group_rank(evens, &r0);
    CHECK(r0 == (rank % 2 ? MPI_UNDEFINED : rank / 2), "rank in evens %d", r0);

    /* Ranges: [0, size/2) forwards, and odds backwards by stride -2. */
    int range[1][3] = {{0, size / 2 - 1, 1}};
    MPI_Group_range_incl(world, 1, range, &firsthalf);
    members(firsthalf, world, got, &n);
    CHECK(n == size / 2 && got[n - 1] == size / 2 - 1, "range_incl: n %d", n);
    int back[1][3] = {{2 * (size / 2) - 1, 1, -2}};
    MPI_Group_range_incl(world, 1, back, &r);
    members(r, world, got, &n);
    CHECK(n == size / 2 && got[0] == 2 * (size / 2) - 1 && got[n - 1] == 1,
          "backwards range: n %d first %d last %d", n, got[0], got[n - 1]);
    MPI_Group_compare(r, odds, &cmp);
    CHECK(cmp == MPI_SIMILAR, "reversed odds vs odds: %d", cmp);
    MPI_Group_free(&r);
    int evens_range[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_excl(world, 1, evens_range, &r);
    MPI_Group_compare(r, odds, &cmp);
    CHECK(cmp == MPI_IDENT, "range_excl of evens vs odds: %d", cmp);
    MPI_Group_free(&r);

    /* Set operations: order follows the first group, then the second. */
    MPI_Group_union(evens, firsthalf, &u);
    members(u, world, got, &n);
    int expect_u[64], nu = 0;
    for (int i = 0; i < size; i += 2)
        expect_u[nu++] = i;
    for (int i = 0; i < size / 2; i++)
        if (i % 2)
            expect_u[nu++] = i;
    CHECK(n == nu && same(got, expect_u, n), "union: n %d expected %d", n, nu);
    MPI_Group_intersection(firsthalf, evens, &in);
    members(in, world, got, &n);
    int ni = 0, expect_i[64];
    for (int i = 0; i < size / 2; i += 2)
        expect_i[ni++] = i;
    CHECK(n == ni && same(got, expect_i, n), "intersection: n %d expected %d", n, ni);
    MPI_Group_difference(firsthalf, evens, &d);
    members(d, world, got, &n);
    int nd = 0, expect_d[64];
    for (int i = 1; i < size / 2; i += 2)
        expect_d[nd++] = i;
    CHECK(n == nd && same(got, expect_d, n), "difference: n %d expected %d", n, nd);
    MPI_Group_difference(evens, evens, &e);
    MPI_Group_compare(e, MPI_GROUP_EMPTY, &cmp);
    CHECK(cmp == MPI_IDENT, "evens minus evens is not empty: %d", cmp);
    MPI_Group_intersection(evens, odds, &empty);
    MPI_Group_size(empty, &n);
    CHECK(n == 0, "evens and odds intersect: %d", n);

    /* translate_ranks: MPI_PROC_NULL maps to itself, absent ranks to
     * MPI_UNDEFINED. */
    int from[3] = {0, 1, MPI_PROC_NULL}, to[3];
    MPI_Group_translate_ranks(world, 3, from, evens, to);
    CHECK(to[0] == 0 && to[1] == MPI_UNDEFINED && to[2] == MPI_PROC_NULL,
          "translate: %d %d %d", to[0], to[1], to[2]);
    MPI_Group_compare(world, evens, &cmp);
    CHECK(cmp == MPI_UNEQUAL, "world vs evens: %d", cmp);

    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&firsthalf);
    MPI_Group_free(&u);
    MPI_Group_free(&in);
    MPI_Group_free(&d);
    MPI_Group_free(&e);
    MPI_Group_free(&empty);
    CHECK(world != MPI_GROUP_NULL, "world group freed early");
    MPI_Group_free(&world);
    CHECK(world == MPI_GROUP_NULL, "Group_free did not null the handle");
}

static void communicators(void)
{
    MPI_Comm dup, split, rev, local, inter;
    int cmp, flag, len;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_IDENT, "world vs world: %d", cmp);
    MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "world vs dup: %d", cmp);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    MPI_Comm_compare(MPI_COMM_WORLD, rev, &cmp);
    CHECK(cmp == MPI_SIMILAR, "world vs reversed: %d", cmp);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    MPI_Comm_compare(MPI_COMM_WORLD, split, &cmp);
    CHECK(cmp == MPI_UNEQUAL, "world vs half: %d", cmp);

    MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world name '%s'", name);
    MPI_Comm_set_name(dup, "my duplicate");
    MPI_Comm_get_name(dup, name, &len);
    CHECK(strcmp(name, "my duplicate") == 0 && len == 12, "dup name '%s'", name);
    MPI_Comm_get_name(split, name, &len);
    CHECK(len == 0 && name[0] == 0, "unnamed communicator '%s'", name);

    MPI_Comm_test_inter(dup, &flag);
    CHECK(!flag, "dup is an intercommunicator");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "intercommunicator not recognised");
    MPI_Group remote, world;
    int rsize, n = 0, got[64], want[64];
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_remote_group(inter, &remote);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    members(remote, world, got, &n);
    for (int i = 0; i < rsize; i++)
        want[i] = 2 * i + (rank % 2 ? 0 : 1);
    CHECK(n == rsize && same(got, want, n), "remote group: size %d", n);
    MPI_Group_free(&remote);
    MPI_Group_free(&world);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Comm_free(&split);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not null the handle");
}

int main(int argc, char **argv)
{
    int total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    groups();
    communicators();
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return 0;
}
