/* Function models for an unmodified HPL (the one inside HPCC), loaded with
 * --cfg=smpi/function-models:hpl_models.so. scripts/hpcc.sh --models builds
 * this file against the fetched HPL's headers, with smpicc -shared, and runs
 * HPL with it, the BLAS kernel models and folded memory.
 *
 * Each function below replaces HPL's function of the same name in every
 * rank's copy of the program:
 *
 *  - HPL_pdmatgen: no random matrix, only the time generating it takes;
 *  - the row-swapping and copying helpers (HPL_dlaswp*, HPL_dlacpy,
 *    HPL_dlatcpy): no data moved, only the time moving it takes. With the
 *    BLAS modelled, nothing reads the matrix's values any more;
 *  - HPL_pdpanel_init: HPL's own (compiled a second time, renamed
 *    hpl_original_pdpanel_init, by the script), after which the panel's
 *    pivot vector is made private again. The panel buffer is large, so
 *    smpi/auto-shared-malloc-thresh folds it, but the pivots inside it steer
 *    the row swaps: folded, they would be overwritten by every other rank.
 *
 * Durations are seconds of the machine this was measured on (a 2-core
 * x86-64 VM, 2026), charged through smpi_execute, which scales them to the
 * simulated host like measured time. The copy costs come from timing HPL's
 * own helpers on a 5000 x 5000 local matrix with 128-row panels: gathering
 * rows of the matrix (stride = leading dimension) costs about 9 ns per
 * element, contiguous copies 0.6 to 2.5 ns, and the transposing copy 5.6 ns.
 * The matrix generation figure is a rough one (a linear congruential step
 * and a store per element); it is outside HPL's timed region anyway.
 *
 * With every value meaningless, HPL's residual check cannot pass: the script
 * switches it off (a negative threshold in the input file). */
#include <smpi.h>

#include "hpl.h"

#define MATGEN_SECONDS_PER_ELEMENT 3e-9
#define ROW_GATHER_SECONDS_PER_ELEMENT 9.1e-9
#define ROW_SWAP_SECONDS_PER_ELEMENT 2.5e-9
#define CONTIGUOUS_SECONDS_PER_ELEMENT 1.0e-9
#define COPY_SECONDS_PER_ELEMENT 0.56e-9
#define TRANSPOSE_SECONDS_PER_ELEMENT 5.6e-9

static void spend(double elements, double seconds_per_element) {
    if (elements > 0)
        smpi_execute(elements * seconds_per_element);
}

void HPL_pdmatgen(const HPL_T_grid *GRID, const int M, const int N, const int NB, double *A,
                  const int LDA, const int ISEED) {
    (void)NB, (void)A, (void)LDA, (void)ISEED;
    spend((double)M * N / ((double)GRID->nprow * GRID->npcol), MATGEN_SECONDS_PER_ELEMENT);
}

/* HPL's own panel set-up, renamed at compile time (see the script). */
void hpl_original_pdpanel_init(HPL_T_grid *, HPL_T_palg *, const int, const int, const int,
                               HPL_T_pmat *, const int, const int, const int, HPL_T_panel *);

void HPL_pdpanel_init(HPL_T_grid *GRID, HPL_T_palg *ALGO, const int M, const int N,
                      const int JB, HPL_T_pmat *A, const int IA, const int JA, const int TAG,
                      HPL_T_panel *PANEL) {
    hpl_original_pdpanel_init(GRID, ALGO, M, N, JB, A, IA, JA, TAG, PANEL);
    /* DPIV (JB pivots) and DINFO (one value) follow each other; the pages
     * under them become private and zero, as DINFO was just set. */
    if (PANEL->DPIV)
        smpi_shared_unfold(PANEL->DPIV, (size_t)(JB + 1) * sizeof(double));
}

/* The swaps and copies: (rows, columns) moved, and the cost per element. */
void HPL_dlaswp00N(const int M, const int N, double *A, const int LDA, const int *IPIV) {
    (void)A, (void)LDA, (void)IPIV;
    spend((double)M * N, ROW_SWAP_SECONDS_PER_ELEMENT);
}

