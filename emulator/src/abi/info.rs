//! Info objects: ordered (key, value) string pairs.

use std::ffi::{c_char, c_int, CStr};

use super::call;
use super::check::out;
use super::env::copy_c_string;
use crate::mpi::{self, class, MpiError, MpiResult};
use crate::sim;

/// MPI_MAX_INFO_KEY and MPI_MAX_INFO_VAL (mpi.h).
const MAX_KEY: usize = 255;
const MAX_VAL: usize = 1024;

/// Reads a key, checking its length (MPI_ERR_INFO_KEY).
///
/// # Safety
/// `key` is null or a NUL-terminated string.
unsafe fn key_of(key: *const c_char) -> MpiResult<String> {
    if key.is_null() {
        return Err(MpiError::new(class::INFO_KEY, "key is a null pointer"));
    }
    // SAFETY: per the contract.
    let k = unsafe { CStr::from_ptr(key) }
        .to_string_lossy()
        .into_owned();
    if k.is_empty() || k.len() > MAX_KEY {
        return Err(MpiError::new(
            class::INFO_KEY,
            format!(
                "info keys have 1 to {MAX_KEY} characters, '{k}' has {}",
                k.len()
            ),
        ));
    }
    Ok(k)
}

fn with_info<R>(
    info: c_int,
    f: impl FnOnce(&mut Vec<(String, String)>) -> MpiResult<R>,
) -> MpiResult<R> {
    sim::mpi(|w| {
        let entries = w.mpi.info_mut(info)?;
        f(entries)
    })
}

/// Checks an info argument: MPI_INFO_NULL or a live info object.
pub(super) fn check_info(info: c_int) -> MpiResult<()> {
    if info == mpi::INFO_NULL {
        return Ok(());
    }
    with_info(info, |_| Ok(()))
}

