//! SimGrid's C host interface (`simgrid/host.h`) and its host energy
//! plugin (`simgrid/plugins/energy.h`): power states and energy.
//!
//! `sg_host_t` is an opaque pointer to the program: here a host's number
//! + 1 as an address, never dereferenced (NULL is no host).

use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::ptr;

use platforms::HostId;

use super::actor::fail;
use super::{bench_begin, bench_end};
use crate::actors;
use crate::sim;

/// `sg_host_t`: a host's number + 1 as an address.
pub(super) type SgHost = *mut c_void;
type Host = SgHost;

fn handle(host: HostId) -> Host {
    ptr::without_provenance_mut(host.0 as usize + 1)
}

/// The host number of an `sg_host_t`, or the run stops naming `call`.
pub(super) fn host_number(call: &str, host: SgHost) -> usize {
    let count = sim::with(|s| s.core.platform().hosts().len());
    match host.addr().checked_sub(1) {
        Some(h) if h < count => h,
        _ => fail(
            call,
            &format!(
                "{host:p} is not a host of this platform (use sg_host_self() or sg_host_by_name())"
            ),
        ),
    }
}

/// The host `h` names; a bad handle stops the simulation naming `call`.
fn host(h: Host, call: &str) -> HostId {
    HostId(host_number(call, h) as u32)
}

pub(crate) unsafe extern "C" fn sg_host_count() -> usize {
    sim::with(|s| s.core.platform().hosts().len())
}

pub(crate) unsafe extern "C" fn sg_host_by_name(name: *const c_char) -> Host {
    if name.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: the program passes a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
    sim::with(|s| s.core.platform().host_by_name(&name)).map_or(ptr::null_mut(), handle)
}

/// `sg_host_self()`: the calling actor's host.
pub(crate) unsafe extern "C" fn sg_host_self() -> Host {
    handle(sim::with(|s| s.core.running().host()))
}

/// `sg_host_get_name(host)`: a string that lives as long as the
/// simulation.
pub(crate) unsafe extern "C" fn sg_host_get_name(h: Host) -> *const c_char {
    let n = host_number("sg_host_get_name", h);
    sim::with(|s| actors::host_name(s, n).as_ptr())
}

pub(crate) unsafe extern "C" fn sg_host_self_get_name() -> *const c_char {
    // SAFETY: no pointer from the program.
    unsafe { sg_host_get_name(sg_host_self()) }
}

pub(crate) unsafe extern "C" fn sg_host_get_speed(h: Host) -> f64 {
    let id = host(h, "sg_host_get_speed");
    sim::with(|s| s.core.host_speed(id))
}

/// Pstate `pstate` of `id`, or a message naming the call and the range.
fn pstate(id: HostId, pstate: u64, call: &str) -> usize {
    let count = sim::with(|s| s.core.platform().host(id).pstate_speeds().len());
    match usize::try_from(pstate).ok().filter(|&p| p < count) {
        Some(p) => p,
        None => fail(
            call,
            &format!(
                "pstate {pstate} does not exist: the host has {count} (0 to {}; its speed \
                 attribute in the platform lists them)",
                count - 1
            ),
        ),
    }
}

pub(crate) unsafe extern "C" fn sg_host_get_pstate_speed(h: Host, index: c_ulong) -> f64 {
    let id = host(h, "sg_host_get_pstate_speed");
    let p = pstate(id, index, "sg_host_get_pstate_speed");
    sim::with(|s| s.core.platform().host(id).pstate_speeds()[p])
}

pub(crate) unsafe extern "C" fn sg_host_core_count(h: Host) -> c_int {
    let id = host(h, "sg_host_core_count");
    sim::with(|s| c_int::try_from(s.core.platform().host(id).cores).unwrap_or(c_int::MAX))
}

pub(crate) unsafe extern "C" fn sg_host_get_nb_pstates(h: Host) -> c_ulong {
    let id = host(h, "sg_host_get_nb_pstates");
    sim::with(|s| s.core.platform().host(id).pstate_speeds().len() as c_ulong)
}

pub(crate) unsafe extern "C" fn sg_host_get_pstate(h: Host) -> c_ulong {
    let id = host(h, "sg_host_get_pstate");
    sim::with(|s| s.core.pstate(id) as c_ulong)
}

