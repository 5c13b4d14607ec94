/* One MPI_Alltoall of BYTES-byte blocks (default 65536) over MPI_COMM_WORLD;
 * every rank checks what it received, rank 0 prints the simulated time.
 *
 *   alltoall [BYTES [shared]]
 *
 * With "shared", the buffers come from SMPI_SHARED_MALLOC (folded: their
 * content is meaningless, so nothing is checked), so that thousands of
 * ranks fit in memory. */
#include <mpi.h>
#include <smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int block = (argc > 1 ? atoi(argv[1]) : 65536) / (int)sizeof(int);
    int shared = argc > 2 && strcmp(argv[2], "shared") == 0;
    size_t bytes = sizeof(int) * (size_t)block * (size_t)size;
    int *out = shared ? SMPI_SHARED_MALLOC(bytes) : malloc(bytes);
    int *in = shared ? SMPI_SHARED_MALLOC(bytes) : malloc(bytes);
    if (!shared)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < block; i++)
                out[(size_t)r * block + i] = rank * 1000003 + r + i;
    MPI_Alltoall(out, block, MPI_INT, in, block, MPI_INT, MPI_COMM_WORLD);
    int bad = 0;
    if (!shared)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < block; i++)
                bad |= in[(size_t)r * block + i] != r * 1000003 + rank + i;
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("alltoall of %zu-byte blocks on %d ranks: %.9f s simulated, data %s\n",
               sizeof(int) * (size_t)block, size, MPI_Wtime(),
               shared ? "not checked (shared buffers)" : anybad ? "WRONG" : "right");
    if (shared) {
        SMPI_SHARED_FREE(out);
        SMPI_SHARED_FREE(in);
    } else {
        free(out);
        free(in);
    }
    MPI_Finalize();
    return anybad;
}
