/* Force-included by smpicc into every translation unit: redirects exit()
 * to the end of the calling rank (not of the whole simulation). The
 * functions that read or spend time, getopt and its GNU forms, and the
 * malloc family need no macro: smpirun interposes them at the symbol
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

/* The malloc family is not redirected here: smpirun interposes it at the
 * symbol level, for every object of the program (SMPI_NO_OVERRIDE_MALLOC
 * has no use left). */

#endif /* SMPI_HELPERS_H */
