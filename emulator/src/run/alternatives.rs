//! `smpi/check/wildcard-alternatives:N`: re-runs a program with its
//! message races decided the other way, and reports the races whose
//! outcome changes.
//!
//! One run of a program is one interleaving: a receive from
//! `MPI_ANY_SOURCE` that found several sources' messages waiting took the
//! oldest (check `wildcard` reports it as a race). Whether the program's
//! result depends on that choice is the question a developer has; the
//! answer is another run where the receive takes another message. Ranks
//! share one process and the program's state, so each run is a process of
//! its own: this smpirun becomes a supervisor that starts the first run
//! (its output passed through as it comes, its files written as usual),
//! reads the races it met ([`wildcard::LOG_ENV`]), then starts up to `N`
//! re-runs, each forcing one race to one other source
//! ([`wildcard::FORCE_ENV`]) with the run's output files off, and compares
//! exit code, output and findings with the first run's. Races are
//! numbered in the order a run meets them, which repeats exactly with
//! computation timing off; a re-run that does not meet its race says so.
//! One race is changed per re-run (the first alternative of every race
//! before the second of any): interleavings that need two changes at once
//! are not explored.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::mpi::verify::wildcard::{self, Force, Race, RaceLog};

/// The options a re-run sets so that it leaves the first run's files and
/// the terminal alone.
pub const RERUN_QUIET: &[(&str, &str)] = &[
    ("tracing", "no"),
    ("smpi/profile", "no"),
    ("smpi/profile-file", ""),
    ("smpi/check-report", ""),
    ("smpi/summary-file", ""),
    ("smpi/display-timing", "no"),
    ("smpi/display-summary", "no"),
    ("smpi/progress-interval", "0"),
];

/// What the supervisor is asked to do.
pub struct Settings<'a> {
    /// smpirun's arguments, program and its arguments included.
    pub args: &'a [OsString],
    /// At most this many re-runs.
    pub budget: usize,
    /// `smpi/check-report`: the first run writes it; the re-runs' results
    /// are added to it.
    pub report: &'a str,
}

/// How one run ended and what it said.
struct Ended {
    code: i32,
    stdout: String,
    stderr: String,
    log: Option<RaceLog>,
    wall: Duration,
    /// Killed after this long.
    timed_out: Option<Duration>,
}

/// One re-run and what changed.
#[derive(serde::Serialize)]
struct Alternative<'a> {
    /// The race's number in the run (from 0).
    race: usize,
    #[serde(flatten)]
    what: &'a Race,
    /// The world rank whose message the re-run gave the receive.
    instead: usize,
    /// The re-run came to that race (with that source's message waiting).
    met: bool,
    /// How the outcome changed, if it did.
    change: Option<String>,
}

/// Runs the program with the races of its first run decided otherwise;
/// returns the first run's exit code.
pub fn explore(s: &Settings) -> Result<i32> {
    let me = std::env::current_exe().context("cannot find smpirun's own path to re-run it")?;
    let log_path = std::env::temp_dir().join(format!("smpirun-races-{}.json", std::process::id()));
    let first = run_once(&me, s.args, &log_path, None, None)?;
    let Some(log) = first.log.as_ref() else {
        eprintln!(
            "smpirun: check: wildcard alternatives: the run ended before listing its races (exit \
             code {}): nothing re-run",
            first.code
        );
        return Ok(first.code);
    };
    let order = schedule(&log.races);
    let limit = (first.wall * 10).max(Duration::from_secs(60));
    let mut done = Vec::new();
    for &(race, other) in order.iter().take(s.budget) {
        let r = &log.races[race];
        let instead = r.others[other];
        let force = Force {
            race,
            source: instead.source,
        };
        let again = run_once(&me, s.args, &log_path, Some(force), Some(limit))?;
        // A re-run stopped by the limit may have met its race already.
        let met = again.log.as_ref().is_some_and(|l| l.forced) || again.timed_out.is_some();
        done.push(Alternative {
            race,
            what: r,
            instead: instead.world,
            met,
            change: if met {
                difference(&first, &again)
            } else {
                None
            },
        });
    }
    let _ = std::fs::remove_file(&log_path);
    for a in &done {
        if let Some(line) = finding_line(a) {
            eprintln!("{line}");
        }
    }
    eprintln!("{}", summary(log.races.len(), order.len(), &done));
    if !s.report.is_empty() {
        add_to_report(Path::new(s.report), &done)?;
    }
    Ok(first.code)
}

/// The re-runs to make, (race, index in its `others`): the first
/// alternative of every race, then the second, and so on.
fn schedule(races: &[Race]) -> Vec<(usize, usize)> {
    let widest = races.iter().map(|r| r.others.len()).max().unwrap_or(0);
    (0..widest)
        .flat_map(|j| {
            races
                .iter()
                .enumerate()
                .filter(move |(_, r)| j < r.others.len())
                .map(move |(k, _)| (k, j))
        })
        .collect()
}

