/* <xbt/log.h> of the smpi-rs MPI emulator: SimGrid's logging interface
 * for programs. A program declares its categories
 * (XBT_LOG_NEW_DEFAULT_CATEGORY(name, "description"), sub-categories with
 * a parent) and logs with XBT_INFO("format", ...) and its siblings; the
 * lines go to stderr in SimGrid's layout,
 *     [host:rank:(rank+1) simulated-time] [category/LEVEL] message
 * filtered by smpirun's --log settings (name.thres:level, root.thres:level;
 * INFO and above by default), as SimGrid prints them.
 *
 * A category is a small record the runtime numbers on first use; the
 * message is formatted here, then handed to the runtime, which adds the
 * rank's host, the rank and the simulated date. Defining NLOG removes
 * every log call, NDEBUG the DEBUG and TRACE ones, as in SimGrid. */
#ifndef SMPI_XBT_LOG_H
#define SMPI_XBT_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <xbt/base.h>

SG_BEGIN_DECL

/* SimGrid's priorities, with its values. */
typedef enum {
    xbt_log_priority_none = 0,
    xbt_log_priority_trace = 1,
    xbt_log_priority_debug = 2,
    xbt_log_priority_verbose = 3,
    xbt_log_priority_info = 4,
    xbt_log_priority_warning = 5,
    xbt_log_priority_error = 6,
    xbt_log_priority_critical = 7,
    xbt_log_priority_infinite = 8,
    xbt_log_priority_uninitialized = -1
} e_xbt_log_priority_t;

/* Priorities below this one are compiled out. */
#ifndef XBT_LOG_STATIC_THRESHOLD
#if defined(NLOG)
#define XBT_LOG_STATIC_THRESHOLD xbt_log_priority_infinite
#elif defined(NDEBUG)
#define XBT_LOG_STATIC_THRESHOLD xbt_log_priority_verbose
#else
#define XBT_LOG_STATIC_THRESHOLD xbt_log_priority_none
#endif
#endif

/* A category: its name, its parent's ("root" at the top), and the number
 * the runtime gives it on its first use (0 until then). Programs only
 * name categories through the macros below. */
typedef struct xbt_log_category_s {
    const char *name;
    const char *parent;
    const char *description;
    int id;
} s_xbt_log_category_t, *xbt_log_category_t;

/* The runtime's side: whether `category` logs at `priority`; a formatted
 * message to print; --log settings applied while the program runs (the
 * syntax of --log: "name.thres:level", several separated by spaces). */
int smpi_xbt_log_enabled(xbt_log_category_t category, int priority);
void smpi_xbt_log_message(xbt_log_category_t category, int priority, const char *file, int line,
                          const char *message);
void xbt_log_control_set(const char *control_string);

/* The variable of category `cat`. */
#define _XBT_LOGV(cat) _XBT_CONCAT(_smpi_xbt_log_category__, cat)

#define XBT_LOG_ROOT_CAT root

/* Every file that logs has the root category (xbt_assert logs there). */
XBT_ATTRIB_UNUSED static s_xbt_log_category_t _XBT_LOGV(XBT_LOG_ROOT_CAT) = {"root", NULL,
                                                                              "The root category", 0};

#define XBT_LOG_EXTERNAL_CATEGORY(cname) extern s_xbt_log_category_t _XBT_LOGV(cname)

#define XBT_LOG_NEW_SUBCATEGORY(cname, parent, desc)                                               \
    s_xbt_log_category_t _XBT_LOGV(cname) = {_XBT_STRINGIFY(cname), _XBT_STRINGIFY(parent),       \
                                             (desc), 0}

#define XBT_LOG_NEW_CATEGORY(cname, desc) XBT_LOG_NEW_SUBCATEGORY(cname, root, desc)

/* The category XBT_INFO and its siblings log to, in this file. */
#define XBT_LOG_DEFAULT_CATEGORY(cname)                                                            \
    XBT_ATTRIB_UNUSED static xbt_log_category_t _XBT_LOGV(default) = &_XBT_LOGV(cname)

#define XBT_LOG_NEW_DEFAULT_CATEGORY(cname, desc)                                                  \
    XBT_LOG_NEW_CATEGORY(cname, desc);                                                             \
    XBT_LOG_DEFAULT_CATEGORY(cname)

