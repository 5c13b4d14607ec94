//! The bench clock: how long the program computed between two MPI calls,
//! read without a system call on the path of every call.
//!
//! Two readings bracket each burst: the end of an MPI call (the burst's
//! mark) and the start of the next one. SimGrid reads the thread's CPU
//! time (`CLOCK_THREAD_CPUTIME_ID`, a system call of about 170 ns, with no
//! vDSO) at both; a 1-byte ping-pong then spends more in the clock than in
//! the simulation. Here:
//!
//! - The wall clock is the time-stamp counter (`rdtsc`, about 10 ns) when
//!   the kernel itself keeps time with it (clocksource `tsc`: invariant and
//!   synchronized across CPUs), converted to seconds by a scale calibrated
//!   against `CLOCK_MONOTONIC` over the whole run (from 10 ms on) and
//!   re-based on the monotonic clock every 10 ms of ticks; else, and for
//!   the first 10 ms, the monotonic clock itself (vDSO, about 25 ns).
//! - Under `smpi/bench-clock:cpu` (the default) the thread's CPU time is
//!   taken to advance as the wall clock does for up to [`CPU_READ_WINDOW`]
//!   after an exact reading. A burst whose estimate is shorter than
//!   `smpi/cpu-threshold` is shorter in CPU time too (CPU time never
//!   advances faster than wall time), so it is dropped, as SimGrid drops
//!   it, without a reading. A burst whose estimate reaches the threshold
//!   ends with an exact reading, and the burst that follows a long one
//!   starts with one: a program that computes between its calls is timed
//!   on the CPU clock at both ends of each burst, as in SimGrid. The one
//!   estimate left is the start of the first long burst after short ones,
//!   wrong only by the time the thread lost to other processes between the
//!   last exact reading and that start (at most [`CPU_READ_WINDOW`]), and
//!   low: a burst is never charged more CPU time than it had, but for the
//!   few nanoseconds between an exact reading and the counter's reading
//!   that dates it.
//!   Measured on a 2-core machine with two CPU hogs beside the run
//!   (`while(1);` shell loops): a program doing 2,000 bursts of 3 us,
//!   30 us or 300 us between 1-byte ping-pongs is predicted within 4% of
//!   its figures without the hogs (SimGrid's exact reading at every call:
//!   within 5%; `smpi/bench-clock:wall`: 3 to 6 times more).
//! - The emulator's own work lies outside every burst: a call reads the
//!   clock first thing on entry and last thing on exit; what the ranks'
//!   shared thread does in between (other ranks, the maestro) is never in
//!   a burst.

use std::cell::Cell;

use super::interpose;

/// How long the thread's CPU time may be taken to advance with the wall
/// clock between two exact readings of it.
pub(crate) const CPU_READ_WINDOW: f64 = 100e-6;

/// Wall time between two re-basings of the time-stamp counter on the
/// monotonic clock, and the baseline its scale needs first.
const REBASE: f64 = 10e-3;

/// The clock's state, per thread like the simulation.
struct Clock {
    /// 0: not decided yet; 1: the time-stamp counter is used; 2: not.
    tsc: Cell<u8>,
    /// (ticks, monotonic seconds) of the first reading: the calibration's
    /// origin.
    origin: Cell<(u64, f64)>,
    /// (ticks, monotonic seconds) of the latest re-basing.
    base: Cell<(u64, f64)>,
    /// The last reading (the clock never goes back).
    last: Cell<f64>,
    /// Seconds per tick (0 until calibrated) and ticks per re-basing.
    scale: Cell<f64>,
    rebase_ticks: Cell<u64>,
    /// The last exact reading of the thread's CPU time, and the wall date
    /// of it (NaN before the first).
    sync: Cell<(f64, f64)>,
    /// The last burst reached the threshold: the next one starts with an
    /// exact reading.
    long: Cell<bool>,
}

thread_local! {
    static CLOCK: Clock = const { Clock::new() };
}

/// The time-stamp counter.
#[cfg(target_arch = "x86_64")]
fn ticks() -> u64 {
    // SAFETY: rdtsc reads a counter; it has no operands and no effect on
    // memory, and every x86-64 processor has it.
    unsafe { std::arch::x86_64::_rdtsc() }
}

#[cfg(not(target_arch = "x86_64"))]
fn ticks() -> u64 {
    0
}

/// Whether the kernel keeps time with the time-stamp counter (then it is
/// invariant and synchronized across CPUs, which the kernel checked).
fn tsc_usable() -> bool {
    cfg!(target_arch = "x86_64")
        && std::fs::read_to_string(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )
        .is_ok_and(|s| s.trim() == "tsc")
}

fn monotonic() -> f64 {
    interpose::real_clock(libc::CLOCK_MONOTONIC)
}

/// A reading of the monotonic clock and the ticks at the same moment: the
/// middle of two tick readings around it, retried (a few times) when an
/// interruption came between them.
fn pair() -> (u64, f64) {
    let mut best = (u64::MAX, 0, 0.0);
    for _ in 0..4 {
        let t1 = ticks();
        let m = monotonic();
        let t2 = ticks();
        let width = t2.wrapping_sub(t1);
        if width < best.0 {
            best = (width, t1 + width / 2, m);
        }
        // About 100 ns at 2 GHz and more: a clean reading.
        if width < 256 {
            break;
        }
    }
    (best.1, best.2)
}

