//! libc functions interposed at the symbol level: `smpirun` defines and
//! exports them (`emulator/build.rs`), so that every object of a rank's
//! program, the libraries it links that smpicc did not build included,
//! binds to them (the main executable comes first in the dynamic linker's
//! search). Called from a rank (or an actor), they act for that rank;
//! called from anywhere else (smpirun itself, the program's constructors
//! at load), they are libc's own.
//!
//! * Time: `gettimeofday`, `clock_gettime`, `time`, `clock`, `sleep`,
//!   `usleep`, `nanosleep` and `clock_nanosleep` read and spend simulated
//!   time.
//! * Hidden state (`crate::libc_state`): `rand`, `srand`, `random`,
//!   `srandom`, the `drand48` family (`seed48` and `lcong48` included;
//!   `erand48`, `nrand48`, `jrand48` with the rank's parameters) and
//!   `strtok` run on the calling rank's own copy, as in a process of its
//!   own; so do the result buffers of `localtime`, `gmtime`, `asctime` and
//!   `ctime`, and errno across a switch between ranks.
//! * Memory: `malloc`, `calloc`, `realloc` and `free` (C in
//!   csrc/alloc_interpose.c, for the caller's return address; decided in
//!   `super::memory`) fold and follow the program's allocations
//!   (`smpi/auto-shared-malloc-thresh`, `smpi/display-allocs`), not the C
//!   library's own; everywhere else they are libc's allocator.
//!
//! Limits: a library the program opens itself with `dlopen(...,
//! RTLD_DEEPBIND)`, code calling the system calls directly or reading the
//! vDSO, threads a rank starts (not on a rank's stack), and statically
//! linked programs (not loadable anyway) get libc's behaviour;
//! `initstate` and `setstate` are libc's, on its one state (and then
//! `random` is not theirs), as are `strerror`'s buffer (glibc fills it
//! only for unknown error numbers), `setlocale` and the `getpwent`-style
//! iterators.

