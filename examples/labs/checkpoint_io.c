/* Lab: how long does a checkpoint take to write?
 *
 * Every rank holds MIB mebibytes of state and writes it to one shared file
 * with a collective MPI-IO write (MPI_File_write_at_all). Collective I/O
 * goes through aggregators, as ROMIO does: the ranks send their bytes to a
 * few of them (by default one per node), and each aggregator writes one
 * contiguous part of the file on its node's disk. The info hint cb_nodes
 * sets how many aggregators there are; romio_cb_write=disable makes each
 * rank write its own part.
 *
 * Run it on examples/labs/disk_cluster.xml (8 nodes, one disk each) with
 * 32 ranks (4 per node) and compare:
 *   smpirun -np 32 -platform examples/labs/disk_cluster.xml \
 *       --cfg=smpi/simulate-computation:no ./checkpoint_io /tmp/ckpt 1 1
 *   ... 1 2, 1 4, 1 8 (aggregators), and 1 0 independent
 * then double the disks' write_bw in the platform and run again.
 *
 * Usage: checkpoint_io PATH [MIB [AGGREGATORS [independent]]]
 * (AGGREGATORS 0: ROMIO's default). Prints the write time and the
 * bandwidth the program sees; checks what it reads back. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            printf("usage: checkpoint_io PATH [MIB [AGGREGATORS [independent]]]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1];
    double mib = argc > 2 ? atof(argv[2]) : 1.0;
    int aggregators = argc > 3 ? atoi(argv[3]) : 0;
    int independent = argc > 4 && strcmp(argv[4], "independent") == 0;

    long n = (long)(mib * 1024 * 1024 / sizeof(double));
    double *state = malloc(n * sizeof(double));
    for (long i = 0; i < n; i++)
        state[i] = rank + i * 1e-6;

    MPI_Info info;
    MPI_Info_create(&info);
    if (aggregators > 0) {
        char text[16];
        snprintf(text, sizeof text, "%d", aggregators);
        MPI_Info_set(info, "cb_nodes", text);
    }
    if (independent)
        MPI_Info_set(info, "romio_cb_write", "disable");
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Offset offset = (MPI_Offset)rank * n * sizeof(double);
    MPI_File_write_at_all(fh, offset, state, (int)n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    MPI_Info used;
    char value[MPI_MAX_INFO_VAL + 1] = "?";
    int flag;
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&used);

    /* Read back the next rank's part and check a few values. */
    int next = (rank + 1) % size;
    double probe[3];
    long at[3] = {0, n / 2, n - 1};
    int wrong = 0;
    for (int k = 0; k < 3; k++) {
        MPI_Offset o = ((MPI_Offset)next * n + at[k]) * sizeof(double);
        MPI_File_read_at(fh, o, &probe[k], 1, MPI_DOUBLE, MPI_STATUS_IGNORE);
        wrong += probe[k] != next + at[k] * 1e-6;
    }
    int all_wrong;
    MPI_Reduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_File_close(&fh);
    if (rank == 0) {
        double total = (double)size * n * sizeof(double);
        printf("checkpoint %d ranks x %g MiB, %s, aggregators %s\n", size, mib,
               independent ? "independent writes" : "collective buffering", value);
        printf("write_time %.6f s\n", slowest);
        printf("bandwidth %.1f MB/s\n", total / slowest / 1e6);
        if (all_wrong)
            printf("WRONG: %d values read back differ\n", all_wrong);
        MPI_File_delete(path, MPI_INFO_NULL);
    }
    free(state);
    MPI_Finalize();
    return 0;
}
