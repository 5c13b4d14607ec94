/* <xbt/function_types.h> of the smpi-rs MPI emulator: SimGrid's names for
 * pointers to functions. */
#ifndef SMPI_XBT_FUNCTION_TYPES_H
#define SMPI_XBT_FUNCTION_TYPES_H

#include <xbt/base.h>

SG_BEGIN_DECL

typedef void (*void_f_pvoid_t)(void *);
typedef void *(*pvoid_f_void_t)(void);
typedef void *(*pvoid_f_pvoid_t)(void *);
typedef void (*void_f_void_t)(void);

typedef void (*void_f_int_pvoid_t)(int, void *);
typedef int (*int_f_int_pvoid_t)(int, void *);
typedef int (*int_f_pvoid_pvoid_t)(void *, void *);
typedef int (*int_f_cpvoid_cpvoid_t)(const void *, const void *);

/* The code of an actor (sg_actor_start). */
typedef void (*xbt_main_func_t)(int argc, char *argv[]);

SG_END_DECL

#endif /* SMPI_XBT_FUNCTION_TYPES_H */
