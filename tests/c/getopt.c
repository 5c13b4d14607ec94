/* getopt, getopt_long and getopt_long_only in every rank: each rank
 * parses its own arguments from the start (glibc keeps one position for
 * the process; smpicc's header gives each rank its own), and a program
 * that sets optind = 0 parses again. Built once as is and once with
 * -DSTRICT_POSIX (strict POSIX before any header: <unistd.h> then names
 * getopt __posix_getopt). Run with: -v -n 3 --name=x --flag rest
 * Prints " No Errors" when every check holds. */
#ifdef STRICT_POSIX
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>
#endif
#include <mpi.h>
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

static const struct option long_options[] = {
    {"name", required_argument, 0, 'N'},
    {"flag", no_argument, 0, 'f'},
    {0, 0, 0, 0},
};

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* Short options only, in the first three arguments: -v -n 3. */
    int v = 0, n = 0, c;
    while ((c = getopt(argc < 4 ? argc : 4, argv, "vn:")) != -1) {
        if (c == 'v')
            v++;
        else if (c == 'n')
            n = (int)strtol(optarg, NULL, 10);
    }
    CHECK(v == 1 && n == 3, "getopt found v=%d n=%d", v, n);
    /* The other ranks run between this rank's parses. */
    MPI_Barrier(MPI_COMM_WORLD);

    /* optind = 0: parse again from the start (GNU's full restart). */
    optind = 0;
    int named = 0, flag = 0, index = 0;
    v = 0;
    while ((c = getopt_long(argc, argv, "vn:", long_options, &index)) != -1) {
        if (c == 'N')
            named = strcmp(optarg, "x") == 0;
        else if (c == 'f')
            flag++;
        else if (c == 'v')
            v++;
    }
    CHECK(named && flag == 1 && v == 1, "getopt_long found name %d flag %d v %d", named, flag, v);
    CHECK(optind < argc && strcmp(argv[optind], "rest") == 0, "optind %d does not point to rest",
          optind);
    MPI_Barrier(MPI_COMM_WORLD);

    optind = 0;
    flag = 0;
    while ((c = getopt_long_only(argc, argv, "vn:", long_options, &index)) != -1)
        if (c == 'f')
            flag++;
    CHECK(flag == 1, "getopt_long_only found flag %d", flag);

    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
