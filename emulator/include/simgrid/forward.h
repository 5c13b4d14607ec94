/* <simgrid/forward.h> of the smpi-rs MPI emulator: the types of SimGrid's
 * C interface that the parts smpicc provides use (simgrid/actor.h,
 * simgrid/host.h). As in SimGrid's, an actor and a host are opaque
 * pointers, which only SimGrid's functions look into; the types of the
 * interfaces not provided (mailboxes, activities, zones...) are absent. */
#ifndef SMPI_SIMGRID_FORWARD_H
#define SMPI_SIMGRID_FORWARD_H

#include <xbt/base.h>

typedef struct s4u_Actor s4u_Actor;
typedef struct s4u_Host s4u_Host;

/* An actor (an MPI rank is one). */
typedef s4u_Actor *sg_actor_t;
typedef const s4u_Actor *const_sg_actor_t;
/* A host of the platform. */
typedef s4u_Host *sg_host_t;
typedef const s4u_Host *const_sg_host_t;

/* An actor's number: a rank's is its rank in MPI_COMM_WORLD + 1, then the
 * actors ranks create, in creation order (0 is the maestro). */
typedef long aid_t;

#endif /* SMPI_SIMGRID_FORWARD_H */
