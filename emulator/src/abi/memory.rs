//! Memory the simulation may fold: `SMPI_SHARED_MALLOC` and its partial
//! form (see `privatize::fold`), and the `malloc` family that smpicc's
//! helper header sends here, which folds allocations of at least
//! `smpi/auto-shared-malloc-thresh` bytes (0: never) and hands the others to
//! the C library. And the results of `SMPI_SHARED_CALL`, computed once
//! for all ranks.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::callers;
use super::time::fatal;
use crate::engine::context;
use crate::sim;

/// The length of the shared allocation at `ptr`, if it is one.
fn shared_len(ptr: *mut c_void) -> Option<usize> {
    if ptr.is_null() || !sim::fast(|f| f.any_folded()) {
        return None;
    }
    // A block met while the simulation is busy is the runtime's (the
    // program's code does not run then): never a folded one.
    sim::try_with(|s| s.mem.folding.len_of(ptr.cast())).flatten()
}

fn fold_or_die(size: usize, call: &str) -> *mut c_void {
    sim::fast(|f| f.note_folded());
    match sim::with(|s| s.mem.folding.allocate(size, "malloc", 0)) {
        Ok(p) => p.cast(),
        Err(e) => fatal(&format!(
            "{call}({size}), folded because of smpi/auto-shared-malloc-thresh: {e}"
        )),
    }
}

/// `SMPI_SHARED_MALLOC(size)`: memory whose content the simulation may
/// fold (see `privatize::fold`); a failure stops the simulation with the
/// reason and the fix.
pub(crate) unsafe extern "C" fn smpi_shared_malloc(
    size: usize,
    file: *const std::ffi::c_char,
    line: std::ffi::c_int,
) -> *mut c_void {
    let file = if file.is_null() {
        String::from("?")
    } else {
        // SAFETY: the macro passes __FILE__, a NUL-terminated literal.
        unsafe { std::ffi::CStr::from_ptr(file) }
            .to_string_lossy()
            .into_owned()
    };
    let line = u32::try_from(line).unwrap_or(0);
    sim::fast(|f| f.note_folded());
    match sim::with(|s| s.mem.folding.allocate(size, &file, line)) {
        Ok(p) => p.cast(),
        Err(e) => fatal(&format!("SMPI_SHARED_MALLOC({size}) at {file}:{line}: {e}")),
    }
}

/// `SMPI_PARTIAL_SHARED_MALLOC(size, offsets, n)`: `offsets` holds n
/// (start, end) byte pairs, the parts to fold; the rest is private.
pub(crate) unsafe extern "C" fn smpi_shared_malloc_partial(
    size: usize,
    offsets: *const usize,
    n: std::ffi::c_int,
) -> *mut c_void {
    let n = usize::try_from(n).unwrap_or(0);
    let pairs: Vec<(usize, usize)> = if offsets.is_null() || n == 0 {
        Vec::new()
    } else {
        // SAFETY: SimGrid's contract: offsets holds 2 n entries.
        let flat = unsafe { std::slice::from_raw_parts(offsets, 2 * n) };
        flat.chunks_exact(2).map(|p| (p[0], p[1])).collect()
    };
    if let Some(&(start, end)) = pairs.iter().find(|&&(s, e)| s > e || e > size) {
        fatal(&format!(
            "SMPI_PARTIAL_SHARED_MALLOC({size}): the shared range {start}..{end} is not inside \
             the allocation"
        ));
    }
    sim::fast(|f| f.note_folded());
    match sim::with(|s| s.mem.folding.allocate_partial(size, &pairs)) {
        Ok(p) => p.cast(),
        Err(e) => fatal(&format!("SMPI_PARTIAL_SHARED_MALLOC({size}): {e}")),
    }
}

/// `SMPI_SHARED_FREE(ptr)`.
pub(crate) unsafe extern "C" fn smpi_shared_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    note_freed(ptr);
    if let Err(e) = sim::with(|s| s.mem.folding.free(ptr.cast())) {
        fatal(&format!("SMPI_SHARED_FREE: {e}"));
    }
}

/// The libc allocator itself, under the interposed malloc family
/// (`__libc_malloc` and friends: glibc's names for its own functions).
mod libc_own {
    use std::ffi::c_void;
    extern "C" {
        pub fn __libc_malloc(size: usize) -> *mut c_void;
        pub fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
        pub fn __libc_realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        pub fn __libc_free(ptr: *mut c_void);
        pub fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
    }
}

