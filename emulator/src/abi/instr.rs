//! SimGrid's C tracing interface (`simgrid/instr.h`). smpi-rs writes no
//! traces yet: the declarations and each rank's category are kept in
//! `Sim::instr` for the trace writers to come, and the events (marks,
//! variable changes, states) are checked and dropped, which is what
//! SimGrid does with them when tracing is off.

use std::ffi::{c_char, c_int};

use super::time::fatal;
use super::{bench_begin, bench_end};
use crate::sim;

/// A name the program passes; null stops the simulation (SimGrid crashes
/// on one).
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn name(p: *const c_char, call: &str, what: &str) -> String {
    if p.is_null() {
        fatal(&format!("{call}: the {what} is a null pointer"));
    }
    // SAFETY: per the contract.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

/// An optional color: null or empty for none.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn color(p: *const c_char, call: &str) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: per the contract.
    Some(unsafe { name(p, call, "color") }).filter(|c| !c.is_empty())
}

/// `TRACE_smpi_set_category(category)`: the category of the calling
/// rank's next computations and messages (NULL keeps the current one, as
/// in SimGrid). The computation before the call is spent first, so that
/// it belongs to the previous category.
pub(crate) unsafe extern "C" fn TRACE_smpi_set_category(category: *const c_char) {
    bench_end();
    if !category.is_null() {
        // SAFETY: the program passes a NUL-terminated string.
        let category = unsafe { name(category, "TRACE_smpi_set_category", "category") };
        sim::with(|s| {
            let rank = s.core.current();
            s.instr.set_rank_category(rank, &category);
        });
    }
    bench_begin();
}

pub(crate) unsafe extern "C" fn TRACE_category(category: *const c_char) {
    // SAFETY: the program passes a NUL-terminated string.
    let category = unsafe { name(category, "TRACE_category", "category") };
    sim::with(|s| s.instr.declare_category(&category, None));
}

pub(crate) unsafe extern "C" fn TRACE_category_with_color(
    category: *const c_char,
    color_: *const c_char,
) {
    const CALL: &str = "TRACE_category_with_color";
    // SAFETY: the program passes NUL-terminated strings.
    let (category, color) = unsafe { (name(category, CALL, "category"), color(color_, CALL)) };
    sim::with(|s| s.instr.declare_category(&category, color.as_deref()));
}

pub(crate) unsafe extern "C" fn TRACE_declare_mark(mark_type: *const c_char) {
    // SAFETY: the program passes a NUL-terminated string.
    let mark_type = unsafe { name(mark_type, "TRACE_declare_mark", "mark type") };
    sim::with(|s| s.instr.declare_mark_type(&mark_type));
}

pub(crate) unsafe extern "C" fn TRACE_declare_mark_value(
    mark_type: *const c_char,
    value: *const c_char,
) {
    // SAFETY: the program passes NUL-terminated strings.
    unsafe { TRACE_declare_mark_value_with_color(mark_type, value, std::ptr::null()) }
}

pub(crate) unsafe extern "C" fn TRACE_declare_mark_value_with_color(
    mark_type: *const c_char,
    value: *const c_char,
    color_: *const c_char,
) {
    const CALL: &str = "TRACE_declare_mark_value";
    // SAFETY: the program passes NUL-terminated strings.
    let (mark_type, value, color) = unsafe {
        (
            name(mark_type, CALL, "mark type"),
            name(value, CALL, "mark value"),
            color(color_, CALL),
        )
    };
    sim::with(|s| {
        s.instr
            .declare_mark_value(&mark_type, &value, color.as_deref())
    });
}

pub(crate) unsafe extern "C" fn TRACE_mark(mark_type: *const c_char, value: *const c_char) {
    // SAFETY: the program passes NUL-terminated strings.
    unsafe {
        name(mark_type, "TRACE_mark", "mark type");
        name(value, "TRACE_mark", "mark value");
    }
}

pub(crate) unsafe extern "C" fn TRACE_host_variable_declare(variable: *const c_char) {
    // SAFETY: the program passes a NUL-terminated string.
    unsafe { TRACE_host_variable_declare_with_color(variable, std::ptr::null()) }
}

pub(crate) unsafe extern "C" fn TRACE_host_variable_declare_with_color(
    variable: *const c_char,
    color_: *const c_char,
) {
    const CALL: &str = "TRACE_host_variable_declare";
    // SAFETY: the program passes NUL-terminated strings.
    let (variable, color) = unsafe { (name(variable, CALL, "variable"), color(color_, CALL)) };
    sim::with(|s| s.instr.declare_host_variable(&variable, color.as_deref()));
}

pub(crate) unsafe extern "C" fn TRACE_link_variable_declare(variable: *const c_char) {
    // SAFETY: the program passes a NUL-terminated string.
    unsafe { TRACE_link_variable_declare_with_color(variable, std::ptr::null()) }
}

