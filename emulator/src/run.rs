//! `smpirun`: parses SimGrid-style options ([`cli`]), sets up logging,
//! builds the platform and the rank mapping, loads the application once
//! per rank, runs the maestro, and reports simulated and wall time.

use std::ffi::{c_char, CString, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use platforms::{HostId, Platform};
use privatize::{AppLoader, LoadedApp, Privatization};

use crate::abi::ABI_TABLE;
use crate::abi_symbols::abi_hash;
use crate::actors::Body;
use crate::config::{self, Config, Kind, OptionSpec};
use crate::engine::context::{self, CoStack, RankStack};
use crate::engine::limit::{self, Limits, Watchdog};
use crate::engine::netmodel::{NetModel, RoutingChoice};
use crate::engine::shared_stack::SharedStack;
use crate::engine::Core;
use crate::leaks;
use crate::log::{self, Priority, SimGrid, Source};
use crate::mapping::Mapping;
use crate::memory::Memory;
use crate::mpi::coll::Algorithms;
use crate::mpi::verify::wildcard;
use crate::mpi::{Mpi, Protocol};
use crate::sim::{self, Bench, Outcome, RankFactory, Sim};

/// The options of the run itself: placement, privatization, stacks,
/// computation, kernel models, the loopback link.
#[rustfmt::skip]
const OPTIONS: config::Options = &[
    OptionSpec { name: "contexts/stack-size", kind: Kind::Int, default: "8192", help: "stack size of each rank, in KiB (address space, committed lazily)" },
    OptionSpec { name: "contexts/stack-mode", kind: Kind::Text, default: "auto", help: "guard (each rank has its own stack above a guard zone: two memory mappings per rank), copy (the ranks take turns on one stack, each rank's frames copied out while another runs: no mapping per rank, and only the bytes the frames use) or auto (guard while the mappings fit vm.max_map_count, copy beyond)" },
    OptionSpec { name: "network/loopback-bw", kind: Kind::Float, default: "10e9", help: "bandwidth of the same-host loopback link, in B/s" },
    OptionSpec { name: "network/loopback-lat", kind: Kind::Float, default: "0", help: "latency of the same-host loopback link, in s" },
    OptionSpec { name: "smpi/omp-model", kind: Kind::Text, default: "cpu", help: "what an OpenMP parallel region of a rank costs (its threads are real, not simulated): cpu (the CPU time of all its threads over the simulated host's cores, at least that of the rank's own thread: a 2-core laptop predicts a 64-core node) or wall (what the bench clock measures on the rank's thread, which depends on this machine's cores)" },
    OptionSpec { name: "smpi/bench-clock", kind: Kind::Text, default: "cpu", help: "how the computation bursts between MPI calls are measured: cpu (the thread's CPU time, as SimGrid: time the machine gives to other processes is not counted; a burst is timed on the time-stamp counter (or the vDSO's monotonic clock) and the CPU clock is read, by a system call, only at the ends of bursts of smpi/cpu-threshold or more, which SimGrid's 'cpu' reads at every call; with two CPU hogs beside a run on 2 cores, bursts of 3 to 300 us are predicted within 4% of the unloaded figures) or wall (the time-stamp counter or monotonic clock only: never a system call, but it also counts time the machine gives to other processes)" },
    OptionSpec { name: "smpi/cpu-threshold", kind: Kind::Float, default: "1e-6", help: "computation bursts shorter than this (in s) are not simulated" },
    OptionSpec { name: "smpi/host-speed", kind: Kind::Text, default: "auto", help: "speed of this machine in flop/s, to turn measured CPU time into flops (auto: measured once and cached)" },
    OptionSpec { name: "contexts/factory", kind: Kind::Text, default: "raw", help: "SimGrid's way of switching between ranks: raw, boost, ucontext or thread; each gives the same simulation, and here every one is smpirun's coroutines" },
    OptionSpec { name: "plugin", kind: Kind::Text, default: "", help: "a SimGrid plugin to activate (may be given several times): host_energy counts the energy of hosts (their wattage_per_state properties) and reports it at the end; SimGrid's others are accepted with a warning" },
    OptionSpec { name: "path", kind: Kind::Text, default: "", help: "a directory where a -platform or -hostfile file not found as given is looked for (SimGrid's; may be given several times)" },
    OptionSpec { name: "smpi/display-timing", kind: Kind::Bool, default: "no", help: "print SimGrid's summary when the run ends (simulated time, wall time, time the application computed), then smpirun's one-line summary" },
    OptionSpec { name: "smpi/summary-file", kind: Kind::Text, default: "", help: "write what the run ended with to this file as JSON: outcome, exit code, simulated time, wall time, ranks, peak memory (for tools that run many simulations)" },
    OptionSpec { name: "smpi/display-summary", kind: Kind::Bool, default: "no", help: "print smpirun's one-line summary when the run ends (simulated time, wall time, ranks; printed anyway when stderr is a terminal, unless -quiet)" },
    OptionSpec { name: "smpi/map", kind: Kind::Text, default: "hostfile", help: "rank placement: hostfile (rank i on slot i mod slots), round-robin (over hosts), block (consecutive ranks per host), random:SEED (the hostfile placement shuffled); yes/1 (SimGrid's meaning) prints the hostfile placement as -map does" },
    OptionSpec { name: "smpi/privatization", kind: Kind::Text, default: "auto", help: "give each rank its own globals: swap (one copy, globals swapped at each switch; alias mmap), dlopen (yes: one copy per rank), no, or auto (swap when the program allows it, else dlopen)" },
    OptionSpec { name: "smpi/blas", kind: Kind::Text, default: "real", help: "real: the program's BLAS runs; model: its BLAS calls (cblas_* and dgemm_-style) do no arithmetic and cost a modelled time instead (see smpi/blas-model-file)" },
    OptionSpec { name: "smpi/blas-model-file", kind: Kind::Text, default: "", help: "kernel models written by smpirun -calibrate-blas; kernels it does not name (or all, when empty) cost their flop count" },
    OptionSpec { name: "smpi/blas-model-scale", kind: Kind::Text, default: "peak", help: "peak: a kernel runs on the simulated host at the efficiency it has on this machine (its rate over the model file's peak), never above the host's speed, and smpi/host-speed defaults to that peak; host-speed: its seconds here are charged as measured code is, through smpi/host-speed (what a plain run predicts)" },
    OptionSpec { name: "smpi/function-models", kind: Kind::Text, default: "", help: "shared objects built with smpicc -shared, comma-separated: each function they export replaces the program's function of that name" },
    OptionSpec { name: "smpi/simulate-computation", kind: Kind::Bool, default: "yes", help: "measure CPU time between MPI calls and simulate it" },
];

/// Every option smpirun knows, by the code that reads it.
pub const REGISTRY: &[config::Options] = &[
    OPTIONS,
    crate::engine::netmodel::OPTIONS,
    crate::engine::limit::OPTIONS,
    crate::engine::netstats::OPTIONS,
    crate::mpi::protocol::OPTIONS,
    crate::mpi::coll::OPTIONS,
    crate::mpi::file::OPTIONS,
    crate::mpi::verify::OPTIONS,
    crate::mpi::win::OPTIONS,
    crate::mpi::progression::OPTIONS,
    crate::memory::OPTIONS,
    crate::leaks::OPTIONS,
    crate::progress::OPTIONS,
    crate::trace::OPTIONS,
    crate::trace::profile::OPTIONS,
];

/// The defaults of every option.
pub fn config() -> Config {
    Config::new(REGISTRY)
}

mod alternatives;
mod cli;
mod summary;
pub use cli::{parse as parse_args, Options};

/// Loads application copies and makes rank coroutines on demand.
struct Factory {
    loader: AppLoader,
    program: PathBuf,
    args: Vec<OsString>,
    stack_bytes: usize,
    replacements: Replacements,
    /// The argument vectors of the ranks whose main returned, kept to
    /// the end of the run: a runtime shared by the ranks may hold on to
    /// the last one it was given (libgfortran keeps main's argv for
    /// GETARG), and other ranks still read it.
    spent_argvs: Rc<std::cell::RefCell<Vec<RankArgv>>>,
}

/// A rank's argument vector: the strings and the NULL-terminated array
/// of pointers to them that its main gets.
struct RankArgv {
    _strings: Vec<CString>,
    _pointers: Vec<*mut c_char>,
}

/// The functions replaced in every copy of the program: the BLAS kernels
/// under `smpi/blas:model` and the user's function models.
#[derive(Default)]
struct Replacements {
    /// Name, replacement's address, and whether the program must have it
    /// (a function model it lacks is a mistake worth a warning).
    functions: Vec<(String, usize, bool)>,
    /// Keeps the function models loaded.
    _libraries: Vec<privatize::FunctionModels>,
    /// The copies already patched (shared copies come back for every rank).
    done: std::collections::HashSet<*const LoadedApp>,
}

impl Replacements {
    fn apply(&mut self, app: &Rc<LoadedApp>) -> std::result::Result<(), String> {
        if self.functions.is_empty() || !self.done.insert(Rc::as_ptr(app)) {
            return Ok(());
        }
        let first = self.done.len() == 1;
        for (name, target, required) in &self.functions {
            match app.function(name) {
                Some(site) => privatize::replace_function(&site, name, *target)
                    .map_err(|e| format!("smpirun: {e}"))?,
                None if *required && first => warn_at_start(
                    SimGrid::SmpiConfig,
                    &format!(
                        "the function models define {name}, which the program does not have; \
                         it is ignored"
                    ),
                ),
                None => {}
            }
        }
        Ok(())
    }
}

extern "C" {
    static mut environ: *mut *mut c_char;
}

/// The process's memory mappings and the kernel's limit on them
/// (`vm.max_map_count`), when Linux says.
struct Mappings {
    mapped: Option<u64>,
    limit: Option<u64>,
}

impl Mappings {
    fn now() -> Self {
        Self {
            mapped: std::fs::read_to_string("/proc/self/maps")
                .ok()
                .map(|t| t.lines().count() as u64),
            limit: std::fs::read_to_string("/proc/sys/vm/max_map_count")
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok()),
        }
    }

    /// Whether `ranks` things of `per_rank` mappings each fit (yes when
    /// Linux does not say).
    fn fit(&self, ranks: usize, per_rank: u64) -> bool {
        per_rank_mappings_fit(
            ranks,
            per_rank,
            self.mapped.unwrap_or(0),
            self.limit.unwrap_or(u64::MAX),
        )
    }
}

