/* Included by smpicc's <stdlib.h> and <malloc.h> after the C library's:
 * the malloc family goes through the simulator, which folds large blocks
 * when --cfg=smpi/auto-shared-malloc-thresh asks for it and, with
 * --cfg=smpi/display-allocs or smpi/list-leaks, notes what the program
 * allocates and where. The names and arguments are SimGrid's. Only in C,
 * and not with SMPI_NO_OVERRIDE_MALLOC defined (the C library's then).
 *
 * The macros pass the place of the call, so they cannot stand for the C
 * library's own declarations of these functions: the headers that hold
 * those read them with the macros undefined. */
#if !defined(__cplusplus) && !defined(SMPI_NO_OVERRIDE_MALLOC)
#ifndef SMPI_ALLOC_H
#define SMPI_ALLOC_H
void *smpi_shared_malloc_intercept(__SIZE_TYPE__ size, const char *file, int line)
    __attribute__((__nothrow__));
void *smpi_shared_calloc_intercept(__SIZE_TYPE__ n, __SIZE_TYPE__ size, const char *file,
                                   int line) __attribute__((__nothrow__));
void *smpi_shared_realloc_intercept(void *ptr, __SIZE_TYPE__ size, const char *file, int line)
    __attribute__((__nothrow__));
void smpi_free(void *ptr) __attribute__((__nothrow__));
#endif
#undef malloc
#undef calloc
#undef realloc
#undef free
#define malloc(size) smpi_shared_malloc_intercept((size), __FILE__, __LINE__)
#define calloc(n, size) smpi_shared_calloc_intercept((n), (size), __FILE__, __LINE__)
#define realloc(ptr, size) smpi_shared_realloc_intercept((ptr), (size), __FILE__, __LINE__)
#define free(ptr) smpi_free(ptr)
#endif
