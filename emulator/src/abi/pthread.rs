//! The POSIX threads interface on a rank, simulated: `pthread_create`
//! starts a simulated thread of the calling rank (`crate::pthreads`), and
//! everything a thread can block on or be woken by (joins, mutexes,
//! condition variables with their timed waits in simulated time,
//! read-write locks, barriers, spin locks, semaphores, `pthread_once`)
//! and its identity and thread-specific data act between the rank's
//! simulated threads.
//!
//! The C face is csrc/pthread_interpose.c (smpirun exports it), which
//! passes the caller's return address: a call off a rank, or from a
//! library that runs real threads of its own (`callers`: OpenMP runtimes,
//! threaded BLAS), is the C library's, on the same memory. A rank's
//! computation is measured per thread: a call that may block or wake
//! another thread first simulates the caller's burst, so that what it
//! does happens at its date.

use std::ffi::{c_int, c_uint, c_void, CString};

use super::callers;
use super::interpose::libc_own;
use super::{bench_begin, bench_end};
use crate::actors;
use crate::engine::context::{self, Suspend};
use crate::engine::{Detail, RunState};
use crate::pthreads::{Key, Lock, MutexKind};
use crate::sim::{self, Sim};

/// A start routine of C.
pub(crate) type StartRoutine = extern "C" fn(*mut c_void) -> *mut c_void;

/// How a lock request may wait (csrc/pthread_interpose.c's `mode`).
const WAIT: c_int = 0;
const TRY: c_int = 1;
const TIMED: c_int = 2;

/// glibc's `pthread_once_t` states.
const ONCE_IN_PROGRESS: i32 = 1;
const ONCE_DONE: i32 = 2;

/// glibc's bit of a process-shared mutex in its `__kind` field.
const MUTEX_PSHARED_BIT: i32 = 128;

/// glibc's value for `PTHREAD_BARRIER_SERIAL_THREAD`.
const BARRIER_SERIAL_THREAD: c_int = -1;

/// How many rounds of thread-specific data destructors run at a thread's
/// end (`PTHREAD_DESTRUCTOR_ITERATIONS`).
const DESTRUCTOR_ROUNDS: usize = 4;

/// Whether a threads-interface call from `caller` is simulated: made on
/// a rank (or one of its threads), neither by a library that keeps real
/// threads nor inside an OpenMP region (whose real threads may share the
/// object).
fn simulated(caller: *const c_void) -> bool {
    context::in_rank()
        && !super::threads::in_native_region()
        && !callers::keeps_native_threads(caller as usize)
}

/// Runs `f`, which may block the running actor or let another go on:
/// once a rank has threads, the burst before it is simulated first, and
/// a new one starts after it.
fn synchronising<R>(f: impl FnOnce() -> R) -> R {
    let threads = sim::fast(|f| f.threads_started());
    if threads {
        bench_end();
    }
    let r = f();
    if threads {
        bench_begin();
    }
    r
}

/// What a thread blocked on a synchronisation object is shown waiting
/// for in a deadlock report.
const WAITS: &str = "another thread of its rank";

/// Blocks the running actor in `call`, waiting for `what` (for a
/// deadlock report), until `done` says it may go on (asked first, then
/// after every wake) or, with a deadline, until that date of the
/// simulated clock: false then.
fn wait_until(
    call: &'static str,
    what: Detail,
    deadline: Option<f64>,
    mut done: impl FnMut(&Sim) -> bool,
) -> bool {
    if let Some(at) = deadline {
        sim::with(|s| s.core.arm_timeout(at));
    }
    loop {
        let (ready, timed_out) = sim::with(|s| {
            if done(s) {
                s.core.disarm_timeout();
                return (true, false);
            }
            if deadline.is_some() && s.core.take_timed_out() {
                return (false, true);
            }
            s.core.block_current(call, what.clone());
            (false, false)
        });
        if ready {
            return true;
        }
        if timed_out {
            return false;
        }
        sim::park();
    }
}