/// A rank stack of `bytes` for `who` ("rank 3"), when `made` stacks were
/// made before it; its error says what to change.
pub(crate) fn rank_stack(
    bytes: usize,
    who: &str,
    made: usize,
) -> std::result::Result<RankStack, String> {
    RankStack::new(bytes).map_err(|e| {
        // Each stack is two mappings (guard zone and stack): running out
        // of mappings is the usual cause at scale, not memory; folded
        // SMPI_SHARED_MALLOC buffers take one mapping per block.
        let Mappings { mapped, limit } = Mappings::now();
        let mapped = mapped.unwrap_or(2 * made as u64);
        let stacks = 2 * made as u64;
        let maps = match limit {
            Some(l) if mapped + 1024 >= l => {
                let others = if mapped > stacks + 4096 {
                    format!(
                        "; the other {} are mostly folded SMPI_SHARED_MALLOC buffers, one \
                         mapping per block: a larger --cfg=smpi/shared-malloc-blocksize \
                         (at least the largest buffer) needs one per buffer",
                        mapped - stacks
                    )
                } else {
                    String::new()
                };
                format!(
                    "; the process has {mapped} memory mappings and vm.max_map_count is {l} \
                     ({stacks} for the {made} stacks made so far{others}): let the ranks \
                     share one stack (--cfg=contexts/stack-mode:copy) or raise the limit, e.g. \
                     `sysctl -w vm.max_map_count={}`",
                    (4 * sim::with(|s| s.core.actors().len()) as u64)
                        .max(1 << 20)
                        .max(2 * mapped)
                )
            }
            _ => String::new(),
        };
        format!(
            "smpirun: cannot allocate the {} KiB stack of {who}: {e}{maps} (or lower \
             --cfg=contexts/stack-size, or run fewer ranks)",
            bytes / 1024
        )
    })
}

/// The stack of rank `rank`'s main actor: a turn on the shared stack when
/// the ranks share one, its own otherwise.
pub(crate) fn main_stack(bytes: usize, rank: usize) -> std::result::Result<CoStack, String> {
    if let Some(turn) = sim::with(|s| s.mem.shared_stack.as_ref().map(|st| st.claim(rank))) {
        return Ok(turn);
    }
    rank_stack(bytes, &format!("rank {rank}"), rank).map(CoStack::Own)
}

/// The coroutine of an actor that rank `rank` starts (a thread, an
/// actor of SimGrid's API), on a stack of `bytes`.
pub(crate) fn spawn_actor(
    bytes: usize,
    rank: usize,
    body: Body,
) -> std::result::Result<sim::Coroutine, String> {
    let made = sim::with(|s| s.core.actors().len());
    let stack = CoStack::Own(rank_stack(
        bytes,
        &format!("an actor of rank {rank}"),
        made,
    )?);
    let guard = stack.guard();
    Ok((context::spawn(stack, body), guard))
}

impl RankFactory for Factory {
    fn create(
        &mut self,
        rank: usize,
    ) -> std::result::Result<(context::RankCoroutine, (usize, usize)), String> {
        let app: Rc<LoadedApp> = self
            .loader
            .load(rank)
            .map_err(|e| format!("smpirun: {e}"))?;
        self.replacements.apply(&app)?;
        sim::with(|s| s.mem.set_thread_locals(rank, app.thread_locals()));
        let stack = main_stack(self.stack_bytes, rank)?;
        let guard = stack.guard();
        let mut owned: Vec<CString> = Vec::with_capacity(self.args.len() + 1);
        let name = CString::new(self.program.as_os_str().as_bytes())
            .map_err(|_| "program path contains a NUL byte".to_string())?;
        owned.push(name);
        for a in &self.args {
            owned.push(
                CString::new(a.as_bytes())
                    .map_err(|_| "an argument contains a NUL byte".to_string())?,
            );
        }
        let spent = Rc::clone(&self.spent_argvs);
        let co = context::spawn(stack, move || {
            // The program may modify argv in place: each rank owns its copy.
            let mut argv: Vec<*mut c_char> = Vec::with_capacity(owned.len() + 1);
            argv.extend(owned.iter().map(|c| c.as_ptr() as *mut c_char));
            argv.push(std::ptr::null_mut());
            let argc = owned.len() as i32;
            let main = app.main();
            crate::abi::bench_begin();
            // SAFETY: `main` is the entry point of an smpicc-built program,
            // called with a NULL-terminated argv that outlives the call and
            // the process environment, as the C runtime would.
            let code = unsafe { main(argc, argv.as_mut_ptr(), environ) };
            crate::abi::spend_pending_flops();
            spent.borrow_mut().push(RankArgv {
                _strings: owned,
                _pointers: argv,
            });
            drop(app);
            code
        });
        Ok((co, guard))
    }

    fn spawn(&mut self, rank: usize, body: Body) -> std::result::Result<sim::Coroutine, String> {
        spawn_actor(self.stack_bytes, rank, body)
    }
}

/// How the ranks' main actors get their stacks (`contexts/stack-mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StackMode {
    /// A mapping per rank, above a guard zone of its own.
    Guard,
    /// One stack for all, each rank's frames copied out while another runs.
    Copy,
}

/// Mappings kept free for the rest of the run (folded buffers, threads'
/// stacks, the allocator's arenas) when smpirun checks that something made
/// per rank fits `vm.max_map_count`.
const MAPPINGS_TO_SPARE: u64 = 8192;

/// The memory mappings of a guard stack: the stack and its guard zone.
const MAPPINGS_PER_GUARD_STACK: u64 = 2;

/// Whether `ranks` things of `per_rank` mappings each fit under the
/// mappings `limit` when the process has `mapped` already, with room for
/// the rest of the run.
fn per_rank_mappings_fit(ranks: usize, per_rank: u64, mapped: u64, limit: u64) -> bool {
    (ranks as u64)
        .saturating_mul(per_rank)
        .saturating_add(mapped)
        .saturating_add(MAPPINGS_TO_SPARE)
        <= limit
}

/// Resolves `contexts/stack-mode` for `ranks` ranks: `auto` takes guard
/// stacks while their two mappings per rank fit `vm.max_map_count`, and
/// says so when it takes copied stacks instead.
fn stack_mode(cfg: &Config, ranks: usize) -> Result<StackMode> {
    match cfg.text("contexts/stack-mode") {
        "guard" => Ok(StackMode::Guard),
        "copy" => Ok(StackMode::Copy),
        "auto" => {
            let mappings = Mappings::now();
            if mappings.fit(ranks, MAPPINGS_PER_GUARD_STACK) {
                return Ok(StackMode::Guard);
            }
            let need = ranks as u64 * MAPPINGS_PER_GUARD_STACK;
            let limit = mappings.limit.unwrap_or(u64::MAX);
            log::simgrid(
                SimGrid::SmpiConfig,
                Priority::Info,
                Source::Maestro,
                0.0,
                &format!(
                    "contexts/stack-mode:auto: {ranks} ranks on stacks of their own would take \
                     {need} memory mappings and vm.max_map_count is {limit}: the ranks take \
                     turns on one stack instead, their frames copied at each switch \
                     (contexts/stack-mode:copy)"
                ),
            );
            Ok(StackMode::Copy)
        }
        other => bail!("option contexts/stack-mode: '{other}' is not one of auto, guard, copy"),
    }
}

/// Resolves `smpi/host-speed` (auto = measured and cached).
fn host_speed(cfg: &Config) -> Result<f64> {
    let text = cfg.text("smpi/host-speed");
    if text == "auto" {
        let (speed, fresh) = crate::hostspeed::cached();
        let how = if fresh {
            "just measured, and cached for next runs"
        } else {
            "measured by an earlier run"
        };
        log::simgrid(
            SimGrid::SmpiConfig,
            Priority::Verbose,
            Source::Maestro,
            0.0,
            &format!(
                "smpi/host-speed: this machine runs {} ({how})",
                platforms::units::format_speed(speed)
            ),
        );
        Ok(speed)
    } else {
        match platforms::units::parse_speed(text) {
            Ok(speed) if speed > 0.0 => Ok(speed),
            Ok(_) => bail!("option smpi/host-speed: '{text}' is not a positive speed, such as 1Gf"),
            Err(e) => bail!("option smpi/host-speed: {e}"),
        }
    }
}

