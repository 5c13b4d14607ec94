/* Bad arguments give the right error class (with MPI_ERRORS_RETURN) and
 * never crash: one line per argument kind of issue 3 (rank, tag, count,
 * datatype, communicator, root, op, buffer) and per object kind (group,
 * request, keyval, info, topology, error handler, error code). Prints
 * " No Errors" on rank 0 when every class is right. Run with 2+ ranks. */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"

#define EXPECT(call, want)                                                                 \
    do {                                                                                   \
        int rc_ = (call), cls_ = -1;                                                       \
        MPI_Error_class(rc_, &cls_);                                                       \
        CHECK(cls_ == (want), "%s: class %d, expected %s (%d)", #call, cls_, #want, want); \
    } while (0)

int main(int argc, char **argv)
{
    int v[4] = {0, 0, 0, 0}, flag, total = 0;
    MPI_Status st;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Datatype vec;
    MPI_Group g;
    MPI_Comm dup;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Point-to-point arguments. */
    EXPECT(MPI_Send(v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Recv(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Send(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Send(v, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    EXPECT(MPI_Send(v, 1, vec, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
    MPI_Type_free(&vec);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, (MPI_Comm)4242), MPI_ERR_COMM);
    EXPECT(MPI_Send(NULL, 2, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    req = (MPI_Request)98765;
    EXPECT(MPI_Wait(&req, &st), MPI_ERR_REQUEST);
    /* A message longer than the receive buffer. */
    if (rank == 0) {
        MPI_Send(v, 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
    } else if (rank == 1) {
        EXPECT(MPI_Recv(v, 2, MPI_INT, 0, 3, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    }

    /* Collective arguments. */
    EXPECT(MPI_Bcast(v, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(v, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(v, -3, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Allreduce(v, v + 2, 1, MPI_INT, (MPI_Op)777, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(v, v + 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(v, v + 2, 1, (MPI_Datatype)999, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    /* Null buffers holding data, null count arrays (MPI_ERR_COUNT) and
     * displacement arrays (MPI_ERR_ARG), a null datatype: the same on every
     * rank, so no rank goes on into the collective. */
    {
        int *big = calloc(4 * (size_t)size, sizeof(int));
        int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
        for (int i = 0; i < size; i++) {
            counts[i] = 1;
            displs[i] = i;
        }
        EXPECT(MPI_Bcast(NULL, 2, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Bcast(big, 2, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
        EXPECT(MPI_Allreduce(NULL, big, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Allreduce(big, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Reduce(NULL, big, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Scan(NULL, big, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Gather(NULL, 1, MPI_INT, big, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Scatter(big, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Allgather(big, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Alltoall(NULL, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
        EXPECT(MPI_Allgatherv(big, 1, MPI_INT, big, NULL, displs, MPI_INT, MPI_COMM_WORLD),
               MPI_ERR_COUNT);
        EXPECT(MPI_Allgatherv(big, 1, MPI_INT, big, counts, NULL, MPI_INT, MPI_COMM_WORLD),
               MPI_ERR_ARG);
        EXPECT(MPI_Allgatherv(NULL, 1, MPI_INT, big, counts, displs, MPI_INT, MPI_COMM_WORLD),
               MPI_ERR_BUFFER);
        EXPECT(MPI_Alltoallv(big, NULL, displs, MPI_INT, big, counts, displs, MPI_INT,
                             MPI_COMM_WORLD),
               MPI_ERR_COUNT);
        EXPECT(MPI_Reduce_scatter(NULL, big, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
               MPI_ERR_BUFFER);
        /* A zero count needs no buffer. */
        EXPECT(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
        EXPECT(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        free(big);
        free(counts);
        free(displs);
    }
    /* An op not defined for the type (MAXLOC on plain ints) fails on every
     * rank alike. */
    EXPECT(MPI_Allreduce(v, v + 2, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);

    /* Communicators and groups. */
    EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &dup), MPI_ERR_COMM);
    EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &dup), MPI_ERR_ARG);
    EXPECT(MPI_Comm_free(&(MPI_Comm){MPI_COMM_WORLD}), MPI_ERR_COMM);
    EXPECT(MPI_Group_size((MPI_Group)5555, &flag), MPI_ERR_GROUP);
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    int bad_rank[1] = {size + 3};
    MPI_Group sub;
    EXPECT(MPI_Group_incl(g, 1, bad_rank, &sub), MPI_ERR_RANK);
    MPI_Group_free(&g);

    /* Attributes, info, topologies, error handlers, error codes. */
    void *attr;
    EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, 424242, &attr, &flag), MPI_ERR_KEYVAL);
    MPI_Info info;
    MPI_Info_create(&info);
    EXPECT(MPI_Info_delete(info, "absent"), MPI_ERR_INFO_NOKEY);
    MPI_Info_free(&info);
    EXPECT(MPI_Info_set((MPI_Info)31337, "k", "v"), MPI_ERR_INFO);
    int coords[2];
    EXPECT(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, coords), MPI_ERR_TOPOLOGY);
    int dims[2] = {0, 0};
    EXPECT(MPI_Dims_create(size, -1, dims), MPI_ERR_DIMS);
    int cdims[1] = {size + 1}, periods[1] = {0};
    MPI_Comm cart;
    EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, cdims, periods, 0, &cart), MPI_ERR_ARG);
    EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)8888), MPI_ERR_ARG);
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    EXPECT(MPI_Error_string(123456, msg, &len), MPI_ERR_ARG);
    EXPECT(MPI_Error_class(-4, &flag), MPI_ERR_ARG);

    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? " No Errors\n" : " Found %d errors\n", total);
    MPI_Finalize();
    return 0;
}