/// The date of the simulated clock a timed call gives up at (`abstime`,
/// on any clock: they all read simulated time in a rank).
///
/// # Safety
/// `at` is null or readable.
unsafe fn deadline(at: *const libc::timespec) -> Result<f64, c_int> {
    if at.is_null() {
        return Err(libc::EINVAL);
    }
    // SAFETY: per the contract.
    let t = unsafe { *at };
    if t.tv_nsec < 0 || t.tv_nsec >= 1_000_000_000 {
        return Err(libc::EINVAL);
    }
    Ok(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

/// The running actor, and the key of the object at `addr` in its rank's
/// memory.
fn me_and_key(s: &Sim, addr: usize) -> (usize, Key) {
    (
        s.core.current_actor(),
        s.threads.key(s.core.current(), addr),
    )
}

/// Sets errno to `e` and returns -1 (the semaphores' convention).
fn errno_fail(e: c_int) -> c_int {
    nix::errno::Errno::set_raw(e);
    -1
}

// --- threads ----------------------------------------------------------

/// `pthread_create`: on a rank, a simulated thread of the rank, ready
/// after the actors ready now; elsewhere a real one.
///
/// # Safety
/// The C contract: `thread` writable, `attr` null or initialised.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_create(
    thread: *mut libc::pthread_t,
    attr: *const libc::pthread_attr_t,
    routine: StartRoutine,
    arg: *mut c_void,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        // SAFETY: the caller's contract.
        return unsafe { super::threads::create_native(thread, attr, routine, arg) };
    }
    if thread.is_null() {
        return libc::EINVAL;
    }
    let mut detached = libc::PTHREAD_CREATE_JOINABLE;
    if !attr.is_null() {
        let state: *mut c_int = &mut detached;
        libc_own!("pthread_attr_getdetachstate": unsafe extern "C" fn(*const libc::pthread_attr_t, *mut c_int) -> c_int, attr, state);
    }
    // The creator's burst comes first: the thread starts at its end.
    bench_end();
    let arg = arg as usize;
    let body: actors::Body = Box::new(move || thread_main(routine, arg));
    let made = sim::with(|s| {
        let rank = s.core.current();
        let host = s.core.host_of(rank).0 as usize;
        let name = CString::new(s.threads.next_name(rank)).unwrap_or_default();
        let pid = actors::create(s, name, host)?;
        actors::start(s, pid, body)?;
        let actor = actors::check(s, pid)?;
        let id = s.threads.add(actor);
        if detached == libc::PTHREAD_CREATE_DETACHED {
            let _ = s.threads.detach(actor);
        }
        Ok::<_, actors::ActorError>(id)
    });
    sim::fast(|f| f.note_threads_started());
    bench_begin();
    match made {
        Ok(id) => {
            // SAFETY: non-null output from the caller.
            unsafe { *thread = id as libc::pthread_t };
            0
        }
        Err(e) => super::time::fatal(&format!("pthread_create: {e}")),
    }
}

/// What a simulated thread runs on its own stack.
fn thread_main(routine: StartRoutine, arg: usize) -> i32 {
    bench_begin();
    let result = routine(arg as *mut c_void);
    thread_end(result as usize);
    0
}

/// The end of the running simulated thread with `result`: its last burst
/// is simulated (its joiner waits for it), its result kept, and its
/// thread-specific data destructors run.
fn thread_end(result: usize) {
    bench_end();
    let me = sim::with(|s| {
        let me = s.core.current_actor();
        s.threads.set_result(me, result);
        me
    });
    for _ in 0..DESTRUCTOR_ROUNDS * 64 {
        let Some((destructor, value)) = sim::with(|s| s.threads.take_destructible(me)) else {
            break;
        };
        // SAFETY: the program's destructor, of type void (*)(void *),
        // given to pthread_key_create, called with the thread's value.
        let destructor =
            unsafe { std::mem::transmute::<usize, extern "C" fn(*mut c_void)>(destructor) };
        destructor(value as *mut c_void);
    }
    super::spend_pending_flops();
}

/// The simulated thread `t` names, if the call from `caller` is simulated
/// and `t` is one.
fn simulated_thread(t: libc::pthread_t, caller: *const c_void) -> Option<usize> {
    if !simulated(caller) {
        return None;
    }
    sim::with(|s| s.threads.actor_of(t as usize))
}

/// `pthread_join`: waits for a simulated thread (in simulated time).
///
/// # Safety
/// The C contract: `result` null or writable.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_join(
    t: libc::pthread_t,
    result: *mut *mut c_void,
    caller: *const c_void,
) -> c_int {
    let target = simulated_thread(t, caller);
    let Some(target) = target else {
        return libc_own!("pthread_join": unsafe extern "C" fn(libc::pthread_t, *mut *mut c_void) -> c_int, t, result);
    };
    synchronising(|| loop {
        let asked = sim::with(|s| {
            let me = s.core.current_actor();
            s.threads.join(target, me)
        });
        match asked {
            Ok(Some(value)) => {
                if !result.is_null() {
                    // SAFETY: non-null output from the caller.
                    unsafe { *result = value as *mut c_void };
                }
                return 0;
            }
            Ok(None) => {
                let what =
                    sim::with(|s| Detail::Owned(format!("{} to end", actors::describe(s, target))));
                wait_until("pthread_join", what, None, |s| {
                    s.core.actor(target).state() == RunState::Done
                });
            }
            Err(e) => return e,
        }
    })
}

/// `pthread_tryjoin_np`: `EBUSY` while the thread runs.
///
/// # Safety
/// As [`smpi_pt_join`].
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_tryjoin(
    t: libc::pthread_t,
    result: *mut *mut c_void,
    caller: *const c_void,
) -> c_int {
    let target = simulated_thread(t, caller);
    let Some(target) = target else {
        return libc_own!("pthread_tryjoin_np": unsafe extern "C" fn(libc::pthread_t, *mut *mut c_void) -> c_int, t, result);
    };
    if sim::with(|s| s.core.actor(target).state()) != RunState::Done {
        return libc::EBUSY;
    }
    // SAFETY: the caller's contract; the thread is done, so no wait.
    unsafe { smpi_pt_join(t, result, caller) }
}

