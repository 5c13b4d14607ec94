/* Reductions on C long double, which Rust has no type for: the predefined
 * operations on long double, long double complex and (long double, int)
 * pairs, applied to packed elements (no padding between them).
 *
 * Returns 1 when the operation is defined on the kind, 0 otherwise. */
#include <complex.h>
#include <stddef.h>
#include <string.h>

/* Operation numbers as in mpi.h. */
enum { MAX = 1, MIN = 2, SUM = 3, PROD = 4, LAND = 5, LOR = 7, LXOR = 9, MINLOC = 11, MAXLOC = 12 };
/* Element kinds. */
enum { REAL = 0, COMPLEX = 1, PAIR = 2 };

int smpi_long_double_apply(int op, int kind, const unsigned char *in, unsigned char *inout,
                           size_t n)
{
    size_t i;
    if (kind == REAL) {
        /* The logical ones as MPICH accepts them on floating types. */
        if (op != MAX && op != MIN && op != SUM && op != PROD && op != LAND && op != LOR &&
            op != LXOR)
            return 0;
        for (i = 0; i < n; i++) {
            long double a, b;
            memcpy(&a, in + i * sizeof a, sizeof a);
            memcpy(&b, inout + i * sizeof b, sizeof b);
            switch (op) {
            case MAX: b = a > b ? a : b; break;
            case MIN: b = a < b ? a : b; break;
            case SUM: b = a + b; break;
            case PROD: b = a * b; break;
            case LAND: b = (a != 0) && (b != 0); break;
            case LOR: b = (a != 0) || (b != 0); break;
            default: b = (a != 0) != (b != 0); break;
            }
            memcpy(inout + i * sizeof b, &b, sizeof b);
        }
        return 1;
    }
    if (kind == COMPLEX) {
        if (op != SUM && op != PROD)
            return 0;
        for (i = 0; i < n; i++) {
            long double _Complex a, b;
            memcpy(&a, in + i * sizeof a, sizeof a);
            memcpy(&b, inout + i * sizeof b, sizeof b);
            b = op == SUM ? a + b : a * b;
            memcpy(inout + i * sizeof b, &b, sizeof b);
        }
        return 1;
    }
    if (kind == PAIR) {
        const size_t stride = sizeof(long double) + sizeof(int);
        if (op != MINLOC && op != MAXLOC)
            return 0;
        for (i = 0; i < n; i++) {
            long double va, vb;
            int ia, ib;
            memcpy(&va, in + i * stride, sizeof va);
            memcpy(&ia, in + i * stride + sizeof va, sizeof ia);
            memcpy(&vb, inout + i * stride, sizeof vb);
            memcpy(&ib, inout + i * stride + sizeof vb, sizeof ib);
            int better = op == MINLOC ? va < vb : va > vb;
            if (better || (va == vb && ia < ib)) {
                memcpy(inout + i * stride, &va, sizeof va);
                memcpy(inout + i * stride + sizeof va, &ia, sizeof ia);
            }
        }
        return 1;
    }
    return 0;
}
