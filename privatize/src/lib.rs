//! Loading the application: ELF checks, per-rank private copies, `dlopen`.
//!
//! `smpicc` builds an MPI program as a position-independent shared object
//! that exports `main` and carries our ABI shim: a data word named
//! [`ABI_TABLE_SYMBOL`] through which every MPI call jumps into the runtime,
//! and a constant [`ABI_HASH_SYMBOL`] naming the list of entry points it was
//! built against. This crate checks that a file is such an object
//! ([`inspect`]), then loads it once per rank ([`AppLoader`]) so that every
//! rank gets its own globals.
//!
//! Private copies are in-memory files (`memfd_create`). glibc's `dlopen`
//! returns the already loaded handle for an inode, and for a path string,
//! it has seen, so hard links or reused paths would silently share one
//! copy. Each copy is opened through its own symbolic link, `rank-R` in a
//! private temporary directory, pointing at `/proc/PID/fd/N`: the name is
//! unique for the whole run, and both the link and the descriptor are
//! dropped once the copy is mapped (its mappings keep the file alive), so
//! the number of open files stays at one whatever the number of ranks.
//!
//! This is the only crate that calls `dlopen` or reads ELF files. It also
//! folds the memory of `SMPI_SHARED_MALLOC` ([`fold`]), the other place
//! where the application's address space is mapped by hand.

pub mod fold;
pub mod getopt_globals;
pub mod patch;
mod swap;
pub mod tls;

pub use patch::{FunctionSite, PatchError};

use std::ffi::{c_char, c_int, c_void, CString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use goblin::elf::dynamic::DF_1_PIE;
use goblin::elf::header::{EM_386, EM_AARCH64, EM_X86_64, ET_DYN, ET_EXEC};
use goblin::elf::program_header::PT_INTERP;
use goblin::elf::Elf;

/// Data word in the application through which its MPI calls reach us.
/// The log category of this crate (`--log=privatize.thres:debug`): the
/// `tracing` target the emulator's `log` module names `privatize`.
pub const LOG: &str = "smpi::privatize";

pub const ABI_TABLE_SYMBOL: &str = "__smpi_abi_table";
/// 64-bit constant in the application: hash of the entry-point list it was built against.
pub const ABI_HASH_SYMBOL: &str = "__smpi_abi_hash";

/// The application's `main`, called with `(argc, argv, envp)`.
pub type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// Why an application cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    // The I/O error is part of the message, not a `source`: printed with
    // its chain, it would appear twice.
    #[error("cannot read '{path}': {error}")]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("'{path}' is not an ELF file; build the program with smpicc")]
    NotElf { path: PathBuf },
    #[error(
        "'{path}' is a regular executable, not built by smpicc; rebuild it with \
         smpicc (for example `smpicc -O2 app.c -o app`)"
    )]
    NotSmpicc { path: PathBuf },
    #[error("'{path}' is a shared library without a `main` function; nothing to run")]
    NoMain { path: PathBuf },
    #[error("'{path}' is built for {found}, but this smpirun runs on {expected}")]
    WrongArchitecture {
        path: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error(
        "'{path}' was built by a different smpicc version (ABI {found:#018x}, this \
         smpirun expects {expected:#018x}); rebuild it with this smpicc"
    )]
    AbiMismatch {
        path: PathBuf,
        found: u64,
        expected: u64,
    },
    #[error("cannot make a private copy of '{path}' for rank {rank}: {error}")]
    Copy {
        path: PathBuf,
        rank: usize,
        error: std::io::Error,
    },
    #[error(
        "'{path}' cannot have its globals swapped between ranks (smpi/privatization:swap): \
         {why}; use --cfg=smpi/privatization:dlopen"
    )]
    CannotSwap { path: PathBuf, why: String },
    #[error("cannot load the library '{name}': {message}")]
    Library { name: String, message: String },
    #[error("'{path}' is not a library of function models: {why}")]
    NotModels { path: PathBuf, why: String },
    #[error("cannot load '{path}' for rank {rank}: {message}{hint}")]
    Dlopen {
        path: PathBuf,
        rank: usize,
        message: String,
        hint: String,
    },
}

