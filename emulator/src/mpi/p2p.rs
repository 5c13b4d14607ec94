//! The point-to-point protocol: matching sends with receives, detached
//! and rendezvous messages, the transfers that carry them, probes,
//! cancellation and buffered sends.

use std::ffi::c_void;
use std::rc::Rc;

use crate::engine::TransferId;

use super::datatype::Datatype;
use super::{
    class, comm_name, datatype, matching, win, CommView, Ctx, Mpi, MpiError, MpiResult, ReqId,
    ReqKind, Request, SendMode, Status, ANY_SOURCE, ANY_TAG, BSEND_OVERHEAD, COMM_SELF, PROC_NULL,
    TAG_UB,
};

/// Where a message's bytes are until a receive takes them.
#[derive(Debug)]
pub(super) enum Payload {
    /// Copied at send time (detached and buffered sends).
    Buffered(Vec<u8>),
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
}

/// What a transfer completes when it ends.
#[derive(Debug, Clone, Default)]
pub struct TransferHooks {
    pub recv: Option<ReqId>,
    pub send: Option<ReqId>,
    /// Set for the transfers of one-sided operations.
    pub rma: Option<win::RmaHooks>,
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

    /// Checks a peer rank for a send (`allow_any` false) or receive.
    pub(super) fn check_peer(&self, comm: &CommView, peer: i32, allow_any: bool) -> MpiResult<()> {
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

    pub(super) fn check_tag(tag: i32, allow_any: bool) -> MpiResult<()> {
        if (allow_any && tag == ANY_TAG) || (0..=TAG_UB).contains(&tag) {
            Ok(())
        } else {
            Err(MpiError::new(class::TAG, format!("invalid tag {tag}")))
        }
    }

    pub(super) fn check_count(count: i64) -> MpiResult<usize> {
        usize::try_from(count)
            .map_err(|_| MpiError::new(class::COUNT, format!("invalid count {count}")))
    }

    pub(super) fn check_type(&self, datatype: i32) -> MpiResult<()> {
        let ty = self.mpi.datatype(datatype)?;
        if !ty.committed {
            return Err(MpiError::new(
                class::TYPE,
                format!("datatype {} is not committed", ty.name),
            ));
        }
        Ok(())
    }

    pub(super) fn start_send(&mut self, id: ReqId, mode: SendMode) -> MpiResult<()> {
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

    pub(super) fn start_recv(&mut self, id: ReqId) {
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
    pub(super) fn deliver(&mut self, env: Envelope, rid: ReqId) {
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

    pub(super) fn release_bsend(&mut self, id: ReqId) {
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
    pub(super) fn probe_match(&self, source: i32, tag: i32, ctx: u32) -> Option<matching::Slot> {
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
