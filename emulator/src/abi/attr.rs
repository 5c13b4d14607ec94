//! Attributes on communicators, datatypes and windows: keyvals with the program's
//! copy and delete callbacks, called outside the world's borrow.

use std::ffi::{c_int, c_void};

use super::check::out;
use super::{call, call_in, ErrScope};
use crate::mpi::Ctx;
use crate::mpi::{self, class, MpiError, MpiResult};
use crate::sim;

/// The program's attribute copy function (MPI_Comm_copy_attr_function and
/// MPI_Type_copy_attr_function have this shape).
type CopyFn =
    unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void, *mut c_void, *mut c_int) -> c_int;
/// The program's attribute delete function.
type DeleteFn = unsafe extern "C" fn(c_int, c_int, *mut c_void, *mut c_void) -> c_int;

/// MPI_*_NULL_COPY_FN / MPI_*_NULL_DELETE_FN and MPI_*_DUP_FN.
const NULL_FN: usize = 0;
const DUP_FN: usize = 1;

/// What an attribute is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Comm,
    Type,
    Win,
}

impl Kind {
    /// Whose error handler judges a call on `object`.
    fn scope(self, object: c_int) -> ErrScope {
        match self {
            Kind::Comm => ErrScope::Comm(object),
            Kind::Type => ErrScope::Comm(mpi::COMM_WORLD),
            Kind::Win => ErrScope::Win(object),
        }
    }
}

/// The current rank's attributes of `kind`: (object, keyval, value), in
/// the order they were set.
fn list<'a>(w: &'a mut Ctx<'_>, kind: Kind) -> &'a mut Vec<(c_int, c_int, usize)> {
    let me = w.core.current();
    match kind {
        Kind::Comm => &mut w.mpi.ranks[me].attrs,
        Kind::Type => &mut w.mpi.ranks[me].type_attrs,
        Kind::Win => &mut w.mpi.ranks[me].win_attrs,
    }
}

/// Checks that `handle` is a live object of `kind`.
fn check_object(w: &Ctx, kind: Kind, handle: c_int) -> MpiResult<()> {
    match kind {
        Kind::Comm => w.comm(handle).map(|_| ()),
        Kind::Type => w.mpi.datatype(handle).map(|_| ()),
        Kind::Win => w.win_member(handle).map(|_| ()),
    }
}

/// Runs the delete callback of `keyval` for an attribute being removed.
fn delete_attribute(object: c_int, keyval: c_int, value: usize) -> MpiResult<()> {
    let k = sim::mpi(|w| {
        usize::try_from(keyval - mpi::KEYVAL_BASE)
            .ok()
            .and_then(|i| w.mpi.keyvals.get(i).copied().flatten())
    });
    let Some(k) = k else { return Ok(()) };
    if k.delete == NULL_FN || k.delete == DUP_FN {
        return Ok(());
    }
    // SAFETY: `k.delete` is the address of the program's delete function,
    // given when the keyval was created, with this C signature.
    let f: DeleteFn = unsafe { std::mem::transmute::<usize, DeleteFn>(k.delete) };
    // SAFETY: calling it as MPI specifies, outside the world's borrow.
    let rc = unsafe {
        f(
            object,
            keyval,
            value as *mut c_void,
            k.extra_state as *mut c_void,
        )
    };
    if rc != 0 {
        return Err(MpiError::new(
            rc,
            format!("the delete function of keyval {keyval} failed"),
        ));
    }
    Ok(())
}

/// Deletes every attribute of an object for the current rank, last set
/// first (MPI_Comm_free, MPI_Type_free, MPI_Finalize on MPI_COMM_SELF).
pub(crate) fn delete_all(kind: Kind, object: c_int) -> MpiResult<()> {
    let attrs: Vec<(c_int, c_int, usize)> = sim::mpi(|w| {
        let all = list(w, kind);
        let (mine, rest): (Vec<_>, Vec<_>) = all.drain(..).partition(|a| a.0 == object);
        *all = rest;
        mine
    });
    for &(o, k, v) in attrs.iter().rev() {
        delete_attribute(o, k, v)?;
    }
    Ok(())
}

/// Copies `old`'s attributes to `new` through their copy functions
/// (MPI_Comm_dup, MPI_Type_dup). When a copy function fails, the copies
/// already made are deleted again, so the caller can drop `new`.
pub(crate) fn copy_all(kind: Kind, old: c_int, new: c_int) -> MpiResult<()> {
    copy_each(kind, old, new).inspect_err(|_| {
        // The copy function's error is the one to report.
        let _ = delete_all(kind, new);
    })
}

fn copy_each(kind: Kind, old: c_int, new: c_int) -> MpiResult<()> {
    let attrs: Vec<(c_int, usize)> = sim::mpi(|w| {
        list(w, kind)
            .iter()
            .filter(|a| a.0 == old)
            .map(|a| (a.1, a.2))
            .collect()
    });
    for (key, value) in attrs {
        // A freed keyval still copies the attributes that use it.
        let Ok(k) = sim::mpi(|w| w.keyval_in_use(key)) else {
            continue;
        };
        let copied = match k.copy {
            NULL_FN => None,
            DUP_FN => Some(value),
            addr => {
                // SAFETY: the program's copy function, given when the
                // keyval was created, with this C signature.
                let f: CopyFn = unsafe { std::mem::transmute::<usize, CopyFn>(addr) };
                let mut out_val: usize = 0;
                let mut flag: c_int = 0;
                // SAFETY: called as MPI specifies, outside the world's borrow.
                let rc = unsafe {
                    f(
                        old,
                        key,
                        k.extra_state as *mut c_void,
                        value as *mut c_void,
                        (&mut out_val as *mut usize).cast(),
                        &mut flag,
                    )
                };
                if rc != 0 {
                    return Err(MpiError::new(
                        rc,
                        format!("the copy function of keyval {key} failed"),
                    ));
                }
                (flag != 0).then_some(out_val)
            }
        };
        if let Some(v) = copied {
            sim::mpi(|w| list(w, kind).push((new, key, v)));
        }
    }
    Ok(())
}

