//! Correctness checks of the program's use of MPI (`smpi/check`): what a
//! simulator sees for free because every rank, message and buffer is in
//! one process, deterministically.
//!
//! Each check is a family of findings named as the MPI Bugs Initiative
//! names error kinds. A finding is printed when it is made, one line:
//! `smpirun: check: <Kind>: rank R: <MPI call>: <what> [(at file:line)]`
//! (the place when the program was built with `smpicc
//! -trace-call-location`); a summary line ends the run, and
//! `smpi/check-report` writes them all as JSON. Findings that MPI defines
//! as errors are also raised through the communicator's error handler by
//! the code that finds them (a mismatched receive type is `MPI_ERR_TYPE`);
//! the others are warnings only.

pub mod collectives;
pub mod concurrency;
pub mod leaks;
pub mod requests;
pub mod rma;
pub mod signature;
pub mod wildcard;

use std::fmt::Write as _;
use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHasher};

use serde::Serialize;

use crate::config::{Kind as OptKind, OptionSpec};

/// The options of the checks.
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "smpi/check", kind: OptKind::Text, default: "default", help: "correctness checks, a comma-separated list of: default (types, collectives, requests), all, none, types (send and receive type signatures), collectives (every member calls the same collectives with the same root, op and signatures), requests (requests and messages left pending at MPI_Finalize), leaks (handles never freed), concurrency (buffers of pending non-blocking calls touched), rma (conflicting one-sided accesses in an epoch), wildcard (races on MPI_ANY_SOURCE receives), free (MPI_Request_free on a request whose completion was never seen); a name after '-' is removed (default,-types)" },
    OptionSpec { name: "smpi/check-report", kind: OptKind::Text, default: "", help: "write the findings of the correctness checks to this file as JSON" },
    OptionSpec { name: "smpi/check/wildcard-alternatives", kind: OptKind::Int, default: "0", help: "re-run the program up to this many times, each time giving one MPI_ANY_SOURCE receive that had messages of several sources waiting (a race of check 'wildcard', which this turns on) the message of another source, and report the races whose outcome (exit code, output, findings) changes; meaningful with smpi/simulate-computation:no, where runs repeat exactly" },
];

/// Which checks run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checks {
    pub types: bool,
    pub collectives: bool,
    pub requests: bool,
    pub leaks: bool,
    pub concurrency: bool,
    pub rma: bool,
    pub wildcard: bool,
    /// MPI_Request_free on a request whose completion the program never
    /// saw (legal MPI, but its buffer is then never known to be free).
    pub free: bool,
}

/// A value of `smpi/check` that names no check.
#[derive(Debug, thiserror::Error)]
#[error(
    "option 'smpi/check': unknown check '{0}' (known: default, all, none, types, collectives, \
     requests, leaks, concurrency, rma, wildcard, free)"
)]
pub struct UnknownCheck(String);

impl Checks {
    /// The checks on unless asked otherwise: those whose cost is a few
    /// comparisons per message or collective.
    pub const DEFAULT: Checks = Checks {
        types: true,
        collectives: true,
        requests: true,
        leaks: false,
        concurrency: false,
        rma: false,
        wildcard: false,
        free: false,
    };

    pub const ALL: Checks = Checks {
        types: true,
        collectives: true,
        requests: true,
        leaks: true,
        concurrency: true,
        rma: true,
        wildcard: true,
        free: true,
    };

    /// Parses a value of `smpi/check`.
    pub fn parse(text: &str) -> Result<Checks, UnknownCheck> {
        let mut c = Checks::default();
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (on, name) = match item.strip_prefix('-') {
                Some(rest) => (false, rest),
                None => (true, item),
            };
            match name {
                "default" | "all" | "none" => {
                    let set = match name {
                        "default" => Checks::DEFAULT,
                        "all" => Checks::ALL,
                        _ => Checks::default(),
                    };
                    c = if on { c.union(set) } else { c.minus(set) };
                    if name == "none" && on {
                        c = Checks::default();
                    }
                }
                _ => {
                    let flag = match name {
                        "types" => &mut c.types,
                        "collectives" => &mut c.collectives,
                        "requests" => &mut c.requests,
                        "leaks" => &mut c.leaks,
                        "concurrency" => &mut c.concurrency,
                        "rma" => &mut c.rma,
                        "wildcard" => &mut c.wildcard,
                        "free" => &mut c.free,
                        _ => return Err(UnknownCheck(name.to_string())),
                    };
                    *flag = on;
                }
            }
        }
        Ok(c)
    }

    fn fields(self) -> [bool; 8] {
        [
            self.types,
            self.collectives,
            self.requests,
            self.leaks,
            self.concurrency,
            self.rma,
            self.wildcard,
            self.free,
        ]
    }

    fn from_fields(f: [bool; 8]) -> Checks {
        Checks {
            types: f[0],
            collectives: f[1],
            requests: f[2],
            leaks: f[3],
            concurrency: f[4],
            rma: f[5],
            wildcard: f[6],
            free: f[7],
        }
    }

    fn union(self, other: Checks) -> Checks {
        let (a, b) = (self.fields(), other.fields());
        Checks::from_fields(std::array::from_fn(|i| a[i] || b[i]))
    }

    fn minus(self, other: Checks) -> Checks {
        let (a, b) = (self.fields(), other.fields());
        Checks::from_fields(std::array::from_fn(|i| a[i] && !b[i]))
    }
}

