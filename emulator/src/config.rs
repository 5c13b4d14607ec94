//! `--cfg=name:value` options, with SimGrid's names.
//!
//! Every option has a kind, a default and a one-line help, declared next
//! to the code that reads it (`OPTIONS` of `engine::netmodel`,
//! `mpi::protocol`, `mpi::coll`, `memory` and `run`); `run::REGISTRY`
//! collects them, and a [`Config`] holds the values of a registry. Values
//! come from the platform file's `<config>` first, then the command line
//! (which wins). An unknown name is an error that lists the valid ones and
//! suggests the nearest.

use std::collections::BTreeMap;
use std::fmt;

/// What values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Int,
    Float,
    /// A string with its own syntax, checked where it is used.
    Text,
}

/// One known option.
#[derive(Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
    pub default: &'static str,
    pub help: &'static str,
}

/// Old names SimGrid still accepts, mapped to the current one.
const ALIASES: &[(&str, &str)] = &[
    ("smpi/bw-factor", "network/bandwidth-factor"),
    ("smpi/lat-factor", "network/latency-factor"),
    ("maxmin/precision", "precision/maxmin"),
    ("surf/precision", "precision/timing"),
];

/// SimGrid 3.32's options that have no effect here, with why: setting one
/// is accepted (a SimGrid user's command lines keep working) and warned
/// about once, never silently ignored. A name `/`-terminated covers every
/// option under it.
#[rustfmt::skip]
const NO_EFFECT: &[(&str, &str)] = &[
    ("bmf/", "the max-min models (SMPI, IB) are the only network models besides Constant"),
    ("cmonkey/", "SimGrid's chaos monkey (fault injection) is not part of smpi-rs"),
    ("contexts/guard-size", "each rank's stack has a fixed guard zone"),
    ("contexts/nthreads", "the simulation runs on one thread"),
    ("contexts/synchro", "the simulation runs on one thread"),
    ("cpu/", "hosts compute at their speed, shared between their ranks (one CPU model)"),
    ("debug/", "a debugging aid of SimGrid's own code"),
    ("disk/", "disks follow SimGrid 3.32's default model (S19) only"),
    ("exception/cutpath", "a debugging aid of SimGrid's own code"),
    ("help-nostop", "a debugging aid of SimGrid's own code"),
    ("host/model", "hosts compute at their speed, shared between their ranks (one host model)"),
    ("host/solver", "hosts compute at their speed, shared between their ranks (one host model)"),
    ("maxmin/concurrency-limit", "the max-min solver has no concurrency limit"),
    ("model-check/", "SimGrid's model checker is not part of smpi-rs"),
    ("network/maxmin-selective-update", "the max-min solver always updates incrementally"),
    ("network/optim", "the max-min solver always updates incrementally"),
    ("network/solver", "the max-min solver is the only one"),
    ("ns3/", "ns-3 is not part of smpi-rs"),
    ("plugin/", "SimGrid's DVFS plugin is not available here (host_energy is)"),
    ("smpi/buffering", "SimGrid's model checker is not part of smpi-rs"),
    ("smpi/comp-adjustment-file", "computation adjustments are not available yet"),
    ("smpi/hostfile", "set by smpirun's -hostfile"),
    ("smpi/iprobe-cpu-usage", "MPI_Iprobe's cost is a sleep here: with host_energy its host draws idle power meanwhile, not a share of a busy core"),
    ("smpi/keep-temps", "smpirun writes no temporary files: the copies of the program live in memory"),
    ("smpi/np", "set by smpirun's -np"),
    ("smpi/papi-events", "PAPI counters are not part of smpi-rs"),
    ("smpi/pedantic", "the extra checks are not available yet"),
    ("smpi/privatize-libs", "only the program's own globals are privatized"),
    ("smpi/replay", "trace replay is not available yet"),
    ("smpi/tmpdir", "smpirun writes no temporary files: the copies of the program live in memory"),
    ("storage/", "disks are not simulated"),
    ("tracing/actor", NOT_TRACED),
    ("tracing/basic", NOT_TRACED),
    ("tracing/disable-destroy", NOT_TRACED),
    ("tracing/disable_link", NOT_TRACED),
    ("tracing/disable_power", NOT_TRACED),
    ("tracing/platform", NOT_TRACED),
    ("tracing/platform/topology", NOT_TRACED),
    ("tracing/smpi/format/ti-one-file", NOT_TRACED),
    ("tracing/smpi/internals", NOT_TRACED),
    ("tracing/vm", NOT_TRACED),
];

