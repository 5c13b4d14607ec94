/* A two-kernel BLAS for the calibration test (built with the plain C
 * compiler as a shared library): naive dgemm_ and dscal_. */
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc) {
    (void)ta, (void)tb;
    for (int j = 0; j < *n; j++)
        for (int i = 0; i < *m; i++) {
            double s = 0;
            for (int l = 0; l < *k; l++)
                s += a[i + l * *lda] * b[l + j * *ldb];
            c[i + j * *ldc] = *alpha * s + *beta * c[i + j * *ldc];
        }
}

void dscal_(const int *n, const double *alpha, double *x, const int *incx) {
    for (int i = 0; i < *n; i++)
        x[i * *incx] *= *alpha;
}
