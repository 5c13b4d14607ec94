//! Requests and statuses: the request table, starting and completing
//! requests (point-to-point, compound, generalized, collective and
//! persistent ones), and waiting for them.

use std::ffi::c_void;
use std::rc::Rc;

use crate::engine::Detail;
use crate::sim;

use super::datatype::{Datatype, BYTE};
use super::ledger::Kind;
use super::poll::{self, Poll};
use super::{
    check, class, comm_name, nbc, CommView, Ctx, Group, Mpi, MpiError, MpiResult, SendMode,
    SendPlan, ANY_SOURCE, ANY_TAG, COMM_SELF, COMM_WORLD, PROC_NULL,
};

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
    /// The error a completed receive reports: its message was truncated.
    pub fn outcome(&self) -> MpiResult<()> {
        if self.error == class::TYPE {
            Err(MpiError::new(
                self.error,
                "the message's type signature does not match the receive's (see the \
                 DatatypeMatching line above)",
            ))
        } else if self.error != 0 {
            Err(MpiError::new(
                self.error,
                format!(
                    "message of more bytes than the receive buffer holds ({} bytes kept)",
                    self.bytes
                ),
            ))
        } else {
            Ok(())
        }
    }

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
    /// The message is detached: a send that completed when it was
    /// posted (SimGrid keeps no communication for it, so a test of it is
    /// no simcall), or a receive matched with such a send (it pays
    /// smpi/or).
    pub detached: bool,
    /// The world rank of the sender of the message a receive matched
    /// (for traces: a status holds a communicator rank).
    pub source_world: Option<usize>,
    /// Links to other requests and what few requests hold (None: none).
    pub links: Option<Box<ReqLinks>>,
    /// The program's call that made it (none for the runtime's own), for
    /// the correctness checks' reports, and where it is when known.
    pub call: Option<&'static str>,
    pub site: Option<super::ledger::Site>,
    /// A test of MPI_Testall or MPI_Testsome saw it complete: SimGrid
    /// frees it then, so later array tests do not charge it (`poll`).
    pub tested_complete: bool,
}

/// What few requests have, out of the record every message makes.
#[derive(Debug, Clone, Default)]
pub struct ReqLinks {
    /// The compound request this one is part of.
    pub parent: Option<ReqId>,
    /// A compound's parts.
    pub children: Vec<ReqId>,
    /// Data the request owns while it is pending (the packed send buffer
    /// of MPI_Isendrecv_replace).
    pub owned: Option<Vec<u8>>,
    /// Bytes held in the attached buffer by a buffered send.
    pub bsend_bytes: usize,
}

impl Request {
    /// The compound request this one is part of.
    pub fn parent(&self) -> Option<ReqId> {
        self.links.as_ref().and_then(|l| l.parent)
    }

    /// A compound's parts.
    pub fn children(&self) -> &[ReqId] {
        self.links.as_deref().map_or(&[], |l| &l.children)
    }

    /// A send that completed when it was posted: SimGrid keeps no
    /// communication for it, so its tests and waits make no simcall.
    pub fn is_detached_send(&self) -> bool {
        self.detached && matches!(self.kind, ReqKind::Send(_))
    }

    /// Bytes held in the attached buffer by a buffered send.
    pub fn bsend_bytes(&self) -> usize {
        self.links.as_ref().map_or(0, |l| l.bsend_bytes)
    }

    /// The links, to change (made on first use).
    pub fn links_mut(&mut self) -> &mut ReqLinks {
        self.links.get_or_insert_default()
    }
}

/// The fields of a request that matching and delivery read, copied out
/// (cloning the whole request would also clone its datatype's `Rc` and
/// its vectors, on every message).
#[derive(Debug, Clone, Copy)]
pub struct ReqHead {
    pub owner: usize,
    pub ctx: u32,
    pub peer: i32,
    pub tag: i32,
    pub peer_world: usize,
    pub my_rank: i32,
    pub buf: usize,
    pub count: usize,
}

impl Request {
    /// Its [`ReqHead`].
    pub fn head(&self) -> ReqHead {
        ReqHead {
            owner: self.owner,
            ctx: self.ctx,
            peer: self.peer,
            tag: self.tag,
            peer_world: self.peer_world,
            my_rank: self.my_rank,
            buf: self.buf,
            count: self.count,
        }
    }
}

