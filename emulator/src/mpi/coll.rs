//! Runs collective schedules (from the `collectives` crate) over the
//! point-to-point layer, on the communicator's collective context.

use std::ffi::c_void;
use std::rc::Rc;

use collectives as algo;
use collectives::{Block, Buf, CollError, Comm, Local, Schedule};

use super::datatype::{self, Datatype};
use super::op::{self, ReduceOp};
use super::{class, is_complete, wait_for, CommView, Ctx, MpiError, MpiResult, ReqId, SendMode};
use crate::config::{Config, Kind, OptionSpec, Options};
use crate::{actors, log, sim};

/// The options that choose the collectives' algorithms.
#[rustfmt::skip]
pub const OPTIONS: Options = &[
    OptionSpec { name: "smpi/errors-are-fatal", kind: Kind::Bool, default: "yes", help: "the error handler of communicators and windows the program gives none: MPI_ERRORS_ARE_FATAL (yes) or MPI_ERRORS_RETURN (no), as in SimGrid" },
    OptionSpec { name: "smpi/init", kind: Kind::Float, default: "0", help: "simulated seconds MPI_Init (and MPI_Init_thread) takes, as in SimGrid" },
    OptionSpec { name: "smpi/finalization-barrier", kind: Kind::Bool, default: "no", help: "MPI_Finalize starts with a barrier on MPI_COMM_WORLD, as in SimGrid (so that no rank leaves while others still need it)" },
    OptionSpec { name: "smpi/allgather", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allgather and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/allgatherv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allgatherv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/allreduce", kind: Kind::Text, default: "default", help: "algorithm of MPI_Allreduce and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/alltoall", kind: Kind::Text, default: "default", help: "algorithm of MPI_Alltoall and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/alltoallv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Alltoallv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/barrier", kind: Kind::Text, default: "default", help: "algorithm of MPI_Barrier and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/bcast", kind: Kind::Text, default: "default", help: "algorithm of MPI_Bcast and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/coll-selector", kind: Kind::Text, default: "default", help: "who picks the algorithm of collectives left at default: default (SimGrid's), ompi (Open MPI's tables) or mpich (MPICH's logic)" },
    OptionSpec { name: "smpi/coll-radix", kind: Kind::Int, default: "4", help: "k of the radix-k collective algorithms (recursive_k allreduce, bruck_k and ring_k alltoall)" },
    OptionSpec { name: "smpi/exscan", kind: Kind::Text, default: "default", help: "algorithm of MPI_Exscan and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/gather", kind: Kind::Text, default: "default", help: "algorithm of MPI_Gather and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/gatherv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Gatherv and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/reduce", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/reduce_scatter", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce_scatter and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/reduce_scatter_block", kind: Kind::Text, default: "default", help: "algorithm of MPI_Reduce_scatter_block and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scan", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scan and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scatter", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scatter and its non-blocking form (smpirun -help-coll lists them)" },
    OptionSpec { name: "smpi/scatterv", kind: Kind::Text, default: "default", help: "algorithm of MPI_Scatterv and its non-blocking form (smpirun -help-coll lists them)" },
];

/// A line of the running rank's in SimGrid's `smpi_colls` category: what
/// SimGrid's collective algorithms say as they run (a fallback they take,
/// `automatic`'s verdict), with where SimGrid's sources say it.
pub fn say(priority: log::Priority, location: Option<log::Location<'_>>, message: &str) {
    if !log::enabled(log::SimGrid::SmpiColls, priority) {
        return;
    }
    sim::with(|s| {
        let actor = actors::log_actor(s, s.core.current_actor());
        let source = log::Source::Actor(actor);
        let now = s.core.now();
        log::simgrid_at(
            log::SimGrid::SmpiColls,
            priority,
            source,
            now,
            location,
            message,
        );
    });
}

/// The user buffers of one collective call.
#[derive(Debug, Clone, Copy)]
pub struct Buffers {
    pub send: usize,
    pub send_type: i32,
    pub recv: usize,
    pub recv_type: i32,
}

impl Buffers {
    /// A collective without data (barrier).
    pub fn none() -> Self {
        Self {
            send: 0,
            send_type: datatype::BYTE,
            recv: 0,
            recv_type: datatype::BYTE,
        }
    }
}

/// The algorithm of each collective (`--cfg=smpi/<collective>:<name>`,
/// SimGrid's option names; `default` is what SimGrid's default selector
/// runs).
#[derive(Debug, Clone, Copy, Default)]
pub struct Algorithms {
    pub barrier: algo::BarrierAlgorithm,
    pub bcast: algo::BcastAlgorithm,
    pub reduce: algo::ReduceAlgorithm,
    pub allreduce: algo::AllreduceAlgorithm,
    pub gather: algo::GatherAlgorithm,
    pub gatherv: algo::GathervAlgorithm,
    pub scatter: algo::ScatterAlgorithm,
    pub scatterv: algo::ScattervAlgorithm,
    pub allgather: algo::AllgatherAlgorithm,
    pub allgatherv: algo::AllgathervAlgorithm,
    pub alltoall: algo::AlltoallAlgorithm,
    pub alltoallv: algo::AlltoallvAlgorithm,
    pub reduce_scatter: algo::ReduceScatterAlgorithm,
    pub reduce_scatter_block: algo::ReduceScatterBlockAlgorithm,
    pub scan: algo::ScanAlgorithm,
    pub exscan: algo::ExscanAlgorithm,
    /// The k of the radix-k algorithms (`smpi/coll-radix`).
    pub radix: usize,
    /// Who decides, per collective (by `Collective as usize`), when its
    /// algorithm is `default`: `smpi/coll-selector`, or a selector named
    /// as the collective's algorithm (`smpi/bcast:ompi`, as in SimGrid).
    pub selectors: [algo::Selector; 16],
}

/// SimGrid 3.32's algorithm names that smpirun does not implement, by
/// collective: accepted with a warning, SimGrid's default algorithm
/// running instead (its selectors are mvapich2, impi and automatic).
#[rustfmt::skip]
const SIMGRID_ONLY: &[(&str, &[&str])] = &[
    ("allgather", &["2dmesh", "3dmesh", "GB", "loosely_lr", "NTSLR", "NTSLR_NB", "pair", "rhv", "SMP_NTS", "smp_simple", "spreading_simple", "mvapich2_smp"]),
    ("alltoall", &["2dmesh", "3dmesh", "pair_rma", "pair_light_barrier", "pair_mpi_barrier", "pair_one_barrier", "rdb", "ring_light_barrier", "ring_mpi_barrier", "ring_one_barrier", "mvapich2_scatter_dest"]),
    ("alltoallv", &["bruck", "pair", "pair_light_barrier", "pair_mpi_barrier", "pair_one_barrier", "ring_light_barrier", "ring_mpi_barrier", "ring_one_barrier", "ompi_basic_linear"]),
    ("barrier", &["ompi_two_procs", "ompi_doublering", "mpich_smp", "mvapich2_pair"]),
    ("bcast", &["arrival_pattern_aware", "arrival_pattern_aware_wait", "arrival_scatter", "NTSL_Isend", "SMP_binary", "SMP_binomial", "SMP_linear", "mvapich2_inter_node", "mvapich2_intra_node"]),
    ("gather", &["mvapich2_two_level"]),
    ("reduce", &["arrival_pattern_aware", "flat_tree", "NTSL", "mvapich2_knomial", "mvapich2_two_level", "rab"]),
    ("reduce_scatter", &["mpich_noncomm"]),
    ("scatter", &["ompi_linear_nb", "mvapich2_two_level_binomial", "mvapich2_two_level_direct"]),
];

/// SimGrid's selectors smpirun does not implement.
const SIMGRID_ONLY_SELECTORS: &[&str] = &["mvapich2", "impi", "automatic"];

/// SimGrid's "Switch to algorithm X for collective Y" lines: for each of
/// the collectives SimGrid lets choose, in its order, the algorithm (or
/// selector) that is not its default, as `smpi/<collective>` or else
/// `smpi/coll-selector` names it. Names smpirun does not implement (see
/// [`SIMGRID_ONLY`]) are left out: a warning says they have no effect.
pub fn algorithm_switches(cfg: &Config) -> Vec<String> {
    const SIMGRID_ORDER: [&str; 11] = [
        "gather",
        "allgather",
        "allgatherv",
        "allreduce",
        "alltoall",
        "alltoallv",
        "reduce",
        "reduce_scatter",
        "scatter",
        "bcast",
        "barrier",
    ];
    let selector = cfg.text("smpi/coll-selector");
    SIMGRID_ORDER
        .iter()
        .filter_map(|&collective| {
            let named = cfg.text(&format!("smpi/{collective}"));
            let name = if named == "default" { selector } else { named };
            let implemented = algo::algorithm_names()
                .iter()
                .any(|(c, n)| c.name() == collective && *n == name)
                || name.parse::<algo::Selector>().is_ok();
            (name != "default" && implemented)
                .then(|| format!("Switch to algorithm {name} for collective {collective}"))
        })
        .collect()
}

impl Algorithms {
    /// Reads `smpi/<collective>` from `cfg`; an unknown name is refused
    /// with the list of valid ones.
    pub fn from_config(cfg: &Config) -> Result<Algorithms, String> {
        Self::from_config_noting(cfg).map(|(a, _)| a)
    }

    /// [`Self::from_config`], with a warning for each of SimGrid's names
    /// that smpirun accepts without implementing them.
    pub fn from_config_noting(cfg: &Config) -> Result<(Algorithms, Vec<String>), String> {
        let global: algo::Selector = {
            let name = cfg.text("smpi/coll-selector");
            name.parse().map_err(|_| {
                format!(
                    "option smpi/coll-selector: no selector '{name}' (available: {})",
                    algo::Selector::ALL.map(algo::Selector::name).join(", ")
                )
            })?
        };
        let mut selectors = [global; 16];
        let mut notes = Vec::new();
        /// The algorithm `smpi/<key>` names; a selector's name picks the
        /// default algorithm with that selector.
        fn pick<A: algo::Algorithm + Default>(
            cfg: &Config,
            key: &str,
            selectors: &mut [algo::Selector; 16],
            notes: &mut Vec<String>,
        ) -> Result<A, String> {
            let value = cfg.text(&format!("smpi/{key}"));
            if let Ok(a) = value.parse::<A>() {
                return Ok(a);
            }
            let slot = &mut selectors[A::COLLECTIVE as usize];
            if let Ok(selector) = value.parse::<algo::Selector>() {
                *slot = selector;
                return Ok(A::default());
            }
            let simgrid_only = SIMGRID_ONLY_SELECTORS.contains(&value)
                || SIMGRID_ONLY
                    .iter()
                    .any(|(k, names)| *k == key && names.contains(&value));
            if simgrid_only {
                notes.push(format!(
                    "option 'smpi/{key}' (set to '{value}') has no effect here: SimGrid's \
                     '{value}' is not implemented in smpirun, so SimGrid's default algorithm \
                     runs (smpirun -help-coll lists the implemented ones)"
                ));
                *slot = algo::Selector::Default;
                return Ok(A::default());
            }
            let names: Vec<&str> = A::ALL.iter().map(|a| a.name()).collect();
            Err(format!(
                "option smpi/{key}: no algorithm '{value}' (available: {}, or a selector: {}; \
                 smpirun -help-coll describes them)",
                names.join(", "),
                algo::Selector::ALL.map(algo::Selector::name).join(", ")
            ))
        }
        let (s, n) = (&mut selectors, &mut notes);
        let algorithms = Algorithms {
            barrier: pick(cfg, "barrier", s, n)?,
            bcast: pick(cfg, "bcast", s, n)?,
            reduce: pick(cfg, "reduce", s, n)?,
            allreduce: pick(cfg, "allreduce", s, n)?,
            gather: pick(cfg, "gather", s, n)?,
            gatherv: pick(cfg, "gatherv", s, n)?,
            scatter: pick(cfg, "scatter", s, n)?,
            scatterv: pick(cfg, "scatterv", s, n)?,
            allgather: pick(cfg, "allgather", s, n)?,
            allgatherv: pick(cfg, "allgatherv", s, n)?,
            alltoall: pick(cfg, "alltoall", s, n)?,
            alltoallv: pick(cfg, "alltoallv", s, n)?,
            reduce_scatter: pick(cfg, "reduce_scatter", s, n)?,
            reduce_scatter_block: pick(cfg, "reduce_scatter_block", s, n)?,
            scan: pick(cfg, "scan", s, n)?,
            exscan: pick(cfg, "exscan", s, n)?,
            selectors,
            radix: match usize::try_from(cfg.int("smpi/coll-radix")) {
                Ok(k) if k >= 2 => k,
                _ => {
                    return Err(format!(
                        "option smpi/coll-radix: the radix must be at least 2, got {}",
                        cfg.int("smpi/coll-radix")
                    ))
                }
            },
        };
        Ok((algorithms, notes))
    }
}

/// Charges the current rank the computation of reducing `bytes`
/// (smpi/reduce-rate): large reductions are not free.
#[inline(never)]
pub fn charge_reduction(bytes: usize) {
    if bytes > 0 {
        let flops = sim::mpi(|w| w.reduction_flops(bytes));
        sim::execute(flops, "reduction");
    }
}

/// The reduction a schedule's `Local::Reduce` steps apply.
#[derive(Debug, Clone, Copy)]
pub enum Reduction {
    None,
    Op(ReduceOp),
}

/// Turns a schedule-building error into the MPI error class it means.
pub fn coll_error(e: CollError) -> MpiError {
    let class = match e {
        CollError::RootOutOfRange { .. } => class::ROOT,
        CollError::Overflow { .. } => class::COUNT,
        _ => class::ARG,
    };
    MpiError::new(class, e.to_string())
}

/// A scratch buffer laid out like `count` elements of a datatype.
pub struct Scratch {
    /// Owns the memory `base` points into.
    _storage: Vec<u8>,
    /// Address of element 0 (the allocation starts at its true lower bound).
    base: usize,
}

impl Scratch {
    pub fn new(ty: &Datatype, count: usize) -> Self {
        let len = if count == 0 {
            0
        } else {
            (count as isize - 1) * ty.extent + ty.true_extent
        };
        let storage = vec![0u8; len.max(0) as usize];
        let base = (storage.as_ptr() as usize).wrapping_sub(ty.true_lb as usize);
        Self {
            _storage: storage,
            base,
        }
    }

    /// Address of element 0, to use as a buffer of the datatype.
    pub fn addr(&self) -> usize {
        self.base
    }
}

struct Layout<'a> {
    bufs: Buffers,
    send_ty: Rc<Datatype>,
    recv_ty: Rc<Datatype>,
    scratch: &'a [Scratch],
}

impl Layout<'_> {
    /// Address and datatype of a block.
    fn locate(&self, b: &Block) -> (usize, &Rc<Datatype>) {
        let (base, ty) = match b.buf {
            Buf::Send => (self.bufs.send, &self.send_ty),
            Buf::Recv => (self.bufs.recv, &self.recv_ty),
            Buf::Tmp(i) => (self.scratch[i as usize].base, &self.recv_ty),
        };
        let addr = base.wrapping_add((b.offset as isize * ty.extent) as usize);
        (addr, ty)
    }
}

