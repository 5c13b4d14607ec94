//! The program's raw arguments, checked and converted once: null
//! pointers, C arrays and strings, output arguments and statuses. (What
//! the MPI layer checks of their meaning, counts, ranks, tags and roots,
//! is `mpi::check`.) Each function trusts what MPI says the caller
//! provides, as its `# Safety` section states.

use std::ffi::{c_char, c_int, CStr};

use crate::mpi::{class, MpiError, MpiResult, RawStatus, Status};

/// `MPI_Status` as laid out in mpi.h.
pub type CStatus = RawStatus;

/// MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE.
const STATUS_IGNORE: usize = 1;

/// MPI_REQUEST_NULL.
pub const REQUEST_NULL: c_int = 0;

/// Fails with MPI_ERR_ARG when `p`, the argument `what`, is null.
pub fn non_null<T>(p: *const T, what: &str) -> MpiResult<()> {
    if p.is_null() {
        return Err(MpiError::new(
            class::ARG,
            format!("{what} is a null pointer"),
        ));
    }
    Ok(())
}

/// Writes `st` into a user status unless it is ignored.
///
/// # Safety
/// `p` is null, MPI_STATUS_IGNORE, or points to a writable MPI_Status.
pub unsafe fn write_status(p: *mut CStatus, st: &Status, set_error: bool) {
    if p.is_null() || p as usize == STATUS_IGNORE {
        return;
    }
    // SAFETY: per the contract above.
    unsafe { &mut *p }.fill(st, set_error);
}

/// Writes statuses[i] of an array call.
///
/// # Safety
/// `statuses` is MPI_STATUSES_IGNORE or has room for index i.
pub unsafe fn write_status_at(statuses: *mut CStatus, i: usize, st: &Status) {
    if statuses.is_null() || statuses as usize == STATUS_IGNORE {
        return;
    }
    // SAFETY: per the contract.
    unsafe { write_status(statuses.add(i), st, true) };
}

/// Reads `n` values of a C array, failing with MPI_ERR_ARG on null.
///
/// # Safety
/// `p` points to `n` readable values when `n > 0`.
pub unsafe fn read_array<T: Copy>(p: *const T, n: usize, what: &str) -> MpiResult<Vec<T>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    non_null(p, what)?;
    // SAFETY: per the contract.
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

/// Writes `v` through an output pointer, failing with MPI_ERR_ARG on null.
///
/// # Safety
/// `p` is null or points to writable memory for a `T`.
pub unsafe fn out<T>(p: *mut T, v: T, what: &str) -> MpiResult<()> {
    non_null(p, what)?;
    // SAFETY: non-null, writable per the contract.
    unsafe { p.write(v) };
    Ok(())
}

/// Writes `v` into a C array, failing with MPI_ERR_ARG on null (a null
/// array is fine when `v` is empty: nothing is written).
///
/// # Safety
/// `p` has room for `v.len()` values when `v` is not empty.
pub unsafe fn write_array<T: Copy>(p: *mut T, v: &[T], what: &str) -> MpiResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    non_null(p, what)?;
    // SAFETY: per the contract.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    Ok(())
}

/// Reads a NUL-terminated C string (invalid UTF-8 replaced), failing with
/// MPI_ERR_ARG on null.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
pub unsafe fn string(p: *const c_char, what: &str) -> MpiResult<String> {
    non_null(p, what)?;
    // SAFETY: per the contract.
    Ok(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Reads the request handle at `p` (an in/out argument).
///
/// # Safety
/// `p` is null or points to a readable MPI_Request.
pub unsafe fn request_at(p: *const c_int) -> MpiResult<c_int> {
    non_null(p, "request")?;
    // SAFETY: non-null, readable per the contract.
    Ok(unsafe { *p })
}

/// A C array argument (counts, displacements, datatypes), read only when
/// and as far as the MPI layer needs it.
pub struct CArray<T>(pub *const T);

impl<T: Copy> crate::mpi::check::ArgArray<T> for CArray<T> {
    fn read(&self, n: usize, what: &'static str) -> MpiResult<Vec<T>> {
        non_null(self.0, what)?;
        // SAFETY: the MPI layer reads an array argument only where the
        // call makes it significant, and only as many entries as MPI says
        // the program passes there (one per rank of a group, say).
        Ok(unsafe { std::slice::from_raw_parts(self.0, n) }.to_vec())
    }
}
