/* One-sided communication: every synchronization mode, every operation,
 * derived datatypes, window flavors, attributes, names, error classes and
 * the simulated cost of a put. Prints " No Errors" when every check holds. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 64

static int delete_calls = 0;

static int count_deletes(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win;
    (void)keyval;
    (void)extra;
    delete_calls += *(int *)value;
    return MPI_SUCCESS;
}

/* Fence epochs: put into the right neighbour, get from the left one,
 * accumulate into rank 0, with a strided (vector) target type. */
static void fence_ops(void)
{
    int buf[N], got[N], i;
    MPI_Win win;
    for (i = 0; i < N; i++)
        buf[i] = -1;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int mine[N / 2];
    for (i = 0; i < N / 2; i++)
        mine[i] = rank * 1000 + i;
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);

    MPI_Win_fence(0, win);
    MPI_Put(mine, N / 2, MPI_INT, right, 0, 1, every_other, win);
    MPI_Win_fence(0, win);
    for (i = 0; i < N / 2; i++) {
        CHECK(buf[2 * i] == left * 1000 + i, "put: buf[%d] = %d", 2 * i, buf[2 * i]);
        CHECK(buf[2 * i + 1] == -1, "put touched buf[%d] = %d", 2 * i + 1, buf[2 * i + 1]);
    }
    MPI_Get(got, N / 2, MPI_INT, left, 0, 1, every_other, win);
    MPI_Win_fence(0, win);
    for (i = 0; i < N / 2; i++)
        CHECK(got[i] == ((left + size - 1) % size) * 1000 + i, "get: got[%d] = %d", i, got[i]);

    for (i = 0; i < N; i++)
        buf[i] = 0;
    MPI_Win_fence(0, win);
    int one[N];
    for (i = 0; i < N; i++)
        one[i] = rank + 1;
    MPI_Accumulate(one, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        for (i = 0; i < N; i++)
            CHECK(buf[i] == size * (size + 1) / 2, "accumulate: buf[%d] = %d", i, buf[i]);
    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free leaves %d", win);
}

/* Passive target: atomic counters at rank 0 with exclusive locks,
 * fetch-and-op and compare-and-swap. */
