//! Real threads a rank's code starts: OpenMP's workers and those of
//! libraries that run their own (a threaded BLAS), outside the
//! simulation, which runs all ranks on one thread (the program's own
//! `pthread_create` makes simulated threads instead: `super::pthread`).
//! `create_native` notes which rank started each real thread, so that an
//! MPI call from one ends the run with one line naming the rank and the
//! call, instead of an internal error (`sim::outside_simulation`). OpenMP
//! regions (`GOMP_parallel` and siblings, exported), which run natively,
//! mark their rank inside a native region while they run (its threads
//! interface is then the C library's) and are costed by `smpi/omp-model`.

use std::ffi::{c_int, c_long, c_uint, c_void, CStr};

use super::interpose::libc_own;
use crate::engine::context;
use crate::sim;

/// A start routine of C.
type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;

/// What a rank's new thread starts with.
struct Start {
    routine: StartRoutine,
    arg: *mut c_void,
    rank: usize,
}

/// The first function of a rank's thread: notes the rank, then runs the
/// program's routine.
extern "C" fn started_by_rank(start: *mut c_void) -> *mut c_void {
    // SAFETY: `pthread_create` below passes a Box<Start> it gave up, to
    // exactly one thread.
    let start = unsafe { Box::from_raw(start.cast::<Start>()) };
    sim::note_thread_of_rank(start.rank);
    (start.routine)(start.arg)
}

/// `pthread_create` of a real thread (off a rank, or by a library that
/// runs real threads: `super::pthread`): libc's; a thread started on a
/// rank knows its rank.
///
/// # Safety
/// The C contract: `thread` writable, `attr` null or initialised.
pub(crate) unsafe fn create_native(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    routine: super::pthread::StartRoutine,
    arg: *mut c_void,
) -> c_int {
    let create = |routine: StartRoutine, arg: *mut c_void| libc_own!("pthread_create": unsafe extern "C" fn(*mut libc::pthread_t, *const libc::pthread_attr_t, StartRoutine, *mut c_void) -> c_int, thread, attr, routine, arg);
    if !context::in_rank() {
        return create(routine, arg);
    }
    let rank = sim::with(|s| s.core.current());
    let start = Box::into_raw(Box::new(Start { routine, arg, rank }));
    let result = create(started_by_rank, start.cast());
    if result != 0 {
        // SAFETY: no thread was made: the box is still ours.
        drop(unsafe { Box::from_raw(start) });
    }
    result
}

/// Being inside an OpenMP region, on a rank: counted while alive.
struct NativeRegion;

impl NativeRegion {
    fn enter() -> NativeRegion {
        context::set_native_regions(context::native_regions() + 1);
        NativeRegion
    }
}

impl Drop for NativeRegion {
    fn drop(&mut self) {
        context::set_native_regions(context::native_regions() - 1);
    }
}

/// Whether the running rank is inside an OpenMP region, whose threads are
/// real: its own calls of the threads interface are then the C
/// library's.
pub(crate) fn in_native_region() -> bool {
    context::native_regions() > 0
}

/// An OpenMP region's function, as libgomp calls it.
type RegionBody = extern "C" fn(*mut c_void);

/// Runs libgomp's `name` (found once into `cell`) through `call`, which
/// gets its address: an OpenMP region, timed. Under `smpi/omp-model:cpu`
/// the region costs the CPU time of all the process's threads during it
/// (the rank's and libgomp's workers) over the simulated host's cores,
/// and at least the rank's own thread's: that replaces what the bench
/// clock saw of it on the rank's thread (its CPU time, or its wall time
/// with `smpi/bench-clock:wall`).
fn region<R>(name: &CStr, cell: &super::interpose::Forward, call: impl FnOnce(usize) -> R) -> R {
    let addr = super::interpose::forwarded(name, "libgomp", cell, || {
        privatize::loaded_definition(c"libgomp.so.1", name)
    });
    if !context::in_rank() {
        return call(addr);
    }
    // The region's threads are real: while it runs, the rank's own thread
    // (its master) uses the C library's threads interface with them.
    let _native = NativeRegion::enter();
    let modelled = sim::with(|s| s.bench.simulate && s.bench.omp_cpu);
    if !modelled {
        return call(addr);
    }
    let start = RegionClocks::now();
    let result = call(addr);
    let end = RegionClocks::now();
    sim::with(|s| {
        let cores = f64::from(
            s.core
                .platform()
                .host(s.core.host_of(s.core.current()))
                .cores
                .max(1),
        );
        let seen = if s.bench.wall_clock {
            end.wall - start.wall
        } else {
            end.thread - start.thread
        };
        let cost = region_cost(
            end.thread - start.thread,
            end.process - start.process,
            cores,
        );
        // The bench clock's share of the region leaves the burst...
        sim::fast(|f| f.set_mark(f.mark() + seen));
        // ... and its model joins it.
        s.core.running_mut().pending_flops += cost * s.bench.host_speed;
    });
    sim::fast(|f| f.note_pending_flops());
    result
}

/// `GOMP_parallel`, what gcc compiles `#pragma omp parallel` into:
/// libgomp's, as an OpenMP [`region`].
///
/// # Safety
/// libgomp's contract: `body` runs `data` on each thread.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel(
    body: RegionBody,
    data: *mut c_void,
    threads: c_uint,
    flags: c_uint,
) {
    static CELL: super::interpose::Forward = super::interpose::Forward::new();
    region(c"GOMP_parallel", &CELL, |addr| {
        // SAFETY: libgomp's function of this C type; the caller's arguments.
        unsafe {
            let f = std::mem::transmute::<
                usize,
                unsafe extern "C" fn(RegionBody, *mut c_void, c_uint, c_uint),
            >(addr);
            f(body, data, threads, flags)
        }
    })
}

