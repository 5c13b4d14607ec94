//! An MPI profile of the run, what mpiP gives on real machines: for each
//! MPI function, its calls, the bytes of their buffers and the simulated
//! time spent inside them, per rank.
//!
//! The profiler is a [`Tracer`]: it sees every call's entry and exit (the
//! calls the bindings run through `abi::call`; not `MPI_Wtime` and the
//! other calls that never take simulated time nor fail). A call's time is
//! its exit date minus its entry date; open calls are kept per actor, so
//! that the threads of a rank inside calls at once are each timed. Calls
//! still open when the run ends (a deadlock, an abort) count up to that
//! date. Bytes are [`Traced::bytes`], the description the bindings build
//! while a tracer is attached: calls without one count 0.
//!
//! `smpi/profile:yes` prints a table of the functions (all ranks together)
//! on stderr when the run ends; `smpi/profile-file:F` writes one row per
//! rank and function to `F`, CSV or JSON by its extension. The file alone
//! profiles without the table. When neither is set the profiler is not
//! attached and costs nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Traced, Tracer};
use crate::config::{Config, Kind, OptionSpec};
use crate::engine::observe::Observer;

/// The options of the profile.
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "smpi/profile", kind: Kind::Bool, default: "no", help: "print an MPI profile when the run ends (on stderr): per MPI function, its calls, bytes, simulated time inside it summed over ranks, its share of ranks x simulated time, and the imbalance across ranks" },
    OptionSpec { name: "smpi/profile-file", kind: Kind::Text, default: "", help: "write the MPI profile per rank to this file, one row per rank and function (rank, call, calls, bytes, time_s, min_s, max_s, share): CSV if it ends in .csv, JSON if in .json; alone, it profiles without printing the table" },
];

/// What the profile options ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The table on stderr (`smpi/profile`).
    pub table: bool,
    /// The per-rank file (`smpi/profile-file`).
    pub file: Option<(PathBuf, Format)>,
}

/// The format of the per-rank file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

/// Why the profile cannot be made or written.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error(
        "option smpi/profile-file: '{0}' has no known extension: the profile is written as \
         CSV to a file ending in .csv, as JSON to one ending in .json"
    )]
    Format(PathBuf),
    #[error("cannot write the MPI profile {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the MPI profile {path}: {source}")]
    Csv { path: PathBuf, source: csv::Error },
    #[error("cannot write the MPI profile {path}: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
}

impl Settings {
    /// The profile `cfg` asks for, or `None` when there is none.
    pub fn from_config(cfg: &Config) -> Result<Option<Self>, ProfileError> {
        let table = cfg.bool("smpi/profile");
        let file = match cfg.text("smpi/profile-file") {
            "" => None,
            name => Some(file_format(Path::new(name))?),
        };
        Ok((table || file.is_some()).then_some(Settings { table, file }))
    }
}

impl Settings {
    /// Creates the file (empty) before the run, so that a long run does
    /// not end on a path it cannot write.
    pub fn create_file(&self) -> Result<(), ProfileError> {
        let Some((path, _)) = &self.file else {
            return Ok(());
        };
        std::fs::File::create(path)
            .map(drop)
            .map_err(|source| ProfileError::Io {
                path: path.clone(),
                source,
            })
    }
}

/// `path` with its format, from its extension.
fn file_format(path: &Path) -> Result<(PathBuf, Format), ProfileError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let format = if ext.eq_ignore_ascii_case("csv") {
        Format::Csv
    } else if ext.eq_ignore_ascii_case("json") {
        Format::Json
    } else {
        return Err(ProfileError::Format(path.to_path_buf()));
    };
    Ok((path.to_path_buf(), format))
}

/// One MPI function's figures on one rank (or, summed, on all).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stat {
    pub calls: u64,
    pub bytes: u64,
    /// Seconds inside the calls, in all.
    pub time: f64,
    /// The shortest and the longest call, in seconds.
    pub min: f64,
    pub max: f64,
}

