/* <simgrid/actor.h> of the smpi-rs MPI emulator: the part of SimGrid's C
 * actor interface that applies to an MPI rank, which SimGrid runs as an
 * actor named after the rank and numbered rank + 1 (0 is the maestro).
 * The rest of SimGrid's interface (creating, killing or migrating actors,
 * sg_actor_t handles) is not provided. */
#ifndef SMPI_SIMGRID_ACTOR_H
#define SMPI_SIMGRID_ACTOR_H

#include <xbt/base.h>

SG_BEGIN_DECL

/* An actor's number. */
typedef long aid_t;

/* The calling rank's actor number: its rank in MPI_COMM_WORLD + 1. */
aid_t sg_actor_self_get_pid(void);
/* The calling rank's actor name: its rank, in decimal. */
const char *sg_actor_self_get_name(void);
/* Waits `duration` simulated seconds. */
void sg_actor_sleep_for(double duration);
/* Waits until the simulated date `wakeup_time` (returns at once if it is
 * past). */
void sg_actor_sleep_until(double wakeup_time);

SG_END_DECL

#endif /* SMPI_SIMGRID_ACTOR_H */
