/* smpi.h of the smpi-rs MPI emulator: the simulator-specific calls, which
 * live in <smpi/smpi.h> (SimGrid's path; <mpi.h> brings them too). */
#include <smpi/smpi.h>
