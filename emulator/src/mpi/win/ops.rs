//! Issuing one-sided operations and completing their transfers.

use std::ffi::c_void;
use std::rc::Rc;

use crate::mpi::datatype::{self, Basic, Datatype};
use crate::mpi::op::{self, Builtin};
use crate::mpi::{class, Ctx, MpiResult, ReqId, ReqKind, Status};

use super::{err, Buffer, Inflight, Leg, OpKind, RmaHooks, RmaModel, Scope, TargetSpec};
use crate::mpi::verify::rma::{Epoch, Mode, Operation, Range};
use crate::mpi::verify::span;

impl Ctx<'_> {
    /// Issues an RMA operation for the current rank. With `want_request`,
    /// returns the request that completes with its transfer (MPI_Rput...).
    pub fn rma_issue(
        &mut self,
        win: i32,
        kind: OpKind,
        origin: Buffer,
        target: TargetSpec,
        want_request: bool,
    ) -> MpiResult<Option<ReqId>> {
        let (obj, me) = self.window(win)?;
        let comm = obj.comm;
        let ocount = usize::try_from(origin.count).map_err(|_| {
            err(
                class::COUNT,
                format!("invalid origin count {}", origin.count),
            )
        })?;
        let tcount = usize::try_from(target.count).map_err(|_| {
            err(
                class::COUNT,
                format!("invalid target count {}", target.count),
            )
        })?;
        let tty = self.checked_type(target.dtype, "target")?;
        // MPI_NO_OP reads no origin data: its origin arguments may be
        // null (MPI_DATATYPE_NULL included).
        let oty = match kind {
            OpKind::GetAccumulate {
                op: Builtin::NoOp, ..
            } => Rc::clone(&tty),
            _ => self.checked_type(origin.dtype, "origin")?,
        };
        let result = match kind {
            OpKind::GetAccumulate { result, .. } => {
                let n = usize::try_from(result.count).map_err(|_| {
                    err(
                        class::COUNT,
                        format!("invalid result count {}", result.count),
                    )
                })?;
                Some((result.addr, n, self.checked_type(result.dtype, "result")?))
            }
            _ => None,
        };
        let Some(t) = Self::rma_target(obj, target.rank)? else {
            return Ok(want_request.then(|| self.completed_rma_request(comm)));
        };
        let m = &obj.members[me];
        let in_epoch = m.fence_epoch
            || m.lock_all
            || m.locks.iter().any(|&(x, _)| x == t)
            || m.access.as_ref().is_some_and(|g| g.contains(&t));
        if !in_epoch {
            return Err(err(
                class::RMA_SYNC,
                format!(
                    "no access epoch to rank {t} of window {win} is open (call MPI_Win_fence, \
                     MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start first)"
                ),
            ));
        }
        let taddr = self.target_address(obj, t, target.disp, tcount, &tty)?;
        let target_world = obj.group.world(t);
        // A target range in placed memory (swapped globals, a shared
        // stack) is touched with the target's in place, the origin's
        // buffers with the origin's.
        let sides = Sides {
            mem: Some(self.mem)
                .filter(|_| target_world != self.core.current())
                .filter(|_| self.may_touch_placed(taddr, &tty, tcount)),
            origin: self.core.current(),
            target: target_world,
        };
        let obytes = ocount * oty.size;
        let tbytes = tcount * tty.size;
        let mismatch = |what: &str, a: usize, b: usize| {
            err(
                class::TYPE,
                format!(
                    "the {what} data ({a} bytes) and the target data ({b} bytes) differ in size"
                ),
            )
        };
        // Whether a compare-and-swap swapped.
        let mut cas_swapped = None;
        // What travels: (bytes origin -> target, bytes target -> origin).
        let (to_target, to_origin) = match kind {
            OpKind::Put => {
                if obytes != tbytes {
                    return Err(mismatch("origin", obytes, tbytes));
                }
                let mut data = Vec::with_capacity(obytes);
                // SAFETY: the origin buffer holds `ocount` elements of
                // `oty` and the target range was checked to lie in the
                // target's window (MPI's contract for both).
                unsafe { datatype::pack(&oty, origin.addr as *const c_void, ocount, &mut data) };
                sides.target();
                // SAFETY: as above.
                unsafe { datatype::unpack(&tty, taddr as *mut c_void, &data) };
                sides.origin();
                (obytes, 0)
            }
            OpKind::Get => {
                if obytes != tbytes {
                    return Err(mismatch("origin", obytes, tbytes));
                }
                let mut data = Vec::with_capacity(tbytes);
                sides.target();
                // SAFETY: as for a put, in the other direction.
                unsafe { datatype::pack(&tty, taddr as *const c_void, tcount, &mut data) };
                sides.origin();
                // SAFETY: as for a put.
                unsafe { datatype::unpack(&oty, origin.addr as *mut c_void, &data) };
                (0, tbytes)
            }
            OpKind::Accumulate(op) => {
                if obytes != tbytes {
                    return Err(mismatch("origin", obytes, tbytes));
                }
                let from = Side {
                    addr: origin.addr,
                    count: ocount,
                    dtype: &oty,
                };
                let into = Side {
                    addr: taddr,
                    count: tcount,
                    dtype: &tty,
                };
                accumulate(&sides, op, from, into, None)?;
                (obytes, 0)
            }
            OpKind::GetAccumulate { op, .. } => {
                let (raddr, rcount, rty) = result.clone().expect("result of a fetching operation");
                let rbytes = rcount * rty.size;
                if rbytes != tbytes {
                    return Err(mismatch("result", rbytes, tbytes));
                }
                let sent = if op == Builtin::NoOp {
                    0
                } else {
                    if obytes != tbytes {
                        return Err(mismatch("origin", obytes, tbytes));
                    }
                    obytes
                };
                let from = Side {
                    addr: origin.addr,
                    count: ocount,
                    dtype: &oty,
                };
                let into = Side {
                    addr: taddr,
                    count: tcount,
                    dtype: &tty,
                };
                accumulate(&sides, op, from, into, Some((raddr, &rty)))?;
                (sent.max(1), tbytes)
            }
            OpKind::CompareAndSwap { compare, result } => {
                if tty.basic.is_none() || !tty.is_contiguous() || tty.size != oty.size {
                    return Err(err(
                        class::TYPE,
                        format!(
                            "MPI_Compare_and_swap needs one predefined element, not {}",
                            tty.name
                        ),
                    ));
                }
                let n = tty.size;
                // SAFETY: origin, compare and result each hold one element
                // of the datatype, and the target element is in the window.
                unsafe {
                    let new = std::slice::from_raw_parts(origin.addr as *const u8, n).to_vec();
                    let cmp = std::slice::from_raw_parts(compare as *const u8, n).to_vec();
                    sides.target();
                    let old = std::slice::from_raw_parts(taddr as *const u8, n).to_vec();
                    if old == cmp {
                        std::ptr::copy(new.as_ptr(), taddr as *mut u8, n);
                    }
                    cas_swapped = Some(old == cmp);
                    sides.origin();
                    std::ptr::copy_nonoverlapping(old.as_ptr(), result as *mut u8, n);
                }
                (2 * n, n)
            }
        };
        let request = want_request.then(|| self.new_rma_request(comm));
        if self.mpi.verify.on.rma {
            let epoch = self.rma_epoch(win, t)?;
            let ranges = self.rma_ranges(
                &kind,
                &origin,
                ocount,
                &oty,
                result.as_ref(),
                (taddr, tcount, &tty),
            );
            self.note_rma_accesses(&Operation {
                win,
                epoch,
                target: t,
                call: crate::sim::current_call(),
                request,
                ranges: &ranges,
            });
        }
        let origin_host = self.core.host_of(self.core.current());
        let target_host = self.core.host_of(target_world);
        let out = Leg {
            src: origin_host,
            dst: target_host,
            bytes: to_target,
            back: false,
        };
        let back = Leg {
            src: target_host,
            dst: origin_host,
            bytes: to_origin,
            back: true,
        };
        let simgrid = self.mpi.windows.model == RmaModel::SimGrid;
        // SimGrid's puts and gets to the rank itself are memory copies
        // (its accumulates are messages, even to itself).
        let copies = simgrid && target_world == self.core.current();
        // SimGrid's fetching operations get first, then accumulate (or
        // put the new value, if a compare-and-swap swapped); a
        // get-accumulate of MPI_NO_OP only gets.
        let legs: Vec<Leg> = match kind {
            OpKind::Put
            | OpKind::Get
            | OpKind::CompareAndSwap { .. }
            | OpKind::GetAccumulate {
                op: Builtin::NoOp, ..
            } if copies => vec![],
            OpKind::GetAccumulate { .. } if copies => vec![out],
            OpKind::GetAccumulate {
                op: Builtin::NoOp, ..
            } if simgrid => vec![back],
            OpKind::GetAccumulate { .. } if simgrid => vec![back, out],
            OpKind::CompareAndSwap { .. } if simgrid => {
                let n = to_origin;
                let mut v = vec![back];
                if cas_swapped.unwrap_or(false) {
                    v.push(Leg { bytes: n, ..out });
                }
                v
            }
            _ => vec![out, back],
        }
        .into_iter()
        .filter(|l| l.bytes > 0)
        .collect();
        let Some(&first) = legs.first() else {
            if let Some(r) = request {
                self.complete(r, Status::empty());
            }
            return Ok(request);
        };
        let hooks = RmaHooks {
            win,
            origin: me,
            target: t,
            request,
            back: first.back,
            then: legs.get(1).copied(),
            // SimGrid's compare-and-swap waits for its get only.
            complete_early: simgrid && matches!(kind, OpKind::CompareAndSwap { .. }),
        };
        self.count_inflight(win, me, t, first.back, 1);
        let hooks = crate::mpi::TransferHooks {
            rma: Some(Box::new(hooks)),
            ..Default::default()
        };
        // Without asynchronous progress the target takes part only inside
        // an MPI call (the origin is in one).
        self.start_transfer_progressing(
            [self.core.current(), target_world],
            (first.src, first.dst),
            first.bytes,
            hooks,
        );
        Ok(request)
    }

    /// The epoch of the current rank an operation to window rank `t` of
    /// `win` belongs to (it was checked to be in one).
    fn rma_epoch(&self, win: i32, t: usize) -> MpiResult<Epoch> {
        let (obj, me) = self.window(win)?;
        let m = &obj.members[me];
        Ok(if m.locks.iter().any(|&(x, _)| x == t) {
            Epoch::Lock(t)
        } else if m.lock_all {
            Epoch::LockAll
        } else if m.access.is_some() {
            Epoch::Access
        } else {
            Epoch::Fence
        })
    }

    /// The memory an operation of `kind` reads and writes, origin side
    /// first (for check `rma`).
    fn rma_ranges(
        &self,
        kind: &OpKind,
        origin: &Buffer,
        ocount: usize,
        oty: &Datatype,
        result: Option<&(usize, usize, Rc<Datatype>)>,
        (taddr, tcount, tty): (usize, usize, &Datatype),
    ) -> Vec<Range> {
        let range = |addr: usize, count: usize, ty: &Datatype, mode: Mode, local: bool| {
            let (lo, hi) = span(addr, count, ty);
            Range {
                lo,
                hi,
                mode,
                local,
                unstable: self.may_touch_placed(addr, ty, count),
            }
        };
        let (origin_mode, target_mode) = match kind {
            OpKind::Put => (Some(Mode::Read), Mode::Write),
            OpKind::Get => (Some(Mode::Write), Mode::Read),
            OpKind::Accumulate(_) => (Some(Mode::Read), Mode::Accumulate),
            OpKind::GetAccumulate {
                op: Builtin::NoOp, ..
            } => (None, Mode::Read),
            OpKind::GetAccumulate { .. } | OpKind::CompareAndSwap { .. } => {
                (Some(Mode::Read), Mode::Accumulate)
            }
        };
        let mut ranges = Vec::with_capacity(3);
        if let Some(mode) = origin_mode {
            ranges.push(range(origin.addr, ocount, oty, mode, true));
        }
        if let Some((raddr, rcount, rty)) = result {
            ranges.push(range(*raddr, *rcount, rty, Mode::Write, true));
        }
        if let OpKind::CompareAndSwap { result, .. } = kind {
            ranges.push(range(*result, 1, tty, Mode::Write, true));
        }
        ranges.push(range(taddr, tcount, tty, target_mode, false));
        ranges
    }

    fn new_rma_request(&mut self, comm: i32) -> ReqId {
        let view = self.comm(comm).expect("the window's communicator");
        let id = self.new_dataless_request(ReqKind::Rma, &view, view.ctx, 0);
        self.mpi.request_mut(id).active = true;
        id
    }

    fn completed_rma_request(&mut self, comm: i32) -> ReqId {
        let id = self.new_rma_request(comm);
        self.complete(id, Status::empty());
        id
    }

    /// Counts `delta` more transfers from `origin` to `target` in flight,
    /// their data going back to the origin (`back`) or to the target.
    fn count_inflight(&mut self, win: i32, origin: usize, target: usize, back: bool, delta: isize) {
        let Some(obj) = self.mpi.windows.table.get_mut(win) else {
            return;
        };
        let list = &mut obj.members[origin].inflight;
        let applied = match list
            .iter_mut()
            .find(|e| e.target == target && e.back == back)
        {
            Some(e) => {
                let before = e.count as isize;
                e.count = (before + delta).max(0) as usize;
                e.count as isize - before
            }
            None if delta > 0 => {
                list.push(Inflight {
                    target,
                    back,
                    count: delta as usize,
                });
                delta
            }
            None => 0,
        };
        list.retain(|e| e.count > 0);
        let incoming = &mut obj.members[target].incoming[usize::from(back)];
        *incoming = (*incoming as isize + applied).max(0) as usize;
    }

    /// The end of one leg of an RMA transfer (called by the engine).
    pub fn rma_transfer_done(&mut self, hooks: RmaHooks) {
        self.count_inflight(hooks.win, hooks.origin, hooks.target, hooks.back, -1);
        if let Some(leg) = hooks.then {
            let mut next = RmaHooks {
                then: None,
                back: leg.back,
                ..hooks
            };
            self.count_inflight(next.win, next.origin, next.target, next.back, 1);
            if hooks.complete_early {
                if let Some(r) = next.request.take() {
                    if self.mpi.requests.get(r).is_some_and(Option::is_some) {
                        self.complete(r, Status::empty());
                    }
                }
            }
            self.start_transfer(
                leg.src,
                leg.dst,
                leg.bytes,
                crate::mpi::TransferHooks {
                    rma: Some(Box::new(next)),
                    ..Default::default()
                },
            );
            // A flush waiting for the first leg's direction may go on.
            self.notify_members(hooks.win, [hooks.origin, hooks.target]);
            return;
        }
        if let Some(r) = hooks.request {
            if self.mpi.requests.get(r).is_some_and(Option::is_some) {
                self.complete(r, Status::empty());
            }
        }
        self.notify_members(hooks.win, [hooks.origin, hooks.target]);
    }

    /// Wakes every rank waiting for a change on `win`.
    pub(super) fn notify_window(&mut self, win: i32) {
        let Some(obj) = self.mpi.windows.table.get_mut(win) else {
            return;
        };
        for list in &mut obj.waiters {
            for a in std::mem::take(list) {
                self.core.wake(a);
            }
        }
    }

    /// Wakes the actors of `members` waiting on `win` (only they can
    /// wait for what changed: a transfer between them).
    pub(super) fn notify_members(&mut self, win: i32, members: [usize; 2]) {
        let Some(obj) = self.mpi.windows.table.get_mut(win) else {
            return;
        };
        for m in members {
            for a in std::mem::take(&mut obj.waiters[m]) {
                self.core.wake(a);
            }
        }
    }

    /// Whether no transfer `scope` waits for is in flight on `win`
    /// between the current rank and `peer` (or anyone).
    pub(super) fn quiet(&self, win: i32, peer: Option<usize>, scope: Scope) -> bool {
        let Ok((obj, me)) = self.window(win) else {
            return true;
        };
        let matches = |x: usize| peer.is_none_or(|p| p == x);
        // Mine to the peer (only those whose data comes back to me, for
        // ToMe), then the peer's to me (only those whose data comes to
        // me, for ToMe).
        let mine = obj.members[me]
            .inflight
            .iter()
            .filter(|e| matches(e.target))
            .all(|e| scope == Scope::ToMe && !e.back);
        if scope == Scope::Mine || !mine {
            return mine;
        }
        let theirs_done = |m: &super::Member| {
            m.inflight
                .iter()
                .all(|e| e.target != me || (scope == Scope::ToMe && e.back))
        };
        match peer {
            Some(p) => p == me || theirs_done(&obj.members[p]),
            // Every member's: the counts of what comes in (its own
            // transfers to itself are among them, and done: `mine`).
            None => {
                let [data_in, back_out] = obj.members[me].incoming;
                data_in == 0 && (scope == Scope::ToMe || back_out == 0)
            }
        }
    }
}

