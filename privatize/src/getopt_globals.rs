//! glibc's `getopt` globals (`optarg`, `optind`, `opterr`, `optopt`): one
//! set for the whole process, which a program reads and writes directly.
//! Like the program's own globals, they are swapped between ranks, so
//! that a rank reading `optarg` after an MPI call sees its own.

use std::ffi::{c_char, c_int};

extern "C" {
    static mut optarg: *mut c_char;
    static mut optind: c_int;
    static mut opterr: c_int;
    static mut optopt: c_int;
}

/// One rank's values of glibc's getopt globals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GetoptGlobals {
    optarg: usize,
    optind: c_int,
    opterr: c_int,
    optopt: c_int,
}

impl GetoptGlobals {
    /// The values in glibc's globals now.
    pub fn read() -> GetoptGlobals {
        // SAFETY: one thread runs the simulation and its ranks; the
        // globals are read by value, never borrowed.
        unsafe {
            GetoptGlobals {
                optarg: std::ptr::addr_of!(optarg).read() as usize,
                optind: std::ptr::addr_of!(optind).read(),
                opterr: std::ptr::addr_of!(opterr).read(),
                optopt: std::ptr::addr_of!(optopt).read(),
            }
        }
    }

    /// Puts these values in glibc's globals.
    pub fn write(self) {
        // SAFETY: as in `read`: written by value, never borrowed.
        unsafe {
            std::ptr::addr_of_mut!(optarg).write(self.optarg as *mut c_char);
            std::ptr::addr_of_mut!(optind).write(self.optind);
            std::ptr::addr_of_mut!(opterr).write(self.opterr);
            std::ptr::addr_of_mut!(optopt).write(self.optopt);
        }
    }
}
