/* Communicator features, self-checking, for 4 or more ranks: attributes
 * with copy/delete callbacks, intercommunicators (create, point-to-point,
 * split, merge), MPI_Comm_create_group, MPI_Isendrecv, generalized
 * requests and a subarray datatype. Prints " No Errors" on rank 0. */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>

static int deletes = 0, copies = 0;


static int copy_fn(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int query_fn(void *extra, MPI_Status *status)
{
    MPI_Status_set_elements(status, MPI_BYTE, *(int *)extra);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    *(int *)extra = -1;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int key, value = 42, *got, flag;
    MPI_Comm dup;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_attr(dup, key, &got, &flag);
    CHECK(flag && got == &value && copies == 1, "copied attribute: flag %d copies %d", flag, copies);
    MPI_Comm_free(&dup);
    CHECK(deletes == 1, "delete callbacks after free: %d", deletes);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, key);
    CHECK(deletes == 2, "delete callbacks after delete_attr: %d", deletes);
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &got, &flag);
    CHECK(!flag, "attribute still set after delete");
    MPI_Comm_free_keyval(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "keyval not invalidated");
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &got, &flag);
    CHECK(flag && *got >= 32767, "MPI_TAG_UB");

    /* A freed keyval lives on in the attributes that use it: they are
     * still copied, read and deleted with its callbacks. */
    int saved;
    MPI_Comm_create_keyval(copy_fn, delete_fn, &key, NULL);
    saved = key;
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    CHECK(copies == 2, "freed keyval: copies %d", copies);
    MPI_Comm_get_attr(dup, saved, &got, &flag);
    CHECK(flag && got == &value, "freed keyval: attribute not on the duplicate");
    MPI_Comm_free(&dup);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, saved);
    CHECK(deletes == 4, "freed keyval: deletes %d", deletes);
}

static int type_copies = 0, type_deletes = 0;

static int type_copy_fn(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)key, (void)in, (void)out;
    type_copies++;
    *flag = 0;
    return *(int *)extra; /* the error this keyval's copy returns */
}

static int type_delete_fn(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)val, (void)extra;
    type_deletes++;
    return MPI_SUCCESS;
}

/* Datatype attributes: MPI_Type_dup copies them; a failing copy function
 * fails the dup with MPI_DATATYPE_NULL and its own error. */
static void type_attributes(void)
{
    int ok = MPI_SUCCESS, bad = MPI_ERR_OTHER, key_ok, key_bad, value = 7, *got, flag, rc;
    MPI_Datatype t, dup = MPI_INT;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_create_keyval(type_copy_fn, type_delete_fn, &key_ok, &ok);
    MPI_Type_create_keyval(type_copy_fn, type_delete_fn, &key_bad, &bad);
    MPI_Type_set_attr(t, key_ok, &value);
    MPI_Type_dup(t, &dup);
    CHECK(dup != MPI_DATATYPE_NULL && type_copies == 1, "type dup: copies %d", type_copies);
    MPI_Type_free(&dup);
    MPI_Type_set_attr(t, key_bad, &value);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Type_dup(t, &dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(rc == MPI_ERR_OTHER && dup == MPI_DATATYPE_NULL, "failing type copy: rc %d", rc);
    MPI_Type_get_attr(t, key_ok, &got, &flag);
    CHECK(flag && got == &value, "type attribute lost");
    MPI_Type_free(&t);
    CHECK(type_deletes == 2, "type deletes %d", type_deletes);
    MPI_Type_free_keyval(&key_ok);
    MPI_Type_free_keyval(&key_bad);
}

static void intercommunicators(void)
{
    MPI_Comm half, inter, merged, sub;
    int low = rank < size / 2, hrank, hsize, rsize, inter_flag, mrank, v, i;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    /* leaders: world 0 for the low half, world size/2 for the high half */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter);
    MPI_Comm_test_inter(inter, &inter_flag);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(inter_flag && rsize == size - hsize, "intercomm flag %d remote size %d", inter_flag, rsize);
    /* every rank of the low group sends to rank 0 of the high group */
    if (low) {
        v = rank;
        MPI_Send(&v, 1, MPI_INT, 0, 3, inter);
    } else if (hrank == 0) {
        int sum = 0;
        MPI_Status st;
        for (i = 0; i < rsize; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &st);
            CHECK(v == st.MPI_SOURCE, "intercomm message %d from %d", v, st.MPI_SOURCE);
            sum += v;
        }
        CHECK(sum == rsize * (rsize - 1) / 2, "intercomm sum %d", sum);
    }
    /* high group first */
    MPI_Intercomm_merge(inter, low, &merged);
    MPI_Comm_rank(merged, &mrank);
    CHECK(mrank == (low ? rank + (size - size / 2) : rank - size / 2), "merged rank %d", mrank);
    MPI_Comm_split(inter, hrank % 2, 0, &sub);
    if (sub != MPI_COMM_NULL) {
        MPI_Comm_remote_size(sub, &rsize);
        CHECK(rsize >= 1, "split intercomm remote size %d", rsize);
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void create_group(void)
{
    MPI_Group world, evens;
    MPI_Comm comm;
    int range[1][3] = {{0, size - 1, 2}}, r, s;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_range_incl(world, 1, range, &evens);
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 5, &comm);
        MPI_Comm_rank(comm, &r);
        MPI_Comm_size(comm, &s);
        CHECK(r == rank / 2 && s == (size + 1) / 2, "create_group rank %d size %d", r, s);
        MPI_Comm_free(&comm);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
}

