/* libc's hidden state is each rank's own: getopt's position (inside a
 * group of short options too, with GNU's reordering), rand's and
 * drand48's generators (seed48, lcong48 and the erand48 forms too),
 * strtok's position, the result buffers of gmtime and asctime, errno.
 * Every rank parses its own options, draws from its generators and
 * tokenizes a string, with MPI
 * calls between every step (so that the other ranks run in between),
 * and prints what it got. Built with -DNATIVE by the plain compiler, the
 * same steps run as one process per rank (rank from the RANK environment
 * variable): each rank's lines must be the same.
 * Run with: -n 7 --name=x -v rest */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef NATIVE
static int step(void) { return 0; }
static int my_rank(void) { return atoi(getenv("RANK")); }
#define START(argc, argv)
#define END()
#else
#include <mpi.h>
static int step(void) { return MPI_Barrier(MPI_COMM_WORLD); }
static int my_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}
#define START(argc, argv) MPI_Init(&argc, &argv)
#define END() MPI_Finalize()
#endif

int main(int argc, char **argv)
{
    START(argc, argv);
    int rank = my_rank();
    static const struct option longs[] = {{"name", required_argument, 0, 'N'}, {0, 0, 0, 0}};
    int c, n = 0, verbose = 0;
    const char *name = "";
    step();
    while ((c = getopt_long(argc, argv, "n:v", longs, NULL)) != -1) {
        step();
        if (c == 'n')
            n = atoi(optarg);
        else if (c == 'v')
            verbose = 1;
        else if (c == 'N')
            name = optarg;
    }
    printf("rank %d: options n=%d name=%s v=%d, first operand %s\n", rank, n, name, verbose,
           optind < argc ? argv[optind] : "(none)");
    step();
    /* Parsed again from the start, with getopt: a group of short options
     * (-vn, its argument next) and an operand among the options. */
    char value[16];
    snprintf(value, sizeof value, "%d", rank + 3);
    char *again[] = {argv[0], "-vn", value, "mid", "-n5", "-v", "tail", NULL};
    optind = 1;
    n = 0;
    verbose = 0;
    step();
    while ((c = getopt(7, again, "n:v")) != -1) {
        step();
        if (c == 'n')
            n += atoi(optarg);
        else if (c == 'v')
            verbose++;
    }
    printf("rank %d: again n=%d v=%d, operands %s %s\n", rank, n, verbose, again[optind],
           again[optind + 1]);
    step();
    /* A fresh process's rand, then one seeded per rank. */
    int first = rand();
    step();
    srand(rank + 1);
    step();
    int a = rand();
    step();
    long b = random();
    step();
    printf("rank %d: rand unseeded %d, seeded %d %ld\n", rank, first, a, b);
    double d0 = drand48();
    step();
    srand48(rank + 10);
    step();
    double d = drand48();
    step();
    long l = lrand48();
    step();
    long m = mrand48();
    printf("rank %d: drand48 unseeded %.17g, seeded %.17g %ld %ld\n", rank, d0, d, l, m);
    step();
    unsigned short words[3] = {0x1234, (unsigned short)rank, 7};
    unsigned short *old = seed48(words);
    unsigned short before[3] = {old[0], old[1], old[2]};
    step();
    long s1 = lrand48();
    step();
    unsigned short param[7] = {1, 2, 3, 0xE66D, 0xDEEC, (unsigned short)(5 + rank), 11};
    lcong48(param);
    step();
    long s2 = mrand48();
    step();
    unsigned short mine[3] = {9, 8, (unsigned short)rank};
    long s3 = nrand48(mine);
    step();
    double s4 = erand48(mine);
    printf("rank %d: seed48 replaced %u %u %u, then %ld; lcong48 %ld %ld %.17g\n", rank,
           before[0], before[1], before[2], s1, s2, s3, s4);
    step();
    char text[64];
    snprintf(text, sizeof text, "alpha,beta;rank%d,,gamma", rank);
    char *tok = strtok(text, ",;");
    while (tok) {
        step();
        printf("rank %d: token %s\n", rank, tok);
        tok = strtok(NULL, ",;");
    }
    time_t date = 86400 * 40 * (time_t)(rank + 1) + 3600 * rank;
    struct tm *tm = gmtime(&date);
    step();
    printf("rank %d: gmtime day %d hour %d\n", rank, tm->tm_yday, tm->tm_hour);
    char *text_date = asctime(tm);
    step();
    printf("rank %d: asctime %s", rank, text_date);
    errno = 1000 + rank;
    step();
    printf("rank %d: errno %d\n", rank, errno);
    END();
    return 0;
}
