/* Waits as SimGrid 3.32 does them: rank 0 waits with MPI_Waitsome and
 * MPI_Waitany for messages ranks 1 to 3 send at known dates, and prints
 * what each call returned and the simulated dates; then a send-receive to
 * itself, which SimGrid copies without a message. Run with computation
 * timing off, on 4 ranks; the dates are SimGrid's to the nanosecond
 * (tests/e2e/polling.rs). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static double t0;
static void at(const char *what) { printf("%-24s %.9f\n", what, MPI_Wtime() - t0); }

int main(int argc, char **argv) {
    int rank, v = 1, w[4] = {0}, n, idx[4], i, k;
    MPI_Request r[4];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            for (i = 0; i < 3; i++)
                MPI_Irecv(&w[i], 1, MPI_INT, i + 1, round, MPI_COMM_WORLD, &r[i]);
            /* Two of the three have arrived at the first call. */
            usleep(700);
            for (k = 0; k < 3;) {
                if (round == 0) {
                    MPI_Waitsome(3, r, &n, idx, MPI_STATUSES_IGNORE);
                    printf("waitsome %d:", n);
                    for (i = 0; i < n; i++)
                        printf(" %d", idx[i]);
                    printf("\n");
                    k += n;
                } else {
                    MPI_Waitany(3, r, &i, MPI_STATUS_IGNORE);
                    printf("waitany %d\n", i);
                    k++;
                }
                at(round == 0 ? "after waitsome" : "after waitany");
            }
        } else {
            usleep(300 * rank);
            MPI_Send(&v, 1, MPI_INT, 0, round, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* A detached send is taken before a complete receive. */
    if (rank == 0) {
        MPI_Irecv(&w[0], 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r[0]);
        usleep(500);
        MPI_Isend(&v, 1, MPI_INT, 2, 6, MPI_COMM_WORLD, &r[1]);
        MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
        printf("waitany %d\n", i);
        MPI_Waitany(2, r, &i, MPI_STATUS_IGNORE);
        printf("waitany %d\n", i);
        at("after both");
    } else if (rank == 1) {
        MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Recv(&w[0], 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* A send-receive to itself: a copy, no message. */
    if (rank == 0) {
        int big[1000], got[1000];
        MPI_Status st;
        for (i = 0; i < 1000; i++)
            big[i] = i;
        MPI_Sendrecv(big, 1000, MPI_INT, 0, 7, got, 1000, MPI_INT, 0, 7, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &n);
        printf("self sendrecv %d ints, last %d\n", n, got[999]);
        MPI_Sendrecv_replace(big, 1000, MPI_INT, 0, 8, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("self sendrecv_replace last %d\n", big[999]);
        at("after self");
    }
    MPI_Finalize();
    return 0;
}
