/* A library built with the plain cc (not smpicc), linked into
 * tests/c/malloc_names.c: its allocations are the program's all the same. */
#include <stdlib.h>
#include <string.h>

void *plain_alloc_make(size_t size, int fill) {
    unsigned char *p = malloc(size); /* LEAK library */
    if (p)
        p[0] = (unsigned char)fill;
    return p;
}
