//! SimGrid's toolbox for programs (`xbt/log.h`): the categories programs
//! declare, their thresholds (`log::Categories`, set by `--log` and
//! `xbt_log_control_set`), and their lines, which carry the actor's host,
//! name and pid and the simulated date, as SimGrid's do.

use std::ffi::{c_char, c_int, CStr};

use super::{bench_begin, bench_end};
use crate::actors;
use crate::log::{self, Event, Location, Priority, Source};
use crate::sim;

/// A category record of `xbt/log.h` (`s_xbt_log_category_t`).
#[repr(C)]
pub(crate) struct XbtCategory {
    name: *const c_char,
    parent: *const c_char,
    description: *const c_char,
    /// The runtime's number for it; 0 until its first use.
    id: c_int,
}

/// A C string of the program's, or `default` for a null pointer.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn text(p: *const c_char, default: &str) -> String {
    if p.is_null() {
        return default.to_string();
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The runtime's number of `category`, given on its first use (each copy
/// of the program, and under swap privatization each rank's globals, may
/// ask again: the name finds the same number).
///
/// # Safety
/// `category` points to a category record of the program's.
unsafe fn category_id(category: *mut XbtCategory) -> usize {
    // SAFETY: per the contract.
    let record = unsafe { &mut *category };
    if let Ok(id) = usize::try_from(record.id) {
        if id > 0 {
            return id;
        }
    }
    // SAFETY: the macros fill name and parent with string literals (the
    // root record has no parent).
    let (name, parent) = unsafe { (text(record.name, "root"), text(record.parent, "root")) };
    let id = log::categories().category(&name, Some(&parent));
    record.id = c_int::try_from(id).unwrap_or(0);
    id
}

/// `XBT_LOG_ISENABLED`, and the test before every `XBT_INFO` and sibling.
pub(crate) unsafe extern "C" fn smpi_xbt_log_enabled(
    category: *mut XbtCategory,
    priority: c_int,
) -> c_int {
    let Some(priority) = Priority::from_c(priority) else {
        return 0;
    };
    if category.is_null() {
        return 0;
    }
    // SAFETY: the macros pass the address of a category record.
    let id = unsafe { category_id(category) };
    c_int::from(log::categories().enabled(id, priority))
}

/// Prints a line the program logged (already formatted by `xbt/log.h`).
pub(crate) unsafe extern "C" fn smpi_xbt_log_message(
    category: *mut XbtCategory,
    priority: c_int,
    file: *const c_char,
    line: c_int,
    message: *const c_char,
) {
    let Some(priority) = Priority::from_c(priority) else {
        return;
    };
    if category.is_null() {
        return;
    }
    // SAFETY: the macros pass a category record, __FILE__ and the message
    // they formatted, all NUL-terminated.
    let (name, file, message) = unsafe {
        (
            text((*category).name, "root"),
            text(file, "?"),
            text(message, ""),
        )
    };
    // The computation an smpi_execute* asked for ends first (with the
    // measured burst, as at an MPI call): in SimGrid it blocks the caller,
    // so a line logged after it carries the later date. Without one,
    // nothing is spent: SimGrid's lines carry the date of the rank's last
    // MPI call, not counting the computation since.
    if sim::fast(|f| f.has_pending_flops()) {
        bench_end();
        bench_begin();
    }
    sim::with(|s| {
        log::categories().emit(&Event {
            category: &name,
            priority,
            source: Source::Actor(actors::log_actor(s, s.core.current_actor())),
            time: s.core.now(),
            location: Some(Location {
                file: &file,
                line: u32::try_from(line).unwrap_or(0),
            }),
            function: None,
            message: &message,
        });
    });
}

/// `xbt_log_control_set("name.thres:level ...")`: --log settings applied
/// while the program runs (to the program's categories only).
pub(crate) unsafe extern "C" fn xbt_log_control_set(control: *const c_char) {
    if control.is_null() {
        return;
    }
    // SAFETY: the program passes a NUL-terminated string.
    let control = unsafe { text(control, "") };
    if let Err(e) = log::categories().control_set(&control) {
        super::time::fatal(&format!("xbt_log_control_set(\"{control}\"): {e}"));
    }
}
