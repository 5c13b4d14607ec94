//! The simulation: the one value that owns the engine core, the MPI state,
//! the ranks' memory, the computation models and the run's settings, and
//! the one place that wires them (the maestro loop hands the transfers the
//! core finishes to the MPI layer).
//!
//! It lives in a thread-local; rank code (the bindings, and the MPI layer's
//! waits) reaches it through [`with`] or [`mpi`], which run on the
//! maestro's stack (see [`context::off_rank_stack`]). Nobody holds it
//! across a coroutine switch or a call into the program, so the `RefCell`
//! never sees overlapping borrows.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;

use crate::actors::{self, Actors};
use crate::engine::context::{self, Suspend};
use crate::engine::limit::{self, LimitKind, Limits};
use crate::engine::{Core, Detail, RunState, Sleep, Wake};
use crate::getopt::Optind;
use crate::instr::Instr;
use crate::kernels::KernelModels;
use crate::leaks::Allocs;
use crate::log;
use crate::memory::Memory;
use crate::mpi::{self, Mpi};
use crate::sample::Sampling;

/// How computation between MPI calls is measured.
#[derive(Debug, Clone, Copy)]
pub struct Bench {
    /// smpi/simulate-computation: measure the bursts and simulate them.
    pub simulate: bool,
    /// smpi/bench-clock: the monotonic clock (true) or the thread's CPU
    /// time.
    pub wall_clock: bool,
    /// smpi/cpu-threshold: shorter bursts are ignored (s).
    pub threshold: f64,
    /// smpi/host-speed: flop/s of the machine running the simulation.
    pub host_speed: f64,
    /// smpi/omp-model:cpu: an OpenMP region costs its threads' CPU time
    /// over the simulated host's cores (false: what the bench clock
    /// measured on the rank's thread).
    pub omp_cpu: bool,
}

/// What every MPI call, and every `malloc` of the program, reads before
/// entering the simulation, or instead: entering it switches to the
/// maestro's stack, and these decide whether a call needs to at all. Set
/// from the [`Sim`] when it is installed; plain cells beside it, per
/// thread like the simulation itself.
pub struct Fast {
    simulate_computation: Cell<bool>,
    bench_wall_clock: Cell<bool>,
    /// `smpi/cpu-threshold`.
    bench_threshold: Cell<f64>,
    /// The running actor's bench mark (`Actor::cpu_mark`, kept here while
    /// it runs: the maestro swaps it around each resume), so that a call
    /// measures its burst without entering the simulation.
    bench_mark: Cell<f64>,
    /// The running rank may have modelled kernel time to spend
    /// (`Rank::pending_flops`).
    pending_flops: Cell<bool>,
    /// Non-blocking collectives in progress, all ranks together.
    pending_nbc: Cell<usize>,
    /// `smpi/auto-shared-malloc-thresh` (0: off).
    auto_fold_threshold: Cell<usize>,
    /// An observer watches the MPI calls.
    observed: Cell<bool>,
    /// A folded allocation was made: until then `free` is the C
    /// library's without a lookup.
    any_folded: Cell<bool>,
    /// The memory analysis runs (`Sim::allocs`): allocations and call
    /// locations are noted.
    analysing: Cell<bool>,
    /// Call locations are noted (the memory analysis or the correctness
    /// checks run).
    locating: Cell<bool>,
    /// A rank started a simulated thread (`crate::pthreads`): from then
    /// on the threads interface accounts computation bursts.
    threads_started: Cell<bool>,
    /// A receive overhead (`smpi/or`) was owed: from then on every call
    /// takes its rank's (`mpi::as_call`).
    overhead_owed: Cell<bool>,
}

thread_local! {
    static FAST_CELLS: Fast = const {
        Fast {
            simulate_computation: Cell::new(true),
            bench_wall_clock: Cell::new(false),
            bench_threshold: Cell::new(0.0),
            bench_mark: Cell::new(0.0),
            pending_flops: Cell::new(false),
            pending_nbc: Cell::new(0),
            auto_fold_threshold: Cell::new(0),
            observed: Cell::new(false),
            any_folded: Cell::new(false),
            analysing: Cell::new(false),
            locating: Cell::new(false),
            threads_started: Cell::new(false),
            overhead_owed: Cell::new(false),
        }
    };
}

/// This thread's [`Fast`] values.
pub fn fast<R>(f: impl FnOnce(&Fast) -> R) -> R {
    FAST_CELLS.with(f)
}

