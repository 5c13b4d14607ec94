//! The point-to-point protocol: matching sends with receives, detached
//! and rendezvous messages, the transfers that carry them, probes,
//! cancellation and buffered sends.

use privatize::fold::Cover;
use std::ffi::c_void;
use std::rc::Rc;

use crate::engine::{Detail, TransferId};
use crate::log::{self, Priority, SimGrid, MPI};
use crate::sim;

use super::datatype::Datatype;
use super::matching::Slot;
use super::poll::{self, Poll};
use super::verify::{
    self,
    wildcard::{self, Candidate, Race},
};
use super::{
    check, class, comm_name, datatype, is_complete, matching, request, wait_for, win, Ctx,
    Internal, Message, Mpi, MpiError, MpiResult, ReqId, ReqKind, Request, SendMode, SendPlan,
    Status, ANY_SOURCE, ANY_TAG, BSEND_OVERHEAD, COMM_SELF, PROC_NULL,
};

/// MPI_MESSAGE_NO_PROC: the message handle of a probe of MPI_PROC_NULL.
pub const MESSAGE_NO_PROC: i32 = 1;

/// Where a message's bytes are until a receive takes them.
#[derive(Debug)]
pub(super) enum Payload {
    /// Copied at send time (detached and buffered sends).
    Buffered(Vec<u8>),
    /// Copied at send time from a buffer wholly folded
    /// (`SMPI_SHARED_MALLOC`), whose content is meaningless: that many
    /// zeros, never written out unless a private buffer receives them.
    Zeros(usize),
    /// Still in the sender's buffer (rendezvous): the send request.
    InSendBuffer(ReqId),
}

/// A message that arrived (logically) before its receive was posted.
#[derive(Debug)]
pub(super) struct Envelope {
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
    /// What the program sent, for the type signature check.
    sent: Option<Box<Sent>>,
}

/// A program's send as the checks see it (`verify`).
#[derive(Debug)]
pub(super) struct Sent {
    dtype: Rc<Datatype>,
    count: usize,
    call: &'static str,
    site: Option<super::ledger::Site>,
    /// Sent after a collective the receiver had not called.
    after: Option<verify::collectives::After>,
}

/// What a transfer completes when it ends.
#[derive(Debug, Clone, Default)]
pub struct TransferHooks {
    pub recv: Option<ReqId>,
    pub send: Option<ReqId>,
    /// Set for the transfers of one-sided operations (boxed: every
    /// message in flight has hooks, few are one-sided).
    pub rma: Option<Box<win::RmaHooks>>,
}