/// smpirun's own memory (Rust's allocations) comes from libc's allocator
/// directly, never through the interposed malloc family: the simulator's
/// code runs on the ranks' stacks too, and its buffers are neither the
/// program's to fold nor its leaks.
pub struct LibcAllocator;

/// The alignment libc's malloc gives every block (x86-64 glibc).
const MALLOC_ALIGN: usize = 16;

// SAFETY: libc's allocator meets GlobalAlloc's contract: blocks of at
// least the size asked, aligned as asked (memalign beyond malloc's own
// alignment), freed once by the matching call.
unsafe impl std::alloc::GlobalAlloc for LibcAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN && layout.align() <= layout.size() {
            // SAFETY: plain allocation.
            unsafe { libc_own::__libc_malloc(layout.size()) }.cast()
        } else {
            // SAFETY: memalign with a power-of-two alignment (Layout's).
            unsafe { libc_own::__libc_memalign(layout.align(), layout.size()) }.cast()
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN && layout.align() <= layout.size() {
            // SAFETY: plain allocation.
            unsafe { libc_own::__libc_calloc(layout.size(), 1) }.cast()
        } else {
            // SAFETY: as in alloc.
            let p = unsafe { self.alloc(layout) };
            if !p.is_null() {
                // SAFETY: a fresh block of layout.size() bytes.
                unsafe { std::ptr::write_bytes(p, 0, layout.size()) };
            }
            p
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: ptr came from alloc (malloc or memalign: free takes both).
        unsafe { libc_own::__libc_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN && layout.align() <= new_size {
            // SAFETY: ptr came from alloc; realloc keeps malloc's alignment.
            return unsafe { libc_own::__libc_realloc(ptr.cast(), new_size) }.cast();
        }
        // SAFETY: a valid layout (GlobalAlloc's contract on new_size).
        let new_layout =
            unsafe { std::alloc::Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as in alloc.
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            // SAFETY: both blocks hold the smaller size; they are distinct.
            unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            // SAFETY: ptr is freed once.
            unsafe { self.dealloc(ptr, layout) };
        }
        new
    }
}

thread_local! {
    /// The source lines of the program's allocations (for the memory
    /// analysis), read on demand.
    static SOURCE_LINES: std::cell::RefCell<callers::SourceLines> =
        std::cell::RefCell::new(callers::SourceLines::default());
}

/// Where the program allocated: the place its call passes (SimGrid's
/// `smpi_shared_malloc_intercept` and friends), or the address the
/// interposed call returns to (its line found in the line tables).
#[derive(Clone, Copy)]
enum Place {
    Given(*const c_char, c_int),
    ReturnAddress(usize),
}

impl Place {
    /// Whether the allocation is the program's: a place it passes, or a
    /// caller in its code rather than the runtime's.
    fn is_programs(self) -> bool {
        match self {
            Place::Given(..) => true,
            Place::ReturnAddress(addr) => callers::is_program(addr),
        }
    }

    /// The file and line.
    ///
    /// # Safety
    /// A given file is null or a NUL-terminated string.
    unsafe fn resolve(self) -> (String, u32) {
        match self {
            Place::Given(file, line) => {
                let file = if file.is_null() {
                    String::from("?")
                } else {
                    // SAFETY: per the contract.
                    unsafe { CStr::from_ptr(file) }
                        .to_string_lossy()
                        .into_owned()
                };
                (file, u32::try_from(line).unwrap_or(0))
            }
            Place::ReturnAddress(addr) => {
                SOURCE_LINES.with(|lines| lines.borrow_mut().of_return_address(addr))
            }
        }
    }
}

/// Notes an allocation of the program for the memory analysis, when it
/// runs (`leaks`). Skipped when the simulation is busy (the program's
/// code called from inside it, such as a user-defined operation).
///
/// # Safety
/// A given file is null or a NUL-terminated string.
unsafe fn note_allocated(ptr: *mut c_void, size: usize, place: Place) {
    if ptr.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    // SAFETY: per the contract.
    let (file, line) = unsafe { place.resolve() };
    sim::try_with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            allocs.allocated(ptr as usize, size, &file, line);
        }
    });
}

