/* <simgrid/host.h> of the smpi-rs MPI emulator: the part of SimGrid's C
 * host interface that an MPI program uses, written to SimGrid 3.32's
 * documented interface. A host handle (sg_host_t) names a host of the
 * platform; a program only passes it back. Power states (pstates) are the
 * speeds a host's `speed` attribute lists in the platform file
 * (speed="100Mf,50Mf,20Mf"), numbered from 0. The rest of SimGrid's host
 * interface (properties, routes, turning hosts on and off, extensions,
 * virtual machines) is not provided. */
#ifndef SMPI_SIMGRID_HOST_H
#define SMPI_SIMGRID_HOST_H

#include <stddef.h>
#include <simgrid/forward.h>
#include <xbt/base.h>

SG_BEGIN_DECL

/* The number of hosts of the platform. */
size_t sg_host_count(void);
/* The host named `name`, or NULL if the platform has none. */
sg_host_t sg_host_by_name(const char *name);
/* The host of the calling actor (a rank's, or one a rank created). */
sg_host_t sg_host_self(void);
/* Its name (a string that lives as long as the simulation). */
const char *sg_host_get_name(const_sg_host_t host);
const char *sg_host_self_get_name(void);
/* The speed of one core at the host's current pstate, in flop/s. */
double sg_host_get_speed(const_sg_host_t host);
/* The speed of one core at pstate `pstate_index`, in flop/s. */
double sg_host_get_pstate_speed(const_sg_host_t host, unsigned long pstate_index);
/* The number of cores. */
int sg_host_core_count(const_sg_host_t host);
/* The number of pstates, the current one, and changing it: the
 * computations running on the host go on at the new speed. */
unsigned long sg_host_get_nb_pstates(const_sg_host_t host);
unsigned long sg_host_get_pstate(const_sg_host_t host);
void sg_host_set_pstate(sg_host_t host, unsigned long pstate);

SG_END_DECL

#endif /* SMPI_SIMGRID_HOST_H */