pub(crate) unsafe extern "C" fn sg_host_set_pstate(h: Host, index: c_ulong) {
    let id = host(h, "sg_host_set_pstate");
    let p = pstate(id, index, "sg_host_set_pstate");
    // The computation before the call runs at the old speed.
    bench_end();
    sim::with(|s| s.core.set_pstate(id, p));
    bench_begin();
}

pub(crate) unsafe extern "C" fn sg_host_energy_plugin_init() {
    if sim::with(|s| s.core.energy().is_some()) {
        return;
    }
    if let Err(e) = sim::with(|s| s.core.count_energy()) {
        fail("sg_host_energy_plugin_init", &e);
    }
}

pub(crate) unsafe extern "C" fn sg_host_energy_update_all() {
    // Counts are brought up to date whenever they are read.
    energy_query(ptr::null_mut(), "sg_host_energy_update_all", |_, _| ());
}

/// Runs `f` on the energy count and host `h` (host 0 when `h` is NULL),
/// once the rank's computation so far is spent: the rank's date is now.
fn energy_query<T>(
    h: Host,
    call: &str,
    f: impl FnOnce(&mut crate::engine::energy::Energy, HostId) -> T,
) -> T {
    bench_end();
    bench_begin();
    let id = if h.is_null() {
        HostId(0)
    } else {
        host(h, call)
    };
    sim::with(|s| s.core.energy().map(|e| f(e, id))).unwrap_or_else(|| {
        fail(
            call,
            &"energy is not counted: run smpirun with --cfg=plugin:host_energy (or call \
              sg_host_energy_plugin_init() first)",
        )
    })
}

/// Like [`energy_query`], for a host that must have watts per pstate.
fn profiled_query(
    h: Host,
    call: &str,
    f: impl FnOnce(&mut crate::engine::energy::Energy, HostId) -> f64,
) -> f64 {
    let id = host(h, call);
    energy_query(h, call, |e, id| e.has_profile(id).then(|| f(e, id))).unwrap_or_else(|| {
        let name = sim::with(|s| s.core.platform().host(id).name.clone());
        fail(
            call,
            &format!(
                "host '{name}' has no wattage_per_state property in the platform, so its energy \
                 is unknown"
            ),
        )
    })
}

pub(crate) unsafe extern "C" fn sg_host_get_consumed_energy(h: Host) -> f64 {
    let now = sim::with(|s| s.core.now());
    profiled_query(h, "sg_host_get_consumed_energy", |e, id| {
        e.consumed(id, now)
    })
}

pub(crate) unsafe extern "C" fn sg_host_get_current_consumption(h: Host) -> f64 {
    profiled_query(h, "sg_host_get_current_consumption", |e, id| {
        e.current_watts(id)
    })
}

pub(crate) unsafe extern "C" fn sg_host_get_idle_consumption(h: Host) -> f64 {
    let p = sim::with(|s| s.core.pstate(host(h, "sg_host_get_idle_consumption")));
    energy_query(h, "sg_host_get_idle_consumption", |e, id| {
        e.watts_at(id, p).0
    })
}

/// The watts of pstate `p` of `h`: (idle, epsilon, all cores).
fn watts_at(h: Host, p: c_int, call: &str) -> (f64, f64, f64) {
    let id = host(h, call);
    let p = pstate(id, u64::try_from(p).unwrap_or(u64::MAX), call);
    energy_query(h, call, |e, id| e.watts_at(id, p))
}

pub(crate) unsafe extern "C" fn sg_host_get_idle_consumption_at(h: Host, p: c_int) -> f64 {
    watts_at(h, p, "sg_host_get_idle_consumption_at").0
}

pub(crate) unsafe extern "C" fn sg_host_get_wattmin_at(h: Host, p: c_int) -> f64 {
    watts_at(h, p, "sg_host_get_wattmin_at").1
}

pub(crate) unsafe extern "C" fn sg_host_get_wattmax_at(h: Host, p: c_int) -> f64 {
    watts_at(h, p, "sg_host_get_wattmax_at").2
}

pub(crate) unsafe extern "C" fn sg_host_get_power_range_slope_at(h: Host, p: c_int) -> f64 {
    let (_, min, max) = watts_at(h, p, "sg_host_get_power_range_slope_at");
    max - min
}
