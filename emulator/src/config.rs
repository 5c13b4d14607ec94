//! The `--cfg=name:value` registry, with SimGrid's option names.
//!
//! Every option has a kind, a default and a one-line help. Values come from
//! the platform file's `<config>` first, then the command line (which wins).
//! An unknown name is an error that lists the valid ones.

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
];

/// The bandwidth factors of SimGrid 3.32's SMPI model.
pub const DEFAULT_BW_FACTOR: &str = "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;0:0.812084";
/// The latency factors of SimGrid 3.32's SMPI model.
pub const DEFAULT_LAT_FACTOR: &str = "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;0:2.01467";

/// Every option smpirun knows.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "contexts/stack-size", kind: Kind::Int, default: "8192", help: "stack size of each rank, in KiB (address space, committed lazily)" },
    OptionSpec { name: "network/bandwidth-factor", kind: Kind::Text, default: DEFAULT_BW_FACTOR, help: "bandwidth factors by message size, `size:factor;...` (alias smpi/bw-factor)" },
    OptionSpec { name: "network/crosstraffic", kind: Kind::Bool, default: "yes", help: "the reverse route carries 5% of each flow (acknowledgements)" },
    OptionSpec { name: "network/latency-factor", kind: Kind::Text, default: DEFAULT_LAT_FACTOR, help: "latency factors by message size, `size:factor;...` (alias smpi/lat-factor)" },
    OptionSpec { name: "network/loopback-bw", kind: Kind::Float, default: "10e9", help: "bandwidth of the same-host loopback link, in B/s" },
    OptionSpec { name: "network/loopback-lat", kind: Kind::Float, default: "0", help: "latency of the same-host loopback link, in s" },
    OptionSpec { name: "network/model", kind: Kind::Text, default: "SMPI", help: "SMPI (max-min sharing with SMPI's factors) or Constant (latency + size / bandwidth of the route, no contention: for teaching and very large runs)" },
    OptionSpec { name: "network/routing", kind: Kind::Text, default: "minimal", help: "routes on dragonfly clusters: minimal (SimGrid's), valiant (through a random third group), ugal (valiant when the minimal route carries more flows in flight)" },
    OptionSpec { name: "network/routing-seed", kind: Kind::Int, default: "0", help: "seed of the random intermediate routers of valiant and ugal routing" },
    OptionSpec { name: "network/TCP-gamma", kind: Kind::Float, default: "4194304", help: "TCP window size: a flow's rate is bounded by TCP-gamma / (2 * route latency)" },
    OptionSpec { name: "network/weight-S", kind: Kind::Float, default: "8775", help: "per-link term of a flow's sharing penalty (weight-S / bandwidth)" },
    OptionSpec { name: "precision/maxmin", kind: Kind::Float, default: "1e-5", help: "precision of the max-min solver's rates (alias maxmin/precision)" },
    OptionSpec { name: "precision/timing", kind: Kind::Float, default: "1e-9", help: "precision of simulated dates, in s" },
    OptionSpec { name: "precision/work-amount", kind: Kind::Float, default: "1e-5", help: "remaining work below which an action is done" },
    OptionSpec { name: "smpi/allgather", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allgather and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/allgatherv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allgatherv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/allreduce", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allreduce and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/alltoall", kind: Kind::Text, default: "default", help: "algorithm of MPI_Alltoall and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/alltoallv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Alltoallv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/async-small-thresh", kind: Kind::Int, default: "0", help: "messages smaller than this start moving before the receive is posted" },
    OptionSpec { name: "smpi/barrier", kind: Kind::Text, default: "default", help: "algorithm of MPI_Barrier and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/bcast", kind: Kind::Text, default: "default", help: "algorithm of MPI_Bcast and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/coll-selector", kind: Kind::Text, default: "default", help: "who picks the algorithm of collectives left at default: default (SimGrid's), ompi (Open MPI's tables) or mpich (MPICH's logic)" },
    OptionSpec { name: "smpi/coll-radix", kind: Kind::Int, default: "4", help: "k of the radix-k collective algorithms (recursive_k allreduce, bruck_k and ring_k alltoall)" },
    OptionSpec { name: "smpi/bench-clock", kind: Kind::Text, default: "cpu", help: "how computation bursts are measured: cpu (the thread's CPU time, as SimGrid; a system call on every MPI call) or wall (the monotonic clock, read without a system call: much cheaper for programs that call MPI or modelled kernels very often, but it also counts time the machine gives to other processes)" },
    OptionSpec { name: "smpi/cpu-threshold", kind: Kind::Float, default: "1e-6", help: "computation bursts shorter than this (in s) are not simulated" },
    OptionSpec { name: "smpi/exscan", kind: Kind::Text, default: "default", help: "algorithm of MPI_Exscan and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/gather", kind: Kind::Text, default: "default", help: "algorithm of MPI_Gather and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/gatherv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Gatherv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/host-speed", kind: Kind::Text, default: "auto", help: "speed of this machine in flop/s, to turn measured CPU time into flops (auto: measured once and cached)" },
    OptionSpec { name: "smpi/iprobe", kind: Kind::Float, default: "1e-4", help: "simulated cost of each MPI_Iprobe, in s" },
    OptionSpec { name: "smpi/map", kind: Kind::Text, default: "hostfile", help: "rank placement: hostfile (rank i on slot i mod slots), round-robin (over hosts), block (consecutive ranks per host), random:SEED (the hostfile placement shuffled); -map prints it" },
    OptionSpec { name: "smpi/ois", kind: Kind::Text, default: "", help: "non-blocking send overhead by size, `size:a:b;...`" },
    OptionSpec { name: "smpi/or", kind: Kind::Text, default: "", help: "receive overhead by size, `size:a:b;...` (a + b*bytes seconds)" },
    OptionSpec { name: "smpi/os", kind: Kind::Text, default: "", help: "send overhead by size, `size:a:b;...` (a + b*bytes seconds)" },
    OptionSpec { name: "smpi/privatization", kind: Kind::Text, default: "auto", help: "give each rank its own globals: swap (one copy, globals swapped at each switch; alias mmap), dlopen (yes: one copy per rank), no, or auto (swap when the program allows it, else dlopen)" },
    OptionSpec { name: "smpi/reduce", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/reduce_scatter", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce_scatter and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/reduce_scatter_block", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce_scatter_block and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scan", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scan and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scatter", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scatter and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scatterv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scatterv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/send-is-detached-thresh", kind: Kind::Int, default: "65536", help: "standard sends smaller than this return at once (buffered)" },
    OptionSpec { name: "smpi/reduce-rate", kind: Kind::Text, default: "auto", help: "bytes per second a rank reduces in collectives and MPI_Reduce_local, charged as computation (auto: 2e9 when smpi/simulate-computation is on, else free; 0: free)" },
    OptionSpec { name: "smpi/blas", kind: Kind::Text, default: "real", help: "real: the program's BLAS runs; model: its BLAS calls (cblas_* and dgemm_-style) do no arithmetic and cost a modelled time instead (see smpi/blas-model-file)" },
    OptionSpec { name: "smpi/blas-model-file", kind: Kind::Text, default: "", help: "kernel models written by smpirun -calibrate-blas; kernels it does not name (or all, when empty) cost their flop count at smpi/host-speed" },
    OptionSpec { name: "smpi/function-models", kind: Kind::Text, default: "", help: "shared objects built with smpicc -shared, comma-separated: each function they export replaces the program's function of that name" },
    OptionSpec { name: "smpi/shared-malloc", kind: Kind::Text, default: "global", help: "how SMPI_SHARED_MALLOC folds memory: global (every allocation maps one small block over and over), local (allocations at one call site share one buffer) or no" },
    OptionSpec { name: "smpi/auto-shared-malloc-thresh", kind: Kind::Int, default: "0", help: "fold every malloc, calloc or realloc of at least this many bytes as SMPI_SHARED_MALLOC does (0: never); only for buffers whose content does not steer the program" },
    OptionSpec { name: "smpi/shared-malloc-hugepage", kind: Kind::Text, default: "", help: "path to a mounted hugetlbfs: the block of global folding then lives in huge pages there (one page-table entry and one fault per huge page of folded memory; the block size and every folded allocation are rounded up to huge pages)" },
    OptionSpec { name: "smpi/shared-malloc-blocksize", kind: Kind::Int, default: "1048576", help: "size of the physical block of global folding, in bytes (rounded up to pages; one mapping per block)" },
    OptionSpec { name: "smpi/simulate-computation", kind: Kind::Bool, default: "yes", help: "measure CPU time between MPI calls and simulate it" },
    OptionSpec { name: "smpi/test", kind: Kind::Float, default: "1e-4", help: "simulated cost of each MPI_Test, in s" },
    OptionSpec { name: "smpi/wtime", kind: Kind::Float, default: "1e-8", help: "simulated cost of each MPI_Wtime, in s" },
];

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