/// Notes that `old` moved to `new`, now of `size` bytes, for the memory
/// analysis: by the program's `realloc` (`place`), or by the runtime's
/// on a block of the program's (`None`: the block keeps its place).
///
/// # Safety
/// A given file is null or a NUL-terminated string.
unsafe fn note_reallocated(old: *mut c_void, new: *mut c_void, size: usize, place: Option<Place>) {
    if new.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    // SAFETY: per the contract.
    let site = place.map(|p| unsafe { p.resolve() });
    sim::try_with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            match site {
                Some((file, line)) => {
                    allocs.reallocated(old as usize, new as usize, size, &file, line)
                }
                None => allocs.moved(old as usize, new as usize, size),
            }
        }
    });
}

/// Notes that `ptr` was freed, for the memory analysis.
fn note_freed(ptr: *mut c_void) {
    if ptr.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    sim::try_with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            allocs.freed(ptr as usize);
        }
    });
}

/// Notes a folded allocation of `size` bytes, for the memory analysis.
fn note_folded(size: usize) {
    if sim::fast(|f| f.analysing()) {
        sim::try_with(|s| {
            if let Some(allocs) = s.allocs.as_mut() {
                allocs.folded(size);
            }
        });
    }
}

/// Whether an allocation of `size` bytes by the code at `place` is folded
/// (`smpi/auto-shared-malloc-thresh`): the program's, on a rank, large
/// enough.
fn folds(size: usize, place: Place) -> bool {
    sim::fast(|f| f.folds(size)) && place.is_programs()
}

/// Whether the memory analysis follows allocations by the code at `place`.
fn followed(place: Place) -> bool {
    sim::fast(|f| f.analysing()) && place.is_programs()
}

/// `size` bytes, folded if `smpi/auto-shared-malloc-thresh` asks for it
/// (then `true`), else from the C library.
fn allocate(size: usize, call: &str, place: Place) -> (*mut c_void, bool) {
    if folds(size, place) {
        note_folded(size);
        return (fold_or_die(size, call), true);
    }
    // SAFETY: plain C allocation.
    (unsafe { libc_own::__libc_malloc(size) }, false)
}

/// Frees what [`allocate`] or the C library gave.
///
/// # Safety
/// `ptr` is null or a live allocation of either.
unsafe fn release(ptr: *mut c_void) {
    if shared_len(ptr).is_some() {
        if let Err(e) = sim::with(|s| s.mem.folding.free(ptr.cast())) {
            fatal(&format!("free: {e}"));
        }
        return;
    }
    // SAFETY: per the contract, from the C library's allocator.
    unsafe { libc_own::__libc_free(ptr) }
}

/// Moves the live block `ptr` (`folded`: its length if it is folded, else
/// a block of the C library's) into `new`, and frees it.
///
/// # Safety
/// `ptr` is live; `new` is a distinct block of at least `size` bytes.
unsafe fn move_block(ptr: *mut c_void, folded: Option<usize>, new: *mut c_void, size: usize) {
    let keep = match folded {
        Some(len) => len.min(size),
        // SAFETY: ptr came from the C library's allocator.
        None => unsafe { libc::malloc_usable_size(ptr) }.min(size),
    };
    // SAFETY: both blocks hold at least `keep` bytes and are distinct.
    unsafe { std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), new.cast::<u8>(), keep) };
    // SAFETY: ptr is freed once, by the matching allocator (a folded block
    // is never followed by the memory analysis: nothing to note).
    unsafe { release(ptr) };
}

/// A rank's `malloc` (`place`: whose, where).
///
/// # Safety
/// A given file is null or a NUL-terminated string.
unsafe fn rank_malloc(size: usize, place: Place) -> *mut c_void {
    let (p, folded) = allocate(size, "malloc", place);
    if !folded && followed(place) {
        // SAFETY: per the contract.
        unsafe { note_allocated(p, size, place) };
    }
    p
}

/// A rank's `calloc`. A folded allocation is zeroed like any other: the
/// block it maps may hold another buffer's data.
///
/// # Safety
/// As [`rank_malloc`].
unsafe fn rank_calloc(n: usize, size: usize, place: Place) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        // SAFETY: calloc reports the overflow itself (NULL, ENOMEM).
        return unsafe { libc_own::__libc_calloc(n, size) };
    };
    if folds(total, place) {
        note_folded(total);
        let p = fold_or_die(total, "calloc");
        // SAFETY: p is a fresh allocation of at least total bytes.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, total) };
        return p;
    }
    // SAFETY: plain C allocation.
    let p = unsafe { libc_own::__libc_calloc(n, size) };
    if followed(place) {
        // SAFETY: per the contract.
        unsafe { note_allocated(p, total, place) };
    }
    p
}

