//! Ranks as coroutines: stacks with guard zones, switching, and the
//! SIGSEGV handler that turns a crash into a message naming the rank.
//!
//! This is one of the few places with `unsafe`: a coroutine switch moves the
//! CPU to another stack, and a signal handler runs on its own stack.

use std::cell::Cell;
use std::ffi::c_void;
use std::num::NonZeroUsize;
use std::os::fd::AsFd;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use corosensei::stack::{Stack, StackPointer};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use nix::sys::mman::{mmap_anonymous, mprotect, munmap, MapFlags, ProtFlags};
use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet, Signal};

/// What a rank's coroutine hands back to the maestro when it stops running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suspend {
    /// The rank waits for something (it recorded what before yielding).
    Park,
    /// The rank called `exit` (or `MPI_Abort`): it never runs again.
    Exit(i32),
}

pub type RankCoroutine = Coroutine<(), Suspend, i32, CoStack>;

/// Size of the inaccessible zone below each stack: large enough that a big
/// stack frame cannot jump over it into another mapping.
const GUARD_BYTES: usize = 256 * 1024;

/// A rank's stack: `size` bytes committed lazily by the kernel, above an
/// inaccessible guard zone that catches overflows.
///
/// The mapping is made inaccessible as a whole, then the stack part is
/// opened: the guard zone never counts as writable memory (which strict
/// overcommit would charge). memmap2 cannot map PROT_NONE, hence nix.
pub struct RankStack {
    mapping: NonNull<c_void>,
    mapping_len: usize,
    top: usize,
    limit: usize,
}

impl RankStack {
    pub fn new(size: usize) -> std::io::Result<Self> {
        let page = page_size();
        let size = size.max(64 * 1024).next_multiple_of(page);
        let mapping_len = size + GUARD_BYTES;
        // SAFETY: an anonymous private mapping with no address hint
        // replaces nothing. MAP_NORESERVE: stacks are mostly untouched
        // address space and must not count against overcommit.
        let mapping = unsafe {
            mmap_anonymous(
                None,
                NonZeroUsize::new(mapping_len).expect("at least the guard zone"),
                ProtFlags::PROT_NONE,
                MapFlags::MAP_PRIVATE | MapFlags::MAP_NORESERVE,
            )
        }?;
        let limit = mapping.as_ptr() as usize + GUARD_BYTES;
        // Owned from here: an error below unmaps it (Drop).
        let stack = Self {
            mapping,
            mapping_len,
            top: limit + size,
            limit,
        };
        let usable = NonNull::new(limit as *mut c_void).expect("inside the mapping");
        // SAFETY: [limit, limit + size) lies inside the mapping just made,
        // which nothing uses yet.
        unsafe { mprotect(usable, size, ProtFlags::PROT_READ | ProtFlags::PROT_WRITE) }?;
        Ok(stack)
    }

    /// The guard zone: faults there are stack overflows.
    pub fn guard(&self) -> (usize, usize) {
        (self.mapping.as_ptr() as usize, self.limit)
    }
}

impl Drop for RankStack {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours and no coroutine runs on it any more
        // (the coroutine owning this stack is finished or was reset).
        // Unmapping a whole mapping of ours cannot fail.
        let _ = unsafe { munmap(self.mapping, self.mapping_len) };
    }
}

// SAFETY: base() and limit() describe a valid, writable, exclusively owned
// stack region that lives as long as the RankStack.
unsafe impl Stack for RankStack {
    fn base(&self) -> StackPointer {
        StackPointer::new(self.top).expect("stack top is not null")
    }
    fn limit(&self) -> StackPointer {
        StackPointer::new(self.limit).expect("stack limit is not null")
    }
}

/// The stack a coroutine runs on.
pub enum CoStack {
    /// A mapping of its own, above a guard zone (`contexts/stack-mode:guard`).
    Own(RankStack),
    /// A turn on the one stack that ranks share, their frames copied out
    /// while another rank has it (`contexts/stack-mode:copy`, see
    /// [`super::shared_stack`]): `[limit, top)`, above the guard zone
    /// `guard`.
    Shared {
        top: usize,
        limit: usize,
        guard: (usize, usize),
    },
}

