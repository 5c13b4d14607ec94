//! Simulated time: MPI_Wtime, and the libc time functions that smpicc's
//! helper header redirects here; explicit computation (smpi_execute*).

use std::ffi::{c_int, c_uint};

use super::{bench_begin, bench_end};
use crate::engine::context::{self, Suspend};
use crate::sim;

/// Reads the clock, then charges smpi/wtime, as SimGrid does: a loop
/// `while (MPI_Wtime() < t)` must let simulated time advance.
pub(crate) fn read_clock_and_charge() -> f64 {
    bench_end();
    let (now, cost) = sim::with(|s| (s.core.now(), s.mpi.protocol.wtime_cost));
    sim::sleep(cost, "MPI_Wtime");
    bench_begin();
    now
}

pub(crate) unsafe extern "C" fn MPI_Wtime() -> f64 {
    super::traced("MPI_Wtime", read_clock_and_charge)
}

/// The simulated clock's resolution: `precision/timing`, under which two
/// dates are one (1e-9 s by default). SimGrid returns its max-min
/// precision (1e-5), which bounds rates, not dates.
pub(crate) unsafe extern "C" fn MPI_Wtick() -> f64 {
    super::traced("MPI_Wtick", || {
        sim::with(|s| s.core.model().precision.timing)
    })
}

pub(crate) fn sleep_seconds(seconds: f64, call: &'static str) {
    bench_end();
    // Traced even when it takes no time, as SimGrid's sleeps are.
    let traced = |at_end: bool| {
        sim::with(|s| {
            if !s.tracers.is_empty() {
                let (now, rank) = (s.core.now(), s.core.actor(s.core.current()).rank());
                if at_end {
                    s.tracers.sleep_end(now, rank);
                } else {
                    s.tracers.sleep_start(now, rank, seconds);
                }
            }
        });
    };
    traced(false);
    sim::sleep(seconds, call);
    traced(true);
    bench_begin();
}

/// Yields the running rank or thread (`sim::yield_now`) between two
/// bursts.
pub(crate) fn yield_to_others(call: &'static str) {
    bench_end();
    sim::yield_now(call);
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
/// simulation; in a thread the rank started, the rank too; in an actor a
/// rank created, that actor (as SimGrid's `smpi_exit` ends the calling
/// actor).
pub(crate) unsafe extern "C" fn smpi_exit(status: c_int) -> ! {
    bench_end();
    if sim::fast(|f| f.threads_started()) {
        // A simulated thread's exit ends its whole rank, as in a process.
        sim::with(|s| s.threads.exit_rank(s.core.current_actor()));
    }
    loop {
        context::suspend(Suspend::Exit(status));
    }
}

/// `smpi_execute*` spend their time with the rank's burst, at its next MPI
/// call or clock reading (`add_pending_flops`): a program's (or a function
/// model's) many short calls cost no switch each.
pub(crate) unsafe extern "C" fn smpi_execute_flops(flops: f64) {
    if super::calls_watched() {
        super::spend_pending_flops();
        super::compute(flops, "computation");
    } else {
        super::add_pending_flops(flops);
    }
}

pub(crate) unsafe extern "C" fn smpi_execute(seconds: f64) {
    let flops = seconds * sim::with(|s| s.bench.host_speed);
    // SAFETY: no pointer involved.
    unsafe { smpi_execute_flops(flops) }
}

/// Stops the simulation for a failure of the current rank's call.
pub(super) fn fatal(message: &str) -> ! {
    crate::flush_c_stdio();
    let rank = sim::mpi(|w| w.core.current());
    eprintln!("smpirun: rank {rank}: {message}");
    super::abort_simulation(1)
}

/// SimGrid's `smpi_execute_flops_benched`: the burst before it ends, then
/// `flops` are computed at once (a date read after it is later), then a
/// new burst begins.
pub(crate) unsafe extern "C" fn smpi_execute_flops_benched(flops: f64) {
    super::bench_end();
    super::compute(flops, "computation");
    super::bench_begin();
}

/// SimGrid's `smpi_execute_benched`: `seconds` of the simulated host's
/// time (where `smpi_execute` counts seconds of this machine's).
pub(crate) unsafe extern "C" fn smpi_execute_benched(seconds: f64) {
    let speed = sim::with(|s| s.core.speed_of(s.core.current()));
    // SAFETY: no pointer involved.
    unsafe { smpi_execute_flops_benched(seconds * speed) }
}
