//! The emulator: the discrete-event engine, ranks as coroutines, MPI
//! semantics, the C ABI that applications call, and the `smpicc`/`smpirun`
//! command-line tools. See ARCHITECTURE.md for the map.

pub mod abi;
pub mod abi_symbols;
pub mod calibrate;
pub mod cc;
pub mod config;
pub mod engine;
pub mod getopt;
pub mod hostspeed;
pub mod instr;
pub mod kernels;
pub mod log;
pub mod mapping;
pub mod memory;
pub mod mpi;
pub mod run;
pub mod sample;
pub mod sim;
#[cfg(test)]
pub mod testing;

/// Flushes the C library's stdio buffers (the application's `printf`
/// output), so our own messages come after it.
pub fn flush_c_stdio() {
    // SAFETY: fflush(NULL) flushes every open output stream; no pointer
    // is dereferenced on our side.
    unsafe { libc::fflush(std::ptr::null_mut()) };
}