impl CoStack {
    /// The guard zone below the stack: faults there are stack overflows.
    pub fn guard(&self) -> (usize, usize) {
        match self {
            Self::Own(s) => s.guard(),
            Self::Shared { guard, .. } => *guard,
        }
    }
}

// SAFETY: an own stack as RankStack's; a shared turn describes the shared
// stack's mapping, which outlives every coroutine made on it (the
// `SharedStack` is dropped after the coroutines), and whose bytes hold
// this coroutine's frames whenever it runs (`SharedStack::make_resident`
// runs before each resume).
unsafe impl Stack for CoStack {
    fn base(&self) -> StackPointer {
        match self {
            Self::Own(s) => s.base(),
            Self::Shared { top, .. } => StackPointer::new(*top).expect("stack top is not null"),
        }
    }
    fn limit(&self) -> StackPointer {
        match self {
            Self::Own(s) => s.limit(),
            Self::Shared { limit, .. } => {
                StackPointer::new(*limit).expect("stack limit is not null")
            }
        }
    }
}

fn page_size() -> usize {
    nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|p| usize::try_from(p).ok())
        .unwrap_or(4096)
}

thread_local! {
    /// The yielder of the coroutine now running (null on the maestro).
    static YIELDER: Cell<*const Yielder<(), Suspend>> = const { Cell::new(ptr::null()) };
    /// The shared stack's usable range `[limit, top)` (empty without one).
    static SHARED_RANGE: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
    /// The lowest address the frames on the shared stack may use: noted
    /// each time code leaves that stack (a suspend, a call on the maestro's
    /// stack), so that copying `[low, top)` out keeps every live frame.
    static SHARED_LOW: Cell<usize> = const { Cell::new(0) };
}

/// How far below a local of the function that leaves a stack the frames
/// of the switch itself may reach (corosensei's suspend or parent-stack
/// call and the registers its switch pushes), besides the closure and
/// result a call on the maestro's stack keeps there. Checked by
/// `shared_stack`'s tests (which fill a stack with a pattern and look for
/// the lowest byte written), in debug and release builds: corosensei 0.3's
/// suspend uses 35 bytes below in release and about 900 in debug. Every
/// byte here is copied at each switch under `contexts/stack-mode:copy`,
/// and kept per rank.
const SWITCH_FRAMES: usize = if cfg!(debug_assertions) { 2048 } else { 128 };

/// Notes that code leaves the stack it runs on, from a local at `at`
/// whose callees below may use `below` more bytes: on the shared stack,
/// that bounds the live frames.
#[inline(always)]
fn note_leaving(at: usize, below: usize) {
    let (lo, hi) = SHARED_RANGE.with(Cell::get);
    if (lo..hi).contains(&at) {
        SHARED_LOW.with(|c| c.set(at.saturating_sub(below).max(lo)));
    }
}

/// Publishes the shared stack's usable range (an empty one: none).
pub(super) fn set_shared_range(lo: usize, hi: usize) {
    SHARED_RANGE.with(|c| c.set((lo, hi)));
}

/// The lowest address the frames of the shared stack's occupant use.
pub(super) fn shared_low() -> usize {
    SHARED_LOW.with(Cell::get)
}

/// Sets what [`shared_low`] answers (a new occupant's frames were put
/// in place).
pub(super) fn set_shared_low(low: usize) {
    SHARED_LOW.with(|c| c.set(low));
}

/// The address of a local of the calling frame.
#[inline(always)]
pub(super) fn here() -> usize {
    let local = 0u8;
    std::hint::black_box(&local) as *const u8 as usize
}

/// Whether the code running now is a rank's (or an actor's), on its own
/// stack: what the interposed libc time functions ask before answering
/// with simulated time.
pub fn in_rank() -> bool {
    YIELDER.with(|y| !y.get().is_null())
}

