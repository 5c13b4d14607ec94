/* One-sided timings: fence, lock/unlock with puts and gets of 8 B to
 * 1 MiB, post/start/complete/wait, lock_all with a flush, an accumulate,
 * fetch-and-op, compare-and-swap, get-accumulate, and fences with
 * assertions; each printed as the simulated time since its start (rank 0,
 * and rank 1 for the exposure side). Run on 4 ranks with computation
 * timing off; under smpi/rma-model:simgrid the times are SimGrid 3.32's
 * to the nanosecond (tests/e2e/rma_timing.rs). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int rank, n = 1 << 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *base = calloc(n, 1), *buf = calloc(n, 1);
    MPI_Win win;
    MPI_Win_create(base, n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    double t;
    MPI_Win_fence(0, win);
    t = MPI_Wtime();
    if (rank == 0) MPI_Put(buf, 8, MPI_CHAR, 1, 0, 8, MPI_CHAR, win);
    MPI_Win_fence(0, win);
    if (rank == 0) printf("fence put 8        %.9f\n", MPI_Wtime() - t);
    int sizes[] = {8, 65536, 1 << 20};
    for (int k = 0; k < 3; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            t = MPI_Wtime();
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(buf, sizes[k], MPI_CHAR, 1, 0, sizes[k], MPI_CHAR, win);
            MPI_Win_unlock(1, win);
            printf("lock put %-8d  %.9f\n", sizes[k], MPI_Wtime() - t);
            t = MPI_Wtime();
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Get(buf, sizes[k], MPI_CHAR, 1, 0, sizes[k], MPI_CHAR, win);
            MPI_Win_unlock(1, win);
            printf("lock get %-8d  %.9f\n", sizes[k], MPI_Wtime() - t);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    MPI_Win_fence(0, win);
    if (rank == 0) printf("empty fence        %.9f\n", MPI_Wtime() - t);

    /* post/start/complete/wait: rank 1 exposes to rank 0. */
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peer = rank == 0 ? 1 : 0;
    MPI_Group_incl(world, 1, &peer, &g);
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    if (rank == 1) { MPI_Win_post(g, 0, win); MPI_Win_wait(win); printf("pscw target        %.9f\n", MPI_Wtime() - t); }
    if (rank == 0) { MPI_Win_start(g, 0, win); MPI_Put(buf, 1000, MPI_CHAR, 1, 0, 1000, MPI_CHAR, win); MPI_Win_complete(win); printf("pscw origin        %.9f\n", MPI_Wtime() - t); }
    /* lock_all, put, flush, accumulate, fetch ops. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long one = 1, res, cmp = 0;
        t = MPI_Wtime();
        MPI_Win_lock_all(0, win);
        MPI_Put(buf, 100, MPI_CHAR, 2, 0, 100, MPI_CHAR, win);
        MPI_Win_flush(2, win);
        printf("lockall put flush  %.9f\n", MPI_Wtime() - t);
        MPI_Accumulate(&one, 1, MPI_LONG, 3, 8, 1, MPI_LONG, MPI_SUM, win);
        printf("accumulate         %.9f\n", MPI_Wtime() - t);
        MPI_Fetch_and_op(&one, &res, MPI_LONG, 3, 8, MPI_SUM, win);
        printf("fetch_and_op       %.9f\n", MPI_Wtime() - t);
        MPI_Compare_and_swap(&one, &cmp, &res, MPI_LONG, 3, 16, win);
        printf("compare_and_swap   %.9f\n", MPI_Wtime() - t);
        MPI_Get_accumulate(&one, 1, MPI_LONG, &res, 1, MPI_LONG, 2, 24, 1, MPI_LONG, MPI_SUM, win);
        printf("get_accumulate     %.9f\n", MPI_Wtime() - t);
        MPI_Win_unlock_all(win);
        printf("unlock_all         %.9f\n", MPI_Wtime() - t);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank == 0) printf("fence noprecede    %.9f\n", MPI_Wtime() - t);
    if (rank == 0) MPI_Get(buf, 4096, MPI_CHAR, 3, 0, 4096, MPI_CHAR, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) printf("fence get nosucceed %.9f\n", MPI_Wtime() - t);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
