/*
 * jacobi.c - 2-D Jacobi iteration with halo exchange.
 *
 * Shows: a domain decomposition. The N x N interior of the grid is split in
 * blocks of rows, one block per rank. Every iteration each rank exchanges
 * its first and last rows with its neighbours (MPI_Sendrecv, with
 * MPI_PROC_NULL at the top and bottom of the grid), replaces every interior
 * point by the average of its four neighbours, and the global change is
 * computed with MPI_Allreduce to decide when to stop.
 *
 * The problem: Laplace's equation on the unit square with the top edge held
 * at 1 and the other edges at 0. The program checks what it can know
 * without a serial run: every value stays between 0 and 1 (maximum
 * principle), the change must have fallen below the tolerance 1e-4 unless
 * MAXITER was reached first, and the final change is smaller than the first.
 *
 * Build and run:
 *   smpicc -O2 -o jacobi jacobi.c
 *   smpirun -np 4 ./jacobi                (N = 32, at most 5000 iterations)
 *   smpirun -np 4 ./jacobi 256 200        (N = 256, at most 200 iterations)
 *
 * Rank 0 prints the number of iterations, the final change (residual) and
 * the value at the centre of the grid; the results do not depend on the
 * number of ranks.
 *
 * Exit status: 0 when the solution respects the checks, 1 otherwise.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-4

int main(int argc, char **argv)
{
    int rank, size, n = 32, maxiter = 5000;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        maxiter = atoi(argv[2]);
    if (n < size || n < 1) {
        if (rank == 0)
            fprintf(stderr, "jacobi: need N >= number of ranks (N=%d, ranks=%d)\n", n, size);
        MPI_Finalize();
        return 1;
    }

    /* Rows [first, first + rows) of the N interior rows belong to this rank. */
    int rows = n / size + (rank < n % size ? 1 : 0);
    int first = rank * (n / size) + (rank < n % size ? rank : n % size);
    int width = n + 2;                   /* interior plus the two boundary columns */
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    /* Local block with one halo row above and one below: (rows + 2) x width. */
    double *u = calloc((size_t)(rows + 2) * width, sizeof(double));
    double *unew = calloc((size_t)(rows + 2) * width, sizeof(double));
    if (u == NULL || unew == NULL) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#define U(a, i, j) ((a)[(size_t)(i) * width + (j)])

    /* Boundary condition: the global row above the grid (row -1) is 1. */
    if (first == 0)
        for (int j = 0; j < width; j++)
            U(u, 0, j) = U(unew, 0, j) = 1.0;

    int iter = 0;
    double diff = 0.0, first_diff = 0.0;
    do {
        /* Halo exchange: my first row goes up, my last row goes down. */
        MPI_Sendrecv(&U(u, 1, 0), width, MPI_DOUBLE, up, 0,
                     &U(u, rows + 1, 0), width, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&U(u, rows, 0), width, MPI_DOUBLE, down, 1,
                     &U(u, 0, 0), width, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);

        double local = 0.0;
        for (int i = 1; i <= rows; i++)
            for (int j = 1; j <= n; j++) {
                U(unew, i, j) = 0.25 * (U(u, i - 1, j) + U(u, i + 1, j) +
                                        U(u, i, j - 1) + U(u, i, j + 1));
                double d = U(unew, i, j) - U(u, i, j);
                local += d * d;
            }
        MPI_Allreduce(&local, &diff, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        diff = sqrt(diff);
        if (iter == 0)
            first_diff = diff;

        double *tmp = u;
        u = unew;
        unew = tmp;
        iter++;
    } while (diff > TOL && iter < maxiter);

    /* Checks: the maximum principle holds everywhere. */
    int bad = 0, allbad = 0;
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= n; j++)
            if (!(U(u, i, j) >= 0.0 && U(u, i, j) <= 1.0))
                bad++;
    MPI_Reduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

    /* The value at the centre of the grid, sent to rank 0 by its owner. */
    int crow = n / 2;
    double centre = 0.0;
    int owner = (crow >= first && crow < first + rows);
    if (owner && rank != 0)
        MPI_Send(&U(u, crow - first + 1, n / 2 + 1), 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    if (rank == 0) {
        if (owner)
            centre = U(u, crow - first + 1, n / 2 + 1);
        else
            MPI_Recv(&centre, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }

    int ok = 1;
    if (rank == 0) {
        printf("jacobi: N=%d ranks=%d iterations=%d residual=%.6e centre=%.6f\n",
               n, size, iter, diff, centre);
        if (allbad > 0) {
            printf("jacobi: %d values outside [0,1]: WRONG\n", allbad);
            ok = 0;
        }
        if (!(diff <= TOL) && iter < maxiter) {
            printf("jacobi: stopped before converging: WRONG\n");
            ok = 0;
        }
        if (!(centre >= 0.0 && centre <= 1.0)) {
            printf("jacobi: centre value out of range: WRONG\n");
            ok = 0;
        }
        if (iter > 1 && !(diff < first_diff)) {
            printf("jacobi: the change did not decrease: WRONG\n");
            ok = 0;
        }
        if (ok)
            printf("jacobi: %s\n", diff <= TOL ? "converged, OK" : "max iterations reached, OK");
    }

    free(u);
    free(unew);
    MPI_Finalize();
    return ok ? 0 : 1;
}