/// Creates the coroutine of a rank. `body` runs on the rank's stack (a
/// shared one must have been claimed for this coroutine just before:
/// corosensei writes the closure at its top).
pub fn spawn<F: FnOnce() -> i32 + 'static>(stack: CoStack, body: F) -> RankCoroutine {
    // `SharedStack::claim` keeps room for the closure and corosensei's
    // first frame, which the coroutine's first run then covers.
    debug_assert!(std::mem::size_of::<F>() < super::shared_stack::CLAIM_RESERVE / 2);
    Coroutine::with_stack(stack, move |yielder: &Yielder<(), Suspend>, ()| {
        YIELDER.with(|y| y.set(yielder));
        body()
    })
}

/// Runs `co` until it yields or returns. `rank` and `guard` are published
/// for the crash handler.
pub fn resume(co: &mut RankCoroutine, rank: usize, guard: (usize, usize)) -> Suspend {
    CRASH_RANK.store(rank, Ordering::Relaxed);
    GUARD_LO.store(guard.0, Ordering::Relaxed);
    GUARD_HI.store(guard.1, Ordering::Relaxed);
    let saved = YIELDER.with(|y| y.get());
    let result = co.resume(());
    // The rank's yielder pointer is only valid while it runs.
    YIELDER.with(|y| y.set(saved));
    CRASH_RANK.store(NO_RANK, Ordering::Relaxed);
    match result {
        CoroutineResult::Yield(s) => s,
        CoroutineResult::Return(code) => Suspend::Exit(code),
    }
}

thread_local! {
    /// How many times a rank parked, all ranks together.
    static PARKS: Cell<u64> = const { Cell::new(0) };
    /// How many OpenMP regions (real threads) the running rank is inside:
    /// each rank's own, kept across a switch as errno is.
    static NATIVE_REGIONS: Cell<usize> = const { Cell::new(0) };
    /// Where on its stack the last rank to suspend left it.
    static LEFT_AT: Cell<usize> = const { Cell::new(0) };
}

/// Where on its stack the last rank to suspend left it: an address among
/// the frames its resumption reads first (meaningful for a rank that
/// parked; one that ended left through no suspend).
pub fn left_at() -> usize {
    LEFT_AT.with(Cell::get)
}