/// What [`inspect`] found out about an application file.
#[derive(Debug, Clone)]
pub struct AppInfo {
    pub path: PathBuf,
    /// The ABI hash the application was built against.
    pub abi_hash: u64,
    /// Whether the program has a thread-local storage segment (each private
    /// copy then takes static TLS space, which is limited in glibc).
    pub has_tls: bool,
    /// The shared libraries it needs (`DT_NEEDED`).
    pub needed: Vec<String>,
    /// The parts of its writable segments that stay writable after loading
    /// (everything past the RELRO pages), as file virtual addresses
    /// `[start, end)`: its globals.
    pub writable: Vec<(u64, u64)>,
    /// Entries of `.init_array`: the C runtime's one, plus the program's
    /// own constructors (C++ static initialisers, `constructor` functions).
    pub constructors: usize,
}

impl AppInfo {
    /// Bytes of globals (see [`Self::writable`]).
    pub fn writable_bytes(&self) -> u64 {
        self.writable.iter().map(|(a, b)| b - a).sum()
    }

    /// Why [`Privatization::Swap`] cannot give this program private
    /// globals, if it cannot: constructors run once per load (so objects
    /// they build on the heap would be shared), thread-local variables are
    /// not in the swapped segment, and large segments are slow to swap.
    pub fn swap_obstacle(&self) -> Option<String> {
        if self.has_tls {
            Some("it has thread-local variables".into())
        } else if self.constructors > 1 {
            Some(format!(
                "it has {} constructors of its own (C++ static initialisers or \
                 constructor functions)",
                self.constructors - 1
            ))
        } else if self.writable_bytes() > SWAP_MAX_BYTES {
            Some(format!(
                "its globals take {} bytes, more than the {SWAP_MAX_BYTES} copied at each \
                 switch",
                self.writable_bytes()
            ))
        } else {
            None
        }
    }
}

/// Largest global segment [`Privatization::Swap`] copies in and out at each
/// switch between ranks (two copies of 16 KiB take about a microsecond).
pub const SWAP_MAX_BYTES: u64 = 16 * 1024;

/// Checks that `path` is a program built by smpicc for this machine.
pub fn inspect(path: &Path, expected_abi: u64) -> Result<AppInfo, LoadError> {
    let bytes = std::fs::read(path).map_err(|error| LoadError::Read {
        path: path.to_owned(),
        error,
    })?;
    inspect_bytes(&bytes, path, expected_abi)
}

fn host_machine() -> (u16, &'static str) {
    if cfg!(target_arch = "x86_64") {
        (EM_X86_64, "x86_64")
    } else if cfg!(target_arch = "aarch64") {
        (EM_AARCH64, "aarch64")
    } else if cfg!(target_arch = "x86") {
        (EM_386, "i386")
    } else {
        (0, std::env::consts::ARCH)
    }
}