/// Starts smpirun with `args` (the first run, its output passed through,
/// if `force` is none; otherwise a quiet re-run forcing one race) and
/// waits for it, killing it after `limit`.
fn run_once(
    me: &Path,
    args: &[OsString],
    log_path: &Path,
    force: Option<Force>,
    limit: Option<Duration>,
) -> Result<Ended> {
    let _ = std::fs::remove_file(log_path);
    let mut cmd = Command::new(me);
    cmd.args(args)
        .env(wildcard::LOG_ENV, log_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match force {
        Some(f) => {
            cmd.env(wildcard::FORCE_ENV, f.env_value())
                .stdin(Stdio::null());
        }
        None => {
            cmd.env_remove(wildcard::FORCE_ENV);
        }
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start {} to re-run the program", me.display()))?;
    let echo = force.is_none();
    let out = collect(
        child.stdout.take(),
        echo.then(|| Box::new(std::io::stdout()) as _),
    );
    let err = collect(
        child.stderr.take(),
        echo.then(|| Box::new(std::io::stderr()) as _),
    );
    let (status, timed_out) = wait(&mut child, limit)?;
    let code = {
        use std::os::unix::process::ExitStatusExt;
        status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(1)
    };
    let log = std::fs::read_to_string(log_path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    Ok(Ended {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        log,
        wall: start.elapsed(),
        timed_out,
    })
}

/// Reads `from` to its end on a thread of its own (a child blocked on a
/// full pipe would never end), writing what comes to `echo` as it comes.
fn collect(
    from: Option<impl Read + Send + 'static>,
    echo: Option<Box<dyn Write + Send>>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut all = Vec::new();
        let (Some(mut from), mut echo) = (from, echo) else {
            return String::new();
        };
        let mut buf = [0u8; 8192];
        while let Ok(n) = from.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let Some(e) = echo.as_mut() {
                let _ = e.write_all(&buf[..n]);
                let _ = e.flush();
            }
            all.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&all).into_owned()
    })
}

/// Waits for `child`, killing it after `limit`.
fn wait(
    child: &mut Child,
    limit: Option<Duration>,
) -> Result<(std::process::ExitStatus, Option<Duration>)> {
    let Some(limit) = limit else {
        return Ok((child.wait()?, None));
    };
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((status, None));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            return Ok((child.wait()?, Some(limit)));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The lines of a run's error output that say something about the
/// program: not the race findings (a re-run changes them on purpose), not
/// the summaries and timings.
fn telling(stderr: &str) -> impl Iterator<Item = &str> {
    stderr.lines().filter(|l| {
        let race = l.starts_with("smpirun: check: MessageRace: ");
        let count = l.starts_with("smpirun: check: ") && l.contains(" finding");
        !(race || count || l.starts_with("smpirun: simulated time "))
    })
}

/// The program's own output: without smpirun's line about the exit code
/// (the code is compared by itself).
fn program_output(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| !l.starts_with("Execution failed with code "))
        .collect()
}