/// Executes `sched` for the current rank on `comm`. `call` names the MPI
/// call for deadlock reports.
///
/// Inside `MPI_I<collective>` (see [`start_nonblocking`]) it does not
/// execute but starts the same schedule as a non-blocking collective.
pub fn execute(
    comm: &CommView,
    sched: Schedule,
    bufs: Buffers,
    reduction: Reduction,
    call: &'static str,
) -> MpiResult<()> {
    // The branches that do not wait run in frames of their own (see
    // `context::outlined`).
    if sim::mpi(|w| w.mpi.ranks[w.core.current()].recording.is_some()) {
        return crate::engine::context::outlined(move || {
            let run = Run::new(comm, sched, bufs, reduction)?;
            let recorded = super::nbc::record(super::nbc::Stage::Schedule(Box::new(run)));
            debug_assert!(recorded.is_none(), "the rank is recording");
            Ok(())
        });
    }
    if let Some(request) = take_nonblocking() {
        return crate::engine::context::outlined(move || {
            let id = super::nbc::start(comm, sched, bufs, reduction, call)?;
            sim::mpi(|w| {
                let me = w.core.current();
                let spans = std::mem::take(&mut w.mpi.ranks[me].nbc_guards);
                if !spans.is_empty() {
                    let name = super::verify::collectives::nonblocking_name(call);
                    w.guard_buffers(id, name, &spans);
                }
            });
            // SAFETY: the pointer is the request argument of this rank's
            // MPI_I* call, checked non-null there and still live (we are
            // inside it).
            unsafe { *request = (id + 1) as i32 };
            Ok(())
        });
    }
    // The run lives on the heap, built in a frame of its own: the frame
    // that waits keeps a pointer, not the run and its temporaries (see
    // `context::outlined`).
    let run =
        crate::engine::context::outlined(|| Run::new(comm, sched, bufs, reduction).map(Box::new))?;
    let mut in_flight = Vec::new();
    let mut ids = Vec::new();
    // SimGrid's turns inside the collective (a switch per send, receive
    // and wait: 2.6 times the wall time of a 4,096-rank all-to-all) only
    // in SimGrid's exact order, and only when ranks take turns at all
    // (not under weak progression).
    let turns = sim::mpi(|w| w.core.model().simgrid_order && w.core.takes_turns());
    for r in 0..run.sched.round_count() {
        run.post_into(r, &mut in_flight, &mut ids, turns)?;
        if !ids.is_empty() {
            if sim::mpi(|w| w.mpi.protocol.recv_overhead.is_free()) {
                if turns {
                    super::request::wait_turns(&ids, call);
                }
                wait_for(&ids, call, |w| ids.iter().all(|&id| is_complete(w, id)));
            } else {
                wait_each_paying_overhead(&ids, call);
            }
            collect_requests(&ids, call)?;
        }
        let reduced = run.locals(r)?;
        charge_reduction(reduced);
    }
    Ok(())
}

