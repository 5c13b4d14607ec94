//! The progress of a long run, on stderr: on a terminal, one line that
//! updates itself once a run has lasted 2 s and is erased at its end; for
//! batch logs, a plain line every `smpi/progress-interval` seconds. Each
//! says the simulated date, the events handled per second of wall time,
//! the ranks finished and the process's memory. The maestro counts its
//! events ([`Progress::tick`]); the clock is read once every
//! [`CHECK_EVERY`] events, and never when progress is off.

use std::io::Write;
use std::time::{Duration, Instant};

use crate::config::{Kind, OptionSpec, Options};

/// The option of progress lines.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/progress-interval", kind: Kind::Float, default: "0", help: "print a progress line on stderr every this many seconds of wall time (simulated date, events per second, ranks finished, memory), for batch logs; 0: none (on a terminal a self-updating line shows anyway once a run lasts 2 s, unless -quiet)" },
];

/// How many events pass between two readings of the wall clock.
pub const CHECK_EVERY: u64 = 1024;

/// When a terminal's line first shows.
const TERMINAL_DELAY: Duration = Duration::from_secs(2);

/// How often a terminal's line is redrawn.
const TERMINAL_REDRAW: Duration = Duration::from_millis(250);

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    Off,
    /// A self-updating line on a terminal.
    Terminal,
    /// A plain line every this long.
    Every(Duration),
}

/// What a progress line says of the simulation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapshot {
    /// The simulated date, in seconds.
    pub simulated: f64,
    /// Ranks finished, and in all.
    pub done: usize,
    pub ranks: usize,
}

/// The progress of the running simulation (see the module's
/// documentation).
#[derive(Debug)]
pub struct Progress {
    mode: Mode,
    start: Instant,
    /// Events handled so far.
    events: u64,
    /// The events and the date of the last line (or of the start).
    last: (u64, Instant),
    /// A terminal line is on screen.
    shown: bool,
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new(false, 0.0)
    }
}

impl Progress {
    /// Progress on a terminal (a self-updating line) if `terminal`, else
    /// a plain line every `interval` seconds (0: none).
    pub fn new(terminal: bool, interval: f64) -> Progress {
        let mode = if interval > 0.0 && interval.is_finite() {
            Mode::Every(Duration::from_secs_f64(interval))
        } else if terminal {
            Mode::Terminal
        } else {
            Mode::Off
        };
        let now = Instant::now();
        Progress {
            mode,
            start: now,
            events: 0,
            last: (0, now),
            shown: false,
        }
    }

    /// Counts an event of the maestro; every [`CHECK_EVERY`] of them, asks
    /// `snapshot` for the state and prints a line if one is due.
    #[inline]
    pub fn tick(&mut self, snapshot: impl FnOnce() -> Snapshot) {
        if self.mode == Mode::Off {
            return;
        }
        self.events += 1;
        if self.events.is_multiple_of(CHECK_EVERY) {
            self.check(snapshot());
        }
    }

    /// Prints a line if one is due now.
    fn check(&mut self, state: Snapshot) {
        let now = Instant::now();
        let due = match self.mode {
            Mode::Off => false,
            Mode::Terminal => {
                now - self.start >= TERMINAL_DELAY && now - self.last.1 >= TERMINAL_REDRAW
            }
            Mode::Every(every) => now - self.last.1 >= every,
        };
        if !due {
            return;
        }
        let seconds = (now - self.last.1).as_secs_f64();
        let rate = (self.events - self.last.0) as f64 / seconds.max(1e-9);
        let line = line(
            state,
            (now - self.start).as_secs_f64(),
            rate,
            resident_bytes(),
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.mode == Mode::Terminal {
            self.shown = true;
            write!(err, "\r\x1b[2K{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
        self.last = (self.events, now);
    }

    /// The run is over: a terminal's line is erased.
    pub fn finish(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

/// A progress line.
fn line(state: Snapshot, wall: f64, rate: f64, memory: Option<u64>) -> String {
    let memory = memory.map_or(String::new(), |b| {
        format!(", {:.1} MB", b as f64 / (1024.0 * 1024.0))
    });
    format!(
        "smpirun: simulated {:.6} s after {wall:.1} s, {:.0} events/s, {} of {} ranks done{memory}",
        state.simulated, rate, state.done, state.ranks
    )
}

/// The process's resident memory, from /proc (None elsewhere).
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE)
        .ok()
        .flatten()
        .and_then(|p| u64::try_from(p).ok())
        .unwrap_or(4096);
    Some(pages * page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_says_the_date_the_rate_the_ranks_and_the_memory() {
        let s = Snapshot {
            simulated: 1.5,
            done: 3,
            ranks: 8,
        };
        assert_eq!(
            line(s, 12.34, 2500.4, Some(3 * 1024 * 1024)),
            "smpirun: simulated 1.500000 s after 12.3 s, 2500 events/s, 3 of 8 ranks done, 3.0 MB"
        );
    }

    #[test]
    fn progress_is_off_without_a_terminal_or_an_interval() {
        let mut p = Progress::new(false, 0.0);
        for _ in 0..2 * CHECK_EVERY {
            p.tick(|| unreachable!("no snapshot is taken when off"));
        }
        assert_eq!(p.events, 0);
        assert_eq!(
            Progress::new(true, 0.5).mode,
            Mode::Every(Duration::from_millis(500))
        );
        assert_eq!(Progress::new(true, 0.0).mode, Mode::Terminal);
    }
}