pub(crate) fn create_keyval(
    name: &'static str,
    copy_fn: usize,
    delete_fn: usize,
    keyval: *mut c_int,
    extra_state: *mut c_void,
) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        let h = sim::mpi(|w| {
            w.mpi.keyvals.push(Some(mpi::Keyval {
                copy: copy_fn,
                delete: delete_fn,
                extra_state: extra_state as usize,
                freed: false,
            }));
            mpi::KEYVAL_BASE + w.mpi.keyvals.len() as c_int - 1
        });
        // SAFETY: the caller's output argument.
        unsafe { out(keyval, h, "keyval") }
    })
}

pub(crate) fn free_keyval(name: &'static str, keyval: *mut c_int) -> c_int {
    call(name, mpi::COMM_WORLD, || {
        if keyval.is_null() {
            return Err(MpiError::new(class::ARG, "keyval is a null pointer"));
        }
        // SAFETY: non-null in/out argument.
        let h = unsafe { *keyval };
        sim::mpi(|w| -> MpiResult<()> {
            // Freeing again through a copy of the handle is harmless: the
            // keyval is only marked (attributes using it keep their delete
            // function).
            match usize::try_from(h - mpi::KEYVAL_BASE)
                .ok()
                .and_then(|i| w.mpi.keyvals.get_mut(i))
            {
                Some(Some(k)) => {
                    k.freed = true;
                    Ok(())
                }
                _ => Err(MpiError::new(class::KEYVAL, format!("invalid keyval {h}"))),
            }
        })?;
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
    call_in(name, kind.scope(object), || {
        sim::mpi(|w| check_object(w, kind, object).and_then(|_| w.keyval(keyval)))?;
        let old = sim::mpi(|w| {
            list(w, kind)
                .iter()
                .find(|a| a.0 == object && a.1 == keyval)
                .map(|a| a.2)
        });
        if let Some(v) = old {
            // Replacing a value deletes the old one first.
            delete_attribute(object, keyval, v)?;
        }
        sim::mpi(|w| {
            let attrs = list(w, kind);
            match attrs.iter_mut().find(|a| a.0 == object && a.1 == keyval) {
                Some(a) => a.2 = value as usize,
                None => attrs.push((object, keyval, value as usize)),
            }
        });
        Ok(())
    })
}

pub(crate) fn delete_attr(name: &'static str, kind: Kind, object: c_int, keyval: c_int) -> c_int {
    call_in(name, kind.scope(object), || {
        // A freed keyval still names the attributes that use it.
        sim::mpi(|w| check_object(w, kind, object).and_then(|_| w.keyval_in_use(keyval)))?;
        let value = sim::mpi(|w| {
            list(w, kind)
                .iter()
                .find(|a| a.0 == object && a.1 == keyval)
                .map(|a| a.2)
        });
        let Some(v) = value else {
            return Err(MpiError::new(
                class::KEYVAL,
                format!("keyval {keyval} has no attribute on this object"),
            ));
        };
        // A failing delete function keeps the attribute (MPI).
        delete_attribute(object, keyval, v)?;
        sim::mpi(|w| list(w, kind).retain(|a| !(a.0 == object && a.1 == keyval)));
        Ok(())
    })
}

/// Reads an attribute: predefined ones (communicators only; their values
/// live as long as the simulation) and the program's own.
pub(crate) fn get_attr(
    name: &'static str,
    kind: Kind,
    object: c_int,
    keyval: c_int,
    attribute_val: *mut c_void,
    flag: *mut c_int,
) -> c_int {
    call_in(name, kind.scope(object), || {
        if attribute_val.is_null() {
            return Err(MpiError::new(class::ARG, "attribute_val is a null pointer"));
        }
        let found = sim::mpi(|w| -> MpiResult<Option<usize>> {
            check_object(w, kind, object)?;
            if keyval < mpi::KEYVAL_BASE && kind == Kind::Win {
                return w
                    .win_member(object)?
                    .attribute(keyval)
                    .map(Some)
                    .ok_or_else(|| {
                        MpiError::new(class::KEYVAL, format!("invalid window keyval {keyval}"))
                    });
            }
            if keyval < mpi::KEYVAL_BASE && kind == Kind::Comm {
                return w
                    .predefined_attribute(keyval)
                    .map(|p| Some(p as usize))
                    .ok_or_else(|| {
                        MpiError::new(class::KEYVAL, format!("invalid keyval {keyval}"))
                    });
            }
            w.keyval_in_use(keyval)?;
            Ok(list(w, kind)
                .iter()
                .find(|a| a.0 == object && a.1 == keyval)
                .map(|a| a.2))
        })?;
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
