/* Info objects, self-checking: set, get, lengths, order, dup, delete, and
 * the error classes of bad keys. Prints " No Errors" on rank 0. */
#include <mpi.h>
#include "check.h"
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Info info, dup;
    char value[64], key[MPI_MAX_INFO_KEY + 1], longkey[MPI_MAX_INFO_KEY + 2];
    int flag, len, nkeys, rc, cls, total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Info_create(&info);
    MPI_Info_set(info, "file", "runfile.txt");
    MPI_Info_set(info, "soft", "2:1000:4,3:1000:7");
    MPI_Info_set(info, "file", "other.txt"); /* replaces, keeps its place */
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 2, "nkeys %d", nkeys);
    MPI_Info_get_nthkey(info, 0, key);
    CHECK(strcmp(key, "file") == 0, "first key %s", key);
    MPI_Info_get(info, "file", sizeof(value) - 1, value, &flag);
    CHECK(flag && strcmp(value, "other.txt") == 0, "file = %s", value);
    MPI_Info_get(info, "file", 5, value, &flag); /* truncated to 5 chars */
    CHECK(flag && strcmp(value, "other") == 0, "truncated value %s", value);
    MPI_Info_get_valuelen(info, "soft", &len, &flag);
    CHECK(flag && len == 17, "valuelen %d", len);
    MPI_Info_get(info, "absent", sizeof(value) - 1, value, &flag);
    CHECK(!flag, "absent key found");

    MPI_Info_dup(info, &dup);
    MPI_Info_delete(info, "file");
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys == 1, "nkeys after delete %d", nkeys);
    MPI_Info_get(dup, "file", sizeof(value) - 1, value, &flag);
    CHECK(flag && strcmp(value, "other.txt") == 0, "dup lost its key");

    rc = MPI_Info_delete(info, "file");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_NOKEY, "delete of a missing key: class %d", cls);
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = 0;
    rc = MPI_Info_set(info, longkey, "v");
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_INFO_KEY, "too long a key: class %d", cls);
    rc = MPI_Info_get_nthkey(info, 5, key);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "nthkey out of range: class %d", cls);

    MPI_Info_free(&info);
    MPI_Info_free(&dup);
    CHECK(info == MPI_INFO_NULL && dup == MPI_INFO_NULL, "handles not nulled");
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", sizeof(value) - 1, value, &flag);
    CHECK(flag && atoi(value) == size, "MPI_INFO_ENV maxprocs %s", value);

    /* MPI_Info_get_string: length query, truncation, full copy. */
    MPI_Info str;
    char small[4];
    int buflen = 0;
    MPI_Info_create(&str);
    MPI_Info_set(str, "path", "/scratch/run");
    MPI_Info_get_string(str, "path", &buflen, NULL, &flag);
    CHECK(flag && buflen == 13, "get_string length query: flag %d buflen %d", flag, buflen);
    buflen = sizeof(small);
    MPI_Info_get_string(str, "path", &buflen, small, &flag);
    CHECK(flag && buflen == 13 && strcmp(small, "/sc") == 0, "get_string truncation: %d '%s'",
          buflen, small);
    buflen = sizeof(value);
    MPI_Info_get_string(str, "path", &buflen, value, &flag);
    CHECK(flag && strcmp(value, "/scratch/run") == 0, "get_string: '%s'", value);
    MPI_Info_get_string(str, "none", &buflen, value, &flag);
    CHECK(!flag, "get_string of a missing key");
    MPI_Info_free(&str);
    MPI_Info_create_env(0, NULL, &str);
    buflen = sizeof(value);
    MPI_Info_get_string(str, "maxprocs", &buflen, value, &flag);
    CHECK(flag && atoi(value) == size, "Info_create_env maxprocs '%s'", value);
    MPI_Info_free(&str);

    /* Communicator hints: the standard's assertions are kept, unknown keys
     * ignored; a duplicate made with info gets that info's hints. */
    MPI_Comm comm, comm2;
    MPI_Info hints, used;
    MPI_Info_create(&hints);
    MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(hints, "no_such_hint", "1");
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_info(comm, hints);
    MPI_Comm_get_info(comm, &used);
    MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof(value) - 1, value, &flag);
    CHECK(flag && strcmp(value, "true") == 0, "comm hint not kept");
    MPI_Info_get(used, "no_such_hint", sizeof(value) - 1, value, &flag);
    CHECK(!flag, "unknown comm hint not ignored");
    MPI_Info_free(&used);
    MPI_Info_set(hints, "mpi_assert_exact_length", "true");
    MPI_Comm_dup_with_info(comm, hints, &comm2);
    MPI_Comm_get_info(comm2, &used);
    MPI_Info_get_nkeys(used, &nkeys);
    CHECK(nkeys == 2, "dup_with_info: %d hints", nkeys);
    MPI_Info_free(&used);
    MPI_Info_free(&hints);
    MPI_Comm_free(&comm2);
    MPI_Comm_free(&comm);

    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0 && rank == 0;
}
