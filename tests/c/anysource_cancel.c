/* HPCC MPIRandomAccess's receive loop, reduced (scripts/real-programs.sh
 * runs the real one). Every rank keeps SLOTS receives from MPI_ANY_SOURCE
 * posted, sends UPDATES small messages (tag UPDATE, 1 to 4 elements) to
 * pseudo-random ranks with one MPI_Isend in flight at a time (MPI_Test on
 * the request, MPI_REQUEST_NULL at first, with MPI_STATUS_IGNORE, as HPCC
 * does), handling what arrives with MPI_Testany in between; then a 0-byte
 * FINISHED message to every other rank, and MPI_Waitany until it has seen
 * every FINISHED. Then it cancels its receives, as HPCC does: an update
 * that one of them had matched is lost to the program, either complete in a
 * higher slot than the last FINISHED that MPI_Waitany returned, or still
 * arriving (a 0-byte message sent after it overtakes it in the network
 * model), and then the cancel must fail. MPI itself loses nothing:
 * sent = handled + dropped. Prints the totals and " No Errors" at rank 0;
 * exits 1 on a failed check. Argument: UPDATES (default 200). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define SLOTS 4
#define UPDATE 2
#define FINISHED 1

static long long rbuf[SLOTS][8], sbuf[8];
static MPI_Request in[SLOTS];
static long long handled;
static int receiving;

/* Takes what slot `index` received, then posts it again. */
static void handle(int index, MPI_Status *st) {
    if (st->MPI_TAG == UPDATE) {
        int n;
        MPI_Get_count(st, MPI_LONG_LONG, &n);
        handled += n;
    } else {
        CHECK(st->MPI_TAG == FINISHED, "unexpected tag");
        receiving--;
    }
    MPI_Irecv(rbuf[index], 8, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &in[index]);
}

int main(int argc, char **argv) {
    int index, flag, updates = argc > 1 ? atoi(argv[1]) : 200;
    long long sent = 0, complete_dropped = 0, arriving_dropped = 0;
    MPI_Request out = MPI_REQUEST_NULL, *fin;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size > 1, "needs 2 ranks or more");
    fin = malloc(sizeof *fin * (size_t)size);
    receiving = size - 1;
    unsigned long long ran = 0x9e3779b97f4a7c15ULL * (unsigned long long)(rank + 1);
    for (int j = 0; j < SLOTS; j++)
        MPI_Irecv(rbuf[j], 8, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &in[j]);
    for (int i = 0; i < updates;) {
        do {
            MPI_Testany(SLOTS, in, &index, &flag, &st);
            if (flag) handle(index, &st);
        } while (flag && receiving > 0);
        /* flag is 0 here: MPI_Test must set it, MPI_REQUEST_NULL included
         * (SimGrid 3.32 leaves it alone under MPI_STATUS_IGNORE, and HPCC
         * then never sends). */
        MPI_Test(&out, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            CHECK(out == MPI_REQUEST_NULL, "completed request not nulled");
            ran = ran * 6364136223846793005ULL + 1442695040888963407ULL;
            int dest = (int)((ran >> 33) % (unsigned)(size - 1));
            if (dest >= rank) dest++;
            int n = 1 + (int)((ran >> 20) % 4);
            MPI_Isend(sbuf, n, MPI_LONG_LONG, dest, UPDATE, MPI_COMM_WORLD, &out);
            sent += n;
            i++;
        }
    }
    for (int p = 0; p < size; p++) {
        fin[p] = MPI_REQUEST_NULL;
        if (p != rank) MPI_Isend(sbuf, 0, MPI_LONG_LONG, p, FINISHED, MPI_COMM_WORLD, &fin[p]);
    }
    while (receiving > 0) {
        MPI_Waitany(SLOTS, in, &index, &st);
        handle(index, &st);
    }
    MPI_Waitall(size, fin, MPI_STATUSES_IGNORE);
    for (int j = 0; j < SLOTS; j++) {
        int n, cancelled;
        MPI_Test(&in[j], &flag, &st);
        if (flag) { /* complete before the loop ended */
            CHECK(st.MPI_TAG == UPDATE, "a FINISHED message left over");
            MPI_Get_count(&st, MPI_LONG_LONG, &n);
            complete_dropped += n;
            continue;
        }
        MPI_Cancel(&in[j]);
        MPI_Wait(&in[j], &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled) { /* matched, still arriving: the cancel failed */
            CHECK(st.MPI_TAG == UPDATE, "a FINISHED message left over");
            MPI_Get_count(&st, MPI_LONG_LONG, &n);
            arriving_dropped += n;
        }
    }
    MPI_Wait(&out, MPI_STATUS_IGNORE);
    long long mine[4] = {sent, handled, complete_dropped, arriving_dropped}, all[4];
    MPI_Reduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks: %lld updates sent, %lld handled, %lld dropped (%lld complete in a higher "
               "slot, %lld still arriving)\n",
               size, all[0], all[1], all[2] + all[3], all[2], all[3]);
        CHECK(all[0] == all[1] + all[2] + all[3], "MPI lost or duplicated messages");
    }
    free(fin);
    report_errors();
    MPI_Finalize();
    return errors != 0;
}