/// `-print-platform [A B]`: a summary of the platform and, given two host
/// names, the route between them link by link.
fn print_platform(opts: &Options) -> Result<i32> {
    use platforms::units::{format_bandwidth, format_speed, format_time};
    let platform = match &opts.platform {
        Some(p) => load_platform(p)?,
        None => Platform::default_cluster(opts.np.unwrap_or(4), crate::hostspeed::cached().0),
    };
    let mut out = format!("{}\n", platform.describe());
    for w in platform.warnings() {
        out.push_str(&format!("warning: {w}\n"));
    }
    let hosts = platform.hosts();
    if let (Some(first), Some(last)) = (hosts.first(), hosts.last()) {
        let (lo, hi) = hosts.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), h| {
            (lo.min(h.speed), hi.max(h.speed))
        });
        let cores: u64 = hosts.iter().map(|h| u64::from(h.cores)).sum();
        let speed = if lo == hi {
            format_speed(lo)
        } else {
            format!("{} to {}", format_speed(lo), format_speed(hi))
        };
        out.push_str(&format!(
            "hosts: {} ({} .. {}), {speed} per core, {cores} cores in all\n",
            hosts.len(),
            first.name,
            last.name
        ));
    }
    // Links by (bandwidth, latency), largest group first.
    let mut kinds: Vec<((u64, u64), usize)> = Vec::new();
    for l in platform.links().iter().skip(1) {
        let key = (l.bandwidth.to_bits(), l.latency.to_bits());
        match kinds.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => kinds.push((key, 1)),
        }
    }
    kinds.sort_by_key(|k| std::cmp::Reverse(k.1));
    let kinds: Vec<String> = kinds
        .iter()
        .map(|((bw, lat), n)| {
            format!(
                "{n} of {} and {}",
                format_bandwidth(f64::from_bits(*bw)),
                format_time(f64::from_bits(*lat))
            )
        })
        .collect();
    out.push_str(&format!(
        "links: {} besides the global loopback: {}\n",
        platform.links().len() - 1,
        kinds.join(", ")
    ));
    match platform.bisection_hint() {
        Some(b) => out.push_str(&format!("bisection: {b}\n")),
        None => out.push_str("bisection: not estimated for zones with explicit routes\n"),
    }
    let names: Vec<String> = opts
        .program
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .chain(opts.args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect();
    match &names[..] {
        [] => {}
        [a, b] => {
            let find = |name: &str| {
                platform.host_by_name(name).ok_or_else(|| {
                    anyhow!(
                        "-print-platform: no host '{name}' in the platform (its hosts run from '{}' to '{}')",
                        hosts.first().map_or("", |h| h.name.as_str()),
                        hosts.last().map_or("", |h| h.name.as_str())
                    )
                })
            };
            let (src, dst) = (find(a)?, find(b)?);
            let mut route = Vec::new();
            platform.route(src, dst, &mut route)?;
            let latency: f64 = route.iter().map(|u| platform.link(u.link).latency).sum();
            let bottleneck = route
                .iter()
                .map(|u| platform.link(u.link).bandwidth)
                .fold(f64::INFINITY, f64::min);
            out.push_str(&format!(
                "route {a} -> {b}: {} links, latency {}, narrowest {}\n",
                route.len(),
                format_time(latency),
                if route.is_empty() {
                    "none".to_string()
                } else {
                    format_bandwidth(bottleneck)
                }
            ));
            for u in &route {
                let l = platform.link(u.link);
                out.push_str(&format!(
                    "  {}  {} {} {}\n",
                    platform.link_use_name(*u),
                    format_bandwidth(l.bandwidth),
                    format_time(l.latency),
                    l.sharing.simgrid_name()
                ));
            }
        }
        _ => bail!(
            "-print-platform takes no argument or two host names, got {}",
            names.len()
        ),
    }
    print!("{out}");
    Ok(0)
}

/// The model file of `smpi/blas-model-file`, if one is given.
fn model_file_from(cfg: &Config) -> Result<Option<crate::kernels::ModelFile>> {
    let path = cfg.text("smpi/blas-model-file");
    if path.is_empty() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("option smpi/blas-model-file: cannot read '{path}'"))?;
    crate::kernels::ModelFile::parse(&text)
        .map(Some)
        .with_context(|| model_file_context(cfg))
}

/// What an error of the model file is about: the option and the file
/// (reading it, or scaling its models, which needs its peak).
fn model_file_context(cfg: &Config) -> String {
    format!(
        "option smpi/blas-model-file: '{}'",
        cfg.text("smpi/blas-model-file")
    )
}

/// `-help-coll`: every collective with its algorithms, as
/// `--cfg=smpi/<collective>:<algorithm>` takes them.
fn help_coll() -> String {
    let mut out = String::from(
        "Collective algorithms, chosen with --cfg=smpi/<collective>:<algorithm>.\n\
         Collectives left at default follow --cfg=smpi/coll-selector: default\n\
         (SimGrid 3.32's default selector), ompi (Open MPI's decision tables, for\n\
         allreduce, alltoall, alltoallv, barrier, bcast, reduce, reduce_scatter,\n\
         allgather, allgatherv, gather and scatter) or mpich\n\
         (MPICH's logic, for allreduce, alltoall, allgather, allgatherv, barrier,\n\
         bcast, gather, reduce, reduce_scatter and scatter); a selector may\n\
         also be named for one collective, as in SimGrid (--cfg=smpi/bcast:ompi).\n\
         For allreduce, SimGrid's mvapich2, impi and automatic selectors are\n\
         algorithms (listed below); SimGrid's other names (those selectors for\n\
         the other collectives, the algorithms not listed below) are accepted\n\
         with a warning, and SimGrid's default algorithm runs. The radix-k\n\
         algorithms take their k from --cfg=smpi/coll-radix (default 4).\n",
    );
    for c in collectives::Collective::ALL {
        out.push_str(&format!("\nsmpi/{}\n", c.name()));
        for a in c.algorithms() {
            out.push_str(&format!("  {:<22} {}\n", a.name, a.description));
        }
    }
    out
}

/// Loads `-platform`'s argument: a SimGrid XML file, or a compact
/// description (`fat-tree:2;16,32;1,16;1,1:bw=10Gbps`) when no file has
/// that name.
fn load_platform(arg: &std::path::Path) -> Result<Platform> {
    let text = arg.to_string_lossy();
    if !arg.exists() && platforms::is_compact(&text) {
        return Ok(Platform::from_compact(&text)?);
    }
    Platform::from_xml_file(arg).map_err(|e| match e {
        platforms::PlatformError::Io { .. } => anyhow!(
            "{e}\n(-platform takes a SimGrid XML file or a compact description such as \
             flat:64:bw=10Gbps, torus:4,4,4, 'fat-tree:2;8,8;1,2;1,1' or 'dragonfly:2,1;2,1;4,1;4')"
        ),
        e => e.into(),
    })
}

/// The slots ranks are placed on: hostfile lines in order (`host:N` gives
/// N slots), else each platform host once.
fn slots(platform: &Platform, hostfile: Option<&PathBuf>) -> Result<Vec<HostId>> {
    let slots: Vec<HostId> = match hostfile {
        Some(path) => {
            let entries = read_hostfile(path)?;
            let mut slots = Vec::new();
            for e in entries {
                let id = platform.host_by_name(&e.name).ok_or_else(|| {
                    anyhow!(
                        "hostfile {}: host '{}' is not in the platform (it has {} hosts, the first is '{}')",
                        path.display(),
                        e.name,
                        platform.hosts().len(),
                        platform.hosts().first().map_or("", |h| h.name.as_str())
                    )
                })?;
                slots.extend(std::iter::repeat_n(id, e.slots.max(1) as usize));
            }
            slots
        }
        None => (0..platform.hosts().len())
            .map(|i| HostId(i as u32))
            .collect(),
    };
    if slots.is_empty() {
        bail!("no host to run on: the hostfile or platform is empty");
    }
    Ok(slots)
}

fn count_hostfile_slots(path: &Path) -> Result<usize> {
    let entries = read_hostfile(path)?;
    Ok(entries.iter().map(|e| e.slots.max(1) as usize).sum())
}

/// A file named on the command line that does not exist: smpirun stops as
/// SimGrid's does, with its words (`[smpirun] ** error: ...`).
#[derive(Debug, thiserror::Error)]
#[error("the file '{0}' does not exist")]
pub struct MissingFile(pub String);

/// A hostfile without a host: SimGrid's assertion fails, which ends its
/// smpirun with code 134; ours says the same and ends the same way.
#[derive(Debug, thiserror::Error)]
#[error("smpirun: the hostfile '{0}' is empty")]
pub struct EmptyHostfile(pub String);

/// The exit code of an empty hostfile, SimGrid's (an aborted assertion).
pub const EMPTY_HOSTFILE_EXIT: i32 = 134;