impl Stat {
    fn add(&mut self, bytes: u64, time: f64) {
        if self.calls == 0 {
            (self.min, self.max) = (time, time);
        } else {
            self.min = self.min.min(time);
            self.max = self.max.max(time);
        }
        self.calls += 1;
        self.bytes = self.bytes.saturating_add(bytes);
        self.time += time;
    }
}

/// A place in the program's sources: file and line.
type Place = (Rc<str>, u32);

/// A call an actor is inside.
#[derive(Debug, Clone)]
struct Open {
    rank: usize,
    name: &'static str,
    since: f64,
    bytes: u64,
    /// Where the program made it (`smpicc -trace-call-location`).
    site: Option<Place>,
}

/// How many call sites the table lists.
const SITES_SHOWN: usize = 10;

/// Collects the profile of a run.
#[derive(Debug)]
pub struct Profiler {
    /// Each rank's figures, by function.
    ranks: Vec<FxHashMap<&'static str, Stat>>,
    /// The calls each actor is inside, innermost last (MPI calls do not
    /// nest, but a program's error handler or reduction may call MPI).
    open: FxHashMap<usize, Vec<Open>>,
    /// The date the run ended (0 until it did).
    end: f64,
    /// Each rank's current call location, when the program tells it.
    here: Vec<Option<Place>>,
    /// Each function's figures by call site, over all ranks.
    sites: FxHashMap<(&'static str, Place), Stat>,
}

/// One function's line of the table: all ranks together.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub call: &'static str,
    /// Calls, bytes and time summed over ranks (min and max over calls).
    pub total: Stat,
    /// The time of the rank that spent the most in it, and that rank
    /// (the lowest of equals).
    pub max_rank_time: f64,
    pub max_rank: usize,
}

/// A row of the per-rank file.
#[derive(Debug, Serialize)]
struct Row<'a> {
    rank: usize,
    call: &'a str,
    calls: u64,
    bytes: u64,
    time_s: f64,
    min_s: f64,
    max_s: f64,
    /// The rank's time in the function over the simulated run time.
    share: f64,
}

/// The JSON file: the run, then the rows.
#[derive(Debug, Serialize)]
struct JsonProfile<'a> {
    ranks: usize,
    simulated_time_s: f64,
    rows: Vec<Row<'a>>,
}

impl Profiler {
    /// A profiler of `ranks` ranks.
    pub fn new(ranks: usize) -> Self {
        Self {
            ranks: vec![FxHashMap::default(); ranks],
            open: FxHashMap::default(),
            end: 0.0,
            here: vec![None; ranks],
            sites: FxHashMap::default(),
        }
    }

    fn enter(&mut self, at: f64, rank: usize, actor: usize, name: &'static str, bytes: u64) {
        let site = self.here.get(rank).cloned().flatten();
        self.open.entry(actor).or_default().push(Open {
            rank,
            name,
            since: at,
            bytes,
            site,
        });
    }

    fn exit(&mut self, at: f64, actor: usize, name: &'static str) {
        let Some(stack) = self.open.get_mut(&actor) else {
            return;
        };
        let Some(i) = stack.iter().rposition(|o| o.name == name) else {
            return;
        };
        let o = stack.remove(i);
        self.close(o, at);
    }

    fn close(&mut self, o: Open, at: f64) {
        if let Some(calls) = self.ranks.get_mut(o.rank) {
            calls.entry(o.name).or_default().add(o.bytes, at - o.since);
        }
        if let Some(site) = o.site {
            self.sites
                .entry((o.name, site))
                .or_default()
                .add(o.bytes, at - o.since);
        }
    }