/// Waits for `ids` as SimGrid's waitall does when receives cost
/// `smpi/or`: in order, each receive paying it as soon as it is complete,
/// while the later ones go on. A frame of its own (see
/// `context::outlined`).
#[inline(never)]
fn wait_each_paying_overhead(ids: &[ReqId], call: &'static str) {
    for &id in ids {
        wait_for(&[id], call, |w| is_complete(w, id));
        let owed = sim::mpi(|w| {
            w.owe_recv_overhead(id);
            let me = w.core.current();
            std::mem::take(&mut w.mpi.ranks[me].pending_overhead)
        });
        sim::sleep(owed, "receive overhead");
    }
}

/// Whether the current call starts a non-blocking collective (or is
/// recorded as a stage of one) rather than running it to completion.
pub fn starting_nonblocking() -> bool {
    sim::mpi(|w| {
        let rank = &w.mpi.ranks[w.core.current()];
        rank.nonblocking.is_some() || rank.recording.is_some()
    })
}

/// The request the current rank's `MPI_I<collective>` asked for, if any
/// (set per rank: the twin may park to account for computation before it
/// reaches its schedule, and other ranks run meanwhile).
fn take_nonblocking() -> Option<*mut i32> {
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me].nonblocking.take()
    })
}

/// Runs `blocking` (the blocking twin of a non-blocking collective, with
/// the same arguments) so that its schedule starts as a non-blocking
/// collective whose handle goes to `request`. A twin that returns without
/// a schedule (nothing to do) leaves a request that is already complete.
///
/// # Safety
/// `request` must be valid for writes until this returns.
pub unsafe fn start_nonblocking(request: *mut i32, blocking: impl FnOnce() -> i32) -> i32 {
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me].nonblocking = Some(request);
    });
    let code = blocking();
    // Guards stashed for a request that was never made (nothing to do).
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me].nbc_guards.clear();
    });
    if take_nonblocking().is_some() && code == class::SUCCESS {
        let id = sim::mpi(|w| w.new_completed_request());
        // SAFETY: valid for writes, by this function's contract.
        unsafe { *request = (id + 1) as i32 };
    }
    code
}

