//! Traces of a run: what the MPI calls SimGrid traces were asked with, and
//! the writers that turn them (with the engine's computations) into files.
//!
//! The bindings describe a call ([`Call`]) only when a tracer is attached
//! (`sim::fast(|f| f.observed())`), so that a run without tracing pays one
//! branch per call. A tracer is also an engine observer: it sees
//! computations and transfers through [`Forward`], attached to the core.

pub mod paje;
pub mod perfetto;
pub mod profile;
pub mod ti;

use std::cell::RefCell;
use std::rc::Rc;

use crate::config::{Config, Kind, OptionSpec};
use crate::engine::observe::{Observer, TransferStart};
use crate::engine::TransferId;
use crate::mpi::{self, Ctx};

/// SimGrid's value for a peer that is not a rank (`MPI_ANY_SOURCE` and
/// `MPI_PROC_NULL` in its traces: MPI_UNDEFINED).
pub const NO_PEER: i32 = -333;

/// An MPI call as SimGrid's traces record it: its action name and
/// arguments, counts in elements and datatypes by SimGrid's numbers
/// ([`simgrid_type`]). Peers are ranks of `MPI_COMM_WORLD`.
#[derive(Debug, Clone, PartialEq)]
pub struct Traced {
    /// The action's name in time-independent traces (`send`, `bcast`).
    pub action: &'static str,
    pub args: Args,
    /// The bytes of the call's buffer, for profiles (no trace writes
    /// them): count times the datatype's size of the send buffer, whole
    /// (an alltoall's `n` blocks, a v-collective's counts summed, a
    /// scatter's root its `n` blocks), or of the receive buffer for calls
    /// that only receive (receives, the other ranks of a scatter); both
    /// buffers of a sendrecv; 0 for waits and calls that move no data.
    pub bytes: u64,
    /// The message the call sends to a rank, if it sends one: Paje traces
    /// draw a link from it to the receive that takes it.
    pub sent: Option<Sent>,
    /// The communicator the call is on (set by the bindings' call
    /// wrapper; SimGrid's formats have no place for it, Perfetto's has).
    pub comm: Option<i32>,
}

/// A message a traced call sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    /// The destination, a rank of `MPI_COMM_WORLD`.
    pub dst: usize,
    pub tag: i32,
    /// Its size in bytes (count times the datatype's size).
    pub bytes: u64,
}

impl Traced {
    /// A call that sends no message to a rank.
    pub fn new(action: &'static str, args: Args) -> Self {
        Self {
            action,
            args,
            bytes: 0,
            sent: None,
            comm: None,
        }
    }

    /// The call with the bytes of its buffers.
    pub fn with_bytes(self, bytes: u64) -> Self {
        Self { bytes, ..self }
    }
}

/// The arguments of a traced call, in the shapes of SimGrid's `TIData`
/// classes (`src/instr/instr_private.hpp`), which fix how each is written.
#[derive(Debug, Clone, PartialEq)]
pub enum Args {
    /// Nothing but the name (init, finalize, barrier).
    None,
    /// One amount (waitall's request count, compute's flops).
    Amount(f64),
    /// `peer tag count type`.
    P2p {
        peer: i32,
        tag: i32,
        count: i64,
        dtype: i32,
    },
    /// `sendcount dst recvcount src sendtype recvtype`.
    SendRecv {
        send_count: i64,
        dst: i32,
        recv_count: i64,
        src: i32,
        send_type: i32,
        recv_type: i32,
    },
    /// `src dst tag` of the request waited for or tested.
    Wait {
        src: i32,
        dst: i32,
        tag: i32,
    },
    Coll(Coll),
    VarColl(VarColl),
}

/// A collective of one count per side (SimGrid's `CollTIData`).
#[derive(Debug, Clone, PartialEq)]
pub struct Coll {
    /// The root, or -1.
    pub root: i32,
    /// The reduction's computation (always 0 in SimGrid's traces), or -1.
    pub amount: f64,
    pub send_size: u64,
    /// Written only when positive.
    pub recv_size: u64,
    pub send_type: Option<i32>,
    pub recv_type: Option<i32>,
}

