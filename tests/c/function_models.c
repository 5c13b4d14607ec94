/* Function models for blas_models.c (built with smpicc -shared): its
 * slow_setup does no work and costs 1e6 flops per 1000 iterations asked. */
#include <smpi.h>

int slow_setup(int n) {
    smpi_execute_flops(1e3 * n);
    return 42;
}