#define XBT_LOG_NEW_DEFAULT_SUBCATEGORY(cname, parent, desc)                                       \
    XBT_LOG_NEW_SUBCATEGORY(cname, parent, desc);                                                  \
    XBT_LOG_DEFAULT_CATEGORY(cname)

#define XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(cname)                                                   \
    XBT_LOG_EXTERNAL_CATEGORY(cname);                                                              \
    XBT_LOG_DEFAULT_CATEGORY(cname)

/* Formats a message (on the stack when it is short) for the runtime. */
XBT_ATTRIB_UNUSED XBT_ATTRIB_PRINTF(5, 6) static void
    _smpi_xbt_log_event(xbt_log_category_t category, int priority, const char *file, int line,
                        const char *format, ...) {
    char small[512];
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(small, sizeof small, format, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        smpi_xbt_log_message(category, priority, file, line, small);
        return;
    }
    char *large = (char *)malloc((size_t)n + 1);
    if (large == NULL) {
        smpi_xbt_log_message(category, priority, file, line, small);
        return;
    }
    va_start(ap, format);
    vsnprintf(large, (size_t)n + 1, format, ap);
    va_end(ap);
    smpi_xbt_log_message(category, priority, file, line, large);
    free(large);
}

#define _XBT_LOG_ISENABLEDV(catv, priority)                                                        \
    ((priority) >= XBT_LOG_STATIC_THRESHOLD && smpi_xbt_log_enabled(&(catv), (priority)))

#define XBT_LOG_ISENABLED(cname, priority) _XBT_LOG_ISENABLEDV(_XBT_LOGV(cname), (priority))

/* Logs to a category variable. */
#define XBT_CLOG(catv, priority, ...)                                                              \
    do {                                                                                           \
        if (_XBT_LOG_ISENABLEDV(catv, (priority)))                                                 \
            _smpi_xbt_log_event(&(catv), (priority), __FILE__, __LINE__, __VA_ARGS__);             \
    } while (0)

/* Logs to this file's default category. */
#define XBT_LOG(priority, ...) XBT_CLOG(*_XBT_LOGV(default), (priority), __VA_ARGS__)

#define XBT_CDEBUG(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_debug, __VA_ARGS__)
#define XBT_CVERB(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_verbose, __VA_ARGS__)
#define XBT_CINFO(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_info, __VA_ARGS__)
#define XBT_CWARN(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_warning, __VA_ARGS__)
#define XBT_CERROR(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_error, __VA_ARGS__)
#define XBT_CCRITICAL(cname, ...) XBT_CLOG(_XBT_LOGV(cname), xbt_log_priority_critical, __VA_ARGS__)

#define XBT_DEBUG(...) XBT_LOG(xbt_log_priority_debug, __VA_ARGS__)
#define XBT_VERB(...) XBT_LOG(xbt_log_priority_verbose, __VA_ARGS__)
#define XBT_INFO(...) XBT_LOG(xbt_log_priority_info, __VA_ARGS__)
#define XBT_WARN(...) XBT_LOG(xbt_log_priority_warning, __VA_ARGS__)
#define XBT_ERROR(...) XBT_LOG(xbt_log_priority_error, __VA_ARGS__)
#define XBT_CRITICAL(...) XBT_LOG(xbt_log_priority_critical, __VA_ARGS__)

/* Function entry and exit at TRACE: XBT_IN() says ">> begin of f",
 * XBT_IN(" with %d", x) ">> begin of f with 3". */
#define _SMPI_XBT_TRACE_FN1(format) XBT_LOG(xbt_log_priority_trace, format, __func__)
#define _SMPI_XBT_TRACE_FNN(format, ...)                                                           \
    XBT_LOG(xbt_log_priority_trace, format, __func__, __VA_ARGS__)
#define _SMPI_XBT_TRACE_FN(...)                                                                    \
    _XBT_IF_ONE_ARG(_SMPI_XBT_TRACE_FN1, _SMPI_XBT_TRACE_FNN, __VA_ARGS__)(__VA_ARGS__)
#define XBT_IN(...) _SMPI_XBT_TRACE_FN(">> begin of %s" __VA_ARGS__)
#define XBT_OUT(...) _SMPI_XBT_TRACE_FN("<< end of %s" __VA_ARGS__)
#define XBT_HERE(...) XBT_LOG(xbt_log_priority_trace, "-- was here" __VA_ARGS__)

SG_END_DECL

#endif /* SMPI_XBT_LOG_H */
