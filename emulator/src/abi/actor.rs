//! SimGrid's C actor interface (`simgrid/actor.h`, and
//! `SMPI_thread_create` of `smpi/smpi.h`): a rank is the actor named after its rank and
//! numbered rank + 1 (the maestro is 0); the actors a rank creates and
//! starts run as that rank (see `crate::actors`).
//!
//! `sg_actor_t` is an opaque pointer to the program: here an actor's pid
//! as an address, never dereferenced, never null.

use std::ffi::{c_char, c_int, c_long, c_void, CStr, CString};
use std::ptr;

use super::{bench_begin, bench_end, spend_pending_flops};
use crate::actors::{self, ActorError};
use crate::sim;

/// `sg_actor_t`: an actor's pid as an address.
type SgActor = *mut c_void;
use super::host::SgHost;
/// `xbt_main_func_t`: an actor's code.
type MainFunc = unsafe extern "C" fn(c_int, *mut *mut c_char);

fn actor_handle(pid: usize) -> SgActor {
    ptr::without_provenance_mut(pid)
}

/// Stops the run for a misuse of the interface by `call`.
pub(super) fn fail(call: &str, e: &dyn std::fmt::Display) -> ! {
    super::time::fatal(&format!("{call}: {e}"))
}

/// The value of `r`, or the run stops naming `call`.
fn or_fail<T>(call: &str, r: Result<T, ActorError>) -> T {
    r.unwrap_or_else(|e| fail(call, &e))
}

/// A C string of the program's.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn c_string(call: &str, p: *const c_char, what: &str) -> CString {
    if p.is_null() {
        fail(call, &format!("the {what} is a null pointer"));
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(p) }.to_owned()
}

/// The pid of the calling actor.
fn self_pid() -> usize {
    sim::with(|s| actors::self_pid(s))
}

/// `sg_actor_self_get_pid()`: the calling actor's pid (a rank's: its
/// rank + 1).
pub(crate) unsafe extern "C" fn sg_actor_self_get_pid() -> c_long {
    c_long::try_from(self_pid()).unwrap_or(c_long::MAX)
}

/// `sg_actor_self_get_name()`: the calling actor's name (a rank's: its
/// rank in decimal), in a string that lives as long as the simulation.
pub(crate) unsafe extern "C" fn sg_actor_self_get_name() -> *const c_char {
    let name = sim::with(|s| {
        let pid = actors::self_pid(s);
        actors::name(s, pid).map(CStr::as_ptr)
    });
    // Outside the access to the simulation: a failure stops the run.
    or_fail("sg_actor_self_get_name", name)
}

/// `sg_actor_self()`: the calling actor.
pub(crate) unsafe extern "C" fn sg_actor_self() -> SgActor {
    actor_handle(self_pid())
}

/// `sg_actor_get_pid(actor)`.
pub(crate) unsafe extern "C" fn sg_actor_get_pid(actor: SgActor) -> c_long {
    let pid = actor.addr();
    or_fail("sg_actor_get_pid", sim::with(|s| actors::check(s, pid)));
    c_long::try_from(pid).unwrap_or(c_long::MAX)
}

/// `sg_actor_get_name(actor)`: a string that lives as long as the
/// simulation.
pub(crate) unsafe extern "C" fn sg_actor_get_name(actor: SgActor) -> *const c_char {
    let r = sim::with(|s| actors::name(s, actor.addr()).map(CStr::as_ptr));
    or_fail("sg_actor_get_name", r)
}

/// `sg_actor_init(name, host)`: an actor of the calling rank, on the
/// rank's host, not started yet; its pid is the next one.
pub(crate) unsafe extern "C" fn sg_actor_init(name: *const c_char, host: SgHost) -> SgActor {
    const CALL: &str = "sg_actor_init";
    // SAFETY: the program passes a NUL-terminated name.
    let name = unsafe { c_string(CALL, name, "name") };
    let host = super::host::host_number(CALL, host);
    actor_handle(or_fail(CALL, sim::with(|s| actors::create(s, name, host))))
}

/// `sg_actor_start_(actor, code, argc, argv)` (what `sg_actor_start`
/// calls): the actor will run `code(argc, argv)` as its creator's rank,
/// with a copy of `argv`.
pub(crate) unsafe extern "C" fn sg_actor_start_(
    actor: SgActor,
    code: Option<MainFunc>,
    argc: c_int,
    argv: *const *const c_char,
) {
    const CALL: &str = "sg_actor_start";
    // SAFETY: the program passes argc strings in argv.
    let body = unsafe { body(CALL, code, argc, argv) };
    or_fail(CALL, sim::with(|s| actors::start(s, actor.addr(), body)));
}

