//! Attributes on communicators, datatypes and windows: keyvals with the
//! program's copy and delete callbacks (called outside any borrow of the
//! simulation), and the predefined attributes.

use std::ffi::c_void;

use super::{class, Ctx, MpiError, MpiResult};
use crate::sim;

/// Handles of user keyvals start here (below are the predefined keys).
pub const KEYVAL_BASE: i32 = 100;

/// MPI_KEYVAL_INVALID.
pub const KEYVAL_INVALID: i32 = 0;

/// A communicator keyval: the program's copy and delete callbacks (as
/// addresses: 0 is the null function, 1 is MPI_COMM_DUP_FN) and its
/// extra state.
#[derive(Debug, Clone, Copy)]
pub struct Keyval {
    pub copy: usize,
    pub delete: usize,
    pub extra_state: usize,
    /// MPI_Comm_free_keyval was called: the handle is gone, but attributes
    /// using it still get their delete callback.
    pub freed: bool,
}

impl Ctx<'_> {
    /// The keyval behind a user handle.
    pub fn keyval(&self, handle: i32) -> MpiResult<Keyval> {
        self.keyval_in_use(handle)
            .ok()
            .filter(|k| !k.freed)
            .ok_or_else(|| MpiError::new(class::KEYVAL, format!("invalid keyval {handle}")))
    }

    /// A keyval, freed or not: once freed it can no longer be set, but the
    /// attributes that use it are still read, copied and deleted with it
    /// (MPI-3.1 section 6.7.2).
    pub fn keyval_in_use(&self, handle: i32) -> MpiResult<Keyval> {
        usize::try_from(handle - KEYVAL_BASE)
            .ok()
            .and_then(|i| self.mpi.keyvals.get(i).copied().flatten())
            .ok_or_else(|| MpiError::new(class::KEYVAL, format!("invalid keyval {handle}")))
    }

    /// Address of a predefined attribute's value (MPI_TAG_UB, MPI_HOST...).
    pub fn predefined_attribute(&self, keyval: i32) -> Option<*const i32> {
        let i = usize::try_from(keyval)
            .ok()
            .filter(|&k| (1..8).contains(&k))?;
        Some(&self.mpi.attribute_values[i] as *const i32)
    }
}

/// The program's attribute copy function (MPI_Comm_copy_attr_function and
/// MPI_Type_copy_attr_function have this shape).
type CopyFn =
    unsafe extern "C" fn(i32, i32, *mut c_void, *mut c_void, *mut c_void, *mut i32) -> i32;
/// The program's attribute delete function.
type DeleteFn = unsafe extern "C" fn(i32, i32, *mut c_void, *mut c_void) -> i32;

/// MPI_*_NULL_COPY_FN / MPI_*_NULL_DELETE_FN and MPI_*_DUP_FN.
const NULL_FN: usize = 0;
const DUP_FN: usize = 1;

/// What an attribute is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Comm,
    Type,
    Win,
}

/// The current rank's attributes of `kind`: (object, keyval, value), in
/// the order they were set.
fn list<'a>(w: &'a mut Ctx<'_>, kind: Kind) -> &'a mut Vec<(i32, i32, usize)> {
    let me = w.core.current();
    match kind {
        Kind::Comm => &mut w.mpi.ranks[me].cold_mut().attrs,
        Kind::Type => &mut w.mpi.ranks[me].cold_mut().type_attrs,
        Kind::Win => &mut w.mpi.ranks[me].cold_mut().win_attrs,
    }
}

/// Checks that `handle` is a live object of `kind`.
fn check_object(w: &Ctx, kind: Kind, handle: i32) -> MpiResult<()> {
    match kind {
        Kind::Comm => w.comm(handle).map(|_| ()),
        Kind::Type => w.mpi.datatype(handle).map(|_| ()),
        Kind::Win => w.win_member(handle).map(|_| ()),
    }
}