/// A collective of per-rank counts (SimGrid's `VarCollTIData`).
#[derive(Debug, Clone, PartialEq)]
pub struct VarColl {
    pub root: i32,
    /// Written only when at least 0.
    pub send_size: i64,
    pub send_counts: Option<Vec<i64>>,
    pub recv_size: i64,
    pub recv_counts: Option<Vec<i64>>,
    pub send_type: Option<i32>,
    pub recv_type: Option<i32>,
}

impl Args {
    /// The size SimGrid's Paje traces show with `tracing/smpi/display-sizes`.
    pub fn display_size(&self) -> String {
        match self {
            Args::None | Args::Wait { .. } => "NA".into(),
            Args::Amount(a) => format!("{a:.6}"),
            Args::P2p { count, .. } => count.to_string(),
            // SimGrid describes a send-receive as a collective of
            // per-rank counts (`VarCollTIData`), whose size this is.
            Args::SendRecv {
                send_count,
                recv_count,
                ..
            } => (if *send_count > 0 {
                send_count
            } else {
                recv_count
            })
            .to_string(),
            Args::Coll(c) => c.send_size.to_string(),
            Args::VarColl(v) => (if v.send_size > 0 {
                v.send_size
            } else {
                v.recv_size
            })
            .to_string(),
        }
    }
}