/// `sg_actor_create_(name, host, code, argc, argv)` (what
/// `sg_actor_create` calls): `sg_actor_init`, then `sg_actor_start`.
pub(crate) unsafe extern "C" fn sg_actor_create_(
    name: *const c_char,
    host: SgHost,
    code: Option<MainFunc>,
    argc: c_int,
    argv: *const *const c_char,
) -> SgActor {
    const CALL: &str = "sg_actor_create";
    // SAFETY: the program passes a NUL-terminated name and argc strings.
    let (name, body) = unsafe { (c_string(CALL, name, "name"), body(CALL, code, argc, argv)) };
    let host = super::host::host_number(CALL, host);
    let pid = or_fail(
        CALL,
        sim::with(|s| {
            actors::create(s, name, host).and_then(|pid| actors::start(s, pid, body).map(|()| pid))
        }),
    );
    actor_handle(pid)
}

/// What a started actor runs: `code` with its own copy of the arguments,
/// its computation accounted as a rank's is.
///
/// # Safety
/// `argv` holds `argc` NUL-terminated strings (it may be null when `argc`
/// is 0).
unsafe fn body(
    call: &str,
    code: Option<MainFunc>,
    argc: c_int,
    argv: *const *const c_char,
) -> actors::Body {
    let Some(code) = code else {
        fail(call, &"the code is a null pointer");
    };
    let count = usize::try_from(argc).unwrap_or_else(|_| fail(call, &format!("argc is {argc}")));
    if count > 0 && argv.is_null() {
        fail(call, &format!("argv is a null pointer with argc {argc}"));
    }
    let args: Vec<CString> = (0..count)
        .map(|i| {
            // SAFETY: per the contract, argv[i] is readable for i < argc.
            let p = unsafe { *argv.add(i) };
            // SAFETY: per the contract.
            unsafe { c_string(call, p, "argument") }
        })
        .collect();
    Box::new(move || {
        let mut argv: Vec<*mut c_char> = args.iter().map(|c| c.as_ptr().cast_mut()).collect();
        argv.push(ptr::null_mut());
        bench_begin();
        // SAFETY: `code` is the program's xbt_main_func_t, called with
        // argc strings in a NULL-terminated argv that outlives the call.
        unsafe { code(argc, argv.as_mut_ptr()) };
        spend_pending_flops();
        drop(argv);
        drop(args);
        0
    })
}

/// `sg_actor_set_data(actor, data)`.
pub(crate) unsafe extern "C" fn sg_actor_set_data(actor: SgActor, data: *mut c_void) {
    let r = sim::with(|s| actors::set_data(s, actor.addr(), data.expose_provenance()));
    or_fail("sg_actor_set_data", r);
}

/// `sg_actor_get_data(actor)`: null unless set.
pub(crate) unsafe extern "C" fn sg_actor_get_data(actor: SgActor) -> *mut c_void {
    let data = or_fail(
        "sg_actor_get_data",
        sim::with(|s| actors::data(s, actor.addr())),
    );
    ptr::with_exposed_provenance_mut(data)
}

/// `sg_actor_self_set_data(data)`.
pub(crate) unsafe extern "C" fn sg_actor_self_set_data(data: *mut c_void) {
    let r = sim::with(|s| actors::set_data(s, actors::self_pid(s), data.expose_provenance()));
    or_fail("sg_actor_self_set_data", r);
}

/// `sg_actor_self_get_data()`: null unless set.
pub(crate) unsafe extern "C" fn sg_actor_self_get_data() -> *mut c_void {
    let data = or_fail(
        "sg_actor_self_get_data",
        sim::with(|s| actors::data(s, actors::self_pid(s))),
    );
    ptr::with_exposed_provenance_mut(data)
}

/// `SMPI_thread_create()`: the calling actor, created by a rank, becomes
/// an MPI process of that rank (it acts as the rank from its start; this
/// makes `MPI_Initialized` true for it, as in SimGrid).
pub(crate) unsafe extern "C" fn SMPI_thread_create() {
    sim::with(actors::join_mpi);
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
