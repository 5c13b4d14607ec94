//! Threads a rank starts itself (`pthread_create`, OpenMP's workers):
//! real OS threads, outside the simulation, which runs all ranks on one
//! thread. smpirun interposes `pthread_create` (exported, as
//! `super::interpose`'s functions) to note which rank started each thread,
//! so that an MPI call from one ends the run with one line naming the
//! rank, the call and the thread level, instead of an internal error
//! (`sim::outside_simulation`).

use std::ffi::{c_int, c_void};

use super::interpose::libc_own;
use crate::engine::context;
use crate::sim;

/// A start routine of C.
type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;

/// What a rank's new thread starts with.
struct Start {
    routine: StartRoutine,
    arg: *mut c_void,
    rank: usize,
}

/// The first function of a rank's thread: notes the rank, then runs the
/// program's routine.
extern "C" fn started_by_rank(start: *mut c_void) -> *mut c_void {
    // SAFETY: `pthread_create` below passes a Box<Start> it gave up, to
    // exactly one thread.
    let start = unsafe { Box::from_raw(start.cast::<Start>()) };
    sim::note_thread_of_rank(start.rank);
    (start.routine)(start.arg)
}

/// `pthread_create`: libc's; a thread started by a rank knows its rank.
///
/// # Safety
/// The C contract: `thread` writable, `attr` null or initialised.
#[no_mangle]
pub unsafe extern "C" fn pthread_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    routine: StartRoutine,
    arg: *mut c_void,
) -> c_int {
    let create = |routine: StartRoutine, arg: *mut c_void| libc_own!("pthread_create": unsafe extern "C" fn(*mut libc::pthread_t, *const libc::pthread_attr_t, StartRoutine, *mut c_void) -> c_int, thread, attr, routine, arg);
    if !context::in_rank() {
        return create(routine, arg);
    }
    let rank = sim::with(|s| s.core.current());
    let start = Box::into_raw(Box::new(Start { routine, arg, rank }));
    let result = create(started_by_rank, start.cast());
    if result != 0 {
        // SAFETY: no thread was made: the box is still ours.
        drop(unsafe { Box::from_raw(start) });
    }
    result
}
