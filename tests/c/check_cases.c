/* Erroneous programs the correctness checks (smpi/check) must report, one
 * per argument; run on 3 ranks. "none" is correct and must give no
 * finding. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *c = argc > 1 ? argv[1] : "none";
    int v[8] = {0}, w[8] = {0};
    if (!strcmp(c, "gather_vs_reduce")) {
        /* Different collectives matched with each other. */
        if (rank == 0)
            MPI_Gather(v, 1, MPI_INT, w, 1, MPI_INT, 0, MPI_COMM_WORLD);
        else
            MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (!strcmp(c, "blocking_vs_nonblocking")) {
        MPI_Request r = MPI_REQUEST_NULL;
        if (rank == 1) {
            MPI_Iallreduce(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
    } else if (!strcmp(c, "op_mismatch")) {
        MPI_Allreduce(v, w, 2, MPI_INT, rank == 2 ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(c, "only_some")) {
        /* A broadcast the other ranks never call (root 0 sends eagerly). */
        if (rank == 0)
            MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(c, "ordering")) {
        /* Root broadcasts then sends; rank 1 receives, then broadcasts. */
        if (rank == 0) {
            MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
            MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    } else if (!strcmp(c, "unreceived")) {
        if (rank == 0)
            MPI_Send(v, 2, MPI_INT, 2, 7, MPI_COMM_WORLD);
    } else if (!strcmp(c, "leak")) {
        MPI_Comm dup;
        MPI_Datatype pair;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
    } else if (!strcmp(c, "win_null")) {
        MPI_Win win;
        MPI_Win_create(NULL, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else if (!strcmp(c, "win_small")) {
        MPI_Win win;
        int *base = malloc(4 * sizeof(int));
        MPI_Win_create(base, 8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else if (!strcmp(c, "rma_conflict")) {
        /* Ranks 0 and 2 put into the same place of rank 1 in one epoch. */
        MPI_Win win;
        MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        if (rank != 1)
            MPI_Put(v, 2, MPI_INT, 1, 0, 2, MPI_INT, win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
    } else if (!strcmp(c, "rma_unclosed")) {
        MPI_Win win;
        MPI_Win_create(w, sizeof w, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        MPI_Win_fence(0, win);
        if (rank == 0)
            MPI_Put(v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        MPI_Win_free(&win);
    } else if (!strcmp(c, "nbc_reuse")) {
        /* The result of a pending MPI_Iallreduce is written to. */
        MPI_Request r;
        v[0] = rank + 1;
        MPI_Iallreduce(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
        w[0] = 99;
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "irecv_reuse")) {
        MPI_Request r;
        if (rank == 0)
            MPI_Send(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Irecv(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r);
            w[0]++;
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(c, "free_unseen")) {
        MPI_Request r;
        if (rank == 0) {
            MPI_Isend(v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, &r);
            MPI_Request_free(&r);
        }
        if (rank == 1)
            MPI_Recv(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(c, "race_benign") || !strcmp(c, "race_deadlock")) {
        /* Ranks 1 and 2 send before the barrier, rank 0 receives from
         * MPI_ANY_SOURCE after it: both messages wait, a race. A sum does
         * not care which comes first; the deadlocking variant expects
         * rank 2's second and waits for another if it came first. */
        if (rank == 0) {
            MPI_Status st;
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Recv(&v[0], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            if (!strcmp(c, "race_benign"))
                MPI_Recv(&v[1], 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            else
                MPI_Recv(&v[1], 1, MPI_INT, 2, 0, MPI_COMM_WORLD, &st);
            printf("sum %d\n", v[0] + v[1]);
        } else {
            v[0] = rank;
            MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    } else if (!strcmp(c, "self_types")) {
        /* A send-receive to itself, ints received as floats: a copy
         * without a message, checked all the same. */
        float f[2];
        if (rank == 2)
            MPI_Sendrecv(v, 2, MPI_INT, 2, 0, f, 2, MPI_FLOAT, 2, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    } else if (strcmp(c, "none")) {
        fprintf(stderr, "unknown case %s\n", c);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