    /// The call sites by time, the most first (then by function, file
    /// and line): function, file, line, figures over all ranks.
    pub fn sites(&self) -> Vec<(&'static str, Place, Stat)> {
        let mut all: Vec<_> = self
            .sites
            .iter()
            .map(|((call, place), s)| (*call, place.clone(), *s))
            .collect();
        all.sort_by(|a, b| {
            b.2.time
                .total_cmp(&a.2.time)
                .then(a.0.cmp(b.0))
                .then(a.1.cmp(&b.1))
        });
        all
    }

    /// The simulated date the run ended.
    pub fn end(&self) -> f64 {
        self.end
    }

    /// `rank`'s figures for function `call`, if it called it.
    pub fn stat(&self, rank: usize, call: &str) -> Option<Stat> {
        self.ranks.get(rank)?.get(call).copied()
    }

    /// Every function's figures over all ranks, the most time first
    /// (then by name).
    pub fn summaries(&self) -> Vec<Summary> {
        let mut by_call: FxHashMap<&'static str, Summary> = FxHashMap::default();
        for (rank, calls) in self.ranks.iter().enumerate() {
            for (&call, s) in calls {
                let sum = by_call.entry(call).or_insert(Summary {
                    call,
                    total: Stat::default(),
                    max_rank_time: f64::NEG_INFINITY,
                    max_rank: rank,
                });
                let t = &mut sum.total;
                if t.calls == 0 {
                    (t.min, t.max) = (s.min, s.max);
                } else {
                    (t.min, t.max) = (t.min.min(s.min), t.max.max(s.max));
                }
                t.calls += s.calls;
                t.bytes = t.bytes.saturating_add(s.bytes);
                t.time += s.time;
                if s.time > sum.max_rank_time {
                    (sum.max_rank_time, sum.max_rank) = (s.time, rank);
                }
            }
        }
        let mut all: Vec<Summary> = by_call.into_values().collect();
        all.sort_by(|a, b| {
            b.total
                .time
                .total_cmp(&a.total.time)
                .then(a.call.cmp(b.call))
        });
        all
    }

    /// The table `smpi/profile` prints (see [`table`]).
    pub fn table(&self) -> String {
        let mut out = table(&self.summaries(), &self.rank_totals(), self.end);
        out.push_str(&sites_table(
            &self.sites(),
            self.end * self.ranks.len() as f64,
        ));
        out
    }

    /// Each rank's time in MPI calls, in all.
    fn rank_totals(&self) -> Vec<f64> {
        self.ranks
            .iter()
            .map(|calls| {
                let mut by_name: Vec<(&str, f64)> =
                    calls.iter().map(|(&n, s)| (n, s.time)).collect();
                // A fixed order of addition, for the same last digits at
                // every run.
                by_name.sort_by(|a, b| a.0.cmp(b.0));
                by_name.iter().map(|&(_, t)| t).sum()
            })
            .collect()
    }

    /// The rows of the per-rank file: by rank, then by function name.
    fn rows(&self) -> Vec<Row<'static>> {
        let mut rows = Vec::new();
        for (rank, calls) in self.ranks.iter().enumerate() {
            let mut names: Vec<&'static str> = calls.keys().copied().collect();
            names.sort_unstable();
            for call in names {
                let s = calls[call];
                rows.push(Row {
                    rank,
                    call,
                    calls: s.calls,
                    bytes: s.bytes,
                    time_s: s.time,
                    min_s: s.min,
                    max_s: s.max,
                    share: if self.end > 0.0 {
                        s.time / self.end
                    } else {
                        0.0
                    },
                });
            }
        }
        rows
    }

    /// Writes the per-rank file `path` in `format`.
    pub fn write(&self, path: &Path, format: Format) -> Result<(), ProfileError> {
        let io = |source| ProfileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::create(path).map_err(io)?;
        let out = std::io::BufWriter::new(file);
        match format {
            Format::Csv => {
                let csv_error = |source| ProfileError::Csv {
                    path: path.to_path_buf(),
                    source,
                };
                let mut w = csv::Writer::from_writer(out);
                for row in self.rows() {
                    w.serialize(row).map_err(csv_error)?;
                }
                w.flush().map_err(io)
            }
            Format::Json => {
                let profile = JsonProfile {
                    ranks: self.ranks.len(),
                    simulated_time_s: self.end,
                    rows: self.rows(),
                };
                let mut out = out;
                serde_json::to_writer_pretty(&mut out, &profile).map_err(|source| {
                    ProfileError::Json {
                        path: path.to_path_buf(),
                        source,
                    }
                })?;
                std::io::Write::write_all(&mut out, b"\n").map_err(io)?;
                std::io::Write::flush(&mut out).map_err(io)
            }
        }
    }
}