static void passive_ops(void)
{
    long *counter;
    MPI_Win win;
    MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter,
                     &win);
    counter[0] = counter[1] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long one = 1, before = -1;
    int iter;
    for (iter = 0; iter < 5; iter++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &before, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        CHECK(before >= 0 && before < 5 * size, "fetch-and-op returned %ld", before);
    }
    /* Exactly one rank wins the compare-and-swap from 0. */
    long me = rank + 100, zero = 0, old = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG, 0, 1, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock(0, win);
    int won = old == 0, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(counter[0] == 5 * size, "counter = %ld, expected %d", counter[0], 5 * size);
        CHECK(counter[1] >= 100 && counter[1] < 100 + size, "swapped value %ld", counter[1]);
    }
    /* Request-based operations and lock_all. */
    long fetched[2] = {-1, -1};
    MPI_Request req;
    MPI_Win_lock_all(0, win);
    MPI_Rget(fetched, 2, MPI_LONG, 0, 0, 2, MPI_LONG, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(fetched[0] == 5 * size, "rget fetched %ld", fetched[0]);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

/* Post/start/complete/wait: every rank exposes to its left neighbour and
 * accesses its right one. */
static void pscw_ops(void)
{
    int slot = -1;
    MPI_Win win;
    MPI_Group world, left_g, right_g;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Win_create(&slot, sizeof slot, sizeof slot, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &left_g);
    MPI_Group_incl(world, 1, &right, &right_g);
    MPI_Win_post(left_g, 0, win);
    MPI_Win_start(right_g, 0, win);
    MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    CHECK(slot == left, "pscw: slot = %d, expected %d", slot, left);
    MPI_Group_free(&left_g);
    MPI_Group_free(&right_g);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* A shared window: every rank's part is reachable by load and store. */
static void shared_window(void)
{
    int *mine;
    MPI_Win win;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win);
    *mine = rank * 7;
    MPI_Win_fence(0, win);
    int r;
    for (r = 0; r < size; r++) {
        MPI_Aint sz;
        int du, *base;
        MPI_Win_shared_query(win, r, &sz, &du, &base);
        CHECK(sz == sizeof(int) && du == sizeof(int), "shared_query(%d): %ld %d", r, (long)sz, du);
        CHECK(*base == r * 7, "rank %d's shared int is %d", r, *base);
    }
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
}

/* A dynamic window: memory attached after creation, addressed by
 * absolute addresses. */
static void dynamic_window(void)
{
    MPI_Win win;
    int *region = calloc(4, sizeof(int));
    MPI_Aint addr, *all = malloc(size * sizeof(MPI_Aint));
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, region, 4 * sizeof(int));
    MPI_Get_address(region, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(&rank, 1, MPI_INT, right, MPI_Aint_add(all[right], 2 * sizeof(int)), 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(region[2] == left, "dynamic: region[2] = %d", region[2]);
    MPI_Win_detach(win, region);
    MPI_Win_free(&win);
    free(region);
    free(all);
}

/* Attributes, names and error classes. */
static void window_objects(void)
{
    int buf[4];
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    void *base;
    MPI_Aint *sz;
    int *du, *flavor, *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == buf, "MPI_WIN_BASE %p, expected %p", base, (void *)buf);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    CHECK(flag && *sz == sizeof buf, "MPI_WIN_SIZE %ld", (long)*sz);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    CHECK(flag && *du == sizeof(int), "MPI_WIN_DISP_UNIT %d", *du);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "MPI_WIN_CREATE_FLAVOR %d", *flavor);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "MPI_WIN_MODEL %d", *model);

    int key, value = 3;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_deletes, &key, NULL);
    MPI_Win_set_attr(win, key, &value);
    int *back;
    MPI_Win_get_attr(win, key, &back, &flag);
    CHECK(flag && back == &value, "own attribute not found");

    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_set_name(win, "halo");
    MPI_Win_get_name(win, name, &len);
    CHECK(len == 4 && strcmp(name, "halo") == 0, "window name '%s'", name);

    MPI_Group g;
    int gsize;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &gsize);
    CHECK(gsize == size, "window group of %d", gsize);
    MPI_Group_free(&g);

    /* Error classes, with errors returned. */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int cls, rc;
    rc = MPI_Put(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "put outside an epoch: class %d", cls);
    rc = MPI_Win_lock(12345, 0, 0, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_LOCKTYPE, "bad lock type: class %d", cls);
    rc = MPI_Win_unlock(0, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "unlock without lock: class %d", cls);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    rc = MPI_Put(buf, 1, MPI_INT, 0, 4, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_RANGE, "put past the window: class %d", cls);
    rc = MPI_Put(buf, 1, MPI_INT, size, 0, 1, MPI_INT, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "put to rank %d: class %d", size, cls);
    rc = MPI_Accumulate(buf, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP, "accumulate with MPI_OP_NULL: class %d", cls);
    rc = MPI_Put(buf, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win);
    CHECK(rc == MPI_SUCCESS, "put to MPI_PROC_NULL: %d", rc);
    MPI_Win_unlock(0, win);
    MPI_Errhandler eh;
    MPI_Win_get_errhandler(win, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "errhandler %d", eh);
    /* An invalid window has no handler of its own: MPI_COMM_WORLD's
     * judges. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_fence(0, MPI_WIN_NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_WIN, "fence on MPI_WIN_NULL: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Win_free(&win);
    CHECK(delete_calls == 3, "delete callback ran for %d", delete_calls);
    MPI_Win_free_keyval(&key);
}

/* A put of 1 MiB costs what a message of 1 MiB costs on the network. */
static void put_cost(void)
{
    enum { BYTES = 1 << 20 };
    char *buf = calloc(BYTES, 1), *src = calloc(BYTES, 1);
    MPI_Win win;
    MPI_Win_create(buf, BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    double t_put = 0, t_send = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(src, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win);
        MPI_Win_unlock(1, win);
        t_put = MPI_Wtime() - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Recv(buf, BYTES, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        MPI_Ssend(src, BYTES, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        t_send = MPI_Wtime() - t0;
        /* 1 MiB at 100 Gb/s takes at least 84 us. */
        CHECK(t_put > 84e-6, "put of 1 MiB took %g s", t_put);
        CHECK(t_put > 0.95 * t_send && t_put < 1.05 * t_send, "put %g s, send %g s", t_put,
              t_send);
    }
    MPI_Win_free(&win);
    free(buf);
    free(src);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fence_ops();
    passive_ops();
    pscw_ops();
    shared_window();
    dynamic_window();
    window_objects();
    if (size >= 2)
        put_cost();
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