/// Asks for the stack lines a rank left at `at` ([`left_at`]) reads first
/// when it resumes (the switch's saved registers below, the frames of the
/// call that suspended above), without waiting: with thousands of ranks
/// they are cold by then, and their misses were the first instruction
/// after every switch (a tenth of a 4,096-rank all-to-all). Called ahead
/// of the resumption, so that they arrive meanwhile.
pub fn prefetch_stack(at: usize) {
    const BELOW: usize = 256;
    const ABOVE: usize = 768;
    for line in (at.saturating_sub(BELOW) & !63..at + ABOVE).step_by(64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE, which the intrinsic needs, is part of x86-64's
        // baseline; a prefetch reads nothing the program sees and never
        // faults, whatever the address (a guard page included).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line as *const i8)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }
}

/// How many OpenMP regions the running rank is inside.
pub fn native_regions() -> usize {
    NATIVE_REGIONS.with(Cell::get)
}

/// Sets how many OpenMP regions the running rank is inside.
pub fn set_native_regions(n: usize) {
    NATIVE_REGIONS.with(|c| c.set(n));
}

/// How many times a rank parked so far, all ranks together: lets a caller
/// see whether something it called gave control away (wakes meant for it
/// may have been consumed meanwhile).
pub fn parks() -> u64 {
    PARKS.with(Cell::get)
}

/// Suspends the running rank, returning to the maestro.
pub fn suspend(why: Suspend) {
    if why == Suspend::Park {
        PARKS.with(|p| p.set(p.get() + 1));
    }
    let y = YIELDER.with(|y| y.get());
    assert!(!y.is_null(), "suspend() called outside a rank");
    // SAFETY: YIELDER is set by `spawn`'s closure for the coroutine now
    // running on this thread; the yielder lives on that coroutine's stack
    // for as long as the coroutine runs.
    let yielder = unsafe { &*y };
    // errno is the thread's, which all ranks share: each keeps its own
    // across a switch, as a process of its own would.
    let errno = nix::errno::Errno::last_raw();
    let regions = NATIVE_REGIONS.with(|c| c.replace(0));
    let at = here();
    note_leaving(at, SWITCH_FRAMES);
    LEFT_AT.with(|c| c.set(at));
    yielder.suspend(why);
    NATIVE_REGIONS.with(|c| c.set(regions));
    nix::errno::Errno::set_raw(errno);
    // Resumed: `resume` restored nothing for us, so set our yielder again.
    YIELDER.with(|c| c.set(y));
}

/// Runs `f` on the maestro's stack when called from a rank, directly
/// otherwise. The runtime's own frames (matching, delivery, routing, the
/// solver) then never touch a rank's stack, which keeps the part of each
/// rank stack the kernel must back with memory to the C program's frames
/// and a thin layer of ours: one page per rank for most programs.
///
/// `f` must not suspend; it is run with no yielder published, so a
/// `suspend` inside it panics instead of switching from the wrong stack.
pub fn off_rank_stack<R, F: FnOnce() -> R>(f: F) -> R {
    let y = YIELDER.with(|y| y.get());
    if y.is_null() {
        return f();
    }
    // SAFETY: YIELDER is set by `spawn`'s closure for the coroutine now
    // running on this thread; the yielder lives on that coroutine's stack
    // for as long as the coroutine runs, which covers this call.
    let yielder = unsafe { &*y };
    let job = SameThread { f, yielder: y };
    note_leaving(
        here(),
        SWITCH_FRAMES + 2 * std::mem::size_of::<SameThread<F>>() + std::mem::size_of::<R>(),
    );
    yielder.on_parent_stack(move || job.run())
}

/// Calls `f` in a frame of its own: for the parts of an MPI call that do
/// not wait, so that their locals are gone by the time the call waits and
/// do not sit in the rank's suspended frames (which are copied at each
/// switch, and kept per rank, under `contexts/stack-mode:copy`).
#[inline(never)]
pub fn outlined<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// A closure run by `on_parent_stack`, which asks for `Send` so that a
/// yielder cannot leak into the parent context and be suspended from
/// there. The closure runs on this same thread (only the stack changes),
/// and `off_rank_stack` hides the yielder while it runs.
struct SameThread<F> {
    f: F,
    yielder: *const Yielder<(), Suspend>,
}

// SAFETY: see `SameThread`: nothing crosses threads, and the one hazard the
// bound guards against (suspending from the parent stack) is ruled out by
// clearing YIELDER for the duration of the call.
unsafe impl<F> Send for SameThread<F> {}

impl<F> SameThread<F> {
    fn run<R>(self) -> R
    where
        F: FnOnce() -> R,
    {
        YIELDER.with(|c| c.set(ptr::null()));
        let _restore = RestoreYielder(self.yielder);
        (self.f)()
    }
}

/// Publishes the rank's yielder again when the job ends, panicking or not.
struct RestoreYielder(*const Yielder<(), Suspend>);

impl Drop for RestoreYielder {
    fn drop(&mut self) {
        YIELDER.with(|c| c.set(self.0));
    }
}

/// Ends a rank that will never be resumed, freeing its stack without
/// unwinding (its frames include C code that cannot be unwound).
pub fn discard(mut co: RankCoroutine) {
    // A coroutine that never ran is abandoned too, its closure leaked:
    // on the shared stack, the closure may lie under another rank's frames
    // now; and only a failing run drops such a coroutine, right after
    // making it.
    if !co.done() {
        // SAFETY: the rank yielded Exit and is never resumed; the frames on
        // its stack are abandoned without running destructors, which is
        // what `exit` means for the C code on them. Rust frames of the
        // runtime on that stack hold no resources by design (every borrow
        // of the world is released before suspending).
        unsafe { co.force_reset() };
    }
    drop(co);
}

const NO_RANK: usize = usize::MAX;
static CRASH_RANK: AtomicUsize = AtomicUsize::new(NO_RANK);
static GUARD_LO: AtomicUsize = AtomicUsize::new(0);
static GUARD_HI: AtomicUsize = AtomicUsize::new(0);
static CRASH_TIME_BITS: AtomicU64 = AtomicU64::new(0);
static STACK_KIB: AtomicU64 = AtomicU64::new(0);

/// Publishes the simulated time for the crash handler and log lines.
pub fn publish_time(now: f64) {
    CRASH_TIME_BITS.store(now.to_bits(), Ordering::Relaxed);
}

/// The simulated time last published: readable from anywhere, even inside
/// an access to the simulation (a log line's date).
pub fn published_time() -> f64 {
    f64::from_bits(CRASH_TIME_BITS.load(Ordering::Relaxed))
}

/// The rank whose coroutine runs now, if one does: readable from another
/// thread (the wall-time watchdog).
pub fn running_rank() -> Option<usize> {
    let rank = CRASH_RANK.load(Ordering::Relaxed);
    (rank != NO_RANK).then_some(rank)
}

/// The signals that end a rank's program with a crash: the handler names
/// the rank, the signal and the simulated time.
const CRASH_SIGNALS: [Signal; 6] = [
    Signal::SIGSEGV,
    Signal::SIGBUS,
    Signal::SIGFPE,
    Signal::SIGILL,
    Signal::SIGABRT,
    Signal::SIGTRAP,
];

/// Linux's `si_code` values of SIGFPE for integer faults (the libc crate
/// does not export them).
const FPE_INTDIV: libc::c_int = 1;
const FPE_INTOVF: libc::c_int = 2;

/// What a crash signal is, in words (`si_code` tells a division by zero
/// from other arithmetic faults).
fn crash_name(sig: libc::c_int, code: libc::c_int) -> &'static str {
    match sig {
        libc::SIGSEGV => "segmentation fault",
        libc::SIGBUS => "bus error",
        libc::SIGFPE if code == FPE_INTDIV => "arithmetic exception: integer division by zero",
        libc::SIGFPE if code == FPE_INTOVF => "arithmetic exception: integer overflow",
        libc::SIGFPE => "arithmetic exception",
        libc::SIGILL => "illegal instruction",
        libc::SIGABRT => "aborted: abort() was called",
        libc::SIGTRAP => "trace/breakpoint trap",
        _ => "fatal signal",
    }
}

