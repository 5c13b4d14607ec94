//! MPI semantics over the engine: communicators, requests, matching,
//! the eager/rendezvous protocols, and collectives run from schedules.
//!
//! Handles are small integers (see mpi.h). Objects shared by the ranks of a
//! communicator (its group and context id) are stored once, never per rank.

pub mod coll;
pub mod comm;
pub mod crystal;
pub mod datatype;
mod matching;
pub mod nbc;
pub mod op;
pub mod protocol;
pub mod typector;
pub mod win;

use matching::MatchQueue;
pub use protocol::{Protocol, SendMode, SendPlan};
use rustc_hash::FxHashMap;
use std::ffi::c_void;
use std::rc::Rc;

use crate::engine::{Core, Detail, TransferId};
use crate::memory::Memory;
use crate::sim;
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
pub const ERRORS_ARE_FATAL: i32 = 1;
pub const ERRORS_RETURN: i32 = 2;
pub const INFO_NULL: i32 = 0;
pub const FIRST_USER_ERRHANDLER: i32 = 3;
/// MPI_ERR_LASTCODE: user error classes and codes come after it.
pub const LAST_PREDEFINED_CODE: i32 = 0x3fff_ffff;
pub const INFO_ENV: i32 = 1;

/// MPI error classes (values as in mpi.h).
pub mod class {
    pub const SUCCESS: i32 = 0;
    pub const BUFFER: i32 = 1;
    pub const COUNT: i32 = 2;
    pub const TYPE: i32 = 3;
    pub const TAG: i32 = 4;
    pub const COMM: i32 = 5;
    pub const RANK: i32 = 6;
    pub const ROOT: i32 = 7;
    pub const GROUP: i32 = 8;
    pub const DIMS: i32 = 11;
    pub const TOPOLOGY: i32 = 10;
    pub const OP: i32 = 9;
    pub const ARG: i32 = 12;
    pub const KEYVAL: i32 = 33;
    pub const INFO: i32 = 28;
    pub const INFO_KEY: i32 = 29;
    pub const INFO_VALUE: i32 = 30;
    pub const INFO_NOKEY: i32 = 31;
    pub const UNKNOWN: i32 = 13;
    pub const TRUNCATE: i32 = 14;
    pub const OTHER: i32 = 15;
    pub const INTERN: i32 = 16;
    pub const IN_STATUS: i32 = 17;
    pub const REQUEST: i32 = 19;
    pub const UNSUPPORTED_DATAREP: i32 = 48;
    pub const UNSUPPORTED_OPERATION: i32 = 49;
    pub const LOCKTYPE: i32 = 34;
    pub const NO_MEM: i32 = 36;
    pub const FILE: i32 = 27;
    pub const RMA_CONFLICT: i32 = 43;
    pub const RMA_SYNC: i32 = 44;
    pub const SIZE: i32 = 46;
    pub const WIN: i32 = 50;
    pub const BASE: i32 = 51;
    pub const RMA_RANGE: i32 = 52;
    pub const RMA_ATTACH: i32 = 53;
    pub const RMA_SHARED: i32 = 54;
    pub const RMA_FLAVOR: i32 = 55;
}

/// The text of each error class, as MPI_Error_string prints it.
pub fn error_string(code: i32) -> &'static str {
    match code {
        0 => "MPI_SUCCESS: no error",
        1 => "MPI_ERR_BUFFER: invalid buffer pointer",
        2 => "MPI_ERR_COUNT: invalid count argument",
        3 => "MPI_ERR_TYPE: invalid datatype",
        4 => "MPI_ERR_TAG: invalid tag",
        5 => "MPI_ERR_COMM: invalid communicator",
        6 => "MPI_ERR_RANK: invalid rank",
        7 => "MPI_ERR_ROOT: invalid root",
        8 => "MPI_ERR_GROUP: invalid group",
        9 => "MPI_ERR_OP: invalid reduce operation",
        10 => "MPI_ERR_TOPOLOGY: invalid topology",
        11 => "MPI_ERR_DIMS: invalid dimension argument",
        12 => "MPI_ERR_ARG: invalid argument of some other kind",
        13 => "MPI_ERR_UNKNOWN: unknown error",
        14 => "MPI_ERR_TRUNCATE: message truncated",
        15 => "MPI_ERR_OTHER: known error not in this list",
        16 => "MPI_ERR_INTERN: internal error",
        17 => "MPI_ERR_IN_STATUS: error code is in status",
        18 => "MPI_ERR_PENDING: pending request",
        19 => "MPI_ERR_REQUEST: invalid request (handle)",
        20 => "MPI_ERR_ACCESS: permission denied",
        21 => "MPI_ERR_AMODE: invalid file access mode",
        22 => "MPI_ERR_BAD_FILE: invalid file name",
        23 => "MPI_ERR_CONVERSION: data conversion failed",
        24 => "MPI_ERR_DUP_DATAREP: data representation already defined",
        25 => "MPI_ERR_FILE_EXISTS: file exists",
        26 => "MPI_ERR_FILE_IN_USE: file in use",
        27 => "MPI_ERR_FILE: invalid file handle",
        28 => "MPI_ERR_INFO: invalid info object",
        29 => "MPI_ERR_INFO_KEY: invalid info key",
        30 => "MPI_ERR_INFO_VALUE: invalid info value",
        31 => "MPI_ERR_INFO_NOKEY: no such key in the info object",
        32 => "MPI_ERR_IO: input/output error",
        33 => "MPI_ERR_KEYVAL: invalid attribute key",
        34 => "MPI_ERR_LOCKTYPE: invalid lock type",
        35 => "MPI_ERR_NAME: invalid service name",
        36 => "MPI_ERR_NO_MEM: out of memory",
        37 => "MPI_ERR_NOT_SAME: collective arguments differ between ranks",
        38 => "MPI_ERR_NO_SPACE: no space left",
        39 => "MPI_ERR_NO_SUCH_FILE: no such file",
        40 => "MPI_ERR_PORT: invalid port name",
        41 => "MPI_ERR_QUOTA: quota exceeded",
        42 => "MPI_ERR_READ_ONLY: read-only file or file system",
        43 => "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
        44 => "MPI_ERR_RMA_SYNC: wrong synchronization of one-sided operations",
        45 => "MPI_ERR_SERVICE: invalid service",
        46 => "MPI_ERR_SIZE: invalid size argument",
        47 => "MPI_ERR_SPAWN: spawning processes failed",
        48 => "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
        49 => "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
        50 => "MPI_ERR_WIN: invalid window",
        51 => "MPI_ERR_BASE: invalid base address",
        52 => "MPI_ERR_RMA_RANGE: target memory is outside the window",
        53 => "MPI_ERR_RMA_ATTACH: memory cannot be attached to the window",
        54 => "MPI_ERR_RMA_SHARED: memory cannot be shared",
        55 => "MPI_ERR_RMA_FLAVOR: the window's flavor does not allow this call",
        _ => "unknown error code",
    }
}

/// An MPI error: its class and a message for the person reading it.
#[derive(Debug, Clone)]
pub struct MpiError {
    pub class: i32,
    pub message: String,
}

impl MpiError {
    pub fn new(class: i32, message: impl Into<String>) -> Self {
        Self {
            class,
            message: message.into(),
        }
    }
}

pub type MpiResult<T> = Result<T, MpiError>;

/// The ranks of a communicator.
#[derive(Debug, Clone)]
pub enum Group {
    /// World ranks 0..n (MPI_COMM_WORLD): no per-rank table.
    World(usize),
    /// One world rank (MPI_COMM_SELF of that rank).
    Single(usize),
    /// World ranks `first..first + len` in order (a contiguous split):
    /// rank lookups in O(1) however large.
    Range { first: u32, len: u32 },
    /// An explicit list of world ranks, shared by all members.
    List(Rc<[u32]>),
}

impl Group {
    pub fn size(&self) -> usize {
        match self {
            Group::World(n) => *n,
            Group::Single(_) => 1,
            Group::Range { len, .. } => *len as usize,
            Group::List(l) => l.len(),
        }
    }

