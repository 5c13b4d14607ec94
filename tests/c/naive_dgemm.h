/* A naive column-major dgemm_ (Fortran interface, no transposes), defined
 * by the test programs that include it: blas_models.c links it into the
 * program, naive_blas.c into a shared library. */
#ifndef NAIVE_DGEMM_H
#define NAIVE_DGEMM_H
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
#endif