/// `pthread_detach`.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_detach(t: libc::pthread_t, caller: *const c_void) -> c_int {
    let target = simulated_thread(t, caller);
    let Some(target) = target else {
        return libc_own!("pthread_detach": unsafe extern "C" fn(libc::pthread_t) -> c_int, t);
    };
    match sim::with(|s| s.threads.detach(target)) {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// `pthread_exit`: a simulated thread ends with `result`; a rank's main
/// thread waits for the rank's threads, and the rank ends with them, as
/// a process whose main thread exits.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_exit(result: *mut c_void, caller: *const c_void) -> ! {
    if !simulated(caller) {
        libc_own!("pthread_exit": unsafe extern "C" fn(*mut c_void) -> !, result)
    }
    let thread = sim::with(|s| s.threads.is_thread(s.core.current_actor()));
    if thread {
        thread_end(result as usize);
    } else {
        bench_end();
        sim::with(|s| s.threads.wait_for_threads(s.core.current()));
        wait_until(
            "pthread_exit",
            Detail::Text("its rank's other threads to end"),
            None,
            |s| {
                let rank = s.core.current();
                s.threads.live_of(s.core.actors_of(rank)).is_empty()
            },
        );
    }
    loop {
        context::suspend(Suspend::Exit(0));
    }
}

/// `pthread_self`: a simulated thread's own `pthread_t`; the real one
/// for a rank's main thread.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_self(caller: *const c_void) -> libc::pthread_t {
    if simulated(caller) && sim::fast(|f| f.threads_started()) {
        if let Some(id) = sim::with(|s| s.threads.id_of(s.core.current_actor())) {
            return id as libc::pthread_t;
        }
    }
    libc_own!("pthread_self": unsafe extern "C" fn() -> libc::pthread_t,)
}

// --- mutexes and spin locks -----------------------------------------------

/// glibc's `__kind` of the mutex at `m` (its type, and flags).
///
/// # Safety
/// `m` points at a `pthread_mutex_t`.
unsafe fn mutex_kind(m: *const libc::pthread_mutex_t) -> i32 {
    // SAFETY: glibc's pthread_mutex_t starts with five ints, `__kind`
    // the fifth (x86-64 and aarch64 alike), which its static
    // initializers set too.
    unsafe { m.cast::<i32>().add(4).read() }
}

/// How many lock requests in a row, with no switch between them, make a
/// polling loop (a barrier spun on a mutex, a trylock loop), which then
/// yields so that the threads it waits for run.
const POLLING_LOCKS: u32 = 64;

thread_local! {
    /// The count of parks at the last lock request, and how many came
    /// without one between.
    static LOCK_STREAK: std::cell::Cell<(u64, u32)> = const { std::cell::Cell::new((0, 0)) };
}

/// Counts a lock request: a thread that keeps locking without ever
/// waiting is polling, and yields to the others every
/// [`POLLING_LOCKS`] requests (natively they would run beside it).
fn note_lock_request() {
    if !sim::fast(|f| f.threads_started()) {
        return;
    }
    let parks = context::parks();
    let (last, streak) = LOCK_STREAK.with(std::cell::Cell::get);
    let streak = if last == parks { streak + 1 } else { 1 };
    if streak >= POLLING_LOCKS {
        super::time::yield_to_others("pthread_mutex_lock");
        LOCK_STREAK.with(|c| c.set((context::parks(), 0)));
    } else {
        LOCK_STREAK.with(|c| c.set((parks, streak)));
    }
}

/// Locks the mutex (or spin lock) at `addr` of type `kind` for the
/// running actor, per `mode`, giving up at `at` for a timed lock.
fn lock(call: &'static str, addr: usize, kind: MutexKind, mode: c_int, at: Option<f64>) -> c_int {
    note_lock_request();
    synchronising(|| {
        let (me, key, got) = sim::with(|s| {
            let (me, key) = me_and_key(s, addr);
            (me, key, s.threads.mutex_lock(key, kind, me, mode != TRY))
        });
        match got {
            Lock::Acquired => 0,
            Lock::Refused(e) => e,
            Lock::Queued => {
                if wait_until(call, Detail::Text(WAITS), at, |s| {
                    s.threads.mutex_owned(key, me)
                }) {
                    0
                } else {
                    sim::with(|s| s.threads.mutex_give_up(key, me));
                    libc::ETIMEDOUT
                }
            }
        }
    })
}

/// Unlocks the mutex (or spin lock) at `addr`, handing it to its first
/// waiter.
fn unlock(addr: usize) -> c_int {
    synchronising(|| {
        sim::with(|s| {
            let (me, key) = me_and_key(s, addr);
            match s.threads.mutex_unlock(key, me, false) {
                Ok((_, woken)) => {
                    if let Some(w) = woken {
                        s.core.wake_actor(w);
                    }
                    0
                }
                Err(e) => e,
            }
        })
    })
}

/// Notes that the object at `addr` is made anew (process-shared with
/// `shared`): `make` sets up what the rank's threads know of it (or
/// drops what they knew of an earlier one there); its result.
fn made_anew<R>(
    addr: usize,
    shared: bool,
    make: impl FnOnce(&mut crate::pthreads::Threads, Key) -> R,
) -> R {
    sim::with(|s| {
        s.threads.set_shared(addr, shared);
        let key = s.threads.key(s.core.current(), addr);
        make(&mut s.threads, key)
    })
}

/// Whether the attributes at `attr` (null: the defaults) make an object
/// process-shared, as `get` (glibc's `pthread_*attr_getpshared`) reads
/// them.
///
/// # Safety
/// `attr` is null or initialised attributes of the type `get` reads.
unsafe fn pshared<A>(
    attr: *const A,
    get: unsafe extern "C" fn(*const A, *mut c_int) -> c_int,
) -> bool {
    let mut shared = libc::PTHREAD_PROCESS_PRIVATE;
    if !attr.is_null() {
        // SAFETY: initialised attributes, per the contract.
        unsafe { get(attr, &mut shared) };
    }
    shared == libc::PTHREAD_PROCESS_SHARED
}