use std::ffi::{c_char, c_double, c_int, c_long, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::time;
use crate::engine::context;
use crate::libc_state::{self, RankLibc};
use crate::sim;

/// Where an interposer forwards to, found on first use. Not a `OnceLock`:
/// a thread that finds it empty looks it up itself rather than waiting
/// for another. The lookup (`dlsym`) takes the dynamic linker's lock, and
/// a library's constructor run by `dlopen`, which holds that lock, may
/// call an interposer (libgfortran's calls `pthread_key_create`) while a
/// thread being born calls the same one: waiting on each other, they
/// deadlocked.
pub(crate) struct Forward(AtomicUsize);

impl Forward {
    pub(crate) const fn new() -> Self {
        Self(AtomicUsize::new(0))
    }
}

/// The definition of `name` after ours in the search order: libc's.
pub(crate) fn next(name: &CStr, cell: &Forward) -> usize {
    forwarded(name, "libc", cell, || privatize::next_definition(name))
}

/// The address of `name` in `library` that an interposer forwards to,
/// found by `find` into `cell` on first use. None found means no way to
/// answer: stop rather than unwind across the C caller.
pub(crate) fn forwarded(
    name: &CStr,
    library: &str,
    cell: &Forward,
    find: impl FnOnce() -> Option<usize>,
) -> usize {
    match cell.0.load(Ordering::Acquire) {
        0 => {
            let addr = find().unwrap_or_else(|| {
                eprintln!("smpirun: internal error: {library} has no {name:?}; please report it");
                std::process::abort();
            });
            cell.0.store(addr, Ordering::Release);
            addr
        }
        addr => addr,
    }
}

/// Calls libc's own `$name` of C type `$ty` with `$args`.
macro_rules! libc_own {
    ($name:literal: $ty:ty, $($args:expr),*) => {{
        static CELL: $crate::abi::interpose::Forward = $crate::abi::interpose::Forward::new();
        let addr = $crate::abi::interpose::next(
            match std::ffi::CStr::from_bytes_with_nul(concat!($name, "\0").as_bytes()) {
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

pub(crate) use libc_own;

/// `clock` read by libc's `clock_gettime`, in seconds, for smpirun's own
/// readings (the bench clock reads the rank's CPU time while the rank
/// runs, where the interposed one would answer simulated time).
pub(crate) fn real_clock(clock: libc::clockid_t) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let tp: *mut libc::timespec = &mut ts;
    libc_own!("clock_gettime": unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int, clock, tp);
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
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

/// `clock_nanosleep`: simulated in a rank, until a date of the simulated
/// clock with `TIMER_ABSTIME`, for a duration otherwise.
///
/// # Safety
/// The C contract: `req` readable, `rem` null or writable.
#[no_mangle]
pub unsafe extern "C" fn clock_nanosleep(
    clock: libc::clockid_t,
    flags: c_int,
    req: *const libc::timespec,
    rem: *mut libc::timespec,
) -> c_int {
    if !context::in_rank() {
        return libc_own!("clock_nanosleep": unsafe extern "C" fn(libc::clockid_t, c_int, *const libc::timespec, *mut libc::timespec) -> c_int, clock, flags, req, rem);
    }
    if req.is_null() {
        return libc::EFAULT;
    }
    // SAFETY: non-null request from the caller.
    let r = unsafe { *req };
    if r.tv_nsec < 0 || r.tv_nsec >= 1_000_000_000 || r.tv_sec < 0 {
        return libc::EINVAL;
    }
    let asked = r.tv_sec as f64 + r.tv_nsec as f64 * 1e-9;
    let seconds = if flags & libc::TIMER_ABSTIME != 0 {
        (asked - sim::with(|s| s.core.now())).max(0.0)
    } else {
        asked
    };
    time::sleep_seconds(seconds, "clock_nanosleep");
    if !rem.is_null() && flags & libc::TIMER_ABSTIME == 0 {
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

/// `clock`: in a rank, the simulated time so far, in `CLOCKS_PER_SEC`
/// (a million) per second (what the process's CPU time is in a
/// simulation: the rank's share is not told apart).
#[no_mangle]
pub extern "C" fn clock() -> libc::clock_t {
    if context::in_rank() {
        return (time::read_clock_and_charge() * 1e6) as libc::clock_t;
    }
    libc_own!("clock": unsafe extern "C" fn() -> libc::clock_t,)
}

/// `times`: in a rank, the simulated time so far as the process's user
/// time and as the elapsed time, in clock ticks (as [`clock`]).
///
/// # Safety
/// The C contract: `buf` null or writable.
#[no_mangle]
pub unsafe extern "C" fn times(buf: *mut libc::tms) -> libc::clock_t {
    if !context::in_rank() {
        return libc_own!("times": unsafe extern "C" fn(*mut libc::tms) -> libc::clock_t, buf);
    }
    // SAFETY: sysconf reads a constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    let ticks = (time::read_clock_and_charge() * per_second) as libc::clock_t;
    if !buf.is_null() {
        // SAFETY: non-null output from the caller.
        unsafe {
            *buf = libc::tms {
                tms_utime: ticks,
                tms_stime: 0,
                tms_cutime: 0,
                tms_cstime: 0,
            }
        };
    }
    ticks
}

/// `getrusage`: in a rank, the simulated time so far as the user time of
/// the process (or thread), no system time; the other fields are the real
/// process's.
///
/// # Safety
/// The C contract: `usage` writable.
#[no_mangle]
pub unsafe extern "C" fn getrusage(who: c_int, usage: *mut libc::rusage) -> c_int {
    let r =
        libc_own!("getrusage": unsafe extern "C" fn(c_int, *mut libc::rusage) -> c_int, who, usage);
    if r != 0 || usage.is_null() || !context::in_rank() || who == libc::RUSAGE_CHILDREN {
        return r;
    }
    let now = time::read_clock_and_charge();
    // SAFETY: non-null output from the caller, filled by libc.
    unsafe {
        (*usage).ru_utime = libc::timeval {
            tv_sec: now.trunc() as libc::time_t,
            tv_usec: (now.fract() * 1e6) as libc::suseconds_t,
        };
        (*usage).ru_stime = libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        };
    }
    0
}

/// `sched_yield`: in a rank, lets the other ranks and threads ready run
/// first (at the same simulated date) or, with none, time pass until the
/// next event, so that a rank polling with it does not stop the others.
#[no_mangle]
pub extern "C" fn sched_yield() -> c_int {
    if context::in_rank() {
        time::yield_to_others("sched_yield");
        return 0;
    }
    libc_own!("sched_yield": unsafe extern "C" fn() -> c_int,)
}

/// `localtime`: the calling rank's own result buffer.
///
/// # Safety
/// The C contract: `t` readable.
#[no_mangle]
pub unsafe extern "C" fn localtime(t: *const libc::time_t) -> *mut libc::tm {
    if !context::in_rank() {
        return libc_own!("localtime": unsafe extern "C" fn(*const libc::time_t) -> *mut libc::tm, t);
    }
    let tm = with_state(|l| l.time_buffers().tm_ptr());
    // SAFETY: the rank's buffer, which outlives the call and the result.
    unsafe { libc::localtime_r(t, tm) }
}

/// `gmtime`: the calling rank's own result buffer.
///
/// # Safety
/// The C contract: `t` readable.
#[no_mangle]
pub unsafe extern "C" fn gmtime(t: *const libc::time_t) -> *mut libc::tm {
    if !context::in_rank() {
        return libc_own!("gmtime": unsafe extern "C" fn(*const libc::time_t) -> *mut libc::tm, t);
    }
    let tm = with_state(|l| l.time_buffers().tm_ptr());
    // SAFETY: as in localtime.
    unsafe { libc::gmtime_r(t, tm) }
}

/// `asctime`: the calling rank's own result buffer.
///
/// # Safety
/// The C contract: `tm` readable.
#[no_mangle]
pub unsafe extern "C" fn asctime(tm: *const libc::tm) -> *mut c_char {
    if !context::in_rank() {
        return libc_own!("asctime": unsafe extern "C" fn(*const libc::tm) -> *mut c_char, tm);
    }
    let text = with_state(|l| l.time_buffers().text_ptr());
    // SAFETY: the rank's buffer of the 26 bytes asctime_r needs.
    unsafe { libc::asctime_r(tm, text) }
}

/// `ctime`: the calling rank's own result buffer.
///
/// # Safety
/// The C contract: `t` readable.
#[no_mangle]
pub unsafe extern "C" fn ctime(t: *const libc::time_t) -> *mut c_char {
    if !context::in_rank() {
        return libc_own!("ctime": unsafe extern "C" fn(*const libc::time_t) -> *mut c_char, t);
    }
    let text = with_state(|l| l.time_buffers().text_ptr());
    // SAFETY: as in asctime.
    unsafe { libc::ctime_r(t, text) }
}

/// Runs `f` on the calling rank's libc state.
fn with_state<R>(f: impl FnOnce(&mut RankLibc) -> R) -> R {
    sim::with(|s| {
        let actor = s.core.current_actor();
        f(s.libc.of(actor))
    })
}

/// `rand`: the calling rank's generator.
#[no_mangle]
pub extern "C" fn rand() -> c_int {
    if context::in_rank() {
        return with_state(|l| l.random.get_or_insert_with(Default::default).draw());
    }
    libc_own!("rand": unsafe extern "C" fn() -> c_int,)
}

/// `random`: the same generator as `rand`'s, as in glibc.
#[no_mangle]
pub extern "C" fn random() -> c_long {
    if context::in_rank() {
        return c_long::from(rand());
    }
    libc_own!("random": unsafe extern "C" fn() -> c_long,)
}

/// `srand`: seeds the calling rank's generator.
#[no_mangle]
pub extern "C" fn srand(seed: c_uint) {
    if context::in_rank() {
        return with_state(|l| l.random = Some(crate::libc_state::Random::seeded(seed)));
    }
    libc_own!("srand": unsafe extern "C" fn(c_uint), seed)
}

/// `srandom`: as `srand`, as in glibc.
#[no_mangle]
pub extern "C" fn srandom(seed: c_uint) {
    if context::in_rank() {
        return srand(seed);
    }
    libc_own!("srandom": unsafe extern "C" fn(c_uint), seed)
}

/// `drand48`: the calling rank's 48-bit generator.
#[no_mangle]
pub extern "C" fn drand48() -> c_double {
    if context::in_rank() {
        return with_state(|l| l.drand48.next_f64());
    }
    libc_own!("drand48": unsafe extern "C" fn() -> c_double,)
}

/// `lrand48`: the calling rank's 48-bit generator, in [0, 2^31).
#[no_mangle]
pub extern "C" fn lrand48() -> c_long {
    if context::in_rank() {
        return with_state(|l| l.drand48.next_nonnegative() as c_long);
    }
    libc_own!("lrand48": unsafe extern "C" fn() -> c_long,)
}

/// `mrand48`: the calling rank's 48-bit generator, in [-2^31, 2^31).
#[no_mangle]
pub extern "C" fn mrand48() -> c_long {
    if context::in_rank() {
        return with_state(|l| l.drand48.next_signed() as c_long);
    }
    libc_own!("mrand48": unsafe extern "C" fn() -> c_long,)
}

/// `srand48`: seeds the calling rank's 48-bit generator.
#[no_mangle]
pub extern "C" fn srand48(seed: c_long) {
    if context::in_rank() {
        let g = crate::libc_state::Drand48::seeded(seed);
        return with_state(|l| l.drand48 = g);
    }
    libc_own!("srand48": unsafe extern "C" fn(c_long), seed)
}

/// `seed48`: seeds the calling rank's 48-bit generator; returns its
/// previous state, in a buffer of the rank's.
///
/// # Safety
/// The C contract: `seed` holds three words.
#[no_mangle]
pub unsafe extern "C" fn seed48(seed: *mut u16) -> *mut u16 {
    if !context::in_rank() {
        return libc_own!("seed48": unsafe extern "C" fn(*mut u16) -> *mut u16, seed);
    }
    // SAFETY: per the contract.
    let words = unsafe { [*seed, *seed.add(1), *seed.add(2)] };
    with_state(|l| {
        let old = l.drand48.seed48(words);
        let buffer = l.seed48_old.get_or_insert_with(Default::default);
        **buffer = old;
        buffer.as_mut_ptr()
    })
}

/// `lcong48`: sets the calling rank's 48-bit generator and its
/// parameters.
///
/// # Safety
/// The C contract: `param` holds seven words.
#[no_mangle]
pub unsafe extern "C" fn lcong48(param: *mut u16) {
    if !context::in_rank() {
        return libc_own!("lcong48": unsafe extern "C" fn(*mut u16), param);
    }
    let mut words = [0u16; 7];
    for (i, w) in words.iter_mut().enumerate() {
        // SAFETY: per the contract.
        *w = unsafe { *param.add(i) };
    }
    with_state(|l| l.drand48.lcong48(words));
}

/// One step of the state in the caller's `xsubi` with the calling rank's
/// parameters (`lcong48`'s, or the standard ones).
///
/// # Safety
/// `xsubi` holds three writable words.
unsafe fn step_caller_state(xsubi: *mut u16) -> u64 {
    // SAFETY: per the contract.
    let x = libc_state::words_to_u48(unsafe { [*xsubi, *xsubi.add(1), *xsubi.add(2)] });
    let next = with_state(|l| l.drand48.step_from(x));
    for (i, w) in libc_state::u48_to_words(next).into_iter().enumerate() {
        // SAFETY: per the contract.
        unsafe { *xsubi.add(i) = w };
    }
    next
}

/// `erand48`: the caller's state, the calling rank's parameters.
///
/// # Safety
/// The C contract: `xsubi` holds three words.
#[no_mangle]
pub unsafe extern "C" fn erand48(xsubi: *mut u16) -> c_double {
    if !context::in_rank() {
        return libc_own!("erand48": unsafe extern "C" fn(*mut u16) -> c_double, xsubi);
    }
    // SAFETY: per the contract.
    libc_state::as_f64(unsafe { step_caller_state(xsubi) })
}

/// `nrand48`: as [`erand48`], in [0, 2^31).
///
/// # Safety
/// As [`erand48`].
#[no_mangle]
pub unsafe extern "C" fn nrand48(xsubi: *mut u16) -> c_long {
    if !context::in_rank() {
        return libc_own!("nrand48": unsafe extern "C" fn(*mut u16) -> c_long, xsubi);
    }
    // SAFETY: per the contract.
    libc_state::as_nonnegative(unsafe { step_caller_state(xsubi) }) as c_long
}

/// `jrand48`: as [`erand48`], in [-2^31, 2^31).
///
/// # Safety
/// As [`erand48`].
#[no_mangle]
pub unsafe extern "C" fn jrand48(xsubi: *mut u16) -> c_long {
    if !context::in_rank() {
        return libc_own!("jrand48": unsafe extern "C" fn(*mut u16) -> c_long, xsubi);
    }
    // SAFETY: per the contract.
    libc_state::as_signed(unsafe { step_caller_state(xsubi) }) as c_long
}

/// `strtok`: glibc's, with the calling rank's position.
///
/// # Safety
/// The C contract: `s` null or a writable C string, `delim` a C string.
#[no_mangle]
pub unsafe extern "C" fn strtok(s: *mut c_char, delim: *const c_char) -> *mut c_char {
    if !context::in_rank() {
        libc_own!("strtok": unsafe extern "C" fn(*mut c_char, *const c_char) -> *mut c_char, s, delim)
    } else {
        let saved = with_state(|l| l.strtok) as *mut c_char;
        let mut next = saved;
        // SAFETY: the caller's contract; `saved` points into the string an
        // earlier call of this rank's was given, as glibc's does.
        let token = unsafe { strtok_from(if s.is_null() { saved } else { s }, delim, &mut next) };
        with_state(|l| l.strtok = next as usize);
        token
    }
}

/// glibc's `strtok_r` on `s` (null: none left), leaving the position in
/// `next`.
///
/// # Safety
/// `s` null or a writable C string, `delim` a C string.
unsafe fn strtok_from(s: *mut c_char, delim: *const c_char, next: &mut *mut c_char) -> *mut c_char {
    if s.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: C strings, per the contract; every pointer stays within `s`
    // up to its NUL.
    unsafe {
        let start = s.add(libc::strspn(s, delim));
        if *start == 0 {
            *next = start;
            return std::ptr::null_mut();
        }
        let end = start.add(libc::strcspn(start, delim));
        if *end == 0 {
            *next = end;
        } else {
            *end = 0;
            *next = end.add(1);
        }
        start
    }
}

/// The interposers' addresses, for smpirun's `main` to keep them in the
/// link (the linker takes from the library only what something refers
/// to), with their names, which smpirun's build exports (build.rs).
pub fn interposers() -> Vec<(&'static str, usize)> {
    extern "C" {
        // csrc/alloc_interpose.c.
        fn malloc(size: usize) -> *mut c_void;
        fn calloc(n: usize, size: usize) -> *mut c_void;
        fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        fn free(ptr: *mut c_void);
    }
    let mut all = vec![
        ("malloc", malloc as *const () as usize),
        ("calloc", calloc as *const () as usize),
        ("realloc", realloc as *const () as usize),
        ("free", free as *const () as usize),
        ("clock_nanosleep", clock_nanosleep as *const () as usize),
        ("clock", clock as *const () as usize),
        ("gettimeofday", gettimeofday as *const () as usize),
        ("clock_gettime", clock_gettime as *const () as usize),
        ("time", time as *const () as usize),
        ("sleep", sleep as *const () as usize),
        ("usleep", usleep as *const () as usize),
        ("nanosleep", nanosleep as *const () as usize),
        ("rand", rand as *const () as usize),
        ("random", random as *const () as usize),
        ("srand", srand as *const () as usize),
        ("srandom", srandom as *const () as usize),
        ("drand48", drand48 as *const () as usize),
        ("lrand48", lrand48 as *const () as usize),
        ("mrand48", mrand48 as *const () as usize),
        ("srand48", srand48 as *const () as usize),
        ("strtok", strtok as *const () as usize),
        ("times", times as *const () as usize),
        ("getrusage", getrusage as *const () as usize),
        ("sched_yield", sched_yield as *const () as usize),
        ("localtime", localtime as *const () as usize),
        ("gmtime", gmtime as *const () as usize),
        ("asctime", asctime as *const () as usize),
        ("ctime", ctime as *const () as usize),
        ("seed48", seed48 as *const () as usize),
        ("lcong48", lcong48 as *const () as usize),
        ("erand48", erand48 as *const () as usize),
        ("nrand48", nrand48 as *const () as usize),
        ("jrand48", jrand48 as *const () as usize),
        (
            "GOMP_parallel",
            super::threads::GOMP_parallel as *const () as usize,
        ),
        ("getopt", super::getopt::getopt as *const () as usize),
        (
            "getopt_long",
            super::getopt::getopt_long as *const () as usize,
        ),
        (
            "getopt_long_only",
            super::getopt::getopt_long_only as *const () as usize,
        ),
    ];
    all.extend(super::threads::openmp_interposers());
    all.extend(super::pthread::interposers());
    all
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
