//! Memory the simulation may fold: `SMPI_SHARED_MALLOC` and its partial
//! form (see `privatize::fold`), and the `malloc` family that smpicc's
//! helper header sends here, which folds allocations of at least
//! `smpi/auto-shared-malloc-thresh` bytes (0: never) and hands the others to
//! the C library. And the results of `SMPI_SHARED_CALL`, computed once
//! for all ranks.

use std::ffi::{c_char, c_int, c_void, CStr};

use super::time::fatal;
use crate::sim;

/// The length of the shared allocation at `ptr`, if it is one.
fn shared_len(ptr: *mut c_void) -> Option<usize> {
    if ptr.is_null() || !sim::fast(|f| f.any_folded()) {
        return None;
    }
    sim::with(|s| s.mem.folding.len_of(ptr.cast()))
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

/// The place a call of the malloc family passes (`__FILE__`, `__LINE__`).
///
/// # Safety
/// `file` is null or a NUL-terminated string that outlives `'a`.
unsafe fn place<'a>(file: *const c_char, line: c_int) -> (std::borrow::Cow<'a, str>, u32) {
    let file = if file.is_null() {
        std::borrow::Cow::Borrowed("?")
    } else {
        // SAFETY: per the contract.
        unsafe { CStr::from_ptr(file) }.to_string_lossy()
    };
    (file, u32::try_from(line).unwrap_or(0))
}

/// Notes an allocation of the program for the memory analysis, when it
/// runs (`leaks`).
///
/// # Safety
/// `file` is null or a NUL-terminated string.
unsafe fn note_allocated(ptr: *mut c_void, size: usize, file: *const c_char, line: c_int) {
    if ptr.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    // SAFETY: per the contract.
    let (file, line) = unsafe { place(file, line) };
    sim::with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            allocs.allocated(ptr as usize, size, &file, line);
        }
    });
}

/// Notes that the program's `realloc` moved `old` to `new`, now of `size`
/// bytes, for the memory analysis.
///
/// # Safety
/// `file` is null or a NUL-terminated string.
unsafe fn note_reallocated(
    old: *mut c_void,
    new: *mut c_void,
    size: usize,
    file: *const c_char,
    line: c_int,
) {
    if new.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    // SAFETY: per the contract.
    let (file, line) = unsafe { place(file, line) };
    sim::with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            allocs.reallocated(old as usize, new as usize, size, &file, line);
        }
    });
}

/// Notes that the program freed `ptr`, for the memory analysis.
fn note_freed(ptr: *mut c_void) {
    if ptr.is_null() || !sim::fast(|f| f.analysing()) {
        return;
    }
    sim::with(|s| {
        if let Some(allocs) = s.allocs.as_mut() {
            allocs.freed(ptr as usize);
        }
    });
}

/// Notes a folded allocation of `size` bytes, for the memory analysis.
fn note_folded(size: usize) {
    if sim::fast(|f| f.analysing()) {
        sim::with(|s| {
            if let Some(allocs) = s.allocs.as_mut() {
                allocs.folded(size);
            }
        });
    }
}

/// `size` bytes, folded if `smpi/auto-shared-malloc-thresh` asks for it
/// (then `true`), else from the C library.
fn allocate(size: usize, call: &str) -> (*mut c_void, bool) {
    if sim::fast(|f| f.folds(size)) {
        note_folded(size);
        return (fold_or_die(size, call), true);
    }
    // SAFETY: plain C allocation.
    (unsafe { libc::malloc(size) }, false)
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
    unsafe { libc::free(ptr) }
}

/// `malloc` in programs built by smpicc (SimGrid's name), called at
/// `line` of `file`.
pub(crate) unsafe extern "C" fn smpi_shared_malloc_intercept(
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    let (p, folded) = allocate(size, "malloc");
    if !folded {
        // SAFETY: the macro passes __FILE__.
        unsafe { note_allocated(p, size, file, line) };
    }
    p
}

/// `calloc` in programs built by smpicc (SimGrid's name). A folded
/// allocation is zeroed like any other: the block it maps may hold
/// another buffer's data.
pub(crate) unsafe extern "C" fn smpi_shared_calloc_intercept(
    n: usize,
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        // SAFETY: calloc reports the overflow itself (NULL, ENOMEM).
        return unsafe { libc::calloc(n, size) };
    };
    if sim::fast(|f| f.folds(total)) {
        note_folded(total);
        let p = fold_or_die(total, "calloc");
        // SAFETY: p is a fresh allocation of at least total bytes.
        unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, total) };
        return p;
    }
    // SAFETY: plain C allocation.
    let p = unsafe { libc::calloc(n, size) };
    // SAFETY: the macro passes __FILE__.
    unsafe { note_allocated(p, total, file, line) };
    p
}

/// `realloc` in programs built by smpicc (SimGrid's name). For the memory
/// analysis, `realloc(NULL, n)` is a `malloc`, `realloc(p, 0)` a `free`,
/// and otherwise the block moves (now of `size` bytes, made here).
pub(crate) unsafe extern "C" fn smpi_shared_realloc_intercept(
    ptr: *mut c_void,
    size: usize,
    file: *const c_char,
    line: c_int,
) -> *mut c_void {
    let old = shared_len(ptr);
    let mut folded = false;
    let new = if old.is_none() && !sim::fast(|f| f.folds(size)) {
        // SAFETY: ptr is null or came from the C library's allocator.
        unsafe { libc::realloc(ptr, size) }
    } else {
        let (new, f) = allocate(size, "realloc");
        folded = f;
        if new.is_null() {
            return new;
        }
        if !ptr.is_null() {
            let keep = match old {
                Some(len) => len.min(size),
                // SAFETY: ptr came from the C library's allocator.
                None => unsafe { libc::malloc_usable_size(ptr) }.min(size),
            };
            // SAFETY: both buffers hold at least `keep` bytes and are
            // distinct.
            unsafe { std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), new.cast::<u8>(), keep) };
            // SAFETY: ptr is freed once, by the matching allocator.
            unsafe { release(ptr) };
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
    } else if ptr.is_null() {
        // SAFETY: the macro passes __FILE__.
        unsafe { note_allocated(new, size, file, line) };
    } else {
        // SAFETY: the macro passes __FILE__.
        unsafe { note_reallocated(ptr, new, size, file, line) };
    }
    new
}

/// `free` in programs built by smpicc: shared allocations are unmapped,
/// anything else goes to the C library.
pub(crate) unsafe extern "C" fn smpi_free(ptr: *mut c_void) {
    note_freed(ptr);
    // SAFETY: ptr is null or came from the intercepted malloc family or
    // the C library.
    unsafe { release(ptr) }
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
