/* dcopy under --cfg=smpi/blas:model: the program carries its own naive
 * cblas_dcopy (replaced by the model when it is loaded). The model moves
 * data as BLAS does, whatever the memory: from private or folded
 * (SMPI_SHARED_MALLOC) memory, and into a buffer partly folded (whose
 * private pages are read back here; folded content means nothing).
 *
 * Prints: private <y[0..4]>
 *         from-folded <y[0..4]>
 *         mixed <the elements that landed in the private pages>    */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

void cblas_dcopy(int n, const double *x, int incx, double *y, int incy) {
    for (int i = 0; i < n; i++)
        y[i * incy] = x[i * incx];
}

enum { PAGE_DOUBLES = 512, PAGES = 4 };

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    double x[4] = {1, 2, 3, 4}, y[4] = {0};
    cblas_dcopy(4, x, 1, y, 1);
    printf("private %g %g %g %g\n", y[0], y[1], y[2], y[3]);

    double *folded = SMPI_SHARED_MALLOC(PAGES * PAGE_DOUBLES * sizeof(double));
    for (int i = 0; i < 4; i++)
        folded[i] = 10 + i;
    memset(y, 0, sizeof y);
    cblas_dcopy(4, folded, 1, y, 1);
    printf("from-folded %g %g %g %g\n", y[0], y[1], y[2], y[3]);

    /* The first page folded, the three others private: one element per
     * page, a page apart. */
    size_t shared[2] = {0, PAGE_DOUBLES * sizeof(double)};
    double *mixed = SMPI_PARTIAL_SHARED_MALLOC(PAGES * PAGE_DOUBLES * sizeof(double), shared, 1);
    for (int p = 1; p < PAGES; p++)
        mixed[p * PAGE_DOUBLES] = 0;
    double w[PAGES] = {5, 6, 7, 8};
    cblas_dcopy(PAGES, w, 1, mixed, PAGE_DOUBLES);
    printf("mixed %g %g %g\n", mixed[PAGE_DOUBLES], mixed[2 * PAGE_DOUBLES], mixed[3 * PAGE_DOUBLES]);

    SMPI_SHARED_FREE(mixed);
    SMPI_SHARED_FREE(folded);
    MPI_Finalize();
    return 0;
}