/// Something that writes a trace: it sees the MPI calls ranks make, and
/// (as an engine observer) their computations and transfers.
pub trait Tracer: Observer {
    /// Rank `rank` enters MPI call `name`; `traced` is its description
    /// when SimGrid traces that call.
    fn call_enter(&mut self, at: f64, rank: usize, name: &'static str, traced: Option<&Traced>);
    /// Rank `rank` returns from MPI call `name` with `code`.
    fn call_exit(&mut self, at: f64, rank: usize, name: &'static str, code: i32);
    /// [`Tracer::call_enter`], told which actor of the rank calls: the
    /// threads of a rank (MPI_THREAD_MULTIPLE) may be inside calls at
    /// once, and a tracer that pairs entries with exits keys them by
    /// actor. Tracers of ranks need not look.
    fn actor_call_enter(
        &mut self,
        at: f64,
        rank: usize,
        _actor: usize,
        name: &'static str,
        traced: Option<&Traced>,
    ) {
        self.call_enter(at, rank, name, traced);
    }
    /// [`Tracer::call_exit`], told which actor of the rank returns.
    fn actor_call_exit(
        &mut self,
        at: f64,
        rank: usize,
        _actor: usize,
        name: &'static str,
        code: i32,
    ) {
        self.call_exit(at, rank, name, code);
    }
    /// Rank `rank`'s current call runs `algorithm` for `collective` (once
    /// per collective the call runs: SimGrid's redbcast allreduce runs a
    /// reduce and a bcast), after its entry and before its exit.
    fn algorithm(
        &mut self,
        _at: f64,
        _rank: usize,
        _collective: &'static str,
        _algorithm: &'static str,
    ) {
    }
    /// Rank `rank` took a message of rank `src` with `tag` out of a
    /// completed receive of its program (a blocking receive, or a wait or
    /// test of a request), during an MPI call.
    fn received(&mut self, _at: f64, _rank: usize, _src: usize, _tag: i32) {}
    /// Rank `rank`'s program ended (its main thread returned or exited).
    fn rank_ended(&mut self, _at: f64, _rank: usize) {}
    /// Rank `rank`'s next MPI calls are at `line` of `file`
    /// (`smpi_trace_set_call_location`, with `smpi/trace-call-location`).
    fn call_location(&mut self, _rank: usize, _file: &Rc<str>, _line: u32) {}
    /// Rank `rank` starts a sleep of the program's (sleep, usleep,
    /// nanosleep) of `seconds`, which ends at the next `sleep_end`.
    fn sleep_start(&mut self, _at: f64, _rank: usize, _seconds: f64) {}
    fn sleep_end(&mut self, _at: f64, _rank: usize) {}
    /// The run ended at simulated date `end`: write what is left.
    fn finish(&mut self, end: f64) -> std::io::Result<()>;
}

/// A tracer shared between the simulation and the core's observers.
pub type Shared = Rc<RefCell<dyn Tracer>>;

/// Hands the engine's events to a tracer.
pub struct Forward(pub Shared);

impl Observer for Forward {
    fn transfer_start(&mut self, at: f64, t: &TransferStart) {
        self.0.borrow_mut().transfer_start(at, t);
    }
    fn transfer_end(&mut self, at: f64, id: TransferId) {
        self.0.borrow_mut().transfer_end(at, id);
    }
    fn compute_start(&mut self, at: f64, rank: usize, flops: f64) {
        self.0.borrow_mut().compute_start(at, rank, flops);
    }
    fn compute_end(&mut self, at: f64, rank: usize) {
        self.0.borrow_mut().compute_end(at, rank);
    }
    fn link_load(&mut self, at: f64, load: &crate::engine::observe::LinkLoad<'_>) {
        self.0.borrow_mut().link_load(at, load);
    }
    fn host_load(&mut self, at: f64, host: usize, used: f64) {
        self.0.borrow_mut().host_load(at, host, used);
    }
}

/// The tracers of a simulation.
#[derive(Default)]
pub struct Tracers(Vec<Shared>);

impl Tracers {
    /// Adds `t`, and hands it the engine's events through `core`.
    pub fn attach(&mut self, t: Shared, core: &mut crate::engine::Core) {
        core.observers().attach(Box::new(Forward(Rc::clone(&t))));
        self.0.push(t);
    }

    /// Adds `writer`, which nothing else needs to reach (see [`Self::attach`]).
    pub fn add(&mut self, writer: impl Tracer + 'static, core: &mut crate::engine::Core) {
        self.attach(Rc::new(RefCell::new(writer)), core);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Actor `actor` of rank `rank` enters MPI call `name`.
    pub fn call_enter(
        &self,
        at: f64,
        (rank, actor): (usize, usize),
        name: &'static str,
        traced: Option<&Traced>,
    ) {
        for t in &self.0 {
            t.borrow_mut()
                .actor_call_enter(at, rank, actor, name, traced);
        }
    }

    /// Actor `actor` of rank `rank` returns from MPI call `name`.
    pub fn call_exit(&self, at: f64, (rank, actor): (usize, usize), name: &'static str, code: i32) {
        for t in &self.0 {
            t.borrow_mut().actor_call_exit(at, rank, actor, name, code);
        }
    }

    pub fn algorithm(
        &self,
        at: f64,
        rank: usize,
        collective: &'static str,
        algorithm: &'static str,
    ) {
        for t in &self.0 {
            t.borrow_mut().algorithm(at, rank, collective, algorithm);
        }
    }

    pub fn received(&self, at: f64, rank: usize, src: usize, tag: i32) {
        for t in &self.0 {
            t.borrow_mut().received(at, rank, src, tag);
        }
    }

    pub fn rank_ended(&self, at: f64, rank: usize) {
        for t in &self.0 {
            t.borrow_mut().rank_ended(at, rank);
        }
    }

    pub fn call_location(&self, rank: usize, file: &Rc<str>, line: u32) {
        for t in &self.0 {
            t.borrow_mut().call_location(rank, file, line);
        }
    }

    pub fn sleep_start(&self, at: f64, rank: usize, seconds: f64) {
        for t in &self.0 {
            t.borrow_mut().sleep_start(at, rank, seconds);
        }
    }

    pub fn sleep_end(&self, at: f64, rank: usize) {
        for t in &self.0 {
            t.borrow_mut().sleep_end(at, rank);
        }
    }

    /// Ends every trace; the first error, if any.
    pub fn finish(&self, end: f64) -> std::io::Result<()> {
        let mut result = Ok(());
        for t in &self.0 {
            let r = t.borrow_mut().finish(end);
            if result.is_ok() {
                result = r;
            }
        }
        result
    }
}

/// The options of this module: SimGrid's `tracing/*` that take effect
/// (the others are accepted with a warning, `config::NO_EFFECT`).
#[rustfmt::skip]
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "tracing", kind: Kind::Bool, default: "no", help: "write a trace of the run (with tracing/smpi); smpirun's -trace and -trace-ti set it" },
    OptionSpec { name: "smpi/trace-call-location", kind: Kind::Bool, default: "no", help: "record the source file and line of each MPI call in the traces (Paje: Fname and Lnumber of the states; TI: location lines), from programs built with smpicc -trace-call-location" },
    OptionSpec { name: "tracing/smpi", kind: Kind::Bool, default: "no", help: "trace the MPI calls" },
    OptionSpec { name: "tracing/smpi/format", kind: Kind::Text, default: "Paje", help: "the trace's format: Paje, perfetto (a timeline for ui.perfetto.dev), or TI (time-independent, SimGrid's replay input; any other word means TI, as in SimGrid)" },
    OptionSpec { name: "tracing/filename", kind: Kind::Text, default: "simgrid.trace", help: "the trace file (TI: the index file, which lists one file per rank in <filename>_files/)" },
    OptionSpec { name: "tracing/smpi/computing", kind: Kind::Bool, default: "no", help: "trace computations (Paje: computing states; TI: compute lines of their flops)" },
    OptionSpec { name: "tracing/precision", kind: Kind::Int, default: "6", help: "Paje: digits after the decimal point of the dates (at most 100)" },
    OptionSpec { name: "tracing/comment", kind: Kind::Text, default: "", help: "Paje: a comment line (# <comment>) at the top of the trace; smpirun's -trace-comment sets it" },
    OptionSpec { name: "tracing/smpi/display-sizes", kind: Kind::Bool, default: "no", help: "Paje: the size of each call (elements) and message (bytes) in its state and link" },
    OptionSpec { name: "tracing/comment-file", kind: Kind::Text, default: "", help: "Paje: the lines of this file as comments (# <line>) at the top of the trace, after tracing/comment; smpirun's -trace-comment-file sets it" },
    OptionSpec { name: "tracing/smpi/sleeping", kind: Kind::Bool, default: "no", help: "trace the program's sleeps (sleep, usleep, nanosleep; Paje: sleeping states; TI: sleep lines of their seconds)" },
    OptionSpec { name: "tracing/smpi/group", kind: Kind::Bool, default: "no", help: "Paje: a container per host and per link, each rank's container in its host's; smpirun's -trace-grouped sets it" },
    OptionSpec { name: "tracing/uncategorized", kind: Kind::Bool, default: "no", help: "Paje: a container per host and per link, with the hosts' speed and cores and the links' bandwidth, latency and use over time (bandwidth_used); smpirun's -trace-resource sets it" },
    OptionSpec { name: "tracing/categorized", kind: Kind::Bool, default: "no", help: "Paje: the resources' use per category of the program's (TRACE_category): not drawn, said at the end of a run whose program declared categories; smpirun's -trace-resource sets it" },
];

/// The most digits after the decimal point of Paje dates: more would
/// say nothing of a simulated date, and formatting has a bound.
pub const MAX_PRECISION: u64 = 100;

/// Tracing options that cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error(
        "option tracing/precision: {0} digits after the decimal point; at most {MAX_PRECISION}"
    )]
    Precision(u64),
}