fn inspect_bytes(bytes: &[u8], path: &Path, expected_abi: u64) -> Result<AppInfo, LoadError> {
    let elf = Elf::parse(bytes).map_err(|_| LoadError::NotElf {
        path: path.to_owned(),
    })?;
    let (machine, arch) = host_machine();
    if elf.header.e_machine != machine {
        return Err(LoadError::WrongArchitecture {
            path: path.to_owned(),
            found: goblin::elf::header::machine_to_str(elf.header.e_machine).to_string(),
            expected: arch,
        });
    }
    if elf.header.e_type == ET_EXEC {
        return Err(LoadError::NotSmpicc {
            path: path.to_owned(),
        });
    }
    if elf.header.e_type != ET_DYN {
        return Err(LoadError::NotElf {
            path: path.to_owned(),
        });
    }
    let mut has_main = false;
    let mut hash_sym = None;
    let mut has_table = false;
    for sym in elf.dynsyms.iter() {
        if sym.st_shndx == 0 {
            continue; // undefined: an import, not a definition
        }
        match elf.dynstrtab.get_at(sym.st_name) {
            Some("main") => has_main = true,
            Some(name) if name == ABI_TABLE_SYMBOL => has_table = true,
            Some(name) if name == ABI_HASH_SYMBOL => hash_sym = Some(sym),
            _ => {}
        }
    }
    let has_interpreter = elf.program_headers.iter().any(|p| p.p_type == PT_INTERP);
    let flags_1 = elf.dynamic.as_ref().map_or(0, |d| d.info.flags_1);
    if !has_table || is_position_independent_executable(has_interpreter, has_table, flags_1) {
        return Err(LoadError::NotSmpicc {
            path: path.to_owned(),
        });
    }
    if !has_main {
        return Err(LoadError::NoMain {
            path: path.to_owned(),
        });
    }
    let abi_hash = hash_sym
        .and_then(|sym| read_u64_at_vaddr(&elf, bytes, sym.st_value))
        .ok_or_else(|| LoadError::NotSmpicc {
            path: path.to_owned(),
        })?;
    if abi_hash != expected_abi {
        return Err(LoadError::AbiMismatch {
            path: path.to_owned(),
            found: abi_hash,
            expected: expected_abi,
        });
    }
    let has_tls = elf
        .program_headers
        .iter()
        .any(|p| p.p_type == goblin::elf::program_header::PT_TLS);
    let needed = elf.libraries.iter().map(|s| s.to_string()).collect();
    let constructors = elf.dynamic.as_ref().map_or(0, |d| d.info.init_arraysz / 8);
    Ok(AppInfo {
        path: path.to_owned(),
        abi_hash,
        has_tls,
        needed,
        writable: writable_ranges(&elf),
        constructors,
    })
}

/// Whether a shared object (`ET_DYN`) is a position-independent executable,
/// which glibc's `dlopen` refuses, rather than a program smpicc built. Both
/// may have an interpreter (`PT_INTERP`): smpicc gives its programs one so
/// that they can run directly (they then exec smpirun). A PIE says so in
/// `DF_1_PIE`; one from a linker too old to say so has no shim table.
fn is_position_independent_executable(
    has_interpreter: bool,
    has_table: bool,
    flags_1: u64,
) -> bool {
    flags_1 & DF_1_PIE != 0 || (has_interpreter && !has_table)
}

/// The writable parts of the loadable segments that the dynamic linker does
/// not make read-only after relocation (glibc protects the RELRO range
/// rounded down to whole pages at both ends).
fn writable_ranges(elf: &Elf) -> Vec<(u64, u64)> {
    use goblin::elf::program_header::{PF_W, PT_GNU_RELRO, PT_LOAD};
    const PAGE: u64 = 4096;
    let relro = elf
        .program_headers
        .iter()
        .find(|p| p.p_type == PT_GNU_RELRO)
        .map(|p| {
            (
                p.p_vaddr & !(PAGE - 1),
                (p.p_vaddr + p.p_memsz) & !(PAGE - 1),
            )
        });
    let mut out = Vec::new();
    for p in &elf.program_headers {
        if p.p_type != PT_LOAD || p.p_flags & PF_W == 0 {
            continue;
        }
        let (mut start, end) = (p.p_vaddr, p.p_vaddr + p.p_memsz);
        if let Some((lo, hi)) = relro {
            if lo <= start && hi > start {
                start = hi.min(end);
            }
        }
        if start < end {
            out.push((start, end));
        }
    }
    out
}