/// The values in force.
#[derive(Debug, Clone)]
pub struct Config {
    values: BTreeMap<&'static str, String>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            values: OPTIONS
                .iter()
                .map(|o| (o.name, o.default.to_string()))
                .collect(),
        }
    }
}

fn did_you_mean(suggestion: &Option<&str>) -> String {
    suggestion.map_or(String::new(), |s| format!("did you mean '{s}'? "))
}

/// The valid option name (or alias) nearest to `name` in edit distance,
/// if it is close enough to be a likely typo: at most one edit per four
/// characters (a swap of two neighbours counts as one). A name without a
/// `/` is also compared with the part of each option after its `/`
/// (`host-speed` for `smpi/host-speed`).
pub fn nearest_name(name: &str) -> Option<&'static str> {
    let candidates = OPTIONS
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

fn spec(name: &str) -> Option<&'static OptionSpec> {
    let name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map_or(name, |(_, real)| real);
    OPTIONS.iter().find(|o| o.name == name)
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "on" | "true" | "1" => Some(true),
        "no" | "off" | "false" | "0" => Some(false),
        _ => None,
    }
}

impl Config {
    /// Sets `name` (or an alias of it) to `value`, checking the value's
    /// kind; returns the option's name (the current one for an alias).
    pub fn set(&mut self, name: &str, value: &str) -> Result<&'static str, ConfigError> {
        let Some(spec) = spec(name) else {
            return Err(ConfigError::Unknown {
                name: name.to_string(),
                suggestion: nearest_name(name),
                valid: valid_list(),
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
    pub fn set_pair(&mut self, pair: &str) -> Result<&'static str, ConfigError> {
        let (name, value) = pair
            .split_once(':')
            .ok_or_else(|| ConfigError::Syntax(pair.to_string()))?;
        self.set(name.trim(), value.trim())
    }

    fn raw(&self, name: &str) -> &str {
        match self.values.get(name) {
            Some(v) => v,
            None => panic!("option '{name}' is not registered in config::OPTIONS"),
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
}

fn valid_list() -> String {
    let mut s = String::new();
    for o in OPTIONS {
        s.push_str(&format!("  {:<30} {}\n", o.name, o.help));
    }
    s
}

/// The `-help` text for options: names, defaults and help lines.
pub fn help_text() -> String {
    let mut s = String::new();
    for o in OPTIONS {
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
        let err = Config::default().set("smpi/nonsense", "1").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("unknown option 'smpi/nonsense'"));
        assert!(msg.contains("smpi/simulate-computation"));
    }

    #[test]
    fn unknown_option_suggests_the_nearest_valid_name() {
        let msg = Config::default()
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
        let msg = Config::default()
            .set("smpi/nonsense", "1")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("unknown option 'smpi/nonsense'; valid options are:\n"),
            "{msg}"
        );
    }

    #[test]
    fn set_returns_the_current_name() {
        let mut c = Config::default();
        assert_eq!(
            c.set_pair("smpi/lat-factor:0:1").unwrap(),
            "network/latency-factor"
        );
        assert_eq!(c.set("smpi/test", "0").unwrap(), "smpi/test");
    }

    #[test]
    fn kinds_are_checked_and_aliases_work() {
        let mut c = Config::default();
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
        let t = FactorTable::parse("f", DEFAULT_BW_FACTOR).unwrap();
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