/// A rank's `realloc`. For the memory analysis, `realloc(NULL, n)` is a
/// `malloc`, `realloc(p, 0)` a `free`, and otherwise the block moves (now
/// of `size` bytes, made here).
///
/// # Safety
/// As [`rank_malloc`]; `ptr` is null or a live allocation.
unsafe fn rank_realloc(ptr: *mut c_void, size: usize, place: Place) -> *mut c_void {
    let old = shared_len(ptr);
    let mut folded = false;
    let new = if old.is_none() && !folds(size, place) {
        // SAFETY: ptr is null or came from the C library's allocator.
        unsafe { libc_own::__libc_realloc(ptr, size) }
    } else {
        let (new, f) = allocate(size, "realloc", place);
        folded = f;
        if new.is_null() {
            return new;
        }
        if !ptr.is_null() {
            // SAFETY: ptr is live, new a fresh block of size bytes.
            unsafe { move_block(ptr, old, new, size) };
        }
        new
    };
    if folded {
        // Folded blocks are not followed (nor are SimGrid's).
        note_freed(ptr);
    } else if new.is_null() {
        // realloc(p, 0) frees p; a failed realloc leaves it as it was.
        if size == 0 {
            note_freed(ptr);
        }
    } else if !followed(place) {
        // SAFETY: no place is resolved.
        unsafe { note_reallocated(ptr, new, size, None) };
    } else if ptr.is_null() {
        // SAFETY: per the contract.
        unsafe { note_allocated(new, size, place) };
    } else {
        // SAFETY: per the contract.
        unsafe { note_reallocated(ptr, new, size, Some(place)) };
    }
    new
}

/// `free` anywhere: shared allocations are unmapped, anything else goes
/// to the C library.
///
/// # Safety
/// `ptr` is null or a live allocation of the malloc family.
unsafe fn any_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    note_freed(ptr);
    // SAFETY: per the contract.
    unsafe { release(ptr) }
}

/// `malloc` of the whole process (csrc/alloc_interpose.c passes the
/// caller's return address): a rank's goes through the simulation,
/// anything else is the C library's.
///
/// # Safety
/// None beyond C's (`caller` is only compared and looked up).
#[no_mangle]
pub unsafe extern "C" fn smpi_interposed_malloc(size: usize, caller: *const c_void) -> *mut c_void {
    if !context::in_rank() {
        // SAFETY: plain C allocation.
        return unsafe { libc_own::__libc_malloc(size) };
    }
    // SAFETY: no file is passed.
    unsafe { rank_malloc(size, Place::ReturnAddress(caller as usize)) }
}

/// `calloc` of the whole process, as [`smpi_interposed_malloc`].
///
/// # Safety
/// As [`smpi_interposed_malloc`].
#[no_mangle]
pub unsafe extern "C" fn smpi_interposed_calloc(
    n: usize,
    size: usize,
    caller: *const c_void,
) -> *mut c_void {
    if !context::in_rank() {
        // SAFETY: plain C allocation.
        return unsafe { libc_own::__libc_calloc(n, size) };
    }
    // SAFETY: no file is passed.
    unsafe { rank_calloc(n, size, Place::ReturnAddress(caller as usize)) }
}

/// `realloc` of the whole process, as [`smpi_interposed_malloc`]; a folded
/// block moves whoever reallocates it.
///
/// # Safety
/// The C contract: `ptr` is null or a live allocation.
#[no_mangle]
pub unsafe extern "C" fn smpi_interposed_realloc(
    ptr: *mut c_void,
    size: usize,
    caller: *const c_void,
) -> *mut c_void {
    if !context::in_rank() {
        // Off a rank nothing is folded, but a folded block of a rank's may
        // move.
        let Some(len) = shared_len(ptr) else {
            // SAFETY: per the contract, a block of the C library's.
            return unsafe { libc_own::__libc_realloc(ptr, size) };
        };
        // SAFETY: plain C allocation.
        let new = unsafe { libc_own::__libc_malloc(size) };
        if !new.is_null() {
            // SAFETY: ptr is a live folded block, new a fresh block of
            // size bytes.
            unsafe { move_block(ptr, Some(len), new, size) };
        }
        return new;
    }
    // SAFETY: no file is passed; ptr per the contract.
    unsafe { rank_realloc(ptr, size, Place::ReturnAddress(caller as usize)) }
}