/// Why a part of SimGrid's tracing has no effect.
const NOT_TRACED: &str = "this part of SimGrid's tracing is not available (tracing, tracing/smpi, \
    tracing/smpi/format, tracing/filename, tracing/smpi/computing, tracing/precision, \
    tracing/comment, tracing/comment-file, tracing/smpi/display-sizes, tracing/smpi/sleeping, \
    tracing/smpi/group and tracing/uncategorized are)";

/// Why SimGrid's option `name` has no effect here, if it is one of those.
fn no_effect(name: &str) -> Option<&'static str> {
    NO_EFFECT
        .iter()
        .find(|(known, _)| match known.strip_suffix('/') {
            Some(prefix) => name
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/')),
            None => *known == name,
        })
        .map(|&(_, why)| why)
}

/// The options of one part of the program.
pub type Options = &'static [OptionSpec];

/// A bad option name or value.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown option '{name}'; {}valid options are:\n{valid}", did_you_mean(.suggestion))]
    Unknown {
        name: String,
        /// The valid name nearest to `name`, when one is close.
        suggestion: Option<&'static str>,
        valid: String,
    },
    #[error("option '{name}': '{value}' is not {expected}")]
    BadValue {
        name: String,
        value: String,
        expected: &'static str,
    },
    #[error("'{0}' is not of the form name:value")]
    Syntax(String),
}

/// The values in force of the options of a registry.
#[derive(Debug, Clone)]
pub struct Config {
    /// Every option known, by name.
    specs: Vec<&'static OptionSpec>,
    values: BTreeMap<&'static str, String>,
    /// SimGrid's options set that have no effect here, in the order set.
    ignored: Vec<Ignored>,
}

/// A SimGrid option that was set and has no effect here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    pub name: String,
    pub value: String,
    pub why: &'static str,
}

fn did_you_mean(suggestion: &Option<&str>) -> String {
    suggestion.map_or(String::new(), |s| format!("did you mean '{s}'? "))
}

/// The valid option name (or alias) nearest to `name` in edit distance,
/// if it is close enough to be a likely typo: at most one edit per four
/// characters (a swap of two neighbours counts as one). A name without a
/// `/` is also compared with the part of each option after its `/`
/// (`host-speed` for `smpi/host-speed`).
fn nearest_name(specs: &[&'static OptionSpec], name: &str) -> Option<&'static str> {
    let candidates = specs
        .iter()
        .map(|o| o.name)
        .chain(ALIASES.iter().map(|(alias, _)| *alias));
    let distance = |candidate: &str| {
        let full = strsim::damerau_levenshtein(name, candidate);
        match candidate.split_once('/') {
            Some((_, leaf)) if !name.contains('/') => {
                full.min(strsim::damerau_levenshtein(name, leaf))
            }
            _ => full,
        }
    };
    let (best, d) = candidates
        .map(|c| (c, distance(c)))
        .min_by_key(|&(_, d)| d)?;
    (d <= (name.chars().count() / 4).max(1)).then_some(best)
}

pub fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "on" | "true" | "1" => Some(true),
        "no" | "off" | "false" | "0" => Some(false),
        _ => None,
    }
}

impl Config {
    /// The defaults of every option of `registry`.
    pub fn new(registry: &[Options]) -> Self {
        let mut specs: Vec<&'static OptionSpec> = registry.iter().flat_map(|o| o.iter()).collect();
        specs.sort_by_key(|o| o.name);
        let values = specs
            .iter()
            .map(|o| (o.name, o.default.to_string()))
            .collect();
        Self {
            specs,
            values,
            ignored: Vec::new(),
        }
    }

    /// SimGrid's options set so far that have no effect here, each once.
    pub fn ignored(&self) -> &[Ignored] {
        &self.ignored
    }