/// Destroys the object at `addr` with `destroy`: 0, or its error.
fn destroyed(
    addr: usize,
    destroy: impl FnOnce(&mut crate::pthreads::Threads, Key) -> Result<(), c_int>,
) -> c_int {
    sim::with(|s| {
        let key = s.threads.key(s.core.current(), addr);
        match destroy(&mut s.threads, key) {
            Ok(()) => 0,
            Err(e) => e,
        }
    })
}

/// `pthread_mutex_init`: glibc's (which records the type), and a new
/// mutex for the rank's threads.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_mutex_init(
    m: *mut libc::pthread_mutex_t,
    attr: *const libc::pthread_mutexattr_t,
    caller: *const c_void,
) -> c_int {
    let r = libc_own!("pthread_mutex_init": unsafe extern "C" fn(*mut libc::pthread_mutex_t, *const libc::pthread_mutexattr_t) -> c_int, m, attr);
    if r != 0 || !simulated(caller) {
        return r;
    }
    // SAFETY: a mutex glibc just initialised.
    let kind = unsafe { mutex_kind(m) };
    let _ = made_anew(m as usize, kind & MUTEX_PSHARED_BIT != 0, |t, k| {
        t.mutex_destroy(k)
    });
    0
}

/// `pthread_mutex_destroy`: `EBUSY` while held.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_mutex_destroy(
    m: *mut libc::pthread_mutex_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_mutex_destroy": unsafe extern "C" fn(*mut libc::pthread_mutex_t) -> c_int, m);
    }
    destroyed(m as usize, |t, k| t.mutex_destroy(k))
}

/// `pthread_mutex_lock`, `_trylock` and `_timedlock`.
///
/// # Safety
/// The C contract: `m` an initialised mutex, `at` readable when timed.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_mutex_lock(
    m: *mut libc::pthread_mutex_t,
    at: *const libc::timespec,
    mode: c_int,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        type LockFn = unsafe extern "C" fn(*mut libc::pthread_mutex_t) -> c_int;
        return match mode {
            WAIT => libc_own!("pthread_mutex_lock": LockFn, m),
            TRY => libc_own!("pthread_mutex_trylock": LockFn, m),
            _ => {
                libc_own!("pthread_mutex_timedlock": unsafe extern "C" fn(*mut libc::pthread_mutex_t, *const libc::timespec) -> c_int, m, at)
            }
        };
    }
    if m.is_null() {
        return libc::EINVAL;
    }
    let at = if mode == TIMED {
        // SAFETY: the caller's contract.
        match unsafe { deadline(at) } {
            Ok(t) => Some(t),
            Err(e) => return e,
        }
    } else {
        None
    };
    // SAFETY: an initialised mutex, per the contract.
    let kind = MutexKind::of_glibc_kind(unsafe { mutex_kind(m) });
    lock("pthread_mutex_lock", m as usize, kind, mode, at)
}

/// `pthread_mutex_unlock`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_mutex_unlock(
    m: *mut libc::pthread_mutex_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_mutex_unlock": unsafe extern "C" fn(*mut libc::pthread_mutex_t) -> c_int, m);
    }
    unlock(m as usize)
}

/// `pthread_spin_init`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_spin_init(
    l: *mut libc::pthread_spinlock_t,
    shared: c_int,
    caller: *const c_void,
) -> c_int {
    let r = libc_own!("pthread_spin_init": unsafe extern "C" fn(*mut libc::pthread_spinlock_t, c_int) -> c_int, l, shared);
    if r != 0 || !simulated(caller) {
        return r;
    }
    let _ = made_anew(
        l as usize,
        shared == libc::PTHREAD_PROCESS_SHARED,
        |t, k| t.mutex_destroy(k),
    );
    0
}

/// `pthread_spin_destroy`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_spin_destroy(
    l: *mut libc::pthread_spinlock_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_spin_destroy": unsafe extern "C" fn(*mut libc::pthread_spinlock_t) -> c_int, l);
    }
    destroyed(l as usize, |t, k| t.mutex_destroy(k))
}

/// `pthread_spin_lock` and `_trylock`: a simulated thread waits for a
/// spin lock as for a mutex (spinning would keep the others from running).
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_spin_lock(
    l: *mut libc::pthread_spinlock_t,
    mode: c_int,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        type LockFn = unsafe extern "C" fn(*mut libc::pthread_spinlock_t) -> c_int;
        return if mode == TRY {
            libc_own!("pthread_spin_trylock": LockFn, l)
        } else {
            libc_own!("pthread_spin_lock": LockFn, l)
        };
    }
    lock(
        "pthread_spin_lock",
        l as usize,
        MutexKind::Normal,
        mode,
        None,
    )
}

/// `pthread_spin_unlock`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_spin_unlock(
    l: *mut libc::pthread_spinlock_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_spin_unlock": unsafe extern "C" fn(*mut libc::pthread_spinlock_t) -> c_int, l);
    }
    unlock(l as usize)
}

// --- condition variables --------------------------------------------------

