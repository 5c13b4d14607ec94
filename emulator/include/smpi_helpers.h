/* Force-included by smpicc into every translation unit: redirects exit()
 * to the end of the calling rank (not of the whole simulation), and
 * getopt() and its GNU forms to glibc's with the calling rank's position
 * (glibc keeps one, optind, for the whole process). The functions that
 * read or spend time need no macro: smpirun interposes them at the symbol
 * level, for every object of the program (src/abi/interpose.rs).
 *
 * In C this header includes no system header, so that a program's own
 * feature macros (_GNU_SOURCE, ...) still take effect; the redirected names
 * are declared with exactly the types glibc gives the originals, so glibc's
 * own declarations, once macro-expanded, redeclare ours compatibly. */
#ifndef SMPI_HELPERS_H
#define SMPI_HELPERS_H

#ifdef __cplusplus
/* g++ always defines _GNU_SOURCE, so including these first changes nothing;
 * <cstdlib> must see the real exit() for its `using ::exit`. */
#include <cstdlib>
#include <unistd.h>
#include <time.h>
#include <sys/time.h>
#define SMPI_HELPER_NOTHROW noexcept(true)
extern "C" {
#else
#define SMPI_HELPER_NOTHROW __attribute__((__nothrow__))
#endif

struct timeval;
struct timespec;
struct option;

unsigned int smpi_sleep(unsigned int seconds);
int smpi_usleep(unsigned int useconds);
int smpi_nanosleep(const struct timespec *req, struct timespec *rem);
int smpi_gettimeofday(struct timeval *tv, void *tz) SMPI_HELPER_NOTHROW;
int smpi_clock_gettime(int clock_id, struct timespec *tp) SMPI_HELPER_NOTHROW;
void smpi_exit(int status) SMPI_HELPER_NOTHROW __attribute__((__noreturn__));
int smpi_getopt(int argc, char *const *argv, const char *options) SMPI_HELPER_NOTHROW;
int smpi_getopt_long(int argc, char *const *argv, const char *options,
                     const struct option *long_options, int *index) SMPI_HELPER_NOTHROW;
int smpi_getopt_long_only(int argc, char *const *argv, const char *options,
                          const struct option *long_options, int *index) SMPI_HELPER_NOTHROW;

#ifdef __cplusplus
}
/* `std::exit(n)` expands to `std::smpi_exit(n)`. */
namespace std {
using ::smpi_exit;
}
#endif

#define exit(status) smpi_exit(status)
#define getopt(argc, argv, options) smpi_getopt(argc, argv, options)
#define getopt_long(argc, argv, options, long_options, index)                                      \
    smpi_getopt_long(argc, argv, options, long_options, index)
#define getopt_long_only(argc, argv, options, long_options, index)                                 \
    smpi_getopt_long_only(argc, argv, options, long_options, index)

/* The malloc family is redirected by smpicc's <stdlib.h> and <malloc.h>,
 * once the C library has declared it (smpi_alloc.h). */

#endif /* SMPI_HELPERS_H */
