//! Attribute keys (keyvals) and the predefined attributes.

use super::{class, Ctx, MpiError, MpiResult};

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