/// One message of a collective; `peer` is a rank of the view's peer group
/// (the remote group of an intercommunicator).
#[derive(Clone)]
pub struct Transfer {
    pub send: bool,
    pub peer: usize,
    pub addr: usize,
    pub count: usize,
    pub dtype: Rc<Datatype>,
}

impl Transfer {
    pub fn send(peer: usize, addr: usize, count: usize, dtype: &Rc<Datatype>) -> Self {
        Self {
            send: true,
            peer,
            addr,
            count,
            dtype: Rc::clone(dtype),
        }
    }

    pub fn recv(peer: usize, addr: usize, count: usize, dtype: &Rc<Datatype>) -> Self {
        Self {
            send: false,
            peer,
            addr,
            count,
            dtype: Rc::clone(dtype),
        }
    }
}

/// Starts `transfers` in order on `view`'s collective context with `tag`;
/// their requests. Each send first costs the sender smpi/ois, as SimGrid
/// charges it when a collective starts a request.
pub fn start_transfers(
    view: &CommView,
    tag: i32,
    transfers: impl ExactSizeIterator<Item = Transfer>,
) -> MpiResult<Vec<ReqId>> {
    let mut ids = Vec::with_capacity(transfers.len());
    start_transfers_into(view, tag, transfers, &mut ids, false)?;
    Ok(ids)
}