    /// The option `name` (or an alias of it) names.
    fn spec(&self, name: &str) -> Option<&'static OptionSpec> {
        let name = ALIASES
            .iter()
            .find(|(alias, _)| *alias == name)
            .map_or(name, |(_, real)| real);
        self.specs.iter().copied().find(|o| o.name == name)
    }

    /// Sets `name` (or an alias of it) to `value`, checking the value's
    /// kind; returns the option's name (the current one for an alias).
    /// SimGrid's options that have no effect here are accepted and
    /// remembered for [`Self::ignored`] (their name comes back as given).
    pub fn set<'a>(&mut self, name: &'a str, value: &str) -> Result<&'a str, ConfigError> {
        if let (None, Some(why)) = (self.spec(name), no_effect(name)) {
            self.ignored.retain(|i| i.name != name);
            self.ignored.push(Ignored {
                name: name.to_string(),
                value: value.to_string(),
                why,
            });
            return Ok(name);
        }
        let Some(spec) = self.spec(name) else {
            return Err(ConfigError::Unknown {
                name: name.to_string(),
                suggestion: nearest_name(&self.specs, name),
                valid: self.valid_list(),
            });
        };
        let bad = |expected| ConfigError::BadValue {
            name: name.to_string(),
            value: value.to_string(),
            expected,
        };
        match spec.kind {
            Kind::Bool => {
                parse_bool(value).ok_or_else(|| bad("a boolean (yes/no)"))?;
            }
            Kind::Int => {
                value
                    .parse::<i64>()
                    .map_err(|_| bad("an integer"))
                    .and_then(|v| {
                        if v < 0 {
                            Err(bad("a non-negative integer"))
                        } else {
                            Ok(v)
                        }
                    })?;
            }
            Kind::Float => {
                value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite() && *v >= 0.0)
                    .ok_or_else(|| bad("a non-negative number"))?;
            }
            Kind::Text => {}
        }
        self.values.insert(spec.name, value.to_string());
        Ok(spec.name)
    }

    /// Parses `name:value` (the text after `--cfg=`); returns the option's
    /// name as [`Self::set`] does.
    pub fn set_pair<'a>(&mut self, pair: &'a str) -> Result<&'a str, ConfigError> {
        let (name, value) = pair
            .split_once(':')
            .ok_or_else(|| ConfigError::Syntax(pair.to_string()))?;
        self.set(name.trim(), value.trim())
    }

    fn raw(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(v) => v,
            None => panic!("option '{name}' is in no OPTIONS of this configuration's registry"),
        }
    }

    pub fn text(&self, name: &str) -> &str {
        self.raw(name)
    }

    pub fn bool(&self, name: &str) -> bool {
        parse_bool(self.raw(name)).unwrap_or(false)
    }

    pub fn float(&self, name: &str) -> f64 {
        self.raw(name).parse().unwrap_or(0.0)
    }

    pub fn int(&self, name: &str) -> u64 {
        self.raw(name).parse().unwrap_or(0)
    }

    /// Every option's name and help, one per line.
    fn valid_list(&self) -> String {
        let mut s = String::new();
        for o in &self.specs {
            s.push_str(&format!("  {:<30} {}\n", o.name, o.help));
        }
        s
    }

    /// The `-help` text for options: names, defaults and help lines.
    pub fn help_text(&self) -> String {
        let mut s = String::new();
        for o in &self.specs {
            let default = if o.default.len() > 40 {
                "(SimGrid 3.32's table)"
            } else {
                o.default
            };
            s.push_str(&format!(
                "  --cfg={}:{}\n      {}\n",
                o.name, default, o.help
            ));
        }
        s
    }
}

/// A piecewise-constant factor table, `size:value;size:value;...`.
///
/// A size takes the value of the largest boundary strictly below it; sizes
/// at or below the smallest boundary get 1.0 (SimGrid's semantics).
#[derive(Debug, Clone, PartialEq)]
pub struct FactorTable {
    /// (boundary, value), sorted by boundary.
    entries: Vec<(f64, f64)>,
}

impl FactorTable {
    pub fn parse(name: &str, text: &str) -> Result<Self, ConfigError> {
        let bad = || ConfigError::BadValue {
            name: name.to_string(),
            value: text.to_string(),
            expected: "a factor table `size:factor;size:factor;...`",
        };
        let mut entries = Vec::new();
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (size, value) = item.split_once(':').ok_or_else(bad)?;
            let size: f64 = size.trim().parse().map_err(|_| bad())?;
            let value: f64 = value.trim().parse().map_err(|_| bad())?;
            if !size.is_finite() || size < 0.0 || !value.is_finite() || value <= 0.0 {
                return Err(bad());
            }
            entries.push((size, value));
        }
        entries.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(Self { entries })
    }

    /// The factor for a message of `size` bytes.
    pub fn lookup(&self, size: f64) -> f64 {
        self.entries
            .iter()
            .rev()
            .find(|(boundary, _)| size > *boundary)
            .map_or(1.0, |(_, v)| *v)
    }
}