/// A point-to-point operation as the program asked for it, unchecked.
#[derive(Debug, Clone, Copy)]
pub struct Message {
    pub buf: usize,
    pub count: i64,
    pub datatype: i32,
    /// The peer's rank in the communicator (or ANY_SOURCE, PROC_NULL).
    pub peer: i32,
    pub tag: i32,
    pub comm: i32,
}

/// A request the runtime makes for itself, on a communicator view.
pub struct Internal {
    pub kind: ReqKind,
    /// The context it matches in (the view's, or its collective one).
    pub ctx: u32,
    pub buf: usize,
    pub count: usize,
    pub dtype: Rc<Datatype>,
    /// A rank of the view's peer group (or ANY_SOURCE, PROC_NULL).
    pub peer: i32,
    pub tag: i32,
}

/// Index of a request in the request table (the handle minus one).
pub type ReqId = usize;

/// The program's handle of request `id`.
fn handle_of(id: ReqId) -> i32 {
    i32::try_from(id + 1).unwrap_or(i32::MAX)
}

/// Waits (blocking the current rank) until `done` holds; `ids` are the
/// requests to be woken by. `call` names the MPI call for reports.
pub fn wait_for(ids: &[ReqId], call: &'static str, done: impl Fn(&Ctx) -> bool) {
    wait_for_then(ids, call, done, |_| ());
}