impl Fast {
    /// Whether computation bursts are measured and simulated.
    pub fn simulating(&self) -> bool {
        self.simulate_computation.get()
    }

    /// Whether bursts are measured on the monotonic clock.
    pub fn wall_clock(&self) -> bool {
        self.bench_wall_clock.get()
    }

    /// `smpi/cpu-threshold`: shorter bursts are not simulated.
    pub fn threshold(&self) -> f64 {
        self.bench_threshold.get()
    }

    /// The running actor's bench mark: where its burst started on the
    /// bench clock.
    pub fn mark(&self) -> f64 {
        self.bench_mark.get()
    }

    /// Sets the running actor's bench mark.
    pub fn set_mark(&self, mark: f64) {
        self.bench_mark.set(mark);
    }

    /// Notes that the running rank has modelled kernel time to spend.
    pub fn note_pending_flops(&self) {
        self.pending_flops.set(true);
    }

    /// Whether the running rank may have modelled kernel time to spend.
    pub fn has_pending_flops(&self) -> bool {
        self.pending_flops.get()
    }

    /// Whether the running rank may have modelled kernel time to spend;
    /// clears the note.
    pub fn take_pending_flops(&self) -> bool {
        self.pending_flops.replace(false)
    }

    /// Notes that a receive overhead is owed.
    pub fn note_overhead_owed(&self) {
        self.overhead_owed.set(true);
    }

    /// Whether a receive overhead was ever owed.
    pub fn overhead_owed(&self) -> bool {
        self.overhead_owed.get()
    }

    /// Notes that a rank started a simulated thread.
    pub fn note_threads_started(&self) {
        self.threads_started.set(true);
    }

    /// Whether a rank started a simulated thread.
    pub fn threads_started(&self) -> bool {
        self.threads_started.get()
    }

    /// Whether any non-blocking collective is in progress.
    pub fn any_nbc(&self) -> bool {
        self.pending_nbc.get() > 0
    }

    /// Counts a non-blocking collective that starts (`true`) or ends.
    pub fn count_nbc(&self, starts: bool) {
        let n = self.pending_nbc.get();
        self.pending_nbc
            .set(if starts { n + 1 } else { n.saturating_sub(1) });
    }

    /// Whether an allocation of `size` bytes is folded
    /// (`smpi/auto-shared-malloc-thresh`).
    pub fn folds(&self, size: usize) -> bool {
        let t = self.auto_fold_threshold.get();
        t > 0 && size >= t
    }

    /// Whether an observer watches the MPI calls.
    pub fn observed(&self) -> bool {
        self.observed.get()
    }

    /// Notes that a folded allocation was made.
    pub fn note_folded(&self) {
        self.any_folded.set(true);
    }

    /// Whether the memory analysis runs (`smpi/display-allocs`,
    /// `smpi/list-leaks`).
    pub fn analysing(&self) -> bool {
        self.analysing.get()
    }

    /// Whether call locations are noted (`smpi_trace_set_call_location`).
    pub fn locating(&self) -> bool {
        self.locating.get()
    }

    /// Whether a folded allocation was ever made.
    pub fn any_folded(&self) -> bool {
        self.any_folded.get()
    }
}

/// The whole simulation.
pub struct Sim {
    pub core: Core,
    pub mpi: Mpi,
    pub mem: Memory,
    /// The measures of `SMPI_SAMPLE_*` loops.
    pub sampling: Sampling,
    /// The results of `SMPI_SHARED_CALL`, by SimGrid's key "func:input"
    /// (only looked up: the map's order never reaches a result).
    pub shared_calls: HashMap<String, usize>,
    /// SimGrid's actors: names, data, and the bodies of the actors ranks
    /// start (`simgrid/actor.h`).
    pub actors: Actors,
    /// What the program declares for tracing (`simgrid/instr.h`).
    pub instr: Instr,
    /// Each rank's getopt position.
    pub optind: Optind,
    /// The threads ranks started and what they block on.
    pub threads: crate::pthreads::Threads,
    /// The run's progress lines.
    pub progress: crate::progress::Progress,
    /// The trace writers (`crate::trace`).
    pub tracers: crate::trace::Tracers,
    /// The computation the ranks did for real, measured (seconds of the
    /// bench clock): SimGrid's "actual computation of the application".
    pub computed_seconds: f64,
    /// Each rank's random generators and `strtok` position.
    pub libc: crate::libc_state::LibcStates,
    /// The BLAS kernel models, under `smpi/blas:model`.
    pub kernels: Option<KernelModels>,
    pub bench: Bench,
    /// Set by MPI_Abort or a fatal error: (rank, error code).
    pub aborted: Option<(usize, i32)>,
    /// -quiet: no informational messages.
    pub quiet: bool,
    /// Ranks that ended without calling MPI_Finalize after MPI_Init.
    unfinalized: usize,
    /// The program's allocations, under the memory analysis (`leaks`).
    pub allocs: Option<Allocs>,
    /// The run's time limits, for the message that ends a run they stop
    /// (the core enforces them).
    pub limits: Limits,
}

