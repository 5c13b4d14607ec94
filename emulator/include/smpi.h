/* smpi.h of the smpi-rs MPI emulator: simulator-specific calls, compatible
 * with SimGrid's smpi.h for the functions it declares. */
#ifndef SMPI_SMPI_H
#define SMPI_SMPI_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Spends `flops` floating-point operations on the calling rank's host. */
void smpi_execute_flops(double flops);
/* Spends `seconds` of this machine's time, scaled to the rank's host speed
 * through smpi/host-speed (as if that much CPU time had been measured). */
void smpi_execute(double seconds);
/* Same as smpi_execute: SimGrid distinguishes whether benchmarking is
 * suspended around the call, and here every smpi_ call suspends it. */
void smpi_execute_benched(double seconds);

/* Memory whose content the simulation may fold (--cfg=smpi/shared-malloc:
 * global maps every allocation onto one small block, local shares the
 * allocations of one call site between ranks, no keeps them private):
 * for large buffers whose values do not steer the program. */
void *smpi_shared_malloc(size_t size, const char *file, int line);
void smpi_shared_free(void *ptr);
#define SMPI_SHARED_MALLOC(size) smpi_shared_malloc((size), __FILE__, __LINE__)
#define SMPI_SHARED_FREE(ptr) smpi_shared_free(ptr)

#ifdef __cplusplus
}
#endif

#endif /* SMPI_SMPI_H */
