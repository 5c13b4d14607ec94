//! `getopt`, `getopt_long` and `getopt_long_only`, interposed at the
//! symbol level (smpirun exports them, as `super::interpose`'s): on a rank,
//! glibc's with the calling rank's parse (see `crate::getopt`); anywhere
//! else glibc's own. SimGrid's `smpi_getopt` names and glibc's strict
//! POSIX `getopt` come here too.

use std::ffi::{c_char, c_int};

use super::interpose::libc_own;
use crate::engine::context;
use crate::sim;

extern "C" {
    /// glibc's position of the next argument to read, one per process.
    static mut optind: c_int;
    /// Whether glibc's getopt prints its messages, one per process.
    static mut opterr: c_int;
    /// glibc's getopt without GNU's reordering, which <unistd.h> declares
    /// `getopt` to be (by its assembler name) for programs that ask for
    /// strict POSIX before any other header.
    #[link_name = "__posix_getopt"]
    fn glibc_posix_getopt(argc: c_int, argv: *const *mut c_char, options: *const c_char) -> c_int;
}

/// Runs one call of glibc's `parse` with the calling rank's parse: its
/// `optind`, and glibc's hidden state rebuilt by replaying its calls when
/// another rank parsed since (`parse(true)`: a replayed call, which must
/// not write the program's outputs).
fn with_rank_optind(mut parse: impl FnMut(bool) -> c_int) -> c_int {
    // SAFETY: one thread runs the simulation and its ranks; optind and
    // opterr are read and written by value, never borrowed.
    let current = unsafe { std::ptr::addr_of!(optind).read() };
    let (rank, start) = sim::with(|s| {
        let rank = s.core.current();
        s.mem.swap_getopt_globals(s.core.size(), rank);
        (rank, s.optind.start(rank, current))
    });
    if start.clear {
        // A call that ends at once, from optind 0 (a full restart), on
        // nothing to parse: glibc forgets the other rank's parse.
        let mut nothing: [*mut c_char; 2] = [c"".as_ptr().cast_mut(), std::ptr::null_mut()];
        // SAFETY: as above; an argument vector of one (empty) name.
        unsafe { std::ptr::addr_of_mut!(optind).write(0) };
        libc_own!("getopt": unsafe extern "C" fn(c_int, *const *mut c_char, *const c_char) -> c_int, 1, nothing.as_mut_ptr(), c"".as_ptr());
    }
    if start.replay > 0 {
        // SAFETY: as above.
        let messages = unsafe { std::ptr::addr_of!(opterr).read() };
        // SAFETY: as above; 0 restarts glibc's parse from scratch.
        unsafe {
            std::ptr::addr_of_mut!(opterr).write(0);
            std::ptr::addr_of_mut!(optind).write(0);
        }
        for _ in 0..start.replay {
            parse(true);
        }
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!(opterr).write(messages) };
    }
    // SAFETY: as above. After a faithful replay this changes nothing.
    unsafe { std::ptr::addr_of_mut!(optind).write(start.optind) };
    let result = parse(false);
    // SAFETY: as above.
    let left = unsafe { std::ptr::addr_of!(optind).read() };
    sim::with(|s| s.optind.finish(rank, left));
    result
}

/// `getopt`.
///
/// # Safety
/// The C contract: the program's arguments and option string.
#[no_mangle]
pub unsafe extern "C" fn getopt(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
) -> c_int {
    let call = |_| libc_own!("getopt": unsafe extern "C" fn(c_int, *const *mut c_char, *const c_char) -> c_int, argc, argv, options);
    if context::in_rank() {
        with_rank_optind(call)
    } else {
        call(false)
    }
}

/// glibc's `getopt_long` and `getopt_long_only`, of one C type.
type LongParse = unsafe extern "C" fn(
    c_int,
    *const *mut c_char,
    *const c_char,
    *const libc::option,
    *mut c_int,
) -> c_int;

/// A call of glibc's `parse` (`getopt_long` or `getopt_long_only`) with the
/// calling rank's parse on a rank; a replayed call writes no `index`.
///
/// # Safety
/// As [`getopt_long`].
unsafe fn long_parse(
    parse: LongParse,
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    let call = |replay: bool| {
        let index = if replay { std::ptr::null_mut() } else { index };
        // SAFETY: the caller's arguments, passed on.
        unsafe { parse(argc, argv, options, long_options, index) }
    };
    if context::in_rank() {
        with_rank_optind(call)
    } else {
        call(false)
    }
}

/// glibc's own `name` (`getopt_long` or `getopt_long_only`).
fn glibc_long(name: &std::ffi::CStr, cell: &'static super::interpose::Forward) -> LongParse {
    let addr = super::interpose::next(name, cell);
    // SAFETY: glibc's `name`, whose C type is LongParse.
    unsafe { std::mem::transmute::<usize, LongParse>(addr) }
}

/// `getopt_long`.
///
/// # Safety
/// The C contract: the program's arguments, option string and table;
/// `index` null or writable.
#[no_mangle]
pub unsafe extern "C" fn getopt_long(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    static CELL: super::interpose::Forward = super::interpose::Forward::new();
    let parse = glibc_long(c"getopt_long", &CELL);
    // SAFETY: per the contract.
    unsafe { long_parse(parse, argc, argv, options, long_options, index) }
}

/// `getopt_long_only`.
///
/// # Safety
/// As [`getopt_long`].
#[no_mangle]
pub unsafe extern "C" fn getopt_long_only(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    static CELL: super::interpose::Forward = super::interpose::Forward::new();
    let parse = glibc_long(c"getopt_long_only", &CELL);
    // SAFETY: per the contract.
    unsafe { long_parse(parse, argc, argv, options, long_options, index) }
}

/// SimGrid's `smpi_getopt`.
pub(crate) unsafe extern "C" fn smpi_getopt(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
) -> c_int {
    // SAFETY: the caller's contract, as getopt's.
    unsafe { getopt(argc, argv, options) }
}

/// SimGrid's `smpi_getopt_long`.
pub(crate) unsafe extern "C" fn smpi_getopt_long(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    // SAFETY: the caller's contract, as getopt_long's.
    unsafe { getopt_long(argc, argv, options, long_options, index) }
}

/// SimGrid's `smpi_getopt_long_only`.
pub(crate) unsafe extern "C" fn smpi_getopt_long_only(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    // SAFETY: the caller's contract, as getopt_long_only's.
    unsafe { getopt_long_only(argc, argv, options, long_options, index) }
}

/// What `getopt` is for programs in strict POSIX mode: <unistd.h> gives
/// the declaration the assembler name `__posix_getopt`, which the
/// program's shim provides and sends here.
pub(crate) unsafe extern "C" fn __posix_getopt(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
) -> c_int {
    // SAFETY: the program's arguments, as getopt takes them.
    with_rank_optind(|_| unsafe { glibc_posix_getopt(argc, argv, options) })
}