impl Sim {
    pub fn new(core: Core, mpi: Mpi, mem: Memory, bench: Bench) -> Self {
        Self {
            core,
            mpi,
            mem,
            sampling: Sampling::default(),
            shared_calls: HashMap::new(),
            actors: Actors::default(),
            instr: Instr::default(),
            optind: Optind::default(),
            threads: Default::default(),
            progress: Default::default(),
            tracers: Default::default(),
            computed_seconds: 0.0,
            libc: Default::default(),
            kernels: None,
            bench,
            aborted: None,
            quiet: false,
            unfinalized: 0,
            allocs: None,
            limits: Limits::default(),
        }
    }

    /// Runs the memory analysis (`leaks`): the program's allocations and
    /// handles are noted from now on; `whole_paths` names source files by
    /// their whole path.
    pub fn analyse_memory(&mut self, whole_paths: bool) {
        self.allocs = Some(Allocs::new(whole_paths));
        let n = self.core.size();
        self.mpi.ledger.enable(n, whole_paths);
    }

    /// Follows the program's allocations (for the correctness checks)
    /// without the memory analysis's report.
    pub fn follow_allocations(&mut self) {
        if self.allocs.is_none() {
            self.allocs = Some(Allocs::new(false));
        }
    }

    /// The MPI layer over this simulation's core and memory.
    pub fn mpi(&mut self) -> mpi::Ctx<'_> {
        mpi::Ctx {
            core: &mut self.core,
            mpi: &mut self.mpi,
            mem: &self.mem,
        }
    }

    /// Hands every transfer the core finished at the current date to the
    /// MPI layer, in the order they finished.
    fn settle(&mut self) {
        while let Some(id) = self.core.next_finished() {
            self.mpi().transfer_done(id);
        }
    }

    /// Records that `actor` ended with `code`, warning as SimGrid does
    /// when the code is not 0, and when a rank's program initialised MPI
    /// but did not finalise it.
    fn actor_ended(&mut self, actor: usize, code: i32) {
        self.core.finish(actor, code);
        self.thread_ended(actor);
        // A rank's program ends with its main thread, whose actor is
        // numbered as the rank.
        if actor == self.core.actor(actor).rank() && !self.tracers.is_empty() {
            self.tracers.rank_ended(self.core.now(), actor);
        }
        if self.aborted.is_some() || self.quiet {
            // MPI_Abort (or a fatal MPI error) says it all; -quiet (a
            // program run directly, say) asks for the program's output alone.
            return;
        }
        let rank = self.core.actor(actor).rank();
        // The actors a rank created end without MPI_Finalize.
        let finalized = actor != rank
            || self
                .mpi
                .ranks
                .get(rank)
                .is_none_or(|m| !m.initialized || m.finalized);
        let message = if code != 0 {
            format!("SMPI process did not return 0. Return value : {code}")
        } else if !finalized {
            self.unfinalized += 1;
            if self.unfinalized > UNFINALIZED_SHOWN {
                return;
            }
            format!(
                "rank {rank} ended without calling MPI_Finalize (every rank that calls \
                 MPI_Init must call it)"
            )
        } else {
            return;
        };
        log::simgrid(
            log::SimGrid::SmpiKernel,
            log::Priority::Warning,
            log::Source::Actor(actors::log_actor(self, actor)),
            self.core.now(),
            &message,
        );
    }

    /// What follows the end of simulated thread `actor` (if it is one):
    /// its joiner goes on, and so does its rank's main thread if it waits
    /// in `pthread_exit` for the rank's threads.
    fn thread_ended(&mut self, actor: usize) {
        if let Some(joiner) = self.threads.ended(actor) {
            self.core.wake_actor(joiner);
        }
        let rank = self.core.actor(actor).rank();
        self.mem.forget_actor(rank, actor);
        if actor != rank && self.threads.waits_for_threads(rank) {
            self.core.wake_actor(rank);
        }
    }

    /// The actors that end with `actor`, which just ended with `code`, and
    /// their codes: a rank's simulated threads end with its main thread (a
    /// process ends with its `main`), and a thread that calls `exit` ends
    /// its rank, whose code is then `code`.
    fn ending_with(&mut self, actor: usize, code: i32) -> Vec<(usize, i32)> {
        if !self.threads.any() {
            return Vec::new();
        }
        let rank = self.core.actor(actor).rank();
        let exits_rank = actor == rank || self.threads.exits_rank(actor);
        if !exits_rank {
            return Vec::new();
        }
        let mut ending: Vec<(usize, i32)> = self
            .threads
            .live_of(self.core.actors_of(rank))
            .into_iter()
            .filter(|&a| a != actor)
            .map(|a| (a, 0))
            .collect();
        if actor != rank && self.core.actor(rank).state() != RunState::Done {
            ending.insert(0, (rank, code));
        }
        ending
    }

    /// Counts an event of the maestro for the progress lines.
    fn tick(&mut self) {
        let core = &self.core;
        self.progress.tick(|| crate::progress::Snapshot {
            simulated: core.now(),
            done: (0..core.size())
                .filter(|&r| core.actor(r).state() == RunState::Done)
                .count(),
            ranks: core.size(),
        });
    }

    /// The first non-zero exit code of the actors that already ended (ranks
    /// first), with the rank: after a deadlock, the likely cause.
    fn early_exit(&self) -> Option<(usize, i32)> {
        self.core
            .actors()
            .iter()
            .find_map(|a| a.exit_code().filter(|&c| c != 0).map(|c| (a.rank(), c)))
    }

    /// Moves the clock to `t` and settles what ends then.
    fn advance(&mut self, t: f64) {
        self.core.advance(t);
        self.settle();
    }

    /// The line that ends a run stopped by a time limit at `simulated`:
    /// the limit, the date, and where the ranks were (by the call they
    /// were in; ranks in no call were running their own code).
    fn limit_report(&self, kind: LimitKind, simulated: f64) -> String {
        let what = match kind {
            LimitKind::Wall => self.limits.wall.as_ref(),
            LimitKind::Simulated => self.limits.simulated.as_ref(),
        }
        .map_or_else(
            || format!("{} limit", kind.name()),
            |l| l.describe(kind.name()),
        );
        let core = &self.core;
        // (what, ranks), in order of each group's lowest rank.
        let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
        let mut finished = 0;
        for rank in 0..core.size() {
            let actor = core.actor(rank);
            let doing = match actor.state() {
                RunState::Done => {
                    finished += 1;
                    continue;
                }
                // The burst of its own code measured before an MPI call.
                RunState::Blocked if actor.blocked_in().call == "computation" => {
                    "computing".to_string()
                }
                RunState::Blocked => format!("in {}", actor.blocked_in().call),
                RunState::Ready | RunState::Created => "running".to_string(),
            };
            match groups.iter_mut().find(|(d, _)| *d == doing) {
                Some((_, ranks)) => ranks.push(rank),
                None => groups.push((doing, vec![rank])),
            }
        }
        const GROUPS_SHOWN: usize = 6;
        let mut parts: Vec<String> = groups
            .iter()
            .take(GROUPS_SHOWN)
            .map(|(doing, ranks)| format!("{} {doing}", rank_list(ranks)))
            .collect();
        if groups.len() > GROUPS_SHOWN {
            let rest: usize = groups[GROUPS_SHOWN..].iter().map(|g| g.1.len()).sum();
            parts.push(format!("{rest} more ranks elsewhere"));
        }
        if finished > 0 {
            parts.push(format!("{finished} finished"));
        }
        format!(
            "smpirun: {what} reached at simulated time {simulated:.6} s; stopped with {}",
            parts.join(", ")
        )
    }

    /// The deadlock report: every blocked actor (rank, or actor a rank
    /// created) with its call.
    fn deadlock_report(&self) -> String {
        let core = &self.core;
        let mut s = format!(
            "smpirun: deadlock at simulated time {:.6} s: no rank can progress and no \
             event is pending.\n",
            core.now()
        );
        let blocked: Vec<usize> = (0..core.actors().len())
            .filter(|&a| core.actor(a).state() == RunState::Blocked)
            .collect();
        const SHOWN: usize = 64;
        for &a in blocked.iter().take(SHOWN) {
            let b = core.actor(a).blocked_in();
            let detail = match &b.detail {
                Detail::None => String::new(),
                Detail::Text(t) => (*t).to_string(),
                Detail::Owned(t) => t.clone(),
                Detail::Sleep(seconds) => format!("for {seconds:e} s"),
                Detail::Compute(flops) => format!("computing {flops:e} flops"),
                Detail::Requests { first, pending } => {
                    let mut d = self.mpi.describe_request(*first);
                    if *pending > 1 {
                        d.push_str(&format!(", and {} more pending requests", pending - 1));
                    }
                    d
                }
            };
            s.push_str(&format!(
                "  {} is blocked in {}({detail})\n",
                actors::describe(self, a),
                b.call
            ));
        }
        if blocked.len() > SHOWN {
            s.push_str(&format!(
                "  ... and {} more blocked ranks\n",
                blocked.len() - SHOWN
            ));
        }
        let done = core.actors()[..core.size()]
            .iter()
            .filter(|r| r.state() == RunState::Done)
            .count();
        match self.early_exit() {
            Some((rank, code)) => s.push_str(&format!(
                "  ({done} ranks already finished, among them rank {rank} with exit code {code}: \
                 the others may be waiting for it)\n"
            )),
            None if done > 0 => s.push_str(&format!("  ({done} ranks already finished)\n")),
            None => {}
        }
        s
    }
}

