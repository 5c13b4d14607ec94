/* SimGrid's actor interface from a rank (simgrid/actor.h) and the model
 * checker's inactive hooks that SimGrid's mpi.h brings. Prints
 * " No Errors" when every check holds. */
#include "mpi.h"
#include "simgrid/actor.h"
#include <stdio.h>
#include <string.h>

static int errors = 0;
static int rank;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond)) {                                    \
            errors++;                                     \
            printf("rank %d: line %d: ", rank, __LINE__); \
            printf(__VA_ARGS__);                          \
            printf("\n");                                 \
        }                                                 \
    } while (0)

int main(int argc, char **argv) {
    XBT_ATTRIB_UNUSED int unused;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    aid_t pid = sg_actor_self_get_pid();
    CHECK(pid == rank + 1, "pid %ld", pid);
    char expected[16];
    snprintf(expected, sizeof expected, "%d", rank);
    const char *name = sg_actor_self_get_name();
    CHECK(strcmp(name, expected) == 0, "name '%s'", name);
    CHECK(sg_actor_self_get_name() == name, "the name moved");

    double t0 = MPI_Wtime();
    sg_actor_sleep_for(1.5);
    double slept = MPI_Wtime() - t0;
    CHECK(slept > 1.4999 && slept < 1.5001, "sg_actor_sleep_for(1.5) slept %g s", slept);
    sg_actor_sleep_until(10.0 + rank);
    double now = MPI_Wtime();
    CHECK(now > 9.9999 + rank && now < 10.0001 + rank, "sg_actor_sleep_until woke at %g", now);
    sg_actor_sleep_until(1.0);
    CHECK(MPI_Wtime() - now < 1e-3, "sleeping until a past date took time");

    CHECK(!MC_is_active(), "the model checker is active");
    MC_assert(pid > 0);
    MC_ignore(&pid, sizeof pid);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
