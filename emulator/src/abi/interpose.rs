//! libc's time functions interposed at the symbol level: `smpirun`
//! defines and exports `gettimeofday`, `clock_gettime`, `time`, `sleep`,
//! `usleep` and `nanosleep`, so that every object of a rank's program,
//! the libraries it links that smpicc did not build included, binds to
//! them (the main executable comes first in the dynamic linker's search).
//! Called from a rank (or an actor), they read and spend simulated time,
//! as smpicc's helper header makes the program's own calls do; called
//! from anywhere else (smpirun itself, the program's constructors at
//! load), they are libc's.
//!
//! Limits: a library the program opens itself with `dlopen(...,
//! RTLD_DEEPBIND)`, code calling the system calls directly or reading the
//! vDSO, and statically linked programs (not loadable anyway) see the real
//! clock.

use std::ffi::{c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

use super::time;
use crate::engine::context;

/// The definition of `name` after ours in the search order: libc's.
fn next(name: &CStr, cell: &OnceLock<usize>) -> usize {
    *cell.get_or_init(|| {
        privatize::next_definition(name).unwrap_or_else(|| {
            // No libc definition means no way to answer: stop rather than
            // unwind across the C caller.
            eprintln!("smpirun: internal error: libc has no {name:?}; please report it");
            std::process::abort();
        })
    })
}

/// Calls libc's own `$name` of C type `$ty` with `$args`.
macro_rules! libc_own {
    ($name:literal: $ty:ty, $($args:expr),*) => {{
        static CELL: OnceLock<usize> = OnceLock::new();
        let addr = next(
            match CStr::from_bytes_with_nul(concat!($name, "\0").as_bytes()) {
                Ok(name) => name,
                Err(_) => unreachable!("a literal without NUL inside"),
            },
            &CELL,
        );
        // SAFETY: `addr` is libc's `$name`, whose C type is `$ty`.
        let f = unsafe { std::mem::transmute::<usize, $ty>(addr) };
        // SAFETY: the caller's arguments, passed on unchanged.
        unsafe { f($($args),*) }
    }};
}

/// libc's `clock_gettime`, for smpirun's own clock readings (the bench
/// clock reads the rank's CPU time while the rank runs).
pub(crate) fn real_clock_gettime(clock: libc::clockid_t, tp: &mut libc::timespec) -> c_int {
    libc_own!("clock_gettime": unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int, clock, tp)
}

/// `gettimeofday`: the simulated time in a rank.
///
/// # Safety
/// The C contract: `tv` null or writable.
#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut libc::timeval, tz: *mut c_void) -> c_int {
    if context::in_rank() {
        // SAFETY: the caller's contract.
        return unsafe { time::smpi_gettimeofday(tv, tz) };
    }
    libc_own!("gettimeofday": unsafe extern "C" fn(*mut libc::timeval, *mut c_void) -> c_int, tv, tz)
}

/// `clock_gettime`: the simulated time in a rank, whatever the clock.
///
/// # Safety
/// The C contract: `tp` writable (null is EFAULT).
#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clock: libc::clockid_t, tp: *mut libc::timespec) -> c_int {
    if context::in_rank() {
        // SAFETY: the caller's contract.
        return unsafe { time::smpi_clock_gettime(clock, tp) };
    }
    libc_own!("clock_gettime": unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int, clock, tp)
}

/// `time`: the simulated seconds in a rank.
///
/// # Safety
/// The C contract: `t` null or writable.
#[no_mangle]
pub unsafe extern "C" fn time(t: *mut libc::time_t) -> libc::time_t {
    if context::in_rank() {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a timespec of ours.
        unsafe { time::smpi_clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
        if !t.is_null() {
            // SAFETY: non-null output from the caller.
            unsafe { *t = ts.tv_sec };
        }
        return ts.tv_sec;
    }
    libc_own!("time": unsafe extern "C" fn(*mut libc::time_t) -> libc::time_t, t)
}

/// `sleep`: simulated in a rank.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn sleep(seconds: c_uint) -> c_uint {
    if context::in_rank() {
        // SAFETY: no pointer involved.
        return unsafe { time::smpi_sleep(seconds) };
    }
    libc_own!("sleep": unsafe extern "C" fn(c_uint) -> c_uint, seconds)
}

/// `usleep`: simulated in a rank.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn usleep(useconds: c_uint) -> c_int {
    if context::in_rank() {
        // SAFETY: no pointer involved.
        return unsafe { time::smpi_usleep(useconds) };
    }
    libc_own!("usleep": unsafe extern "C" fn(c_uint) -> c_int, useconds)
}

/// `nanosleep`: simulated in a rank.
///
/// # Safety
/// The C contract: `req` readable, `rem` null or writable.
#[no_mangle]
pub unsafe extern "C" fn nanosleep(req: *const libc::timespec, rem: *mut libc::timespec) -> c_int {
    if context::in_rank() {
        // SAFETY: the caller's contract.
        return unsafe { time::smpi_nanosleep(req, rem) };
    }
    libc_own!("nanosleep": unsafe extern "C" fn(*const libc::timespec, *mut libc::timespec) -> c_int, req, rem)
}

/// The interposers' addresses, for smpirun's `main` to keep them in the
/// link (the linker takes from the library only what something refers
/// to), with their names, which smpirun's build exports (build.rs).
pub fn interposers() -> [(&'static str, usize); 6] {
    [
        ("gettimeofday", gettimeofday as *const () as usize),
        ("clock_gettime", clock_gettime as *const () as usize),
        ("time", time as *const () as usize),
        ("sleep", sleep as *const () as usize),
        ("usleep", usleep as *const () as usize),
        ("nanosleep", nanosleep as *const () as usize),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn smpirun_exports_every_interposer() {
        let build = include_str!("../../build.rs");
        for (name, _) in super::interposers() {
            assert!(
                build.contains(&format!("\"{name}\",")),
                "{name} not exported"
            );
        }
    }
}