pub(crate) unsafe extern "C" fn MPI_Info_create(info: *mut c_int) -> c_int {
    call("MPI_Info_create", mpi::COMM_WORLD, || {
        let h = sim::mpi(|w| w.mpi.add_info(Vec::new()));
        // SAFETY: the caller's output argument.
        unsafe { out(info, h, "info") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_set(
    info: c_int,
    key: *const c_char,
    value: *const c_char,
) -> c_int {
    call("MPI_Info_set", mpi::COMM_WORLD, || {
        // SAFETY: NUL-terminated strings from the caller.
        let k = unsafe { key_of(key) }?;
        if value.is_null() {
            return Err(MpiError::new(class::INFO_VALUE, "value is a null pointer"));
        }
        // SAFETY: as above.
        let v = unsafe { CStr::from_ptr(value) }
            .to_string_lossy()
            .into_owned();
        if v.len() > MAX_VAL {
            return Err(MpiError::new(
                class::INFO_VALUE,
                format!("info values have at most {MAX_VAL} characters"),
            ));
        }
        with_info(info, |e| {
            match e.iter_mut().find(|(ek, _)| *ek == k) {
                Some(entry) => entry.1 = v,
                None => e.push((k, v)),
            }
            Ok(())
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_get(
    info: c_int,
    key: *const c_char,
    valuelen: c_int,
    value: *mut c_char,
    flag: *mut c_int,
) -> c_int {
    call("MPI_Info_get", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let k = unsafe { key_of(key) }?;
        let cap = usize::try_from(valuelen)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid valuelen {valuelen}")))?;
        let found = with_info(info, |e| {
            Ok(e.iter().find(|(ek, _)| *ek == k).map(|(_, v)| v.clone()))
        })?;
        if let Some(v) = &found {
            if value.is_null() {
                return Err(MpiError::new(class::ARG, "value is a null pointer"));
            }
            // SAFETY: MPI gives room for valuelen characters plus the NUL.
            unsafe { copy_c_string(value, cap + 1, v) };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_get_valuelen(
    info: c_int,
    key: *const c_char,
    valuelen: *mut c_int,
    flag: *mut c_int,
) -> c_int {
    call("MPI_Info_get_valuelen", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let k = unsafe { key_of(key) }?;
        let found = with_info(info, |e| {
            Ok(e.iter().find(|(ek, _)| *ek == k).map(|(_, v)| v.len()))
        })?;
        if let Some(n) = found {
            // SAFETY: the caller's output argument.
            unsafe { out(valuelen, n as c_int, "valuelen")? };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_delete(info: c_int, key: *const c_char) -> c_int {
    call("MPI_Info_delete", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let k = unsafe { key_of(key) }?;
        with_info(info, |e| match e.iter().position(|(ek, _)| *ek == k) {
            Some(p) => {
                e.remove(p);
                Ok(())
            }
            None => Err(MpiError::new(
                class::INFO_NOKEY,
                format!("no key '{k}' in the info object"),
            )),
        })
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_get_nkeys(info: c_int, nkeys: *mut c_int) -> c_int {
    call("MPI_Info_get_nkeys", mpi::COMM_WORLD, || {
        let n = with_info(info, |e| Ok(e.len()))?;
        // SAFETY: the caller's output argument.
        unsafe { out(nkeys, n as c_int, "nkeys") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_get_nthkey(
    info: c_int,
    n: c_int,
    key: *mut c_char,
) -> c_int {
    call("MPI_Info_get_nthkey", mpi::COMM_WORLD, || {
        let k = with_info(info, |e| {
            usize::try_from(n)
                .ok()
                .and_then(|i| e.get(i))
                .map(|(k, _)| k.clone())
                .ok_or_else(|| {
                    MpiError::new(
                        class::ARG,
                        format!("key number {n} of an info object with {} keys", e.len()),
                    )
                })
        })?;
        if key.is_null() {
            return Err(MpiError::new(class::ARG, "key is a null pointer"));
        }
        // SAFETY: MPI requires MPI_MAX_INFO_KEY + 1 bytes.
        unsafe { copy_c_string(key, MAX_KEY + 1, &k) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_dup(info: c_int, newinfo: *mut c_int) -> c_int {
    call("MPI_Info_dup", mpi::COMM_WORLD, || {
        let copy = with_info(info, |e| Ok(e.clone()))?;
        let h = sim::mpi(|w| w.mpi.add_info(copy));
        // SAFETY: the caller's output argument.
        unsafe { out(newinfo, h, "newinfo") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_free(info: *mut c_int) -> c_int {
    call("MPI_Info_free", mpi::COMM_WORLD, || {
        if info.is_null() {
            return Err(MpiError::new(class::ARG, "info is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *info };
        sim::mpi(|w| w.mpi.free_info(h))?;
        // SAFETY: as above.
        unsafe { *info = mpi::INFO_NULL };
        Ok(())
    })
}

/// MPI_Info_get_string (MPI 4.0): `buflen` is the room in `value` on
/// entry and the value's length plus the NUL on return; the value is
/// truncated to fit.
pub(crate) unsafe extern "C" fn MPI_Info_get_string(
    info: c_int,
    key: *const c_char,
    buflen: *mut c_int,
    value: *mut c_char,
    flag: *mut c_int,
) -> c_int {
    call("MPI_Info_get_string", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let k = unsafe { key_of(key) }?;
        if buflen.is_null() {
            return Err(MpiError::new(class::ARG, "buflen is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let room = unsafe { *buflen };
        let room = usize::try_from(room)
            .map_err(|_| MpiError::new(class::ARG, format!("invalid buflen {room}")))?;
        let found = with_info(info, |e| {
            Ok(e.iter().find(|(ek, _)| *ek == k).map(|(_, v)| v.clone()))
        })?;
        if let Some(v) = &found {
            if room > 0 {
                if value.is_null() {
                    return Err(MpiError::new(class::ARG, "value is a null pointer"));
                }
                // SAFETY: the caller gives `room` bytes.
                unsafe { copy_c_string(value, room, v) };
            }
            // SAFETY: non-null in/out argument.
            unsafe { *buflen = v.len() as c_int + 1 };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

/// MPI_Info_create_env (MPI 4.0): a new info object holding what
/// MPI_INFO_ENV holds; callable before MPI_Init.
pub(crate) unsafe extern "C" fn MPI_Info_create_env(
    _argc: c_int,
    _argv: *mut *mut c_char,
    info: *mut c_int,
) -> c_int {
    call("MPI_Info_create_env", mpi::COMM_WORLD, || {
        let env = with_info(mpi::INFO_ENV, |e| Ok(e.clone()))?;
        let h = sim::mpi(|w| w.mpi.add_info(env));
        // SAFETY: the caller's output argument.
        unsafe { out(info, h, "info") }
    })
}
