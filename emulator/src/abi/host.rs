//! SimGrid's C host interface (`simgrid/host.h`), the part a rank needs to
//! name its host and create actors on it.
//!
//! `sg_host_t` is an opaque pointer to the program: here a host's number
//! + 1 as an address, never dereferenced, never null.

use std::ffi::{c_char, c_void};
use std::ptr;

use super::actor::fail;
use crate::actors;
use crate::sim;

/// `sg_host_t`: a host's number + 1 as an address.
pub(super) type SgHost = *mut c_void;

/// The host number of an `sg_host_t`, or the run stops naming `call`.
pub(super) fn host_number(call: &str, host: SgHost) -> usize {
    let count = sim::with(|s| s.core.platform().hosts().len());
    match host.addr().checked_sub(1) {
        Some(h) if h < count => h,
        _ => fail(call, &format!("{host:p} is not a host of this platform")),
    }
}

/// `sg_host_self()`: the calling actor's host.
pub(crate) unsafe extern "C" fn sg_host_self() -> SgHost {
    let host = sim::with(|s| s.core.running().host().0 as usize);
    ptr::without_provenance_mut(host + 1)
}

/// `sg_host_get_name(host)`: a string that lives as long as the
/// simulation.
pub(crate) unsafe extern "C" fn sg_host_get_name(host: SgHost) -> *const c_char {
    let h = host_number("sg_host_get_name", host);
    sim::with(|s| actors::host_name(s, h).as_ptr())
}