/// The name of a crash signal (`SIGSEGV`...).
fn signal_name(sig: libc::c_int) -> &'static str {
    CRASH_SIGNALS
        .iter()
        .find(|s| **s as libc::c_int == sig)
        .map_or("a signal", |s| s.as_str())
}

/// Installs the handler of the crash signals (on an alternate stack) that
/// names the crashing rank. `stack_kib` is the configured stack size, for the
/// overflow message.
pub fn install_crash_handler(stack_kib: u64) {
    STACK_KIB.store(stack_kib, Ordering::Relaxed);
    const ALT_SIZE: usize = 256 * 1024;
    // The alternate signal stack is leaked on purpose: it must outlive
    // every signal.
    let Ok(alt) = memmap2::MmapMut::map_anon(ALT_SIZE) else {
        return;
    };
    let alt = Box::leak(Box::new(alt));
    let ss = libc::stack_t {
        ss_sp: alt.as_mut_ptr().cast(),
        ss_flags: 0,
        ss_size: ALT_SIZE,
    };
    // SAFETY: `ss` describes a writable mapping that is never unmapped.
    // (nix has no sigaltstack.)
    unsafe { libc::sigaltstack(&ss, ptr::null_mut()) };
    // SA_SIGINFO comes with SigHandler::SigAction.
    let action = SigAction::new(
        SigHandler::SigAction(crash_handler),
        SaFlags::SA_ONSTACK | SaFlags::SA_RESETHAND,
        SigSet::empty(),
    );
    for signal in CRASH_SIGNALS {
        // SAFETY: the handler makes only async-signal-safe calls (but for
        // the fflush it explains) and ends the process.
        let _ = unsafe { sigaction(signal, &action) };
    }
}

