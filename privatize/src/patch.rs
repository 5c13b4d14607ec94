//! Replacing functions of the loaded program: the kernel models (BLAS
//! calls answered by a duration) and the application's function models.
//!
//! smpicc links programs with `-Bsymbolic`, so a program's calls to its own
//! functions (HPL's `HPL_pdmatgen`, a BLAS linked in statically) never go
//! through the dynamic linker: a library loaded first cannot interpose them.
//! So the replacement happens in the code itself: the first bytes of the
//! function, wherever the program's copy resolves it (in the program or a
//! library it depends on, such as `libopenblas.so`), become an absolute jump
//! to the replacement. The original is not callable afterwards; a
//! replacement that needs the original's work must do it itself.

use std::ffi::c_void;
#[cfg(test)]
use std::ffi::CString;
use std::ptr::NonNull;

use nix::sys::mman::{mprotect, ProtFlags};

/// Why a function cannot be replaced.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PatchError {
    #[error(
        "cannot replace {name} in {object}: its code is {size} bytes long, and the jump to \
         the replacement takes {needed}"
    )]
    TooShort {
        name: String,
        object: String,
        size: usize,
        needed: usize,
    },
    #[error("cannot replace {name}: {reason}")]
    Protect { name: String, reason: String },
    #[error("replacing functions is not supported on {0}")]
    Unsupported(&'static str),
}

/// A function as the dynamic linker resolved it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSite {
    /// Entry address.
    pub addr: usize,
    /// Length of its code (the symbol's size; 0 when unknown).
    pub size: usize,
    /// The file that defines it.
    pub object: String,
}

/// `Elf64_Sym`, as `dladdr1` returns it.
#[repr(C)]
struct ElfSym {
    st_name: u32,
    st_info: u8,
    st_other: u8,
    st_shndx: u16,
    st_value: u64,
    st_size: u64,
}

/// `RTLD_DL_SYMENT` of `<dlfcn.h>`.
const RTLD_DL_SYMENT: libc::c_int = 1;

/// The function whose code starts at `addr` (an address `dlsym` returned).
pub(crate) fn site_of(addr: *mut c_void) -> FunctionSite {
    let mut info = crate::empty_dl_info();
    let mut sym: *mut c_void = std::ptr::null_mut();
    // SAFETY: addr lies in a loaded object; info and sym are valid outputs.
    let found = unsafe { libc::dladdr1(addr, &mut info, &mut sym, RTLD_DL_SYMENT) };
    let size = if found != 0 && !sym.is_null() {
        // SAFETY: with RTLD_DL_SYMENT, sym points at the symbol's ELF entry
        // in the object's symbol table (64-bit targets only: see below).
        unsafe { (*sym.cast::<ElfSym>()).st_size as usize }
    } else {
        0
    };
    let object = if found != 0 && !info.dli_fname.is_null() {
        // SAFETY: dli_fname is the object's NUL-terminated path.
        unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }
            .to_string_lossy()
            .into_owned()
    } else {
        String::from("?")
    };
    FunctionSite {
        addr: addr as usize,
        size,
        object,
    }
}

/// The jump that replaces a function's first bytes: to `target`, clobbering
/// no argument register.
fn jump_to(target: usize) -> Result<Vec<u8>, PatchError> {
    let mut code = Vec::with_capacity(16);
    match std::env::consts::ARCH {
        "x86_64" => {
            // jmp *0(%rip); .quad target
            code.extend_from_slice(&[0xff, 0x25, 0, 0, 0, 0]);
            code.extend_from_slice(&(target as u64).to_le_bytes());
        }
        "aarch64" => {
            // ldr x16, #8; br x16; .quad target
            code.extend_from_slice(&0x5800_0050u32.to_le_bytes());
            code.extend_from_slice(&0xd61f_0200u32.to_le_bytes());
            code.extend_from_slice(&(target as u64).to_le_bytes());
        }
        other => return Err(PatchError::Unsupported(other)),
    }
    Ok(code)
}

/// Makes every call of the function at `site` run `target` instead.
/// `target` must have the same C signature.
pub(crate) fn redirect(site: &FunctionSite, name: &str, target: usize) -> Result<(), PatchError> {
    let code = jump_to(target)?;
    if site.size < code.len() {
        return Err(PatchError::TooShort {
            name: name.to_owned(),
            object: site.object.clone(),
            size: site.size,
            needed: code.len(),
        });
    }
    let page = crate::fold::page_size();
    let start = site.addr / page * page;
    let end = (site.addr + code.len()).div_ceil(page) * page;
    let code_pages = NonNull::new(start as *mut c_void).expect("code is not at address 0");
    let protect = |prot: ProtFlags| {
        // SAFETY: [start, end) are whole pages of the object's mapped code;
        // the code keeps its execute right throughout.
        unsafe { mprotect(code_pages, end - start, prot) }.map_err(|e| PatchError::Protect {
            name: name.to_owned(),
            reason: std::io::Error::from(e).to_string(),
        })
    };
    protect(ProtFlags::PROT_READ | ProtFlags::PROT_WRITE | ProtFlags::PROT_EXEC)?;
    // SAFETY: the function's code is at least code.len() bytes long (its
    // symbol says so) and now writable; one thread runs the simulation, and
    // nobody executes this function while it is rewritten (it is replaced
    // before the program's main starts).
    unsafe {
        std::ptr::copy_nonoverlapping(code.as_ptr(), site.addr as *mut u8, code.len());
    }
    #[cfg(target_arch = "aarch64")]
    {
        extern "C" {
            fn __clear_cache(start: *mut c_void, end: *mut c_void);
        }
        // SAFETY: the range was just written; the instruction cache must
        // see the new code.
        unsafe {
            __clear_cache(
                site.addr as *mut c_void,
                (site.addr + code.len()) as *mut c_void,
            )
        };
    }
    protect(ProtFlags::PROT_READ | ProtFlags::PROT_EXEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jump_needs_room() {
        let site = FunctionSite {
            addr: 0x1000,
            size: 4,
            object: "libx.so".into(),
        };
        let err = redirect(&site, "tiny", 0x2000).unwrap_err();
        assert!(matches!(err, PatchError::TooShort { size: 4, .. }), "{err}");
        assert!(err.to_string().contains("tiny in libx.so"), "{err}");
    }

    #[test]
    fn a_site_names_its_object_and_size() {
        let name = CString::new("abs").unwrap();
        // SAFETY: the running program's handle and a C string.
        let addr = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
        assert!(!addr.is_null(), "libc's abs is visible");
        let site = site_of(addr);
        assert_eq!(site.addr, addr as usize);
        assert!(site.object.contains("libc"), "{site:?}");
        assert!(site.size > 0, "{site:?}");
    }
}