/// Reads the little/big-endian u64 stored at virtual address `vaddr` of the file.
fn read_u64_at_vaddr(elf: &Elf, bytes: &[u8], vaddr: u64) -> Option<u64> {
    let ph = elf.program_headers.iter().find(|p| {
        p.p_type == goblin::elf::program_header::PT_LOAD
            && vaddr >= p.p_vaddr
            && vaddr + 8 <= p.p_vaddr + p.p_filesz
    })?;
    let off = usize::try_from(ph.p_offset + (vaddr - ph.p_vaddr)).ok()?;
    let raw: [u8; 8] = bytes.get(off..off + 8)?.try_into().ok()?;
    Some(if elf.little_endian {
        u64::from_le_bytes(raw)
    } else {
        u64::from_be_bytes(raw)
    })
}

/// Whether ranks get their own copy of the program's globals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Privatization {
    /// One `dlopen`ed copy per rank (the default).
    PerRank,
    /// One copy shared by all ranks (`-no-privatize`, `smpi/privatization:no`).
    Shared,
    /// One copy whose globals are swapped: each rank has a saved image of
    /// the program's writable data, copied in when it runs ([`DataSegment`]).
    /// Only for programs without an [`AppInfo::swap_obstacle`].
    Swap,
    /// [`Self::Swap`] when the program allows it, else [`Self::PerRank`]
    /// (resolved by [`AppLoader::new`]).
    Auto,
}

/// The globals of a program loaded once for all ranks under
/// [`Privatization::Swap`]: one saved image per rank, and the rank whose
/// image is in place. Whoever reads or writes a rank's memory must first
/// [`Self::activate`] that rank if the memory lies in [`Self::contains`].
pub struct DataSegment {
    /// Absolute `[start, end)` ranges of the loaded copy's globals.
    ranges: Vec<(usize, usize)>,
    /// Each rank's contents of them, and whose are in place.
    images: std::cell::RefCell<swap::Images>,
    /// Keeps the copy loaded while its globals are swapped.
    _app: Rc<LoadedApp>,
}

impl DataSegment {
    fn new(app: Rc<LoadedApp>, base: usize, writable: &[(u64, u64)]) -> Self {
        let ranges: Vec<(usize, usize)> = writable
            .iter()
            .map(|&(a, b)| (base + a as usize, base + b as usize))
            .collect();
        // SAFETY: the ranges are the writable data of `app`'s loaded copy,
        // kept mapped by `_app` for as long as the images live; the images
        // are only used between the program's instructions (one thread).
        let images = unsafe { swap::Images::new(&ranges) };
        Self {
            ranges,
            images: std::cell::RefCell::new(images),
            _app: app,
        }
    }

    /// The rank whose globals are in place.
    pub fn owner(&self) -> Option<usize> {
        self.images.borrow().owner()
    }

    /// Whether `[addr, addr + len)` overlaps the globals.
    pub fn contains(&self, addr: usize, len: usize) -> bool {
        let end = addr.saturating_add(len.max(1));
        self.ranges.iter().any(|&(a, b)| addr < b && end > a)
    }

    /// Puts `rank`'s globals in place, saving those of the rank that had
    /// them.
    pub fn activate(&self, rank: usize) {
        self.images.borrow_mut().activate(rank);
    }
}

/// One loaded copy of the application.
pub struct LoadedApp {
    main: MainFn,
    thread_locals: Option<std::rc::Rc<tls::ThreadLocals>>,
    _library: libloading::os::unix::Library,
}

impl LoadedApp {
    /// The copy's thread-local storage, if it has any.
    pub fn thread_locals(&self) -> Option<std::rc::Rc<tls::ThreadLocals>> {
        self.thread_locals.clone()
    }

    /// The copy's `main`.
    pub fn main(&self) -> MainFn {
        self.main
    }

    /// Where `name` resolves in this copy: the program's own definition,
    /// else the first library it needs that defines it.
    pub fn function(&self, name: &str) -> Option<FunctionSite> {
        let cname = CString::new(name).ok()?;
        // SAFETY: the symbol is only looked up, as an address.
        let addr = unsafe { self._library.get::<*mut c_void>(cname.as_bytes_with_nul()) }
            .ok()
            .map(|sym| *sym)?;
        (!addr.is_null()).then(|| patch::site_of(addr))
    }
}

