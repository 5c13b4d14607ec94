//! Limits on a run's length: a simulated date the clock must not pass
//! (`smpi/simulated-time-limit`) and a wall-clock limit
//! (`smpi/wall-time-limit`, or `MPIEXEC_TIMEOUT` as for mpiexec), watched
//! by a thread of its own that only raises a flag.
//!
//! The simulation reads the flag where it already stops: the maestro loop
//! after each rank's turn and before each advance of the clock, and a
//! sleep that would move the clock in place (`Core::start_sleep`), which
//! then parks instead so that the maestro sees it. A relaxed load of one
//! byte, no system call: nothing measurable on the hot path. A rank that
//! never returns to the simulator (a loop without MPI calls) cannot see
//! the flag; the watchdog then ends the process itself after a grace
//! period, with what it can know (the rank running and the simulated date
//! published for the crash handler).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::context;
use crate::config::{Config, ConfigError, Kind, OptionSpec, Options};

/// The options of the limits.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/wall-time-limit", kind: Kind::Float, default: "0", help: "stop the run after this many seconds of wall time (counted from smpirun's start) with an error line naming the ranks still running and their MPI calls, exit code 124; 0: none, unless the MPIEXEC_TIMEOUT environment variable (seconds) sets one, as for mpiexec" },
    OptionSpec { name: "smpi/simulated-time-limit", kind: Kind::Float, default: "0", help: "stop the run when simulated time would pass this many seconds, with an error line naming the ranks still running and their MPI calls, exit code 124; 0: none" },
];

/// The environment variable that sets a wall-time limit, as for mpiexec.
pub const MPIEXEC_TIMEOUT: &str = "MPIEXEC_TIMEOUT";

/// The exit code of a run stopped by a time limit: `timeout`(1)'s.
pub const TIME_LIMIT_EXIT: i32 = 124;

/// How long the watchdog waits, once the wall-time limit has passed, for
/// the simulation to stop by itself before ending the process.
pub const GRACE: Duration = Duration::from_secs(1);

/// One time limit: its value and where it was set, for the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    pub seconds: f64,
    /// The option or environment variable that set it.
    pub source: &'static str,
}

/// The limits of a run (none by default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Limits {
    pub wall: Option<Limit>,
    pub simulated: Option<Limit>,
}

impl Limits {
    /// The limits `cfg` sets; `mpiexec_timeout` is the value of
    /// `MPIEXEC_TIMEOUT`, which sets the wall-time limit when the option
    /// does not (unset, empty or 0: none).
    pub fn from_config(cfg: &Config, mpiexec_timeout: Option<&str>) -> Result<Self, ConfigError> {
        let seconds = |name: &'static str, value: &str| {
            let v = value.trim();
            match v.parse::<f64>() {
                Ok(s) if s.is_finite() && s >= 0.0 => Ok(s),
                _ => Err(ConfigError::BadValue {
                    name: name.into(),
                    value: value.into(),
                    expected: "a number of seconds, 0 or more",
                }),
            }
        };
        let limit = |seconds: f64, source: &'static str| {
            (seconds > 0.0).then_some(Limit { seconds, source })
        };
        let option = "smpi/wall-time-limit";
        let mut wall = limit(seconds(option, cfg.text(option))?, option);
        if wall.is_none() {
            if let Some(v) = mpiexec_timeout.filter(|v| !v.trim().is_empty()) {
                wall = limit(seconds(MPIEXEC_TIMEOUT, v)?, MPIEXEC_TIMEOUT);
            }
        }
        let option = "smpi/simulated-time-limit";
        let simulated = limit(seconds(option, cfg.text(option))?, option);
        Ok(Limits { wall, simulated })
    }
}

impl Limit {
    /// "wall-time limit of 10 s (MPIEXEC_TIMEOUT)".
    pub fn describe(&self, kind: &str) -> String {
        format!("{kind} limit of {} s ({})", self.seconds, self.source)
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    Wall,
    Simulated,
}

impl LimitKind {
    pub fn name(self) -> &'static str {
        match self {
            LimitKind::Wall => "wall-time",
            LimitKind::Simulated => "simulated-time",
        }
    }
}

