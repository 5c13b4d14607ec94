/* The malloc family of the whole process, smpirun's own build exports it
 * (build.rs): every object of a rank's program, the libraries it links
 * that smpicc did not build included, binds to it, as to the other
 * interposed libc functions (src/abi/interpose.rs).
 *
 * Written in C for one thing Rust has no stable way to get: the address
 * the call returns to, which tells whose code allocates (the program's,
 * or the C library's on the program's behalf) and, with the program's
 * line tables, at which line. The decisions are Rust's
 * (src/abi/memory.rs): these only pass that address on. */
#include <stddef.h>

void *smpi_interposed_malloc(size_t size, const void *caller);
void *smpi_interposed_calloc(size_t n, size_t size, const void *caller);
void *smpi_interposed_realloc(void *ptr, size_t size, const void *caller);
void smpi_interposed_free(void *ptr);

void *malloc(size_t size)
{
    return smpi_interposed_malloc(size, __builtin_return_address(0));
}

void *calloc(size_t n, size_t size)
{
    return smpi_interposed_calloc(n, size, __builtin_return_address(0));
}

void *realloc(void *ptr, size_t size)
{
    return smpi_interposed_realloc(ptr, size, __builtin_return_address(0));
}

void free(void *ptr)
{
    smpi_interposed_free(ptr);
}