/// The address of the definition of `name` that comes after the running
/// executable's own in the dynamic linker's search order (`RTLD_NEXT`):
/// libc's, for a function smpirun interposes. `None` if there is none.
pub fn next_definition(name: &std::ffi::CStr) -> Option<usize> {
    // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT looks past the
    // object this code is linked into (the executable).
    let found = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    (!found.is_null()).then_some(found as usize)
}

/// The address of `name` in `library` (a file name such as
/// `libgomp.so.1`), if that library is loaded already, even privately to
/// the program (where `RTLD_NEXT` does not look).
pub fn loaded_definition(library: &std::ffi::CStr, name: &std::ffi::CStr) -> Option<usize> {
    // SAFETY: RTLD_NOLOAD only finds an object already loaded: nothing is
    // loaded, no constructor runs; the name is NUL-terminated.
    let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if handle.is_null() {
        return None;
    }
    // SAFETY: a handle dlopen gave, a NUL-terminated name.
    let found = unsafe { libc::dlsym(handle, name.as_ptr()) };
    // SAFETY: the reference dlopen took; the library stays loaded by the
    // program's own reference.
    unsafe { libc::dlclose(handle) };
    (!found.is_null()).then_some(found as usize)
}

/// Makes every call of the function at `site` (found by
/// [`LoadedApp::function`]) run `target`, an `extern "C"` function of the
/// same signature, instead. See [`patch`].
pub fn replace_function(site: &FunctionSite, name: &str, target: usize) -> Result<(), PatchError> {
    patch::redirect(site, name, target)?;
    tracing::debug!(target: LOG, "{name} is replaced by its model");
    Ok(())
}

/// A library of the machine's (a BLAS, for calibrating the kernel
/// models), loaded to call its functions directly.
pub struct ForeignLibrary {
    library: libloading::os::unix::Library,
}

impl ForeignLibrary {
    /// Opens `name`: a path, or a file name the dynamic linker searches.
    pub fn open(name: &str) -> Result<ForeignLibrary, LoadError> {
        // SAFETY: loading runs the library's constructors; the caller names
        // a system library it wants to call.
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(name),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        }
        .map_err(|e| LoadError::Library {
            name: name.to_owned(),
            message: e.to_string(),
        })?;
        Ok(ForeignLibrary { library })
    }

    /// The address of the function `name`, if the library has it.
    pub fn function(&self, name: &str) -> Option<*mut c_void> {
        let cname = CString::new(name).ok()?;
        // SAFETY: the symbol is only looked up, as an address.
        unsafe { self.library.get::<*mut c_void>(cname.as_bytes_with_nul()) }
            .ok()
            .map(|sym| *sym)
            .filter(|p| !p.is_null())
    }
}

/// A library of function models (`smpicc -shared`): functions that replace
/// the program's functions of the same names.
pub struct FunctionModels {
    /// The exported functions: name and address.
    pub functions: Vec<(String, usize)>,
    _library: libloading::os::unix::Library,
}

/// Whether an exported function of a model library is a model (not our
/// shim's MPI entry points, nor the C runtime's).
fn is_model_name(name: &str) -> bool {
    !(name.starts_with('_')
        || name.starts_with("MPI_")
        || name.starts_with("PMPI_")
        || name.starts_with("smpi_")
        || name == "main")
}

/// Loads copies of one application, one per rank or one shared.
pub struct AppLoader {
    info: AppInfo,
    image: Vec<u8>,
    mode: Privatization,
    abi_table: *const c_void,
    shared: Option<Rc<LoadedApp>>,
    loaded: usize,
    /// Where the per-rank links live (created on first use).
    links: Option<LinkDir>,
    segment: Option<Rc<DataSegment>>,
}

fn empty_dl_info() -> libc::Dl_info {
    libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    }
}

/// A private temporary directory, removed with what is left in it.
struct LinkDir(PathBuf);