/// How `again` ended otherwise than `first`, if it did.
fn difference(first: &Ended, again: &Ended) -> Option<String> {
    if let Some(limit) = again.timed_out {
        return Some(format!(
            "the run does not end within {} s (stopped there)",
            limit.as_secs()
        ));
    }
    let mut parts = Vec::new();
    let known: std::collections::HashSet<&str> = telling(&first.stderr).collect();
    let new_line = telling(&again.stderr).find(|l| !known.contains(l));
    if again.code != first.code {
        parts.push(format!(
            "the run exits with code {} instead of {}",
            again.code, first.code
        ));
    }
    let (a, b) = (program_output(&first.stdout), program_output(&again.stdout));
    if a != b {
        let i = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        parts.push(match (a.get(i), b.get(i)) {
            (Some(was), Some(now)) => {
                format!(
                    "its output differs at line {}: '{now}' instead of '{was}'",
                    i + 1
                )
            }
            (Some(was), None) => format!("its output stops before line {}: '{was}'", i + 1),
            (None, Some(now)) => format!("its output has a line {} more: '{now}'", i + 1),
            (None, None) => {
                unreachable!("outputs differ, so one has a line at the first difference")
            }
        });
    }
    if let Some(line) = new_line {
        parts.push(format!("it reports: {line}"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The finding of a re-run whose outcome changed.
fn finding_line(a: &Alternative) -> Option<String> {
    let change = a.change.as_deref()?;
    let at = a
        .what
        .location
        .as_ref()
        .map(|l| format!(" (at {l})"))
        .unwrap_or_default();
    Some(format!(
        "smpirun: check: MessageRace: rank {} (with ranks {}, {}): {}: taking rank {}'s message \
         instead of rank {}'s changes the outcome: {change}{at}",
        a.what.rank, a.what.taken.world, a.instead, a.what.call, a.instead, a.what.taken.world
    ))
}

/// The supervisor's last line.
fn summary(races: usize, alternatives: usize, done: &[Alternative]) -> String {
    let changed = done.iter().filter(|a| a.change.is_some()).count();
    let unmet = done.iter().filter(|a| !a.met).count();
    let mut s = format!(
        "smpirun: check: wildcard alternatives: {races} race{}, {} of {alternatives} \
         alternative{} re-run, {changed} change{} the outcome",
        if races == 1 { "" } else { "s" },
        done.len(),
        if alternatives == 1 { "" } else { "s" },
        if changed == 1 { "s" } else { "" },
    );
    if unmet > 0 {
        s.push_str(&format!(
            "; {unmet} re-run{} never met {} race (runs repeat exactly only with \
             smpi/simulate-computation:no)",
            if unmet == 1 { "" } else { "s" },
            if unmet == 1 { "its" } else { "their" }
        ));
    }
    if done.len() < alternatives {
        s.push_str(&format!(
            "; smpi/check/wildcard-alternatives:{alternatives} would try them all"
        ));
    }
    s
}

/// Adds the re-runs to the first run's check report as `alternatives`.
fn add_to_report(path: &Path, done: &[Alternative]) -> Result<()> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the check report {}", path.display()))?;
    let mut report: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("the check report {} is not JSON", path.display()))?;
    if let Some(map) = report.as_object_mut() {
        map.insert("alternatives".into(), serde_json::to_value(done)?);
    }
    std::fs::write(path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("cannot write the check report {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::verify::wildcard::Candidate;

    fn race(others: usize) -> Race {
        let c = |i: usize| Candidate {
            source: i as i32,
            world: i,
        };
        Race {
            rank: 0,
            call: "MPI_Recv".into(),
            tag: 0,
            taken: c(1),
            others: (2..2 + others).map(c).collect(),
            location: Some("a.c:9".into()),
        }
    }

    fn ended(code: i32, stdout: &str, stderr: &str) -> Ended {
        Ended {
            code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            log: None,
            wall: Duration::ZERO,
            timed_out: None,
        }
    }

    #[test]
    fn every_race_gets_its_first_alternative_before_any_gets_a_second() {
        let races = [race(2), race(1), race(3)];
        assert_eq!(
            schedule(&races),
            [(0, 0), (1, 0), (2, 0), (0, 1), (2, 1), (2, 2)]
        );
    }

    #[test]
    fn outcomes_differ_by_code_output_or_a_new_report_but_not_by_race_lines() {
        let race_line = "smpirun: check: MessageRace: rank 0 (with ranks 1, 2): MPI_Recv: x";
        let first = ended(0, "a\nb\n", race_line);
        let same = ended(
            0,
            "a\nb\n",
            "smpirun: check: MessageRace: rank 0 (with ranks 2, 1): MPI_Recv: y\n\
             smpirun: check: 1 finding (MessageRace 1)",
        );
        assert_eq!(difference(&first, &same), None);
        let other = ended(0, "a\nc\n", "");
        assert_eq!(
            difference(&first, &other).unwrap(),
            "its output differs at line 2: 'c' instead of 'b'"
        );
        let failed = ended(
            1,
            "a\nExecution failed with code 1.\n",
            "smpirun: deadlock: rank 0 waits in MPI_Recv",
        );
        assert_eq!(
            difference(&first, &failed).unwrap(),
            "the run exits with code 1 instead of 0; its output stops before line 2: 'b'; it \
             reports: smpirun: deadlock: rank 0 waits in MPI_Recv"
        );
    }

    #[test]
    fn the_summary_counts_changes_and_unmet_races_and_names_the_budget() {
        let r = race(1);
        let a = |met: bool, change: Option<&str>| Alternative {
            race: 0,
            what: &r,
            instead: 2,
            met,
            change: change.map(String::from),
        };
        let done = [a(true, Some("x")), a(true, None), a(false, None)];
        assert_eq!(
            summary(2, 4, &done),
            "smpirun: check: wildcard alternatives: 2 races, 3 of 4 alternatives re-run, 1 \
             changes the outcome; 1 re-run never met its race (runs repeat exactly only with \
             smpi/simulate-computation:no); smpi/check/wildcard-alternatives:4 would try them all"
        );
        assert_eq!(
            finding_line(&done[0]).unwrap(),
            "smpirun: check: MessageRace: rank 0 (with ranks 1, 2): MPI_Recv: taking rank 2's \
             message instead of rank 1's changes the outcome: x (at a.c:9)"
        );
        assert_eq!(finding_line(&done[1]), None);
    }
}
