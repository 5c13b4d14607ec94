/* <xbt/base.h> of the smpi-rs MPI emulator: the part of SimGrid's
 * toolbox macros that programs use (attributes, C linkage brackets,
 * stringification, choosing a macro by argument count), for SimGrid's
 * headers that smpicc provides. Like SimGrid's, it defines _GNU_SOURCE,
 * so programs written for SimGrid see the same C library. */
#ifndef SMPI_XBT_BASE_H
#define SMPI_XBT_BASE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#ifdef __cplusplus
#define SG_BEGIN_DECL extern "C" {
#define SG_END_DECL }
#else
#define SG_BEGIN_DECL
#define SG_END_DECL
#endif

#define XBT_ATTRIB_PRINTF(format_index, first_argument) \
    __attribute__((__format__(__printf__, format_index, first_argument)))
#define XBT_ATTRIB_SCANF(format_index, first_argument) \
    __attribute__((__format__(__scanf__, format_index, first_argument)))
#define XBT_ATTRIB_NORETURN __attribute__((__noreturn__))
#define XBT_ATTRIB_UNUSED __attribute__((__unused__))
#define XBT_ATTRIB_DEPRECATED(message) __attribute__((__deprecated__(message)))
#define XBT_ATTRIB_CONSTRUCTOR(priority) __attribute__((__constructor__(priority)))
#define XBT_ATTRIB_DESTRUCTOR(priority) __attribute__((__destructor__(priority)))
#ifndef XBT_ALWAYS_INLINE
#define XBT_ALWAYS_INLINE inline __attribute__((__always_inline__))
#endif

/* Symbol visibility: everything a program defines is its own. */
#define XBT_PUBLIC __attribute__((__visibility__("default")))
#define XBT_EXPORT_NO_IMPORT XBT_PUBLIC
#define XBT_IMPORT_NO_EXPORT XBT_PUBLIC
#define XBT_PUBLIC_DATA extern XBT_PUBLIC
#define XBT_PRIVATE __attribute__((__visibility__("hidden")))

#define _XBT_STRINGIFY(a) #a
#define _XBT_CONCAT(a, b) a##b
#define _XBT_CONCAT2(a, b) _XBT_CONCAT(a, b)
#define _XBT_CONCAT3(a, b, c) _XBT_CONCAT2(_XBT_CONCAT2(a, b), c)
#define _XBT_CONCAT4(a, b, c, d) _XBT_CONCAT2(_XBT_CONCAT3(a, b, c), d)

/* _XBT_IF_ONE_ARG(one, more, args...) is `one` when there is one argument
 * after `more`, `more` when there are 2 to 64: the arguments push the
 * list of candidates right, and the 65th element is the choice. */
#define _XBT_IF_ONE_ARG(one, more, ...) \
    _SMPI_XBT_65TH(__VA_ARGS__, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, more, one, ~)
#define _SMPI_XBT_65TH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, _41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, _55, _56, _57, _58, _59, _60, _61, _62, _63, _64, choice, ...) choice

#endif /* SMPI_XBT_BASE_H */