/// The entries of the hostfile `path`.
fn read_hostfile(path: &Path) -> Result<Vec<platforms::HostfileEntry>> {
    if !path.exists() {
        return Err(MissingFile(path.display().to_string()).into());
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read hostfile {}", path.display()))?;
    match platforms::parse_hostfile(&text, &path.display().to_string()) {
        Err(platforms::PlatformError::EmptyHostfile { .. }) => {
            Err(EmptyHostfile(path.display().to_string()).into())
        }
        other => Ok(other?),
    }
}

/// The date of log lines: the simulated time the engine last published
/// (0 before the simulation starts).
fn log_clock() -> f64 {
    context::published_time()
}

/// `-help`: clap's help, then every `--cfg` option and this machine's speed.
fn print_help() {
    print!(
        "{}\nOptions (--cfg=name:value):\n{}",
        cli::help(),
        config().help_text()
    );
    let (speed, _) = crate::hostspeed::cached();
    println!(
        "\nsmpi/host-speed (auto) on this machine: {} (measured once, cached)",
        platforms::units::format_speed(speed)
    );
}

/// SimGrid's host energy report at the end of a run, when energy is
/// counted: the total, then each host (in name order, as SimGrid's hosts
/// are destroyed).
fn report_energy(core: &mut crate::engine::Core, end: f64) {
    let Some(mut hosts) = core.energy_report(end) else {
        return;
    };
    let total: f64 = hosts.iter().map(|h| h.joules).sum();
    let used: f64 = hosts.iter().filter(|h| h.used).map(|h| h.joules).sum();
    let line = |message: &str| {
        log::simgrid(
            SimGrid::HostEnergy,
            Priority::Info,
            Source::Maestro,
            end,
            message,
        );
    };
    line(&format!(
        "Total energy consumption: {total:.6} Joules (used hosts: {used:.6} Joules; unused/idle \
         hosts: {:.6})",
        total - used
    ));
    hosts.sort_by(|a, b| a.host.cmp(&b.host));
    for h in hosts {
        line(&format!(
            "Energy consumption of host {}: {:.6} Joules",
            h.host, h.joules
        ));
    }
}

/// SimGrid's plugins that `--cfg=plugin:NAME` may name (each of the
/// options gives one; several may be given).
const PLUGINS: &[&str] = &[
    "host_energy",
    "link_energy",
    "link_energy_wifi",
    "host_dvfs",
    "host_load",
    "link_load",
    "file_system",
    "producer_consumer",
    "task",
];

/// The values of every `--cfg=NAME:VALUE` setting of `name`, in order:
/// for SimGrid's options that may be given several times (`path`,
/// `plugin`), of which the configuration keeps only the last.
fn repeated_cfg<'a>(opts: &'a Options, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    opts.cfg
        .iter()
        .flat_map(|c| c.split_whitespace())
        .filter_map(move |pair| pair.strip_prefix(name)?.strip_prefix(':'))
}

/// The plugins the `--cfg=plugin:NAME` options name, in order (the
/// option may be given several times: each adds one).
fn plugins(opts: &Options) -> Result<Vec<String>> {
    let names: Vec<String> = repeated_cfg(opts, "plugin")
        .map(|name| name.trim().to_string())
        .collect();
    for name in &names {
        if !PLUGINS.contains(&name.as_str()) {
            bail!(
                "option plugin: '{name}' is not one of SimGrid's plugins ({})",
                PLUGINS.join(", ")
            );
        }
    }
    Ok(names)
}

/// Logs an option's value as it takes effect (SimGrid's wording).
fn log_option_set(name: &str, value: &str, origin: &str) {
    tracing::info!(
        target: log::CONFIG,
        "Configuration change: Set '{name}' to '{value}' ({origin})"
    );
}

/// Prints a warning in SimGrid's log layout, dated at the start of the
/// simulation (smpirun's warnings before the run).
fn warn_at_start(category: SimGrid, message: &str) {
    log::simgrid(category, Priority::Warning, Source::Maestro, 0.0, message);
}

/// Looks for a relative `-platform` or `-hostfile` file that does not
/// exist as given in the directories of SimGrid's `--cfg=path:DIR`
/// options, in order (the platform is read before the options are
/// applied, so they are read here from the command line).
fn locate_files(opts: &mut Options) {
    let dirs: Vec<PathBuf> = repeated_cfg(opts, "path").map(PathBuf::from).collect();
    let locate = |given: &PathBuf| -> PathBuf {
        if given.exists() || given.is_absolute() || platforms::is_compact(&given.to_string_lossy())
        {
            return given.clone();
        }
        dirs.iter()
            .map(|d| d.join(given))
            .find(|p| p.exists())
            .unwrap_or_else(|| given.clone())
    };
    opts.platform = opts.platform.as_ref().map(locate);
    opts.hostfile = opts.hostfile.as_ref().map(locate);
}

/// Writes the network statistics: the links into `file`, the slowdown
/// histogram beside it.
fn write_network_stats(file: &Path, core: &Core, end: f64) -> Result<()> {
    use crate::engine::netstats;
    let Some((rows, stats)) = core.network_stats(end) else {
        return Ok(());
    };
    let write = |path: &Path, what: &dyn Fn(&mut Vec<u8>) -> std::io::Result<()>| {
        let mut text = Vec::new();
        what(&mut text)
            .and_then(|()| std::fs::write(path, &text))
            .with_context(|| format!("cannot write the network statistics {}", path.display()))
    };
    write(file, &|out| netstats::write_links(&rows, out))?;
    write(&netstats::histogram_path(file), &|out| {
        stats.write_histogram(out)
    })
}

/// The settings of SimGrid's tracing switches, as its smpirun makes them
/// (`-trace-file` and the others count only with `-trace` or `-trace-ti`).
fn trace_settings(opts: &Options) -> Vec<(&'static str, String, &'static str)> {
    let mut out = Vec::new();
    let (switch, default_file) = match (opts.trace_ti, opts.trace) {
        (true, _) => ("-trace-ti", "smpi_simgrid.txt"),
        (false, true) => ("-trace", "smpi_simgrid.trace"),
        (false, false) => return out,
    };
    let file = opts
        .trace_file
        .as_ref()
        .map_or(default_file.to_string(), |f| {
            f.to_string_lossy().into_owned()
        });
    out.push(("tracing", "yes".into(), switch));
    out.push(("tracing/filename", file, switch));
    out.push(("tracing/smpi", "yes".into(), switch));
    if opts.trace_ti {
        out.push(("tracing/smpi/format", "TI".into(), switch));
        out.push(("tracing/smpi/computing", "yes".into(), switch));
    }
    if let Some(c) = &opts.trace_comment {
        out.push(("tracing/comment", c.clone(), "-trace-comment"));
    }
    if let Some(f) = &opts.trace_comment_file {
        let f = f.to_string_lossy().into_owned();
        out.push(("tracing/comment-file", f, "-trace-comment-file"));
    }
    if opts.trace_grouped {
        out.push(("tracing/smpi/group", "yes".into(), "-trace-grouped"));
    }
    if opts.trace_resource {
        out.push(("tracing/categorized", "yes".into(), "-trace-resource"));
        out.push(("tracing/uncategorized", "yes".into(), "-trace-resource"));
    }
    out
}

/// The machine a grouped or resource Paje trace draws: every host, every
/// link direction (a split-duplex link's two halves), and each rank's host.
fn paje_machine(core: &Core, ranks: usize) -> crate::trace::paje::Machine {
    use crate::trace::paje::{Machine, MachineHost, MachineLink};
    let platform = core.platform();
    let hosts = platform
        .hosts()
        .iter()
        .map(|h| MachineHost {
            name: h.name.clone(),
            speed: h.speed,
            cores: h.cores,
        })
        .collect();
    let links = core
        .link_directions()
        // SimGrid draws no container of its own loopback.
        .filter(|d| d.link != platform.global_loopback())
        .map(|d| {
            let link = platform.link(d.link);
            MachineLink {
                resource: d.resource,
                name: platform.link_use_name(d.link_use()),
                bandwidth: link.bandwidth,
                latency: link.latency,
            }
        })
        .collect();
    Machine {
        hosts,
        links,
        rank_hosts: (0..ranks).map(|r| core.host_of(r).0 as usize).collect(),
    }
}

/// The command `-wrapper`, `-gdb`, `-lldb` or `-vgdb` asks to run the
/// simulation under, split as a shell would.
fn wrapper_command(opts: &Options) -> Result<Option<Vec<String>>> {
    let text = match (&opts.wrapper, opts.gdb, opts.lldb, opts.vgdb) {
        (Some(w), ..) => w.as_str(),
        (None, true, ..) => "gdb --args",
        (None, _, true, _) => "lldb --",
        (None, _, _, true) => "valgrind --vgdb=yes --vgdb-error=0",
        _ => return Ok(None),
    };
    let words = shlex::split(text)
        .filter(|w| !w.is_empty())
        .ok_or_else(|| anyhow!("-wrapper '{text}': not a command (unbalanced quotes?)"))?;
    Ok(Some(words))
}