/// `pthread_cond_init`: a new condition (process-shared if the
/// attributes say so).
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_cond_init(
    c: *mut libc::pthread_cond_t,
    attr: *const libc::pthread_condattr_t,
    caller: *const c_void,
) -> c_int {
    let r = libc_own!("pthread_cond_init": unsafe extern "C" fn(*mut libc::pthread_cond_t, *const libc::pthread_condattr_t) -> c_int, c, attr);
    if r != 0 || !simulated(caller) {
        return r;
    }
    // SAFETY: initialised attributes (or none), per the contract.
    let shared = unsafe { pshared(attr, libc::pthread_condattr_getpshared) };
    let _ = made_anew(c as usize, shared, |t, k| t.cond_destroy(k));
    0
}

/// `pthread_cond_destroy`: `EBUSY` while threads wait.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_cond_destroy(
    c: *mut libc::pthread_cond_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_cond_destroy": unsafe extern "C" fn(*mut libc::pthread_cond_t) -> c_int, c);
    }
    destroyed(c as usize, |t, k| t.cond_destroy(k))
}

/// `pthread_cond_wait` and `_timedwait` (`at` non-null): the mutex is
/// released, the thread waits for a signal (or the date `at` of the
/// simulated clock), then takes the mutex again.
///
/// # Safety
/// The C contract: `c` and `m` initialised, `m` held by the caller, `at`
/// null or readable.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_cond_wait(
    c: *mut libc::pthread_cond_t,
    m: *mut libc::pthread_mutex_t,
    at: *const libc::timespec,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        if at.is_null() {
            return libc_own!("pthread_cond_wait": unsafe extern "C" fn(*mut libc::pthread_cond_t, *mut libc::pthread_mutex_t) -> c_int, c, m);
        }
        return libc_own!("pthread_cond_timedwait": unsafe extern "C" fn(*mut libc::pthread_cond_t, *mut libc::pthread_mutex_t, *const libc::timespec) -> c_int, c, m, at);
    }
    if c.is_null() || m.is_null() {
        return libc::EINVAL;
    }
    let deadline = if at.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        match unsafe { deadline(at) } {
            Ok(t) => Some(t),
            Err(e) => return e,
        }
    };
    // SAFETY: an initialised mutex, per the contract.
    let kind = MutexKind::of_glibc_kind(unsafe { mutex_kind(m) });
    let (c, m) = (c as usize, m as usize);
    synchronising(|| {
        let entered = sim::with(|s| {
            let (me, mkey) = me_and_key(s, m);
            let ckey = s.threads.key(s.core.current(), c);
            if !s.threads.mutex_owned(mkey, me) {
                return Err(libc::EPERM);
            }
            let (held, woken) = s.threads.mutex_unlock(mkey, me, true)?;
            if let Some(w) = woken {
                s.core.wake_actor(w);
            }
            s.threads.cond_enter(ckey, me);
            Ok((me, ckey, mkey, held))
        });
        let (me, ckey, mkey, held) = match entered {
            Ok(x) => x,
            Err(e) => return e,
        };
        let signalled = wait_until("pthread_cond_wait", Detail::Text(WAITS), deadline, |s| {
            !s.threads.cond_waiting(ckey, me)
        });
        if !signalled {
            sim::with(|s| s.threads.cond_leave(ckey, me));
        }
        // The mutex again, whatever the wait's end.
        let got = sim::with(|s| s.threads.mutex_lock(mkey, kind, me, true));
        if got == Lock::Queued {
            wait_until("pthread_cond_wait", Detail::Text(WAITS), None, |s| {
                s.threads.mutex_owned(mkey, me)
            });
        }
        sim::with(|s| s.threads.mutex_restore(mkey, held));
        if signalled {
            0
        } else {
            libc::ETIMEDOUT
        }
    })
}

/// `pthread_cond_signal` (`all` 0) and `_broadcast`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_cond_signal(
    c: *mut libc::pthread_cond_t,
    all: c_int,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        type Signal = unsafe extern "C" fn(*mut libc::pthread_cond_t) -> c_int;
        return if all != 0 {
            libc_own!("pthread_cond_broadcast": Signal, c)
        } else {
            libc_own!("pthread_cond_signal": Signal, c)
        };
    }
    let addr = c as usize;
    synchronising(|| {
        sim::with(|s| {
            let key = s.threads.key(s.core.current(), addr);
            for w in s.threads.cond_signal(key, all != 0) {
                s.core.wake_actor(w);
            }
        })
    });
    0
}

// --- read-write locks -----------------------------------------------------

/// `pthread_rwlock_init`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_rwlock_init(
    l: *mut libc::pthread_rwlock_t,
    attr: *const libc::pthread_rwlockattr_t,
    caller: *const c_void,
) -> c_int {
    let r = libc_own!("pthread_rwlock_init": unsafe extern "C" fn(*mut libc::pthread_rwlock_t, *const libc::pthread_rwlockattr_t) -> c_int, l, attr);
    if r != 0 || !simulated(caller) {
        return r;
    }
    // SAFETY: initialised attributes (or none), per the contract.
    let shared = unsafe { pshared(attr, libc::pthread_rwlockattr_getpshared) };
    let _ = made_anew(l as usize, shared, |t, k| t.rwlock_destroy(k));
    0
}

