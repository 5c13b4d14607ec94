/* Persistent collectives (MPI 4.0): a request made once by MPI_X_init runs
 * the collective at each MPI_Start with the buffers' current contents;
 * MPI_Startall starts several; they match in the order they were made,
 * whatever the order of the starts; errors surface at MPI_Start; freeing
 * an inactive request is allowed. */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Bcast and Allreduce, restarted with new data each round. */
    int value = 0, in = 0, sum = 0;
    MPI_Request bcast, allred;
    MPI_Bcast_init(&value, 1, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &bcast);
    MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &allred);
    for (int round = 0; round < 4; round++) {
        value = rank == size - 1 ? 100 + round : -1;
        in = rank + round;
        MPI_Start(&bcast);
        MPI_Start(&allred);
        MPI_Status st;
        MPI_Wait(&bcast, &st);
        int flag = 0;
        while (!flag)
            MPI_Test(&allred, &flag, MPI_STATUS_IGNORE);
        CHECK(bcast != MPI_REQUEST_NULL && allred != MPI_REQUEST_NULL,
              "persistent requests stay allocated");
        CHECK(value == 100 + round, "round %d: bcast gave %d", round, value);
        CHECK(sum == size * (size - 1) / 2 + size * round, "round %d: allreduce gave %d", round,
              sum);
    }

    /* Alltoallv and Barrier through MPI_Startall, twice. */
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
    int *out = malloc(sizeof(int) * (size_t)size), *got = malloc(sizeof(int) * (size_t)size);
    for (int j = 0; j < size; j++) {
        sc[j] = 1;
        sd[j] = j;
    }
    MPI_Request reqs[2];
    MPI_Alltoallv_init(out, sc, sd, MPI_INT, got, sc, sd, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &reqs[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
    for (int round = 0; round < 2; round++) {
        for (int j = 0; j < size; j++) {
            out[j] = rank * 1000 + j + round * 7;
            got[j] = -1;
        }
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < size; i++)
            CHECK(got[i] == i * 1000 + rank + round * 7, "round %d: alltoallv from %d gave %d",
                  round, i, got[i]);
    }

    /* Persistent collectives match in the order they were made: start
     * them in different orders on different ranks. */
    int a = rank == 0 ? 42 : -1;
    MPI_Request two[2];
    MPI_Bcast_init(&a, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]);
    MPI_Start(&two[rank % 2]);
    MPI_Start(&two[1 - rank % 2]);
    MPI_Waitall(2, two, MPI_STATUSES_IGNORE);
    CHECK(a == 42, "bcast started out of order gave %d", a);
    MPI_Request_free(&two[0]);
    MPI_Request_free(&two[1]);

    /* Starting an active request is an error, reported by MPI_Start. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Start(&reqs[1]);
    int err = MPI_Start(&reqs[1]);
    int cls;
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "second MPI_Start of an active request: class %d", cls);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);

    MPI_Request_free(&bcast);
    MPI_Request_free(&allred);
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    CHECK(bcast == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL, "freed requests are null");
    free(sc);
    free(sd);
    free(out);
    free(got);

    report_errors();
    MPI_Finalize();
    return 0;
}
