/* <malloc.h> of smpicc: the C library's, read without the macros that
 * redirect the malloc family (they would turn its declarations into
 * calls), which are then defined (smpi_alloc.h). As the C library's
 * header it stands for, a system header (#include_next is GCC's). */
#pragma GCC system_header
#pragma push_macro("malloc")
#pragma push_macro("calloc")
#pragma push_macro("realloc")
#pragma push_macro("free")
#undef malloc
#undef calloc
#undef realloc
#undef free
#include_next <malloc.h>
#pragma pop_macro("malloc")
#pragma pop_macro("calloc")
#pragma pop_macro("realloc")
#pragma pop_macro("free")
#include <smpi_alloc.h>
