/* smpi.h of the smpi-rs MPI emulator: simulator-specific calls, compatible
 * with SimGrid's smpi.h for the functions it declares. */
#ifndef SMPI_SMPI_H
#define SMPI_SMPI_H

#include <mpi.h>

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

#ifdef __cplusplus
}
#endif

#endif /* SMPI_SMPI_H */