impl Mpi {
    pub(super) fn add_message(&mut self, e: Envelope) -> i32 {
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

impl Ctx<'_> {
    /// Starts a transfer of `bytes` from `src` to `dst` that completes
    /// what `hooks` says when it arrives.
    pub(super) fn start_transfer(
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

    /// Forgets transfer `id`, in the core and here.
    pub(super) fn release_transfer(&mut self, id: TransferId) {
        self.core.release_transfer(id);
        if let Some(h) = self.mpi.transfer_hooks.get_mut(id.0 as usize) {
            *h = None;
        }
    }

    /// What transfer `id` completes when it arrives.
    pub(super) fn hooks_mut(&mut self, id: TransferId) -> Option<&mut TransferHooks> {
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
            self.rma_transfer_done(*rma);
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

    /// Starts send request `id` in `mode` by `plan`, or by the plan the
    /// protocol gives its size (a send that pays no overhead here).
    pub(super) fn start_send(
        &mut self,
        id: ReqId,
        mode: SendMode,
        plan: Option<SendPlan>,
    ) -> MpiResult<()> {
        let r = self.mpi.request(id).head();
        if r.peer == PROC_NULL {
            self.complete(id, Status::empty());
            return Ok(());
        }
        let ty = Rc::clone(&self.mpi.request(id).dtype);
        let bytes = r.count * ty.size;
        let dest_world = r.peer_world;
        let detached = plan
            .unwrap_or_else(|| self.mpi.protocol.plan(mode, bytes, false))
            .detached;
        tracing::debug!(
            target: MPI,
            "rank {} sends {bytes} B to rank {} (tag {}, context {}): {:?}, {}",
            self.core.current(),
            dest_world,
            r.tag,
            r.ctx,
            mode,
            if detached { "detached" } else { "rendezvous" }
        );
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
            self.mpi.request_mut(id).links_mut().bsend_bytes = need;
        }
        let payload = if detached {
            self.packed(&ty, r.buf, r.count)
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
            sent: None,
        };
        let on = self.mpi.verify.on;
        if on.types || on.requests || on.collectives {
            let s = self.mpi.request(id);
            if let Some(call) = s.call {
                let site = s.site.clone();
                let after = if on.collectives {
                    self.sent_after_collective(dest_world)
                } else {
                    None
                };
                env.sent = Some(Box::new(Sent {
                    dtype: Rc::clone(&ty),
                    count: r.count,
                    call,
                    site,
                    after,
                }));
            }
        }
        // A detached standard send completes at once; a buffered send
        // completes locally too but holds its buffer space until delivery.
        let completes_now = detached;
        self.mpi.request_mut(id).detached = completes_now;
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
            if self.mpi.protocol.starts_early(bytes) {
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

    pub(super) fn start_recv(&mut self, id: ReqId) {
        let r = self.mpi.request(id).head();
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
        let mut slot = self.mpi.ranks[r.owner]
            .unexpected
            .find(r.ctx, r.peer, r.tag);
        if r.peer == ANY_SOURCE && self.mpi.verify.on.wildcard {
            slot = slot.map(|oldest| self.wildcard_race(id, oldest));
        }
        let rm = &mut self.mpi.ranks[r.owner];
        match slot.and_then(|slot| rm.unexpected.take(slot)) {
            Some(env) => self.deliver(env, id),
            None => rm.posted.push(r.ctx, r.peer, r.tag, id),
        }
    }

    /// Check `wildcard`: receive `id` (from MPI_ANY_SOURCE) would take the
    /// message at `oldest`; if messages of other sources wait too, which
    /// one it gets depends on the order of arrival (a message race): the
    /// race is reported and logged, and the message it takes returned
    /// (another than the oldest when a re-run forces this race).
    fn wildcard_race(&mut self, id: ReqId, oldest: Slot) -> Slot {
        let r = self.mpi.request(id);
        let Some(call) = r.call else { return oldest };
        let (owner, ctx, tag) = (r.owner, r.ctx, r.tag);
        let q = &self.mpi.ranks[owner].unexpected;
        let (slots, candidates): (Vec<Slot>, Vec<Candidate>) = q
            .candidates(ctx, tag)
            .into_iter()
            .filter_map(|slot| {
                let env = q.get(slot)?;
                let c = Candidate {
                    source: env.source,
                    world: env.source_world,
                };
                Some((slot, c))
            })
            .unzip();
        if candidates.len() < 2 {
            return oldest;
        }
        let pick = self.mpi.verify.races.pick(&candidates);
        let taken = candidates[pick];
        let tag_text = if tag == ANY_TAG {
            "MPI_ANY_TAG".to_string()
        } else {
            format!("tag {tag}")
        };
        let how = if pick == 0 {
            "as they happened to arrive"
        } else {
            "as this re-run forces"
        };
        let message = format!(
            "a receive from MPI_ANY_SOURCE ({tag_text}) could take the message of {}; it takes \
             rank {}'s, {how} (the outcome may change with the timing: name the source, or make \
             the order not matter; smpi/check/wildcard-alternatives re-runs with the others)",
            wildcard::senders(&candidates),
            taken.world
        );
        let others: Vec<Candidate> = candidates
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != pick)
            .map(|(_, c)| *c)
            .collect();
        let mut ranks = vec![owner, taken.world];
        ranks.extend(others.iter().map(|c| c.world));
        let location = self.mpi.ledger.here(owner).map(ToString::to_string);
        self.mpi.verify.races.log.races.push(Race {
            rank: owner,
            call: call.to_string(),
            tag,
            taken,
            others,
            location,
        });
        self.finding(verify::Kind::MessageRace, ranks, call, message);
        slots[pick]
    }

    /// Matches envelope `env` with receive `rid`: copies the data and
    /// starts (or joins) the transfer that completes them.
    pub(super) fn deliver(&mut self, env: Envelope, rid: ReqId) {
        let r = self.mpi.request(rid).head();
        let rty = Rc::clone(&self.mpi.request(rid).dtype);
        let capacity = r.count * rty.size;
        let mut status = Status {
            source: env.source,
            tag: env.tag,
            error: 0,
            bytes: env.bytes.min(capacity),
            cancelled: false,
        };
        self.mpi.request_mut(rid).source_world = Some(env.source_world);
        tracing::debug!(
            target: MPI,
            "rank {} matches a message of {} B from rank {} (tag {}, context {})",
            r.owner,
            env.bytes,
            env.source_world,
            env.tag,
            env.ctx
        );
        if let Some(after) = env.sent.as_ref().and_then(|s| s.after) {
            self.received_after(rid, after);
        }
        if env.bytes > capacity {
            status.error = class::TRUNCATE;
        } else if let Some(sent) = env.sent.as_ref().filter(|_| self.mpi.verify.on.types) {
            if let Some(recv_call) = self.mpi.request(rid).call {
                if let Err(m) = verify::signature::check(&sent.dtype, sent.count, &rty, r.count) {
                    status.error = class::TYPE;
                    self.type_mismatch(&env, sent, rid, recv_call, &m);
                }
            }
        }
        if env.bytes > 0 && log::enabled(SimGrid::SmpiKernel, Priority::Verbose) {
            self.note_folded_copy(&env, r.buf, env.bytes.min(capacity));
        }
        let guarded =
            self.mpi.verify.on.concurrency && self.mpi.verify.guards.contains_key(&r.owner);
        let written = verify::span(r.buf, r.count, &rty);
        if guarded {
            self.guards_before_write(r.owner, Some(written));
        }
        // Placed memory (swapped globals, a shared stack) holds one rank's
        // contents at a time: whichever buffer lies in it is read or
        // written with its owner's in place, through a copy if both do.
        let in_place = self.mem.placed();
        match &env.payload {
            payload @ (Payload::Buffered(_) | Payload::Zeros(_)) => {
                // The bytes, or None for as many zeros.
                let (data, len) = match payload {
                    Payload::Buffered(data) => (Some(&data[..]), data.len()),
                    Payload::Zeros(len) => (None, *len),
                    Payload::InSendBuffer(_) => unreachable!("matched above"),
                };
                let n = len.min(capacity);
                if self.may_touch_placed(r.buf, &rty, r.count) {
                    self.mem.activate(r.owner);
                }
                // Folded destination bytes (SMPI_SHARED_MALLOC) are left
                // alone: their content is meaningless.
                let folding = &self.mem.folding;
                // A contiguous buffer wholly private or wholly folded (most
                // are) takes one copy or none.
                let whole = if rty.is_contiguous() {
                    folding.cover(r.buf, n)
                } else {
                    Cover::Mixed
                };
                if whole == Cover::Private && n > 0 {
                    // SAFETY: the receive buffer holds `count` elements of
                    // `rty` (MPI's contract), `capacity` bytes from its
                    // start for a contiguous type, and n <= capacity; a
                    // buffered payload holds at least n bytes.
                    unsafe {
                        match data {
                            Some(data) => {
                                std::ptr::copy_nonoverlapping(data.as_ptr(), r.buf as *mut u8, n)
                            }
                            None => std::ptr::write_bytes(r.buf as *mut u8, 0, n),
                        }
                    };
                } else if whole == Cover::Mixed {
                    let zeros;
                    let data = match data {
                        Some(data) => &data[..n],
                        None => {
                            zeros = vec![0u8; n];
                            &zeros[..]
                        }
                    };
                    datatype::unpack_with(&rty, r.buf, data, |piece, dst| {
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
            }
            Payload::InSendBuffer(sid) => {
                let s = self.mpi.request(*sid);
                let n = env.bytes.min(capacity);
                let send_placed = self.may_touch_placed(s.buf, &s.dtype, s.count);
                let recv_placed = self.may_touch_placed(r.buf, &rty, r.count);
                let contiguous = s.dtype.is_contiguous() && rty.is_contiguous();
                if !send_placed && !recv_placed {
                    // Straight from buffer to buffer, except into folded
                    // memory (SMPI_SHARED_MALLOC), whose content is
                    // meaningless; folded source bytes arrive as zeros.
                    let folding = &self.mem.folding;
                    let copy = |src: usize, dst: usize, len: usize| {
                        match (folding.cover(dst, len), folding.cover(src, len)) {
                            (Cover::Folded, _) => return,
                            (Cover::Private, Cover::Private) => {
                                if len > 0 {
                                    // SAFETY: as below, with every byte private.
                                    unsafe {
                                        std::ptr::copy(src as *const u8, dst as *mut u8, len)
                                    };
                                }
                                return;
                            }
                            _ => {}
                        }
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
                    if send_placed {
                        self.mem.activate(s.owner);
                    }
                    self.pack_private(&s.dtype, s.buf, s.count, &mut data);
                    if recv_placed {
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
        if guarded {
            self.guards_after_write(r.owner, Some(written));
        }
        {
            let rr = self.mpi.request_mut(rid);
            rr.status = status;
            rr.detached = matches!(env.payload, Payload::Buffered(_) | Payload::Zeros(_));
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
                let hosts = (
                    self.core.host_of(env.source_world),
                    self.core.host_of(r.owner),
                );
                // Under weak progression the handshake waits for a
                // computing rank.
                self.start_transfer_progressing(
                    [env.source_world, r.owner],
                    hosts,
                    env.bytes,
                    hooks,
                );
            }
        }
    }

    /// Check `concurrency`: guards the buffer of the program's
    /// non-blocking send or receive `id` until the program sees it
    /// complete (see `verify::concurrency`).
    pub fn guard_request(&mut self, id: ReqId) {
        if !self.mpi.verify.on.concurrency {
            return;
        }
        let r = self.mpi.request(id);
        let Some(call) = r.call else { return };
        if self.may_touch_placed(r.buf, &r.dtype, r.count) {
            return;
        }
        let (lo, hi) = verify::span(r.buf, r.count, &r.dtype);
        let what = if matches!(r.kind, ReqKind::Recv) {
            "receive buffer"
        } else {
            "send buffer"
        };
        self.guard_buffers(id, call, &[(lo, hi, what)]);
    }

    /// Reports a message whose type signature the receive `rid` does not
    /// match.
    fn type_mismatch(
        &mut self,
        env: &Envelope,
        sent: &Sent,
        rid: ReqId,
        recv_call: &'static str,
        m: &verify::signature::Mismatch,
    ) {
        let r = self.mpi.request(rid);
        let receive = (r.owner, Rc::clone(&r.dtype), r.count, recv_call);
        let send = (
            env.source_world,
            sent.call,
            &*sent.dtype,
            sent.count,
            env.tag,
        );
        self.report_type_mismatch(send, receive, m);
    }

    /// Reports a message received with another type signature: `send`
    /// (world rank, call, datatype, count, tag) and `receive` (world rank,
    /// datatype, count, call).
    fn report_type_mismatch(
        &mut self,
        (source, send_call, sty, scount, tag): (usize, &'static str, &Datatype, usize, i32),
        (owner, rty, rcount, recv_call): (usize, Rc<Datatype>, usize, &'static str),
        m: &verify::signature::Mismatch,
    ) {
        let rname = verify::signature::type_name(&rty);
        let sname = verify::signature::type_name(sty);
        let message = format!(
            "receives as {rcount} x {rname} the message rank {source} sent with {send_call} as \
             {scount} x {sname} (tag {tag}): basic element {} is {} in the message and {} in \
             the receive [MPI_ERR_TYPE]",
            m.element,
            verify::signature::kind_name(m.sent),
            verify::signature::kind_name(m.received),
        );
        self.finding(
            verify::Kind::DatatypeMatching,
            vec![owner, source],
            recv_call,
            message,
        );
    }

    /// SimGrid's VERBOSE note of a copy it skips because the sender's
    /// buffer (read in place, not copied at the send) or the receiver's
    /// lies wholly in folded memory (`SMPI_SHARED_MALLOC`).
    fn note_folded_copy(&self, env: &Envelope, recv_buf: usize, bytes: usize) {
        let folding = &self.mem.folding;
        let folded = |buf: usize| folding.private_parts(buf, bytes).is_empty();
        let sender = match &env.payload {
            Payload::InSendBuffer(sid) => folded(self.mpi.request(*sid).buf),
            Payload::Buffered(_) | Payload::Zeros(_) => false,
        };
        let note = if sender {
            "Sender is shared. Let's ignore it."
        } else if folded(recv_buf) {
            "Receiver is shared. Let's ignore it."
        } else {
            return;
        };
        log::simgrid(
            SimGrid::SmpiKernel,
            Priority::Verbose,
            log::Source::Maestro,
            self.core.now(),
            note,
        );
    }

    /// Charges the receive overhead of a completed receive to its owner
    /// (smpi/or applies to messages from detached senders only).
    pub fn owe_recv_overhead(&mut self, id: ReqId) {
        let r = self.mpi.request(id);
        if matches!(r.kind, ReqKind::Recv) && r.detached {
            let cost = self.mpi.protocol.recv_overhead.cost(r.status.bytes as f64);
            let owner = r.owner;
            self.mpi.ranks[owner].pending_overhead += cost;
            if cost != 0.0 {
                sim::fast(|f| f.note_overhead_owed());
            }
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
                for &c in r.children() {
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
                            || (r.complete
                                && matches!(e.payload, Payload::Buffered(_) | Payload::Zeros(_))))
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

    /// Send `id` of the current rank, which is finishing: if its message
    /// still waits for its receive with the data in the rank's buffer
    /// (rendezvous), the data is copied into the message now, so that a
    /// later receive never reads the memory of a rank that has ended.
    pub(super) fn detach_pending_send(&mut self, id: ReqId) {
        let r = self.mpi.request(id);
        let (dest, ctx, source, buf, count) = (r.peer_world, r.ctx, r.my_rank, r.buf, r.count);
        let ty = Rc::clone(&r.dtype);
        let q = &self.mpi.ranks[dest].unexpected;
        let Some(slot) = q.find_newest(
            ctx,
            source,
            |e| matches!(e.payload, Payload::InSendBuffer(s) if s == id),
        ) else {
            return;
        };
        let payload = self.packed(&ty, buf, count);
        if let Some(env) = self.mpi.ranks[dest].unexpected.get_mut(slot) {
            env.payload = payload;
        }
    }

    /// The program's messages no receive took (at the end of the run):
    /// (sender, receiver, what the report says, where it was sent).
    pub(super) fn unreceived_messages(&mut self) -> Vec<verify::requests::Unreceived> {
        let mut out = Vec::new();
        for dest in 0..self.mpi.ranks.len() {
            for env in self.mpi.ranks[dest].unexpected.drain() {
                let Some(sent) = env.sent else {
                    continue;
                };
                out.push(verify::requests::Unreceived {
                    from: env.source_world,
                    to: dest,
                    call: sent.call,
                    what: format!(
                        "{} x {} (tag {})",
                        sent.count,
                        verify::signature::type_name(&sent.dtype),
                        env.tag
                    ),
                    site: sent.site,
                });
            }
        }
        out
    }

    pub(super) fn release_bsend(&mut self, id: ReqId) {
        let (owner, bytes) = {
            let r = self.mpi.request(id);
            (r.owner, r.bsend_bytes())
        };
        if bytes > 0 {
            if let Some((_, _, used)) = self.mpi.ranks[owner].bsend.as_mut() {
                *used = used.saturating_sub(bytes);
            }
            self.mpi.request_mut(id).links_mut().bsend_bytes = 0;
            // Wake a rank blocked in MPI_Buffer_detach.
            self.core.wake(owner);
        }
    }

    /// Looks for a matching message without receiving it.
    pub(super) fn probe_match(&self, source: i32, tag: i32, ctx: u32) -> Option<matching::Slot> {
        self.mpi.ranks[self.core.current()]
            .unexpected
            .find(ctx, source, tag)
    }

    /// MPI_Iprobe (without its cost): the status of a matching message.
    pub fn iprobe(&mut self, source: i32, tag: i32, comm: i32) -> MpiResult<Option<Status>> {
        let view = self.comm(comm)?;
        check::peer(&view, source, true)?;
        check::tag(tag, true)?;
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
        check::peer(&view, source, true)?;
        check::tag(tag, true)?;
        if source == PROC_NULL {
            return Ok(Some((
                MESSAGE_NO_PROC,
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
    pub fn mrecv(&mut self, buf: usize, count: i64, datatype: i32, msg: i32) -> MpiResult<ReqId> {
        if msg == MESSAGE_NO_PROC {
            let m = Message {
                buf,
                count,
                datatype,
                peer: PROC_NULL,
                tag: ANY_TAG,
                comm: COMM_SELF,
            };
            let id = self.new_request(ReqKind::Recv, &m, false)?;
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
        let count = check::count(count)?;
        let dtype = self.mpi.committed(datatype)?;
        let view = self.comm(COMM_SELF)?;
        let id = self.new_internal_request(
            &view,
            Internal {
                kind: ReqKind::Recv,
                ctx: env.ctx,
                buf,
                count,
                dtype,
                peer: env.source,
                tag: env.tag,
            },
        );
        self.mpi.request_mut(id).active = true;
        self.deliver(env, id);
        Ok(id)
    }

    pub fn set_probing(&mut self) {
        let me = self.core.current();
        self.mpi.ranks[me].probing = true;
    }

    /// `count` elements of `ty` at `buf`, copied for a message: zeros not
    /// written out when the buffer is contiguous and wholly folded (HPL's
    /// panels: their copies filled a 4,096-rank run's samples with
    /// `memset`), else packed as [`Self::pack_private`] packs.
    fn packed(&self, ty: &Datatype, buf: usize, count: usize) -> Payload {
        let bytes = count * ty.size;
        let whole = self.contiguous_cover(ty, buf, count);
        if bytes > 0 && whole == Some(Cover::Folded) {
            return Payload::Zeros(bytes);
        }
        let mut data = Vec::with_capacity(bytes);
        self.pack_covered(ty, buf, count, whole, &mut data);
        Payload::Buffered(data)
    }

    /// How much of a contiguous buffer of `count` elements of `ty` at
    /// `buf` is folded; None for a type with holes.
    fn contiguous_cover(&self, ty: &Datatype, buf: usize, count: usize) -> Option<Cover> {
        ty.is_contiguous()
            .then(|| self.mem.folding.cover(buf, count * ty.size))
    }

    /// Appends `count` elements of `ty` at `buf` to `out`, reading only
    /// the memory that is not folded (SMPI_SHARED_MALLOC): folded bytes are
    /// meaningless, and reading them would fault in every page of their
    /// mappings. They travel as zeros.
    fn pack_private(&self, ty: &Datatype, buf: usize, count: usize, out: &mut Vec<u8>) {
        let whole = self.contiguous_cover(ty, buf, count);
        self.pack_covered(ty, buf, count, whole, out);
    }

    /// [`Self::pack_private`] with the buffer's [`Self::contiguous_cover`]
    /// already known (one folding lookup per message, not two).
    fn pack_covered(
        &self,
        ty: &Datatype,
        buf: usize,
        count: usize,
        whole: Option<Cover>,
        out: &mut Vec<u8>,
    ) {
        if let Some(whole) = whole {
            let bytes = count * ty.size;
            match whole {
                Cover::Private => {
                    if bytes > 0 {
                        // SAFETY: the application passed a buffer of `count`
                        // elements of `ty` (MPI's contract for send buffers):
                        // a contiguous type's are `bytes` bytes from `buf`.
                        out.extend_from_slice(unsafe {
                            std::slice::from_raw_parts(buf as *const u8, bytes)
                        });
                    }
                    return;
                }
                Cover::Folded => {
                    out.resize(out.len() + bytes, 0);
                    return;
                }
                Cover::Mixed => {}
            }
        }
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

    /// Whether `count` elements of `ty` at `buf` may lie in placed memory
    /// (the globals swapped between ranks, the stack they share), which
    /// holds one rank's contents at a time.
    pub fn may_touch_placed(&self, buf: usize, ty: &Datatype, count: usize) -> bool {
        if !self.mem.has_placed() {
            return false;
        }
        let placed = |addr, len| self.mem.placed_contains(addr, len);
        if ty.is_contiguous() {
            return placed(buf, count * ty.size);
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
        if !placed(lo as usize, (hi - lo) as usize) {
            return false;
        }
        if count.saturating_mul(ty.blocks.len()) > 64 {
            return true;
        }
        datatype::runs(ty, buf, count).any(|(start, len)| placed(start, len))
    }
}

// The rank-side calls: they run on the calling rank's coroutine, may wait
// (park), and take the MPI layer anew after every wait.

impl Ctx<'_> {
    /// The plan of a send of `m` in `mode`, decided before its request
    /// exists (its overhead is paid first). An invalid datatype counts as
    /// no bytes: the request's own checks report it.
    fn send_plan(&self, m: &Message, mode: SendMode, nonblocking: bool) -> SendPlan {
        let size = self.mpi.datatype(m.datatype).map_or(0, |t| t.size);
        let bytes = size * usize::try_from(m.count).unwrap_or(0);
        self.mpi.protocol.plan(mode, bytes, nonblocking)
    }

    /// Creates and starts a request for `m` (a send by `plan` when given);
    /// a request that fails to start is removed.
    fn post(&mut self, kind: ReqKind, m: &Message, plan: Option<SendPlan>) -> MpiResult<ReqId> {
        let id = self.new_request(kind, m, false)?;
        if let Err(e) = self.start_planned(id, plan) {
            self.mpi.remove_request(id);
            return Err(e);
        }
        Ok(id)
    }
}

/// Runs `post` (which posts or starts a request) on the MPI layer, then
/// takes the turn SimGrid's actor takes for that simcall (see
/// [`sim::pass_turn`]) in the same access.
fn with_turn<T>(post: impl FnOnce(&mut Ctx) -> MpiResult<T>) -> MpiResult<T> {
    let (posted, turn) = sim::mpi(|w| {
        let posted = post(w)?;
        Ok::<_, MpiError>((posted, w.core.pass_turn()))
    })?;
    sim::park_for_turn(turn);
    Ok(posted)
}

/// Starts a send of `m` in `mode` for the current rank: its protocol is
/// decided once, and its overhead paid before the message is posted.
fn start_send_call(m: &Message, mode: SendMode, nonblocking: bool) -> MpiResult<ReqId> {
    // Without an overhead to pay (the default), one access does both, and
    // takes the turn SimGrid's actor takes for its isend simcall.
    let posted = sim::mpi(|w| {
        let plan = w.send_plan(m, mode, nonblocking);
        if plan.overhead > 0.0 {
            return Ok(Err(plan));
        }
        let id = w.post(ReqKind::Send(mode), m, Some(plan))?;
        Ok(Ok((id, w.core.pass_turn())))
    })?;
    match posted {
        Ok((id, turn)) => {
            sim::park_for_turn(turn);
            Ok(id)
        }
        Err(plan) => {
            sim::sleep(plan.overhead, "send overhead");
            with_turn(|w| w.post(ReqKind::Send(mode), m, Some(plan)))
        }
    }
}

/// A blocking send (MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend); `call`
/// names it in reports.
pub fn send(m: &Message, mode: SendMode, call: &'static str) -> MpiResult<()> {
    let id = start_send_call(m, mode, false)?;
    finish(id, call);
    Ok(())
}

/// A non-blocking send (MPI_Isend and its modes); its request.
pub fn isend(m: &Message, mode: SendMode) -> MpiResult<ReqId> {
    let id = start_send_call(m, mode, true)?;
    sim::mpi(|w| w.guard_request(id));
    Ok(id)
}

/// A persistent send or receive (MPI_Send_init, MPI_Recv_init...): an
/// inactive request that MPI_Start starts.
pub fn persistent(kind: ReqKind, m: &Message) -> MpiResult<ReqId> {
    sim::mpi(|w| w.new_request(kind, m, true))
}

/// A blocking receive: its status (check it with [`Status::outcome`]).
pub fn recv(m: &Message, call: &'static str) -> MpiResult<Status> {
    let id = with_turn(|w| w.post(ReqKind::Recv, m, None))?;
    Ok(finish(id, call))
}

/// A non-blocking receive; its request.
pub fn irecv(m: &Message) -> MpiResult<ReqId> {
    with_turn(|w| {
        let id = w.post(ReqKind::Recv, m, None)?;
        w.guard_request(id);
        Ok(id)
    })
}

/// Waits for `id`, frees it (unless persistent), returns its status.
fn finish(id: ReqId, call: &'static str) -> Status {
    let release = |w: &mut Ctx| {
        w.owe_recv_overhead(id);
        w.check_receive_order(id);
        let r = w.mpi.request(id);
        let st = r.status;
        if r.persistent {
            w.mpi.request_mut(id).active = false;
        } else {
            w.mpi.remove_request(id);
        }
        st
    };
    request::wait_turns(&[id], call);
    if sim::fast(|f| f.observed()) {
        // The tracers see the message taken before the request goes.
        wait_for(&[id], call, |w| is_complete(w, id));
        request::received(id);
        return sim::mpi(release);
    }
    request::wait_for_then(&[id], call, |w| is_complete(w, id), release)
}

/// Waits for a send and a receive posted together; the receive's status.
fn finish_pair(sid: ReqId, rid: ReqId, call: &'static str) -> Status {
    wait_for(&[sid, rid], call, |w| {
        is_complete(w, sid) && is_complete(w, rid)
    });
    request::received(rid);
    sim::mpi(|w| {
        w.check_receive_order(rid);
        let st = w.mpi.request(rid).status;
        w.mpi.remove_request(rid);
        w.mpi.remove_request(sid);
        st
    })
}

/// A send-receive whose send and receive both name the caller (and whose
/// tags match): as in SimGrid, the data is copied and no message is sent,
/// which takes no time. Its status, or None when it is not one.
fn sendrecv_to_self(
    send: &Message,
    recv: &Message,
    call: &'static str,
) -> MpiResult<Option<Status>> {
    let view = sim::mpi(|w| w.comm(send.comm))?;
    let me = view.my_rank as i32;
    let tags_match = recv.tag == ANY_TAG || recv.tag == send.tag;
    if view.remote.is_some() || send.peer != me || recv.peer != me || !tags_match {
        return Ok(None);
    }
    let data = pack_outgoing(send.buf, send.count, send.datatype)?;
    let (sty, rty) = sim::mpi(|w| {
        let sty = w.mpi.datatype(send.datatype).map(Rc::clone)?;
        Ok::<_, MpiError>((sty, w.mpi.datatype(recv.datatype).map(Rc::clone)?))
    })?;
    let (scount, rcount) = (check::count(send.count)?, check::count(recv.count)?);
    let capacity = rcount * rty.size;
    let n = data.len().min(capacity);
    // SAFETY: `recv.buf` holds `recv.count` elements of its datatype (MPI's
    // contract for a receive buffer), and at most that many bytes are
    // unpacked into it.
    unsafe { datatype::unpack(&rty, recv.buf as *mut c_void, &data[..n]) };
    let mut error = if data.len() > capacity {
        class::TRUNCATE
    } else {
        0
    };
    if error == 0 {
        // The check of a message's type signature applies as to any other.
        error = sim::mpi(|w| {
            if !w.mpi.verify.on.types {
                return 0;
            }
            let Err(m) = verify::signature::check(&sty, scount, &rty, rcount) else {
                return 0;
            };
            let me_world = w.core.current();
            let send_side = (me_world, call, &*sty, scount, send.tag);
            let recv_side = (me_world, Rc::clone(&rty), rcount, call);
            w.report_type_mismatch(send_side, recv_side, &m);
            class::TYPE
        });
    }
    Ok(Some(Status {
        source: me,
        tag: send.tag,
        error,
        bytes: n,
        cancelled: false,
    }))
}

/// MPI_Sendrecv, as SimGrid's: both requests made first (so that bad
/// arguments of either send nothing), then the send started and the
/// receive, each a simcall of its own (a turn, see [`sim::pass_turn`]),
/// and both waited for as its waitall waits.
pub fn sendrecv(send: &Message, recv: &Message) -> MpiResult<Status> {
    sendrecv_in(send, recv, "MPI_Sendrecv")
}

/// [`sendrecv`] inside `call`.
fn sendrecv_in(send: &Message, recv: &Message, call: &'static str) -> MpiResult<Status> {
    if let Some(st) = sendrecv_to_self(send, recv, call)? {
        return Ok(st);
    }
    let (sid, rid) = sim::mpi(|w| {
        let rid = w.new_request(ReqKind::Recv, recv, false)?;
        match w.new_request(ReqKind::Send(SendMode::Standard), send, false) {
            Ok(sid) => Ok((sid, rid)),
            Err(e) => {
                w.mpi.remove_request(rid);
                Err(e)
            }
        }
    })?;
    with_turn(|w| {
        w.start_planned(sid, None).inspect_err(|_| {
            w.mpi.remove_request(sid);
            w.mpi.remove_request(rid);
        })
    })?;
    // The send is out if the receive fails to start: it completes on its own.
    with_turn(|w| {
        w.start_planned(rid, None)
            .inspect_err(|_| w.mpi.remove_request(rid))
    })?;
    request::wait_turns(&[sid, rid], call);
    Ok(finish_pair(sid, rid, call))
}

/// Packs `count` elements of `datatype` at `buf` (the data a replacing
/// send-receive sends before it receives into the same buffer).
fn pack_outgoing(buf: usize, count: i64, datatype: i32) -> MpiResult<Vec<u8>> {
    let ty = sim::mpi(|w| w.mpi.datatype(datatype).map(Rc::clone))?;
    let n = check::count(count)?;
    let mut data = Vec::new();
    // SAFETY: `buf` holds `count` elements of `datatype` (MPI's contract
    // for the buffer of a send-receive).
    unsafe { datatype::pack(&ty, buf as *const c_void, n, &mut data) };
    Ok(data)
}

/// MPI_Sendrecv_replace: `m` is the buffer and the receive (source, tag);
/// the send goes to `dest` with `sendtag`, from a packed copy.
pub fn sendrecv_replace(m: &Message, dest: i32, sendtag: i32) -> MpiResult<Status> {
    let packed = pack_outgoing(m.buf, m.count, m.datatype)?;
    let send = Message {
        buf: packed.as_ptr() as usize,
        count: packed.len() as i64,
        datatype: datatype::BYTE,
        peer: dest,
        tag: sendtag,
        comm: m.comm,
    };
    // SimGrid 3.32's is its MPI_Sendrecv into a scratch buffer, copied
    // back: the same requests, turns and waits as MPI_Sendrecv.
    let st = sendrecv_in(&send, m, "MPI_Sendrecv_replace");
    drop(packed);
    st
}

/// MPI_Isendrecv: a receive and a send as one compound request, which
/// owns `owned` (a packed copy of the data to send) until it completes.
pub fn isendrecv(send: &Message, recv: &Message, owned: Option<Vec<u8>>) -> MpiResult<ReqId> {
    sim::mpi(|w| {
        let rid = w.new_request(ReqKind::Recv, recv, false)?;
        let sid = match w.new_request(ReqKind::Send(SendMode::Standard), send, false) {
            Ok(s) => s,
            Err(e) => {
                w.mpi.remove_request(rid);
                return Err(e);
            }
        };
        let id = w.new_compound(vec![rid, sid], owned);
        if let Err(e) = w.start(id) {
            w.mpi.remove_request(id);
            return Err(e);
        }
        Ok(id)
    })
}

/// MPI_Isendrecv_replace: MPI_Isendrecv from a packed copy of the buffer
/// to the buffer itself.
pub fn isendrecv_replace(m: &Message, dest: i32, sendtag: i32) -> MpiResult<ReqId> {
    let packed = pack_outgoing(m.buf, m.count, m.datatype)?;
    let send = Message {
        buf: packed.as_ptr() as usize,
        count: packed.len() as i64,
        datatype: datatype::BYTE,
        peer: dest,
        tag: sendtag,
        comm: m.comm,
    };
    isendrecv(&send, m, Some(packed))
}

/// MPI_Buffer_attach.
pub fn buffer_attach(addr: usize, size: usize) -> MpiResult<()> {
    sim::mpi(|w| {
        let me = w.core.current();
        let st = &mut w.mpi.ranks[me];
        if st.bsend.is_some() {
            return Err(MpiError::new(
                class::BUFFER,
                "a buffer is already attached (detach it first)",
            ));
        }
        st.bsend = Some((addr, size, 0));
        Ok(())
    })
}

/// MPI_Buffer_detach: waits until every buffered message has been
/// delivered; the buffer's address and size (0, 0 when none was attached).
pub fn buffer_detach() -> (usize, usize) {
    loop {
        let busy = sim::mpi(|w| {
            let me = w.core.current();
            let busy = w.mpi.ranks[me].bsend.is_some_and(|(_, _, used)| used > 0);
            if busy {
                w.core.block_current(
                    "MPI_Buffer_detach",
                    Detail::Text("buffered messages not delivered yet"),
                );
            }
            busy
        });
        if !busy {
            break;
        }
        sim::park();
    }
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me]
            .bsend
            .take()
            .map(|(a, s, _)| (a, s))
            .unwrap_or((0, 0))
    })
}

/// MPI_Iprobe: the status of a matching message, if one arrived.
pub fn iprobe(source: i32, tag: i32, comm: i32) -> MpiResult<Option<Status>> {
    sim::mpi(|w| w.comm(comm))?;
    poll::charge_then_look(Poll::Iprobe, "MPI_Iprobe");
    let found = sim::mpi(|w| w.iprobe(source, tag, comm))?;
    poll::looked(Poll::Iprobe, found.is_some());
    Ok(found)
}

/// MPI_Improbe: a matching message taken out as a message handle.
pub fn improbe(source: i32, tag: i32, comm: i32) -> MpiResult<Option<(i32, Status)>> {
    sim::mpi(|w| w.comm(comm))?;
    poll::charge_then_look(Poll::Iprobe, "MPI_Improbe");
    let found = sim::mpi(|w| w.improbe(source, tag, comm))?;
    poll::looked(Poll::Iprobe, found.is_some());
    Ok(found)
}

/// Blocks the current rank until a message matching (source, tag) may
/// have arrived on `comm`, blocked in `call` with `detail`.
fn wait_for_envelope(call: &'static str, detail: String) {
    sim::mpi(|w| {
        w.set_probing();
        w.core.block_current(call, Detail::Owned(detail));
    });
    sim::park();
}

/// MPI_Probe: waits for a matching message; its status. It blocks until
/// the message comes (SimGrid's loops over charged iprobes instead: see
/// `poll`).
pub fn probe(source: i32, tag: i32, comm: i32) -> MpiResult<Status> {
    loop {
        if let Some(st) = sim::mpi(|w| w.iprobe(source, tag, comm))? {
            return Ok(st);
        }
        let tag_s = if tag == ANY_TAG {
            "MPI_ANY_TAG".to_string()
        } else {
            tag.to_string()
        };
        let src_s = if source == ANY_SOURCE {
            "MPI_ANY_SOURCE".to_string()
        } else {
            source.to_string()
        };
        wait_for_envelope(
            "MPI_Probe",
            format!("source {src_s}, tag {tag_s}, {}", comm_name(comm)),
        );
    }
}

/// MPI_Mprobe: waits for a matching message and takes it out; its handle
/// and status.
pub fn mprobe(source: i32, tag: i32, comm: i32) -> MpiResult<(i32, Status)> {
    loop {
        if let Some(found) = sim::mpi(|w| w.improbe(source, tag, comm))? {
            return Ok(found);
        }
        wait_for_envelope(
            "MPI_Mprobe",
            format!("source {source}, tag {tag}, {}", comm_name(comm)),
        );
    }
}

/// MPI_Mrecv: receives message `msg` (from MPI_Mprobe); its status.
pub fn mrecv(buf: usize, count: i64, datatype: i32, msg: i32) -> MpiResult<Status> {
    let id = sim::mpi(|w| w.mrecv(buf, count, datatype, msg))?;
    Ok(finish(id, "MPI_Mrecv"))
}

/// MPI_Imrecv: starts receiving message `msg`; its request.
pub fn imrecv(buf: usize, count: i64, datatype: i32, msg: i32) -> MpiResult<ReqId> {
    sim::mpi(|w| w.mrecv(buf, count, datatype, msg))
}