/// `GOMP_parallel_sections` (`#pragma omp parallel sections`), as an
/// OpenMP [`region`].
///
/// # Safety
/// As [`GOMP_parallel`].
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_sections(
    body: RegionBody,
    data: *mut c_void,
    threads: c_uint,
    count: c_uint,
    flags: c_uint,
) {
    static CELL: super::interpose::Forward = super::interpose::Forward::new();
    region(c"GOMP_parallel_sections", &CELL, |addr| {
        // SAFETY: as in GOMP_parallel.
        unsafe {
            let f = std::mem::transmute::<
                usize,
                unsafe extern "C" fn(RegionBody, *mut c_void, c_uint, c_uint, c_uint),
            >(addr);
            f(body, data, threads, count, flags)
        }
    })
}

/// `GOMP_parallel_reductions` (a parallel region with task reductions),
/// as an OpenMP [`region`].
///
/// # Safety
/// As [`GOMP_parallel`].
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_reductions(
    body: RegionBody,
    data: *mut c_void,
    threads: c_uint,
    flags: c_uint,
) -> c_uint {
    static CELL: super::interpose::Forward = super::interpose::Forward::new();
    region(c"GOMP_parallel_reductions", &CELL, |addr| {
        // SAFETY: as in GOMP_parallel.
        unsafe {
            let f = std::mem::transmute::<
                usize,
                unsafe extern "C" fn(RegionBody, *mut c_void, c_uint, c_uint) -> c_uint,
            >(addr);
            f(body, data, threads, flags)
        }
    })
}

/// libgomp's `#pragma omp parallel for` entry points, each as an OpenMP
/// [`region`]: the loop bounds, then `extra` (the chunk size, but for the
/// `runtime` schedules), then the flags.
macro_rules! parallel_loops {
    ($($name:ident($($extra:ident: $ty:ty),*)),* $(,)?) => {
        $(
            /// A `parallel for` of libgomp's, as an OpenMP [`region`].
            ///
            /// # Safety
            /// As [`GOMP_parallel`].
            #[no_mangle]
            pub unsafe extern "C" fn $name(
                body: RegionBody,
                data: *mut c_void,
                threads: c_uint,
                start: c_long,
                end: c_long,
                incr: c_long,
                $($extra: $ty,)*
                flags: c_uint,
            ) {
                static CELL: super::interpose::Forward = super::interpose::Forward::new();
                let name = match CStr::from_bytes_with_nul(concat!(stringify!($name), "\0").as_bytes()) {
                    Ok(n) => n,
                    Err(_) => unreachable!("an identifier without NUL"),
                };
                region(name, &CELL, |addr| {
                    // SAFETY: as in GOMP_parallel.
                    unsafe {
                        let f = std::mem::transmute::<usize, unsafe extern "C" fn(RegionBody, *mut c_void, c_uint, c_long, c_long, c_long, $($ty,)* c_uint)>(addr);
                        f(body, data, threads, start, end, incr, $($extra,)* flags)
                    }
                })
            }
        )*

        /// The OpenMP entry points smpirun exports, with their addresses
        /// (for `interpose::interposers`).
        pub fn openmp_interposers() -> Vec<(&'static str, usize)> {
            vec![
                ("GOMP_parallel", GOMP_parallel as *const () as usize),
                ("GOMP_parallel_sections", GOMP_parallel_sections as *const () as usize),
                ("GOMP_parallel_reductions", GOMP_parallel_reductions as *const () as usize),
                $((stringify!($name), $name as *const () as usize),)*
            ]
        }
    };
}

parallel_loops!(
    GOMP_parallel_loop_static(chunk: c_long),
    GOMP_parallel_loop_dynamic(chunk: c_long),
    GOMP_parallel_loop_guided(chunk: c_long),
    GOMP_parallel_loop_nonmonotonic_dynamic(chunk: c_long),
    GOMP_parallel_loop_nonmonotonic_guided(chunk: c_long),
    GOMP_parallel_loop_runtime(),
    GOMP_parallel_loop_nonmonotonic_runtime(),
    GOMP_parallel_loop_maybe_nonmonotonic_runtime(),
);

/// The clocks an OpenMP region is measured with, in seconds.
struct RegionClocks {
    wall: f64,
    thread: f64,
    process: f64,
}

impl RegionClocks {
    fn now() -> RegionClocks {
        let read = super::interpose::real_clock;
        RegionClocks {
            wall: read(libc::CLOCK_MONOTONIC),
            thread: read(libc::CLOCK_THREAD_CPUTIME_ID),
            process: read(libc::CLOCK_PROCESS_CPUTIME_ID),
        }
    }
}

/// What a region costs on a host of `cores` cores: all its threads' CPU
/// time (`process`) shared by the cores, but never less than the rank's
/// own thread's (`thread`: one thread runs on one core).
pub fn region_cost(thread: f64, process: f64, cores: f64) -> f64 {
    thread.max(process / cores.max(1.0)).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::region_cost;

    #[test]
    fn a_region_shares_its_cpu_time_among_the_hosts_cores() {
        // 4 threads of 50 ms: 200 ms on 1 core, 50 ms on 4 or more.
        assert_eq!(region_cost(0.05, 0.2, 1.0), 0.2);
        assert_eq!(region_cost(0.05, 0.2, 2.0), 0.1);
        assert_eq!(region_cost(0.05, 0.2, 64.0), 0.05);
        // A serial region: its thread's time.
        assert_eq!(region_cost(0.03, 0.03, 8.0), 0.03);
    }
}