/// What SimGrid's tracing options ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The time-independent trace's index file, when one is written.
    pub ti: Option<std::path::PathBuf>,
    /// The Perfetto trace's file, when one is written.
    pub perfetto: Option<std::path::PathBuf>,
    /// The Paje trace, when one is written.
    pub paje: Option<paje::Options>,
    /// `compute` lines (`tracing/smpi/computing`).
    pub computing: bool,
    /// `sleep` lines (`tracing/smpi/sleeping`).
    pub sleeping: bool,
    /// Each call's source file and line (`smpi/trace-call-location`).
    pub call_location: bool,
}

impl Settings {
    /// The traces `cfg` asks for: SimGrid writes Paje for the exact word
    /// `Paje` of `tracing/smpi/format`, TI for any other.
    pub fn from_config(cfg: &Config) -> Result<Self, SettingsError> {
        let precision = cfg.int("tracing/precision");
        if precision > MAX_PRECISION {
            return Err(SettingsError::Precision(precision));
        }
        let on = cfg.bool("tracing") && cfg.bool("tracing/smpi");
        let file = std::path::PathBuf::from(cfg.text("tracing/filename"));
        let computing = cfg.bool("tracing/smpi/computing");
        let sleeping = cfg.bool("tracing/smpi/sleeping");
        let call_location = cfg.bool("smpi/trace-call-location");
        let format = cfg.text("tracing/smpi/format");
        let (paje_format, perfetto) = (format == "Paje", format == "perfetto");
        Ok(Self {
            ti: (on && !paje_format && !perfetto).then(|| file.clone()),
            perfetto: (on && perfetto).then(|| file.clone()),
            paje: (on && paje_format).then(|| paje::Options {
                file,
                // At most MAX_PRECISION.
                precision: precision as usize,
                comment: cfg.text("tracing/comment").to_string(),
                comment_file: Some(cfg.text("tracing/comment-file"))
                    .filter(|f| !f.is_empty())
                    .map(std::path::PathBuf::from),
                display_sizes: cfg.bool("tracing/smpi/display-sizes"),
                computing,
                sleeping,
                call_location,
                grouped: cfg.bool("tracing/smpi/group"),
                resources: cfg.bool("tracing/uncategorized"),
            }),
            computing,
            sleeping,
            call_location,
        })
    }
}