/// The flag the watchdog raises, in one byte shared by the two threads.
#[derive(Debug, Default)]
pub struct StopSignal(AtomicU8);

/// The run goes on.
const RUNNING: u8 = 0;
/// The wall-time limit passed: the simulation should stop.
const EXPIRED: u8 = 1;
/// The simulation stopped (or ended): the watchdog does nothing more.
const STOPPED: u8 = 2;
/// The watchdog is ending the process itself.
const FORCED: u8 = 3;

impl StopSignal {
    /// Whether the simulation should stop now (one relaxed load).
    #[inline]
    pub fn raised(&self) -> bool {
        self.0.load(Ordering::Relaxed) == EXPIRED
    }

    /// The simulation stops (or ends) on its own: the watchdog must not end
    /// the process. False if the watchdog is already doing so, in which
    /// case the caller must not go on (see [`wait_for_forced_exit`]).
    pub fn stop(&self) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                (state != FORCED).then_some(STOPPED)
            })
            .is_ok()
    }

    /// Raises the signal (the watchdog at its deadline; tests).
    pub(crate) fn expire(&self) -> bool {
        self.0
            .compare_exchange(RUNNING, EXPIRED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn force(&self) -> bool {
        self.0
            .compare_exchange(EXPIRED, FORCED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn stopped(&self) -> bool {
        self.0.load(Ordering::Acquire) == STOPPED
    }
}

/// Blocks the calling thread for good: the watchdog is ending the process.
pub fn wait_for_forced_exit() -> ! {
    loop {
        std::thread::park();
    }
}

/// The thread that watches the wall-time limit.
pub struct Watchdog {
    signal: Arc<StopSignal>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching: `limit` seconds after `since`, the signal is
    /// raised; `GRACE` later, if the simulation has not stopped, the process
    /// ends with [`TIME_LIMIT_EXIT`] (and, unless `quiet`, SimGrid's closing
    /// line).
    pub fn start(limit: &Limit, since: Instant, quiet: bool) -> std::io::Result<Watchdog> {
        let signal = Arc::new(StopSignal::default());
        let deadline = since + Duration::from_secs_f64(limit.seconds);
        let watched = Arc::clone(&signal);
        let what = limit.describe(LimitKind::Wall.name());
        let thread = std::thread::Builder::new()
            .name("smpirun-watchdog".into())
            .spawn(move || watch(&watched, deadline, &what, quiet))?;
        Ok(Watchdog {
            signal,
            thread: Some(thread),
        })
    }

    /// The flag the simulation reads.
    pub fn signal(&self) -> Arc<StopSignal> {
        Arc::clone(&self.signal)
    }

    /// The run is over: stops the thread. Returns false (without waiting)
    /// if the watchdog is ending the process.
    pub fn finish(mut self) -> bool {
        if !self.signal.stop() {
            return false;
        }
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        true
    }
}

impl Drop for Watchdog {
    /// A run that ends early (an error before the simulation) stops the
    /// thread too.
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.signal.stop();
            t.thread().unpark();
        }
    }
}

/// The watchdog's body: sleeps until the deadline (woken early when the
/// run ends), raises the signal, then gives the simulation `GRACE` to stop.
fn watch(signal: &StopSignal, deadline: Instant, what: &str, quiet: bool) {
    loop {
        if signal.stopped() {
            return;
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::park_timeout(deadline - now);
    }
    if !signal.expire() {
        return;
    }
    let grace_end = Instant::now() + GRACE;
    loop {
        if signal.stopped() {
            return;
        }
        let now = Instant::now();
        if now >= grace_end {
            break;
        }
        std::thread::park_timeout(grace_end - now);
    }
    if !signal.force() {
        return;
    }
    // The simulation did not come back: a rank is running code that never
    // enters the simulator.
    let at = context::published_time();
    let who = match context::running_rank() {
        Some(rank) => format!(
            "rank {rank} did not return to the simulator within {} s (computing, or looping \
             without MPI calls)",
            GRACE.as_secs_f64()
        ),
        None => format!(
            "the simulator did not stop within {} s",
            GRACE.as_secs_f64()
        ),
    };
    crate::flush_c_stdio();
    eprintln!("smpirun: {what} reached at simulated time {at:.6} s; {who}; stopped");
    if !quiet {
        println!("Execution failed with code {TIME_LIMIT_EXIT}.");
    }
    crate::flush_c_stdio();
    // SAFETY: _exit ends the process at once, without atexit handlers or
    // destructors, which must not run while the main thread is still in the
    // program's code; the messages were flushed above. (nix has no _exit.)
    unsafe { libc::_exit(TIME_LIMIT_EXIT) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signal_goes_one_way() {
        let s = StopSignal::default();
        assert!(!s.raised());
        assert!(s.expire());
        assert!(s.raised());
        assert!(!s.expire());
        // The simulation takes it: the watchdog can no longer force.
        assert!(s.stop());
        assert!(!s.raised());
        assert!(!s.force());
        // Forced first: the simulation must not go on.
        let s = StopSignal::default();
        assert!(s.expire() && s.force());
        assert!(!s.stop());
    }

    #[test]
    fn a_finished_run_stops_its_watchdog_at_once() {
        let limit = Limit {
            seconds: 3600.0,
            source: "test",
        };
        let w = Watchdog::start(&limit, Instant::now(), true).unwrap();
        let started = Instant::now();
        assert!(w.finish());
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_watchdog_raises_the_signal_at_its_deadline() {
        let limit = Limit {
            seconds: 0.05,
            source: "test",
        };
        let w = Watchdog::start(&limit, Instant::now(), true).unwrap();
        let signal = w.signal();
        let started = Instant::now();
        while !signal.raised() {
            assert!(started.elapsed() < Duration::from_secs(10), "never raised");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(started.elapsed() >= Duration::from_millis(40));
        // Taken within the grace period: no forced exit.
        assert!(w.finish());
    }

    fn limits(settings: &[(&str, &str)], env: Option<&str>) -> Result<Limits, ConfigError> {
        let mut cfg = Config::new(&[OPTIONS]);
        for (name, value) in settings {
            cfg.set(name, value)?;
        }
        Limits::from_config(&cfg, env)
    }

    #[test]
    fn the_option_wins_over_mpiexec_timeout() {
        assert_eq!(limits(&[], None).unwrap(), Limits::default());
        assert_eq!(limits(&[], Some("")).unwrap(), Limits::default());
        assert_eq!(limits(&[], Some("0")).unwrap(), Limits::default());
        let l = limits(&[], Some("10")).unwrap();
        assert_eq!(
            l.wall,
            Some(Limit {
                seconds: 10.0,
                source: MPIEXEC_TIMEOUT
            })
        );
        let l = limits(&[("smpi/wall-time-limit", "2.5")], Some("10")).unwrap();
        assert_eq!(l.wall.unwrap().seconds, 2.5);
        let l = limits(&[("smpi/simulated-time-limit", "1e-3")], None).unwrap();
        assert_eq!((l.wall, l.simulated.unwrap().seconds), (None, 1e-3));
    }

    #[test]
    fn bad_limits_are_typed_errors() {
        let e = limits(&[], Some("ten")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "option 'MPIEXEC_TIMEOUT': 'ten' is not a number of seconds, 0 or more"
        );
        assert!(limits(&[], Some("-1")).is_err());
        assert!(limits(&[], Some("inf")).is_err());
        assert!(limits(&[("smpi/simulated-time-limit", "-2")], None).is_err());
        assert!(limits(&[("smpi/wall-time-limit", "NaN")], None).is_err());
    }

    #[test]
    fn limits_describe_themselves() {
        let l = Limit {
            seconds: 10.0,
            source: "MPIEXEC_TIMEOUT",
        };
        assert_eq!(
            l.describe(LimitKind::Wall.name()),
            "wall-time limit of 10 s (MPIEXEC_TIMEOUT)"
        );
    }
}
