//! MPI semantics over the engine: communicators, requests, matching,
//! the eager/rendezvous protocols, and collectives run from schedules.
//!
//! Handles are small integers (see mpi.h). Objects shared by the ranks of a
//! communicator (its group and context id) are stored once, never per rank.

pub mod attr;
mod automatic;
pub mod check;
pub mod coll;
pub mod collective;
pub mod comm;
pub mod crystal;
pub mod datatype;
pub mod error;
pub mod external32;
pub mod file;
pub mod group;
pub mod handles;
pub mod info;
pub mod intercoll;
pub mod ledger;
mod matching;
pub mod nbc;
pub mod neighbor;
pub mod op;
pub mod p2p;
pub mod poll;
pub mod progression;
pub mod protocol;
pub mod request;
pub mod smp;
pub mod split;
pub mod topo;
pub mod typector;
pub mod types;
pub mod verify;
pub mod win;

#[cfg(test)]
mod tests;

pub use attr::{Keyval, KEYVAL_BASE, KEYVAL_INVALID};
pub use comm::{comm_name, CommView};
pub use error::{
    class, error_string, MpiError, MpiResult, ERRORS_ARE_FATAL, ERRORS_RETURN,
    FIRST_USER_ERRHANDLER, LAST_PREDEFINED_CODE,
};
pub use group::Group;
pub use p2p::TransferHooks;
pub use request::{
    is_complete, wait_for, GreqCancelFn, GreqFreeFn, GreqQueryFn, Grequest, Internal, Message,
    PersistentStart, RawStatus, ReqId, ReqKind, Request, Status,
};

use matching::MatchQueue;
use p2p::Envelope;
pub use protocol::{Protocol, SendMode, SendPlan};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

use crate::engine::Core;
use crate::memory::Memory;
use datatype::Datatype;

pub const ANY_SOURCE: i32 = -2;
pub const PROC_NULL: i32 = -1;
pub const ANY_TAG: i32 = -1;
pub const UNDEFINED: i32 = -32766;
pub const COMM_NULL: i32 = 0;
/// MPI_DATATYPE_NULL.
pub const DATATYPE_NULL: i32 = 0;
pub const COMM_WORLD: i32 = 1;
pub const COMM_SELF: i32 = 2;
pub const TAG_UB: i32 = i32::MAX;
pub const BSEND_OVERHEAD: usize = 96;
pub const INFO_NULL: i32 = 0;
pub const INFO_ENV: i32 = 1;

/// Per-rank MPI state.
#[derive(Debug, Default)]
pub struct RankMpi {
    pub initialized: bool,
    pub finalized: bool,
    /// The thread level MPI_Init_thread provided (MPI_Init: single).
    pub thread_level: i32,
    /// The actor that initialised MPI: the rank's main thread for
    /// `MPI_Is_thread_main`.
    pub main_actor: usize,
    posted: MatchQueue<ReqId>,
    unexpected: MatchQueue<Envelope>,
    /// Blocked in MPI_Probe: wake on any new envelope.
    probing: bool,
    /// Attached buffer for buffered sends: (address, size, bytes in use).
    pub bsend: Option<(usize, usize, usize)>,
    /// Receive overhead (smpi/or) owed by completed receives, slept
    /// before the MPI call returns.
    pub pending_overhead: f64,
    /// The tag the next collective on a context takes (a persistent
    /// collective's reserved one, for its run).
    pub reserved_coll_tag: Option<(u32, i32)>,
    /// Slots of this rank's non-blocking collectives in progress.
    nbc: Vec<usize>,
    /// Set while this rank's `MPI_I<collective>` runs its blocking twin:
    /// the request argument to fill instead of executing (`coll`).
    pub nonblocking: Option<*mut i32>,
    /// Set while this rank's non-blocking intercommunicator collective runs
    /// its blocking twin: the steps recorded instead of run (`nbc`).
    pub recording: Option<Box<nbc::Recording>>,
    /// Collective sequence number per communicator context.
    pub coll_seq: Vec<(u32, u32)>,
    /// Requests of the program's (`Request::call`) not freed yet.
    pub live_requests: u32,
    /// Inside MPI_I<collective> under check `concurrency`: the buffers to
    /// guard once its request exists.
    pub nbc_guards: Vec<verify::concurrency::Span>,
    /// The error handler of MPI_FILE_NULL, the default for files (None:
    /// MPI_ERRORS_RETURN, as MPI specifies).
    pub file_errhandler: Option<i32>,
    /// What few programs set (None: nothing set yet): a rank record stays
    /// small, which a million ranks notice.
    cold: Option<Box<RankCold>>,
}

