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
 *    the row swaps: folded, they would be overwritten by every other rank;
 *  - HPL_pipid and HPL_perm: the pivot bookkeeping of the row swaps, pure
 *    functions quadratic in the panel width that every rank calls with the
 *    same inputs for a panel (its pivots). HPL's own (renamed like
 *    HPL_pdpanel_init) runs on inputs not seen lately; a repeat copies the
 *    remembered outputs and spends the time the computation takes. With
 *    4,096 ranks and 512-wide panels they were a third of the run.
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
#include <string.h>

#include "hpl.h"

#define MATGEN_SECONDS_PER_ELEMENT 3e-9
#define ROW_GATHER_SECONDS_PER_ELEMENT 9.1e-9
#define ROW_SWAP_SECONDS_PER_ELEMENT 2.5e-9
#define CONTIGUOUS_SECONDS_PER_ELEMENT 1.0e-9
#define COPY_SECONDS_PER_ELEMENT 0.56e-9
#define TRANSPOSE_SECONDS_PER_ELEMENT 5.6e-9
/* HPL_pipid and HPL_perm on 512-wide panels: 0.2 to 0.7 ns times the width
 * squared for pipid (no pivoting to random pivots), 0.7 ns for perm. */
#define PIPID_SECONDS_PER_WIDTH_SQUARED 0.7e-9
#define PERM_SECONDS_PER_WIDTH_SQUARED 0.7e-9

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

/* Remembered calls of a pure function: the bytes of its inputs (the key)
 * and of its outputs. The library is loaded once for all ranks, so the
 * ranks share it; a few slots cover ranks a panel or two apart (HPL's
 * look-ahead). Panels wider than MEMO_MAX_WIDTH are not remembered. */
#define MEMO_SLOTS 8
#define MEMO_MAX_WIDTH 4096
/* The largest record is HPL_pipid's outputs: K, then up to two (source,
 * destination) pairs per pivot in IPID (HPL sizes IPID 4 x width). Its key
 * (two ints and the pivots as doubles) and HPL_perm's (two arrays of width
 * ints) and outputs (three) are smaller. */
#define MEMO_BYTES ((1 + 4 * MEMO_MAX_WIDTH) * sizeof(int))

struct memo_slot {
    size_t key_len, value_len;
    unsigned long last_use;
    unsigned char key[MEMO_BYTES], value[MEMO_BYTES];
};

struct memo {
    unsigned long clock;
    struct memo_slot slot[MEMO_SLOTS];
};

/* The slot remembering `key`, or NULL. */
static const struct memo_slot *memo_find(struct memo *m, const void *key, size_t len) {
    for (int i = 0; i < MEMO_SLOTS; i++) {
        struct memo_slot *s = &m->slot[i];
        if (s->key_len == len && memcmp(s->key, key, len) == 0) {
            s->last_use = ++m->clock;
            return s;
        }
    }
    return NULL;
}

/* Remembers `value` for `key` in the least recently used slot. */
static void memo_store(struct memo *m, const void *key, size_t key_len, const void *value,
                       size_t value_len) {
    struct memo_slot *lru = &m->slot[0];
    for (int i = 1; i < MEMO_SLOTS; i++)
        if (m->slot[i].last_use < lru->last_use)
            lru = &m->slot[i];
    memcpy(lru->key, key, key_len);
    memcpy(lru->value, value, value_len);
    lru->key_len = key_len;
    lru->value_len = value_len;
    lru->last_use = ++m->clock;
}

/* HPL's own, renamed at compile time (see the script). */
void hpl_original_pipid(HPL_T_panel *, int *, int *);
void hpl_original_perm(const int, int *, int *, int *);

static struct memo pipid_memo, perm_memo;
static unsigned char memo_key[MEMO_BYTES], memo_value[MEMO_BYTES];

/* Reads the panel's ia, jb and jb pivots; writes K and IPID[0..K). */
void HPL_pipid(HPL_T_panel *PANEL, int *K, int *IPID) {
    const int jb = PANEL->jb;
    if (jb <= 0 || jb > MEMO_MAX_WIDTH) {
        hpl_original_pipid(PANEL, K, IPID);
        return;
    }
    memcpy(memo_key, &PANEL->ia, sizeof(int));
    memcpy(memo_key + sizeof(int), &jb, sizeof(int));
    memcpy(memo_key + 2 * sizeof(int), PANEL->DPIV, (size_t)jb * sizeof(double));
    const size_t key_len = 2 * sizeof(int) + (size_t)jb * sizeof(double);
    const struct memo_slot *hit = memo_find(&pipid_memo, memo_key, key_len);
    if (hit) {
        memcpy(K, hit->value, sizeof(int));
        memcpy(IPID, hit->value + sizeof(int), hit->value_len - sizeof(int));
        spend((double)jb * jb, PIPID_SECONDS_PER_WIDTH_SQUARED);
        return;
    }
    hpl_original_pipid(PANEL, K, IPID);
    memcpy(memo_value, K, sizeof(int));
    memcpy(memo_value + sizeof(int), IPID, (size_t)*K * sizeof(int));
    memo_store(&pipid_memo, memo_key, key_len, memo_value, sizeof(int) + (size_t)*K * sizeof(int));
}

/* Reads LINDXA[0..N) and LINDXAU[0..N); writes both and IWORK[0..N). */
void HPL_perm(const int N, int *LINDXA, int *LINDXAU, int *IWORK) {
    if (N <= 0 || N > MEMO_MAX_WIDTH) {
        hpl_original_perm(N, LINDXA, LINDXAU, IWORK);
        return;
    }
    const size_t n = (size_t)N * sizeof(int);
    memcpy(memo_key, LINDXA, n);
    memcpy(memo_key + n, LINDXAU, n);
    const struct memo_slot *hit = memo_find(&perm_memo, memo_key, 2 * n);
    if (hit) {
        memcpy(LINDXA, hit->value, n);
        memcpy(LINDXAU, hit->value + n, n);
        memcpy(IWORK, hit->value + 2 * n, n);
        spend((double)N * N, PERM_SECONDS_PER_WIDTH_SQUARED);
        return;
    }
    hpl_original_perm(N, LINDXA, LINDXAU, IWORK);
    memcpy(memo_value, LINDXA, n);
    memcpy(memo_value + n, LINDXAU, n);
    memcpy(memo_value + 2 * n, IWORK, n);
    memo_store(&perm_memo, memo_key, 2 * n, memo_value, 3 * n);
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