/// Writes the crash message with only async-signal-safe calls.
extern "C" fn crash_handler(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut c_void) {
    let rank = CRASH_RANK.load(Ordering::Relaxed);
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let (addr, code) = unsafe { ((*info).si_addr() as usize, (*info).si_code) };
    // The address means something for faults the kernel raised (a
    // positive si_code), not for kill() or raise().
    let faulted = code > 0 && matches!(sig, libc::SIGSEGV | libc::SIGBUS);
    let lo = GUARD_LO.load(Ordering::Relaxed);
    let hi = GUARD_HI.load(Ordering::Relaxed);
    let now = f64::from_bits(CRASH_TIME_BITS.load(Ordering::Relaxed));
    let mut buf = MsgBuf::default();
    if rank == NO_RANK {
        buf.push("smpirun: internal error: ");
        buf.push(crash_name(sig, code));
        buf.push(" (");
        buf.push(signal_name(sig));
        buf.push(") in the simulator itself (not in a rank); please report it\n");
    } else if faulted && addr >= lo && addr < hi {
        buf.push("smpirun: rank ");
        buf.push_u64(rank as u64);
        buf.push(" overflowed its stack of ");
        buf.push_u64(STACK_KIB.load(Ordering::Relaxed));
        buf.push(" KiB at simulated time ");
        buf.push_time(now);
        buf.push(" s; raise it with --cfg=contexts/stack-size:KiB (for example --cfg=contexts/stack-size:");
        buf.push_u64(STACK_KIB.load(Ordering::Relaxed).saturating_mul(4));
        buf.push(")\n");
    } else {
        buf.push("smpirun: rank ");
        buf.push_u64(rank as u64);
        buf.push(" crashed (");
        buf.push(crash_name(sig, code));
        buf.push(", ");
        buf.push(signal_name(sig));
        if faulted {
            buf.push(", address 0x");
            buf.push_hex(addr as u64);
        }
        buf.push(") at simulated time ");
        buf.push_time(now);
        buf.push(" s\n");
    }
    // SAFETY: fflush(NULL) on a dying process is not async-signal-safe,
    // but stdio locks are recursive on this single thread, so it cannot
    // deadlock, and losing the program's buffered output would hide what
    // led to the crash.
    unsafe { libc::fflush(ptr::null_mut()) };
    // A plain write(2) on descriptor 2: `as_fd` takes no lock.
    let _ = nix::unistd::write(std::io::stderr().as_fd(), &buf.bytes[..buf.len]);
    // SimGrid's smpirun's closing line of a failed simulation, on stdout.
    let mut closing = MsgBuf::default();
    closing.push("Execution failed with code ");
    closing.push_u64(128 + sig as u64);
    closing.push(".\n");
    let _ = nix::unistd::write(std::io::stdout().as_fd(), &closing.bytes[..closing.len]);
    // SAFETY: _exit is async-signal-safe; nix has no wrapper for it, and
    // std's exit runs atexit handlers, which a signal handler must not.
    unsafe { libc::_exit(128 + sig) }
}

/// A fixed buffer for formatting inside the signal handler (no allocation).
struct MsgBuf {
    bytes: [u8; 512],
    len: usize,
}

impl Default for MsgBuf {
    fn default() -> Self {
        Self {
            bytes: [0; 512],
            len: 0,
        }
    }
}