impl Drop for LinkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl AppLoader {
    /// Checks the application and reads it into memory. `abi_table` is the
    /// runtime's entry-point table, stored into every copy's
    /// [`ABI_TABLE_SYMBOL`].
    pub fn new(
        path: &Path,
        mode: Privatization,
        expected_abi: u64,
        abi_table: *const c_void,
    ) -> Result<Self, LoadError> {
        let image = std::fs::read(path).map_err(|error| LoadError::Read {
            path: path.to_owned(),
            error,
        })?;
        let info = inspect_bytes(&image, path, expected_abi)?;
        let mode = match (mode, info.swap_obstacle()) {
            (Privatization::Auto, None) => Privatization::Swap,
            (Privatization::Auto, Some(_)) => Privatization::PerRank,
            (Privatization::Swap, Some(why)) => {
                return Err(LoadError::CannotSwap {
                    path: path.to_owned(),
                    why,
                })
            }
            (m, _) => m,
        };
        tracing::debug!(
            target: LOG,
            "{}: {} B, {} B of globals, {} constructors, TLS {}, needs {:?}; ranks' globals: {mode:?}",
            info.path.display(),
            image.len(),
            info.writable_bytes(),
            info.constructors,
            if info.has_tls { "yes" } else { "no" },
            info.needed,
        );
        Ok(Self {
            info,
            image,
            mode,
            abi_table,
            shared: None,
            loaded: 0,
            links: None,
            segment: None,
        })
    }

    /// How ranks get their globals (never [`Privatization::Auto`]).
    pub fn mode(&self) -> Privatization {
        self.mode
    }

    /// What the application is.
    pub fn info(&self) -> &AppInfo {
        &self.info
    }

    /// How many copies have been loaded so far.
    pub fn copies(&self) -> usize {
        self.loaded
    }

    /// The copy that `rank` runs: a fresh one per rank, or the shared one.
    pub fn load(&mut self, rank: usize) -> Result<Rc<LoadedApp>, LoadError> {
        match self.mode {
            Privatization::Shared | Privatization::Swap | Privatization::Auto => {
                if let Some(app) = &self.shared {
                    return Ok(Rc::clone(app));
                }
                let path = self.info.path.clone();
                let canonical = std::fs::canonicalize(&path).unwrap_or(path);
                let app = Rc::new(self.open(&canonical, rank)?);
                self.shared = Some(Rc::clone(&app));
                Ok(app)
            }
            Privatization::PerRank => {
                let fd = self.private_copy(rank)?;
                let link = self.link_dir(rank)?.join(format!("rank-{rank}"));
                let target = format!("/proc/{}/fd/{}", std::process::id(), fd.as_raw_fd());
                std::os::unix::fs::symlink(&target, &link).map_err(|error| LoadError::Copy {
                    path: self.info.path.clone(),
                    rank,
                    error,
                })?;
                let app = self.open(&link, rank);
                let _ = std::fs::remove_file(&link);
                drop(fd);
                tracing::debug!(target: LOG, "rank {rank}: its private copy is loaded");
                Ok(Rc::new(app?))
            }
        }
    }

