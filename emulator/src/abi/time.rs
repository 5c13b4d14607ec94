//! Simulated time: MPI_Wtime, and the libc time functions that smpicc's
//! helper header redirects here; explicit computation (smpi_execute*).

use std::ffi::{c_int, c_uint};

use super::{bench_begin, bench_end};
use crate::context::{self, Suspend};
use crate::engine;

/// Reads the clock, then charges smpi/wtime, as SimGrid does: a loop
/// `while (MPI_Wtime() < t)` must let simulated time advance.
fn read_clock_and_charge() -> f64 {
    bench_end();
    let (now, cost) = engine::with(|w| (w.now, w.model.wtime_cost));
    engine::sleep(cost, "MPI_Wtime");
    bench_begin();
    now
}

pub(crate) unsafe extern "C" fn MPI_Wtime() -> f64 {
    read_clock_and_charge()
}

pub(crate) unsafe extern "C" fn MPI_Wtick() -> f64 {
    engine::with(|w| w.model.precision.timing)
}

fn sleep_seconds(seconds: f64, call: &'static str) {
    bench_end();
    engine::sleep(seconds, call);
    bench_begin();
}

pub(crate) unsafe extern "C" fn smpi_sleep(seconds: c_uint) -> c_uint {
    sleep_seconds(f64::from(seconds), "sleep");
    0
}

pub(crate) unsafe extern "C" fn smpi_usleep(useconds: c_uint) -> c_int {
    sleep_seconds(f64::from(useconds) * 1e-6, "usleep");
    0
}

pub(crate) unsafe extern "C" fn smpi_nanosleep(
    req: *const libc::timespec,
    rem: *mut libc::timespec,
) -> c_int {
    if req.is_null() {
        // SAFETY: errno is thread-local and always writable.
        unsafe { *libc::__errno_location() = libc::EFAULT };
        return -1;
    }
    // SAFETY: non-null request from the caller.
    let r = unsafe { *req };
    if r.tv_nsec < 0 || r.tv_nsec >= 1_000_000_000 || r.tv_sec < 0 {
        // SAFETY: as above.
        unsafe { *libc::__errno_location() = libc::EINVAL };
        return -1;
    }
    sleep_seconds(r.tv_sec as f64 + r.tv_nsec as f64 * 1e-9, "nanosleep");
    if !rem.is_null() {
        // SAFETY: non-null output from the caller.
        unsafe {
            *rem = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            }
        };
    }
    0
}

pub(crate) unsafe extern "C" fn smpi_gettimeofday(
    tv: *mut libc::timeval,
    _tz: *mut libc::c_void,
) -> c_int {
    let now = read_clock_and_charge();
    if !tv.is_null() {
        let secs = now.floor();
        // SAFETY: non-null output from the caller.
        unsafe {
            *tv = libc::timeval {
                tv_sec: secs as libc::time_t,
                tv_usec: ((now - secs) * 1e6) as libc::suseconds_t,
            }
        };
    }
    0
}

pub(crate) unsafe extern "C" fn smpi_clock_gettime(
    _clock: c_int,
    tp: *mut libc::timespec,
) -> c_int {
    let now = read_clock_and_charge();
    if tp.is_null() {
        // SAFETY: errno is thread-local and always writable.
        unsafe { *libc::__errno_location() = libc::EFAULT };
        return -1;
    }
    let secs = now.floor();
    // SAFETY: non-null output from the caller.
    unsafe {
        *tp = libc::timespec {
            tv_sec: secs as libc::time_t,
            tv_nsec: ((now - secs) * 1e9) as libc::c_long,
        }
    };
    0
}

/// `exit` in a rank ends that rank (its main never returns), not the
/// simulation.
pub(crate) unsafe extern "C" fn smpi_exit(status: c_int) -> ! {
    bench_end();
    loop {
        context::suspend(Suspend::Exit(status));
    }
}

pub(crate) unsafe extern "C" fn smpi_execute_flops(flops: f64) {
    bench_end();
    engine::execute(flops, "smpi_execute_flops");
    bench_begin();
}

pub(crate) unsafe extern "C" fn smpi_execute(seconds: f64) {
    bench_end();
    let flops = seconds * engine::with(|w| w.compute.host_speed);
    engine::execute(flops, "smpi_execute");
    bench_begin();
}

/// `SMPI_SHARED_MALLOC(size)`: memory whose content the simulation may
/// fold (see `privatize::fold`); a failure stops the simulation with the
/// reason and the fix.
pub(crate) unsafe extern "C" fn smpi_shared_malloc(
    size: usize,
    file: *const std::ffi::c_char,
    line: std::ffi::c_int,
) -> *mut std::ffi::c_void {
    let file = if file.is_null() {
        String::from("?")
    } else {
        // SAFETY: the macro passes __FILE__, a NUL-terminated literal.
        unsafe { std::ffi::CStr::from_ptr(file) }
            .to_string_lossy()
            .into_owned()
    };
    let line = u32::try_from(line).unwrap_or(0);
    match engine::with(|w| w.folding.allocate(size, &file, line)) {
        Ok(p) => p.cast(),
        Err(e) => fatal(&format!("SMPI_SHARED_MALLOC({size}) at {file}:{line}: {e}")),
    }
}

/// `SMPI_PARTIAL_SHARED_MALLOC(size, offsets, n)`: `offsets` holds n
/// (start, end) byte pairs, the parts to fold; the rest is private.
pub(crate) unsafe extern "C" fn smpi_shared_malloc_partial(
    size: usize,
    offsets: *const usize,
    n: std::ffi::c_int,
) -> *mut std::ffi::c_void {
    let n = usize::try_from(n).unwrap_or(0);
    let pairs: Vec<(usize, usize)> = if offsets.is_null() || n == 0 {
        Vec::new()
    } else {
        // SAFETY: SimGrid's contract: offsets holds 2 n entries.
        let flat = unsafe { std::slice::from_raw_parts(offsets, 2 * n) };
        flat.chunks_exact(2).map(|p| (p[0], p[1])).collect()
    };
    if let Some(&(start, end)) = pairs.iter().find(|&&(s, e)| s > e || e > size) {
        fatal(&format!(
            "SMPI_PARTIAL_SHARED_MALLOC({size}): the shared range {start}..{end} is not inside \
             the allocation"
        ));
    }
    match engine::with(|w| w.folding.allocate_partial(size, &pairs)) {
        Ok(p) => p.cast(),
        Err(e) => fatal(&format!("SMPI_PARTIAL_SHARED_MALLOC({size}): {e}")),
    }
}

/// `SMPI_SHARED_FREE(ptr)`.
pub(crate) unsafe extern "C" fn smpi_shared_free(ptr: *mut std::ffi::c_void) {
    if ptr.is_null() {
        return;
    }
    if let Err(e) = engine::with(|w| w.folding.free(ptr.cast())) {
        fatal(&format!("SMPI_SHARED_FREE: {e}"));
    }
}

/// Stops the simulation for a failure of the current rank's call.
pub(super) fn fatal(message: &str) -> ! {
    crate::flush_c_stdio();
    let rank = engine::with(|w| w.current);
    eprintln!("smpirun: rank {rank}: {message}");
    super::abort_simulation(1)
}

pub(crate) unsafe extern "C" fn smpi_execute_flops_benched(flops: f64) {
    // SAFETY: same contract as smpi_execute_flops.
    unsafe { smpi_execute_flops(flops) }
}

pub(crate) unsafe extern "C" fn smpi_execute_benched(seconds: f64) {
    // SAFETY: same contract as smpi_execute.
    unsafe { smpi_execute(seconds) }
}