void HPL_dlaswp10N(const int M, const int N, double *A, const int LDA, const int *IPIV) {
    (void)A, (void)LDA, (void)IPIV;
    spend((double)M * N, CONTIGUOUS_SECONDS_PER_ELEMENT);
}

#define GATHER(name)                                                                          \
    void name(const int M, const int N, double *A, const int LDA, double *U, const int LDU,    \
              const int *LINDXA, const int *LINDXAU) {                                         \
        (void)A, (void)LDA, (void)U, (void)LDU, (void)LINDXA, (void)LINDXAU;                   \
        spend((double)M * N, ROW_GATHER_SECONDS_PER_ELEMENT);                                  \
    }
GATHER(HPL_dlaswp01N)
GATHER(HPL_dlaswp01T)

#define SCATTER(name)                                                                         \
    void name(const int M, const int N, double *A, const int LDA, const double *U,             \
              const int LDU, const int *LINDXA, const int *LINDXAU) {                          \
        (void)A, (void)LDA, (void)U, (void)LDU, (void)LINDXA, (void)LINDXAU;                   \
        spend((double)M * N, ROW_GATHER_SECONDS_PER_ELEMENT);                                  \
    }
SCATTER(HPL_dlaswp05N)
SCATTER(HPL_dlaswp05T)

#define SWAP_ROWS(name)                                                                       \
    void name(const int M, const int N, double *A, const int LDA, double *U, const int LDU,    \
              const int *LINDXA) {                                                             \
        (void)A, (void)LDA, (void)U, (void)LDU, (void)LINDXA;                                  \
        spend((double)M * N, ROW_GATHER_SECONDS_PER_ELEMENT);                                  \
    }
SWAP_ROWS(HPL_dlaswp06N)
SWAP_ROWS(HPL_dlaswp06T)

void HPL_dlaswp02N(const int M, const int N, const double *A, const int LDA, double *W0,
                   double *W, const int LDW, const int *LINDXA, const int *LINDXAU) {
    (void)A, (void)LDA, (void)W0, (void)W, (void)LDW, (void)LINDXA, (void)LINDXAU;
    spend((double)M * N, ROW_GATHER_SECONDS_PER_ELEMENT);
}

#define UNPACK(name)                                                                          \
    void name(const int M, const int N, double *U, const int LDU, const double *W0,            \
              const double *W, const int LDW) {                                                \
        (void)U, (void)LDU, (void)W0, (void)W, (void)LDW;                                      \
        spend((double)M * N, ROW_SWAP_SECONDS_PER_ELEMENT);                                    \
    }
UNPACK(HPL_dlaswp03N)
UNPACK(HPL_dlaswp03T)

#define UNPACK_BOTH(name)                                                                     \
    void name(const int M0, const int M1, const int N, double *U, const int LDU, double *A,    \
              const int LDA, const double *W0, const double *W, const int LDW,                 \
              const int *LINDXA, const int *LINDXAU) {                                         \
        (void)U, (void)LDU, (void)A, (void)LDA, (void)W0, (void)W, (void)LDW, (void)LINDXA;    \
        (void)LINDXAU;                                                                         \
        spend((double)(M0 + M1) * N, ROW_GATHER_SECONDS_PER_ELEMENT);                          \
    }
UNPACK_BOTH(HPL_dlaswp04N)
UNPACK_BOTH(HPL_dlaswp04T)

void HPL_dlacpy(const int M, const int N, const double *A, const int LDA, double *B,
                const int LDB) {
    (void)A, (void)LDA, (void)B, (void)LDB;
    spend((double)M * N, COPY_SECONDS_PER_ELEMENT);
}

void HPL_dlatcpy(const int M, const int N, const double *A, const int LDA, double *B,
                 const int LDB) {
    (void)A, (void)LDA, (void)B, (void)LDB;
    spend((double)M * N, TRANSPOSE_SECONDS_PER_ELEMENT);
}