pub(crate) unsafe extern "C" fn TRACE_link_variable_declare_with_color(
    variable: *const c_char,
    color_: *const c_char,
) {
    const CALL: &str = "TRACE_link_variable_declare";
    // SAFETY: the program passes NUL-terminated strings.
    let (variable, color) = unsafe { (name(variable, CALL, "variable"), color(color_, CALL)) };
    sim::with(|s| s.instr.declare_link_variable(&variable, color.as_deref()));
}

/// The changes of user variables: (resource, variable, value), with an
/// explicit date for the `_with_time` forms; checked, then dropped.
macro_rules! variable_changes {
    ($($call:ident($what:literal);)*) => {$(
        pub(crate) unsafe extern "C" fn $call(
            resource: *const c_char,
            variable: *const c_char,
            _value: f64,
        ) {
            // SAFETY: the program passes NUL-terminated strings.
            unsafe {
                name(resource, stringify!($call), $what);
                name(variable, stringify!($call), "variable");
            }
        }
    )*};
}

macro_rules! dated_variable_changes {
    ($($call:ident($what:literal);)*) => {$(
        pub(crate) unsafe extern "C" fn $call(
            _time: f64,
            resource: *const c_char,
            variable: *const c_char,
            _value: f64,
        ) {
            // SAFETY: the program passes NUL-terminated strings.
            unsafe {
                name(resource, stringify!($call), $what);
                name(variable, stringify!($call), "variable");
            }
        }
    )*};
}

variable_changes! {
    TRACE_host_variable_set("host");
    TRACE_host_variable_add("host");
    TRACE_host_variable_sub("host");
    TRACE_link_variable_set("link");
    TRACE_link_variable_add("link");
    TRACE_link_variable_sub("link");
}

dated_variable_changes! {
    TRACE_host_variable_set_with_time("host");
    TRACE_host_variable_add_with_time("host");
    TRACE_host_variable_sub_with_time("host");
    TRACE_link_variable_set_with_time("link");
    TRACE_link_variable_add_with_time("link");
    TRACE_link_variable_sub_with_time("link");
}

pub(crate) unsafe extern "C" fn TRACE_host_state_declare(state: *const c_char) {
    // SAFETY: the program passes a NUL-terminated string.
    let state = unsafe { name(state, "TRACE_host_state_declare", "state") };
    sim::with(|s| s.instr.declare_host_state(&state));
}

pub(crate) unsafe extern "C" fn TRACE_host_state_declare_value(
    state: *const c_char,
    value: *const c_char,
    color_: *const c_char,
) {
    const CALL: &str = "TRACE_host_state_declare_value";
    // SAFETY: the program passes NUL-terminated strings.
    let (state, value, color) = unsafe {
        (
            name(state, CALL, "state"),
            name(value, CALL, "value"),
            color(color_, CALL),
        )
    };
    sim::with(|s| {
        s.instr
            .declare_host_state_value(&state, &value, color.as_deref())
    });
}

pub(crate) unsafe extern "C" fn TRACE_host_set_state(
    host: *const c_char,
    state: *const c_char,
    value: *const c_char,
) {
    // SAFETY: the program passes NUL-terminated strings.
    unsafe {
        name(host, "TRACE_host_set_state", "host");
        name(state, "TRACE_host_set_state", "state");
        name(value, "TRACE_host_set_state", "value");
    }
}

pub(crate) unsafe extern "C" fn TRACE_host_push_state(
    host: *const c_char,
    state: *const c_char,
    value: *const c_char,
) {
    // SAFETY: the program passes NUL-terminated strings.
    unsafe {
        name(host, "TRACE_host_push_state", "host");
        name(state, "TRACE_host_push_state", "state");
        name(value, "TRACE_host_push_state", "value");
    }
}

pub(crate) unsafe extern "C" fn TRACE_host_pop_state(host: *const c_char, state: *const c_char) {
    // SAFETY: the program passes NUL-terminated strings.
    unsafe {
        name(host, "TRACE_host_pop_state", "host");
        name(state, "TRACE_host_pop_state", "state");
    }
}

/// `smpi_trace_set_call_location(file, line)`, which `smpicc
/// -trace-call-location` puts before every MPI call: the calling rank's
/// next calls are at `line` of `file`, the place the memory analysis gives
/// the handles they make (noted only while it runs).
pub(crate) unsafe extern "C" fn smpi_trace_set_call_location(file: *const c_char, line: c_int) {
    if file.is_null() || !sim::fast(|f| f.locating()) {
        return;
    }
    // SAFETY: the macro passes __FILE__, a NUL-terminated literal.
    let file = unsafe { std::ffi::CStr::from_ptr(file) }.to_string_lossy();
    let line = u32::try_from(line).unwrap_or(0);
    sim::with(|s| {
        let me = s.core.current();
        s.mpi.ledger.set_location(me, &file, line);
        if !s.tracers.is_empty() {
            // The ledger's interned name, no copy: the base name, or the
            // whole path with smpi/trace-call-use-absolute-path, as in
            // SimGrid.
            if let Some(file) = s
                .mpi
                .ledger
                .here(me)
                .map(|site| std::rc::Rc::clone(&site.file))
            {
                s.tracers.call_location(me, &file, line);
            }
        }
    });
}