/// The kinds of findings, by the MPI Bugs Initiative's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Kind {
    /// A message or collective whose type signatures differ.
    DatatypeMatching,
    /// Members call different collectives, or not all of them call one.
    CallMatching,
    /// Members of a rooted collective name different roots.
    RootMatching,
    /// Members of a reduction name different operations.
    OperatorMatching,
    /// A send or receive never matched by the end of the run.
    UnmatchedMessage,
    /// A request still pending when its rank finalized.
    MissingWait,
    /// A persistent request never started, or freed while active.
    MissingStart,
    /// Handles never freed, by family.
    CommunicatorLeak,
    GroupLeak,
    DatatypeLeak,
    OperatorLeak,
    RequestLeak,
    /// Other handles never freed (windows, files, infos, error handlers).
    ResourceLeak,
    /// A buffer of a pending non-blocking call touched by its own rank.
    LocalConcurrency,
    /// Conflicting accesses of different ranks in one epoch.
    GlobalConcurrency,
    /// A wildcard receive that more than one message could match.
    MessageRace,
    /// A one-sided epoch opened inside another (a lock inside the epoch
    /// a fence opened), or operations no synchronization completed.
    RmaEpoch,
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub kind: Kind,
    /// The ranks involved (world ranks), the one at fault first.
    pub ranks: Vec<usize>,
    /// The MPI call at fault.
    pub call: &'static str,
    pub message: String,
    /// Where the call is in the program's sources, when known.
    pub location: Option<String>,
}

impl Finding {
    /// The line that reports it.
    pub fn line(&self) -> String {
        let mut s = format!("smpirun: check: {:?}: ", self.kind);
        match self.ranks.as_slice() {
            [] => {}
            [r] => {
                let _ = write!(s, "rank {r}: ");
            }
            [r, rest @ ..] => {
                let others: Vec<String> = rest.iter().map(ToString::to_string).collect();
                let plural = if rest.len() > 1 { "s" } else { "" };
                let _ = write!(s, "rank {r} (with rank{plural} {}): ", others.join(", "));
            }
        }
        let _ = write!(s, "{}: {}", self.call, self.message);
        if let Some(at) = &self.location {
            let _ = write!(s, " (at {at})");
        }
        s
    }
}

/// What makes two findings the same: kind, ranks, call, place.
type Same = (Kind, Vec<usize>, &'static str, Option<String>);

/// The state of the checks: which run, what they found.
#[derive(Debug, Default)]
pub struct Verify {
    pub on: Checks,
    findings: Vec<Finding>,
    pub collectives: collectives::Log,
    pub rma: rma::Log,
    /// The message races of wildcard receives (check `wildcard`).
    pub races: wildcard::Races,
    /// The buffers of pending non-blocking calls, by rank.
    pub guards: FxHashMap<usize, Vec<concurrency::Guard>>,
    /// Ranks inside a progress of their collectives that checks guards.
    pub progressing: Vec<usize>,
    /// How often each finding was made, and the repeats not printed.
    repeats: FxHashMap<Same, u32>,
    repeated: u64,
}

impl Verify {
    pub fn new(on: Checks) -> Self {
        Self {
            on,
            ..Self::default()
        }
    }

    /// Records `f` and prints its line, unless the same finding (kind,
    /// ranks, call, place) was made already: a loop repeating a mistake
    /// is reported once, and counted in the summary.
    pub fn report(&mut self, f: Finding) {
        let key = (f.kind, f.ranks.clone(), f.call, f.location.clone());
        let n = self.repeats.entry(key).or_default();
        *n += 1;
        if *n > 1 {
            self.repeated += 1;
            return;
        }
        crate::flush_c_stdio();
        eprintln!("{}", f.line());
        self.findings.push(f);
    }

    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The summary line of the run's findings, if any.
    pub fn summary(&self) -> Option<String> {
        if self.findings.is_empty() {
            return None;
        }
        let mut counts: std::collections::BTreeMap<Kind, usize> = Default::default();
        for f in &self.findings {
            *counts.entry(f.kind).or_default() += 1;
        }
        let kinds: Vec<String> = counts.iter().map(|(k, n)| format!("{k:?} {n}")).collect();
        let repeats = if self.repeated > 0 {
            format!("; {} repeats of them not shown", self.repeated)
        } else {
            String::new()
        };
        Some(format!(
            "smpirun: check: {} finding{} ({}){repeats}",
            self.findings.len(),
            if self.findings.len() == 1 { "" } else { "s" },
            kinds.join(", ")
        ))
    }

    /// The findings as JSON (`smpi/check-report`).
    pub fn json(&self) -> String {
        #[derive(Serialize)]
        struct Report<'a> {
            findings: &'a [Finding],
        }
        serde_json::to_string_pretty(&Report {
            findings: &self.findings,
        })
        .unwrap_or_default()
    }
}

