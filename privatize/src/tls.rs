//! A loaded copy's thread-local storage (its `__thread` variables): the
//! block the dynamic linker gave it for the calling OS thread, and the
//! image a new thread's block starts from. smpirun runs a rank's
//! simulated threads on one OS thread, so they share that block; its
//! user keeps one copy of the contents per simulated thread and puts the
//! running thread's in place ([`ThreadLocals::save`],
//! [`ThreadLocals::restore`]).

use std::cell::Cell;
use std::ffi::{c_int, c_void};

/// The thread-local storage of one loaded object.
#[derive(Debug)]
pub struct ThreadLocals {
    /// The dlopen handle (`RTLD_DI_TLS_DATA` asks it for the block).
    handle: usize,
    /// The initialised part of the image (`.tdata`), in the loaded copy.
    init: (usize, usize),
    /// The size of a block (`.tdata` and `.tbss`).
    size: usize,
    /// The calling thread's block, once allocated (it never moves).
    block: Cell<usize>,
}

/// What [`ThreadLocals::of`]'s search looks for and finds.
struct Search {
    modid: usize,
    found: Option<((usize, usize), usize)>,
}

/// `dl_iterate_phdr`'s callback: the PT_TLS segment of the object whose
/// TLS module is the search's.
///
/// # Safety
/// `info` points at a valid record and `data` at a [`Search`].
unsafe extern "C" fn find_module(
    info: *mut libc::dl_phdr_info,
    _size: usize,
    data: *mut c_void,
) -> c_int {
    // SAFETY: per the contract.
    let (info, search) = unsafe { (&*info, &mut *data.cast::<Search>()) };
    if info.dlpi_tls_modid != search.modid || info.dlpi_phdr.is_null() {
        return 0;
    }
    // SAFETY: the loader's program headers of the object, dlpi_phnum of
    // them.
    let headers =
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
    if let Some(h) = headers.iter().find(|h| h.p_type == libc::PT_TLS) {
        let start = info.dlpi_addr as usize + h.p_vaddr as usize;
        search.found = Some(((start, h.p_filesz as usize), h.p_memsz as usize));
    }
    1
}

impl ThreadLocals {
    /// The thread-local storage of the object `handle` (from `dlopen`), if
    /// it has any.
    pub(crate) fn of(handle: *mut c_void) -> Option<ThreadLocals> {
        let mut modid: usize = 0;
        // SAFETY: a live dlopen handle; RTLD_DI_TLS_MODID writes a size_t
        // (0 when the object has no TLS).
        let r = unsafe {
            libc::dlinfo(
                handle,
                libc::RTLD_DI_TLS_MODID,
                std::ptr::from_mut(&mut modid).cast(),
            )
        };
        if r != 0 || modid == 0 {
            return None;
        }
        let mut search = Search { modid, found: None };
        // SAFETY: dl_iterate_phdr calls `find_module` with valid records;
        // `search` is alive and not otherwise used during the call.
        unsafe {
            libc::dl_iterate_phdr(
                Some(find_module),
                std::ptr::from_mut(&mut search).cast::<c_void>(),
            );
        }
        let (init, size) = search.found?;
        Some(ThreadLocals {
            handle: handle as usize,
            init,
            size,
            block: Cell::new(0),
        })
    }

    /// The calling thread's block, if the object's code used it yet.
    fn block(&self) -> Option<usize> {
        if self.block.get() == 0 {
            let mut block: *mut c_void = std::ptr::null_mut();
            // SAFETY: a live dlopen handle; RTLD_DI_TLS_DATA writes the
            // block's address, or null when not allocated yet.
            let r = unsafe {
                libc::dlinfo(
                    self.handle as *mut c_void,
                    libc::RTLD_DI_TLS_DATA,
                    std::ptr::from_mut(&mut block).cast(),
                )
            };
            if r == 0 {
                self.block.set(block as usize);
            }
        }
        Some(self.block.get()).filter(|&b| b != 0)
    }

    /// Copies the block's contents into `into`; false if there is no block
    /// yet (its contents are then the initial image's).
    pub fn save(&self, into: &mut Vec<u8>) -> bool {
        let Some(block) = self.block() else {
            return false;
        };
        into.clear();
        // SAFETY: the block holds `size` bytes of the object's TLS for this
        // thread; no reference into it is held (the object's code is
        // between instructions: no rank runs).
        into.extend_from_slice(unsafe {
            std::slice::from_raw_parts(block as *const u8, self.size)
        });
        true
    }

    /// Puts `image` (a thread's saved contents, or the initial image) in
    /// the block, if there is one.
    pub fn restore(&self, image: Option<&[u8]>) {
        let Some(block) = self.block() else {
            return;
        };
        let block = block as *mut u8;
        match image {
            // SAFETY: as in `save`; the image came from a block of the
            // same size.
            Some(image) => unsafe {
                std::ptr::copy_nonoverlapping(image.as_ptr(), block, self.size.min(image.len()));
            },
            // SAFETY: the initialised image lies in the loaded copy
            // (`init.1` <= `size` bytes); the rest of the block is zeroed.
            None => unsafe {
                std::ptr::copy_nonoverlapping(self.init.0 as *const u8, block, self.init.1);
                std::ptr::write_bytes(block.add(self.init.1), 0, self.size - self.init.1);
            },
        }
    }
}