/// [`wait_for`], then `then` on the MPI layer in the same access as the
/// check that found `done` (a blocking call's completion costs no second
/// access).
pub fn wait_for_then<R>(
    ids: &[ReqId],
    call: &'static str,
    done: impl Fn(&Ctx) -> bool,
    then: impl FnOnce(&mut Ctx) -> R,
) -> R {
    let mut then = Some(then);
    loop {
        nbc::progress();
        let finished = sim::mpi(|w| {
            if done(w) {
                for &id in ids {
                    if let Some(Some(r)) = w.mpi.requests.get_mut(id) {
                        r.waiting = false;
                    }
                }
                return then.take().map(|f| f(w));
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
            None
        });
        if let Some(r) = finished {
            return r;
        }
        sim::park();
    }
}

/// The turns SimGrid's waits take before [`wait_for`] waits for `ids`
/// all (MPI_Waitall, or `ids` of one: MPI_Wait, a blocking send or
/// receive), in `call`. SimGrid waits for its requests one at a time (its
/// waitall is one waitany per request): a detached send, which it keeps
/// no communication for, is taken without a simcall, first; each other
/// request costs a wait simcall, answered at once when one of those left
/// is complete (a turn, see [`sim::pass_turn`]) or when one completes.
pub fn wait_turns(ids: &[ReqId], call: &'static str) {
    let waited = |w: &Ctx, id: ReqId| w.mpi.request_opt(id).is_some_and(|r| !r.is_detached_send());
    // Most waits have at most one request SimGrid waits for (a blocking
    // send or receive, MPI_Wait, a collective's round): a turn if it is
    // complete, else the wait that follows blocks; one access, no list.
    let (single, turn) = sim::mpi(|w| {
        let mut it = ids.iter().copied().filter(|&id| waited(w, id));
        match (it.next(), it.next()) {
            (None, _) => (true, false),
            (Some(id), None) => (true, is_complete(w, id) && w.core.pass_turn()),
            _ => (false, false),
        }
    });
    if single {
        sim::park_for_turn(turn);
        return;
    }
    let mut left: Vec<ReqId> =
        sim::mpi(|w| ids.iter().copied().filter(|&id| waited(w, id)).collect());
    while !left.is_empty() {
        let done = |w: &Ctx| left.iter().position(|&id| is_complete(w, id));
        match sim::mpi(|w| done(w)) {
            Some(_) => sim::pass_turn(),
            None => {
                let ids = left.clone();
                wait_for(&ids, call, |w| ids.iter().any(|&id| is_complete(w, id)));
            }
        }
        match sim::mpi(|w| done(w)) {
            Some(i) => {
                left.remove(i);
            }
            None => return,
        }
    }
}

/// SimGrid's waitany over `active` (the program's index and the request
/// of each active one), in `call`: the request it takes. A detached send,
/// which SimGrid keeps no communication for, is taken at once; otherwise
/// one wait simcall: a turn when one is complete (the first in order is
/// taken), else the rank blocks until one completes.
pub fn wait_any(active: &[(usize, ReqId)], call: &'static str) -> (usize, ReqId) {
    let first_complete = |w: &Ctx| active.iter().copied().find(|&(_, id)| is_complete(w, id));
    let (taken, turn) = sim::mpi(|w| {
        let detached = active
            .iter()
            .copied()
            .find(|&(_, id)| w.mpi.request_opt(id).is_some_and(|r| r.is_detached_send()));
        match detached.or_else(|| first_complete(w)) {
            Some(t) => (Some(t), detached.is_none() && w.core.pass_turn()),
            None => (None, false),
        }
    });
    sim::park_for_turn(turn);
    if let Some(t) = taken {
        return t;
    }
    let ids: Vec<ReqId> = active.iter().map(|&(_, id)| id).collect();
    wait_for_then(
        &ids,
        call,
        |w| first_complete(w).is_some(),
        |w| first_complete(w).expect("a completed request"),
    )
}

/// True if request `id` no longer exists or is complete.
pub fn is_complete(w: &Ctx, id: ReqId) -> bool {
    w.mpi
        .requests
        .get(id)
        .is_none_or(|r| r.as_ref().is_none_or(|r| r.complete))
}

impl Mpi {
    pub fn request(&self, id: ReqId) -> &Request {
        self.requests[id].as_ref().expect("live request")
    }

    /// Request `id`, if it is live.
    pub fn request_opt(&self, id: ReqId) -> Option<&Request> {
        self.requests.get(id).and_then(Option::as_ref)
    }

    /// The number of request slots (live or free): ids are below it.
    pub fn request_slots(&self) -> usize {
        self.requests.len()
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

    pub(super) fn add_request(&mut self, r: Request) -> ReqId {
        let owner = r.owner;
        let id = match self.free_requests.pop() {
            Some(id) => {
                self.requests[id] = Some(r);
                id
            }
            None => {
                self.requests.push(Some(r));
                self.requests.len() - 1
            }
        };
        self.ledger.open(Kind::Request, handle_of(id), owner);
        id
    }

    /// Notes that request `id` is the program's, made by `call` (at the
    /// owner's call location when known).
    pub fn program_request(&mut self, id: ReqId, call: &'static str) {
        let owner = self.request(id).owner;
        let site = self.ledger.here(owner).cloned();
        let r = self.request_mut(id);
        r.call = Some(call);
        r.site = site;
        self.ranks[owner].live_requests += 1;
    }

    /// Removes a request (and the parts of a compound one).
    pub fn remove_request(&mut self, id: ReqId) {
        // Only the fields needed, taken out in place: moving the whole
        // request out past the ledger call made the compiler copy it twice
        // (a few percent of a large allreduce's instructions).
        let Some(Request {
            owner,
            kind,
            links,
            call,
            ..
        }) = self.requests[id].take()
        else {
            return;
        };
        if call.is_some() {
            let live = &mut self.ranks[owner].live_requests;
            *live = live.saturating_sub(1);
            Ctx::forget_request(&mut self.verify.collectives, id);
        }
        self.ledger.close(Kind::Request, handle_of(id), owner);
        if matches!(kind, ReqKind::PersistentColl) {
            self.persistent_starts.remove(&id);
        }
        self.free_requests.push(id);
        for child in links.map(|l| l.children).unwrap_or_default() {
            self.remove_request(child);
        }
    }

    /// The sender (a world rank) and tag of the message completed
    /// request `id` received, if it is a receive of the program (or an
    /// MPI_Isendrecv) that got one: what traces link to the message's
    /// send. Collectives' messages, on the odd contexts, are not the
    /// program's.
    pub fn received_message(&self, id: ReqId) -> Option<(usize, i32)> {
        let r = self.requests.get(id)?.as_ref()?;
        let r = match r.kind {
            ReqKind::Recv => r,
            ReqKind::Compound => self.requests.get(*r.children().first()?)?.as_ref()?,
            _ => return None,
        };
        if r.ctx % 2 == 1 || r.status.cancelled {
            return None;
        }
        Some((r.source_world?, r.status.tag))
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
}

impl Ctx<'_> {
    /// Creates an inactive point-to-point request after checking the
    /// program's arguments.
    pub fn new_request(
        &mut self,
        kind: ReqKind,
        m: &Message,
        persistent: bool,
    ) -> MpiResult<ReqId> {
        let view = self.comm(m.comm)?;
        let count = check::count(m.count)?;
        let dtype = self.mpi.committed(m.datatype)?;
        check::buffer(m.buf, count, &dtype, "the buffer")?;
        let is_recv = matches!(kind, ReqKind::Recv);
        check::peer(&view, m.peer, is_recv)?;
        check::tag(m.tag, is_recv)?;
        let id = self.new_internal_request(
            &view,
            Internal {
                kind,
                ctx: view.ctx,
                buf: m.buf,
                count,
                dtype,
                peer: m.peer,
                tag: m.tag,
            },
        );
        self.mpi.request_mut(id).persistent = persistent;
        self.mpi.program_request(id, sim::current_call());
        Ok(id)
    }

    /// A request without data or peer (compound, generalized, collective,
    /// one-sided ones), on context `ctx` of `view`.
    pub fn new_dataless_request(
        &mut self,
        kind: ReqKind,
        view: &CommView,
        ctx: u32,
        tag: i32,
    ) -> ReqId {
        let dtype = Rc::clone(self.mpi.datatype(BYTE).expect("MPI_BYTE is predefined"));
        self.new_internal_request(
            view,
            Internal {
                kind,
                ctx,
                buf: 0,
                count: 0,
                dtype,
                peer: PROC_NULL,
                tag,
            },
        )
    }

    /// Creates a request the runtime needs (no argument checks: it built
    /// them), on `view`.
    pub fn new_internal_request(&mut self, view: &CommView, r: Internal) -> ReqId {
        let peer_world = if r.peer >= 0 {
            view.peer_group().world(r.peer as usize)
        } else {
            0
        };
        self.mpi.add_request(Request {
            owner: self.core.current(),
            kind: r.kind,
            comm: view.handle,
            ctx: r.ctx,
            peer: r.peer,
            tag: r.tag,
            peer_world,
            my_rank: view.my_rank as i32,
            buf: r.buf,
            count: r.count,
            dtype: r.dtype,
            persistent: false,
            active: false,
            complete: false,
            status: Status::empty(),
            waiting: false,
            freed: false,
            detached: false,
            source_world: None,
            links: None,
            call: None,
            site: None,
            tested_complete: false,
        })
    }

    /// Starts (activates) a request.
    pub fn start(&mut self, id: ReqId) -> MpiResult<()> {
        self.start_planned(id, None)
    }

    /// Starts (activates) a request; a send follows `plan` when its caller
    /// decided it already (and paid its overhead), else it is decided here.
    pub fn start_planned(&mut self, id: ReqId, plan: Option<SendPlan>) -> MpiResult<()> {
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
            r.tested_complete = false;
            r.status = Status::empty();
            r.source_world = None;
        }
        match self.mpi.request(id).kind {
            ReqKind::Send(mode) => self.start_send(id, mode, plan),
            ReqKind::Recv => {
                self.start_recv(id);
                Ok(())
            }
            ReqKind::Compound => {
                for child in self.mpi.request(id).children().to_vec() {
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
        let parent = self.mpi.requests[id].as_ref().and_then(Request::parent);
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
    pub(super) fn child_completed(&mut self, p: ReqId) {
        let Some(parent) = self.mpi.requests.get(p).and_then(Option::as_ref) else {
            return;
        };
        if parent.complete {
            return;
        }
        let all = parent.children().iter().all(|&c| is_complete(self, c));
        if all {
            let status = parent
                .children()
                .first()
                .and_then(|&c| self.mpi.requests.get(c).and_then(Option::as_ref))
                .map_or(Status::empty(), |r| r.status);
            let persistent = matches!(parent.kind, ReqKind::PersistentColl);
            self.complete(p, status);
            // A persistent collective's run is over: its request goes.
            if persistent {
                if let Some(r) = self.mpi.requests.get_mut(p).and_then(Option::as_mut) {
                    for c in std::mem::take(&mut r.links_mut().children) {
                        self.mpi.remove_request(c);
                    }
                }
            }
        }
    }

    /// A new persistent collective request of the current rank, inactive,
    /// begun by `start` at each MPI_Start.
    pub fn new_persistent_collective(&mut self, view: &CommView, start: PersistentStart) -> ReqId {
        // Persistent collectives match in the order they were made, not
        // started: the collective tag is taken now, for every run.
        let tag = self.next_coll_tag_in(view.ctx);
        let id = self.new_dataless_request(ReqKind::PersistentColl, view, view.ctx, tag);
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
        r.tested_complete = false;
        r.status = Status::empty();
        let reserved = (r.ctx, r.tag);
        let me = self.core.current();
        self.mpi.ranks[me].reserved_coll_tag = Some(reserved);
        Ok(Rc::clone(&self.mpi.persistent_starts[&id]))
    }

    /// Makes `run` (the request of one run's non-blocking collective) the
    /// child of persistent collective `id`, completing `id` if it is done.
    pub fn attach_persistent_run(&mut self, id: ReqId, run: ReqId) {
        self.mpi.request_mut(run).links_mut().parent = Some(id);
        self.mpi.request_mut(id).links_mut().children = vec![run];
        if is_complete(self, run) {
            self.child_completed(id);
        }
    }

    /// Makes a compound request of `children` ([receive, send]) owned by
    /// the current rank, optionally owning `data` until it completes.
    /// The request of a non-blocking collective on `view`, active and
    /// incomplete.
    pub fn new_nbc_request(&mut self, view: &CommView) -> ReqId {
        let id = self.new_dataless_request(ReqKind::Nbc, view, view.ctx, 0);
        self.mpi.request_mut(id).active = true;
        let call = super::verify::collectives::nonblocking_name(sim::current_call());
        self.mpi.program_request(id, call);
        id
    }

    /// A request that is complete already (a non-blocking collective with
    /// nothing to do).
    pub fn new_completed_request(&mut self) -> ReqId {
        self.new_completed_request_with(Status::empty())
    }

    /// A request that is complete already with `status` (an I/O done
    /// when it was started).
    pub fn new_completed_request_with(&mut self, status: Status) -> ReqId {
        let view = self.comm(COMM_WORLD).expect("MPI_COMM_WORLD exists");
        let id = self.new_nbc_request(&view);
        self.complete(id, status);
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
        let id = self.new_dataless_request(ReqKind::Compound, &view, first.ctx, first.tag);
        for &c in &children {
            self.mpi.request_mut(c).links_mut().parent = Some(id);
        }
        let links = self.mpi.request_mut(id).links_mut();
        links.children = children;
        links.owned = data;
        id
    }

    /// Frees a completed request or marks an active one for freeing.
    pub fn free_request(&mut self, id: ReqId) {
        let r = self.mpi.request_mut(id);
        let owner = r.owner;
        // The program lets go of it, even if it is still running.
        self.mpi.ledger.close(Kind::Request, handle_of(id), owner);
        if self.mpi.verify.on.concurrency {
            self.release_guards(owner, id, false);
        }
        self.request_freed_unseen(id);
        let r = self.mpi.request_mut(id);
        if r.active && !r.complete {
            r.freed = true;
            r.persistent = false;
        } else {
            self.mpi.remove_request(id);
        }
    }
}

// The rank-side calls on requests: they run on the calling rank's
// coroutine and may wait; program callbacks (generalized requests,
// persistent collectives) run outside any borrow of the simulation.

/// The request behind a program's handle, if it is active (None for an
/// inactive persistent request).
pub fn active(handle: i32) -> MpiResult<Option<ReqId>> {
    sim::mpi(|w| {
        let id = w.mpi.request_id(handle)?;
        Ok(w.mpi.request(id).active.then_some(id))
    })
}

/// What taking a completed request leaves.
pub struct Taken {
    pub status: Status,
    /// The request is gone: its handle becomes MPI_REQUEST_NULL (a
    /// persistent request stays, inactive).
    pub released: bool,
}

/// Takes the result of completed request `id`: frees it or, if
/// persistent, makes it inactive. A generalized request's status comes
/// from the program's query function, and its free function runs.
pub fn take_completed(id: ReqId) -> Taken {
    let greq = sim::mpi(|w| match w.mpi.request(id).kind {
        ReqKind::Generalized(g) => Some(g),
        _ => None,
    });
    if let Some(g) = greq {
        let mut raw = RawStatus {
            source: ANY_SOURCE,
            tag: ANY_TAG,
            ..RawStatus::default()
        };
        let extra = g.extra_state as *mut c_void;
        // SAFETY: the program's callbacks, called as MPI specifies, with
        // its extra_state and a valid status (laid out as MPI_Status) to
        // fill.
        let err = unsafe {
            let q = g
                .query
                .map_or(0, |q| q(extra, (&mut raw as *mut RawStatus).cast()));
            let f = g.free.map_or(0, |f| f(extra));
            if q != 0 {
                q
            } else {
                f
            }
        };
        sim::mpi(|w| w.mpi.remove_request(id));
        let mut status = raw.status();
        if err != 0 {
            status.error = err;
        }
        return Taken {
            status,
            released: true,
        };
    }
    received(id);
    sim::mpi(|w| {
        w.owe_recv_overhead(id);
        if w.mpi.verify.on.concurrency {
            let owner = w.mpi.request(id).owner;
            w.release_guards(owner, id, true);
        }
        w.check_receive_order(id);
        if w.mpi.verify.on.rma && matches!(w.mpi.request(id).kind, ReqKind::Rma) {
            w.rma_request_completed(id);
        }
        let r = w.mpi.request(id);
        let status = r.status;
        let released = !r.persistent;
        if released {
            w.mpi.remove_request(id);
        } else {
            w.mpi.request_mut(id).active = false;
        }
        Taken { status, released }
    })
}

/// Tells the tracers, if any, of the message completed request `id`
/// received (see [`Mpi::received_message`]), as the program takes it
/// (`trace::Tracer::received`).
pub fn received(id: ReqId) {
    if !sim::fast(|f| f.observed()) {
        return;
    }
    if let Some((src, tag)) = sim::mpi(|w| w.mpi.received_message(id)) {
        sim::with(|s| {
            let (at, rank) = (s.core.now(), s.core.current());
            s.tracers.received(at, rank, src, tag);
        });
    }
}

/// `MPI_Status` as laid out in mpi.h.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct RawStatus {
    pub count_lo: i32,
    pub count_hi_and_cancelled: i32,
    pub source: i32,
    pub tag: i32,
    pub error: i32,
}

impl RawStatus {
    /// The byte count it holds.
    pub fn bytes(&self) -> u64 {
        u64::from(self.count_lo as u32)
            | (u64::from((self.count_hi_and_cancelled as u32) >> 1) << 32)
    }

    /// Sets its byte count, keeping its cancelled flag.
    pub fn set_bytes(&mut self, bytes: u64) {
        let cancelled = self.count_hi_and_cancelled & 1;
        self.count_lo = (bytes & 0xffff_ffff) as u32 as i32;
        self.count_hi_and_cancelled = (((bytes >> 32) << 1) as i32) | cancelled;
    }

    /// Fills it from `st` (its error field too when `set_error`).
    pub fn fill(&mut self, st: &Status, set_error: bool) {
        self.count_hi_and_cancelled = i32::from(st.cancelled);
        self.set_bytes(st.bytes as u64);
        self.source = st.source;
        self.tag = st.tag;
        if set_error {
            self.error = st.error;
        }
    }

    /// The status it describes.
    pub fn status(&self) -> Status {
        Status {
            source: self.source,
            tag: self.tag,
            error: self.error,
            bytes: self.bytes() as usize,
            cancelled: self.count_hi_and_cancelled & 1 != 0,
        }
    }
}

/// MPI_Start: starts persistent request `handle`: a point-to-point one at
/// once; a collective one by running its non-blocking call (which may run
/// the program's code, so outside any borrow), whose request becomes the
/// run. `call` names the MPI call.
pub fn start_persistent(handle: i32, call: &str) -> MpiResult<()> {
    let collective = sim::mpi(|w| {
        let id = w.mpi.request_id(handle)?;
        let r = w.mpi.request(id);
        if !r.persistent {
            return Err(MpiError::new(
                class::REQUEST,
                format!("{call} on a request that is not persistent"),
            ));
        }
        if matches!(r.kind, ReqKind::PersistentColl) {
            return Ok(Some((id, w.activate_persistent_collective(id)?)));
        }
        w.start(id)?;
        w.guard_request(id);
        Ok(None)
    })?;
    let Some((id, start)) = collective else {
        return Ok(());
    };
    let mut run: i32 = 0;
    let code = start(&mut run);
    // Unused if the call failed before taking it.
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me].reserved_coll_tag = None;
    });
    if code != class::SUCCESS {
        sim::mpi(|w| w.mpi.request_mut(id).active = false);
        return Err(MpiError::new(
            code,
            format!("{call}: the persistent collective could not start"),
        ));
    }
    sim::mpi(|w| {
        let run = w.mpi.request_id(run)?;
        w.attach_persistent_run(id, run);
        Ok(())
    })
}

/// MPI_Cancel: cancels request `handle` if it can be (a generalized
/// request through the program's cancel function).
pub fn cancel(handle: i32) -> MpiResult<()> {
    let greq = sim::mpi(|w| -> MpiResult<Option<(Grequest, bool)>> {
        let id = w.mpi.request_id(handle)?;
        let r = w.mpi.request(id);
        if let ReqKind::Generalized(g) = r.kind {
            return Ok(Some((g, r.complete)));
        }
        w.cancel(id);
        Ok(None)
    })?;
    if let Some((g, complete)) = greq {
        if let Some(cancel) = g.cancel {
            // SAFETY: the program's cancel function, as MPI specifies.
            let rc = unsafe { cancel(g.extra_state as *mut c_void, i32::from(complete)) };
            if rc != 0 {
                return Err(MpiError::new(
                    rc,
                    "the generalized request's cancel function failed",
                ));
            }
        }
    }
    Ok(())
}

/// MPI_Grequest_start: a generalized request, active until the program
/// completes it.
pub fn grequest_start(g: Grequest) -> MpiResult<ReqId> {
    sim::mpi(|w| {
        let view = w.comm(COMM_SELF)?;
        let id = w.new_dataless_request(ReqKind::Generalized(g), &view, view.ctx, 0);
        w.mpi.request_mut(id).active = true;
        Ok(id)
    })
}

/// MPI_Grequest_complete.
pub fn grequest_complete(handle: i32) -> MpiResult<()> {
    sim::mpi(|w| {
        let id = w.mpi.request_id(handle)?;
        if !matches!(w.mpi.request(id).kind, ReqKind::Generalized(_)) {
            return Err(MpiError::new(
                class::REQUEST,
                "MPI_Grequest_complete on a request that is not generalized",
            ));
        }
        w.complete(id, Status::empty());
        Ok(())
    })
}

/// MPI_Request_get_status: whether request `handle` (MPI_REQUEST_NULL: 0)
/// is complete, and its status, without taking it; None for the null or
/// an inactive request. An active request costs an iprobe, which finds
/// nothing (`poll`: SimGrid's MPI_Request_get_status iprobes).
pub fn peek(handle: i32) -> MpiResult<Option<(bool, Status)>> {
    let state = if handle == 0 {
        None
    } else {
        sim::mpi(|w| -> MpiResult<Option<(bool, Status)>> {
            let id = w.mpi.request_id(handle)?;
            let r = w.mpi.request(id);
            Ok(r.active.then_some((r.complete, r.status)))
        })?
    };
    if state.is_some() {
        poll::charge_then_look(Poll::Iprobe, "MPI_Request_get_status");
        poll::looked(Poll::Iprobe, false);
    }
    // The look after the charge: the request may have completed meanwhile.
    match state {
        Some(_) => sim::mpi(|w| {
            let id = w.mpi.request_id(handle)?;
            let r = w.mpi.request(id);
            Ok(Some((r.complete, r.status)))
        }),
        None => Ok(None),
    }
}

/// MPI_Request_free.
pub fn free(handle: i32) -> MpiResult<()> {
    let id = sim::mpi(|w| w.mpi.request_id(handle))?;
    sim::mpi(|w| w.free_request(id));
    Ok(())
}