/// [`start_transfers`], appending the requests to `ids` (a buffer a
/// schedule reuses from round to round); with `turns`, each start takes
/// the turn SimGrid's actor takes for its isend or irecv simcall (see
/// [`sim::pass_turn`]), as a blocking collective's do.
fn start_transfers_into(
    view: &CommView,
    tag: i32,
    transfers: impl ExactSizeIterator<Item = Transfer>,
    ids: &mut Vec<ReqId>,
    turns: bool,
) -> MpiResult<()> {
    if transfers.len() == 0 {
        return Ok(());
    }
    let free = sim::mpi(|w| w.mpi.protocol.isend_overhead.is_free());
    if free && !turns {
        // Nothing to pay and no turn to take: one access for them all.
        return sim::mpi(|w| {
            for t in transfers {
                ids.push(w.start_collective_request(view, tag, t, None)?);
            }
            Ok(())
        });
    }
    for t in transfers {
        // A send's protocol is decided before its overhead is paid, once.
        let plan = if t.send && !free {
            let bytes = t.count * t.dtype.size;
            let plan = sim::mpi(|w| w.mpi.protocol.plan(SendMode::Standard, bytes, true));
            sim::sleep(plan.overhead, "send overhead");
            Some(plan)
        } else {
            None
        };
        let (id, turn) = sim::mpi(|w| {
            let id = w.start_collective_request(view, tag, t, plan)?;
            Ok::<_, MpiError>((id, turns && w.core.pass_turn()))
        })?;
        ids.push(id);
        sim::park_for_turn(turn);
    }
    Ok(())
}

