/* A two-kernel BLAS for the calibration test (built with the plain C
 * compiler as a shared library): naive dgemm_ and dscal_. */
#include "naive_dgemm.h"

void dscal_(const int *n, const double *alpha, double *x, const int *incx) {
    for (int i = 0; i < *n; i++)
        x[i * *incx] *= *alpha;
}