/// `pthread_rwlock_destroy`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_rwlock_destroy(
    l: *mut libc::pthread_rwlock_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_rwlock_destroy": unsafe extern "C" fn(*mut libc::pthread_rwlock_t) -> c_int, l);
    }
    destroyed(l as usize, |t, k| t.rwlock_destroy(k))
}

/// `pthread_rwlock_{rd,wr}lock` (`write`), their `try` and `timed`
/// variants.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_rwlock_lock(
    l: *mut libc::pthread_rwlock_t,
    write: c_int,
    at: *const libc::timespec,
    mode: c_int,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        type LockFn = unsafe extern "C" fn(*mut libc::pthread_rwlock_t) -> c_int;
        type Timed =
            unsafe extern "C" fn(*mut libc::pthread_rwlock_t, *const libc::timespec) -> c_int;
        return match (write != 0, mode) {
            (false, WAIT) => libc_own!("pthread_rwlock_rdlock": LockFn, l),
            (false, TRY) => libc_own!("pthread_rwlock_tryrdlock": LockFn, l),
            (false, _) => libc_own!("pthread_rwlock_timedrdlock": Timed, l, at),
            (true, WAIT) => libc_own!("pthread_rwlock_wrlock": LockFn, l),
            (true, TRY) => libc_own!("pthread_rwlock_trywrlock": LockFn, l),
            (true, _) => libc_own!("pthread_rwlock_timedwrlock": Timed, l, at),
        };
    }
    let at = if mode == TIMED {
        // SAFETY: the caller's contract.
        match unsafe { deadline(at) } {
            Ok(t) => Some(t),
            Err(e) => return e,
        }
    } else {
        None
    };
    let addr = l as usize;
    synchronising(|| {
        let (me, key, got) = sim::with(|s| {
            let (me, key) = me_and_key(s, addr);
            (
                me,
                key,
                s.threads.rwlock_lock(key, me, write != 0, mode != TRY),
            )
        });
        match got {
            Lock::Acquired => 0,
            Lock::Refused(e) => e,
            Lock::Queued => {
                if wait_until("pthread_rwlock_lock", Detail::Text(WAITS), at, |s| {
                    !s.threads.rwlock_waiting(key, me)
                }) {
                    0
                } else {
                    sim::with(|s| s.threads.rwlock_give_up(key, me));
                    libc::ETIMEDOUT
                }
            }
        }
    })
}

/// `pthread_rwlock_unlock`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_rwlock_unlock(
    l: *mut libc::pthread_rwlock_t,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_rwlock_unlock": unsafe extern "C" fn(*mut libc::pthread_rwlock_t) -> c_int, l);
    }
    let addr = l as usize;
    synchronising(|| {
        sim::with(|s| {
            let (me, key) = me_and_key(s, addr);
            match s.threads.rwlock_unlock(key, me) {
                Ok(woken) => {
                    for w in woken {
                        s.core.wake_actor(w);
                    }
                    0
                }
                Err(e) => e,
            }
        })
    })
}

// --- barriers ---------------------------------------------------------------

/// `pthread_barrier_init`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_barrier_init(
    b: *mut libc::pthread_barrier_t,
    attr: *const libc::pthread_barrierattr_t,
    count: c_uint,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_barrier_init": unsafe extern "C" fn(*mut libc::pthread_barrier_t, *const libc::pthread_barrierattr_t, c_uint) -> c_int, b, attr, count);
    }
    // SAFETY: initialised attributes (or none), per the contract.
    let shared = unsafe { pshared(attr, libc::pthread_barrierattr_getpshared) };
    match made_anew(b as usize, shared, |t, k| t.barrier_init(k, count)) {
        Ok(()) => 0,
        Err(e) => e,
    }
}

/// `pthread_barrier_destroy`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_barrier_destroy(
    b: *mut libc::pthread_barrier_t,
    caller: *const c_void,
) -> c_int {
    let addr = b as usize;
    let known = simulated(caller)
        && sim::with(|s| {
            let key = s.threads.key(s.core.current(), addr);
            s.threads.has_barrier(key)
        });
    if !known {
        return libc_own!("pthread_barrier_destroy": unsafe extern "C" fn(*mut libc::pthread_barrier_t) -> c_int, b);
    }
    destroyed(addr, |t, k| t.barrier_destroy(k))
}

/// `pthread_barrier_wait`: the last thread to arrive gets
/// `PTHREAD_BARRIER_SERIAL_THREAD` and opens it.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_barrier_wait(
    b: *mut libc::pthread_barrier_t,
    caller: *const c_void,
) -> c_int {
    let addr = b as usize;
    let arrived = if simulated(caller) {
        synchronising(|| {
            let arrival = sim::with(|s| {
                let (me, key) = me_and_key(s, addr);
                let (generation, woken, last) = s.threads.barrier_arrive(key, me)?;
                for w in woken {
                    s.core.wake_actor(w);
                }
                Some((key, generation, last))
            });
            let (key, generation, last) = arrival?;
            if last {
                return Some(BARRIER_SERIAL_THREAD);
            }
            wait_until("pthread_barrier_wait", Detail::Text(WAITS), None, |s| {
                s.threads.barrier_generation(key) != generation
            });
            Some(0)
        })
    } else {
        None
    };
    match arrived {
        Some(r) => r,
        None => {
            libc_own!("pthread_barrier_wait": unsafe extern "C" fn(*mut libc::pthread_barrier_t) -> c_int, b)
        }
    }
}