/// The per-rank settings most programs never make.
#[derive(Debug, Default)]
pub struct RankCold {
    /// Error handlers set on communicators (absent: `Mpi::default_errhandler`).
    pub errhandlers: Vec<(i32, i32)>,
    /// Names set on communicators.
    pub names: Vec<(i32, String)>,
    /// Info hints set on communicators (MPI_Comm_set_info).
    pub comm_hints: Vec<(i32, Vec<(String, String)>)>,
    /// Attributes on communicators: (communicator, keyval, value), in the
    /// order they were set.
    pub attrs: Vec<(i32, i32, usize)>,
    /// Attributes on datatypes, the same way.
    pub type_attrs: Vec<(i32, i32, usize)>,
    /// Attributes on windows, the same way.
    pub win_attrs: Vec<(i32, i32, usize)>,
}

/// What a rank that set nothing has.
static NO_SETTINGS: RankCold = RankCold {
    errhandlers: Vec::new(),
    names: Vec::new(),
    comm_hints: Vec::new(),
    attrs: Vec::new(),
    type_attrs: Vec::new(),
    win_attrs: Vec::new(),
};

impl RankMpi {
    /// The settings the rank made (none for most).
    pub fn cold(&self) -> &RankCold {
        self.cold.as_deref().unwrap_or(&NO_SETTINGS)
    }

    /// The settings of the rank, to change.
    pub fn cold_mut(&mut self) -> &mut RankCold {
        self.cold.get_or_insert_default()
    }
}

/// All MPI state of the simulation.
pub struct Mpi {
    /// How messages are sent and what calls cost.
    pub protocol: Protocol,
    pub ranks: Vec<RankMpi>,
    /// What each transfer in flight completes, by its token's index.
    transfer_hooks: Vec<Option<TransferHooks>>,
    requests: Vec<Option<Request>>,
    free_requests: Vec<ReqId>,
    pub datatypes: Vec<Option<Rc<Datatype>>>,
    messages: Vec<Option<Envelope>>,
    free_messages: Vec<usize>,
    pub comms: comm::Comms,
    pub windows: win::Windows,
    pub files: file::Files,
    /// The types of MPI_Type_create_f90_*, by (combiner, arguments).
    pub f90_types: Vec<((i32, Vec<i32>), i32)>,
    /// I/O done on hosts without a disk, which costs no simulated time:
    /// (operations, bytes).
    pub diskless_io: (u64, u64),
    /// Functions of user error handlers (handle FIRST_USER_ERRHANDLER + i).
    errhandler_fns: Vec<usize>,
    /// The algorithm of each collective (`smpi/<collective>`).
    pub algorithms: coll::Algorithms,
    /// (communicator context, world rank) of the ranks that ran SimGrid's
    /// placement exchange on that communicator (`smp::ensure_placed`):
    /// here rather than per rank, which would cost every rank of a large
    /// run a vector for what few programs use.
    pub smp_placed: FxHashSet<(u32, usize)>,
    /// Where each communicator's ranks run, by context id, for the
    /// SMP-aware collectives (`smp::nodes`).
    pub smp_nodes: FxHashMap<u32, std::rc::Rc<collectives::Nodes>>,
    /// SimGrid's process-wide choices of its two-level allreduce, which
    /// its `mvapich2` selector sets when it runs.
    pub mv2_allreduce: collectives::Mv2Allreduce,
    /// MPI_Finalize starts with a barrier on MPI_COMM_WORLD
    /// (`smpi/finalization-barrier`).
    pub finalization_barrier: bool,
    /// The error handler of communicators and windows the program gave
    /// none: MPI_ERRORS_ARE_FATAL, or MPI_ERRORS_RETURN under
    /// `smpi/errors-are-fatal:no` (SimGrid's option).
    pub default_errhandler: i32,
    /// Simulated seconds MPI_Init takes (`smpi/init`).
    pub init_seconds: f64,
    /// User operations (handle FIRST_USER_OP + i); `None` once freed.
    pub user_ops: Vec<Option<op::ReduceOp>>,
    /// Non-blocking collectives in progress (`None`: free, or being
    /// advanced), and the free slots.
    nbc: Vec<Option<Box<nbc::Nbc>>>,
    nbc_free: Vec<usize>,
    /// How each persistent collective request starts.
    persistent_starts: FxHashMap<ReqId, PersistentStart>,
    /// User error classes and codes: (code, class, text).
    user_errors: Vec<(i32, i32, String)>,
    last_error_code: i32,
    /// Info objects by handle (0 = MPI_INFO_NULL, 1 = MPI_INFO_ENV).
    infos: Vec<Option<Vec<(String, String)>>>,
    /// User keyvals: handle = KEYVAL_BASE + index.
    pub keyvals: Vec<Option<Keyval>>,
    /// Failed polls in a row, per family, for all ranks: their cost
    /// grows (as SimGrid's).
    pub polls: poll::Streaks,
    /// What communications do while ranks compute (`smpi/progress`).
    pub progression: progression::Progression,
    /// Rendezvous transfers waiting for their ranks to stop computing
    /// (`weak` progression).
    pub deferred: Vec<progression::Deferred>,
    /// Values of the predefined attributes, indexed by key (MPI_TAG_UB = 1
    /// ... MPI_LASTUSEDCODE = 7); boxed so their addresses stay put.
    attribute_values: Box<[i32; 8]>,
    /// The handles the program holds, for the leak report (off unless
    /// asked for).
    pub ledger: ledger::Ledger,
    /// The correctness checks (`smpi/check`) and their findings.
    pub verify: verify::Verify,
}