/// Posts `transfers` at once (in order) on `view`'s collective context
/// with `tag`, and waits for all of them.
pub fn post_and_wait(
    view: &CommView,
    tag: i32,
    transfers: Vec<Transfer>,
    call: &'static str,
) -> MpiResult<()> {
    let ids = start_transfers(view, tag, transfers.into_iter())?;
    wait_for(&ids, call, |w| ids.iter().all(|&id| is_complete(w, id)));
    collect_requests(&ids, call)
}

/// Removes the completed requests `ids` of a collective, failing with the
/// first one's error if a message was truncated.
#[inline(never)]
pub fn collect_requests(ids: &[ReqId], call: &str) -> MpiResult<()> {
    let err = sim::mpi(|w| {
        let mut err = None;
        for &id in ids {
            let st = w.mpi.request(id).status;
            if st.error != 0 && err.is_none() {
                err = Some(MpiError::new(
                    st.error,
                    format!("{call}: a message was truncated (counts differ between ranks?)"),
                ));
            }
            w.mpi.remove_request(id);
        }
        err
    });
    err.map_or(Ok(()), Err)
}

/// One schedule being run for the current rank: its buffers, scratch
/// space and message tag; blocking collectives run it at once,
/// non-blocking ones round by round as their messages complete.
pub struct Run {
    pub comm: CommView,
    bufs: Buffers,
    reduction: Reduction,
    send_ty: Rc<Datatype>,
    recv_ty: Rc<Datatype>,
    scratch: Vec<Scratch>,
    tag: i32,
    pub sched: Schedule,
}

impl Run {
    pub fn new(
        comm: &CommView,
        sched: Schedule,
        bufs: Buffers,
        reduction: Reduction,
    ) -> MpiResult<Run> {
        let (send_ty, recv_ty, tag) = sim::mpi(|w| -> MpiResult<_> {
            let s = Rc::clone(w.mpi.datatype(bufs.send_type)?);
            let r = Rc::clone(w.mpi.datatype(bufs.recv_type)?);
            Ok((s, r, w.next_coll_tag_in(comm.ctx)))
        })?;
        let scratch = sched
            .tmp
            .iter()
            .map(|&n| Scratch::new(&recv_ty, n))
            .collect();
        Ok(Run {
            comm: comm.clone(),
            bufs,
            reduction,
            send_ty,
            recv_ty,
            scratch,
            tag,
            sched,
        })
    }

    fn layout(&self) -> Layout<'_> {
        Layout {
            bufs: self.bufs,
            send_ty: Rc::clone(&self.send_ty),
            recv_ty: Rc::clone(&self.recv_ty),
            scratch: &self.scratch,
        }
    }

    /// Posts the sends and receives of round `r`; the requests due in it:
    /// those of its `comm`, and those of `in_flight` (deferred operations
    /// of earlier rounds, with the round they are due in) due now, which
    /// leave the list as the round's own deferred ones join it.
    pub fn post(&self, r: usize, in_flight: &mut Vec<(ReqId, usize)>) -> MpiResult<Vec<ReqId>> {
        let mut ids = Vec::new();
        self.post_into(r, in_flight, &mut ids, false)?;
        Ok(ids)
    }

    /// [`Self::post`] into `ids` (emptied first), a buffer reused from
    /// round to round; with `turns`, each start takes the turn of
    /// SimGrid's simcall (a blocking collective run by its rank).
    #[inline(never)]
    pub fn post_into(
        &self,
        r: usize,
        in_flight: &mut Vec<(ReqId, usize)>,
        ids: &mut Vec<ReqId>,
        turns: bool,
    ) -> MpiResult<()> {
        ids.clear();
        let round = self.sched.round(r);
        self.start(round.comm.iter(), ids, turns)?;
        let first = ids.len();
        self.start(round.deferred.iter().map(|(c, _)| c), ids, turns)?;
        // Empty for most rounds: collected without allocating.
        let deferred: Vec<ReqId> = ids.drain(first..).collect();
        in_flight.retain(|&(id, due)| {
            if due == r {
                ids.push(id);
            }
            due != r
        });
        in_flight.extend(
            deferred
                .into_iter()
                .zip(round.deferred.iter().map(|&(_, d)| r + d)),
        );
        Ok(())
    }

    /// Starts `ops`, in order, appending their requests to `ids`.
    fn start<'a>(
        &self,
        ops: impl ExactSizeIterator<Item = &'a Comm>,
        ids: &mut Vec<ReqId>,
        turns: bool,
    ) -> MpiResult<()> {
        let ctx = self.layout();
        let transfers = ops.map(|c| {
            let (send, peer, block) = match c {
                Comm::Send { to, data } => (true, *to, data),
                Comm::Recv { from, data } => (false, *from, data),
            };
            let (addr, ty) = ctx.locate(block);
            Transfer {
                send,
                peer,
                addr,
                count: block.count,
                dtype: Rc::clone(ty),
            }
        });
        start_transfers_into(&self.comm, self.tag, transfers, ids, turns)
    }

    /// The local copies and reductions of round `r` (outside any borrow
    /// of the world: a reduction may call the program's operation); the
    /// bytes reduced, for the caller to charge.
    #[inline(never)]
    pub fn locals(&self, r: usize) -> MpiResult<usize> {
        let ctx = self.layout();
        let mut reduced = 0;
        for local in self.sched.round(r).local {
            match local {
                Local::Copy { from, to } => copy_block(&ctx, from, to),
                Local::Reduce { input, inout } => {
                    reduce_block(&ctx, self.reduction, input, inout)?;
                    reduced += inout.count * self.recv_ty.size;
                }
            }
        }
        Ok(reduced)
    }
}