/// Whose globals must be in place to touch each side of a one-sided
/// operation: `segment` is set when the target range lies in the globals
/// swapped between ranks and the target is another rank.
struct Sides<'a> {
    mem: Option<&'a crate::memory::Memory>,
    origin: usize,
    target: usize,
}

impl Sides<'_> {
    fn target(&self) {
        if let Some(m) = self.mem {
            m.activate(self.target);
        }
    }

    fn origin(&self) {
        if let Some(m) = self.mem {
            m.activate(self.origin);
        }
    }
}

/// `count` elements of `dtype` at `addr`: one side of an operation.
#[derive(Clone, Copy)]
struct Side<'a> {
    addr: usize,
    count: usize,
    dtype: &'a Datatype,
}

/// Accumulates the `origin` elements into the `target` ones with `op`,
/// after copying the old target data to `result` when given. Both sides
/// must be made of the same predefined type.
fn accumulate(
    sides: &Sides,
    op: Builtin,
    origin: Side,
    target: Side,
    result: Option<(usize, &Rc<Datatype>)>,
) -> MpiResult<()> {
    let Side {
        addr: oaddr,
        count: ocount,
        dtype: oty,
    } = origin;
    let Side {
        addr: taddr,
        count: tcount,
        dtype: tty,
    } = target;
    if tcount * tty.size == 0 {
        return Ok(());
    }
    let Some((basic, per_element)) = tty.basic else {
        return Err(err(
            class::TYPE,
            format!(
                "the target datatype {} of an accumulate is not made of one predefined type",
                tty.name
            ),
        ));
    };
    let mut old = Vec::with_capacity(tcount * tty.size);
    sides.target();
    // SAFETY: the target range was checked to lie in the window.
    unsafe { datatype::pack(tty, taddr as *const c_void, tcount, &mut old) };
    sides.origin();
    // MPICH accumulates on (one-byte) C chars as on signed chars.
    let element = tty.size / per_element.max(1);
    let arithmetic = |b: Basic| op::arithmetic(b, element);
    let basic = arithmetic(basic);
    if op != Builtin::NoOp && oty.basic.map(|b| arithmetic(b.0)) != Some(basic) {
        return Err(err(
            class::TYPE,
            format!(
                "the origin datatype {} and the target datatype {} of an accumulate are not \
                 made of the same predefined type",
                oty.name, tty.name
            ),
        ));
    }
    let mut new = old.clone();
    if op != Builtin::NoOp {
        let mut input = Vec::with_capacity(ocount * oty.size);
        // SAFETY: the origin buffer holds `ocount` elements of `oty`.
        unsafe { datatype::pack(oty, oaddr as *const c_void, ocount, &mut input) };
        if !op::apply(op, basic, &input, &mut new) {
            return Err(err(
                class::OP,
                format!("{} is not defined for datatype {}", op.name(), tty.name),
            ));
        }
    }
    if let Some((raddr, rty)) = result {
        // SAFETY: the result buffer holds as many bytes of `rty` as the
        // target range (checked by the caller).
        unsafe { datatype::unpack(rty, raddr as *mut c_void, &old) };
    }
    if op != Builtin::NoOp {
        sides.target();
        // SAFETY: as above for the target range.
        unsafe { datatype::unpack(tty, taddr as *mut c_void, &new) };
        sides.origin();
    }
    Ok(())
}

/// The operation of MPI_Accumulate (a predefined one, not MPI_NO_OP).
pub fn accumulate_op(op: i32) -> MpiResult<OpKind> {
    match rma_op(op)? {
        Builtin::NoOp => Err(err(
            class::OP,
            "MPI_NO_OP is allowed only in MPI_Get_accumulate and MPI_Fetch_and_op",
        )),
        b => Ok(OpKind::Accumulate(b)),
    }
}

/// The operation of a fetching accumulate, whose old target data goes to
/// `result`.
pub fn get_accumulate_op(op: i32, result: Buffer) -> MpiResult<OpKind> {
    rma_op(op).map(|op| OpKind::GetAccumulate { op, result })
}

/// A predefined operation for a one-sided accumulate.
fn rma_op(op: i32) -> MpiResult<Builtin> {
    Builtin::from_handle(op).ok_or_else(|| {
        err(
            class::OP,
            format!("invalid operation {op} for an accumulate (only predefined operations)"),
        )
    })
}