thread_local! {
    static SIM: RefCell<Option<Sim>> = const { RefCell::new(None) };
    /// The rank that started this thread itself, if one did
    /// (`abi::threads`); `usize::MAX` if none.
    static STARTED_BY: Cell<usize> = const { Cell::new(usize::MAX) };
    /// The MPI function this thread is in, for the message of
    /// [`outside_simulation`].
    static CURRENT_CALL: Cell<&'static str> = const { Cell::new("") };
}

/// The exit code of a run that a rank's own thread ended by calling MPI.
pub const THREAD_MISUSE_EXIT: i32 = 1;

/// Notes that `rank` started the calling thread.
pub fn note_thread_of_rank(rank: usize) {
    STARTED_BY.with(|c| c.set(rank));
}

/// Notes the MPI function the calling thread enters.
pub fn note_call(name: &'static str) {
    CURRENT_CALL.with(|c| c.set(name));
}

/// The MPI call the running rank entered last ("" before its first).
pub fn current_call() -> &'static str {
    CURRENT_CALL.with(Cell::get)
}

/// An MPI call from a thread without the simulation: from a real thread
/// started on a rank (OpenMP's workers, a threaded library's), the run
/// ends with one line (the rank, the call, what to do) and
/// [`THREAD_MISUSE_EXIT`]; anything else is an internal error.
fn outside_simulation() -> ! {
    let started_by = STARTED_BY.with(Cell::get);
    if started_by == usize::MAX {
        panic!("MPI was called outside smpirun (no simulation is running)");
    }
    // The rank running now is the one waiting for the thread (in
    // pthread_join, or at the end of its OpenMP region, whose pooled
    // threads another rank may have started).
    let rank = context::running_rank().unwrap_or(started_by);
    let call = CURRENT_CALL.with(Cell::get);
    let call = if call.is_empty() {
        "an MPI function"
    } else {
        call
    };
    crate::flush_c_stdio();
    eprintln!(
        "smpirun: rank {rank} called {call} from a thread smpirun does not simulate (an OpenMP \
         parallel region's, or one a threaded library started): only a rank's main thread and \
         the threads it starts with pthread_create (or std::thread) may call MPI; make the MPI \
         calls outside parallel regions, or in `omp master`"
    );
    // SAFETY: _exit ends the process at once; it reads no memory of ours.
    // The simulation's thread is still running: exit handlers must not
    // run under its feet.
    unsafe { libc::_exit(THREAD_MISUSE_EXIT) }
}