/// SimGrid's number for datatype `handle` (`Datatype::encode`): the
/// predefined types' ids, -1 for derived ones.
pub fn simgrid_type(handle: i32) -> i32 {
    let names = mpi::datatype::predefined_names();
    let Some(Some(name)) = usize::try_from(handle).ok().and_then(|h| names.get(h)) else {
        return -1;
    };
    SIMGRID_TYPES
        .iter()
        .find(|(n, _)| n == name)
        .map_or(-1, |&(_, id)| id)
}

/// The predefined datatype of SimGrid's number `id`, if it has one here.
pub fn type_of_simgrid(id: i32) -> Option<i32> {
    let name = SIMGRID_TYPES.iter().find(|&&(_, i)| i == id)?.0;
    mpi::datatype::predefined_handle(name)
}

/// SimGrid 3.32's datatype numbers (`src/smpi/mpi/smpi_datatype.cpp`).
#[rustfmt::skip]
const SIMGRID_TYPES: &[(&str, i32)] = &[
    ("MPI_DOUBLE", 0), ("MPI_INT", 1), ("MPI_CHAR", 2), ("MPI_SHORT", 3), ("MPI_LONG", 4),
    ("MPI_FLOAT", 5), ("MPI_BYTE", 6), ("MPI_LONG_LONG_INT", 7), ("MPI_SIGNED_CHAR", 8),
    ("MPI_UNSIGNED_CHAR", 9), ("MPI_UNSIGNED_SHORT", 10), ("MPI_UNSIGNED", 11),
    ("MPI_UNSIGNED_LONG", 12), ("MPI_UNSIGNED_LONG_LONG", 13), ("MPI_LONG_DOUBLE", 14),
    ("MPI_WCHAR", 15), ("MPI_C_BOOL", 16), ("MPI_INT8_T", 17), ("MPI_INT16_T", 18),
    ("MPI_INT32_T", 19), ("MPI_INT64_T", 20), ("MPI_UINT8_T", 21), ("MPI_UINT16_T", 22),
    ("MPI_UINT32_T", 23), ("MPI_UINT64_T", 24), ("MPI_C_COMPLEX", 25),
    ("MPI_C_DOUBLE_COMPLEX", 26), ("MPI_C_LONG_DOUBLE_COMPLEX", 27), ("MPI_AINT", 28),
    ("MPI_OFFSET", 29), ("MPI_FLOAT_INT", 30), ("MPI_LONG_INT", 31), ("MPI_DOUBLE_INT", 32),
    ("MPI_SHORT_INT", 33), ("MPI_2INT", 34), ("MPI_LONG_DOUBLE_INT", 50), ("MPI_LB", 56),
    ("MPI_UB", 55), ("MPI_PACKED", 57), ("MPI_COUNT", 59),
];

