/* Actors a rank creates (simgrid/actor.h, simgrid/host.h and
 * SMPI_thread_create): each is an extra coroutine of its rank, with the
 * rank's MPI identity and globals, on the rank's host; it may wait on the
 * rank's requests, send, sleep and log, and the run waits for it.
 *
 * Two ranks. Rank 0 sends 42 to rank 1 (MPI_Isend) and starts "helper-0",
 * which waits for that send and sleeps 3 s; rank 0 itself receives the
 * reply of rank 1's helper. Rank 1 posts the receive (MPI_Irecv), starts
 * "helper-1", which waits for it, replies 43 to rank 0 as rank 1 and
 * sleeps 1 s, while rank 1 itself sleeps 5 s. Log lines (stderr) carry
 * each actor's name and pid; tests/e2e/simgrid.rs checks their dates.
 * Prints " No Errors" when every check holds.
 *
 * `simgrid_actors deadlock`: rank 0's actor "listener" waits for a
 * message nobody sends, while both ranks end. `simgrid_actors badhandle`:
 * rank 1 names an actor that does not exist. */
#include <mpi.h>
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xbt/log.h>
#include <xbt/sysdep.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(actors_test, "Messages of this test");

/* Globals: each rank has its own copy, which its actors share. */
static int rank;
static int errors;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            errors++;                                                        \
            printf("rank %d (%s): line %d: ", rank, sg_actor_self_get_name(), \
                   __LINE__);                                                \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
        }                                                                    \
    } while (0)

struct job {
    MPI_Request *req;
    int *value;
    double nap;
};

static void helper(int argc, char *argv[]) {
    struct job *job = sg_actor_self_get_data();
    int flag = 1;
    MPI_Initialized(&flag);
    CHECK(!flag, "MPI_Initialized before SMPI_thread_create");
    SMPI_thread_create();
    MPI_Initialized(&flag);
    CHECK(flag, "not MPI_Initialized after SMPI_thread_create");

    CHECK(argc == 2 && strcmp(argv[1], "copied") == 0 && argv[2] == NULL,
          "arguments %d '%s'", argc, argc > 1 ? argv[1] : "");
    CHECK(strcmp(sg_actor_self_get_name(), argv[0]) == 0, "name '%s'",
          sg_actor_self_get_name());
    CHECK(sg_actor_get_pid(sg_actor_self()) == sg_actor_self_get_pid(), "pid");
    CHECK(sg_actor_self_get_pid() == 3 + rank, "pid %ld", sg_actor_self_get_pid());
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    CHECK(me == rank, "MPI rank %d, global %d", me, rank);
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    CHECK(strcmp(sg_host_get_name(sg_host_self()), host) == 0, "host '%s' '%s'",
          sg_host_get_name(sg_host_self()), host);

    XBT_INFO("waiting for my rank's request");
    MPI_Status status;
    int ret = MPI_Wait(job->req, &status);
    CHECK(ret == MPI_SUCCESS && *job->req == MPI_REQUEST_NULL, "MPI_Wait %d", ret);
    XBT_INFO("request done: value %d", *job->value);
    if (rank == 1) {
        CHECK(status.MPI_SOURCE == 0 && status.MPI_TAG == 1, "status %d %d",
              status.MPI_SOURCE, status.MPI_TAG);
        int reply = *job->value + 1;
        MPI_Send(&reply, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        XBT_INFO("replied %d", reply);
    }
    sg_actor_sleep_for(job->nap);
    XBT_INFO("done after %g s", job->nap);
    xbt_free(job);
}

static void listener(XBT_ATTRIB_UNUSED int argc, XBT_ATTRIB_UNUSED char *argv[]) {
    SMPI_thread_create();
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
        if (rank == 0)
            sg_actor_start(sg_actor_init("listener", sg_host_self()), listener, 0, NULL);
        MPI_Finalize();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "badhandle") == 0) {
        if (rank == 1)
            printf("%s\n", sg_actor_get_name((sg_actor_t)(uintptr_t)77));
        MPI_Finalize();
        return 0;
    }

    CHECK(sg_actor_get_pid(sg_actor_self()) == rank + 1, "pid");
    char expected[16];
    snprintf(expected, sizeof expected, "%d", rank);
    CHECK(strcmp(sg_actor_get_name(sg_actor_self()), expected) == 0, "name");
    CHECK(sg_actor_self_get_data() == NULL, "data of a rank");

    int value = rank == 0 ? 42 : 0;
    MPI_Request req;
    if (rank == 0)
        MPI_Isend(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
    else
        MPI_Irecv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &req);

    char name[16];
    snprintf(name, sizeof name, "helper-%d", rank);
    struct job *job = xbt_new0(struct job, 1);
    job->req = &req;
    job->value = &value;
    job->nap = rank == 0 ? 3.0 : 1.0;
    sg_actor_t actor = sg_actor_init(name, sg_host_self());
    sg_actor_set_data(actor, job);
    CHECK(sg_actor_get_data(actor) == job, "data");
    CHECK(strcmp(sg_actor_get_name(actor), name) == 0, "name of the new actor");
    char arg[16] = "copied";
    char *args[] = {name, arg, NULL};
    sg_actor_start(actor, helper, 2, args);
    strcpy(arg, "changed");
    strcpy(name, "renamed");
    XBT_INFO("started %s", sg_actor_get_name(actor));

    if (rank == 0) {
        int back = 0;
        MPI_Recv(&back, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(back == 43, "reply %d", back);
        XBT_INFO("reply %d", back);
    } else {
        sg_actor_sleep_for(5.0);
        CHECK(value == 42, "value %d", value);
        XBT_INFO("slept, value %d", value);
    }

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