/// A per-size overhead table, `size:a:b;...`: a message of S bytes costs
/// a + b*S seconds, from the entry with the largest boundary strictly below
/// S, or from the first entry when S is at or below every boundary (as
/// SimGrid evaluates it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverheadTable {
    entries: Vec<(f64, f64, f64)>,
}

impl OverheadTable {
    /// Whether every size costs nothing (no entries: the default).
    pub fn is_free(&self) -> bool {
        self.entries.iter().all(|&(_, a, b)| a == 0.0 && b == 0.0)
    }

    pub fn parse(name: &str, text: &str) -> Result<Self, ConfigError> {
        let bad = || ConfigError::BadValue {
            name: name.to_string(),
            value: text.to_string(),
            expected: "an overhead table `size:a:b;...`",
        };
        let mut entries = Vec::new();
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let parts: Vec<&str> = item.split(':').map(str::trim).collect();
            let [size, a, b] = parts.as_slice() else {
                return Err(bad());
            };
            let nums: Vec<f64> = [size, a, b]
                .iter()
                .map(|s| s.parse::<f64>().map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            if nums.iter().any(|v| !v.is_finite() || *v < 0.0) {
                return Err(bad());
            }
            entries.push((nums[0], nums[1], nums[2]));
        }
        entries.sort_by(|a, b| a.0.total_cmp(&b.0));
        Ok(Self { entries })
    }

    /// The overhead in seconds for `size` bytes (0 when the table is empty).
    pub fn cost(&self, size: f64) -> f64 {
        let entry = self
            .entries
            .iter()
            .rev()
            .find(|(boundary, _, _)| size > *boundary)
            .or(self.entries.first());
        entry.map_or(0.0, |(_, a, b)| a + b * size)
    }
}