// --- pthread_once and thread-specific data ----------------------------------

/// `pthread_once`: on glibc's own states in the control's memory, so that
/// the C library's and ours agree; a thread arriving while another runs
/// the routine waits for it.
///
/// # Safety
/// The C contract: `once` a `pthread_once_t`, `routine` callable.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_once(
    once: *mut libc::pthread_once_t,
    routine: extern "C" fn(),
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("pthread_once": unsafe extern "C" fn(*mut libc::pthread_once_t, extern "C" fn()) -> c_int, once, routine);
    }
    let state = once.cast::<i32>();
    let addr = once as usize;
    loop {
        // SAFETY: the caller's once control, an int of glibc's states.
        let v = unsafe { state.read_volatile() };
        if v & ONCE_DONE != 0 {
            return 0;
        }
        if v & ONCE_IN_PROGRESS == 0 {
            // SAFETY: as above.
            unsafe { state.write_volatile(ONCE_IN_PROGRESS) };
            routine();
            // SAFETY: as above.
            unsafe { state.write_volatile(ONCE_DONE) };
            sim::with(|s| {
                for w in s.threads.once_done(addr) {
                    s.core.wake_actor(w);
                }
            });
            return 0;
        }
        synchronising(|| {
            let me = sim::with(|s| {
                let me = s.core.current_actor();
                s.threads.once_wait(addr, me);
                me
            });
            wait_until("pthread_once", Detail::Text(WAITS), None, |s| {
                !s.threads.once_waiting(addr, me)
            });
        });
    }
}

/// `pthread_key_create`: glibc's key; made on a rank, its values are each
/// simulated thread's own.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_key_create(
    key: *mut libc::pthread_key_t,
    destructor: Option<unsafe extern "C" fn(*mut c_void)>,
    caller: *const c_void,
) -> c_int {
    let r = libc_own!("pthread_key_create": unsafe extern "C" fn(*mut libc::pthread_key_t, Option<unsafe extern "C" fn(*mut c_void)>) -> c_int, key, destructor);
    if r != 0 || !simulated(caller) {
        return r;
    }
    // SAFETY: glibc just wrote the key.
    let k = unsafe { *key };
    let d = destructor.map_or(0, |f| f as usize);
    sim::with(|s| s.threads.key_create(k, d));
    0
}

/// `pthread_key_delete`.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_key_delete(
    key: libc::pthread_key_t,
    caller: *const c_void,
) -> c_int {
    if simulated(caller) {
        sim::with(|s| s.threads.key_delete(key));
    }
    libc_own!("pthread_key_delete": unsafe extern "C" fn(libc::pthread_key_t) -> c_int, key)
}

/// `pthread_getspecific`: the running actor's value of a key made on a
/// rank.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_getspecific(
    key: libc::pthread_key_t,
    caller: *const c_void,
) -> *mut c_void {
    if simulated(caller) {
        let value = sim::with(|s| {
            s.threads
                .is_key(key)
                .then(|| s.threads.get_value(s.core.current_actor(), key))
        });
        if let Some(v) = value {
            return v as *mut c_void;
        }
    }
    libc_own!("pthread_getspecific": unsafe extern "C" fn(libc::pthread_key_t) -> *mut c_void, key)
}

/// `pthread_setspecific`.
///
/// # Safety
/// None beyond C's.
#[no_mangle]
pub unsafe extern "C" fn smpi_pt_setspecific(
    key: libc::pthread_key_t,
    value: usize,
    caller: *const c_void,
) -> c_int {
    if simulated(caller) {
        let set = sim::with(|s| {
            let known = s.threads.is_key(key);
            if known {
                let me = s.core.current_actor();
                s.threads.set_value(me, key, value);
            }
            known
        });
        if set {
            return 0;
        }
    }
    libc_own!("pthread_setspecific": unsafe extern "C" fn(libc::pthread_key_t, usize) -> c_int, key, value)
}

// --- semaphores -------------------------------------------------------------

/// The key of the semaphore at `sem` if the call from `caller` is
/// simulated and the semaphore was made on a rank.
fn simulated_sem(sem: *mut libc::sem_t, caller: *const c_void) -> Option<Key> {
    if !simulated(caller) {
        return None;
    }
    let addr = sem as usize;
    sim::with(|s| {
        let key = s.threads.key(s.core.current(), addr);
        s.threads.has_sem(key).then_some(key)
    })
}

/// `sem_init`: a semaphore of the rank's threads (of every rank's, with
/// `shared`).
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_sem_init(
    sem: *mut libc::sem_t,
    shared: c_int,
    value: c_uint,
    caller: *const c_void,
) -> c_int {
    if !simulated(caller) {
        return libc_own!("sem_init": unsafe extern "C" fn(*mut libc::sem_t, c_int, c_uint) -> c_int, sem, shared, value);
    }
    if value > libc::c_int::MAX as c_uint {
        return errno_fail(libc::EINVAL);
    }
    made_anew(sem as usize, shared != 0, |t, k| t.sem_init(k, value));
    0
}