    /// World rank of communicator rank `r` (r < size).
    pub fn world(&self, r: usize) -> usize {
        match self {
            Group::World(_) => r,
            Group::Single(w) => *w,
            Group::Range { first, .. } => *first as usize + r,
            Group::List(l) => l[r] as usize,
        }
    }

    /// Communicator rank of world rank `w`, if a member.
    pub fn rank_of(&self, w: usize) -> Option<usize> {
        match self {
            Group::World(n) => (w < *n).then_some(w),
            Group::Single(s) => (w == *s).then_some(0),
            Group::Range { first, len } => {
                let r = w.checked_sub(*first as usize)?;
                (r < *len as usize).then_some(r)
            }
            Group::List(l) => l.iter().position(|&x| x as usize == w),
        }
    }

    /// The group of these world ranks, in this order: a range when they
    /// are contiguous and ascending, a list otherwise.
    pub fn from_world_ranks(list: Vec<u32>) -> Self {
        let contiguous = list.windows(2).all(|p| p[1] == p[0] + 1);
        match list.first() {
            Some(&first) if contiguous && list.len() > 1 => Group::Range {
                first,
                len: list.len() as u32,
            },
            _ => Group::List(Rc::from(list)),
        }
    }
}

/// A communicator as seen by one calling rank.
#[derive(Debug, Clone)]
pub struct CommView {
    pub handle: i32,
    /// Context of point-to-point traffic; collectives use `ctx + 1`.
    pub ctx: u32,
    /// The caller's group.
    pub group: Group,
    /// The other group of an intercommunicator.
    pub remote: Option<Group>,
    pub my_rank: usize,
}

impl CommView {
    /// Size of the caller's group.
    pub fn size(&self) -> usize {
        self.group.size()
    }

    /// The group that point-to-point ranks name: the remote group of an
    /// intercommunicator, the communicator's group otherwise.
    pub fn peer_group(&self) -> &Group {
        self.remote.as_ref().unwrap_or(&self.group)
    }

    /// The caller's own group of an intercommunicator as an
    /// intracommunicator view, on the context reserved for traffic within
    /// each group (`ctx + 2`; the groups are disjoint, so they can share it).
    pub fn local(&self) -> Self {
        Self {
            ctx: self.ctx + 2,
            remote: None,
            ..self.clone()
        }
    }

    /// Refuses intercommunicators (for calls defined only on intra ones).
    pub fn intra(self, call: &str) -> MpiResult<Self> {
        if self.remote.is_some() {
            return Err(MpiError::new(
                class::COMM,
                format!("{call} on an intercommunicator is not supported yet"),
            ));
        }
        Ok(self)
    }
}

/// The info keys MPI defines for communicators (MPI-4.0 section 7.4.4).
const COMM_HINTS: &[&str] = &[
    "mpi_assert_no_any_tag",
    "mpi_assert_no_any_source",
    "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
];

#[derive(Debug, Clone, Copy)]
pub enum ReqKind {
    Send(SendMode),
    Recv,
    /// Completes when all its children have (MPI_Isendrecv): children are
    /// [receive, send], and the receive's status is the compound's.
    Compound,
    /// MPI_Grequest_start: completed by the program (MPI_Grequest_complete).
    Generalized(Grequest),
    /// MPI_Rput and friends: completed when the operation's transfer ends.
    Rma,
    /// A non-blocking collective: completed by its progress (`nbc`).
    Nbc,
    /// A persistent collective (MPI_Bcast_init, ...): each start begins a
    /// non-blocking collective, its one child, and it completes with it.
    PersistentColl,
}

/// What starts a persistent collective: the non-blocking call with the
/// program's arguments, writing its request handle.
pub type PersistentStart = Rc<dyn Fn(*mut i32) -> i32>;

/// Handles of user keyvals start here (below are the predefined keys).
pub const KEYVAL_BASE: i32 = 100;
/// MPI_KEYVAL_INVALID.
pub const KEYVAL_INVALID: i32 = 0;

/// A communicator keyval: the program's copy and delete callbacks (as
/// addresses: 0 is the null function, 1 is MPI_COMM_DUP_FN) and its
/// extra state.
#[derive(Debug, Clone, Copy)]
pub struct Keyval {
    pub copy: usize,
    pub delete: usize,
    pub extra_state: usize,
    /// MPI_Comm_free_keyval was called: the handle is gone, but attributes
    /// using it still get their delete callback.
    pub freed: bool,
}

/// MPI_Grequest_query_function: fills the status (an MPI_Status).
pub type GreqQueryFn = unsafe extern "C" fn(*mut c_void, *mut c_void) -> i32;
/// MPI_Grequest_free_function.
pub type GreqFreeFn = unsafe extern "C" fn(*mut c_void) -> i32;
/// MPI_Grequest_cancel_function.
pub type GreqCancelFn = unsafe extern "C" fn(*mut c_void, i32) -> i32;

/// The program's callbacks of a generalized request. They are called by
/// the ABI layer, never while the world is borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Grequest {
    pub query: Option<GreqQueryFn>,
    pub free: Option<GreqFreeFn>,
    pub cancel: Option<GreqCancelFn>,
    pub extra_state: usize,
}

/// What a completed operation reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    pub source: i32,
    pub tag: i32,
    pub error: i32,
    pub bytes: usize,
    pub cancelled: bool,
}

impl Status {
    /// The status of an operation with MPI_PROC_NULL or an inactive request.
    pub fn empty() -> Self {
        Self {
            source: ANY_SOURCE,
            tag: ANY_TAG,
            error: 0,
            bytes: 0,
            cancelled: false,
        }
    }
}

/// A point-to-point operation.
#[derive(Debug, Clone)]
pub struct Request {
    pub owner: usize,
    pub kind: ReqKind,
    pub comm: i32,
    pub ctx: u32,
    /// Peer as a communicator rank (may be ANY_SOURCE or PROC_NULL).
    pub peer: i32,
    pub tag: i32,
    /// World rank of the destination (sends to a real rank only).
    pub peer_world: usize,
    /// The owner's rank in the communicator, as receivers see it.
    pub my_rank: i32,
    pub buf: usize,
    pub count: usize,
    /// The datatype as it was when the request was made (the handle may
    /// be freed while the request is pending).
    pub dtype: Rc<Datatype>,
    pub persistent: bool,
    pub active: bool,
    pub complete: bool,
    pub status: Status,
    /// The owner is blocked waiting on this request.
    pub waiting: bool,
    /// MPI_Request_free was called: drop on completion.
    pub freed: bool,
    /// Bytes held in the attached buffer by a buffered send.
    pub bsend_bytes: usize,
    /// A receive matched with a detached send (it pays smpi/or).
    pub from_detached: bool,
    /// The compound request this one is part of.
    pub parent: Option<ReqId>,
    /// A compound's parts.
    pub children: Vec<ReqId>,
    /// Data the request owns while it is pending (the packed send buffer
    /// of MPI_Isendrecv_replace).
    pub owned: Option<Vec<u8>>,
}

/// Where a message's bytes are until a receive takes them.
#[derive(Debug)]
enum Payload {
    /// Copied at send time (detached and buffered sends).
    Buffered(Vec<u8>),
    /// Still in the sender's buffer (rendezvous): the send request.
    InSendBuffer(ReqId),
}

/// A message that arrived (logically) before its receive was posted.
#[derive(Debug)]
struct Envelope {
    ctx: u32,
    source: i32,
    source_world: usize,
    tag: i32,
    bytes: usize,
    payload: Payload,
    /// The send request, while it is not complete (rendezvous, or a
    /// buffered send waiting for delivery).
    send: Option<ReqId>,
    /// Set when the transfer started before the receive (async-small-thresh).
    transfer: Option<TransferId>,
}

/// Index of a request in the request table (the handle minus one).
pub type ReqId = usize;

/// What a transfer completes when it ends.
#[derive(Debug, Clone, Default)]
pub struct TransferHooks {
    pub recv: Option<ReqId>,
    pub send: Option<ReqId>,
    /// Set for the transfers of one-sided operations.
    pub rma: Option<win::RmaHooks>,
}