impl Mpi {
    pub fn new(nranks: usize, protocol: Protocol) -> Self {
        Self {
            protocol,
            ranks: (0..nranks).map(|_| RankMpi::default()).collect(),
            transfer_hooks: Vec::new(),
            requests: Vec::new(),
            free_requests: Vec::new(),
            datatypes: datatype::predefined_types()
                .into_iter()
                .map(|t| t.map(Rc::new))
                .collect(),
            messages: vec![None, None], // 0 = MPI_MESSAGE_NULL, 1 = MPI_MESSAGE_NO_PROC
            free_messages: Vec::new(),
            comms: comm::Comms::new(),
            windows: win::Windows::default(),
            files: file::Files::default(),
            f90_types: Vec::new(),
            diskless_io: (0, 0),
            keyvals: Vec::new(),
            errhandler_fns: Vec::new(),
            algorithms: coll::Algorithms::default(),
            mv2_allreduce: collectives::Mv2Allreduce::default(),
            smp_placed: FxHashSet::default(),
            smp_nodes: FxHashMap::default(),
            finalization_barrier: false,
            default_errhandler: ERRORS_ARE_FATAL,
            init_seconds: 0.0,
            user_ops: Vec::new(),
            nbc: Vec::new(),
            nbc_free: Vec::new(),
            persistent_starts: FxHashMap::default(),
            user_errors: Vec::new(),
            last_error_code: LAST_PREDEFINED_CODE,
            // MPI_INFO_ENV: what the program was started with.
            infos: vec![
                None,
                Some(vec![
                    ("maxprocs".into(), nranks.to_string()),
                    ("thread_level".into(), "MPI_THREAD_MULTIPLE".into()),
                ]),
            ],
            polls: poll::Streaks::default(),
            progression: progression::Progression::default(),
            deferred: Vec::new(),
            attribute_values: Box::new([
                0,
                TAG_UB,
                PROC_NULL,
                ANY_SOURCE,
                1,
                nranks as i32,
                0,
                LAST_PREDEFINED_CODE,
            ]),
            ledger: ledger::Ledger::new(),
            verify: verify::Verify::default(),
        }
    }
}

/// The MPI layer at work: its state, the engine core it drives and the
/// memory messages move through. Made by [`crate::sim::Sim::mpi`] for the
/// length of one state change (the rank-side procedures of this layer,
/// which wait, take it anew after every park).
pub struct Ctx<'a> {
    pub core: &'a mut Core,
    pub mpi: &'a mut Mpi,
    pub mem: &'a Memory,
}

/// Runs `body`, the work of an MPI call, as every call runs it: weak
/// progress first (every MPI call advances the caller's non-blocking
/// collectives), then the receive overheads the call owes.
pub fn as_call<R>(body: impl FnOnce() -> R) -> R {
    nbc::progress();
    let result = body();
    if !crate::sim::fast(|f| f.overhead_owed()) {
        // No receive ever owed one (smpi/or is 0 by default).
        return result;
    }
    crate::engine::context::outlined(|| {
        let owed = crate::sim::mpi(|w| {
            let cur = w.core.current();
            std::mem::take(&mut w.mpi.ranks[cur].pending_overhead)
        });
        crate::sim::sleep(owed, "receive overhead");
    });
    result
}