/// The checksum of the bytes in `[lo, hi)`.
pub fn checksum(lo: usize, hi: usize) -> u64 {
    if hi <= lo {
        return 0;
    }
    // SAFETY: the range is the span of a buffer an RMA call was given
    // (origin or result buffer, or a window range checked against the
    // window), which MPI requires to be valid memory for the whole epoch;
    // reading it only hashes the bytes.
    let bytes = unsafe { std::slice::from_raw_parts(lo as *const u8, hi - lo) };
    let mut h = FxHasher::default();
    h.write(bytes);
    h.finish()
}

/// The bytes `count` elements of `ty` at `addr` span: [lo, hi).
pub fn span(addr: usize, count: usize, ty: &crate::mpi::datatype::Datatype) -> (usize, usize) {
    if count == 0 || ty.size == 0 {
        return (addr, addr);
    }
    let reach = (count as isize - 1) * ty.extent;
    let lo = addr as isize + ty.true_lb + reach.min(0);
    let hi = addr as isize + ty.true_lb + ty.true_extent + reach.max(0);
    (lo.max(0) as usize, hi.max(0) as usize)
}

impl crate::mpi::Ctx<'_> {
    /// Reports a finding of `kind` on `ranks` (the one at fault first, at
    /// its last call location when known).
    pub fn finding(&mut self, kind: Kind, ranks: Vec<usize>, call: &'static str, message: String) {
        let location = ranks
            .first()
            .and_then(|&r| self.mpi.ledger.here(r))
            .map(ToString::to_string);
        self.finding_at(kind, ranks, call, message, location);
    }

    /// [`Ctx::finding`] at `location` (where the call was made, when the
    /// rank is elsewhere now).
    pub fn finding_at(
        &mut self,
        kind: Kind,
        ranks: Vec<usize>,
        call: &'static str,
        message: String,
        location: Option<String>,
    ) {
        self.mpi.verify.report(Finding {
            kind,
            ranks,
            call,
            message,
            location,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lists_add_and_remove() {
        assert_eq!(Checks::parse("default").unwrap(), Checks::DEFAULT);
        assert_eq!(Checks::parse("all").unwrap(), Checks::ALL);
        assert_eq!(Checks::parse("none").unwrap(), Checks::default());
        let c = Checks::parse("default,-types,leaks").unwrap();
        assert!(!c.types && c.collectives && c.leaks && !c.rma);
        let c = Checks::parse("all,-concurrency").unwrap();
        assert!(c.rma && !c.concurrency);
        let e = Checks::parse("types,colectives").unwrap_err().to_string();
        assert!(e.contains("unknown check 'colectives'"), "{e}");
    }

    #[test]
    fn a_finding_names_kind_ranks_call_and_place() {
        let f = Finding {
            kind: Kind::RootMatching,
            ranks: vec![1, 0],
            call: "MPI_Bcast",
            message: "root 1 where rank 0 said root 0".into(),
            location: Some("bcast.c:12".into()),
        };
        assert_eq!(
            f.line(),
            "smpirun: check: RootMatching: rank 1 (with rank 0): MPI_Bcast: root 1 where rank 0 \
             said root 0 (at bcast.c:12)"
        );
    }
}