/// Runs `f` on the simulation. Panics if called outside a simulation or
/// from inside another `with` (which would be a bug in the runtime). From
/// a rank, `f` runs on the maestro's stack (see
/// [`context::off_rank_stack`]).
pub fn with<R>(f: impl FnOnce(&mut Sim) -> R) -> R {
    context::off_rank_stack(|| {
        SIM.with(|cell| {
            let mut guard = cell
                .try_borrow_mut()
                .expect("internal error: re-entrant access to the simulation state");
            let Some(sim) = guard.as_mut() else {
                outside_simulation()
            };
            f(sim)
        })
    })
}

/// Runs `f` on the simulation if one runs and nothing else holds it now
/// (for the interposed malloc family, which the runtime's own code calls
/// too, while it holds the simulation); `None` otherwise.
pub fn try_with<R>(f: impl FnOnce(&mut Sim) -> R) -> Option<R> {
    context::off_rank_stack(|| {
        SIM.try_with(|cell| {
            let mut guard = cell.try_borrow_mut().ok()?;
            guard.as_mut().map(f)
        })
        .ok()
        .flatten()
    })
}

/// Runs `f` on the MPI layer of the simulation (see [`with`]).
pub fn mpi<R>(f: impl FnOnce(&mut mpi::Ctx<'_>) -> R) -> R {
    with(|s| f(&mut s.mpi()))
}

/// Installs `sim` as this thread's simulation.
pub fn install(sim: Sim) {
    fast(|f| {
        f.simulate_computation.set(sim.bench.simulate);
        f.bench_wall_clock.set(sim.bench.wall_clock);
        f.bench_threshold.set(sim.bench.threshold);
        f.auto_fold_threshold.set(sim.mem.auto_fold_threshold);
        f.pending_flops.set(false);
        f.pending_nbc.set(0);
        f.any_folded.set(false);
        f.observed.set(!sim.core.observers_ref().is_empty());
        f.analysing.set(sim.allocs.is_some());
        f.locating.set(sim.mpi.ledger.tracks_locations());
        f.threads_started.set(sim.threads.any());
        f.overhead_owed.set(false);
    });
    SIM.with(|cell| *cell.borrow_mut() = Some(sim));
}

/// Removes and returns this thread's simulation.
pub fn uninstall() -> Option<Sim> {
    SIM.with(|cell| cell.borrow_mut().take())
}

/// Parks the running actor until something wakes it.
pub fn park() {
    context::suspend(Suspend::Park);
}

/// How many times a rank parked so far (see [`context::parks`]).
pub fn parks() -> u64 {
    context::parks()
}

/// Sleeps the running actor for `seconds` of simulated time.
pub fn sleep(seconds: f64, call: &'static str) {
    sleep_as(seconds, call, Wake::Slept);
}

/// [`sleep`] for a wait SimGrid models as `wake` (a computation bounded
/// to its duration: MPI_Iprobe's charge), which decides the order of the
/// wakes begun at one date.
pub fn sleep_as(seconds: f64, call: &'static str, wake: Wake) {
    if seconds.is_nan() || seconds <= 0.0 {
        return;
    }
    wait_for_timer(
        |core| core.start_wait(seconds, call, wake),
        call,
        Detail::Sleep(seconds),
    );
}

/// Lets the other ready actors run before the running one goes on, or,
/// with none ready, the clock move to the next event (see
/// [`Core::start_yield`]).
pub fn yield_now(call: &'static str) {
    wait_for_timer(
        |core| core.start_yield(call),
        call,
        Detail::Text("its next event"),
    );
}

/// Lets the actors ready at this date run first where SimGrid's actor
/// would make a simcall answered at once (see [`Core::pass_turn`]): the
/// order in which ranks polling at one date read SimGrid's shared poll
/// counters follows from its scheduling rounds.
pub fn pass_turn() {
    park_for_turn(with(|s| s.core.pass_turn()));
}

/// Parks the running actor if `taken`: what [`Core::pass_turn`] said,
/// asked inside an access that did more (one access per call on the
/// paths of every message).
pub fn park_for_turn(taken: bool) {
    if taken {
        park();
    }
}

/// Starts a sleep (or a yield) with `start`, and parks the running actor
/// until its timer rings, if it has to (blocked in `call`, `detail`).
fn wait_for_timer(start: impl FnOnce(&mut Core) -> Sleep, call: &'static str, detail: Detail) {
    let blocked = with(|s| match start(&mut s.core) {
        Sleep::InPlace => {
            // The clock moved without the maestro: an event of its own.
            s.tick();
            s.settle();
            false
        }
        Sleep::Blocked => true,
    });
    if !blocked {
        return;
    }
    loop {
        park();
        if !with(|s| s.core.running().sleeping()) {
            break;
        }
        let detail = detail.clone();
        with(|s| s.core.block_current(call, detail));
    }
}

/// Runs `flops` of computation on the running actor's host.
pub fn execute(flops: f64, call: &'static str) {
    if flops.is_nan() || flops <= 0.0 {
        return;
    }
    with(|s| s.core.start_exec(flops, call));
    loop {
        park();
        if with(|s| !s.core.running().computing()) {
            break;
        }
        with(|s| s.core.block_current(call, Detail::Compute(flops)));
    }
    // Back inside MPI: the handshakes that waited for this rank go on
    // (`weak` progression).
    if with(|s| !s.mpi.deferred.is_empty()) {
        mpi(|w| w.start_deferred());
    }
}

/// Moves `bytes` to or from disk `disk` (an index in `Platform::disks`)
/// for the running actor, which waits until the operation ends.
pub fn disk_io(disk: usize, bytes: f64, kind: crate::engine::io::IoKind, call: &'static str) {
    if !with(|s| s.core.start_io(disk, bytes, kind, call)) {
        return;
    }
    loop {
        park();
        if with(|s| !s.core.running().doing_io()) {
            break;
        }
        with(|s| s.core.block_current(call, Detail::Text("disk I/O")));
    }
}

/// How a simulation ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every rank finished; the first non-zero exit code, or 0.
    Finished { code: i32, simulated: f64 },
    /// MPI_Abort was called.
    Aborted {
        rank: usize,
        code: i32,
        simulated: f64,
    },
    /// No rank can progress; `code` is the exit code of a rank that ended
    /// early with a non-zero code, if one did, else 1.
    Deadlock {
        report: String,
        code: i32,
        simulated: f64,
    },
    /// A rank could not be started (for example its copy failed to load).
    Failed { message: String, simulated: f64 },
    /// A time limit (`engine::limit`) stopped the run; `report` is the
    /// line that says so.
    TimeLimit { report: String, simulated: f64 },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Finished { code, .. } => write!(f, "finished with exit code {code}"),
            Outcome::Aborted { rank, code, .. } => {
                write!(f, "rank {rank} called MPI_Abort with error code {code}")
            }
            Outcome::Deadlock { report, .. } => f.write_str(report),
            Outcome::Failed { message, .. } => f.write_str(message),
            Outcome::TimeLimit { report, .. } => f.write_str(report),
        }
    }
}