/// Per-rank MPI state.
#[derive(Debug, Default)]
pub struct RankMpi {
    pub initialized: bool,
    pub finalized: bool,
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
    pub recording: Option<nbc::Recording>,
    /// Collective sequence number per communicator context.
    pub coll_seq: Vec<(u32, u32)>,
    /// Error handlers set on communicators (absent: MPI_ERRORS_ARE_FATAL).
    pub errhandlers: Vec<(i32, i32)>,
    /// The error handler of MPI_FILE_NULL, the default for files (None:
    /// MPI_ERRORS_RETURN, as MPI specifies).
    pub file_errhandler: Option<i32>,
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
    /// Functions of user error handlers (handle FIRST_USER_ERRHANDLER + i).
    errhandler_fns: Vec<usize>,
    /// The algorithm of each collective (`smpi/<collective>`).
    pub algorithms: coll::Algorithms,
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
    /// Failed MPI_Test/MPI_Iprobe calls in a row: their cost grows. One
    /// counter per function for all ranks, as in SimGrid.
    pub test_streak: u32,
    pub iprobe_streak: u32,
    /// Values of the predefined attributes, indexed by key (MPI_TAG_UB = 1
    /// ... MPI_LASTUSEDCODE = 7); boxed so their addresses stay put.
    attribute_values: Box<[i32; 8]>,
}

impl Mpi {
    /// The operation a handle names: predefined or from `MPI_Op_create`.
    pub fn reduce_op(&self, handle: i32) -> MpiResult<op::ReduceOp> {
        if let Some(b) = op::Builtin::from_handle(handle) {
            return Ok(op::ReduceOp::Builtin(b));
        }
        usize::try_from(handle - op::FIRST_USER_OP)
            .ok()
            .and_then(|i| self.user_ops.get(i).copied().flatten())
            .ok_or_else(|| {
                MpiError::new(
                    class::OP,
                    format!(
                        "invalid operation handle {handle} (MPI_OP_NULL, freed or never created)"
                    ),
                )
            })
    }

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
            keyvals: Vec::new(),
            errhandler_fns: Vec::new(),
            algorithms: coll::Algorithms::default(),
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
                    ("thread_level".into(), "MPI_THREAD_FUNNELED".into()),
                ]),
            ],
            test_streak: 0,
            iprobe_streak: 0,
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
        }
    }

    pub fn datatype(&self, handle: i32) -> MpiResult<&Rc<Datatype>> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.datatypes.get(h))
            .and_then(Option::as_ref)
            .ok_or_else(|| MpiError::new(class::TYPE, format!("invalid datatype handle {handle}")))
    }

    /// The function of a user error handler (MPI_Comm_create_errhandler).
    pub fn user_errhandler(&self, eh: i32) -> Option<usize> {
        usize::try_from(eh - FIRST_USER_ERRHANDLER)
            .ok()
            .and_then(|i| self.errhandler_fns.get(i).copied())
    }

    /// Registers a user error handler function; returns its handle.
    pub fn add_errhandler(&mut self, function: usize) -> i32 {
        self.errhandler_fns.push(function);
        FIRST_USER_ERRHANDLER + self.errhandler_fns.len() as i32 - 1
    }

    /// MPI_Add_error_class: a new class, which is also its own code.
    pub fn add_error_class(&mut self) -> i32 {
        let code = self.last_error_code + 1;
        self.last_error_code = code;
        self.attribute_values[7] = code;
        self.user_errors.push((code, code, String::new()));
        code
    }

    /// MPI_Add_error_code: a new code of `class`.
    pub fn add_error_code(&mut self, class_: i32) -> MpiResult<i32> {
        if !(0..=55).contains(&class_)
            && !self
                .user_errors
                .iter()
                .any(|e| e.0 == class_ && e.1 == class_)
        {
            return Err(MpiError::new(
                class::ARG,
                format!("{class_} is not an error class"),
            ));
        }
        let code = self.last_error_code + 1;
        self.last_error_code = code;
        self.attribute_values[7] = code;
        self.user_errors.push((code, class_, String::new()));
        Ok(code)
    }

    /// MPI_Add_error_string: the text of a user class or code.
    pub fn set_error_string(&mut self, code: i32, text: String) -> MpiResult<()> {
        match self.user_errors.iter_mut().find(|e| e.0 == code) {
            Some(e) => {
                e.2 = text;
                Ok(())
            }
            None => Err(MpiError::new(
                class::ARG,
                format!("{code} is not a user error class or code"),
            )),
        }
    }

    /// The class and text of an error code (predefined or the program's).
    pub fn describe_error(&self, code: i32) -> Option<(i32, String)> {
        if (0..=55).contains(&code) {
            return Some((code, error_string(code).to_string()));
        }
        self.user_errors
            .iter()
            .find(|e| e.0 == code)
            .map(|e| (e.1, e.2.clone()))
    }

    /// The hints of an info object, MPI_INFO_NULL meaning none.
    pub fn hints(&mut self, handle: i32) -> MpiResult<Vec<(String, String)>> {
        if handle == INFO_NULL {
            return Ok(Vec::new());
        }
        self.info_mut(handle).map(|e| e.clone())
    }

    /// The entries of an info object.
    pub fn info_mut(&mut self, handle: i32) -> MpiResult<&mut Vec<(String, String)>> {
        usize::try_from(handle)
            .ok()
            .and_then(|h| self.infos.get_mut(h))
            .and_then(Option::as_mut)
            .ok_or_else(|| MpiError::new(class::INFO, format!("invalid info handle {handle}")))
    }

    /// Stores a new info object; returns its handle.
    pub fn add_info(&mut self, entries: Vec<(String, String)>) -> i32 {
        match self.infos.iter().skip(2).position(Option::is_none) {
            Some(i) => {
                self.infos[i + 2] = Some(entries);
                (i + 2) as i32
            }
            None => {
                self.infos.push(Some(entries));
                (self.infos.len() - 1) as i32
            }
        }
    }

    /// Frees an info object (MPI_INFO_ENV cannot be freed).
    pub fn free_info(&mut self, handle: i32) -> MpiResult<()> {
        self.info_mut(handle)?;
        if handle == INFO_ENV {
            return Err(MpiError::new(class::INFO, "MPI_INFO_ENV cannot be freed"));
        }
        self.infos[handle as usize] = None;
        Ok(())
    }

    /// Stores a new derived datatype; returns its handle.
    pub fn add_datatype(&mut self, t: Datatype) -> i32 {
        let first_free = self
            .datatypes
            .iter()
            .enumerate()
            .skip(datatype::predefined_count())
            .find(|(_, d)| d.is_none())
            .map(|(i, _)| i);
        match first_free {
            Some(i) => {
                self.datatypes[i] = Some(Rc::new(t));
                i as i32
            }
            None => {
                self.datatypes.push(Some(Rc::new(t)));
                (self.datatypes.len() - 1) as i32
            }
        }
    }

    /// Frees a derived datatype (messages in flight keep their own copy).
    pub fn free_datatype(&mut self, handle: i32) -> MpiResult<()> {
        let t = self.datatype(handle)?;
        if t.predefined {
            return Err(MpiError::new(
                class::TYPE,
                format!("{} is predefined and cannot be freed", t.name),
            ));
        }
        self.datatypes[handle as usize] = None;
        Ok(())
    }

    pub fn request(&self, id: ReqId) -> &Request {
        self.requests[id].as_ref().expect("live request")
    }

    pub fn request_mut(&mut self, id: ReqId) -> &mut Request {
        self.requests[id].as_mut().expect("live request")
    }

    /// The request behind a user handle.
    pub fn request_id(&self, handle: i32) -> MpiResult<ReqId> {
        let id = usize::try_from(handle - 1).map_err(|_| {
            MpiError::new(class::REQUEST, format!("invalid request handle {handle}"))
        })?;
        match self.requests.get(id) {
            Some(Some(_)) => Ok(id),
            _ => Err(MpiError::new(
                class::REQUEST,
                format!("invalid request handle {handle}"),
            )),
        }
    }

    fn add_request(&mut self, r: Request) -> ReqId {
        match self.free_requests.pop() {
            Some(id) => {
                self.requests[id] = Some(r);
                id
            }
            None => {
                self.requests.push(Some(r));
                self.requests.len() - 1
            }
        }
    }

    /// Removes a request (and the parts of a compound one).
    pub fn remove_request(&mut self, id: ReqId) {
        if let Some(r) = self.requests[id].take() {
            if matches!(r.kind, ReqKind::PersistentColl) {
                self.persistent_starts.remove(&id);
            }
            self.free_requests.push(id);
            for child in r.children {
                self.remove_request(child);
            }
        }
    }

    /// One-line description of a pending request, for deadlock reports.
    pub fn describe_request(&self, id: ReqId) -> String {
        let r = self.request(id);
        let peer = match r.peer {
            ANY_SOURCE => "MPI_ANY_SOURCE".to_string(),
            PROC_NULL => "MPI_PROC_NULL".to_string(),
            p => p.to_string(),
        };
        let tag = if r.tag == ANY_TAG {
            "MPI_ANY_TAG".to_string()
        } else {
            r.tag.to_string()
        };
        let what = match r.kind {
            ReqKind::Recv => format!("receive from {peer}"),
            ReqKind::Send(_) => format!("send to {peer}"),
            ReqKind::Compound => format!("send-receive with {peer}"),
            ReqKind::Generalized(_) => {
                "generalized request (waiting for MPI_Grequest_complete)".into()
            }
            ReqKind::Rma => "one-sided operation".into(),
            ReqKind::Nbc | ReqKind::PersistentColl => "non-blocking collective".into(),
        };
        let comm = if r.ctx % 2 == 1 {
            format!("{} (collective)", comm_name(r.comm))
        } else {
            comm_name(r.comm)
        };
        format!("{what}, tag {tag}, {comm}")
    }

    fn add_message(&mut self, e: Envelope) -> i32 {
        let idx = match self.free_messages.pop() {
            Some(i) => {
                self.messages[i] = Some(e);
                i
            }
            None => {
                self.messages.push(Some(e));
                self.messages.len() - 1
            }
        };
        idx as i32
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

impl Ctx<'_> {
    /// Starts a transfer of `bytes` from `src` to `dst` that completes
    /// what `hooks` says when it arrives.
    fn start_transfer(
        &mut self,
        src: platforms::HostId,
        dst: platforms::HostId,
        bytes: usize,
        hooks: TransferHooks,
    ) -> TransferId {
        let id = self.core.start_transfer(src, dst, bytes);
        let i = id.0 as usize;
        if self.mpi.transfer_hooks.len() <= i {
            self.mpi.transfer_hooks.resize_with(i + 1, || None);
        }
        self.mpi.transfer_hooks[i] = Some(hooks);
        id
    }

    /// The flops that reducing `bytes` costs the current rank, at
    /// smpi/reduce-rate on its host.
    pub fn reduction_flops(&self, bytes: usize) -> f64 {
        let rate = self.mpi.protocol.reduce_rate;
        if rate <= 0.0 {
            return 0.0;
        }
        bytes as f64 / rate * self.core.speed_of(self.core.current())
    }

    /// Forgets transfer `id`, in the core and here.
    fn release_transfer(&mut self, id: TransferId) {
        self.core.release_transfer(id);
        if let Some(h) = self.mpi.transfer_hooks.get_mut(id.0 as usize) {
            *h = None;
        }
    }

    /// What transfer `id` completes when it arrives.
    fn hooks_mut(&mut self, id: TransferId) -> Option<&mut TransferHooks> {
        self.mpi
            .transfer_hooks
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
    }

    /// Completes what transfer `id` carried (the core finished it).
    pub fn transfer_done(&mut self, id: TransferId) {
        let Some(hooks) = self.hooks_mut(id).map(|h| h.clone()) else {
            return;
        };
        if let Some(rma) = hooks.rma {
            self.release_transfer(id);
            self.rma_transfer_done(rma);
            return;
        }
        if let Some(send) = hooks.send {
            if self.mpi.requests.get(send).is_some_and(Option::is_some) {
                self.release_bsend(send);
                let st = Status {
                    source: PROC_NULL,
                    ..Status::empty()
                };
                let already = self.mpi.request(send).complete;
                if !already {
                    self.complete(send, st);
                } else if self.mpi.request(send).freed {
                    self.mpi.remove_request(send);
                }
            }
        }
        // An eager message not received yet keeps its transfer record
        // (arrived) until a receive matches it.
        if let Some(recv) = hooks.recv {
            let st = self.mpi.request(recv).status;
            self.complete(recv, st);
            self.release_transfer(id);
        }
    }
}

