//! Attribute calls on communicators, datatypes and windows, bound to
//! `mpi::attr`.

use std::ffi::{c_int, c_void};

use super::check::{non_null, out};
use super::{call, call_in, ErrScope};
use crate::mpi;
use crate::mpi::attr::{self, Kind};

/// Whose error handler judges an attribute call on `object` of `kind`.
fn scope(kind: Kind, object: c_int) -> ErrScope {
    match kind {
        Kind::Comm => ErrScope::Comm(object),
        Kind::Type => ErrScope::Comm(mpi::COMM_WORLD),
        Kind::Win => ErrScope::Win(object),
    }
}

pub(crate) fn create_keyval(
    name: &'static str,
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        let h = attr::create_keyval(copy_fn, delete_fn, extra_state as usize);
        // SAFETY: the caller's output argument.
        unsafe { out(keyval, h, "keyval") }
    })
}

pub(crate) fn free_keyval(name: &'static str, keyval: *mut c_int) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        non_null(keyval, "keyval")?;
        // SAFETY: non-null in/out argument.
        attr::free_keyval(unsafe { *keyval })?;
        // SAFETY: as above.
        unsafe { *keyval = mpi::KEYVAL_INVALID };
        Ok(())
    })
}

pub(crate) fn set_attr(
    name: &'static str,
    kind: Kind,
    object: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    call_in(name, scope(kind, object), || {
        attr::set(kind, object, keyval, value as usize)
    })
}

pub(crate) fn delete_attr(name: &'static str, kind: Kind, object: c_int, keyval: c_int) -> c_int {
    call_in(name, scope(kind, object), || {
        attr::delete(kind, object, keyval)
    })
}

/// Reads an attribute into the program's pointer variable.
pub(crate) fn get_attr(
    name: &'static str,
    kind: Kind,
    object: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    call_in(name, scope(kind, object), || {
        non_null(attribute_val, "attribute_val")?;
        let found = attr::get(kind, object, keyval)?;
        if let Some(v) = found {
            // SAFETY: attribute_val is the address of the caller's pointer
            // variable (MPI passes a `void *` that is really a `void **`).
            unsafe { *(attribute_val as *mut usize) = v };
        }
        // SAFETY: the caller's output argument.
        unsafe { out(flag, c_int::from(found.is_some()), "flag") }
    })
}

pub(crate) unsafe extern "C" fn MPI_Comm_create_keyval(
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    create_keyval(
        "MPI_Comm_create_keyval",
        copy_fn,
        delete_fn,
        keyval,
        extra_state,
    )
}

pub(crate) unsafe extern "C" fn MPI_Comm_free_keyval(keyval: *mut c_int) -> c_int {
    free_keyval("MPI_Comm_free_keyval", keyval)
}

pub(crate) unsafe extern "C" fn MPI_Comm_set_attr(
    comm: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    set_attr("MPI_Comm_set_attr", Kind::Comm, comm, keyval, value)
}

pub(crate) unsafe extern "C" fn MPI_Comm_get_attr(
    comm: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    get_attr(
        "MPI_Comm_get_attr",
        Kind::Comm,
        comm,
        keyval,
        attribute_val,
        flag,
    )
}

pub(crate) unsafe extern "C" fn MPI_Comm_delete_attr(comm: c_int, keyval: c_int) -> c_int {
    delete_attr("MPI_Comm_delete_attr", Kind::Comm, comm, keyval)
}

pub(crate) unsafe extern "C" fn MPI_Type_create_keyval(
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    create_keyval(
        "MPI_Type_create_keyval",
        copy_fn,
        delete_fn,
        keyval,
        extra_state,
    )
}

pub(crate) unsafe extern "C" fn MPI_Type_free_keyval(keyval: *mut c_int) -> c_int {
    free_keyval("MPI_Type_free_keyval", keyval)
}

pub(crate) unsafe extern "C" fn MPI_Type_set_attr(
    datatype: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    set_attr("MPI_Type_set_attr", Kind::Type, datatype, keyval, value)
}

pub(crate) unsafe extern "C" fn MPI_Type_get_attr(
    datatype: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    get_attr(
        "MPI_Type_get_attr",
        Kind::Type,
        datatype,
        keyval,
        attribute_val,
        flag,
    )
}

pub(crate) unsafe extern "C" fn MPI_Type_delete_attr(datatype: c_int, keyval: c_int) -> c_int {
    delete_attr("MPI_Type_delete_attr", Kind::Type, datatype, keyval)
}

// The MPI-1 names of the communicator attribute calls (deprecated, still
// widely used): the same semantics in C.

pub(crate) unsafe extern "C" fn MPI_Keyval_create(
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state)
}

pub(crate) unsafe extern "C" fn MPI_Keyval_free(keyval: *mut c_int) -> c_int {
    free_keyval("MPI_Keyval_free", keyval)
}

pub(crate) unsafe extern "C" fn MPI_Attr_put(
    comm: c_int,
    keyval: c_int,
    value: *mut c_void,
) -> c_int {
    set_attr("MPI_Attr_put", Kind::Comm, comm, keyval, value)
}

pub(crate) unsafe extern "C" fn MPI_Attr_get(
    comm: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    get_attr(
        "MPI_Attr_get",
        Kind::Comm,
        comm,
        keyval,
        attribute_val,
        flag,
    )
}

pub(crate) unsafe extern "C" fn MPI_Attr_delete(comm: c_int, keyval: c_int) -> c_int {
    delete_attr("MPI_Attr_delete", Kind::Comm, comm, keyval)
}
