//! SimGrid's C actor interface for a rank (`simgrid/actor.h`): SimGrid
//! runs each MPI rank as an actor named after the rank and numbered
//! rank + 1 (the maestro is 0).

use std::ffi::{c_char, c_long, CString};

use super::{bench_begin, bench_end};
use crate::sim;

/// `sg_actor_self_get_pid()`: the calling rank + 1.
pub(crate) unsafe extern "C" fn sg_actor_self_get_pid() -> c_long {
    let rank = sim::with(|s| s.core.current());
    c_long::try_from(rank + 1).unwrap_or(c_long::MAX)
}

/// `sg_actor_self_get_name()`: the calling rank in decimal, in a string
/// that lives as long as the simulation.
pub(crate) unsafe extern "C" fn sg_actor_self_get_name() -> *const c_char {
    sim::with(|s| {
        let rank = s.core.current();
        let names = &mut s.actor_names;
        if names.len() <= rank {
            names.resize_with(rank + 1, || None);
        }
        names[rank]
            .get_or_insert_with(|| CString::new(rank.to_string()).unwrap_or_default())
            .as_ptr()
    })
}

fn sleep(seconds: f64, call: &'static str) {
    bench_end();
    sim::sleep(seconds, call);
    bench_begin();
}

/// `sg_actor_sleep_for(duration)`: simulated seconds.
pub(crate) unsafe extern "C" fn sg_actor_sleep_for(duration: f64) {
    sleep(duration, "sg_actor_sleep_for");
}

/// `sg_actor_sleep_until(date)`: returns at once when the date is past.
pub(crate) unsafe extern "C" fn sg_actor_sleep_until(wakeup_time: f64) {
    let now = sim::with(|s| s.core.now());
    sleep(wakeup_time - now, "sg_actor_sleep_until");
}