/// `peer` of communicator `comm` as a rank of `MPI_COMM_WORLD`, or
/// [`NO_PEER`] for `MPI_ANY_SOURCE`, `MPI_PROC_NULL` and ranks that do not
/// exist (the call will fail).
pub fn world_peer(w: &Ctx<'_>, comm: i32, peer: i32) -> i32 {
    let Ok(view) = w.comm(comm) else {
        return NO_PEER;
    };
    let group = view.peer_group();
    match usize::try_from(peer) {
        Ok(p) if p < group.size() => i32::try_from(group.world(p)).unwrap_or(NO_PEER),
        _ => NO_PEER,
    }
}

/// The size of communicator `comm` for the caller (0 if it is not one).
pub fn comm_size(w: &Ctx<'_>, comm: i32) -> usize {
    w.comm(comm).map_or(0, |v| v.size())
}

/// Whether the caller is `root` of `comm`.
pub fn is_root(w: &Ctx<'_>, comm: i32, root: i32) -> bool {
    w.comm(comm)
        .is_ok_and(|v| usize::try_from(root).is_ok_and(|r| r == v.my_rank))
}

/// A point-to-point call's description (a receive's, or a send's
/// arguments alone: see [`send`]).
pub fn p2p(w: &Ctx<'_>, action: &'static str, m: &mpi::Message) -> Traced {
    Traced::new(
        action,
        Args::P2p {
            peer: world_peer(w, m.comm, m.peer),
            tag: m.tag,
            count: m.count,
            dtype: simgrid_type(m.datatype),
        },
    )
    .with_bytes(bytes(w, m.datatype, m.count))
}

/// A send's description, with the message it sends.
pub fn send(w: &Ctx<'_>, action: &'static str, m: &mpi::Message) -> Traced {
    Traced {
        sent: sent(w, m),
        ..p2p(w, action, m)
    }
}

/// The message `m` sends, if it goes to a rank (not to `MPI_PROC_NULL`,
/// nor to a rank that does not exist or with a bad datatype: the call
/// will fail).
pub fn sent(w: &Ctx<'_>, m: &mpi::Message) -> Option<Sent> {
    let dst = usize::try_from(world_peer(w, m.comm, m.peer)).ok()?;
    w.mpi.datatype(m.datatype).ok()?;
    Some(Sent {
        dst,
        tag: m.tag,
        bytes: bytes(w, m.datatype, m.count),
    })
}

/// A wait or test on the request of handle `handle`: its `src dst tag`
/// (SimGrid writes nothing for a null or unknown request).
pub fn wait(w: &Ctx<'_>, action: &'static str, handle: i32) -> Option<Traced> {
    let id = w.mpi.request_id(handle).ok()?;
    let r = w.mpi.request(id);
    let me = i32::try_from(r.owner).unwrap_or(NO_PEER);
    let (src, dst) = match r.kind {
        mpi::ReqKind::Recv => (world_peer(w, r.comm, r.peer), me),
        mpi::ReqKind::Send(_) => (me, world_peer(w, r.comm, r.peer)),
        _ => (me, me),
    };
    Some(Traced::new(
        action,
        Args::Wait {
            src,
            dst,
            tag: r.tag,
        },
    ))
}

/// A call SimGrid records by its name only.
pub fn plain(action: &'static str) -> Option<Traced> {
    Some(Traced::new(action, Args::None))
}

/// A collective of one count per side, whose buffer holds `bytes`.
pub fn coll(action: &'static str, c: Coll, bytes: u64) -> Option<Traced> {
    Some(Traced::new(action, Args::Coll(c)).with_bytes(bytes))
}

/// A collective of per-rank counts, whose buffer holds `bytes`.
pub fn var_coll(action: &'static str, v: VarColl, bytes: u64) -> Option<Traced> {
    Some(Traced::new(action, Args::VarColl(v)).with_bytes(bytes))
}

/// The bytes of `count` elements of datatype `dtype` (0 for a datatype
/// that does not exist or a negative count: the call will fail).
pub fn bytes(w: &Ctx<'_>, dtype: i32, count: i64) -> u64 {
    let size = w.mpi.datatype(dtype).map_or(0, |t| t.size);
    u64::try_from(count)
        .unwrap_or(0)
        .saturating_mul(u64::try_from(size).unwrap_or(0))
}

