/* Collectives over an intercommunicator: even world ranks form group A,
 * odd ones group B (so the groups differ in size when np is odd). Every
 * result is checked element by element; prints " No Errors" when all hold.
 * Value of a contribution: 1000 * world rank + element index. Everything
 * runs twice: with the blocking calls, then with the non-blocking ones
 * (each waited for at once), and two non-blocking ones overlap. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int lrank, lsize, rsize, in_a;

/* COLL(Bcast, bcast, args) is MPI_Bcast(args), or MPI_Ibcast(args, &r)
 * and a wait when `nb` is set. */
static int nb;
static MPI_Request nbreq;
static int nbwait(int err) {
    return err == MPI_SUCCESS ? MPI_Wait(&nbreq, MPI_STATUS_IGNORE) : err;
}
#define COLL(Name, name, ...) \
    (nb ? nbwait(MPI_I##name(__VA_ARGS__, &nbreq)) : MPI_##Name(__VA_ARGS__))

/* World rank of rank r of the remote group. */
static int remote_world(int r) { return in_a ? 2 * r + 1 : 2 * r; }

static void test_bcast(MPI_Comm ic) {
    for (int root_in_a = 0; root_in_a < 2; root_in_a++) {
        int buf[5];
        int root_local = 1 % lsize; /* rank 1 of the root group when it exists */
        int root_group_is_mine = (in_a == root_in_a);
        int root;
        if (root_group_is_mine)
            root = (lrank == root_local) ? MPI_ROOT : MPI_PROC_NULL;
        else
            root = 1 % rsize;
        for (int i = 0; i < 5; i++)
            buf[i] = root == MPI_ROOT ? 77 + i : -1;
        COLL(Bcast, bcast, buf, 5, MPI_INT, root, ic);
        if (!root_group_is_mine)
            for (int i = 0; i < 5; i++)
                CHECK(buf[i] == 77 + i, "bcast: buf[%d] = %d", i, buf[i]);
        else if (root == MPI_PROC_NULL)
            CHECK(buf[0] == -1, "bcast: idle rank's buffer changed");
    }
}

static void test_gather_scatter(MPI_Comm ic) {
    /* Root: rank 0 of group A. */
    int *all = malloc(sizeof(int) * 2 * (rsize + 1));
    int mine[2] = {1000 * rank, 1000 * rank + 1};
    int root = in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int i = 0; i < 2 * rsize; i++)
        all[i] = -1;
    COLL(Gather, gather, mine, 2, MPI_INT, all, 2, MPI_INT, root, ic);
    if (root == MPI_ROOT)
        for (int r = 0; r < rsize; r++)
            for (int j = 0; j < 2; j++)
                CHECK(all[2 * r + j] == 1000 * remote_world(r) + j, "gather: [%d] = %d",
                      2 * r + j, all[2 * r + j]);

    /* Gatherv: remote rank r sends r+1 ints, placed in reverse order. */
    int counts[64], displs[64], send[64];
    int total = 0;
    for (int r = rsize - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *gv = malloc(sizeof(int) * (total + 1));
    for (int i = 0; i < lrank + 1; i++)
        send[i] = 1000 * rank + i;
    COLL(Gatherv, gatherv, send, lrank + 1, MPI_INT, gv, counts, displs, MPI_INT, root, ic);
    if (root == MPI_ROOT)
        for (int r = 0; r < rsize; r++)
            for (int j = 0; j < counts[r]; j++)
                CHECK(gv[displs[r] + j] == 1000 * remote_world(r) + j, "gatherv: r %d j %d",
                      r, j);

    /* Scatter from rank 0 of group B. */
    root = in_a ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    int *sc = malloc(sizeof(int) * 3 * rsize);
    for (int i = 0; i < 3 * rsize; i++)
        sc[i] = 500 + i;
    int got[3] = {-1, -1, -1};
    COLL(Scatter, scatter, sc, 3, MPI_INT, got, 3, MPI_INT, root, ic);
    if (in_a)
        for (int j = 0; j < 3; j++)
            CHECK(got[j] == 500 + 3 * lrank + j, "scatter: got[%d] = %d", j, got[j]);

    /* Scatterv: remote rank r gets r+1 ints from displacement 10*r. */
    int *sv = malloc(sizeof(int) * 10 * (rsize + 1));
    for (int i = 0; i < 10 * (rsize + 1); i++)
        sv[i] = 900 + i;
    for (int r = 0; r < rsize; r++) {
        counts[r] = r + 1;
        displs[r] = 10 * r;
    }
    int recv[64];
    COLL(Scatterv, scatterv, sv, counts, displs, MPI_INT, recv, lrank + 1, MPI_INT, root, ic);
    if (in_a)
        for (int j = 0; j <= lrank; j++)
            CHECK(recv[j] == 900 + 10 * lrank + j, "scatterv: recv[%d] = %d", j, recv[j]);
    free(all);
    free(gv);
    free(sc);
    free(sv);
}

static void test_all(MPI_Comm ic) {
    int mine[2] = {1000 * rank, 1000 * rank + 1};
    int *all = malloc(sizeof(int) * 2 * rsize);
    COLL(Allgather, allgather, mine, 2, MPI_INT, all, 2, MPI_INT, ic);
    for (int r = 0; r < rsize; r++)
        for (int j = 0; j < 2; j++)
            CHECK(all[2 * r + j] == 1000 * remote_world(r) + j, "allgather: r %d j %d = %d",
                  r, j, all[2 * r + j]);

    /* Allgatherv: everyone sends lrank+1 ints; receive counts r+1. */
    int counts[64], displs[64], send[64];
    int total = 0;
    for (int r = 0; r < rsize; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    for (int i = 0; i <= lrank; i++)
        send[i] = 1000 * rank + i;
    int *agv = malloc(sizeof(int) * (total + 1));
    COLL(Allgatherv, allgatherv, send, lrank + 1, MPI_INT, agv, counts, displs, MPI_INT, ic);
    for (int r = 0; r < rsize; r++)
        for (int j = 0; j <= r; j++)
            CHECK(agv[displs[r] + j] == 1000 * remote_world(r) + j, "allgatherv: r %d j %d", r,
                  j);

    /* Alltoall: block for remote r holds 100*rank + r. */
    int *a2s = malloc(sizeof(int) * rsize), *a2r = malloc(sizeof(int) * rsize);
    for (int r = 0; r < rsize; r++)
        a2s[r] = 100 * rank + r;
    COLL(Alltoall, alltoall, a2s, 1, MPI_INT, a2r, 1, MPI_INT, ic);
    for (int r = 0; r < rsize; r++)
        CHECK(a2r[r] == 100 * remote_world(r) + lrank, "alltoall: from %d got %d", r, a2r[r]);

    /* Alltoallv: send (lrank + r) % 3 ints to remote r. */
    int scounts[64], sdispls[64], rcounts[64], rdispls[64], sbuf[256], rbuf[256];
    for (int r = 0, at = 0; r < rsize; r++) {
        scounts[r] = (lrank + r) % 3;
        sdispls[r] = at;
        for (int j = 0; j < scounts[r]; j++)
            sbuf[at + j] = 10000 * rank + 100 * r + j;
        at += scounts[r];
    }
    for (int r = 0, at = 0; r < rsize; r++) {
        rcounts[r] = (r + lrank) % 3;
        rdispls[r] = at;
        at += rcounts[r];
    }
    COLL(Alltoallv, alltoallv, sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, ic);
    for (int r = 0; r < rsize; r++)
        for (int j = 0; j < rcounts[r]; j++)
            CHECK(rbuf[rdispls[r] + j] == 10000 * remote_world(r) + 100 * lrank + j,
                  "alltoallv: from %d [%d] = %d", r, j, rbuf[rdispls[r] + j]);

    /* Alltoallw: one int to every remote rank, byte displacements. */
    int wcounts[64], wdispls[64];
    MPI_Datatype types[64];
    for (int r = 0; r < rsize; r++) {
        wcounts[r] = 1;
        wdispls[r] = (int)sizeof(int) * r;
        types[r] = MPI_INT;
    }
    COLL(Alltoallw, alltoallw, a2s, wcounts, wdispls, types, a2r, wcounts, wdispls, types, ic);
    for (int r = 0; r < rsize; r++)
        CHECK(a2r[r] == 100 * remote_world(r) + lrank, "alltoallw: from %d got %d", r, a2r[r]);
    free(all);
    free(agv);
    free(a2s);
    free(a2r);
}

static void test_reductions(MPI_Comm ic) {
    /* Sum over the remote group of world ranks, and of element index. */
    int remote_sum = 0;
    for (int r = 0; r < rsize; r++)
        remote_sum += remote_world(r);
    int mine[3] = {rank, 1, rank * rank};
    int out[3] = {-1, -1, -1};

    int root = in_a ? rsize - 1 : (lrank == lsize - 1 ? MPI_ROOT : MPI_PROC_NULL);
    COLL(Reduce, reduce, mine, out, 3, MPI_INT, MPI_SUM, root, ic);
    if (root == MPI_ROOT) {
        CHECK(out[0] == remote_sum, "reduce: sum %d, expected %d", out[0], remote_sum);
        CHECK(out[1] == rsize, "reduce: count %d, expected %d", out[1], rsize);
    }

    COLL(Allreduce, allreduce, mine, out, 3, MPI_INT, MPI_MAX, ic);
    CHECK(out[0] == remote_world(rsize - 1), "allreduce max: %d", out[0]);
    COLL(Allreduce, allreduce, mine, out, 3, MPI_INT, MPI_SUM, ic);
    CHECK(out[0] == remote_sum && out[1] == rsize, "allreduce sum: %d %d", out[0], out[1]);

    /* Reduce_scatter_block: both groups reduce vectors of lsize*rsize
     * elements; each rank gets rsize (group A) or ... elements. For equal
     * vector lengths, block = other group's size. */
    int n = lsize * rsize;
    int *vec = malloc(sizeof(int) * n), *blk = malloc(sizeof(int) * rsize);
    for (int i = 0; i < n; i++)
        vec[i] = rank + i;
    COLL(Reduce_scatter_block, reduce_scatter_block, vec, blk, rsize, MPI_INT, MPI_SUM, ic);
    for (int j = 0; j < rsize; j++) {
        int i = lrank * rsize + j;
        CHECK(blk[j] == remote_sum + rsize * i, "reduce_scatter_block: [%d] = %d", j, blk[j]);
    }
    /* Reduce_scatter: local rank k gets counts[k] elements; lengths are
     * equal across groups: lsize*rsize. */
    int counts[64];
    for (int k = 0; k < lsize; k++)
        counts[k] = rsize;
    COLL(Reduce_scatter, reduce_scatter, vec, blk, counts, MPI_INT, MPI_SUM, ic);
    for (int j = 0; j < rsize; j++) {
        int i = lrank * rsize + j;
        CHECK(blk[j] == remote_sum + rsize * i, "reduce_scatter: [%d] = %d", j, blk[j]);
    }
    free(vec);
    free(blk);
}

static void test_errors(MPI_Comm ic) {
    int x = 0, y = 0, cls = 0;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int err = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COMM, "scan on an intercommunicator: class %d", cls);
    err = MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ARG, "in-place allreduce on an intercommunicator: class %d", cls);
    err = MPI_Bcast(&x, 1, MPI_INT, rsize + 5, ic);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_ROOT, "bcast with a bad root: class %d", cls);
}