    /// Loads a library of function models, built with `smpicc -shared`
    /// against the same ABI as the program, once for all ranks.
    pub fn load_models(&self, path: &Path) -> Result<FunctionModels, LoadError> {
        let bad = |why: String| LoadError::NotModels {
            path: path.to_owned(),
            why,
        };
        let bytes = std::fs::read(path).map_err(|error| LoadError::Read {
            path: path.to_owned(),
            error,
        })?;
        let elf = Elf::parse(&bytes).map_err(|_| bad("it is not an ELF file".into()))?;
        let mut names = Vec::new();
        let mut hash = None;
        for sym in elf.dynsyms.iter().filter(|s| s.st_shndx != 0) {
            let Some(name) = elf.dynstrtab.get_at(sym.st_name) else {
                continue;
            };
            if name == ABI_HASH_SYMBOL {
                hash = read_u64_at_vaddr(&elf, &bytes, sym.st_value);
            } else if sym.st_type() == goblin::elf::sym::STT_FUNC
                && sym.st_bind() != goblin::elf::sym::STB_LOCAL
                && is_model_name(name)
            {
                names.push(name.to_owned());
            }
        }
        match hash {
            None => return Err(bad("it was not built by smpicc (smpicc -shared)".into())),
            Some(h) if h != self.info.abi_hash => {
                return Err(bad(format!(
                    "it was built by another smpicc (ABI {h:#018x}, the program's is {:#018x})",
                    self.info.abi_hash
                )))
            }
            Some(_) => {}
        }
        if names.is_empty() {
            return Err(bad("it exports no function".into()));
        }
        // SAFETY: loading runs the library's constructors; it is an
        // smpicc-built object for this ABI, as checked above.
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(path),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        }
        .map_err(|e| bad(e.to_string()))?;
        let table_name = format!("{ABI_TABLE_SYMBOL}\0");
        // SAFETY: as in `open`: the shim's table word receives the runtime's
        // table before any of the library's code runs MPI.
        unsafe {
            let slot = library
                .get::<*mut *const c_void>(table_name.as_bytes())
                .map_err(|e| bad(e.to_string()))?;
            let slot: *mut *const c_void = *slot;
            slot.write(self.abi_table);
        }
        let mut functions = Vec::with_capacity(names.len());
        for name in names {
            let cname = format!("{name}\0");
            // SAFETY: the address of an exported function, not called here.
            let addr = unsafe { library.get::<*mut c_void>(cname.as_bytes()) }
                .map_err(|e| bad(e.to_string()))?;
            functions.push((name, *addr as usize));
        }
        Ok(FunctionModels {
            functions,
            _library: library,
        })
    }

    /// Under [`Privatization::Swap`], the swapped globals of the shared copy
    /// (loading it if needed); `None` in the other modes.
    pub fn data_segment(&mut self) -> Result<Option<Rc<DataSegment>>, LoadError> {
        if self.mode != Privatization::Swap {
            return Ok(None);
        }
        if self.segment.is_none() {
            let app = self.load(0)?;
            let mut info: libc::Dl_info = empty_dl_info();
            // SAFETY: dladdr only reads the loader's tables for an address
            // and fills the struct we pass.
            let found = unsafe { libc::dladdr(app.main as *const c_void, &mut info) };
            if found == 0 || info.dli_fbase.is_null() {
                return Err(LoadError::Dlopen {
                    path: self.info.path.clone(),
                    rank: 0,
                    message: "cannot find where the program was loaded (dladdr)".into(),
                    hint: String::new(),
                });
            }
            let base = info.dli_fbase as usize;
            tracing::debug!(
                target: LOG,
                "{} B of globals swapped at each switch, from {base:#x}",
                self.info.writable_bytes()
            );
            self.segment = Some(Rc::new(DataSegment::new(app, base, &self.info.writable)));
        }
        Ok(self.segment.clone())
    }

    /// The directory of the per-rank links, created on first use.
    fn link_dir(&mut self, rank: usize) -> Result<&Path, LoadError> {
        if self.links.is_none() {
            let dir = std::env::temp_dir().join(format!("smpi-rs-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).map_err(|error| LoadError::Copy {
                path: self.info.path.clone(),
                rank,
                error,
            })?;
            self.links = Some(LinkDir(dir));
        }
        Ok(&self.links.as_ref().expect("created above").0)
    }

    /// Writes the image into a new in-memory file.
    fn private_copy(&self, rank: usize) -> Result<OwnedFd, LoadError> {
        let copy_err = |error: std::io::Error| LoadError::Copy {
            path: self.info.path.clone(),
            rank,
            error,
        };
        let fd = nix::sys::memfd::memfd_create(
            format!("smpi-rank-{rank}").as_str(),
            nix::sys::memfd::MFdFlags::MFD_CLOEXEC,
        )
        .map_err(|e| copy_err(e.into()))?;
        let mut file = File::from(fd);
        file.write_all(&self.image).map_err(copy_err)?;
        Ok(OwnedFd::from(file))
    }

    fn open(&mut self, path: &Path, rank: usize) -> Result<LoadedApp, LoadError> {
        let dl_err = |message: String| {
            let hint = if message.contains("static TLS") {
                " (the program uses thread-local variables and glibc's static TLS space \
                 is exhausted: run with -no-privatize or fewer ranks)"
                    .to_string()
            } else if message.contains("map") || message.contains("memory") {
                format!(
                    " ({} copies loaded so far; each costs memory mappings, limited by \
                     vm.max_map_count: raise it with `sysctl -w vm.max_map_count=1048576` \
                     or run with -no-privatize)",
                    self.loaded
                )
            } else {
                String::new()
            };
            LoadError::Dlopen {
                path: self.info.path.clone(),
                rank,
                message,
                hint,
            }
        };
        // SAFETY: loading the application runs its ELF constructors. The file
        // was checked by `inspect_bytes` to be an smpicc-built shared object
        // for this machine and ABI, which is the contract of smpirun.
        let library = unsafe {
            libloading::os::unix::Library::open(
                Some(path),
                libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL,
            )
        }
        .map_err(|e| dl_err(e.to_string()))?;
        // SAFETY: `main` was found exported by `inspect_bytes`; its C
        // signature is `int main(int, char **, char **)` (a two-argument
        // main ignores the third register argument under the C ABI).
        let main: MainFn = unsafe { library.get::<MainFn>(b"main\0") }
            .map(|sym| *sym)
            .map_err(|e| dl_err(e.to_string()))?;
        let table_name = format!("{ABI_TABLE_SYMBOL}\0");
        // SAFETY: the shim defines ABI_TABLE_SYMBOL as one pointer-sized,
        // writable data word; we store the runtime's table address in it
        // before any of the copy's code calls MPI.
        unsafe {
            let slot = library
                .get::<*mut *const c_void>(table_name.as_bytes())
                .map_err(|e| dl_err(e.to_string()))?;
            let slot: *mut *const c_void = *slot;
            slot.write(self.abi_table);
        }
        self.loaded += 1;
        let raw = library.into_raw();
        let thread_locals = tls::ThreadLocals::of(raw).map(std::rc::Rc::new);
        // SAFETY: the handle just taken out of the same library.
        let library = unsafe { libloading::os::unix::Library::from_raw(raw) };
        Ok(LoadedApp {
            main,
            thread_locals,
            _library: library,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_elf() {
        let err = inspect_bytes(b"#!/bin/sh\necho hi\n", Path::new("x.sh"), 1).unwrap_err();
        assert!(matches!(err, LoadError::NotElf { .. }), "{err}");
        assert!(err.to_string().contains("smpicc"));
    }

    #[test]
    fn rejects_a_regular_executable() {
        // The test binary itself is a normal executable (PIE or not).
        let me = std::env::current_exe().unwrap();
        let err = inspect(&me, 1).unwrap_err();
        assert!(matches!(err, LoadError::NotSmpicc { .. }), "{err}");
        assert!(err.to_string().contains("not built by smpicc"), "{err}");
    }

    #[test]
    fn programs_with_an_interpreter_are_not_taken_for_executables() {
        // smpicc's programs: a shim table, an interpreter to run directly.
        assert!(!is_position_independent_executable(true, true, 0));
        // smpicc's libraries (-shared): no interpreter.
        assert!(!is_position_independent_executable(false, true, 0));
        // A PIE says so, shim or not (dlopen refuses it), or has no shim.
        assert!(is_position_independent_executable(true, true, DF_1_PIE));
        assert!(is_position_independent_executable(true, false, 0));
    }

    #[test]
    fn missing_file_is_a_read_error() {
        let err = inspect(Path::new("/nonexistent/app"), 1).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/app"), "{err}");
    }
}
