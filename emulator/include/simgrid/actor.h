/* <simgrid/actor.h> of the smpi-rs MPI emulator: the part of SimGrid's C
 * actor interface that applies to MPI ranks. SimGrid runs each rank as an
 * actor named after the rank and numbered rank + 1 (0 is the maestro). A
 * rank may create more actors on its own host: each is an extra coroutine
 * of the rank (the same MPI rank, the same copy of the program's globals),
 * numbered after the ranks in creation order; after SMPI_thread_create
 * (<smpi/smpi.h>) it is an MPI process of its creator's rank, as in
 * SimGrid, and it may call MPI, block, sleep and log. The simulation ends
 * when every rank and every started actor is done.
 * The rest of SimGrid's interface (killing, suspending, joining or
 * migrating actors, actors on other hosts, properties, executions) is not
 * provided: using it fails to build. */
#ifndef SMPI_SIMGRID_ACTOR_H
#define SMPI_SIMGRID_ACTOR_H

#include <simgrid/forward.h>
#include <xbt/base.h>
#include <xbt/function_types.h>

SG_BEGIN_DECL

/* Creates an actor of the calling rank named `name` on `host`, which must
 * be the rank's (sg_host_self()); it starts with sg_actor_start. */
sg_actor_t sg_actor_init(const char *name, sg_host_t host);
/* Starts `actor`: it runs code(argc, argv) once the actors ready before it
 * have run; argv is copied. */
void sg_actor_start_(sg_actor_t actor, xbt_main_func_t code, int argc, const char *const *argv);
static inline void sg_actor_start(sg_actor_t actor, xbt_main_func_t code, int argc, char *const *argv)
{
    sg_actor_start_(actor, code, argc, (const char *const *)argv);
}
/* sg_actor_init, then sg_actor_start. */
sg_actor_t sg_actor_create_(const char *name, sg_host_t host, xbt_main_func_t code, int argc,
                            const char *const *argv);
static inline sg_actor_t sg_actor_create(const char *name, sg_host_t host, xbt_main_func_t code,
                                         int argc, char *const *argv)
{
    return sg_actor_create_(name, host, code, argc, (const char *const *)argv);
}

/* The calling actor. */
sg_actor_t sg_actor_self(void);
aid_t sg_actor_get_pid(const_sg_actor_t actor);
/* The actor's name (a rank's: its rank, in decimal). */
const char *sg_actor_get_name(const_sg_actor_t actor);
/* The program's data of an actor (NULL until set). */
void *sg_actor_get_data(const_sg_actor_t actor);
void sg_actor_set_data(sg_actor_t actor, void *userdata);

/* The same, for the calling actor. */
aid_t sg_actor_self_get_pid(void);
const char *sg_actor_self_get_name(void);
void *sg_actor_self_get_data(void);
void sg_actor_self_set_data(void *data);

/* Waits `duration` simulated seconds. */
void sg_actor_sleep_for(double duration);
/* Waits until the simulated date `wakeup_time` (returns at once if it is
 * past). */
void sg_actor_sleep_until(double wakeup_time);

SG_END_DECL

#endif /* SMPI_SIMGRID_ACTOR_H */