fn copy_block(ctx: &Layout, from: &Block, to: &Block) {
    let (src, sty) = ctx.locate(from);
    let (dst, dty) = ctx.locate(to);
    let mut data = Vec::new();
    // SAFETY: schedule blocks lie within the caller's buffers (MPI's
    // contract on counts) or our scratch buffers.
    unsafe {
        datatype::pack(sty, src as *const c_void, from.count, &mut data);
        datatype::unpack(dty, dst as *mut c_void, &data);
    }
}

/// Checks that `op` is defined on `ty` before a collective starts, so
/// that every rank fails alike instead of the ranks that reduce failing
/// in the middle of the schedule while the others wait for them.
pub fn check_reduction(op: ReduceOp, ty: &Datatype) -> MpiResult<()> {
    // A user operation is defined on whatever its author says.
    let ReduceOp::Builtin(op) = op else {
        return Ok(());
    };
    let undefined = || {
        MpiError::new(
            class::OP,
            format!("{} is not defined for datatype {}", op.name(), ty.name),
        )
    };
    let Some((basic, per_element)) = ty.basic else {
        return Err(undefined());
    };
    let basic = op::arithmetic(basic, ty.size / per_element.max(1));
    let probe = vec![0u8; ty.size / per_element.max(1)];
    let mut out = probe.clone();
    if ty.size > 0 && !op::apply(op, basic, &probe, &mut out) {
        return Err(undefined());
    }
    Ok(())
}

/// inout = input (op) inout for `count` elements of `ty` (handle
/// `dt_handle`) at two addresses: MPI_Reduce_local, and every reduction
/// step of a schedule.
pub fn reduce_local(
    op: ReduceOp,
    ty: &Datatype,
    dt_handle: i32,
    input: usize,
    inout: usize,
    count: usize,
) -> MpiResult<()> {
    match op {
        ReduceOp::User { func, .. } => {
            let mut len = i32::try_from(count)
                .map_err(|_| MpiError::new(class::COUNT, "a reduction of over 2^31 elements"))?;
            let mut dt = dt_handle;
            // SAFETY: the user's function receives two buffers of `len`
            // elements of `dt` (user buffers by MPI's contract on counts,
            // or our scratch laid out like them), as MPI_Op_create's
            // contract says; no borrow of the world is held during the call.
            unsafe {
                func(
                    input as *mut c_void,
                    inout as *mut c_void,
                    &mut len,
                    &mut dt,
                )
            };
            Ok(())
        }
        ReduceOp::Builtin(op) => {
            let undefined = || {
                MpiError::new(
                    class::OP,
                    format!("{} is not defined for datatype {}", op.name(), ty.name),
                )
            };
            let Some((basic, per_element)) = ty.basic else {
                return Err(undefined());
            };
            let basic = op::arithmetic(basic, ty.size / per_element.max(1));
            let mut a = Vec::new();
            let mut b = Vec::new();
            // SAFETY: both addresses hold `count` elements of `ty` (MPI's
            // contract on counts, or our scratch laid out like them).
            unsafe {
                datatype::pack(ty, input as *const c_void, count, &mut a);
                datatype::pack(ty, inout as *const c_void, count, &mut b);
            }
            if !op::apply(op, basic, &a, &mut b) {
                return Err(undefined());
            }
            // SAFETY: as above.
            unsafe { datatype::unpack(ty, inout as *mut c_void, &b) };
            Ok(())
        }
    }
}