impl fmt::Display for FactorTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .entries
            .iter()
            .map(|(s, v)| format!("{s}:{v}"))
            .collect();
        f.write_str(&parts.join(";"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_option_lists_valid_ones() {
        let err = crate::run::config().set("smpi/nonsense", "1").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown option 'smpi/nonsense'"));
        assert!(msg.contains("smpi/simulate-computation"));
    }

    #[test]
    fn unknown_option_suggests_the_nearest_valid_name() {
        let msg = crate::run::config()
            .set("smpi/host-sped", "1Gf")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with(
                "unknown option 'smpi/host-sped'; did you mean 'smpi/host-speed'? valid options \
                 are:\n"
            ),
            "{msg}"
        );
        assert!(msg.contains("smpi/simulate-computation"));
        let specs = crate::run::config().specs;
        let nearest_name = |name| nearest_name(&specs, name);
        assert_eq!(nearest_name("smpi/bcats"), Some("smpi/bcast"));
        assert_eq!(
            nearest_name("smpi/privatisation"),
            Some("smpi/privatization")
        );
        assert_eq!(nearest_name("smpi/bw-factr"), Some("smpi/bw-factor"));
        assert_eq!(nearest_name("host-speed"), Some("smpi/host-speed"));
        assert_eq!(nearest_name("network/TCP_gamma"), Some("network/TCP-gamma"));
        // Far from every name: no guess.
        assert_eq!(nearest_name("smpi/nonsense"), None);
        assert_eq!(nearest_name("xyz"), None);
        let msg = crate::run::config()
            .set("smpi/nonsense", "1")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("unknown option 'smpi/nonsense'; valid options are:\n"),
            "{msg}"
        );
    }

    #[test]
    fn simgrids_options_without_effect_are_accepted_and_remembered() {
        let mut c = crate::run::config();
        assert_eq!(
            c.set("tracing/smpi/internals", "yes").unwrap(),
            "tracing/smpi/internals"
        );
        c.set("smpi/keep-temps", "yes").unwrap();
        c.set_pair("plugin/dvfs/governor:performance").unwrap();
        c.set("smpi/keep-temps", "no").unwrap();
        let ignored: Vec<(&str, &str)> = c
            .ignored()
            .iter()
            .map(|i| (i.name.as_str(), i.value.as_str()))
            .collect();
        assert_eq!(
            ignored,
            [
                ("tracing/smpi/internals", "yes"),
                ("plugin/dvfs/governor", "performance"),
                ("smpi/keep-temps", "no")
            ]
        );
        assert!(c.ignored().iter().all(|i| !i.why.is_empty()));
        // A prefix covers its subtree only, not a longer name.
        assert!(c.set("tracingx", "1").is_err());
        assert!(c.set("cpu", "1").is_err());
        // Every SimGrid 3.32 option is either ours or one of these.
        for name in SIMGRID_OPTIONS {
            assert!(
                c.spec(name).is_some() || no_effect(name).is_some(),
                "SimGrid's option {name} is neither implemented nor listed"
            );
        }
        // None of ours is listed as without effect.
        for spec in &c.specs {
            assert!(no_effect(spec.name).is_none(), "{}", spec.name);
        }
    }

    /// Every option's value, arbitrary or mutated from a valid one, as
    /// smpirun reads it: a typed error or a value, never a panic. Runs for
    /// `SMPI_FUZZ_SECONDS` (CI: a minute), or one round of 256 cases per
    /// option.
    #[test]
    fn timed_cfg_values_give_a_value_or_a_typed_error() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
        let seconds = std::env::var("SMPI_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
        let names: Vec<&'static str> = crate::run::config().specs.iter().map(|o| o.name).collect();
        let value = prop_oneof![
            any::<String>(),
            "[0-9.eE+\\-]{0,12}[a-zA-Z%]{0,6}",
            "([0-9]{0,6}:[0-9.e\\-]{0,6};?){0,4}",
            "[a-z_\\-]{0,12}(:[0-9]{0,4}){0,3}",
        ];
        let mut round: u64 = 0;
        loop {
            let mut seed = [0u8; 32];
            seed[..8].copy_from_slice(&round.to_le_bytes());
            let mut runner = TestRunner::new_with_rng(
                RunnerConfig {
                    cases: 256,
                    failure_persistence: None,
                    ..RunnerConfig::default()
                },
                TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
            );
            let strategy = (0..names.len(), value.clone(), any::<bool>());
            let result = runner.run(&strategy, |(i, value, simulating)| {
                let mut cfg = crate::run::config();
                if cfg.set(names[i], &value).is_err() {
                    return Ok(());
                }
                // Every reader of the options, as smpirun calls them.
                let _ = crate::engine::netmodel::NetModel::from_config(&cfg);
                let _ = crate::mpi::Protocol::from_config(&cfg, simulating);
                let _ = crate::mpi::coll::Algorithms::from_config(&cfg);
                let _ = crate::mapping::Mapping::parse(cfg.text("smpi/map"));
                let _ = crate::memory::Memory::from_config(&cfg, None);
                let _ = crate::leaks::Settings::from_config(&cfg);
                let _ = crate::engine::limit::Limits::from_config(&cfg, None);
                let _ = (cfg.float(names[i]), cfg.int(names[i]), cfg.bool(names[i]));
                Ok(())
            });
            if let Err(e) = result {
                panic!("--cfg values, round {round}: {e}");
            }
            round += 1;
            if std::time::Instant::now() >= deadline {
                break;
            }
        }
    }

    /// SimGrid 3.32's options (`--help` of a SimGrid program, plus the
    /// ones SMPI declares when it starts).
    const SIMGRID_OPTIONS: &[&str] = &[
        "bmf/max-iterations",
        "bmf/precision",
        "cmonkey/host",
        "cmonkey/link",
        "cmonkey/tell",
        "cmonkey/time",
        "contexts/factory",
        "contexts/guard-size",
        "contexts/nthreads",
        "contexts/stack-size",
        "contexts/synchro",
        "cpu/maxmin-selective-update",
        "cpu/model",
        "cpu/optim",
        "cpu/solver",
        "debug/breakpoint",
        "debug/clean-atexit",
        "debug/verbose-exit",
        "disk/model",
        "disk/solver",
        "exception/cutpath",
        "help-nostop",
        "host/model",
        "host/solver",
        "maxmin/concurrency-limit",
        "maxmin/precision",
        "model-check/replay",
        "model-check/timeout",
        "network/TCP-gamma",
        "network/bandwidth-factor",
        "network/crosstraffic",
        "network/latency-factor",
        "network/loopback-bw",
        "network/loopback-lat",
        "network/maxmin-selective-update",
        "network/model",
        "network/optim",
        "network/solver",
        "network/weight-S",
        "ns3/TcpModel",
        "ns3/seed",
        "path",
        "plugin",
        "plugin/dvfs/governor",
        "plugin/dvfs/max-pstate",
        "plugin/dvfs/min-pstate",
        "plugin/dvfs/sampling-rate",
        "smpi/IB-penalty-factors",
        "smpi/async-small-thresh",
        "smpi/auto-shared-malloc-thresh",
        "smpi/bw-factor",
        "smpi/comp-adjustment-file",
        "smpi/cpu-threshold",
        "smpi/display-allocs",
        "smpi/errors-are-fatal",
        "smpi/grow-injected-times",
        "smpi/host-speed",
        "smpi/hostfile",
        "smpi/init",
        "smpi/iprobe",
        "smpi/iprobe-cpu-usage",
        "smpi/lat-factor",
        "smpi/list-leaks",
        "smpi/map",
        "smpi/np",
        "smpi/pedantic",
        "smpi/replay",
        "smpi/send-is-detached-thresh",
        "smpi/shared-malloc",
        "smpi/simulate-computation",
        "smpi/test",
        "smpi/trace-call-location",
        "smpi/trace-call-use-absolute-path",
        "smpi/wtime",
        "surf/precision",
        "tracing",
        "tracing/actor",
        "tracing/basic",
        "tracing/categorized",
        "tracing/comment",
        "tracing/comment-file",
        "tracing/disable-destroy",
        "tracing/disable_link",
        "tracing/disable_power",
        "tracing/filename",
        "tracing/platform",
        "tracing/platform/topology",
        "tracing/precision",
        "tracing/smpi",
        "tracing/smpi/computing",
        "tracing/smpi/display-sizes",
        "tracing/smpi/format",
        "tracing/smpi/format/ti-one-file",
        "tracing/smpi/group",
        "tracing/smpi/internals",
        "tracing/smpi/sleeping",
        "tracing/uncategorized",
        "tracing/vm",
        "smpi/allgather",
        "smpi/allgatherv",
        "smpi/allreduce",
        "smpi/alltoall",
        "smpi/alltoallv",
        "smpi/barrier",
        "smpi/bcast",
        "smpi/coll-selector",
        "smpi/display-timing",
        "smpi/finalization-barrier",
        "smpi/gather",
        "smpi/keep-temps",
        "smpi/ois",
        "smpi/or",
        "smpi/os",
        "smpi/papi-events",
        "smpi/privatization",
        "smpi/privatize-libs",
        "smpi/reduce",
        "smpi/reduce_scatter",
        "smpi/scatter",
        "smpi/shared-malloc-blocksize",
        "smpi/shared-malloc-hugepage",
        "smpi/tmpdir",
        "smpi/buffering",
        "model-check/buffering",
        "storage/max_file_descriptors",
    ];

    #[test]
    fn set_returns_the_current_name() {
        let mut c = crate::run::config();
        assert_eq!(
            c.set_pair("smpi/lat-factor:0:1").unwrap(),
            "network/latency-factor"
        );
        assert_eq!(c.set("smpi/test", "0").unwrap(), "smpi/test");
    }

    #[test]
    fn kinds_are_checked_and_aliases_work() {
        let mut c = crate::run::config();
        assert!(c.set("smpi/simulate-computation", "maybe").is_err());
        assert!(c.set("contexts/stack-size", "-3").is_err());
        c.set_pair("smpi/bw-factor:0:1").unwrap();
        assert_eq!(c.text("network/bandwidth-factor"), "0:1");
        c.set_pair("smpi/simulate-computation:no").unwrap();
        assert!(!c.bool("smpi/simulate-computation"));
        assert!(c.set_pair("novalue").is_err());
    }

    #[test]
    fn factor_lookup_uses_largest_boundary_strictly_below() {
        let t = FactorTable::parse("f", crate::engine::netmodel::DEFAULT_BW_FACTOR).unwrap();
        assert_eq!(t.lookup(0.0), 1.0);
        assert_eq!(t.lookup(1.0), 0.812084);
        assert_eq!(t.lookup(257.0), 0.812084);
        assert_eq!(t.lookup(258.0), 0.338112);
        assert_eq!(t.lookup(65472.0), 0.697866);
        assert_eq!(t.lookup(65473.0), 0.940694);
        assert!(FactorTable::parse("f", "1:x").is_err());
        assert!(FactorTable::parse("f", "1:-2").is_err());
    }

    #[test]
    fn overhead_table() {
        let t = OverheadTable::parse("smpi/os", "10:1e-6:1e-9;1000:2e-6:0").unwrap();
        assert_eq!(t.cost(5.0), 1e-6 + 5e-9);
        assert_eq!(t.cost(10.0), 1e-6 + 1e-8);
        assert_eq!(t.cost(1000.0), 1e-6 + 1e-9 * 1000.0);
        assert_eq!(t.cost(1001.0), 2e-6);
        assert_eq!(OverheadTable::default().cost(5.0), 0.0);
        assert!(OverheadTable::parse("smpi/os", "1:2").is_err());
    }
}
