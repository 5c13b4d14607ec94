/* Point-to-point semantics, self-checking. Run with 4 or more ranks.
 * Prints " No Errors" on rank 0 when every check passed, otherwise one line
 * per failed check; exits 1 on failure. */
#include <mpi.h>
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



static void non_overtaking(void)
{
    int i, v;
    MPI_Status st;
    if (rank == 0)
        for (i = 0; i < 10; i++)
            MPI_Send(&i, 1, MPI_INT, 1, i % 3, MPI_COMM_WORLD);
    if (rank == 1)
        for (i = 0; i < 10; i++) {
            MPI_Recv(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(v == i && st.MPI_TAG == i % 3, "message %d arrived as %d tag %d", i, v, st.MPI_TAG);
        }
}

static void large_rendezvous(void)
{
    int n = 1 << 18, i, bad = 0;
    int *buf = malloc(n * sizeof(int));
    if (rank == 0) {
        for (i = 0; i < n; i++)
            buf[i] = i * 3;
        MPI_Send(buf, n, MPI_INT, 2, 5, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Status st;
        int count;
        memset(buf, 0, n * sizeof(int));
        MPI_Recv(buf, n, MPI_INT, 0, 5, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n, "count %d", count);
        for (i = 0; i < n; i++)
            bad += buf[i] != i * 3;
        CHECK(bad == 0, "%d wrong values in a 1 MiB message", bad);
    }
    free(buf);
}

static void any_source(void)
{
    int i, v, seen = 0;
    MPI_Status st;
    if (rank == 0) {
        for (i = 1; i < size; i++) {
            int count;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(v == st.MPI_SOURCE * 100 && count == 1, "value %d from %d", v, st.MPI_SOURCE);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK(seen == ((1 << size) - 2), "sources seen %x", seen);
    } else {
        v = rank * 100;
        MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
}

static void truncation(void)
{
    int big[10] = {0}, small[5], rc, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1)
        MPI_Send(big, 10, MPI_INT, 0, 9, MPI_COMM_WORLD);
    if (rank == 0) {
        rc = MPI_Recv(small, 5, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive returned class %d", cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void nonblocking_ring(void)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int out[3] = {rank, rank * 2, rank * 3}, in[3] = {-1, -1, -1};
    MPI_Request reqs[2];
    MPI_Status sts[2];
    MPI_Irecv(in, 3, MPI_INT, prev, 11, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out, 3, MPI_INT, next, 11, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, sts);
    CHECK(in[0] == prev && in[2] == prev * 3, "ring got %d %d", in[0], in[2]);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "requests not nulled");
    CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 11, "status %d %d", sts[0].MPI_SOURCE, sts[0].MPI_TAG);
}

static void waitany_waitsome(void)
{
    if (rank == 0) {
        int vals[3] = {-1, -1, -1}, idx, i, done = 0, outcount, indices[3];
        MPI_Request r[3];
        MPI_Status st;
        for (i = 0; i < 3; i++)
            MPI_Irecv(&vals[i], 1, MPI_INT, i + 1, 12, MPI_COMM_WORLD, &r[i]);
        MPI_Waitany(3, r, &idx, &st);
        CHECK(idx >= 0 && idx < 3 && vals[idx] == idx + 1 && st.MPI_SOURCE == idx + 1, "waitany %d", idx);
        done = 1;
        while (done < 3) {
            MPI_Waitsome(3, r, &outcount, indices, MPI_STATUSES_IGNORE);
            CHECK(outcount >= 1, "waitsome outcount %d", outcount);
            done += outcount;
        }
        for (i = 0; i < 3; i++)
            CHECK(vals[i] == i + 1, "waitsome value %d", vals[i]);
        MPI_Waitany(3, r, &idx, &st);
        CHECK(idx == MPI_UNDEFINED, "waitany on null requests gave %d", idx);
    } else if (rank <= 3) {
        MPI_Send(&rank, 1, MPI_INT, 0, 12, MPI_COMM_WORLD);
    }
}

static void probe_then_recv(void)
{
    if (rank == 3) {
        double d[7] = {1, 2, 3, 4, 5, 6, 7};
        MPI_Send(d, 7, MPI_DOUBLE, 0, 13, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Status st;
        int count, flag = 0;
        double d[7];
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &flag, &st);
        CHECK(st.MPI_SOURCE == 3, "iprobe source %d", st.MPI_SOURCE);
        MPI_Probe(3, 13, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == 7, "probe count %d", count);
        MPI_Recv(d, count, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        CHECK(d[6] == 7.0, "probe data %g", d[6]);
    }
}

static void persistent(void)
{
    int i, v, w;
    MPI_Request r;
    if (rank == 0) {
        MPI_Send_init(&v, 1, MPI_INT, 1, 14, MPI_COMM_WORLD, &r);
        for (i = 0; i < 3; i++) {
            v = 40 + i;
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(r != MPI_REQUEST_NULL, "persistent request freed by wait");
        }
        MPI_Request_free(&r);
    } else if (rank == 1) {
        MPI_Recv_init(&w, 1, MPI_INT, 0, 14, MPI_COMM_WORLD, &r);
        for (i = 0; i < 3; i++) {
            MPI_Start(&r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(w == 40 + i, "persistent receive %d got %d", i, w);
        }
        MPI_Request_free(&r);
    }
}

static void buffered_and_sync(void)
{
    if (rank == 0) {
        int n = 1000, i, bufsize = 3 * (n * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
        int *data = malloc(n * sizeof(int)), *detached, detached_size;
        char *buf = malloc(bufsize);
        MPI_Buffer_attach(buf, bufsize);
        for (i = 0; i < n; i++)
            data[i] = i;
        for (i = 0; i < 3; i++)
            MPI_Bsend(data, n, MPI_INT, 1, 15, MPI_COMM_WORLD);
        MPI_Buffer_detach(&detached, &detached_size);
        CHECK((char *)detached == buf && detached_size == bufsize, "detach returned %p %d", (void *)detached, detached_size);
        MPI_Ssend(data, 10, MPI_INT, 1, 16, MPI_COMM_WORLD);
        free(buf);
        free(data);
    } else if (rank == 1) {
        int n = 1000, i, *data = malloc(n * sizeof(int));
        for (i = 0; i < 3; i++) {
            MPI_Recv(data, n, MPI_INT, 0, 15, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(data[n - 1] == n - 1, "bsend data %d", data[n - 1]);
        }
        MPI_Recv(data, 10, MPI_INT, 0, 16, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(data[9] == 9, "ssend data %d", data[9]);
        free(data);
    }
}

static void sendrecv_replace_ring(void)
{
    int v = rank, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Sendrecv_replace(&v, 1, MPI_INT, next, 17, prev, 17, MPI_COMM_WORLD, &st);
    CHECK(v == prev && st.MPI_SOURCE == prev, "sendrecv_replace got %d", v);
}

static void cancel_and_proc_null(void)
{
    int v, flag;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "receive not cancelled");
    MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "proc_null status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
}

static void matched_probe(void)
{
    if (rank == 1) {
        int v[2] = {5, 6};
        MPI_Send(v, 2, MPI_INT, 2, 18, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Message m;
        MPI_Status st;
        int v[2] = {0, 0}, count;
        MPI_Mprobe(1, 18, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 2, "mprobe count %d", count);
        MPI_Mrecv(v, count, MPI_INT, &m, &st);
        CHECK(v[1] == 6 && m == MPI_MESSAGE_NULL, "mrecv got %d", v[1]);
    }
}

static void pair_types_and_split(void)
{
    struct { double d; int i; } in = {rank * 1.5, rank}, out = {0, -1};
    MPI_Comm half;
    int hr, hs, sum;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(out.i == size - 1 && out.d == (size - 1) * 1.5, "maxloc %g %d", out.d, out.i);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK(hs == (size + 1 - rank % 2) / 2, "split size %d", hs);
    /* keys are -rank: the highest world rank comes first */
    MPI_Allreduce(&hr, &sum, 1, MPI_INT, MPI_SUM, half);
    CHECK(sum == hs * (hs - 1) / 2, "ranks in split comm sum to %d", sum);
    MPI_Comm_free(&half);
    CHECK(half == MPI_COMM_NULL, "comm_free did not null the handle");
}

/* An array of C structs described by MPI_Type_create_struct: the type's
 * extent must match the C struct's padded size. */
static void struct_arrays(void)
{
    struct ic {
        int i;
        char c;
    } a[3] = {{1, 'a'}, {2, 'b'}, {3, 'c'}}, b[3];
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 4}, lb, extent;
    MPI_Datatype types[2] = {MPI_INT, MPI_CHAR}, t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    MPI_Type_commit(&t);
    MPI_Type_get_extent(t, &lb, &extent);
    CHECK(extent == (MPI_Aint)sizeof(struct ic), "struct extent %ld", (long)extent);
    MPI_Sendrecv(a, 3, t, rank, 0, b, 3, t, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(b[2].i == 3 && b[2].c == 'c' && b[1].c == 'b', "struct array got %d %c", b[2].i, b[2].c);
    MPI_Type_free(&t);
}

/* external32 is big-endian: an int packs to its bytes from the most
 * significant, and unpacks back. */
static void pack_external32(void)
{
    int v[2] = {0x01020304, -2}, back[2] = {0, 0};
    unsigned char buf[8];
    MPI_Aint pos = 0, size;
    MPI_Pack_external_size("external32", 2, MPI_INT, &size);
    MPI_Pack_external("external32", v, 2, MPI_INT, buf, sizeof(buf), &pos);
    CHECK(size == 8 && pos == 8 && buf[0] == 1 && buf[3] == 4 && buf[4] == 0xff && buf[7] == 0xfe,
          "external32 bytes %d %d %d", buf[0], buf[3], buf[7]);
    pos = 0;
    MPI_Unpack_external("external32", buf, sizeof(buf), &pos, back, 2, MPI_INT);
    CHECK(back[0] == v[0] && back[1] == -2, "external32 round trip %x %d", back[0], back[1]);
}

int main(int argc, char **argv)
{
    int total;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4) {
        if (rank == 0)
            printf("run with at least 4 ranks\n");
        MPI_Finalize();
        return 1;
    }
    non_overtaking();
    large_rendezvous();
    any_source();
    truncation();
    nonblocking_ring();
    waitany_waitsome();
    probe_then_recv();
    persistent();
    buffered_and_sync();
    sendrecv_replace_ring();
    cancel_and_proc_null();
    matched_probe();
    pair_types_and_split();
    struct_arrays();
    pack_external32();
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0 && rank == 0;
}
