/* <simgrid/modelchecker.h> of the smpi-rs MPI emulator: SimGrid's
 * model-checking hooks as SimGrid defines them when built without its
 * model checker (as Debian's is): nothing is checked, MC_assert is
 * xbt_assert. (MC_random, which draws from SimGrid's generator, is not
 * provided.) SimGrid's mpi.h brings this header; so does ours. */
#ifndef SMPI_SIMGRID_MODELCHECKER_H
#define SMPI_SIMGRID_MODELCHECKER_H

#include <xbt/asserts.h>

#define MC_is_active() 0
#define MC_visited_reduction() 0
#define MC_assert(condition) xbt_assert(condition)
#define MC_automaton_new_propositional_symbol(id, function) ((void)0)
#define MC_automaton_new_propositional_symbol_pointer(id, pointer) ((void)0)
#define MC_ignore(address, size) ((void)0)
#define MC_ignore_heap(address, size) ((void)0)
#define MC_unignore_heap(address, size) ((void)0)

#endif /* SMPI_SIMGRID_MODELCHECKER_H */