/// Runs the delete callback of `keyval` for an attribute being removed.
fn delete_attribute(object: i32, keyval: i32, value: usize) -> MpiResult<()> {
    let k = sim::mpi(|w| {
        usize::try_from(keyval - KEYVAL_BASE)
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
pub fn delete_all(kind: Kind, object: i32) -> MpiResult<()> {
    let attrs: Vec<(i32, i32, usize)> = sim::mpi(|w| {
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
pub fn copy_all(kind: Kind, old: i32, new: i32) -> MpiResult<()> {
    copy_each(kind, old, new).inspect_err(|_| {
        // The copy function's error is the one to report.
        let _ = delete_all(kind, new);
    })
}

fn copy_each(kind: Kind, old: i32, new: i32) -> MpiResult<()> {
    let attrs: Vec<(i32, usize)> = sim::mpi(|w| {
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
                let mut flag: i32 = 0;
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

/// MPI_*_create_keyval: a keyval with the program's copy and delete
/// functions (addresses; see [`Keyval`]); its handle.
pub fn create_keyval(copy: usize, delete: usize, extra_state: usize) -> i32 {
    sim::mpi(|w| {
        w.mpi.keyvals.push(Some(Keyval {
            copy,
            delete,
            extra_state,
            freed: false,
        }));
        KEYVAL_BASE + w.mpi.keyvals.len() as i32 - 1
    })
}

/// MPI_*_free_keyval. Freeing again through a copy of the handle is
/// harmless: the keyval is only marked (attributes using it keep their
/// delete function).
pub fn free_keyval(handle: i32) -> MpiResult<()> {
    sim::mpi(|w| {
        match usize::try_from(handle - KEYVAL_BASE)
            .ok()
            .and_then(|i| w.mpi.keyvals.get_mut(i))
        {
            Some(Some(k)) => {
                k.freed = true;
                Ok(())
            }
            _ => Err(MpiError::new(
                class::KEYVAL,
                format!("invalid keyval {handle}"),
            )),
        }
    })
}

/// MPI_*_set_attr: replacing a value deletes the old one first.
pub fn set(kind: Kind, object: i32, keyval: i32, value: usize) -> MpiResult<()> {
    sim::mpi(|w| check_object(w, kind, object).and_then(|_| w.keyval(keyval)))?;
    let old = sim::mpi(|w| {
        list(w, kind)
            .iter()
            .find(|a| a.0 == object && a.1 == keyval)
            .map(|a| a.2)
    });
    if let Some(v) = old {
        delete_attribute(object, keyval, v)?;
    }
    sim::mpi(|w| {
        let attrs = list(w, kind);
        match attrs.iter_mut().find(|a| a.0 == object && a.1 == keyval) {
            Some(a) => a.2 = value,
            None => attrs.push((object, keyval, value)),
        }
    });
    Ok(())
}

/// MPI_*_delete_attr. A freed keyval still names the attributes that use
/// it; a failing delete function keeps the attribute (MPI).
pub fn delete(kind: Kind, object: i32, keyval: i32) -> MpiResult<()> {
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
    delete_attribute(object, keyval, v)?;
    sim::mpi(|w| list(w, kind).retain(|a| !(a.0 == object && a.1 == keyval)));
    Ok(())
}

/// MPI_*_get_attr: the value, if set. Predefined attributes (of
/// communicators and windows) have values that live as long as the
/// simulation.
pub fn get(kind: Kind, object: i32, keyval: i32) -> MpiResult<Option<usize>> {
    sim::mpi(|w| -> MpiResult<Option<usize>> {
        check_object(w, kind, object)?;
        if keyval < KEYVAL_BASE && kind == Kind::Win {
            return w
                .win_member(object)?
                .attribute(keyval)
                .map(Some)
                .ok_or_else(|| {
                    MpiError::new(class::KEYVAL, format!("invalid window keyval {keyval}"))
                });
        }
        if keyval < KEYVAL_BASE && kind == Kind::Comm {
            return w
                .predefined_attribute(keyval)
                .map(|p| Some(p as usize))
                .ok_or_else(|| MpiError::new(class::KEYVAL, format!("invalid keyval {keyval}")));
        }
        w.keyval_in_use(keyval)?;
        Ok(list(w, kind)
            .iter()
            .find(|a| a.0 == object && a.1 == keyval)
            .map(|a| a.2))
    })
}
