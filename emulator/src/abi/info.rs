//! Info calls, bound to `mpi::info`: the strings are read and written
//! here, their rules and the objects are the MPI layer's.

use std::ffi::{c_char, c_int};

use super::call;
use super::check::{non_null, out, string};
use super::env::copy_c_string;
use crate::mpi::info::{self, MAX_KEY};
use crate::mpi::{self, check, class, MpiError, MpiResult};
use crate::sim;

/// Reads a key (MPI_ERR_INFO_KEY when null or of a length MPI forbids).
///
/// # Safety
/// `key` is null or a NUL-terminated string.
unsafe fn key_of(key: *const c_char) -> MpiResult<String> {
    // SAFETY: per the contract.
    let k = unsafe { string(key, "key") }.map_err(|e| MpiError::new(class::INFO_KEY, e.message))?;
    info::check_key(&k)?;
    Ok(k)
}

/// Checks an info argument: MPI_INFO_NULL or a live info object.
pub(super) fn check_info(info: c_int) -> MpiResult<()> {
    sim::mpi(|w| w.mpi.check_info(info))
}

pub(crate) unsafe extern "C" fn MPI_Info_create(info: *mut c_int) -> c_int {
    call("MPI_Info_create", mpi::COMM_WORLD, || {
        let h = sim::mpi(|w| w.new_info(Vec::new()));
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
        // SAFETY: as above.
        let v = unsafe { string(value, "value") }
            .map_err(|e| MpiError::new(class::INFO_VALUE, e.message))?;
        sim::mpi(|w| w.mpi.info_set(info, k, v))
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
        let cap = check::non_negative(valuelen, "valuelen")?;
        let found = sim::mpi(|w| w.mpi.info_get(info, &k))?;
        if let Some(v) = &found {
            non_null(value, "value")?;
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
        let found = sim::mpi(|w| w.mpi.info_get(info, &k))?;
        if let Some(v) = &found {
            // SAFETY: the caller's output argument.
            unsafe { out(valuelen, v.len() as c_int, "valuelen")? };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_delete(info: c_int, key: *const c_char) -> c_int {
    call("MPI_Info_delete", mpi::COMM_WORLD, || {
        // SAFETY: a NUL-terminated string from the caller.
        let k = unsafe { key_of(key) }?;
        sim::mpi(|w| w.mpi.info_delete(info, &k))
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_get_nkeys(info: c_int, nkeys: *mut c_int) -> c_int {
    call("MPI_Info_get_nkeys", mpi::COMM_WORLD, || {
        let n = sim::mpi(|w| w.mpi.info_nkeys(info))?;
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
        let k = sim::mpi(|w| w.mpi.info_nthkey(info, n))?;
        non_null(key, "key")?;
        // SAFETY: MPI requires MPI_MAX_INFO_KEY + 1 bytes.
        unsafe { copy_c_string(key, MAX_KEY + 1, &k) };
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_dup(info: c_int, newinfo: *mut c_int) -> c_int {
    call("MPI_Info_dup", mpi::COMM_WORLD, || {
        let h = sim::mpi(|w| w.info_dup(info))?;
        // SAFETY: the caller's output argument.
        unsafe { out(newinfo, h, "newinfo") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Info_free(info: *mut c_int) -> c_int {
    call("MPI_Info_free", mpi::COMM_WORLD, || {
        non_null(info, "info")?;
        // SAFETY: non-null in/out argument.
        let h = unsafe { *info };
        sim::mpi(|w| w.free_info(h))?;
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
        non_null(buflen, "buflen")?;
        // SAFETY: non-null in/out argument.
        let room = check::non_negative(unsafe { *buflen }, "buflen")?;
        let found = sim::mpi(|w| w.mpi.info_get(info, &k))?;
        if let Some(v) = &found {
            if room > 0 {
                non_null(value, "value")?;
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
        let h = sim::mpi(|w| w.info_dup(mpi::INFO_ENV))?;
        // SAFETY: the caller's output argument.
        unsafe { out(info, h, "info") }
    })
}