/// "rank 3" or "ranks 0-2,5,7-9" (at most 8 ranges, then how many more).
fn rank_list(ranks: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &r in ranks {
        match ranges.last_mut() {
            Some(last) if last.1 + 1 == r => last.1 = r,
            _ => ranges.push((r, r)),
        }
    }
    const RANGES_SHOWN: usize = 8;
    let mut text: Vec<String> = ranges
        .iter()
        .take(RANGES_SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    if ranges.len() > RANGES_SHOWN {
        let shown: usize = ranges[..RANGES_SHOWN].iter().map(|r| r.1 - r.0 + 1).sum();
        text.push(format!("... ({} more)", ranks.len() - shown));
    }
    let noun = if ranks.len() == 1 { "rank" } else { "ranks" };
    format!("{noun} {}", text.join(","))
}

/// How many ranks ending without MPI_Finalize are named one by one.
const UNFINALIZED_SHOWN: usize = 4;

/// The outcome of a run that a time limit stops now. Under the wall-time
/// limit, the watchdog is told first; if it is already ending the process
/// (the simulation came back too late), this waits for it.
fn stopped(kind: LimitKind) -> Outcome {
    if !with(|s| s.core.claim_stop()) {
        limit::wait_for_forced_exit();
    }
    let (report, simulated) = with(|s| {
        let simulated = match kind {
            LimitKind::Wall => s.core.now(),
            LimitKind::Simulated => s.core.simulated_limit(),
        };
        (s.limit_report(kind, simulated), simulated)
    });
    Outcome::TimeLimit { report, simulated }
}

/// A coroutine and its guard zone.
pub type Coroutine = (context::RankCoroutine, (usize, usize));

/// Creates the actors' coroutines on demand.
pub trait RankFactory {
    /// The coroutine of `rank`'s main actor, or a message saying why not.
    fn create(&mut self, rank: usize) -> Result<Coroutine, String>;

    /// The coroutine of an actor that rank `rank` started, running `body`,
    /// or a message saying why not.
    fn spawn(&mut self, rank: usize, body: actors::Body) -> Result<Coroutine, String>;
}

/// The maestro: runs actors and events until every started actor is done.
pub fn run(factory: &mut dyn RankFactory) -> Outcome {
    let n = with(|s| s.core.size());
    let mut coroutines: Vec<Option<Coroutine>> = (0..n).map(|_| None).collect();
    // Actors already started hold C frames: they are dropped unresumed.
    let discard_all = |coroutines: &mut Vec<Option<Coroutine>>| {
        for (co, _) in coroutines.iter_mut().filter_map(Option::take) {
            context::discard(co);
        }
    };
    // Where each parked actor left its stack (context::left_at), to fetch
    // those lines ahead of its resumption (0: none yet).
    let mut left_at: Vec<usize> = Vec::new();
    loop {
        while let Some((actor, rank, next)) = with(|s| {
            s.tick();
            s.core
                .pop_ready()
                .map(|a| (a, s.core.actor(a).rank(), s.core.next_ready()))
        }) {
            // This actor's stack lines arrive while its memory is put in
            // place, the next one's while this one runs.
            for a in [Some(actor), next].into_iter().flatten() {
                if let Some(&at) = left_at.get(a).filter(|&&at| at != 0) {
                    context::prefetch_stack(at);
                }
            }
            if coroutines.len() <= actor {
                coroutines.resize_with(actor + 1, || None);
            }
            if coroutines[actor].is_none() {
                let made = if actor < n {
                    factory.create(rank)
                } else {
                    // A started actor's first run (its body is taken once).
                    match with(|s| actors::take_body(s, actor)) {
                        Some(body) => factory.spawn(rank, body),
                        None => continue,
                    }
                };
                match made {
                    Ok(c) => coroutines[actor] = Some(c),
                    Err(message) => {
                        let simulated = with(|s| s.core.now());
                        discard_all(&mut coroutines);
                        return Outcome::Failed { message, simulated };
                    }
                }
            }
            with(|s| {
                s.core.set_current(actor);
                s.mem.activate(rank);
                s.mem.run_actor(rank, actor);
                fast(|f| f.set_mark(s.core.running().cpu_mark));
            });
            let Some((co, guard)) = coroutines[actor].as_mut() else {
                continue;
            };
            let why = context::resume(co, rank, *guard);
            let mark = fast(Fast::mark);
            if why == Suspend::Park {
                if left_at.len() <= actor {
                    left_at.resize(actor + 1, 0);
                }
                left_at[actor] = context::left_at();
            }
            if let Suspend::Exit(code) = why {
                let ending = with(|s| {
                    s.actor_ended(actor, code);
                    s.ending_with(actor, code)
                });
                if let Some((co, _)) = coroutines[actor].take() {
                    context::discard(co);
                }
                for (other, code) in ending {
                    with(|s| {
                        s.core.end_actor(other, code);
                        s.thread_ended(other);
                    });
                    if let Some((co, _)) = coroutines.get_mut(other).and_then(Option::take) {
                        context::discard(co);
                    }
                }
            }
            // One access for what every resume ends with: the actor's mark
            // kept, and whether the run must stop.
            let (failure, aborted, stop) = with(|s| {
                s.core.running_mut().cpu_mark = mark;
                (s.core.take_failure(), s.aborted, s.core.stop_raised())
            });
            if let Some(message) = failure {
                let simulated = with(|s| s.core.now());
                discard_all(&mut coroutines);
                return Outcome::Failed { message, simulated };
            }
            if let Some((rank, code)) = aborted {
                let simulated = with(|s| s.core.now());
                discard_all(&mut coroutines);
                return Outcome::Aborted {
                    rank,
                    code,
                    simulated,
                };
            }
            if stop {
                discard_all(&mut coroutines);
                return stopped(LimitKind::Wall);
            }
        }
        if with(|s| s.core.live()) == 0 {
            let (code, simulated, unfinalized) =
                with(|s| (s.core.exit_code(), s.core.now(), s.unfinalized));
            if unfinalized > UNFINALIZED_SHOWN {
                log::simgrid(
                    log::SimGrid::SmpiKernel,
                    log::Priority::Warning,
                    log::Source::Maestro,
                    simulated,
                    &format!(
                        "... and {} more ranks ended without calling MPI_Finalize",
                        unfinalized - UNFINALIZED_SHOWN
                    ),
                );
            }
            return Outcome::Finished { code, simulated };
        }
        if with(|s| s.core.stop_raised()) {
            discard_all(&mut coroutines);
            return stopped(LimitKind::Wall);
        }
        let next = with(|s| s.core.next_event());
        match next {
            Some(t) if t > with(|s| s.core.simulated_limit()) => {
                discard_all(&mut coroutines);
                return stopped(LimitKind::Simulated);
            }
            Some(t) => with(|s| {
                s.tick();
                s.advance(t)
            }),
            None => {
                let (report, code, simulated) = with(|s| {
                    let code = s.early_exit().map_or(1, |(_, code)| code);
                    (s.deadlock_report(), code, s.core.now())
                });
                discard_all(&mut coroutines);
                return Outcome::Deadlock {
                    report,
                    code,
                    simulated,
                };
            }
        }
    }
}
