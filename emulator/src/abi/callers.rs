//! Who called an interposed function, from the address its call returns
//! to: the program (its objects and the libraries it brings), or the
//! runtime under it (smpirun, the C library, the dynamic loader, the
//! compilers' support libraries) acting on its own account; and at which
//! source line, from the calling object's line tables.
//!
//! The malloc family folds and follows only the program's allocations:
//! the C library's own (a `FILE` buffer, `qsort`'s scratch space) must
//! stay ordinary memory, and they are no leaks of the program's.

use std::collections::HashMap;
use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

/// Objects whose code is the runtime's, by the start of their file name.
const RUNTIME_OBJECTS: &[&str] = &[
    "libc.so",
    "ld-linux",
    "linux-vdso",
    "libm.so",
    "libpthread.so",
    "libdl.so",
    "librt.so",
    "libgcc_s.so",
    "libstdc++.so",
    "libgfortran.so",
    "libquadmath.so",
    "libgomp.so",
];

/// Objects that run real threads of their own and synchronise with them
/// (OpenMP runtimes, threaded BLAS): their calls of the threads interface
/// are the C library's, even on a rank. Everything else's are the
/// program's: the C++ and Fortran runtimes act for it (`std::thread`,
/// `std::condition_variable`), and a call that returns into smpirun or
/// the C library is a tail call of a program's function they called (a
/// thread's start routine, a key's destructor).
const NATIVE_THREAD_OBJECTS: &[&str] = &[
    "libgomp.so",
    "libomp.so",
    "libiomp5.so",
    "libopenblas",
    "libblas.so",
    "liblapack.so",
    "libmkl_",
    "libtbb",
];

/// Whether the object named `base` (its file name; empty for the
/// executable, smpirun) is the runtime's.
fn is_runtime_object(base: &str) -> bool {
    base.is_empty() || RUNTIME_OBJECTS.iter().any(|p| base.starts_with(p))
}

/// Whether the object named `base` keeps the C library's threads
/// interface.
fn runs_native_threads(base: &str) -> bool {
    NATIVE_THREAD_OBJECTS.iter().any(|p| base.starts_with(p))
}

/// The address ranges of the executable code of the loaded objects that
/// `wanted` picks by file name.
fn code_of(wanted: fn(&str) -> bool) -> Vec<(usize, usize)> {
    let mut search = (wanted, Vec::new());
    // SAFETY: dl_iterate_phdr calls `collect` once per loaded object with
    // a valid info record; `data` is `search`, alive and not otherwise
    // used during the call.
    unsafe {
        libc::dl_iterate_phdr(
            Some(collect),
            std::ptr::from_mut(&mut search).cast::<c_void>(),
        );
    }
    search.1
}

/// The address ranges of the runtime's executable code, found once
/// (after the program is loaded: the first question comes from a rank).
fn runtime_code() -> &'static [(usize, usize)] {
    static RANGES: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    RANGES.get_or_init(|| code_of(is_runtime_object))
}

/// The address ranges of the code that keeps the C library's threads
/// interface, found once.
fn native_threads_code() -> &'static [(usize, usize)] {
    static RANGES: OnceLock<Vec<(usize, usize)>> = OnceLock::new();
    RANGES.get_or_init(|| code_of(runs_native_threads))
}

/// The search of [`code_of`]: which objects, and their ranges so far.
type Search = (fn(&str) -> bool, Vec<(usize, usize)>);

/// `dl_iterate_phdr`'s callback: adds the executable segments of `info`'s
/// object to the ranges at `data` when the search wants it.
///
/// # Safety
/// `info` points at a valid record of `size` bytes and `data` at a
/// [`Search`], as [`code_of`] passes them.
unsafe extern "C" fn collect(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: per the contract.
    let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
    let name = if info.dlpi_name.is_null() {
        ""
    } else {
        // SAFETY: the loader's NUL-terminated file name of the object.
        unsafe { CStr::from_ptr(info.dlpi_name) }
            .to_str()
            .unwrap_or("")
    };
    // The first object, with no name, is the executable: smpirun.
    let base = name.rsplit('/').next().unwrap_or(name);
    if !(search.0)(base) || info.dlpi_phdr.is_null() {
        return 0;
    }
    // SAFETY: the loader's program headers of the object, dlpi_phnum of
    // them.
    let headers =
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
    for h in headers {
        if h.p_type == libc::PT_LOAD && h.p_flags & libc::PF_X != 0 {
            let start = info.dlpi_addr as usize + h.p_vaddr as usize;
            search.1.push((start, start + h.p_memsz as usize));
        }
    }
    0
}

/// Whether a threads-interface call returning to `addr` keeps the C
/// library's behaviour (see [`NATIVE_THREAD_OBJECTS`]).
pub(crate) fn keeps_native_threads(addr: usize) -> bool {
    native_threads_code()
        .iter()
        .any(|&(s, e)| (s..e).contains(&addr))
}

/// Whether the code at `addr` (a return address) is the program's rather
/// than the runtime's.
pub(crate) fn is_program(addr: usize) -> bool {
    !runtime_code().iter().any(|&(s, e)| (s..e).contains(&addr))
}

/// The source lines of code addresses, from the line tables of the
/// objects that hold them (smpicc compiles with `-g1`), each object read
/// once and each address answered once.
#[derive(Default)]
pub struct SourceLines {
    objects: HashMap<String, Option<addr2line::Loader>>,
    answers: HashMap<usize, (String, u32)>,
}

impl std::fmt::Debug for SourceLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceLines")
            .field("objects", &self.objects.len())
            .field("answers", &self.answers.len())
            .finish()
    }
}

impl SourceLines {
    /// The file and line of the call that returns to `addr`: without line
    /// tables, the object's name and line 0.
    pub fn of_return_address(&mut self, addr: usize) -> (String, u32) {
        if let Some(found) = self.answers.get(&addr) {
            return found.clone();
        }
        let found = self.look_up(addr);
        self.answers.insert(addr, found.clone());
        found
    }

    fn look_up(&mut self, addr: usize) -> (String, u32) {
        // SAFETY: a zeroed Dl_info is a valid output record for dladdr.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        // SAFETY: dladdr only reads the loader's tables for `addr`.
        let known = unsafe { libc::dladdr(addr as *const c_void, &mut info) } != 0;
        if !known || info.dli_fname.is_null() {
            return (String::from("?"), 0);
        }
        // SAFETY: dladdr's NUL-terminated file name of the object.
        let object = unsafe { CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned();
        let loader = self
            .objects
            .entry(object.clone())
            .or_insert_with(|| addr2line::Loader::new(&object).ok());
        // The call instruction ends at the return address: look inside it.
        let probe = (addr - 1).wrapping_sub(info.dli_fbase as usize) as u64;
        let location = loader
            .as_ref()
            .and_then(|l| l.find_location(probe).ok().flatten())
            .and_then(|l| Some((l.file?.to_string(), l.line?)));
        location.unwrap_or((object, 0))
    }
}