/// Per-rank counts as the program passed them, `n` zeros if they could
/// not be read (the call will fail).
pub fn counts(read: Option<Vec<i32>>, n: usize) -> Vec<i64> {
    match read {
        Some(c) => c.into_iter().map(i64::from).collect(),
        None => vec![0; n],
    }
}

use crate::mpi::collective::{Data, Reduce, VData, IN_PLACE};

/// Counts as i64 (negative ones, an error the call reports, as 0).
fn size(count: i32) -> u64 {
    u64::try_from(count).unwrap_or(0)
}

/// `bcast`: count, root, type.
pub fn bcast(w: &Ctx<'_>, d: &Data, root: i32) -> Option<Traced> {
    coll(
        "bcast",
        Coll {
            root,
            amount: -1.0,
            send_size: size(d.count),
            recv_size: 0,
            send_type: Some(simgrid_type(d.dtype)),
            recv_type: None,
        },
        bytes(w, d.dtype, d.count.into()),
    )
}

/// Reductions: `reduce` (with its root), `allreduce`, `scan`, `exscan`;
/// the computation is written as 0, as SimGrid does.
pub fn reduction(w: &Ctx<'_>, action: &'static str, r: &Reduce, root: i32) -> Option<Traced> {
    coll(
        action,
        Coll {
            root,
            amount: 0.0,
            send_size: size(r.count),
            recv_size: 0,
            send_type: Some(simgrid_type(r.dtype)),
            recv_type: None,
        },
        bytes(w, r.dtype, r.count.into()),
    )
}

/// `gather`, `scatter`, `allgather`, `alltoall` (root -1 for the last
/// two). A root gathering in place sends nothing of its receive type, and
/// a rank of an in-place alltoall sends as it receives (SimGrid's
/// `real_sendcount`).
pub fn one_count(
    w: &Ctx<'_>,
    action: &'static str,
    comm: i32,
    send: &Data,
    recv: &Data,
    root: i32,
) -> Option<Traced> {
    let (send_count, send_type) = if send.addr == IN_PLACE {
        match action {
            "gather" if is_root(w, comm, root) => (0, recv.dtype),
            "alltoall" => (recv.count, recv.dtype),
            _ => (send.count, send.dtype),
        }
    } else {
        (send.count, send.dtype)
    };
    // The buffer: an alltoall's and a scatter root's hold a block per
    // rank; the other ranks of a scatter only receive.
    let n = i64::try_from(comm_size(w, comm)).unwrap_or(0);
    let buffer = match action {
        "alltoall" => bytes(w, send_type, i64::from(send_count) * n),
        "scatter" if is_root(w, comm, root) => bytes(w, send_type, i64::from(send_count) * n),
        "scatter" => bytes(w, recv.dtype, recv.count.into()),
        _ => bytes(w, send_type, send_count.into()),
    };
    coll(
        action,
        Coll {
            root,
            amount: -1.0,
            send_size: size(send_count),
            recv_size: size(recv.count),
            send_type: Some(simgrid_type(send_type)),
            recv_type: Some(simgrid_type(recv.dtype)),
        },
        buffer,
    )
}

/// `gatherv` and `allgatherv` (root -1): the receive counts, zeros on the
/// ranks other than the root of a gatherv.
pub fn gatherv(
    w: &Ctx<'_>,
    action: &'static str,
    comm: i32,
    send: &Data,
    recv: &VData,
    root: i32,
) -> Option<Traced> {
    let n = comm_size(w, comm);
    let significant = root < 0 || is_root(w, comm, root);
    let recv_counts = if significant {
        counts(recv.counts.read(n, "recvcounts").ok(), n)
    } else {
        vec![0; n]
    };
    var_coll(
        action,
        VarColl {
            root,
            send_size: i64::from(send.count),
            send_counts: None,
            recv_size: -1,
            recv_counts: Some(recv_counts),
            send_type: Some(simgrid_type(send.dtype)),
            recv_type: Some(simgrid_type(recv.dtype)),
        },
        bytes(w, send.dtype, send.count.into()),
    )
}