/// `free` of the whole process.
///
/// # Safety
/// The C contract: `ptr` is null or a live allocation.
#[no_mangle]
pub unsafe extern "C" fn smpi_interposed_free(ptr: *mut c_void) {
    // SAFETY: per the contract.
    unsafe { any_free(ptr) }
}

/// SimGrid's `smpi_shared_malloc_intercept`: `malloc` called at `line` of
/// `file`.
pub(crate) unsafe extern "C" fn smpi_shared_malloc_intercept(
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    // SAFETY: the caller passes __FILE__.
    unsafe { rank_malloc(size, Place::Given(file, line)) }
}

/// SimGrid's `smpi_shared_calloc_intercept`.
pub(crate) unsafe extern "C" fn smpi_shared_calloc_intercept(
    n: usize,
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    // SAFETY: the caller passes __FILE__.
    unsafe { rank_calloc(n, size, Place::Given(file, line)) }
}

/// SimGrid's `smpi_shared_realloc_intercept`.
pub(crate) unsafe extern "C" fn smpi_shared_realloc_intercept(
    ptr: *mut c_void,
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    // SAFETY: the caller passes __FILE__ and a live block or null.
    unsafe { rank_realloc(ptr, size, Place::Given(file, line)) }
}

/// SimGrid's `smpi_free`.
pub(crate) unsafe extern "C" fn smpi_free(ptr: *mut c_void) {
    // SAFETY: ptr is null or a live allocation.
    unsafe { any_free(ptr) }
}

/// `smpi_shared_unfold(ptr, len)`: makes the pages under `ptr .. ptr + len`
/// private again where they are folded (for values inside a folded buffer
/// that steer the program, such as HPL's pivot vector); returns how many
/// bytes became private.
pub(crate) unsafe extern "C" fn smpi_shared_unfold(ptr: *mut c_void, len: usize) -> usize {
    if ptr.is_null() || !sim::fast(|f| f.any_folded()) {
        return 0;
    }
    match sim::with(|s| s.mem.folding.unfold(ptr.cast(), len)) {
        Ok(n) => n,
        Err(e) => fatal(&format!("smpi_shared_unfold({len}): {e}")),
    }
}

/// SimGrid's key of a shared call: "func:input".
///
/// # Safety
/// `func` and `input` are null or NUL-terminated strings.
unsafe fn shared_call_key(func: *const c_char, input: *const c_char, call: &str) -> String {
    let text = |p: *const c_char, what: &str| {
        if p.is_null() {
            fatal(&format!("{call}: {what} is a null pointer"));
        }
        // SAFETY: per the contract, a NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    };
    format!("{}:{}", text(func, "func"), text(input, "input"))
}

/// `SMPI_SHARED_CALL`: whether (func, input) has a stored result.
pub(crate) unsafe extern "C" fn smpi_shared_known_call(
    func: *const c_char,
    input: *const c_char,
) -> c_int {
    // SAFETY: the macro passes the function's name and the caller's input.
    let key = unsafe { shared_call_key(func, input, "smpi_shared_known_call") };
    c_int::from(sim::with(|s| s.shared_calls.contains_key(&key)))
}

/// `SMPI_SHARED_CALL`: the result stored for (func, input).
pub(crate) unsafe extern "C" fn smpi_shared_get_call(
    func: *const c_char,
    input: *const c_char,
) -> *mut c_void {
    // SAFETY: as in smpi_shared_known_call.
    let key = unsafe { shared_call_key(func, input, "smpi_shared_get_call") };
    match sim::with(|s| s.shared_calls.get(&key).copied()) {
        Some(data) => data as *mut c_void,
        None => fatal(&format!(
            "smpi_shared_get_call: no result stored for {key} (SMPI_SHARED_CALL stores it)"
        )),
    }
}

/// `SMPI_SHARED_CALL`: stores `data` as the result of (func, input) and
/// returns it.
pub(crate) unsafe extern "C" fn smpi_shared_set_call(
    func: *const c_char,
    input: *const c_char,
    data: *mut c_void,
) -> *mut c_void {
    // SAFETY: as in smpi_shared_known_call.
    let key = unsafe { shared_call_key(func, input, "smpi_shared_set_call") };
    sim::with(|s| s.shared_calls.insert(key, data as usize));
    data
}