impl Clock {
    /// Nothing decided, calibrated or read yet.
    const fn new() -> Self {
        Clock {
            tsc: Cell::new(0),
            origin: Cell::new((0, f64::NAN)),
            base: Cell::new((0, f64::NAN)),
            last: Cell::new(f64::NEG_INFINITY),
            scale: Cell::new(0.0),
            rebase_ticks: Cell::new(0),
            sync: Cell::new((f64::NAN, f64::NAN)),
            long: Cell::new(false),
        }
    }

    /// The wall clock, in seconds of `CLOCK_MONOTONIC`.
    fn wall(&self) -> f64 {
        if self.tsc.get() == 0 {
            self.tsc.set(if tsc_usable() { 1 } else { 2 });
        }
        if self.tsc.get() != 1 {
            return monotonic();
        }
        let t = ticks();
        let (bt, bm) = self.base.get();
        let scale = self.scale.get();
        if scale > 0.0 && t >= bt && t - bt < self.rebase_ticks.get() {
            let w = (bm + (t - bt) as f64 * scale).max(self.last.get());
            self.last.set(w);
            return w;
        }
        // Re-base (and calibrate) on the monotonic clock.
        let (t, m) = pair();
        let (ot, om) = self.origin.get();
        if om.is_nan() || t < ot {
            self.origin.set((t, m));
        } else if m - om >= REBASE && t > ot {
            let scale = (m - om) / (t - ot) as f64;
            self.scale.set(scale);
            self.rebase_ticks.set((REBASE / scale) as u64);
        }
        self.base.set((t, m));
        // The extrapolation may have run a little ahead of the clock: never
        // back.
        let m = m.max(self.last.get());
        self.last.set(m);
        m
    }

    /// The thread's CPU time: read exactly if `exact` or if the last
    /// exact reading is older than [`CPU_READ_WINDOW`], else the last one
    /// advanced by the wall clock.
    fn cpu(&self, exact: bool) -> f64 {
        let (cpu, at) = self.sync.get();
        if !exact {
            let now = self.wall();
            if now - at < CPU_READ_WINDOW {
                return cpu + (now - at);
            }
        }
        let cpu = interpose::real_clock(libc::CLOCK_THREAD_CPUTIME_ID);
        // Dated after the system call: its own duration (far longer when
        // the machine or a tracer intervenes) must not count as the
        // program's in the estimates that follow, or a short burst after
        // an exact reading would look long and call for another one.
        self.sync.set((cpu, self.wall()));
        cpu
    }
}

/// The bench clock now, for the mark of a burst that starts: exact after a
/// long burst (see the module's notes).
pub(crate) fn begin(wall_clock: bool) -> f64 {
    CLOCK.with(|c| {
        if wall_clock {
            c.wall()
        } else {
            c.cpu(c.long.get())
        }
    })
}

/// The length of the burst that started at `mark` and ends now, if it
/// reaches `threshold` (else it is dropped, and `None`).
pub(crate) fn end(mark: f64, threshold: f64, wall_clock: bool) -> Option<f64> {
    CLOCK.with(|c| {
        let burst = if wall_clock {
            c.wall() - mark
        } else {
            let estimate = c.cpu(false) - mark;
            if estimate >= threshold {
                c.cpu(true) - mark
            } else {
                estimate
            }
        };
        let long = burst >= threshold;
        c.long.set(long);
        long.then_some(burst)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wall_clock_follows_the_monotonic_clock() {
        // Past the calibration's baseline, then a few re-basings.
        let start = monotonic();
        let c = Clock::new();
        let mut last = c.wall();
        while monotonic() - start < 0.05 {
            let before = monotonic();
            let w = c.wall();
            let after = monotonic();
            assert!(w >= last, "the wall clock went back: {w} after {last}");
            // Within a microsecond of the monotonic clock's readings
            // around it.
            assert!(
                w >= before - 1e-6 && w <= after + 1e-6,
                "{w} outside [{before}, {after}]"
            );
            last = w;
        }
    }

    #[test]
    fn short_bursts_are_dropped_and_long_ones_measured_on_the_cpu_clock() {
        let mark = begin(false);
        assert_eq!(end(mark, 1e-3, false), None);
        let mark = begin(false);
        // 5 ms of computation.
        let cpu0 = interpose::real_clock(libc::CLOCK_THREAD_CPUTIME_ID);
        let mut x = 0u64;
        while interpose::real_clock(libc::CLOCK_THREAD_CPUTIME_ID) - cpu0 < 5e-3 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let burst = end(mark, 1e-3, false).expect("a long burst");
        assert!((4.9e-3..6e-3).contains(&burst), "{burst}");
        // The next burst starts with an exact reading.
        assert!(CLOCK.with(|c| c.long.get()));
    }
}