int main(int argc, char **argv) {
    MPI_Comm local, ic;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in_a = rank % 2 == 0;
    MPI_Comm_split(MPI_COMM_WORLD, !in_a, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 12, &ic);
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);

    for (nb = 0; nb < 2; nb++)
        for (int rep = 0; rep < 2; rep++) {
            COLL(Barrier, barrier, ic);
            test_bcast(ic);
            test_gather_scatter(ic);
            test_all(ic);
            test_reductions(ic);
        }
    /* Two non-blocking collectives in flight at once, waited in reverse. */
    int b = in_a && lrank == 0 ? 5 : -1, mine = rank, sum = -1;
    MPI_Request two[2];
    MPI_Ibcast(&b, 1, MPI_INT, in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &two[0]);
    MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, ic, &two[1]);
    MPI_Wait(&two[1], MPI_STATUS_IGNORE);
    MPI_Wait(&two[0], MPI_STATUS_IGNORE);
    if (!in_a)
        CHECK(b == 5, "overlapping ibcast gave %d", b);
    int remote_sum = 0;
    for (int r = 0; r < rsize; r++)
        remote_sum += remote_world(r);
    CHECK(sum == remote_sum, "overlapping iallreduce gave %d, expected %d", sum, remote_sum);
    test_errors(ic);
    /* Collectives on the local communicator still match after all this. */
    int one = 1, n = 0;
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, local);
    CHECK(n == lsize, "local allreduce after intercomm collectives: %d", n);

    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
