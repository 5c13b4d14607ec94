/* Non-blocking collectives: every MPI_I<collective> gives the data of its
 * blocking twin; several can be in flight at once (completed in any order
 * with MPI_Waitall, or polled with MPI_Test); they progress while a rank
 * waits for something else; user operations work in them. Prints
 * " No Errors" when every check holds. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void addone(void *in, void *inout, int *len, MPI_Datatype *dt) {
    int *a = in, *b = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i] + 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = size;
    int *sendv = malloc(sizeof(int) * (size_t)n * 4), *recvv = malloc(sizeof(int) * (size_t)n * 4);
    int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
    }
    MPI_Request r[8];

    /* Three at once, waited for together. */
    int bval = rank == 1 % size ? 42 : -1;
    int sum = 0, mx = 0, mine = rank + 1;
    MPI_Ibcast(&bval, 1, MPI_INT, 1 % size, MPI_COMM_WORLD, &r[0]);
    MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Ireduce(&mine, &mx, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
    CHECK(bval == 42, "ibcast gave %d", bval);
    CHECK(sum == size * (size + 1) / 2, "iallreduce gave %d", sum);
    if (rank == 0)
        CHECK(mx == size, "ireduce gave %d", mx);

    /* Gathers, scatters, all-to-all. */
    for (int i = 0; i < 2 * n; i++)
        sendv[i] = rank * 1000 + i;
    MPI_Iallgather(sendv, 2, MPI_INT, recvv, 2, MPI_INT, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (int p = 0; p < n; p++)
        CHECK(recvv[2 * p] == p * 1000 && recvv[2 * p + 1] == p * 1000 + 1, "iallgather from %d", p);
    MPI_Ialltoall(sendv, 2, MPI_INT, recvv, 2, MPI_INT, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (int p = 0; p < n; p++)
        CHECK(recvv[2 * p] == p * 1000 + 2 * rank, "ialltoall from %d", p);
    MPI_Ialltoallv(sendv, counts, displs, MPI_INT, recvv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                   &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    for (int p = 0; p < n; p++)
        CHECK(recvv[2 * p + 1] == p * 1000 + 2 * rank + 1, "ialltoallv from %d", p);
    {
        /* Per-peer datatypes: ints, counts and byte displacements. */
        int *sc = malloc(sizeof(int) * (size_t)n), *sd = malloc(sizeof(int) * (size_t)n);
        MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)n);
        for (int p = 0; p < n; p++) {
            sc[p] = 1;
            sd[p] = (int)sizeof(int) * 2 * p;
            ty[p] = MPI_INT;
        }
        MPI_Ialltoallw(sendv, sc, sd, ty, recvv, sc, sd, ty, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        for (int p = 0; p < n; p++)
            CHECK(recvv[2 * p] == p * 1000 + 2 * rank, "ialltoallw from %d", p);
        for (int p = 0; p < n; p++)
            recvv[2 * p] = rank * 100 + p;
        MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, recvv, sc, sd, ty, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        for (int p = 0; p < n; p++)
            CHECK(recvv[2 * p] == p * 100 + rank, "ialltoallw in place from %d", p);
        free(sc);
        free(sd);
        free(ty);
    }
    MPI_Igather(&mine, 1, MPI_INT, recvv, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int p = 0; p < n; p++)
            CHECK(recvv[p] == p + 1, "igather from %d", p);
    MPI_Igatherv(sendv, 2, MPI_INT, recvv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    if (rank == 0)
        for (int p = 0; p < n; p++)
            CHECK(recvv[2 * p + 1] == p * 1000 + 1, "igatherv from %d", p);
    int got = -1;
    MPI_Iscatter(sendv, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(got == rank, "iscatter gave %d", got);
    int two[2];
    MPI_Iscatterv(sendv, counts, displs, MPI_INT, two, 2, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(two[0] == 2 * rank && two[1] == 2 * rank + 1, "iscatterv");
    MPI_Iallgatherv(sendv, 2, MPI_INT, recvv, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(recvv[2 * (n - 1)] == (n - 1) * 1000, "iallgatherv");

    /* Reductions with scans and scatters, and a user operation. */
    int scan = 0, exscan = -7;
    MPI_Iscan(&mine, &scan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iexscan(&mine, &exscan, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    CHECK(scan == (rank + 1) * (rank + 2) / 2, "iscan gave %d", scan);
    if (rank > 0)
        CHECK(exscan == rank * (rank + 1) / 2, "iexscan gave %d", exscan);
    for (int i = 0; i < n; i++)
        sendv[i] = i;
    int block = -1;
    MPI_Ireduce_scatter_block(sendv, &block, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(block == rank * size, "ireduce_scatter_block gave %d", block);
    int ones[64];
    for (int i = 0; i < n; i++)
        ones[i] = 1;
    block = -1;
    MPI_Ireduce_scatter(sendv, &block, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(block == rank * size, "ireduce_scatter gave %d", block);
    MPI_Op plus1;
    MPI_Op_create(addone, 1, &plus1);
    int u = 0;
    MPI_Iallreduce(&mine, &u, 1, MPI_INT, plus1, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(u == size * (size + 1) / 2 + size - 1, "iallreduce with a user op gave %d", u);
    MPI_Op_free(&plus1);

    /* Polling a barrier with MPI_Test; progress while waiting for a
     * message: rank 0 sends only after its own barrier completed, and the
     * others wait for that message before waiting for their barrier. */
    int flag = 0, polls = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    if (rank == 0) {
        while (!flag) {
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
            polls++;
        }
        for (int p = 1; p < size; p++)
            MPI_Send(&polls, 1, MPI_INT, p, 9, MPI_COMM_WORLD);
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    }
    CHECK(r[0] == MPI_REQUEST_NULL, "a completed request is freed");

    /* A non-blocking collective does not block: rank 0 starts a barrier,
     * then sends to the others, who receive before they even start it (a
     * blocking barrier there would deadlock). */
    if (rank == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
        for (int p = 1; p < size; p++)
            MPI_Send(&polls, 1, MPI_INT, p, 10, MPI_COMM_WORLD);
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
    }
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    /* Collectives on a communicator of its own stay apart from others. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hs = 0, ws = 0;
    MPI_Iallreduce(&mine, &hs, 1, MPI_INT, MPI_SUM, half, &r[0]);
    MPI_Iallreduce(&mine, &ws, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int expect = 0;
    for (int p = rank % 2; p < size; p += 2)
        expect += p + 1;
    CHECK(hs == expect && ws == size * (size + 1) / 2, "split iallreduce %d %d", hs, ws);
    MPI_Comm_free(&half);

    free(sendv);
    free(recvv);
    free(counts);
    free(displs);
    report_errors();
    MPI_Finalize();
    return 0;
}
