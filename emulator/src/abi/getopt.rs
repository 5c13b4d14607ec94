//! `getopt`, `getopt_long` and `getopt_long_only`, which smpicc's helper
//! header sends here: glibc's, with the calling rank's position in
//! `optind` (see `crate::getopt`); and glibc's strict POSIX `getopt`.

use std::ffi::{c_char, c_int};

use crate::sim;

extern "C" {
    /// glibc's position of the next argument to read, one per process.
    static mut optind: c_int;
    /// glibc's getopt without GNU's reordering, which <unistd.h> declares
    /// `getopt` to be (by its assembler name) for programs that ask for
    /// strict POSIX before any other header.
    #[link_name = "__posix_getopt"]
    fn glibc_posix_getopt(argc: c_int, argv: *const *mut c_char, options: *const c_char) -> c_int;
    /// glibc's (the libc crate declares no binding for it).
    fn getopt_long_only(
        argc: c_int,
        argv: *const *mut c_char,
        options: *const c_char,
        long_options: *const libc::option,
        index: *mut c_int,
    ) -> c_int;
}

/// Runs one call of glibc's `parse` with the calling rank's `optind`.
fn with_rank_optind(parse: impl FnOnce() -> c_int) -> c_int {
    // SAFETY: one thread runs the simulation and its ranks; optind is
    // read and written by value, never borrowed.
    let current = unsafe { std::ptr::addr_of!(optind).read() };
    let (rank, start) = sim::with(|s| {
        let rank = s.core.current();
        s.mem.swap_getopt_globals(s.core.size(), rank);
        (rank, s.optind.start(rank, current))
    });
    // SAFETY: as above.
    unsafe { std::ptr::addr_of_mut!(optind).write(start) };
    let result = parse();
    // SAFETY: as above.
    let left = unsafe { std::ptr::addr_of!(optind).read() };
    sim::with(|s| s.optind.finish(rank, left));
    result
}

pub(crate) unsafe extern "C" fn smpi_getopt(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
) -> c_int {
    // SAFETY: the program's arguments, as getopt takes them.
    with_rank_optind(|| unsafe { libc::getopt(argc, argv, options) })
}

pub(crate) unsafe extern "C" fn smpi_getopt_long(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    // SAFETY: the program's arguments, as getopt_long takes them.
    with_rank_optind(|| unsafe { libc::getopt_long(argc, argv, options, long_options, index) })
}

pub(crate) unsafe extern "C" fn smpi_getopt_long_only(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
    long_options: *const libc::option,
    index: *mut c_int,
) -> c_int {
    // SAFETY: the program's arguments, as getopt_long_only takes them.
    with_rank_optind(|| unsafe { getopt_long_only(argc, argv, options, long_options, index) })
}

/// What `getopt` is for programs in strict POSIX mode: <unistd.h> gives
/// the (macro-renamed) declaration the assembler name `__posix_getopt`,
/// which the program's shim provides and sends here.
pub(crate) unsafe extern "C" fn __posix_getopt(
    argc: c_int,
    argv: *const *mut c_char,
    options: *const c_char,
) -> c_int {
    // SAFETY: the program's arguments, as getopt takes them.
    with_rank_optind(|| unsafe { glibc_posix_getopt(argc, argv, options) })
}