/// `scatterv`: the send counts (zeros on the ranks other than the root).
pub fn scatterv(w: &Ctx<'_>, comm: i32, send: &VData, recv: &Data, root: i32) -> Option<Traced> {
    let n = comm_size(w, comm);
    let root_sends = is_root(w, comm, root);
    let send_counts = if root_sends {
        counts(send.counts.read(n, "sendcounts").ok(), n)
    } else {
        vec![0; n]
    };
    let buffer = if root_sends {
        bytes(w, send.dtype, send_counts.iter().sum())
    } else {
        bytes(w, recv.dtype, recv.count.into())
    };
    var_coll(
        "scatterv",
        VarColl {
            root,
            send_size: -1,
            send_counts: Some(send_counts),
            recv_size: i64::from(recv.count),
            recv_counts: None,
            send_type: Some(simgrid_type(send.dtype)),
            recv_type: Some(simgrid_type(recv.dtype)),
        },
        buffer,
    )
}

/// `alltoallv`: each side's total, then its counts.
pub fn alltoallv(w: &Ctx<'_>, comm: i32, send: &VData, recv: &VData) -> Option<Traced> {
    let n = comm_size(w, comm);
    let recv_counts = counts(recv.counts.read(n, "recvcounts").ok(), n);
    let (send_counts, send_type) = if send.addr == IN_PLACE {
        (recv_counts.clone(), recv.dtype)
    } else {
        (
            counts(send.counts.read(n, "sendcounts").ok(), n),
            send.dtype,
        )
    };
    let buffer = bytes(w, send_type, send_counts.iter().sum());
    var_coll(
        "alltoallv",
        VarColl {
            root: -1,
            send_size: send_counts.iter().sum(),
            send_counts: Some(send_counts),
            recv_size: recv_counts.iter().sum(),
            recv_counts: Some(recv_counts),
            send_type: Some(simgrid_type(send_type)),
            recv_type: Some(simgrid_type(recv.dtype)),
        },
        buffer,
    )
}

/// `reducescatter`: the receive counts, a computation of 0, the type.
/// `MPI_Reduce_scatter_block` is written the same way with its one count
/// repeated (SimGrid 3.32 writes it wrongly, as `count` zeros).
pub fn reduce_scatter(w: &Ctx<'_>, recv_counts: Vec<i64>, dtype: i32) -> Option<Traced> {
    // The send buffer holds every rank's block.
    let buffer = bytes(w, dtype, recv_counts.iter().sum());
    var_coll(
        "reducescatter",
        VarColl {
            root: -1,
            send_size: -1,
            send_counts: None,
            recv_size: -1,
            recv_counts: Some(recv_counts),
            send_type: Some(0),
            recv_type: Some(simgrid_type(dtype)),
        },
        buffer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[&str]) -> Result<Settings, SettingsError> {
        let mut cfg = crate::run::config();
        for p in pairs {
            cfg.set_pair(p).unwrap();
        }
        Settings::from_config(&cfg)
    }

    #[test]
    fn the_format_chooses_the_writer_and_precision_is_bounded() {
        let on = ["tracing:yes", "tracing/smpi:yes"];
        let paje = settings(&on).unwrap();
        assert!(paje.ti.is_none());
        assert_eq!(paje.paje.unwrap().precision, 6);
        let ti = settings(&[on[0], on[1], "tracing/smpi/format:TI"]).unwrap();
        assert!(ti.paje.is_none() && ti.ti.is_some());
        // Any word but Paje means TI, as in SimGrid.
        let other = settings(&[on[0], on[1], "tracing/smpi/format:paje"]).unwrap();
        assert!(other.ti.is_some());
        let off = settings(&["tracing:yes"]).unwrap();
        assert!(off.ti.is_none() && off.paje.is_none());
        assert_eq!(
            settings(&["tracing/precision:101"])
                .unwrap_err()
                .to_string(),
            "option tracing/precision: 101 digits after the decimal point; at most 100"
        );
        assert!(settings(&["tracing/precision:100"]).is_ok());
    }
}
