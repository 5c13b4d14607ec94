/* <smpi/mpi.h>, the path SimGrid's examples include: the same as <mpi.h>. */
#include <mpi.h>