impl Observer for Profiler {}

impl Tracer for Profiler {
    fn call_enter(&mut self, at: f64, rank: usize, name: &'static str, traced: Option<&Traced>) {
        // Actor i < ranks is rank i's main one.
        self.actor_call_enter(at, rank, rank, name, traced);
    }

    fn call_exit(&mut self, at: f64, rank: usize, name: &'static str, code: i32) {
        self.actor_call_exit(at, rank, rank, name, code);
    }

    fn actor_call_enter(
        &mut self,
        at: f64,
        rank: usize,
        actor: usize,
        name: &'static str,
        traced: Option<&Traced>,
    ) {
        self.enter(at, rank, actor, name, traced.map_or(0, |t| t.bytes));
    }

    fn actor_call_exit(&mut self, at: f64, _rank: usize, actor: usize, name: &'static str, _: i32) {
        self.exit(at, actor, name);
    }

    fn call_location(&mut self, rank: usize, file: &Rc<str>, line: u32) {
        if let Some(h) = self.here.get_mut(rank) {
            *h = Some((Rc::clone(file), line));
        }
    }

    fn finish(&mut self, end: f64) -> std::io::Result<()> {
        self.end = end;
        // The calls never left, in a fixed order (the actors').
        let mut open: Vec<(usize, Vec<Open>)> = self.open.drain().collect();
        open.sort_by_key(|&(actor, _)| actor);
        for o in open.into_iter().flat_map(|(_, stack)| stack) {
            self.close(o, end);
        }
        Ok(())
    }
}