/// Handle name for messages.
pub fn comm_name(handle: i32) -> String {
    match handle {
        COMM_WORLD => "MPI_COMM_WORLD".into(),
        COMM_SELF => "MPI_COMM_SELF".into(),
        h => format!("communicator {h}"),
    }
}

impl Ctx<'_> {
    /// The communicator `handle` as seen by the current rank.
    pub fn comm(&self, handle: i32) -> MpiResult<CommView> {
        let me = self.core.current();
        match handle {
            COMM_WORLD => Ok(CommView {
                handle,
                ctx: 0,
                group: Group::World(self.core.size()),
                remote: None,
                my_rank: me,
            }),
            COMM_SELF => Ok(CommView {
                handle,
                ctx: 2,
                group: Group::Single(me),
                remote: None,
                my_rank: 0,
            }),
            COMM_NULL => Err(MpiError::new(
                class::COMM,
                "the communicator is MPI_COMM_NULL",
            )),
            h => self.stored_comm(h),
        }
    }

    /// The keyval behind a user handle.
    pub fn keyval(&self, handle: i32) -> MpiResult<Keyval> {
        self.keyval_in_use(handle)
            .ok()
            .filter(|k| !k.freed)
            .ok_or_else(|| MpiError::new(class::KEYVAL, format!("invalid keyval {handle}")))
    }

    /// A keyval, freed or not: once freed it can no longer be set, but the
    /// attributes that use it are still read, copied and deleted with it
    /// (MPI-3.1 section 6.7.2).
    pub fn keyval_in_use(&self, handle: i32) -> MpiResult<Keyval> {
        usize::try_from(handle - KEYVAL_BASE)
            .ok()
            .and_then(|i| self.mpi.keyvals.get(i).copied().flatten())
            .ok_or_else(|| MpiError::new(class::KEYVAL, format!("invalid keyval {handle}")))
    }

    /// Address of a predefined attribute's value (MPI_TAG_UB, MPI_HOST...).
    pub fn predefined_attribute(&self, keyval: i32) -> Option<*const i32> {
        let i = usize::try_from(keyval)
            .ok()
            .filter(|&k| (1..8).contains(&k))?;
        Some(&self.mpi.attribute_values[i] as *const i32)
    }

    /// Checks a peer rank for a send (`allow_any` false) or receive.
    fn check_peer(&self, comm: &CommView, peer: i32, allow_any: bool) -> MpiResult<()> {
        if peer == PROC_NULL || (allow_any && peer == ANY_SOURCE) {
            return Ok(());
        }
        let n = comm.peer_group().size();
        if peer < 0 || peer as usize >= n {
            let which = if comm.remote.is_some() {
                "the remote group of "
            } else {
                ""
            };
            return Err(MpiError::new(
                class::RANK,
                format!(
                    "invalid rank {peer}: {which}{} has {n} ranks",
                    comm_name(comm.handle)
                ),
            ));
        }
        Ok(())
    }

    fn check_tag(tag: i32, allow_any: bool) -> MpiResult<()> {
        if (allow_any && tag == ANY_TAG) || (0..=TAG_UB).contains(&tag) {
            Ok(())
        } else {
            Err(MpiError::new(class::TAG, format!("invalid tag {tag}")))
        }
    }

    fn check_count(count: i64) -> MpiResult<usize> {
        usize::try_from(count)
            .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))
    }

    fn check_type(&self, datatype: i32) -> MpiResult<()> {
        let ty = self.mpi.datatype(datatype)?;
        if !ty.committed {
            return Err(MpiError::new(
                class::TYPE,
                format!("datatype {} is not committed", ty.name),
            ));
        }
        Ok(())
    }

    /// Creates an inactive point-to-point request after checking arguments.
    #[allow(clippy::too_many_arguments)]
    pub fn new_request(
        &mut self,
        kind: ReqKind,
        buf: *const c_void,
        count: i64,
        datatype: i32,
        peer: i32,
        tag: i32,
        comm: i32,
        persistent: bool,
    ) -> MpiResult<ReqId> {
        let view = self.comm(comm)?;
        let count = Self::check_count(count)?;
        self.check_type(datatype)?;
        let dtype = Rc::clone(self.mpi.datatype(datatype)?);
        // A null buffer is MPI_BOTTOM, valid only with a datatype of
        // absolute addresses: data at address 0 itself is an error.
        if buf.is_null() && count > 0 && dtype.size > 0 && dtype.true_lb == 0 {
            return Err(MpiError::new(
                class::BUFFER,
                format!(
                    "the buffer is a null pointer but holds {count} {}",
                    dtype.name
                ),
            ));
        }
        let is_recv = matches!(kind, ReqKind::Recv);
        self.check_peer(&view, peer, is_recv)?;
        Self::check_tag(tag, is_recv)?;
        let id =
            self.new_internal_request(kind, &view, view.ctx, buf as usize, count, dtype, peer, tag);
        self.mpi.request_mut(id).persistent = persistent;
        Ok(id)
    }

    /// Creates a request on context `ctx` of `view` (no argument checks:
    /// the runtime built it). `peer` is a rank of `view.peer_group()`.
    #[allow(clippy::too_many_arguments)]
    pub fn new_internal_request(
        &mut self,
        kind: ReqKind,
        view: &CommView,
        ctx: u32,
        buf: usize,
        count: usize,
        dtype: Rc<Datatype>,
        peer: i32,
        tag: i32,
    ) -> ReqId {
        let peer_world = if peer >= 0 {
            view.peer_group().world(peer as usize)
        } else {
            0
        };
        self.mpi.add_request(Request {
            owner: self.core.current(),
            kind,
            comm: view.handle,
            ctx,
            peer,
            tag,
            peer_world,
            my_rank: view.my_rank as i32,
            buf,
            count,
            dtype,
            persistent: false,
            active: false,
            complete: false,
            status: Status::empty(),
            waiting: false,
            freed: false,
            bsend_bytes: 0,
            from_detached: false,
            parent: None,
            children: Vec::new(),
            owned: None,
        })
    }

    /// Starts (activates) a request.
    pub fn start(&mut self, id: ReqId) -> MpiResult<()> {
        {
            let r = self.mpi.request_mut(id);
            if r.active && !r.complete {
                return Err(MpiError::new(
                    class::REQUEST,
                    "MPI_Start on a request that is still active",
                ));
            }
            r.active = true;
            r.complete = false;
            r.status = Status::empty();
        }
        match self.mpi.request(id).kind {
            ReqKind::Send(mode) => self.start_send(id, mode),
            ReqKind::Recv => {
                self.start_recv(id);
                Ok(())
            }
            ReqKind::Compound => {
                for child in self.mpi.request(id).children.clone() {
                    self.start(child)?;
                }
                Ok(())
            }
            ReqKind::Generalized(_) | ReqKind::Rma | ReqKind::Nbc => Ok(()),
            // The ABI layer starts it (`start_persistent_collective`): it
            // runs the program's MPI call.
            ReqKind::PersistentColl => Ok(()),
        }
    }

    fn start_send(&mut self, id: ReqId, mode: SendMode) -> MpiResult<()> {
        let r = self.mpi.request(id).clone();
        if r.peer == PROC_NULL {
            self.complete(id, Status::empty());
            return Ok(());
        }
        let ty = Rc::clone(&r.dtype);
        let bytes = r.count * ty.size;
        let dest_world = r.peer_world;
        let detached = match mode {
            SendMode::Buffered => true,
            SendMode::Standard | SendMode::Ready => bytes < self.mpi.protocol.detached_thresh,
            SendMode::Synchronous => false,
        };
        if mode == SendMode::Buffered {
            let me = self.core.current();
            let need = bytes + BSEND_OVERHEAD;
            match self.mpi.ranks[me].bsend.as_mut() {
                Some((_, size, used)) if *used + need <= *size => *used += need,
                Some((_, size, used)) => {
                    let (size, used) = (*size, *used);
                    self.mpi.request_mut(id).active = false;
                    return Err(MpiError::new(
                        class::BUFFER,
                        format!(
                            "buffered send of {bytes} bytes needs {need} bytes of the attached buffer, \
                             but only {} of {size} are free",
                            size - used
                        ),
                    ));
                }
                None => {
                    self.mpi.request_mut(id).active = false;
                    return Err(MpiError::new(
                        class::BUFFER,
                        "buffered send without an attached buffer (call MPI_Buffer_attach first)",
                    ));
                }
            }
            self.mpi.request_mut(id).bsend_bytes = need;
        }
        let payload = if detached {
            let mut data = Vec::with_capacity(bytes);
            self.pack_private(&ty, r.buf, r.count, &mut data);
            Payload::Buffered(data)
        } else {
            Payload::InSendBuffer(id)
        };
        let mut env = Envelope {
            ctx: r.ctx,
            source: r.my_rank,
            source_world: self.core.current(),
            tag: r.tag,
            bytes,
            payload,
            send: None,
            transfer: None,
        };
        // A detached standard send completes at once; a buffered send
        // completes locally too but holds its buffer space until delivery.
        let completes_now = detached;
        if completes_now {
            let st = Status {
                source: PROC_NULL,
                ..Status::empty()
            };
            self.complete(id, st);
            if mode == SendMode::Buffered {
                // Keep the request record until delivery releases the space
                // (a detached copy of its bookkeeping).
                let rec = self.mpi.request(id).clone();
                let shadow = self.mpi.add_request(Request {
                    persistent: false,
                    freed: true,
                    complete: false,
                    ..rec
                });
                env.send = Some(shadow);
            }
        } else {
            env.send = Some(id);
        }
        // Find a posted receive.
        let posted = &mut self.mpi.ranks[dest_world].posted;
        if let Some(rid) = posted
            .find(env.ctx, env.source, env.tag)
            .and_then(|slot| posted.take(slot))
        {
            self.deliver(env, rid);
        } else {
            if bytes < self.mpi.protocol.async_small_thresh {
                let hooks = TransferHooks {
                    recv: None,
                    send: env.send,
                    rma: None,
                };
                let src_host = self.core.host_of(self.core.current());
                let dst_host = self.core.host_of(dest_world);
                env.transfer = Some(self.start_transfer(src_host, dst_host, bytes, hooks));
            }
            let rm = &mut self.mpi.ranks[dest_world];
            rm.unexpected.push(env.ctx, env.source, env.tag, env);
            if rm.probing {
                rm.probing = false;
                self.core.wake(dest_world);
            }
        }
        Ok(())
    }

    fn start_recv(&mut self, id: ReqId) {
        let r = self.mpi.request(id).clone();
        if r.peer == PROC_NULL {
            self.complete(
                id,
                Status {
                    source: PROC_NULL,
                    tag: ANY_TAG,
                    ..Status::empty()
                },
            );
            return;
        }
        let rm = &mut self.mpi.ranks[r.owner];
        match rm
            .unexpected
            .find(r.ctx, r.peer, r.tag)
            .and_then(|slot| rm.unexpected.take(slot))
        {
            Some(env) => self.deliver(env, id),
            None => rm.posted.push(r.ctx, r.peer, r.tag, id),
        }
    }

    /// Matches envelope `env` with receive `rid`: copies the data and
    /// starts (or joins) the transfer that completes them.
    fn deliver(&mut self, env: Envelope, rid: ReqId) {
        let r = self.mpi.request(rid).clone();
        let rty = Rc::clone(&r.dtype);
        let capacity = r.count * rty.size;
        let mut status = Status {
            source: env.source,
            tag: env.tag,
            error: 0,
            bytes: env.bytes.min(capacity),
            cancelled: false,
        };
        if env.bytes > capacity {
            status.error = class::TRUNCATE;
        }
        // Under swap privatization the sender's and the receiver's globals
        // are not in place at once: whichever buffer lies in them is read
        // or written with its owner's in place, through a copy if both do.
        let in_place = self.mem.segment.as_ref().and_then(|s| s.owner());
        match &env.payload {
            Payload::Buffered(data) => {
                let n = data.len().min(capacity);
                if self.may_touch_globals(r.buf, &rty, r.count) {
                    self.mem.activate(r.owner);
                }
                // Folded destination bytes (SMPI_SHARED_MALLOC) are left
                // alone: their content is meaningless.
                let folding = &self.mem.folding;
                datatype::unpack_with(&rty, r.buf, &data[..n], |piece, dst| {
                    for (lo, hi) in folding.private_parts(dst, piece.len()) {
                        // SAFETY: the receive buffer holds `count` elements
                        // of `rty` (MPI's contract); the piece's place lies
                        // in it, within `capacity` bytes.
                        unsafe {
                            std::ptr::copy_nonoverlapping(
                                piece[lo..].as_ptr(),
                                (dst + lo) as *mut u8,
                                hi - lo,
                            )
                        };
                    }
                });
            }
            Payload::InSendBuffer(sid) => {
                let s = self.mpi.request(*sid);
                let n = env.bytes.min(capacity);
                let send_globals = self.may_touch_globals(s.buf, &s.dtype, s.count);
                let recv_globals = self.may_touch_globals(r.buf, &rty, r.count);
                let contiguous = s.dtype.is_contiguous() && rty.is_contiguous();
                if !send_globals && !recv_globals {
                    // Straight from buffer to buffer, except into folded
                    // memory (SMPI_SHARED_MALLOC), whose content is
                    // meaningless; folded source bytes arrive as zeros.
                    let folding = &self.mem.folding;
                    let copy = |src: usize, dst: usize, len: usize| {
                        for (lo, hi) in folding.private_parts(dst, len) {
                            for (a, b, private) in folding.pieces(src + lo, hi - lo) {
                                let (a, b) = (lo + a, lo + b);
                                // SAFETY: the sender has not completed its
                                // send, so its buffer holds `env.bytes`
                                // valid bytes in its type's layout; the
                                // receive buffer holds `capacity` in its
                                // type's (MPI's contract); the pieces lie in
                                // both. `copy` tolerates overlap (a rank may
                                // send to itself from and into the same
                                // memory).
                                unsafe {
                                    if private {
                                        std::ptr::copy(
                                            (src + a) as *const u8,
                                            (dst + a) as *mut u8,
                                            b - a,
                                        );
                                    } else {
                                        std::ptr::write_bytes((dst + a) as *mut u8, 0, b - a);
                                    }
                                };
                            }
                        }
                    };
                    if contiguous {
                        copy(s.buf, r.buf, n);
                    } else {
                        datatype::copy_typed(&s.dtype, s.buf, s.count, &rty, r.buf, n, copy);
                    }
                } else {
                    let mut data = Vec::with_capacity(env.bytes);
                    if send_globals {
                        self.mem.activate(s.owner);
                    }
                    self.pack_private(&s.dtype, s.buf, s.count, &mut data);
                    if recv_globals {
                        self.mem.activate(r.owner);
                    }
                    // SAFETY: as above for the receive buffer.
                    unsafe { datatype::unpack(&rty, r.buf as *mut c_void, &data[..n]) };
                }
            }
        }
        if let Some(rank) = in_place {
            self.mem.activate(rank);
        }
        {
            let rr = self.mpi.request_mut(rid);
            rr.status = status;
            rr.from_detached = matches!(env.payload, Payload::Buffered(_));
        }
        match env.transfer {
            Some(t) => {
                if self.core.transfer_arrived(t) {
                    self.release_transfer(t);
                    self.complete(rid, status);
                } else if let Some(hooks) = self.hooks_mut(t) {
                    hooks.recv = Some(rid);
                }
            }
            None => {
                let hooks = TransferHooks {
                    recv: Some(rid),
                    send: env.send,
                    rma: None,
                };
                let src_host = self.core.host_of(env.source_world);
                let dst_host = self.core.host_of(r.owner);
                self.start_transfer(src_host, dst_host, env.bytes, hooks);
            }
        }
    }

    /// Marks request `id` complete with `status` and wakes its owner if it
    /// waits on it.
    pub fn complete(&mut self, id: ReqId, status: Status) {
        let (owner, waiting, freed, persistent) = {
            let r = self.mpi.request_mut(id);
            r.complete = true;
            r.status = Status {
                bytes: status.bytes,
                ..status
            };
            (r.owner, r.waiting, r.freed, r.persistent)
        };
        let parent = self.mpi.requests[id].as_ref().and_then(|r| r.parent);
        if freed && !persistent {
            self.mpi.remove_request(id);
        }
        if waiting {
            self.core.wake(owner);
        }
        if let Some(p) = parent {
            self.child_completed(p);
        }
    }

    /// Completes compound request `p` once all its parts are complete.
    fn child_completed(&mut self, p: ReqId) {
        let Some(parent) = self.mpi.requests.get(p).and_then(Option::as_ref) else {
            return;
        };
        if parent.complete {
            return;
        }
        let all = parent.children.iter().all(|&c| is_complete(self, c));
        if all {
            let status = parent
                .children
                .first()
                .and_then(|&c| self.mpi.requests.get(c).and_then(Option::as_ref))
                .map_or(Status::empty(), |r| r.status);
            let persistent = matches!(parent.kind, ReqKind::PersistentColl);
            self.complete(p, status);
            // A persistent collective's run is over: its request goes.
            if persistent {
                if let Some(r) = self.mpi.requests.get_mut(p).and_then(Option::as_mut) {
                    for c in std::mem::take(&mut r.children) {
                        self.mpi.remove_request(c);
                    }
                }
            }
        }
    }

    /// A new persistent collective request of the current rank, inactive,
    /// begun by `start` at each MPI_Start.
    pub fn new_persistent_collective(&mut self, view: &CommView, start: PersistentStart) -> ReqId {
        let dtype = Rc::clone(self.mpi.datatype(4).expect("MPI_BYTE is predefined"));
        // Persistent collectives match in the order they were made, not
        // started: the collective tag is taken now, for every run.
        let tag = self.next_coll_tag_in(view.ctx);
        let id = self.new_internal_request(
            ReqKind::PersistentColl,
            view,
            view.ctx,
            0,
            0,
            dtype,
            -1,
            tag,
        );
        let r = self.mpi.request_mut(id);
        r.persistent = true;
        r.active = false;
        self.mpi.persistent_starts.insert(id, start);
        id
    }

    /// Activates persistent collective `id` for a new run; how it starts.
    /// Its run takes the tag reserved when it was made.
    pub fn activate_persistent_collective(&mut self, id: ReqId) -> MpiResult<PersistentStart> {
        let r = self.mpi.request_mut(id);
        // Active until a wait or test returns it, even once complete.
        if r.active {
            return Err(MpiError::new(
                class::REQUEST,
                "MPI_Start on a persistent collective that is still active (wait for it first)",
            ));
        }
        r.active = true;
        r.complete = false;
        r.status = Status::empty();
        let reserved = (r.ctx, r.tag);
        let me = self.core.current();
        self.mpi.ranks[me].reserved_coll_tag = Some(reserved);
        Ok(Rc::clone(&self.mpi.persistent_starts[&id]))
    }

    /// Makes `run` (the request of one run's non-blocking collective) the
    /// child of persistent collective `id`, completing `id` if it is done.
    pub fn attach_persistent_run(&mut self, id: ReqId, run: ReqId) {
        self.mpi.request_mut(run).parent = Some(id);
        self.mpi.request_mut(id).children = vec![run];
        if is_complete(self, run) {
            self.child_completed(id);
        }
    }

    /// Makes a compound request of `children` ([receive, send]) owned by
    /// the current rank, optionally owning `data` until it completes.
    /// The request of a non-blocking collective on `view`, active and
    /// incomplete.
    pub fn new_nbc_request(&mut self, view: &CommView) -> ReqId {
        let dtype = Rc::clone(self.mpi.datatype(4).expect("MPI_BYTE is predefined"));
        let id = self.new_internal_request(ReqKind::Nbc, view, view.ctx, 0, 0, dtype, -1, 0);
        self.mpi.request_mut(id).active = true;
        id
    }

    /// A request that is complete already (a non-blocking collective with
    /// nothing to do).
    pub fn new_completed_request(&mut self) -> ReqId {
        let view = self.comm(COMM_WORLD).expect("MPI_COMM_WORLD exists");
        let id = self.new_nbc_request(&view);
        self.complete(id, Status::empty());
        id
    }

    pub fn new_compound(&mut self, children: Vec<ReqId>, data: Option<Vec<u8>>) -> ReqId {
        let first = self.mpi.request(children[0]).clone();
        let view = CommView {
            handle: first.comm,
            ctx: first.ctx,
            group: Group::Single(first.owner),
            remote: None,
            my_rank: 0,
        };
        let id = self.new_internal_request(
            ReqKind::Compound,
            &view,
            first.ctx,
            0,
            0,
            Rc::clone(&first.dtype),
            -1,
            first.tag,
        );
        for &c in &children {
            self.mpi.request_mut(c).parent = Some(id);
        }
        let r = self.mpi.request_mut(id);
        r.children = children;
        r.owned = data;
        id
    }

    /// Charges the receive overhead of a completed receive to its owner
    /// (smpi/or applies to messages from detached senders only).
    pub fn owe_recv_overhead(&mut self, id: ReqId) {
        let r = self.mpi.request(id);
        if matches!(r.kind, ReqKind::Recv) && r.from_detached {
            let cost = self.mpi.protocol.recv_overhead.cost(r.status.bytes as f64);
            let owner = r.owner;
            self.mpi.ranks[owner].pending_overhead += cost;
        }
    }

    /// Frees a completed request or marks an active one for freeing.
    pub fn free_request(&mut self, id: ReqId) {
        let r = self.mpi.request_mut(id);
        if r.active && !r.complete {
            r.freed = true;
            r.persistent = false;
        } else {
            self.mpi.remove_request(id);
        }
    }

    /// Tries to cancel a pending operation. Receives not yet matched and
    /// sends whose message nobody has received yet are cancelled.
    pub fn cancel(&mut self, id: ReqId) {
        let r = self.mpi.request(id).clone();
        if r.complete && !matches!(r.kind, ReqKind::Send(_)) {
            return;
        }
        match r.kind {
            ReqKind::Compound => {
                for c in r.children {
                    self.cancel(c);
                }
            }
            // The ABI layer calls the program's cancel function; a
            // one-sided operation or a collective cannot be cancelled
            // (MPI says so for collectives): it completes.
            ReqKind::Generalized(_) | ReqKind::Rma | ReqKind::Nbc | ReqKind::PersistentColl => {}
            ReqKind::Recv => {
                let q = &mut self.mpi.ranks[r.owner].posted;
                if let Some(slot) = q.find_newest(r.ctx, r.peer, |&x| x == id) {
                    q.take(slot);
                    self.complete(
                        id,
                        Status {
                            cancelled: true,
                            ..Status::empty()
                        },
                    );
                }
            }
            ReqKind::Send(_) => {
                if r.peer == PROC_NULL {
                    return;
                }
                let dest = r.peer_world;
                let me = self.core.current();
                let q = &mut self.mpi.ranks[dest].unexpected;
                // The newest unmatched, unstarted message of this send.
                let slot = q.find_newest(r.ctx, r.my_rank, |e| {
                    e.transfer.is_none()
                        && e.source_world == me
                        && e.tag == r.tag
                        && (e.send == Some(id)
                            || (r.complete && matches!(e.payload, Payload::Buffered(_))))
                });
                if let Some(env) = slot.and_then(|slot| q.take(slot)) {
                    if let Some(shadow) = env.send.filter(|&s| s != id) {
                        self.release_bsend(shadow);
                        self.mpi.remove_request(shadow);
                    }
                    let st = Status {
                        cancelled: true,
                        ..Status::empty()
                    };
                    if r.complete {
                        self.mpi.request_mut(id).status.cancelled = true;
                    } else {
                        self.complete(id, st);
                    }
                }
            }
        }
    }

    fn release_bsend(&mut self, id: ReqId) {
        let (owner, bytes) = {
            let r = self.mpi.request(id);
            (r.owner, r.bsend_bytes)
        };
        if bytes > 0 {
            if let Some((_, _, used)) = self.mpi.ranks[owner].bsend.as_mut() {
                *used = used.saturating_sub(bytes);
            }
            self.mpi.request_mut(id).bsend_bytes = 0;
            // Wake a rank blocked in MPI_Buffer_detach.
            self.core.wake(owner);
        }
    }

    /// Looks for a matching message without receiving it.
    fn probe_match(&self, source: i32, tag: i32, ctx: u32) -> Option<matching::Slot> {
        self.mpi.ranks[self.core.current()]
            .unexpected
            .find(ctx, source, tag)
    }

    /// MPI_Iprobe (without its cost): the status of a matching message.
    pub fn iprobe(&mut self, source: i32, tag: i32, comm: i32) -> MpiResult<Option<Status>> {
        let view = self.comm(comm)?;
        self.check_peer(&view, source, true)?;
        Self::check_tag(tag, true)?;
        if source == PROC_NULL {
            return Ok(Some(Status {
                source: PROC_NULL,
                tag: ANY_TAG,
                ..Status::empty()
            }));
        }
        let unexpected = &self.mpi.ranks[self.core.current()].unexpected;
        Ok(self.probe_match(source, tag, view.ctx).and_then(|slot| {
            let e = unexpected.get(slot)?;
            Some(Status {
                source: e.source,
                tag: e.tag,
                error: 0,
                bytes: e.bytes,
                cancelled: false,
            })
        }))
    }

    /// MPI_Improbe: removes the matching message into a message handle.
    pub fn improbe(
        &mut self,
        source: i32,
        tag: i32,
        comm: i32,
    ) -> MpiResult<Option<(i32, Status)>> {
        let view = self.comm(comm)?;
        self.check_peer(&view, source, true)?;
        Self::check_tag(tag, true)?;
        if source == PROC_NULL {
            return Ok(Some((
                1,
                Status {
                    source: PROC_NULL,
                    tag: ANY_TAG,
                    ..Status::empty()
                },
            )));
        }
        let me = self.core.current();
        let Some(env) = self
            .probe_match(source, tag, view.ctx)
            .and_then(|slot| self.mpi.ranks[me].unexpected.take(slot))
        else {
            return Ok(None);
        };
        let st = Status {
            source: env.source,
            tag: env.tag,
            error: 0,
            bytes: env.bytes,
            cancelled: false,
        };
        Ok(Some((self.mpi.add_message(env), st)))
    }

    /// Starts a receive of message handle `msg` (from MPI_Mprobe).
    pub fn mrecv(
        &mut self,
        buf: *mut c_void,
        count: i64,
        datatype: i32,
        msg: i32,
    ) -> MpiResult<ReqId> {
        if msg == 1 {
            let id = self.new_request(
                ReqKind::Recv,
                buf,
                count,
                datatype,
                PROC_NULL,
                ANY_TAG,
                COMM_SELF,
                false,
            )?;
            self.start(id)?;
            return Ok(id);
        }
        let idx = usize::try_from(msg)
            .ok()
            .filter(|&i| i >= 2 && self.mpi.messages.get(i).is_some_and(Option::is_some))
            .ok_or_else(|| {
                MpiError::new(class::REQUEST, format!("invalid message handle {msg}"))
            })?;
        let env = self.mpi.messages[idx].take().expect("message");
        self.mpi.free_messages.push(idx);
        let count = Self::check_count(count)?;
        self.check_type(datatype)?;
        let dtype = Rc::clone(self.mpi.datatype(datatype)?);
        let view = self.comm(COMM_SELF)?;
        let id = self.new_internal_request(
            ReqKind::Recv,
            &view,
            env.ctx,
            buf as usize,
            count,
            dtype,
            env.source,
            env.tag,
        );
        {
            let r = self.mpi.request_mut(id);
            r.active = true;
        }
        self.deliver(env, id);
        Ok(id)
    }

    /// Blocks the current rank until a message matching (source, tag)
    /// arrives on `comm`; returns its status.
    pub fn set_probing(&mut self) {
        let me = self.core.current();
        self.mpi.ranks[me].probing = true;
    }

    /// A new communicator takes its parent's error handler (MPI: dup,
    /// split, create and the intercommunicator calls inherit it).
    pub fn inherit_errhandler(&mut self, parent: i32, child: i32) {
        if child == COMM_NULL {
            return;
        }
        let eh = self.errhandler(parent);
        if eh != ERRORS_ARE_FATAL {
            let me = self.core.current();
            let hs = &mut self.mpi.ranks[me].errhandlers;
            match hs.iter_mut().find(|(h, _)| *h == child) {
                Some(e) => e.1 = eh,
                None => hs.push((child, eh)),
            }
        }
    }

    /// Sets the info hints of `comm` for the current rank. Only the hints
    /// MPI defines for communicators are kept: MPI_Comm_get_info reports the
    /// hints in use, and others are ignored (as MPICH does).
    pub fn set_comm_hints(&mut self, comm: i32, mut hints: Vec<(String, String)>) {
        hints.retain(|(k, _)| COMM_HINTS.contains(&k.as_str()));
        let me = self.core.current();
        let all = &mut self.mpi.ranks[me].comm_hints;
        match all.iter_mut().find(|(c, _)| *c == comm) {
            Some(e) => e.1 = hints,
            None => all.push((comm, hints)),
        }
    }

    /// The info hints of `comm` for the current rank.
    pub fn comm_hints(&self, comm: i32) -> Vec<(String, String)> {
        let me = self.core.current();
        self.mpi.ranks[me]
            .comm_hints
            .iter()
            .find(|(c, _)| *c == comm)
            .map(|(_, h)| h.clone())
            .unwrap_or_default()
    }

    /// The error handler of `comm` for the current rank.
    pub fn errhandler(&self, comm: i32) -> i32 {
        let hs = &self.mpi.ranks[self.core.current()].errhandlers;
        let find = |c: i32| hs.iter().find(|(h, _)| *h == c).map(|(_, e)| *e);
        let comm = if self.comm(comm).is_ok() {
            comm
        } else {
            COMM_WORLD
        };
        find(comm).unwrap_or(ERRORS_ARE_FATAL)
    }

    /// Checks that `eh` is a predefined or program error handler.
    pub fn check_errhandler(&self, eh: i32) -> MpiResult<()> {
        if eh != ERRORS_ARE_FATAL && eh != ERRORS_RETURN && self.mpi.user_errhandler(eh).is_none() {
            return Err(MpiError::new(
                class::ARG,
                format!("invalid error handler {eh}"),
            ));
        }
        Ok(())
    }

    /// Sets the error handler of `comm` for the current rank.
    pub fn set_errhandler(&mut self, comm: i32, eh: i32) -> MpiResult<()> {
        self.comm(comm)?;
        self.check_errhandler(eh)?;
        let me = self.core.current();
        let hs = &mut self.mpi.ranks[me].errhandlers;
        match hs.iter_mut().find(|(h, _)| *h == comm) {
            Some(e) => e.1 = eh,
            None => hs.push((comm, eh)),
        }
        Ok(())
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
                seqs.push((ctx, 0));
                0
            }
        }
    }

    /// Appends `count` elements of `ty` at `buf` to `out`, reading only
    /// the memory that is not folded (SMPI_SHARED_MALLOC): folded bytes are
    /// meaningless, and reading them would fault in every page of their
    /// mappings. They travel as zeros.
    fn pack_private(&self, ty: &Datatype, buf: usize, count: usize, out: &mut Vec<u8>) {
        datatype::pack_with(ty, buf, count, out, |start, len, out| {
            for (lo, hi, private) in self.mem.folding.pieces(start, len) {
                if !private {
                    out.resize(out.len() + (hi - lo), 0);
                    continue;
                }
                // SAFETY: the application passed a buffer of `count`
                // elements of `ty` (MPI's contract for send buffers), and
                // this run lies in it.
                out.extend_from_slice(unsafe {
                    std::slice::from_raw_parts((start + lo) as *const u8, hi - lo)
                });
            }
        });
    }

    /// Whether `count` elements of `ty` at `buf` may lie in the globals
    /// swapped between ranks (always assumed for non-contiguous layouts).
    pub fn may_touch_globals(&self, buf: usize, ty: &Datatype, count: usize) -> bool {
        let Some(segment) = self.mem.segment.as_ref() else {
            return false;
        };
        if ty.is_contiguous() {
            return segment.contains(buf, count * ty.size);
        }
        // The span from the lowest to the highest byte first (HPL's struct
        // types of absolute addresses lie far from the globals), then each
        // run of the layouts that are short to walk.
        let reach = (count.max(1) as isize - 1) * ty.extent;
        let lo = buf as isize + ty.true_lb + reach.min(0);
        let hi = buf as isize + ty.true_lb + ty.true_extent + reach.max(0);
        if lo < 0 || hi < lo {
            return true;
        }
        if !segment.contains(lo as usize, (hi - lo) as usize) {
            return false;
        }
        if count.saturating_mul(ty.blocks.len()) > 64 {
            return true;
        }
        datatype::runs(ty, buf, count).any(|(start, len)| segment.contains(start, len))
    }
}