/// Set in the environment of the smpirun a wrapper runs, so that it runs
/// the simulation instead of wrapping itself again.
const UNDER_WRAPPER: &str = "SMPI_RS_UNDER_WRAPPER";

/// Replaces this process by `wrapper` running this smpirun with the same
/// arguments; returns only on failure.
fn exec_under(wrapper: &[String], args: &[OsString]) -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    let me = match std::env::current_exe() {
        Ok(path) => path,
        Err(e) => return anyhow!("-wrapper: cannot find smpirun's own path: {e}"),
    };
    let error = std::process::Command::new(&wrapper[0])
        .args(&wrapper[1..])
        .arg(me)
        .args(args)
        .env(UNDER_WRAPPER, "1")
        .exec();
    anyhow!("-wrapper: cannot run '{}': {error}", wrapper[0])
}

/// The built-in platform of SimGrid's old usage (`-bandwidth`,
/// `-latency`, no `-platform`): each host has its own link, and a message
/// crosses the sender's and the receiver's, as in the platform SimGrid's
/// smpirun writes for it (hosts are named node-0.. here, host1.. there).
fn old_usage_platform(
    np: usize,
    bandwidth: Option<&str>,
    latency: Option<&str>,
) -> Result<Platform> {
    // SimGrid's defaults, and its reading of a bare number: B/s and s.
    let with_unit = |value: &str, unit: &str| {
        if value.parse::<f64>().is_ok() {
            format!("{value}{unit}")
        } else {
            value.to_string()
        }
    };
    let bw = with_unit(bandwidth.unwrap_or("27262976"), "Bps");
    let lat = with_unit(latency.unwrap_or("0.000005"), "s");
    let spec = format!(
        "flat:{np}:bw={bw}:lat={lat}:sharing=SHARED:loopback_bw=498000000Bps:loopback_lat=4us"
    );
    Platform::from_compact(&spec)
        .with_context(|| format!("-bandwidth {bw} -latency {lat}: cannot build the platform"))
}

/// How ranks get their globals, and why when smpirun chose.
fn privatization_summary(asked: Privatization, loader: &AppLoader) -> String {
    let chosen = match loader.mode() {
        Privatization::Swap => "swap (one copy, each rank's globals swapped in when it runs)",
        Privatization::PerRank => "dlopen (one copy of the program per rank)",
        Privatization::Shared => "no (one copy shared by all ranks)",
        Privatization::Auto => "auto",
    };
    match (asked, loader.info().swap_obstacle()) {
        (Privatization::Auto, Some(why)) => {
            format!("{chosen}, chosen by smpi/privatization:auto since {why}")
        }
        (Privatization::Auto, None) => format!("{chosen}, chosen by smpi/privatization:auto"),
        _ => chosen.to_string(),
    }
}

/// The fewest memory mappings a copy of a program loaded per rank takes
/// (its read-only, code, read-only data and writable segments).
const MAPPINGS_PER_COPY: u64 = 4;

/// Stops the run at once, saying why and what to do, when one copy of the
/// program per rank cannot fit `vm.max_map_count` (it would fail after
/// loading tens of thousands of copies otherwise).
fn copies_fit(asked: Privatization, loader: &AppLoader, ranks: usize) -> Result<()> {
    let mappings = Mappings::now();
    if mappings.fit(ranks, MAPPINGS_PER_COPY) {
        return Ok(());
    }
    let limit = mappings.limit.unwrap_or(u64::MAX);
    let why = match (asked, loader.info().swap_obstacle()) {
        (Privatization::Auto, Some(why)) => format!(
            "smpi/privatization:auto cannot swap its globals between ranks since {why}, so \
             each rank gets its own copy"
        ),
        _ => "smpi/privatization:dlopen gives each rank its own copy".to_string(),
    };
    let need = (ranks as u64).saturating_mul(MAPPINGS_PER_COPY);
    bail!(
        "{ranks} ranks cannot each load a copy of '{}': {why}, and {ranks} copies take at \
         least {need} memory mappings while vm.max_map_count is {limit}. Raise it (`sysctl -w \
         vm.max_map_count={}`), run fewer ranks, or let the ranks share the program's globals \
         (-no-privatize)",
        loader.info().path.display(),
        (2 * need + MAPPINGS_TO_SPARE).next_power_of_two()
    )
}

/// What runs the ranks of a program: its loaded copies and the functions
/// replaced in them; and the program's globals, when swapped.
fn program_factory(
    program: &Path,
    args: &[OsString],
    privatization: Privatization,
    blas_models: bool,
    cfg: &Config,
    stack_bytes: usize,
) -> Result<(Factory, Option<Rc<privatize::DataSegment>>)> {
    let mut loader = AppLoader::new(
        program,
        privatization,
        abi_hash(),
        ABI_TABLE.0.as_ptr().cast(),
    )?;
    tracing::info!(
        target: log::CONFIG,
        "privatization: {}",
        privatization_summary(privatization, &loader)
    );
    let segment = loader.data_segment()?;
    let mut replacements = Replacements::default();
    if blas_models {
        replacements.functions.extend(
            crate::abi::blas::replacements()
                .into_iter()
                .map(|(name, target)| (name.to_owned(), target, false)),
        );
    }
    for path in cfg
        .text("smpi/function-models")
        .split(',')
        .filter(|p| !p.is_empty())
    {
        let models = loader.load_models(Path::new(path))?;
        replacements.functions.extend(
            models
                .functions
                .iter()
                // The library carries smpicc's shim, like every program:
                // its entry points (xbt_log_control_set, ...) are no models.
                .filter(|(name, _)| !crate::abi_symbols::ABI_NAMES.contains(&name.as_str()))
                .map(|(name, addr)| (name.clone(), *addr, true)),
        );
        replacements._libraries.push(models);
    }
    let factory = Factory {
        loader,
        program: program.to_path_buf(),
        args: args.to_vec(),
        stack_bytes,
        replacements,
        spent_argvs: Rc::default(),
    };
    Ok((factory, segment))
}