impl MsgBuf {
    fn push(&mut self, s: &str) {
        for &b in s.as_bytes() {
            if self.len < self.bytes.len() {
                self.bytes[self.len] = b;
                self.len += 1;
            }
        }
    }
    fn push_u64(&mut self, mut v: u64) {
        let mut digits = [0u8; 20];
        let mut n = 0;
        loop {
            digits[n] = b'0' + (v % 10) as u8;
            n += 1;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        for i in (0..n).rev() {
            let d = [digits[i]];
            self.push(std::str::from_utf8(&d).unwrap_or("?"));
        }
    }
    fn push_hex(&mut self, v: u64) {
        let hex = b"0123456789abcdef";
        let mut started = false;
        for shift in (0..16).rev() {
            let d = ((v >> (shift * 4)) & 0xf) as usize;
            if d != 0 || started || shift == 0 {
                started = true;
                let c = [hex[d]];
                self.push(std::str::from_utf8(&c).unwrap_or("?"));
            }
        }
    }
    /// Seconds with 6 decimals.
    fn push_time(&mut self, t: f64) {
        let t = if t.is_finite() && t >= 0.0 { t } else { 0.0 };
        let micros = (t * 1e6).round() as u64;
        self.push_u64(micros / 1_000_000);
        self.push(".");
        let frac = micros % 1_000_000;
        let mut div = 100_000;
        while div > 0 {
            self.push_u64((frac / div) % 10);
            div /= 10;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coroutine_switches_and_returns() {
        let stack = CoStack::Own(RankStack::new(256 * 1024).unwrap());
        let guard = stack.guard();
        let mut co = spawn(stack, || {
            suspend(Suspend::Park);
            suspend(Suspend::Park);
            7
        });
        assert_eq!(resume(&mut co, 0, guard), Suspend::Park);
        assert_eq!(resume(&mut co, 0, guard), Suspend::Park);
        assert_eq!(resume(&mut co, 0, guard), Suspend::Exit(7));
    }

    #[test]
    fn exited_coroutine_is_discarded_without_unwinding() {
        let stack = CoStack::Own(RankStack::new(256 * 1024).unwrap());
        let guard = stack.guard();
        let mut co = spawn(stack, || {
            suspend(Suspend::Exit(3));
            unreachable!("an exited rank is never resumed")
        });
        assert_eq!(resume(&mut co, 1, guard), Suspend::Exit(3));
        discard(co);
    }

    /// Whether the address of a local of the calling frame lies in
    /// [lo, hi).
    #[inline(never)]
    fn frame_within(lo: usize, hi: usize) -> bool {
        let local = 0u8;
        let at = std::hint::black_box(&local) as *const u8 as usize;
        (lo..hi).contains(&at)
    }

    #[test]
    fn off_rank_stack_runs_on_the_maestro_stack_and_forbids_suspending() {
        let stack = CoStack::Own(RankStack::new(256 * 1024).unwrap());
        let guard = stack.guard();
        // The guard zone sits right below the usable stack.
        let (lo, hi) = (guard.1, guard.1 + 256 * 1024);
        let mut co = spawn(stack, move || {
            assert!(frame_within(lo, hi), "the rank runs on its own stack");
            assert!(off_rank_stack(|| !frame_within(lo, hi)));
            // Back on the rank stack, suspending works again...
            suspend(Suspend::Park);
            // ...but not from the maestro's stack.
            let refused = std::panic::catch_unwind(|| off_rank_stack(|| suspend(Suspend::Park)));
            i32::from(refused.is_err())
        });
        assert_eq!(resume(&mut co, 0, guard), Suspend::Park);
        assert_eq!(resume(&mut co, 0, guard), Suspend::Exit(1));
        // On the maestro, it is a plain call.
        assert_eq!(off_rank_stack(|| 5), 5);
    }

    #[test]
    fn message_formatting() {
        let mut b = MsgBuf::default();
        b.push_u64(0);
        b.push(" ");
        b.push_u64(4096);
        b.push(" ");
        b.push_hex(0xdead);
        b.push(" ");
        b.push_time(1.5);
        assert_eq!(
            std::str::from_utf8(&b.bytes[..b.len]).unwrap(),
            "0 4096 dead 1.500000"
        );
    }
}
