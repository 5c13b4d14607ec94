/* <smpi/smpi.h> of the smpi-rs MPI emulator: the simulator-specific calls
 * (SMPI's extensions), compatible with SimGrid 3.32's for the functions it
 * declares; <mpi.h> includes it, as SimGrid's does. SimGrid functions the
 * emulator does not implement are left undeclared: a call to one fails to
 * build (smpicc rejects undefined symbols) rather than misbehaving at run
 * time. */
#ifndef SMPI_SMPI_H
#define SMPI_SMPI_H

#include <mpi.h>
#include <simgrid/forward.h>
#include <stddef.h>
#include <stdio.h>
#include <xbt/function_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Spends `flops` floating-point operations on the calling rank's host. The
 * time is spent with the rank's computation at its next MPI call or clock
 * reading (the same dates, without a switch per call). */
void smpi_execute_flops(double flops);
/* Spends `seconds` of this machine's time, scaled to the rank's host speed
 * through smpi/host-speed (as if that much CPU time had been measured). */
void smpi_execute(double seconds);
/* Spends `seconds` of the simulated host's time (its speed times seconds,
 * in flops), at once: the measured computation before it ends first. */
void smpi_execute_benched(double seconds);
/* Spends `flops` on the rank's host at once (the measured computation
 * before it ends first). */
void smpi_execute_flops_benched(double flops);

/* The number of ranks of the simulation (smpirun -np). */
int smpi_global_size(void);

/* Called by an actor a rank created (sg_actor_start of <simgrid/actor.h>):
 * it becomes an MPI process of its creator's rank (MPI_Initialized says
 * so). Such an actor acts as that rank from its start: its MPI calls are
 * the rank's, it sees the rank's globals. */
void SMPI_thread_create(void);

/* The calling rank's next MPI calls are at `line` of `file`: `smpicc
 * -trace-call-location` puts a call before each MPI call
 * (<smpi/smpi_extended_traces.h>), so that --cfg=smpi/list-leaks says where
 * the handles left unfreed were made. */
void smpi_trace_set_call_location(const char *file, int line);

/* Memory whose content the simulation may fold (--cfg=smpi/shared-malloc:
 * global maps every allocation onto one small block, local shares the
 * allocations of one call site between ranks, no keeps them private):
 * for large buffers whose values do not steer the program. */
void *smpi_shared_malloc(size_t size, const char *file, int line);
void smpi_shared_free(void *ptr);
/* `offsets` holds `n` (start, end) byte pairs: the parts to fold onto the
 * global block; the rest of the allocation is private. */
void *smpi_shared_malloc_partial(size_t size, const size_t *offsets, int n);
#define SMPI_SHARED_MALLOC(size) smpi_shared_malloc((size), __FILE__, __LINE__)
#define SMPI_PARTIAL_SHARED_MALLOC(size, offsets, n) smpi_shared_malloc_partial((size), (offsets), (n))
#define SMPI_SHARED_FREE(ptr) smpi_shared_free(ptr)
/* Makes the pages under [ptr, ptr + len) private again where they are
 * folded, for a few values inside a folded buffer that steer the program
 * (a pivot vector, say); returns how many bytes became private. Not in
 * SimGrid. */
size_t smpi_shared_unfold(void *ptr, size_t len);

/* SMPI_SHARED_CALL(func, input, args...) calls func(args...) once in the
 * whole simulation for a given (func, input) pair, keeps the pointer it
 * returns, and returns that pointer to every call with the same pair (the
 * first rank to get there computes, the others reuse: an input file read
 * once into a shared buffer, say). `input` names the computation: a string
 * such as the file name. */
int smpi_shared_known_call(const char *func, const char *input);
void *smpi_shared_get_call(const char *func, const char *input);
void *smpi_shared_set_call(const char *func, const char *input, void *data);
#define SMPI_SHARED_CALL(func, input, ...)                                                         \
    (smpi_shared_known_call(#func, (input)) ? smpi_shared_get_call(#func, (input))                 \
                                            : smpi_shared_set_call(#func, (input), (func)(__VA_ARGS__)))

/* Sampled loops: SMPI_SAMPLE_LOCAL(init, cond, step, iters, thres) { body }
 * runs the body for the first few passes only, measuring it, until `iters`
 * passes are measured or (thres > 0) their relative standard error is
 * below thres; then it leaves the loop and injects the mean for every one
 * of its passes. GLOBAL shares the measures between ranks, LOCAL keeps
 * them per rank; the _TAG forms name the site (several loops per line).
 * SMPI_SAMPLE_DELAY(seconds) and SMPI_SAMPLE_FLOPS(flops) skip their body
 * and inject that much computation. */
int smpi_sample_cond(int global, const char *file, const char *tag, int iters, double threshold,
                     int iter_count);
void smpi_sample_iter(int global, const char *file, const char *tag);
int smpi_sample_exit(int global, const char *file, const char *tag, int iter_count);

#define SMPI_SAMPLE_CAT2(a, b) a##b
#define SMPI_SAMPLE_CAT(a, b) SMPI_SAMPLE_CAT2(a, b)
#define SMPI_SAMPLE_TAG_NAME SMPI_SAMPLE_CAT(smpi_sample_tag_, __LINE__)
#define SMPI_SAMPLE_COUNT_NAME SMPI_SAMPLE_CAT(smpi_sample_count_, __LINE__)
#define SMPI_SAMPLE_LOOP(init, cond, step, global, iters, thres, tag)                             \
    char SMPI_SAMPLE_TAG_NAME[160];                                                               \
    snprintf(SMPI_SAMPLE_TAG_NAME, sizeof SMPI_SAMPLE_TAG_NAME, "%s%d", (tag), __LINE__);         \
    int SMPI_SAMPLE_COUNT_NAME = 0;                                                               \
    {                                                                                             \
        init;                                                                                     \
        while (cond) {                                                                            \
            SMPI_SAMPLE_COUNT_NAME++;                                                             \
            (step);                                                                               \
        }                                                                                         \
    }                                                                                             \
    for (init; (cond) ? smpi_sample_cond((global), __FILE__, SMPI_SAMPLE_TAG_NAME, (iters),      \
                                         (thres), SMPI_SAMPLE_COUNT_NAME)                         \
                      : smpi_sample_exit((global), __FILE__, SMPI_SAMPLE_TAG_NAME,               \
                                         SMPI_SAMPLE_COUNT_NAME);                                 \
         smpi_sample_iter((global), __FILE__, SMPI_SAMPLE_TAG_NAME), (step))
#define SMPI_SAMPLE_LOCAL(init, cond, step, iters, thres)                                         \
    SMPI_SAMPLE_LOOP(init, (cond), (step), 0, (iters), (thres), "")
#define SMPI_SAMPLE_LOCAL_TAG(init, cond, step, iters, thres, tag)                                \
    SMPI_SAMPLE_LOOP(init, (cond), (step), 0, (iters), (thres), tag)
#define SMPI_SAMPLE_GLOBAL(init, cond, step, iters, thres)                                        \
    SMPI_SAMPLE_LOOP(init, (cond), (step), 1, (iters), (thres), "")
#define SMPI_SAMPLE_GLOBAL_TAG(init, cond, step, iters, thres, tag)                               \
    SMPI_SAMPLE_LOOP(init, (cond), (step), 1, (iters), (thres), tag)
#define SMPI_SAMPLE_DELAY(seconds) for (smpi_execute(seconds); 0;)
#define SMPI_SAMPLE_FLOPS(flops) for (smpi_execute_flops(flops); 0;)

#ifdef __cplusplus
}
#endif

#endif /* SMPI_SMPI_H */