/// `sem_destroy`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_sem_destroy(sem: *mut libc::sem_t, caller: *const c_void) -> c_int {
    let key = simulated_sem(sem, caller);
    let Some(key) = key else {
        return libc_own!("sem_destroy": unsafe extern "C" fn(*mut libc::sem_t) -> c_int, sem);
    };
    match sim::with(|s| s.threads.sem_destroy(key)) {
        Ok(()) => 0,
        Err(e) => errno_fail(e),
    }
}

/// `sem_wait`, `sem_trywait` and `sem_timedwait`.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_sem_wait(
    sem: *mut libc::sem_t,
    at: *const libc::timespec,
    mode: c_int,
    caller: *const c_void,
) -> c_int {
    let key = simulated_sem(sem, caller);
    let Some(key) = key else {
        type Wait = unsafe extern "C" fn(*mut libc::sem_t) -> c_int;
        return match mode {
            WAIT => libc_own!("sem_wait": Wait, sem),
            TRY => libc_own!("sem_trywait": Wait, sem),
            _ => {
                libc_own!("sem_timedwait": unsafe extern "C" fn(*mut libc::sem_t, *const libc::timespec) -> c_int, sem, at)
            }
        };
    };
    let at = if mode == TIMED {
        // SAFETY: the caller's contract.
        match unsafe { deadline(at) } {
            Ok(t) => Some(t),
            Err(e) => return errno_fail(e),
        }
    } else {
        None
    };
    synchronising(|| {
        let (me, got) = sim::with(|s| {
            let me = s.core.current_actor();
            (me, s.threads.sem_wait(key, me, mode != TRY))
        });
        match got {
            Lock::Acquired => 0,
            Lock::Refused(e) => errno_fail(e),
            Lock::Queued => {
                if wait_until("sem_wait", Detail::Text(WAITS), at, |s| {
                    !s.threads.sem_waiting(key, me)
                }) {
                    0
                } else {
                    sim::with(|s| s.threads.sem_give_up(key, me));
                    errno_fail(libc::ETIMEDOUT)
                }
            }
        }
    })
}

/// `sem_post`: the unit goes to the oldest waiter, if one waits.
///
/// # Safety
/// The C contract.
#[no_mangle]
pub unsafe extern "C" fn smpi_sem_post(sem: *mut libc::sem_t, caller: *const c_void) -> c_int {
    let key = simulated_sem(sem, caller);
    let Some(key) = key else {
        return libc_own!("sem_post": unsafe extern "C" fn(*mut libc::sem_t) -> c_int, sem);
    };
    synchronising(|| {
        sim::with(|s| match s.threads.sem_post(key) {
            Ok(woken) => {
                if let Some(w) = woken {
                    s.core.wake_actor(w);
                }
                0
            }
            Err(e) => errno_fail(e),
        })
    })
}

/// `sem_getvalue`.
///
/// # Safety
/// The C contract: `value` writable.
#[no_mangle]
pub unsafe extern "C" fn smpi_sem_getvalue(
    sem: *mut libc::sem_t,
    value: *mut c_int,
    caller: *const c_void,
) -> c_int {
    let key = simulated_sem(sem, caller);
    let Some(key) = key else {
        return libc_own!("sem_getvalue": unsafe extern "C" fn(*mut libc::sem_t, *mut c_int) -> c_int, sem, value);
    };
    let v = sim::with(|s| s.threads.sem_value(key)).unwrap_or(0);
    if value.is_null() {
        return errno_fail(libc::EINVAL);
    }
    // SAFETY: non-null output from the caller.
    unsafe { *value = c_int::try_from(v).unwrap_or(c_int::MAX) };
    0
}

/// The names csrc/pthread_interpose.c defines, which smpirun exports
/// (build.rs), and their addresses, to keep them in the link.
pub fn interposers() -> Vec<(&'static str, usize)> {
    macro_rules! c_defined {
        ($($name:ident),* $(,)?) => {{
            extern "C" {
                $(fn $name();)*
            }
            vec![$((stringify!($name), $name as *const () as usize)),*]
        }};
    }
    c_defined![
        pthread_create,
        pthread_join,
        pthread_tryjoin_np,
        pthread_detach,
        pthread_exit,
        pthread_self,
        pthread_mutex_init,
        pthread_mutex_destroy,
        pthread_mutex_lock,
        pthread_mutex_trylock,
        pthread_mutex_timedlock,
        pthread_mutex_unlock,
        pthread_cond_init,
        pthread_cond_destroy,
        pthread_cond_wait,
        pthread_cond_timedwait,
        pthread_cond_signal,
        pthread_cond_broadcast,
        pthread_rwlock_init,
        pthread_rwlock_destroy,
        pthread_rwlock_rdlock,
        pthread_rwlock_tryrdlock,
        pthread_rwlock_timedrdlock,
        pthread_rwlock_wrlock,
        pthread_rwlock_trywrlock,
        pthread_rwlock_timedwrlock,
        pthread_rwlock_unlock,
        pthread_barrier_init,
        pthread_barrier_destroy,
        pthread_barrier_wait,
        pthread_spin_init,
        pthread_spin_destroy,
        pthread_spin_lock,
        pthread_spin_trylock,
        pthread_spin_unlock,
        pthread_once,
        pthread_key_create,
        pthread_key_delete,
        pthread_getspecific,
        pthread_setspecific,
        sem_init,
        sem_destroy,
        sem_wait,
        sem_trywait,
        sem_timedwait,
        sem_post,
        sem_getvalue,
    ]
}