fn reduce_block(ctx: &Layout, reduction: Reduction, input: &Block, inout: &Block) -> MpiResult<()> {
    let Reduction::Op(op) = reduction else {
        return Err(MpiError::new(
            class::INTERN,
            "reduction step without an operation",
        ));
    };
    let (src, sty) = ctx.locate(input);
    let (dst, dty) = ctx.locate(inout);
    // Both blocks are `count` elements of the call's datatype; only their
    // layouts' origins differ (send buffer, receive buffer or scratch).
    debug_assert_eq!(sty.size, dty.size);
    let dt_handle = match inout.buf {
        Buf::Send => ctx.bufs.send_type,
        _ => ctx.bufs.recv_type,
    };
    reduce_local(op, dty, dt_handle, src, dst, inout.count)
}

impl Ctx<'_> {
    /// The flops that reducing `bytes` costs the current rank, at
    /// smpi/reduce-rate on its host.
    pub fn reduction_flops(&self, bytes: usize) -> f64 {
        let rate = self.mpi.protocol.reduce_rate;
        if rate <= 0.0 {
            return 0.0;
        }
        bytes as f64 / rate * self.core.speed_of(self.core.current())
    }

    /// Next collective tag on communicator `comm` for the current rank.
    pub fn next_coll_tag(&mut self, comm: i32) -> i32 {
        match self.comm(comm) {
            Ok(v) => self.next_coll_tag_in(v.ctx),
            Err(_) => 0,
        }
    }

    /// Next collective tag in point-to-point context `ctx` (a
    /// communicator's, or an intercommunicator's group-local one) for the
    /// current rank. Keyed by context id, which is never reused (handles
    /// are), and separate per context so that the two groups of an
    /// intercommunicator, whose local phases differ, stay in step on the
    /// shared one.
    pub fn next_coll_tag_in(&mut self, ctx: u32) -> i32 {
        let me = self.core.current();
        if let Some((c, tag)) = self.mpi.ranks[me].reserved_coll_tag {
            if c == ctx {
                self.mpi.ranks[me].reserved_coll_tag = None;
                return tag;
            }
        }
        let seqs = &mut self.mpi.ranks[me].coll_seq;
        match seqs.iter_mut().find(|(c, _)| *c == ctx) {
            Some((_, s)) => {
                *s = s.wrapping_add(1);
                (*s & 0x3fff_ffff) as i32
            }
            None => {
                // Most ranks use one communicator: no room for three more.
                if seqs.capacity() == 0 {
                    seqs.reserve_exact(1);
                }
                seqs.push((ctx, 0));
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use collectives::Collective;

    fn algorithms(pairs: &[&str]) -> Result<(Algorithms, Vec<String>), String> {
        let mut cfg = crate::config::Config::new(&[OPTIONS]);
        for p in pairs {
            cfg.set_pair(p).unwrap();
        }
        Algorithms::from_config_noting(&cfg)
    }

    #[test]
    fn a_selector_may_be_named_per_collective_as_in_simgrid() {
        let (a, notes) = algorithms(&["smpi/bcast:ompi", "smpi/coll-selector:mpich"]).unwrap();
        assert!(notes.is_empty());
        assert_eq!(a.bcast, algo::BcastAlgorithm::default());
        assert_eq!(
            a.selectors[Collective::Bcast as usize],
            algo::Selector::Ompi
        );
        assert_eq!(
            a.selectors[Collective::Reduce as usize],
            algo::Selector::Mpich
        );
        let (a, _) = algorithms(&["smpi/allreduce:rdb"]).unwrap();
        assert_eq!(a.allreduce.to_string(), "rdb");
    }

    #[test]
    fn simgrids_other_names_warn_and_run_simgrids_default() {
        let (a, notes) = algorithms(&[
            "smpi/alltoall:mvapich2",
            "smpi/coll-selector:ompi",
            "smpi/bcast:SMP_binary",
        ])
        .unwrap();
        assert_eq!(
            a.selectors[Collective::Alltoall as usize],
            algo::Selector::Default
        );
        assert_eq!(
            a.selectors[Collective::Bcast as usize],
            algo::Selector::Default
        );
        assert_eq!(
            a.selectors[Collective::Gather as usize],
            algo::Selector::Ompi
        );
        assert_eq!(notes.len(), 2);
        assert!(notes[0].starts_with(
            "option 'smpi/bcast' (set to 'SMP_binary') has no effect here: SimGrid's 'SMP_binary' \
             is not implemented in smpirun"
        ), "{notes:?}");
        // A name SimGrid does not know either is an error.
        let e = algorithms(&["smpi/bcast:SMP_binomal"]).unwrap_err();
        assert!(
            e.starts_with("option smpi/bcast: no algorithm 'SMP_binomal' (available: default,"),
            "{e}"
        );
        assert!(algorithms(&["smpi/scan:pair"]).is_err());
    }
}
