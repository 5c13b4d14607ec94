/* A library built with the plain C compiler, not smpicc: its clock
 * readings and sleeps must be simulated all the same (smpirun interposes
 * libc's time functions at the symbol level). */
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Sleeps `seconds` s, then 0.5 s, 0.25 s, 0.125 s, then until 1 s
 * later; returns how long that took by gettimeofday. */
double plain_wait(unsigned seconds)
{
    struct timeval a, b;
    struct timespec quarter = {0, 250000000}, eighth = {0, 125000000}, until;
    gettimeofday(&a, NULL);
    sleep(seconds);
    usleep(500000);
    nanosleep(&quarter, NULL);
    clock_nanosleep(CLOCK_MONOTONIC, 0, &eighth, NULL);
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    gettimeofday(&b, NULL);
    return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) * 1e-6;
}

/* The monotonic clock, in seconds. */
double plain_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* clock(), in seconds. */
double plain_clock(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

/* time(), in seconds. */
long plain_time(void)
{
    return (long)time(NULL);
}