/// Waits (blocking the current rank) until `done` holds; `ids` are the
/// requests to be woken by. `call` names the MPI call for reports.
pub fn wait_for(ids: &[ReqId], call: &'static str, done: impl Fn(&Ctx) -> bool) {
    loop {
        nbc::progress();
        let finished = sim::mpi(|w| {
            if done(w) {
                for &id in ids {
                    if let Some(Some(r)) = w.mpi.requests.get_mut(id) {
                        r.waiting = false;
                    }
                }
                return true;
            }
            let mut first = None;
            let mut pending = 0;
            for &id in ids {
                if let Some(Some(r)) = w.mpi.requests.get_mut(id) {
                    if !r.complete {
                        r.waiting = true;
                        first.get_or_insert(id);
                        pending += 1;
                    }
                }
            }
            let detail = match first {
                Some(first) => Detail::Requests { first, pending },
                None => Detail::None,
            };
            w.core.block_current(call, detail);
            false
        });
        if finished {
            return;
        }
        sim::park();
    }
}

/// True if request `id` no longer exists or is complete.
pub fn is_complete(w: &Ctx, id: ReqId) -> bool {
    w.mpi
        .requests
        .get(id)
        .is_none_or(|r| r.as_ref().is_none_or(|r| r.complete))
}

#[cfg(test)]
mod tests {
    use super::Group;

    #[test]
    fn contiguous_world_ranks_make_a_range_group() {
        let g = Group::from_world_ranks(vec![10, 11, 12, 13]);
        assert!(matches!(g, Group::Range { first: 10, len: 4 }));
        assert_eq!(g.size(), 4);
        assert_eq!(g.world(3), 13);
        assert_eq!(g.rank_of(12), Some(2));
        assert_eq!(g.rank_of(9), None);
        assert_eq!(g.rank_of(14), None);
        let l = Group::from_world_ranks(vec![3, 1, 2]);
        assert!(matches!(l, Group::List(_)));
        assert_eq!(l.rank_of(1), Some(1));
        assert!(matches!(Group::from_world_ranks(vec![5]), Group::List(_)));
    }
}
