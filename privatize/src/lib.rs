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
//! This is the only crate that calls `dlopen` or reads ELF files.

use std::ffi::{c_char, c_int, c_void, CString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use goblin::elf::header::{EM_386, EM_AARCH64, EM_X86_64, ET_DYN, ET_EXEC};
use goblin::elf::program_header::PT_INTERP;
use goblin::elf::Elf;

/// Data word in the application through which its MPI calls reach us.
pub const ABI_TABLE_SYMBOL: &str = "__smpi_abi_table";
/// 64-bit constant in the application: hash of the entry-point list it was built against.
pub const ABI_HASH_SYMBOL: &str = "__smpi_abi_hash";

/// The application's `main`, called with `(argc, argv, envp)`.
pub type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// Why an application cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read '{path}': {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
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
    #[error("cannot make a private copy of '{path}' for rank {rank}: {source}")]
    Copy {
        path: PathBuf,
        rank: usize,
        source: std::io::Error,
    },
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
}

/// Checks that `path` is a program built by smpicc for this machine.
pub fn inspect(path: &Path, expected_abi: u64) -> Result<AppInfo, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Read {
        path: path.to_owned(),
        source,
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
    let is_pie_executable = elf.program_headers.iter().any(|p| p.p_type == PT_INTERP);
    if elf.header.e_type == ET_EXEC || (elf.header.e_type == ET_DYN && is_pie_executable) {
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
    if !has_table {
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
    Ok(AppInfo {
        path: path.to_owned(),
        abi_hash,
        has_tls,
        needed,
    })
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
}

/// One loaded copy of the application.
pub struct LoadedApp {
    main: MainFn,
    _library: libloading::os::unix::Library,
}

impl LoadedApp {
    /// The copy's `main`.
    pub fn main(&self) -> MainFn {
        self.main
    }
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
        let image = std::fs::read(path).map_err(|source| LoadError::Read {
            path: path.to_owned(),
            source,
        })?;
        let info = inspect_bytes(&image, path, expected_abi)?;
        Ok(Self {
            info,
            image,
            mode,
            abi_table,
            shared: None,
            loaded: 0,
            links: None,
        })
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
            Privatization::Shared => {
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
                std::os::unix::fs::symlink(&target, &link).map_err(|source| LoadError::Copy {
                    path: self.info.path.clone(),
                    rank,
                    source,
                })?;
                let app = self.open(&link, rank);
                let _ = std::fs::remove_file(&link);
                drop(fd);
                Ok(Rc::new(app?))
            }
        }
    }

    /// The directory of the per-rank links, created on first use.
    fn link_dir(&mut self, rank: usize) -> Result<&Path, LoadError> {
        if self.links.is_none() {
            let dir = std::env::temp_dir().join(format!("smpi-rs-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).map_err(|source| LoadError::Copy {
                path: self.info.path.clone(),
                rank,
                source,
            })?;
            self.links = Some(LinkDir(dir));
        }
        Ok(&self.links.as_ref().expect("created above").0)
    }

    /// Writes the image into a new in-memory file.
    fn private_copy(&self, rank: usize) -> Result<OwnedFd, LoadError> {
        let copy_err = |source: std::io::Error| LoadError::Copy {
            path: self.info.path.clone(),
            rank,
            source,
        };
        let name = CString::new(format!("smpi-rank-{rank}")).map_err(|e| copy_err(e.into()))?;
        // SAFETY: memfd_create takes a NUL-terminated name and flags; it
        // returns a new descriptor or -1.
        let raw = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(copy_err(std::io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a descriptor we own from this point on.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
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
        Ok(LoadedApp {
            main,
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
    fn missing_file_is_a_read_error() {
        let err = inspect(Path::new("/nonexistent/app"), 1).unwrap_err();
        assert!(err.to_string().contains("/nonexistent/app"), "{err}");
    }
}
