/* Five classic mistakes of MPI students, and what smpirun's correctness
 * checks (--cfg=smpi/check:...) say about each. Run on 3 ranks:
 *
 *   smpicc -trace-call-location mpi_mistakes.c -o mistakes
 *   smpirun -np 3 --cfg=smpi/check:all ./mistakes <mistake>
 *
 * where <mistake> is one of
 *   types    rank 0 sends ints, rank 1 receives floats      (DatatypeMatching)
 *   root     the ranks disagree on the root of a broadcast  (RootMatching)
 *   reuse    a send buffer is refilled before MPI_Wait      (LocalConcurrency)
 *   nowait   a request is never completed                   (MissingWait)
 *   race     results depend on which message comes first    (MessageRace)
 *            (add --cfg=smpi/check/wildcard-alternatives:4 to re-run with
 *            the other message first and see the result change)
 * or "right", the same exchanges written correctly: no finding.
 *
 * Every mistake here runs to the end on most MPI libraries and prints
 * plausible numbers, which is why students do not notice them. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void types(int rank, int right) {
    if (rank == 0) {
        int v[4] = {1, 2, 3, 4};
        MPI_Send(v, 4, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1) {
        if (right) {
            int v[4];
            MPI_Recv(v, 4, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("rank 1 got %d %d %d %d\n", v[0], v[1], v[2], v[3]);
        } else {
            /* Same size in bytes, so nothing fails: the bits of the ints
             * are read as floats. */
            float v[4];
            MPI_Recv(v, 4, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("rank 1 got %g %g %g %g\n", v[0], v[1], v[2], v[3]);
        }
    }
}

static void root(int rank, int right) {
    int value = rank == 0 ? 42 : -1;
    /* Each rank thinks the data starts with "itself" when confused. */
    int from = right ? 0 : (rank == 2 ? 2 : 0);
    MPI_Bcast(&value, 1, MPI_INT, from, MPI_COMM_WORLD);
    printf("rank %d has %d\n", rank, value);
}

static void reuse(int rank, int right) {
    int next = (rank + 1) % 3, prev = (rank + 2) % 3;
    int out = 100 + rank, in = -1;
    MPI_Request req;
    MPI_Isend(&out, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &req);
    if (right) {
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        out = 0; /* the send is complete: the buffer is ours again */
    } else {
        out = 0; /* the send may still be reading it */
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Recv(&in, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got %d\n", rank, in);
}

static void nowait(int rank, int right) {
    int next = (rank + 1) % 3, prev = (rank + 2) % 3;
    int out = rank, in = -1;
    MPI_Request reqs[2];
    MPI_Irecv(&in, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(&out, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &reqs[1]);
    if (right) {
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    } else {
        /* Only the receive is waited for: "the send is done anyway". */
        MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    }
    printf("rank %d got %d\n", rank, in);
}

static void race(int rank, int right) {
    if (rank == 0) {
        int first = -1, second = -1;
        int src1 = right ? 1 : MPI_ANY_SOURCE, src2 = right ? 2 : MPI_ANY_SOURCE;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&first, 1, MPI_INT, src1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&second, 1, MPI_INT, src2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* "first - second" assumes rank 1's value comes first. */
        printf("difference %d\n", first - second);
    } else {
        int v = 10 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *which = argc > 1 ? argv[1] : "right";
    int right = strcmp(which, "right") == 0;
    if (size != 3) {
        if (rank == 0)
            fprintf(stderr, "run on 3 ranks\n");
        MPI_Finalize();
        return 1;
    }
    if (right || strcmp(which, "types") == 0)
        types(rank, right);
    if (right || strcmp(which, "root") == 0)
        root(rank, right);
    if (right || strcmp(which, "reuse") == 0)
        reuse(rank, right);
    if (right || strcmp(which, "nowait") == 0)
        nowait(rank, right);
    if (right || strcmp(which, "race") == 0)
        race(rank, right);
    MPI_Finalize();
    return 0;
}
