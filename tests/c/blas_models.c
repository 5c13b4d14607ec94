/* Kernel and function models: the program carries its own small BLAS
 * (dgemm_, idamax_ and cblas_dscal, naive loops) and a slow set-up
 * function, and prints what they computed and how long they took in
 * simulated time. Under --cfg=smpi/blas:model the BLAS calls compute
 * nothing and cost their modelled time; with --cfg=smpi/function-models
 * pointing at function_models.so, slow_setup is replaced by its model.
 *
 * Prints, on rank 0:  C00 <value>  idamax <index>  dscal <x[0]>
 *                     dgemm <seconds>  dscal-time <seconds>
 *                     setup <value> <seconds>                    */
#include <mpi.h>
#include <stdio.h>

#include "naive_dgemm.h"

int idamax_(const int *n, const double *x, const int *incx) {
    int best = 0;
    for (int i = 1; i < *n; i++)
        if (x[i * *incx] * x[i * *incx] > x[best * *incx] * x[best * *incx])
            best = i;
    return *n > 0 ? best + 1 : 0;
}

void cblas_dscal(int n, double alpha, double *x, int incx) {
    for (int i = 0; i < n; i++)
        x[i * incx] *= alpha;
}

/* Stands for an expensive part of a program (HPL's matrix generation). */
int slow_setup(int n) {
    volatile double s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    return s > 0 ? 7 : 0;
}

enum { N = 64, X = 1000 };
static double a[N * N], b[N * N], c[N * N], x[X];

int main(int argc, char **argv) {
    int rank, n = N;
    double one = 1, zero = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N * N; i++)
        a[i] = 1, b[i] = 2;
    for (int i = 0; i < X; i++)
        x[i] = i == 500 ? 9 : 1;
    double t0 = MPI_Wtime();
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n);
    double t1 = MPI_Wtime();
    int len = X, inc = 1, at = idamax_(&len, x, &inc);
    double t2 = MPI_Wtime();
    cblas_dscal(X, 3.0, x, 1);
    double t3 = MPI_Wtime();
    int v = slow_setup(1000000);
    double t4 = MPI_Wtime();
    if (rank == 0)
        printf("C00 %g\nidamax %d\ndscal %g\ndgemm %.9f\ndscal-time %.9f\nsetup %d %.9f\n", c[0],
               at, x[0], t1 - t0, t3 - t2, v, t4 - t3);
    MPI_Finalize();
    return 0;
}
