/* <xbt/asserts.h> of the smpi-rs MPI emulator: SimGrid's assertions.
 * xbt_assert(cond) and xbt_assert(cond, "format", ...) log a CRITICAL line
 * to the root category when `cond` is false (the condition's text, or the
 * message) and abort the process, as SimGrid's do; unlike assert(), they
 * stay under NDEBUG. xbt_die("format", ...) logs and aborts. */
#ifndef SMPI_XBT_ASSERTS_H
#define SMPI_XBT_ASSERTS_H

#include <stdlib.h>
#include <xbt/base.h>
#include <xbt/log.h>

SG_BEGIN_DECL

/* Ends the process (SIGABRT), without a message. */
XBT_ATTRIB_NORETURN static inline void xbt_abort(void) {
    abort();
}

#define xbt_die(...)                                                                               \
    do {                                                                                           \
        XBT_CCRITICAL(root, __VA_ARGS__);                                                          \
        xbt_abort();                                                                               \
    } while (0)

#define _smpi_xbt_assert_message(cond, ...)                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            xbt_die(__VA_ARGS__);                                                                  \
    } while (0)
#define _smpi_xbt_assert_condition(cond) _smpi_xbt_assert_message((cond), "Assertion %s failed", #cond)

#define xbt_assert(...)                                                                            \
    _XBT_IF_ONE_ARG(_smpi_xbt_assert_condition, _smpi_xbt_assert_message, __VA_ARGS__)(__VA_ARGS__)

SG_END_DECL

#endif /* SMPI_XBT_ASSERTS_H */