/* MPI_Comm_create with disjoint groups (MPI 2.2): evens and odds each get
 * their own communicator from one call, and an allreduce stays inside. */
static void create_disjoint(void)
{
    MPI_Group world, mine;
    MPI_Comm comm;
    int range[1][3] = {{rank % 2, size - 1, 2}}, r, s, sum = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_range_incl(world, 1, range, &mine);
    MPI_Comm_create(MPI_COMM_WORLD, mine, &comm);
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &s);
    CHECK(r == rank / 2 && s == (size + 1 - rank % 2) / 2, "create disjoint: rank %d size %d", r,
          s);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    int expect = 0;
    for (int i = rank % 2; i < size; i += 2)
        expect += i;
    CHECK(sum == expect, "create disjoint: sum %d, expected %d", sum, expect);
    MPI_Comm_free(&comm);
    MPI_Group_free(&mine);
    MPI_Group_free(&world);
}

static void isendrecv_and_grequest(void)
{
    int out = rank, in = -1, extra = 12, count;
    MPI_Request req;
    MPI_Status st;
    MPI_Isendrecv(&out, 1, MPI_INT, (rank + 1) % size, 9, &in, 1, MPI_INT, (rank + size - 1) % size, 9,
                  MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    CHECK(in == (rank + size - 1) % size && st.MPI_SOURCE == in, "isendrecv got %d", in);
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &req);
    MPI_Grequest_complete(req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 12 && extra == -1 && req == MPI_REQUEST_NULL, "grequest count %d extra %d", count, extra);
}

static void subarray(void)
{
    /* the 2x3 block at (1, 2) of a 4x6 C array, sent to the next rank */
    int sizes[2] = {4, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2}, a[24], b[6], i;
    MPI_Datatype sub;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    for (i = 0; i < 24; i++)
        a[i] = i;
    MPI_Sendrecv(a, 1, sub, (rank + 1) % size, 4, b, 6, MPI_INT, (rank + size - 1) % size, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(b[0] == 8 && b[2] == 10 && b[3] == 14 && b[5] == 16, "subarray data %d %d %d %d", b[0], b[2], b[3], b[5]);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(sub, &lb, &extent);
    CHECK(lb == 0 && extent == 24 * (MPI_Aint)sizeof(int), "subarray extent %ld", (long)extent);
    MPI_Type_free(&sub);
}

static void dims_and_idup(void)
{
    int d2[2] = {0, 0}, d3[3] = {0, 3, 0}, s, bad[2] = {5, 0}, rc;
    MPI_Comm c;
    MPI_Request r;
    MPI_Dims_create(12, 2, d2);
    CHECK(d2[0] == 4 && d2[1] == 3, "dims of 12: %d x %d", d2[0], d2[1]);
    MPI_Dims_create(24, 3, d3);
    CHECK(d3[0] == 4 && d3[1] == 3 && d3[2] == 2, "dims of 24: %d x %d x %d", d3[0], d3[1], d3[2]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Dims_create(12, 2, bad);
    CHECK(rc != MPI_SUCCESS, "5 does not divide 12, yet no error");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_size(c, &s);
    MPI_Barrier(c);
    CHECK(s == size && r == MPI_REQUEST_NULL, "idup size %d", s);
    MPI_Comm_free(&c);
}

/* Ranks on the same simulated host share MPI_COMM_TYPE_SHARED (the e2e
 * test runs two ranks per host with a hostfile). */
static void shared_split(void)
{
    MPI_Comm node;
    int nsize, nrank, local0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    /* the lowest world rank of my node */
    local0 = rank;
    MPI_Allreduce(MPI_IN_PLACE, &local0, 1, MPI_INT, MPI_MIN, node);
    CHECK(nsize <= 2 && nrank == rank - local0, "node size %d rank %d lowest %d", nsize, nrank, local0);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    int total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    attributes();
    type_attributes();
    intercommunicators();
    create_group();
    create_disjoint();
    isendrecv_and_grequest();
    subarray();
    dims_and_idup();
    shared_split();
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return total != 0 && rank == 0;
}