/// Runs smpirun with `args` (without the program name); returns the exit code.
pub fn run(args: Vec<OsString>) -> Result<i32> {
    let wall = Instant::now();
    let mut opts = parse_args(args.clone())?;
    locate_files(&mut opts);
    let log_settings =
        log::Settings::parse(opts.log.iter().map(String::as_str)).context("in a --log option")?;
    log::install(&log_settings, log_clock)?;
    if opts.version {
        println!(
            "smpirun (smpi-rs) {} ({})",
            env!("CARGO_PKG_VERSION"),
            env!("SMPI_RS_GIT_HASH")
        );
        return Ok(0);
    }
    if opts.git_version {
        println!("{}", env!("SMPI_RS_GIT_HASH"));
        return Ok(0);
    }
    if opts.help {
        print_help();
        return Ok(0);
    }
    if let Some(shell) = opts.completions {
        std::io::Write::write_all(&mut std::io::stdout(), &cli::completions(shell))
            .context("cannot write the completion script")?;
        return Ok(0);
    }
    if opts.print_platform {
        return print_platform(&opts);
    }
    if opts.help_coll {
        print!("{}", help_coll());
        return Ok(0);
    }
    if let Some(out) = &opts.calibrate_blas {
        print!(
            "{}",
            crate::calibrate::calibrate_blas(opts.blas_lib.as_deref(), out)?
        );
        return Ok(0);
    }
    if std::env::var_os(UNDER_WRAPPER).is_none() {
        if let Some(wrapper) = wrapper_command(&opts)? {
            return Err(exec_under(&wrapper, &args));
        }
    }
    let program = opts.program.clone();
    match (&opts.replay, &program) {
        (None, None) => bail!(
            "no program to run\n\n{}\nsmpirun -help lists the options",
            cli::usage()
        ),
        (Some(_), Some(p)) => bail!(
            "-replay: smpirun replays traces by itself, without a replayer program; remove {}",
            p.display()
        ),
        _ => {}
    }

    let mut cfg = config();
    let mut platform = match &opts.platform {
        Some(p) => Some(load_platform(p)?),
        None => None,
    };
    if let (Some(p), Some(path)) = (&platform, &opts.platform) {
        let origin = format!("the <config> of {}", path.display());
        for (name, value) in p.config() {
            let name = cfg
                .set(name, value)
                .with_context(|| format!("in {origin}"))?;
            log_option_set(name, value, &origin);
        }
    }
    // SimGrid's smpirun passes what -trace and its kin set before the
    // --cfg options, which may change it (-trace-ti's file name, say).
    for (name, value, origin) in trace_settings(&opts) {
        let name = cfg.set(name, &value)?;
        log_option_set(name, &value, origin);
    }
    // As SimGrid's smpirun, one --cfg may hold several settings separated
    // by white space.
    for pair in opts.cfg.iter().flat_map(|c| c.split_whitespace()) {
        let name = cfg.set_pair(pair).context("in a --cfg option")?;
        log_option_set(
            name,
            pair.split_once(':').map_or("", |(_, v)| v.trim()),
            "--cfg",
        );
    }
    let mut flag_settings = Vec::new();
    if opts.no_privatize {
        flag_settings.push(("smpi/privatization", "no", "-no-privatize"));
    }
    if opts.analyze {
        flag_settings.push(("smpi/display-timing", "yes", "-analyze"));
        flag_settings.push(("smpi/display-allocs", "yes", "-analyze"));
        flag_settings.push(("smpi/list-leaks", "50", "-analyze"));
    }
    if opts.keep_temps {
        flag_settings.push(("smpi/keep-temps", "yes", "-keep-temps"));
    }
    let tmpdir = opts
        .tmpdir
        .as_ref()
        .map(|d| d.to_string_lossy().into_owned());
    if let Some(dir) = &tmpdir {
        flag_settings.push(("smpi/tmpdir", dir.as_str(), "-tmpdir"));
    }
    for (name, value, origin) in flag_settings {
        let name = cfg.set(name, value)?;
        log_option_set(name, value, origin);
    }
    let alternatives = cfg.int("smpi/check/wildcard-alternatives");
    if std::env::var_os(wildcard::FORCE_ENV).is_some() {
        // A re-run of smpi/check/wildcard-alternatives: the first run
        // wrote the files and the final lines.
        for (name, value) in alternatives::RERUN_QUIET {
            cfg.set(name, value)?;
        }
    } else if alternatives > 0
        && opts.replay.is_none()
        && std::env::var_os(wildcard::LOG_ENV).is_none()
    {
        // Not the first run of a supervisor: become one.
        return alternatives::explore(&alternatives::Settings {
            args: &args,
            budget: usize::try_from(alternatives).unwrap_or(usize::MAX),
            report: cfg.text("smpi/check-report"),
        });
    }
    let trace = crate::trace::Settings::from_config(&cfg)?;
    let profile = crate::trace::profile::Settings::from_config(&cfg)?;
    if let Some(p) = &profile {
        p.create_file()?;
    }
    if profile.is_some() && opts.replay.is_some() {
        // Better no profile than an empty one.
        bail!(
            "options smpi/profile and smpi/profile-file: -replay runs are not profiled (their \
             actions do not go through the MPI calls the profiler sees)"
        );
    }
    for ignored in cfg.ignored() {
        warn_at_start(
            SimGrid::SmpiConfig,
            &format!(
                "option '{}' (set to '{}') has no effect here: {}",
                ignored.name, ignored.value, ignored.why
            ),
        );
    }
    let privatization = match cfg.text("smpi/privatization") {
        "auto" => Privatization::Auto,
        "no" | "0" | "false" | "off" => Privatization::Shared,
        "dlopen" | "yes" | "1" | "true" | "on" => Privatization::PerRank,
        "swap" | "mmap" => Privatization::Swap,
        other => {
            bail!("option smpi/privatization: '{other}' is not one of auto, dlopen, swap, no")
        }
    };
    match cfg.text("contexts/factory") {
        "raw" | "boost" | "ucontext" | "thread" => {}
        other => {
            bail!("option contexts/factory: '{other}' is not one of raw, boost, ucontext, thread")
        }
    }
    let mpiexec_timeout = std::env::var_os(limit::MPIEXEC_TIMEOUT);
    let limits = Limits::from_config(
        &cfg,
        mpiexec_timeout
            .as_ref()
            .map(|v| v.to_string_lossy())
            .as_deref(),
    )?;
    // Watched from now on, loading included, as mpiexec counts from launch.
    let watchdog = match &limits.wall {
        Some(l) => Some(
            Watchdog::start(l, wall, opts.quiet)
                .context("cannot start the thread that watches the wall-time limit")?,
        ),
        None => None,
    };
    let simulate = cfg.bool("smpi/simulate-computation");
    let wall_clock = match cfg.text("smpi/bench-clock") {
        "cpu" => false,
        "wall" => true,
        other => bail!("option smpi/bench-clock: '{other}' is not cpu or wall"),
    };
    let omp_cpu = match cfg.text("smpi/omp-model") {
        "cpu" => true,
        "wall" => false,
        other => bail!("option smpi/omp-model: '{other}' is not cpu or wall"),
    };
    let blas_models = match cfg.text("smpi/blas") {
        "real" => false,
        "model" => true,
        other => bail!("option smpi/blas: '{other}' is not real or model"),
    };
    let blas_scale = match cfg.text("smpi/blas-model-scale") {
        "peak" => crate::kernels::Scale::Peak,
        "host-speed" => crate::kernels::Scale::HostSpeed,
        other => bail!("option smpi/blas-model-scale: '{other}' is not peak or host-speed"),
    };
    let model_file = if blas_models {
        model_file_from(&cfg)?
    } else {
        None
    };
    // Under peak scaling this machine's speed is the models' peak unless
    // smpi/host-speed says otherwise: what the program's own code and the
    // function models measure (seconds of this machine) is then charged
    // in the kernels' terms, so that a copy keeps its cost next to a
    // dgemm's as on this machine.
    let models_peak = model_file
        .as_ref()
        .and_then(crate::kernels::ModelFile::peak)
        .filter(|_| blas_scale == crate::kernels::Scale::Peak)
        .filter(|_| cfg.text("smpi/host-speed") == "auto");
    let needs_speed =
        simulate || blas_models || platform.is_none() || cfg.text("smpi/host-speed") != "auto";
    let speed = match models_peak {
        Some(peak) => peak,
        None if needs_speed => host_speed(&cfg)?,
        None => 1e9,
    };
    if needs_speed {
        tracing::debug!(
            target: log::CONFIG,
            "smpi/host-speed: {} (turns measured computation into flops{})",
            platforms::units::format_speed(speed),
            if models_peak.is_some() {
                "; the kernel models' peak"
            } else {
                ""
            }
        );
    }

    let np = match (opts.np, &opts.hostfile, &platform) {
        (Some(n), _, _) => n,
        (None, Some(h), _) => count_hostfile_slots(h)?,
        (None, None, Some(p)) => p.hosts().len(),
        (None, None, None) => {
            bail!("give the number of ranks with -np N (or a hostfile or platform)")
        }
    };
    let old_usage = opts.bandwidth.is_some() || opts.latency.is_some();
    if old_usage && platform.is_some() {
        warn_at_start(
            SimGrid::SmpiConfig,
            "-bandwidth and -latency describe the platform smpirun builds without -platform; \
             they are ignored",
        );
    }
    let mut platform = match platform.take() {
        Some(p) => p,
        None if old_usage => {
            old_usage_platform(np, opts.bandwidth.as_deref(), opts.latency.as_deref())?
        }
        None if np > platforms::MAX_CLUSTER_HOSTS => bail!(
            "-np {np}: the built-in platform has at most {} hosts; give a -platform with more \
             hosts and a hostfile, or place several ranks per host (-hostfile with host:N)",
            platforms::MAX_CLUSTER_HOSTS
        ),
        None => Platform::default_cluster(np, speed),
    };
    platform.set_global_loopback(
        cfg.float("network/loopback-bw"),
        cfg.float("network/loopback-lat"),
    );
    tracing::info!(
        target: log::CONFIG,
        "platform {}: {}",
        opts.platform
            .as_ref()
            .map_or("built-in".into(), |p| p.to_string_lossy()),
        platform.describe()
    );
    // SimGrid's smpi/map is a boolean (display the placement); ours also
    // names the placement rule.
    let (mapping, display_map) = match config::parse_bool(cfg.text("smpi/map")) {
        Some(display) => (Mapping::Hostfile, display),
        None => (
            Mapping::parse(cfg.text("smpi/map")).map_err(|e| anyhow!("option smpi/map: {e}"))?,
            false,
        ),
    };
    let slots = slots(&platform, opts.hostfile.as_ref())?;
    if opts.hostfile.is_some() && np > slots.len() {
        // SimGrid's note (ranks then share the hostfile's slots in turn).
        let note = format!(
            "You requested to use {np} ranks, but there is only {} processes in your \
             hostfile...",
            slots.len()
        );
        log::simgrid(SimGrid::Smpi, Priority::Info, Source::Maestro, 0.0, &note);
    }
    let hosts = mapping.place(&slots, np);
    tracing::debug!(
        target: log::CONFIG,
        "{np} ranks placed by smpi/map:{} on {} slots ({})",
        cfg.text("smpi/map"),
        slots.len(),
        opts.hostfile.as_ref().map_or("each platform host once".into(), |h| format!(
            "hostfile {}",
            h.display()
        ))
    );
    // SimGrid's wording, lines of its `smpi` category, printed when the
    // simulation starts (after every check of the command line).
    let map_lines: Vec<String> = if opts.print_map || display_map {
        hosts
            .iter()
            .enumerate()
            .map(|(rank, host)| format!("[rank {rank}] -> {}", platform.host(*host).name))
            .collect()
    } else {
        Vec::new()
    };

    let rank_hosts: Vec<crate::trace::perfetto::RankHost> = if trace.perfetto.is_some() {
        hosts
            .iter()
            .map(|h| crate::trace::perfetto::RankHost {
                index: h.0 as usize,
                name: platform.host(*h).name.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let model = NetModel::from_config(&cfg)?;
    if model.routing != RoutingChoice::Minimal && !platform.has_valiant_routes() {
        bail!(
            "option network/routing:{}: only DRAGONFLY clusters have non-minimal routes, and \
             this platform is {}",
            cfg.text("network/routing"),
            platform.describe()
        );
    }
    let stack_kib = cfg.int("contexts/stack-size");
    let stack_bytes = usize::try_from(stack_kib.saturating_mul(1024)).unwrap_or(usize::MAX);

    let (mut factory, segment): (Box<dyn RankFactory>, _) = match (&opts.replay, &program) {
        (Some(index), _) => {
            let files = crate::replay::read_index(index, np)?;
            let replayer = crate::replay::Replayer::new(files, stack_bytes, simulate);
            (Box::new(replayer), None)
        }
        (None, Some(program)) => {
            let (f, segment) = program_factory(
                program,
                &opts.args,
                privatization,
                blas_models,
                &cfg,
                stack_bytes,
            )?;
            if f.loader.mode() == Privatization::PerRank {
                copies_fit(privatization, &f.loader, np)?;
            }
            (Box::new(f), segment)
        }
        (None, None) => unreachable!("checked above"),
    };
    let kernel_models = match model_file {
        Some(file) => Some(
            file.models(blas_scale, speed)
                .with_context(|| model_file_context(&cfg))?,
        ),
        None if blas_models => Some(crate::kernels::KernelModels::flop_counts()),
        None => None,
    };
    let bench = Bench {
        simulate,
        wall_clock,
        threshold: cfg.float("smpi/cpu-threshold"),
        host_speed: speed,
        omp_cpu,
    };
    let mut mpi = Mpi::new(np, Protocol::from_config(&cfg, simulate)?);
    let (algorithms, notes) = Algorithms::from_config_noting(&cfg).map_err(|e| anyhow!(e))?;
    for note in notes {
        warn_at_start(SimGrid::SmpiConfig, &note);
    }
    mpi.algorithms = algorithms;
    mpi.finalization_barrier = cfg.bool("smpi/finalization-barrier");
    mpi.progression = crate::mpi::progression::Progression::parse(
        cfg.text("smpi/progress"),
        cfg.float("smpi/progress-thread-share"),
    )
    .map_err(|e| anyhow!(e))?;
    mpi.windows.model =
        crate::mpi::win::RmaModel::parse(cfg.text("smpi/rma-model")).map_err(|e| anyhow!(e))?;
    if !cfg.bool("smpi/errors-are-fatal") {
        mpi.default_errhandler = crate::mpi::ERRORS_RETURN;
    }
    mpi.init_seconds = cfg.float("smpi/init");
    let mut checks = crate::mpi::verify::Checks::parse(cfg.text("smpi/check"))?;
    let force = std::env::var(wildcard::FORCE_ENV)
        .ok()
        .and_then(|v| wildcard::Force::parse(&v));
    if cfg.int("smpi/check/wildcard-alternatives") > 0 || force.is_some() {
        checks.wildcard = true;
    }
    mpi.verify = crate::mpi::verify::Verify::new(checks);
    mpi.verify.races.force = force;
    if checks.leaks {
        mpi.ledger.enable(np, false);
    } else if checks != crate::mpi::verify::Checks::default()
        || trace.call_location
        || profile.is_some()
    {
        mpi.ledger.track_locations(np);
    }
    let io_dir = cfg.text("smpi/io-dir");
    if !io_dir.is_empty() {
        mpi.files.stand_in.configured = Some(std::path::PathBuf::from(io_dir));
    }
    let mut mem = Memory::from_config(&cfg, segment)?;
    if stack_mode(&cfg, np)? == StackMode::Copy {
        mem.shared_stack = Some(SharedStack::new(stack_bytes, np).with_context(|| {
            format!(
                "cannot allocate the {} KiB stack the ranks share",
                stack_bytes / 1024
            )
        })?);
    }
    let analysis = leaks::Settings::from_config(&cfg)?;
    let mut core = Core::new(platform, model, hosts);
    core.set_progression(
        mpi.progression.reserved_cores(),
        mpi.progression.compute_scale(),
    )
    .map_err(|e| anyhow!(e))?;
    core.set_turns(mpi.progression.takes_turns());
    let mut sim = Sim::new(core, mpi, mem, bench);
    sim.quiet = opts.quiet;
    sim.core.set_limits(
        limits.simulated.as_ref().map(|l| l.seconds),
        watchdog.as_ref().map(Watchdog::signal),
    );
    sim.limits = limits;
    if analysis.on {
        sim.analyse_memory(analysis.whole_paths);
    }
    if sim.mpi.verify.on.rma {
        // Window buffers are checked against the blocks they lie in.
        sim.follow_allocations();
    }
    sim.kernels = kernel_models;
    for plugin in plugins(&opts)? {
        if plugin == "host_energy" {
            let unprofiled = sim
                .core
                .count_energy()
                .context("--cfg=plugin:host_energy")?;
            for host in unprofiled {
                warn_at_start(
                    SimGrid::HostEnergy,
                    &format!(
                        "No energetic profiles (wattage_per_state) given for host {host}, using \
                         0 W by default. Direct request of power/energy consumption of this \
                         host will fail."
                    ),
                );
            }
        } else {
            warn_at_start(
                SimGrid::SmpiConfig,
                &format!(
                    "option 'plugin' (set to '{plugin}') has no effect here: SimGrid's \
                     {plugin} plugin is not available (host_energy is)"
                ),
            );
        }
    }
    // SimGrid sets its collectives twice at start-up, saying so each time,
    // around its host-speed reminder.
    let switches = crate::mpi::coll::algorithm_switches(&cfg);
    let say_switches = || {
        for line in &switches {
            log::simgrid(
                SimGrid::SmpiColl,
                Priority::Info,
                Source::Maestro,
                0.0,
                line,
            );
        }
    };
    say_switches();
    let speed_guessed = (simulate || blas_models) && cfg.text("smpi/host-speed") == "auto";
    if speed_guessed && !opts.quiet {
        // SimGrid's words, which its users' expected outputs hold. Ours
        // measured this machine, but the advice stands: a measured speed
        // varies between machines and runs.
        log::simgrid(
            SimGrid::SmpiConfig,
            Priority::Info,
            Source::Maestro,
            0.0,
            "You did not set the power of the host running the simulation.  The timings \
             will certainly not be accurate.  Use the option \"--cfg=smpi/host-speed:<flops>\" \
             to set its value.  Check https://simgrid.org/doc/latest/Configuring_SimGrid.html\
             #automatic-benchmarking-of-smpi-code for more information.",
        );
    }
    say_switches();
    for line in &map_lines {
        log::simgrid(SimGrid::Smpi, Priority::Info, Source::Maestro, 0.0, line);
    }
    sim.progress = crate::progress::Progress::new(
        !opts.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()),
        cfg.float("smpi/progress-interval"),
    );
    let network_stats = Some(cfg.text("smpi/network-stats"))
        .filter(|f| !f.is_empty())
        .map(PathBuf::from);
    // Perfetto traces and Paje's resources show the links' loads, which
    // the statistics sample.
    let paje_resources = trace.paje.as_ref().is_some_and(|p| p.resources);
    if network_stats.is_some() || trace.perfetto.is_some() || paje_resources {
        sim.core.count_network();
    }
    if paje_resources {
        sim.core.sample_hosts();
    }
    if let Some(file) = &trace.perfetto {
        let writer = crate::trace::perfetto::PerfettoWriter::new(file, &rank_hosts)
            .with_context(|| format!("cannot write the trace {}", file.display()))?;
        sim.tracers.add(writer, &mut sim.core);
    }
    if let Some(index) = &trace.ti {
        let writer = crate::trace::ti::TiWriter::new(index, np, &trace)
            .with_context(|| format!("cannot write the trace {}", index.display()))?;
        sim.tracers.add(writer, &mut sim.core);
    }
    // Attached only when asked for: a run without it pays nothing.
    let profiler = profile.as_ref().map(|_| {
        let p = Rc::new(std::cell::RefCell::new(
            crate::trace::profile::Profiler::new(np),
        ));
        sim.tracers
            .attach(Rc::clone(&p) as crate::trace::Shared, &mut sim.core);
        p
    });
    if let Some(options) = &trace.paje {
        // SimGrid's second line records the program's command line; ours
        // is smpirun's.
        let command: Vec<String> = std::iter::once("smpirun".to_string())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect();
        let mut writer = crate::trace::paje::PajeWriter::new(options, np, &command)
            .with_context(|| format!("cannot write the trace {}", options.file.display()))?;
        if options.draws_machine() {
            writer.draw_machine(&paje_machine(&sim.core, np));
        }
        sim.tracers.add(writer, &mut sim.core);
    }
    sim::install(sim);
    context::install_crash_handler(stack_kib);
    let outcome = sim::run(factory.as_mut());
    sim::with(|s| s.progress.finish());
    let trace_result = sim::with(|s| s.tracers.finish(s.core.now()));
    if let Some(w) = watchdog {
        if !w.finish() {
            // The watchdog is ending the process (the run ended just as
            // it gave up waiting): its lines are the last.
            limit::wait_for_forced_exit();
        }
    }
    crate::flush_c_stdio();
    drop(factory);
    let mut finished = sim::uninstall();
    if let Some(summary) = finished.as_ref().and_then(|s| s.instr.summary()) {
        tracing::debug!(
            target: log::CONFIG,
            "the program declared, for tracing (which smpi-rs does not do yet): {summary}"
        );
    }
    let categorized = trace.paje.is_some() && cfg.bool("tracing/categorized");
    if let Some(s) = finished
        .as_ref()
        .filter(|s| categorized && !s.instr.categories.is_empty())
    {
        let names: Vec<&str> = s.instr.categories.iter().map(|c| c.name.as_str()).collect();
        log::simgrid(
            SimGrid::SmpiConfig,
            Priority::Warning,
            Source::Maestro,
            s.core.now(),
            &format!(
                "tracing/categorized: the Paje trace does not draw the resources' use per \
                 category (the program declared {})",
                names.join(", ")
            ),
        );
    }
    if let (Some(s), Outcome::Finished { simulated, .. }) = (&mut finished, &outcome) {
        report_energy(&mut s.core, *simulated);
    }
    let stats_written = match (&network_stats, &finished) {
        (Some(file), Some(s)) => write_network_stats(file, &s.core, s.core.now()),
        _ => Ok(()),
    };
    if let (Some(_), Outcome::Finished { simulated, .. }) = (&opts.replay, &outcome) {
        // SimGrid's replay says so when its last rank ends.
        log::simgrid(
            SimGrid::SmpiReplay,
            Priority::Info,
            Source::Maestro,
            *simulated,
            &format!("Simulation time {simulated:.6}"),
        );
    }
    let wall = wall.elapsed().as_secs_f64();
    let (mut code, simulated) = match &outcome {
        Outcome::Finished { code, simulated } => (*code, *simulated),
        Outcome::Aborted {
            code, simulated, ..
        } => (if *code == 0 { 1 } else { *code }, *simulated),
        Outcome::Deadlock {
            report,
            code,
            simulated,
        } => {
            eprint!("{report}");
            (*code, *simulated)
        }
        Outcome::Failed { message, simulated } => {
            eprintln!("{message}");
            (1, *simulated)
        }
        Outcome::TimeLimit { report, simulated } => {
            eprintln!("{report}");
            (limit::TIME_LIMIT_EXIT, *simulated)
        }
    };
    // SimGrid prints nothing of its own at the end unless asked; a person
    // at a terminal gets the summary anyway.
    let display = cfg.bool("smpi/display-timing")
        || cfg.bool("smpi/display-summary")
        || (!opts.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr()));
    let mut profile_result = Ok(());
    let failed = matches!(outcome, Outcome::Failed { .. });
    if let (Some(settings), Some(p)) = (&profile, &profiler) {
        let p = p.borrow();
        if settings.table && !failed {
            eprint!("{}", p.table());
        }
        if let Some((path, format)) = &settings.file {
            profile_result = p.write(path, *format);
        }
    }
    // After a fatal error the error is the last word: no figures of a run
    // that did not happen (the profile file is still written).
    if cfg.bool("smpi/display-timing") && !failed {
        // SimGrid's summary, in its words and number format.
        let g = crate::trace::ti::g6;
        let computed = finished.as_ref().map_or(0.0, |s| s.computed_seconds);
        log::simgrid(
            SimGrid::SmpiUtils,
            Priority::Info,
            Source::Maestro,
            simulated,
            &format!(
                "Simulated time: {} seconds. \n\nThe simulation took {} seconds (after parsing \
                 and platform setup)\n{} seconds were actual computation of the application",
                g(simulated),
                g(wall),
                g(computed)
            ),
        );
    }
    if display && !failed {
        eprintln!("smpirun: simulated time {simulated:.6} s, wall time {wall:.3} s, {np} ranks");
    }
    if let Some(sim) = &finished {
        let (ops, bytes) = sim.mpi.diskless_io;
        if ops > 0 && !opts.quiet {
            eprintln!(
                "smpirun: {ops} file accesses ({bytes} bytes) ran on hosts without a <disk> in \
                 the platform and cost no simulated time"
            );
        }
    }
    if let Some(sim) = &mut finished {
        let ended = matches!(outcome, Outcome::Finished { .. } | Outcome::Deadlock { .. });
        let written = end_checks(sim, ended, cfg.text("smpi/check-report"));
        if let Err(e) = written {
            eprintln!("smpirun: {e:#}");
            if code == 0 {
                code = 1;
            }
        }
    }
    // SimGrid's memory analysis closes a simulation that ran to its end.
    if let (Some(sim), Outcome::Finished { .. } | Outcome::Aborted { .. }) = (&finished, &outcome) {
        if let Some(allocs) = sim.allocs.as_ref().filter(|_| analysis.on) {
            let no_loc = log::categories().no_loc();
            let handles = sim.mpi.handle_leaks(no_loc);
            for (priority, line) in leaks::report(&analysis, &handles, allocs, no_loc) {
                log::simgrid(
                    SimGrid::SmpiUtils,
                    priority,
                    Source::Maestro,
                    simulated,
                    &line,
                );
            }
        }
    }
    // An output that could not be written fails the run, after the others.
    let outputs = [
        stats_written.map_err(|e| format!("{e:#}")),
        trace_result.map_err(|e| format!("the trace could not be written completely: {e}")),
        profile_result.map_err(|e| e.to_string()),
    ];
    for message in outputs.into_iter().filter_map(std::result::Result::err) {
        eprintln!("smpirun: {message}");
        if code == 0 {
            code = 1;
        }
    }
    let summary_file = cfg.text("smpi/summary-file");
    if !summary_file.is_empty() {
        let summary = summary::Summary {
            outcome: match &outcome {
                Outcome::Finished { .. } => "finished",
                Outcome::Aborted { .. } => "aborted",
                Outcome::Deadlock { .. } => "deadlock",
                Outcome::Failed { .. } => "failed",
                Outcome::TimeLimit { .. } => "time-limit",
            },
            exit_code: code,
            simulated_time_s: simulated,
            wall_s: wall,
            ranks: np,
            peak_rss_kb: summary::peak_rss_kb(),
        };
        if let Err(e) = summary.write(summary_file) {
            eprintln!("smpirun: the summary file {summary_file} could not be written: {e}");
            if code == 0 {
                code = 1;
            }
        }
    }
    if code != 0 && !opts.quiet {
        // SimGrid's smpirun ends every failed simulation with this line.
        println!("Execution failed with code {code}.");
    }
    Ok(code)
}

/// The correctness checks' end of run: the collective calls some members
/// never made (when every rank ended), the summary line, and the report file (`smpi/check-report`)
/// when one is asked for.
fn end_checks(sim: &mut Sim, ended: bool, report: &str) -> Result<()> {
    let mut ctx = sim.mpi();
    if ended && ctx.mpi.verify.on.collectives {
        ctx.report_unmatched_collectives();
    }
    if ended && ctx.mpi.verify.on.requests {
        ctx.report_unreceived();
    }
    if ended && ctx.mpi.verify.on.leaks {
        ctx.report_leaks();
    }
    let verify = &sim.mpi.verify;
    if let Some(line) = verify.summary() {
        eprintln!("{line}");
    }
    if !report.is_empty() {
        std::fs::write(report, verify.json())
            .with_context(|| format!("cannot write the check report {report}"))?;
    }
    if let Some(path) = std::env::var_os(wildcard::LOG_ENV) {
        let text = serde_json::to_string(&verify.races.log).unwrap_or_default();
        std::fs::write(&path, text).with_context(|| {
            format!("cannot write the races of the wildcard receives to {path:?}")
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_stacks_take_guard_stacks_while_their_mappings_fit() {
        // Linux's default vm.max_map_count, a process with 300 mappings.
        let fit = |ranks, mapped, limit| {
            per_rank_mappings_fit(ranks, MAPPINGS_PER_GUARD_STACK, mapped, limit)
        };
        assert!(fit(10_000, 300, 65_530));
        assert!(fit(28_000, 300, 65_530));
        assert!(!fit(29_000, 300, 65_530));
        assert!(!fit(1 << 20, 300, 65_530));
        // Raised limits.
        assert!(fit(1 << 20, 300, 4 << 20));
        assert!(fit(usize::MAX / 4, 0, u64::MAX));
    }

    #[test]
    fn per_rank_copies_fit_while_four_mappings_each_do() {
        let fit =
            |ranks, mapped, limit| per_rank_mappings_fit(ranks, MAPPINGS_PER_COPY, mapped, limit);
        assert!(fit(10_000, 300, 65_530));
        assert!(!fit(40_000, 300, 65_530));
        assert!(fit(40_000, 300, 1 << 20));
    }

    #[test]
    fn stack_modes_resolve_and_unknown_ones_are_refused() {
        let mut cfg = Config::new(&[OPTIONS]);
        for (text, mode) in [("guard", StackMode::Guard), ("copy", StackMode::Copy)] {
            cfg.set("contexts/stack-mode", text).unwrap();
            assert_eq!(stack_mode(&cfg, 1 << 20).unwrap(), mode);
        }
        cfg.set("contexts/stack-mode", "auto").unwrap();
        assert_eq!(stack_mode(&cfg, 2).unwrap(), StackMode::Guard);
        cfg.set("contexts/stack-mode", "pooled").unwrap();
        let e = stack_mode(&cfg, 2).unwrap_err().to_string();
        assert!(e.contains("not one of auto, guard, copy"), "{e}");
    }
}
