//! The emulator: the discrete-event engine, ranks as coroutines, MPI
//! semantics, the C ABI that applications call, and the `smpicc`/`smpirun`
//! command-line tools. See ARCHITECTURE.md for the map.

pub mod abi;
pub mod abi_symbols;
pub mod actors;
pub mod calibrate;
pub mod cc;
pub mod config;
pub mod engine;
pub mod fortran;
pub mod getopt;
pub mod hostspeed;
pub mod instr;
pub mod kernels;
pub mod leaks;
pub mod libc_state;
pub mod log;
pub mod mapping;
pub mod memory;
pub mod mpi;
pub mod progress;
pub mod pthreads;
pub mod replay;
pub mod run;
pub mod sample;
pub mod sim;
#[cfg(test)]
pub mod testing;
pub mod trace;

/// Every Rust allocation of the tools takes libc's allocator directly,
/// past the malloc family that smpirun interposes for the program
/// (`abi::memory`).
#[global_allocator]
static ALLOCATOR: abi::memory::LibcAllocator = abi::memory::LibcAllocator;

/// Flushes the C library's stdio buffers (the application's `printf`
/// output), so our own messages come after it.
pub fn flush_c_stdio() {
    // SAFETY: fflush(NULL) flushes every open output stream; no pointer
    // is dereferenced on our side.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}

/// The exit code of a tool that stopped on an internal error (a panic):
/// sysexits' EX_SOFTWARE, distinct from a program's own codes and from
/// the 1 of a usage error.
pub const INTERNAL_ERROR_EXIT: i32 = 70;

/// Makes a panic end `tool` with one line that says it is an internal
/// error and how to get the details (`SMPI_BACKTRACE=1`), after the
/// program's buffered output, with [`INTERNAL_ERROR_EXIT`]: no panic text
/// or backtrace reaches a user unasked, and no panic unwinds into C.
pub fn install_panic_hook(tool: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        flush_c_stdio();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        let location = info
            .location()
            .map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
        if std::env::var_os("SMPI_BACKTRACE").is_some_and(|v| v != "0") {
            eprintln!(
                "{tool}: internal error: {message}{location}\n{}",
                std::backtrace::Backtrace::force_capture()
            );
        } else {
            eprintln!(
                "{tool}: internal error: {message}; please report it; details with \
                 SMPI_BACKTRACE=1"
            );
        }
        std::process::exit(INTERNAL_ERROR_EXIT);
    }));
}
