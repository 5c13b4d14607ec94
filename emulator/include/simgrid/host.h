/* <simgrid/host.h> of the smpi-rs MPI emulator: the part of SimGrid's C
 * host interface that smpi-rs provides. Functions not declared here are
 * not provided: using one fails to build. */
#ifndef SMPI_SIMGRID_HOST_H
#define SMPI_SIMGRID_HOST_H

#include <simgrid/forward.h>
#include <xbt/base.h>

SG_BEGIN_DECL

/* The host of the calling actor (a rank's, or one a rank created). */
sg_host_t sg_host_self(void);
/* The host's name in the platform. */
const char *sg_host_get_name(const_sg_host_t host);

SG_END_DECL

#endif /* SMPI_SIMGRID_HOST_H */
