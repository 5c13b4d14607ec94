/*
 * pingpong.c - latency and bandwidth between two ranks.
 *
 * Shows: how point-to-point cost grows with message size. Ranks 0 and 1
 * exchange messages of 1 byte, then 2, 4, 8, ... bytes up to MAX bytes
 * (default 16 MiB). For every size they do ITERS round trips (default 10)
 * after an MPI_Barrier; rank 0 prints the one-way time (half a round trip,
 * averaged) and the resulting bandwidth. All other ranks just wait.
 * The received data are checked.
 *
 * Build and run:
 *   smpicc -O2 -o pingpong pingpong.c
 *   smpirun -np 2 ./pingpong                 (1 B .. 16 MiB, 10 round trips)
 *   smpirun -np 2 ./pingpong 1048576 5       (1 B .. 1 MiB, 5 round trips)
 *
 * Output (rank 0), one line per size:
 *   size_bytes  one_way_seconds  bandwidth_MB/s
 *
 * Exit status: 0 when every message arrived intact, 1 otherwise.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, iters = 10, errors = 0;
    long max_size = 16L * 1024 * 1024;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        max_size = atol(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);
    if (max_size < 1)
        max_size = 1;
    if (iters < 1)
        iters = 1;
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    unsigned char *buf = malloc((size_t)max_size);
    if (buf == NULL) {
        fprintf(stderr, "rank %d: cannot allocate %ld bytes\n", rank, max_size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 0)
        printf("# size_bytes one_way_seconds bandwidth_MB/s\n");

    for (long n = 1; n <= max_size; n *= 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = MPI_Wtime();
            for (int it = 0; it < iters; it++) {
                buf[0] = (unsigned char)it;
                buf[n - 1] = (unsigned char)(it + 1);
                MPI_Send(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                /* Rank 1 adds 1 to the first and last bytes. */
                if (buf[0] != (unsigned char)(it + 1) && n > 1)
                    errors++;
                if (buf[n - 1] != (unsigned char)(it + 2))
                    errors++;
            }
            double one_way = (MPI_Wtime() - t0) / (2.0 * iters);
            printf("%ld %.9e %.3f\n", n, one_way, n / one_way / 1e6);
        } else if (rank == 1) {
            for (int it = 0; it < iters; it++) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (n > 1)
                    buf[0]++;
                buf[n - 1]++;
                MPI_Send(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD);
            }
        }
    }

    free(buf);
    if (rank == 0 && errors > 0)
        printf("pingpong: %d corrupted messages\n", errors);
    MPI_Finalize();
    return errors == 0 ? 0 : 1;
}
