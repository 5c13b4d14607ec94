/* <xbt/sysdep.h> of the smpi-rs MPI emulator: SimGrid's allocation
 * helpers, which die (xbt_die) rather than return NULL. The memory comes
 * from the program's malloc (which smpicc sends through the simulator);
 * release it with xbt_free or free. */
#ifndef SMPI_XBT_SYSDEP_H
#define SMPI_XBT_SYSDEP_H

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/asserts.h>
#include <xbt/base.h>
#include <xbt/log.h>

SG_BEGIN_DECL

static inline void *xbt_malloc(size_t size) {
    void *p = malloc(size);
    xbt_assert(p != NULL || size == 0, "Memory allocation of %lu bytes failed",
               (unsigned long)size);
    return p;
}

static inline void *xbt_malloc0(size_t size) {
    void *p = calloc(size, 1);
    xbt_assert(p != NULL || size == 0, "Memory callocation of %lu bytes failed",
               (unsigned long)size);
    return p;
}

/* realloc, except that a size of 0 frees and returns NULL. */
static inline void *xbt_realloc(void *p, size_t size) {
    if (size == 0) {
        free(p);
        return NULL;
    }
    void *q = realloc(p, size);
    xbt_assert(q != NULL, "memory (re)allocation of %lu bytes failed", (unsigned long)size);
    return q;
}

static inline char *xbt_strdup(const char *s) {
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *copy = (char *)xbt_malloc(n);
    memcpy(copy, s, n);
    return copy;
}

#define xbt_free(p) free(p)

/* The same as functions (to pass as callbacks). */
static inline void xbt_free_f(void *p) {
    free(p);
}
/* Frees the pointer that `p` points to. */
static inline void xbt_free_ref(void *p) {
    free(*(void **)p);
}

#define xbt_new(type, count) ((type *)xbt_malloc(sizeof(type) * (count)))
#define xbt_new0(type, count) ((type *)xbt_malloc0(sizeof(type) * (count)))

SG_END_DECL

#endif /* SMPI_XBT_SYSDEP_H */