/// The table of `summaries` for a run of `rank_totals.len()` ranks that
/// ended at `end`: one line per function, then all functions together,
/// then what the columns mean.
pub fn table(summaries: &[Summary], rank_totals: &[f64], end: f64) -> String {
    let ranks = rank_totals.len();
    let capacity = ranks as f64 * end;
    let share = |time: f64| {
        if capacity > 0.0 {
            format!("{:.2}%", 100.0 * time / capacity)
        } else {
            "-".into()
        }
    };
    // The busiest rank, when some rank took time.
    let busiest = |rank: usize, total: f64| {
        if total > 0.0 {
            rank.to_string()
        } else {
            "-".into()
        }
    };
    // The busiest rank's time over the mean over all ranks.
    let imbalance = |max: f64, total: f64| {
        if total > 0.0 && ranks > 0 {
            format!("{:.2}", max / (total / ranks as f64))
        } else {
            "-".into()
        }
    };
    let mut rows: Vec<[String; 8]> = vec![[
        "MPI function".into(),
        "Calls".into(),
        "Bytes".into(),
        "Time".into(),
        "Share".into(),
        "Per call".into(),
        "Max/mean".into(),
        "Max rank".into(),
    ]];
    for s in summaries {
        let t = &s.total;
        rows.push([
            s.call.into(),
            t.calls.to_string(),
            format_bytes(t.bytes),
            format_seconds(t.time),
            share(t.time),
            format_seconds(if t.calls > 0 {
                t.time / t.calls as f64
            } else {
                0.0
            }),
            imbalance(s.max_rank_time, t.time),
            busiest(s.max_rank, t.time),
        ]);
    }
    let calls: u64 = summaries.iter().map(|s| s.total.calls).sum();
    let bytes = summaries
        .iter()
        .fold(0u64, |b, s| b.saturating_add(s.total.bytes));
    let time: f64 = rank_totals.iter().sum();
    let (max_rank, max_time) =
        rank_totals
            .iter()
            .copied()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (r, t)| {
                if t > best.1 {
                    (r, t)
                } else {
                    best
                }
            });
    rows.push([
        "all MPI".into(),
        calls.to_string(),
        format_bytes(bytes),
        format_seconds(time),
        share(time),
        format_seconds(if calls > 0 { time / calls as f64 } else { 0.0 }),
        imbalance(max_time, time),
        busiest(max_rank, time),
    ]);
    let mut widths = [0; 8];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = format!(
        "MPI profile: {ranks} ranks, {} simulated\n",
        format_seconds(end)
    );
    let last = rows.len() - 1;
    for (i, row) in rows.iter().enumerate() {
        if i == last {
            // A rule above the total.
            let width = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            let _ = writeln!(out, "{}", "-".repeat(width));
        }
        let mut line = format!("{:<w$}", row[0], w = widths[0]);
        for (cell, w) in row.iter().zip(widths).skip(1) {
            let _ = write!(line, "  {cell:>w$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out.push_str(
        "Time: simulated time inside the calls, summed over ranks; Share: of ranks x the \
         simulated time;\nMax/mean: the time of the busiest rank (Max rank) over the mean of \
         all ranks.\n",
    );
    out
}

/// The call sites of the most time (`sites`, sorted), at most
/// [`SITES_SHOWN`], with their share of `capacity` (ranks x the simulated
/// time); empty when no call site is known.
pub fn sites_table(sites: &[(&'static str, Place, Stat)], capacity: f64) -> String {
    if sites.is_empty() {
        return String::new();
    }
    let mut rows: Vec<[String; 5]> = vec![[
        "Call site".into(),
        "Calls".into(),
        "Time".into(),
        "Share".into(),
        "Per call".into(),
    ]];
    for (call, (file, line), s) in sites.iter().take(SITES_SHOWN) {
        rows.push([
            format!("{call} at {file}:{line}"),
            s.calls.to_string(),
            format_seconds(s.time),
            if capacity > 0.0 {
                format!("{:.2}%", 100.0 * s.time / capacity)
            } else {
                "-".into()
            },
            format_seconds(s.time / s.calls.max(1) as f64),
        ]);
    }
    let mut widths = [0; 5];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let shown = (rows.len() - 1).min(SITES_SHOWN);
    let mut out = format!("Top {shown} of {} call sites by time:\n", sites.len());
    for row in &rows {
        let mut line = format!("{:<w$}", row[0], w = widths[0]);
        for (cell, w) in row.iter().zip(widths).skip(1) {
            let _ = write!(line, "  {cell:>w$}");
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `seconds` in the unit that gives 1 to 999 of it, 3 decimals.
pub fn format_seconds(seconds: f64) -> String {
    let a = seconds.abs();
    if a == 0.0 {
        "0 s".into()
    } else if a >= 1.0 {
        format!("{seconds:.3} s")
    } else if a >= 1e-3 {
        format!("{:.3} ms", seconds * 1e3)
    } else if a >= 1e-6 {
        format!("{:.3} us", seconds * 1e6)
    } else {
        format!("{:.3} ns", seconds * 1e9)
    }
}

/// `bytes` in B below 1 KiB, else in the binary unit that gives 1 to
/// 1023 of it, 1 decimal.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Args;

    fn described(bytes: u64) -> Traced {
        Traced::new("allreduce", Args::None).with_bytes(bytes)
    }

    /// Rank `rank`'s main actor in `name` from `from` to `to`.
    fn call(p: &mut Profiler, rank: usize, name: &'static str, from: f64, to: f64, bytes: u64) {
        p.call_enter(from, rank, name, Some(&described(bytes)));
        p.call_exit(to, rank, name, 0);
    }

    /// A run of 4 ranks over 10 s: allreduce everywhere, a long wait on
    /// rank 2, a barrier without bytes.
    fn sample() -> Profiler {
        let mut p = Profiler::new(4);
        for rank in 0..4 {
            call(&mut p, rank, "MPI_Allreduce", 1.0, 2.0, 800);
            call(&mut p, rank, "MPI_Allreduce", 3.0, 3.5, 800);
        }
        call(&mut p, 2, "MPI_Wait", 4.0, 8.0, 0);
        p.call_enter(9.0, 1, "MPI_Barrier", None);
        p.call_exit(9.25, 1, "MPI_Barrier", 0);
        p.finish(10.0).unwrap();
        p
    }

    #[test]
    fn calls_add_up_per_rank_and_function() {
        let p = sample();
        let s = p.stat(3, "MPI_Allreduce").unwrap();
        assert_eq!((s.calls, s.bytes), (2, 1600));
        assert_eq!((s.time, s.min, s.max), (1.5, 0.5, 1.0));
        assert_eq!(p.stat(1, "MPI_Barrier").unwrap().bytes, 0);
        assert_eq!(p.stat(0, "MPI_Wait"), None);
        assert_eq!(p.end(), 10.0);
    }

    #[test]
    fn summaries_are_sorted_by_time_with_the_busiest_rank() {
        let p = sample();
        let s = p.summaries();
        let names: Vec<&str> = s.iter().map(|s| s.call).collect();
        assert_eq!(names, ["MPI_Allreduce", "MPI_Wait", "MPI_Barrier"]);
        assert_eq!((s[0].total.calls, s[0].total.bytes), (8, 6400));
        assert_eq!(s[0].total.time, 6.0);
        assert_eq!(s[1].max_rank, 2);
        assert_eq!(s[1].max_rank_time, 4.0);
        // Equal times: the lowest rank.
        assert_eq!(s[0].max_rank, 0);
    }

    #[test]
    fn the_table_is_aligned_with_units_shares_and_imbalance() {
        let t = sample().table();
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "MPI profile: 4 ranks, 10.000 s simulated");
        assert!(lines[1].starts_with("MPI function"), "{t}");
        assert!(lines[2].starts_with("MPI_Allreduce"), "{t}");
        // 6 s of 4 x 10 s; mean 1.5 s a rank, the busiest 1.5 s.
        for cell in ["8", "6.2 KiB", "6.000 s", "15.00%", "750.000 ms", "1.00"] {
            assert!(
                lines[2].split("  ").any(|c| c.trim() == cell),
                "{cell}: {t}"
            );
        }
        // The wait: 4 s on rank 2 of a mean of 1 s.
        assert!(lines[3].contains("4.00"), "{t}");
        assert!(lines[3].trim_end().ends_with('2'), "{t}");
        assert!(lines[4].contains("0 B"), "{t}");
        // Every column ends at the same place: the header's.
        let ends = |l: &str| l.len();
        assert_eq!(ends(lines[1]), ends(lines[2]), "{t}");
        assert_eq!(ends(lines[2]), ends(lines[3]), "{t}");
        assert!(lines[5].chars().all(|c| c == '-'), "{t}");
        // All together: 10.25 s, rank 2 the busiest (5.5 s).
        assert!(lines[6].starts_with("all MPI"), "{t}");
        assert!(
            lines[6].contains("10.250 s") && lines[6].contains("25.62%"),
            "{t}"
        );
        assert!(lines[6].trim_end().ends_with('2'), "{t}");
    }

    #[test]
    fn the_threads_of_a_rank_are_timed_each_and_open_calls_end_with_the_run() {
        let mut p = Profiler::new(2);
        // Rank 1's main actor (1) and a thread of it (actor 5) in MPI_Recv
        // at once: the thread returns first.
        p.actor_call_enter(1.0, 1, 1, "MPI_Recv", Some(&described(8)));
        p.actor_call_enter(2.0, 1, 5, "MPI_Recv", Some(&described(16)));
        p.actor_call_exit(2.5, 1, 5, "MPI_Recv", 0);
        p.actor_call_exit(4.0, 1, 1, "MPI_Recv", 0);
        // Rank 0 never returns (a deadlock).
        p.call_enter(3.0, 0, "MPI_Recv", None);
        p.finish(6.0).unwrap();
        let s = p.stat(1, "MPI_Recv").unwrap();
        assert_eq!(
            (s.calls, s.bytes, s.time, s.min, s.max),
            (2, 24, 3.5, 0.5, 3.0)
        );
        assert_eq!(p.stat(0, "MPI_Recv").unwrap().time, 3.0);
    }

    #[test]
    fn units_are_chosen_for_people() {
        assert_eq!(format_seconds(0.0), "0 s");
        assert_eq!(format_seconds(2.5), "2.500 s");
        assert_eq!(format_seconds(0.0123), "12.300 ms");
        assert_eq!(format_seconds(4.5e-6), "4.500 us");
        assert_eq!(format_seconds(3e-9), "3.000 ns");
        assert_eq!(format_bytes(0), "0 B");
        assert_eq!(format_bytes(1023), "1023 B");
        assert_eq!(format_bytes(1536), "1.5 KiB");
        assert_eq!(format_bytes(3 << 20), "3.0 MiB");
        assert_eq!(format_bytes(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn a_run_without_calls_has_a_table_of_none() {
        let mut p = Profiler::new(2);
        p.finish(0.0).unwrap();
        let t = p.table();
        assert!(t.contains("all MPI"), "{t}");
        assert!(t.lines().nth(3).unwrap().contains('-'), "{t}");
    }

    #[test]
    fn the_file_format_comes_from_the_extension() {
        let mut cfg = crate::run::config();
        assert_eq!(Settings::from_config(&cfg).unwrap(), None);
        cfg.set_pair("smpi/profile-file:out.JSON").unwrap();
        let s = Settings::from_config(&cfg).unwrap().unwrap();
        assert_eq!(s.file, Some(("out.JSON".into(), Format::Json)));
        assert!(!s.table);
        cfg.set_pair("smpi/profile-file:out.txt").unwrap();
        let e = Settings::from_config(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("smpi/profile-file") && e.contains("out.txt"),
            "{e}"
        );
        cfg.set_pair("smpi/profile-file:").unwrap();
        cfg.set_pair("smpi/profile:yes").unwrap();
        let s = Settings::from_config(&cfg).unwrap().unwrap();
        assert!(s.table && s.file.is_none());
    }

    #[test]
    fn files_hold_a_row_per_rank_and_function() {
        let p = sample();
        let dir = std::env::temp_dir().join(format!("smpi-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let csv_path = dir.join("p.csv");
        p.write(&csv_path, Format::Csv).unwrap();
        let text = std::fs::read_to_string(&csv_path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "rank,call,calls,bytes,time_s,min_s,max_s,share");
        assert_eq!(lines[1], "0,MPI_Allreduce,2,1600,1.5,0.5,1.0,0.15");
        assert_eq!(lines.len(), 1 + 4 + 1 + 1);
        let json_path = dir.join("p.json");
        p.write(&json_path, Format::Json).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(v["ranks"], 4);
        assert_eq!(v["simulated_time_s"], 10.0);
        assert_eq!(v["rows"].as_array().unwrap().len(), 6);
        assert_eq!(v["rows"][3]["call"], "MPI_Allreduce");
        assert_eq!(v["rows"][4]["call"], "MPI_Wait");
        assert_eq!(v["rows"][4]["rank"], 2);
        let bad = p
            .write(&dir.join("missing/p.csv"), Format::Csv)
            .unwrap_err();
        assert!(bad.to_string().contains("missing/p.csv"), "{bad}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
