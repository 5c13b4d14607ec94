//! One-sided communication (RMA): windows, their epochs and locks, and the
//! operations on them.
//!
//! A window is stored once and shared by its members, like a communicator;
//! it owns a private duplicate of the communicator it was made from, whose
//! collective context carries the window's barriers. Every operation is
//! applied to the target's memory when it is issued: one OS thread runs all
//! ranks, so each operation is atomic and operations are ordered by
//! construction. Its cost is a network transfer: origin to target for a put
//! or an accumulate, target to origin for a get, both one after the other
//! for get-accumulate, fetch-and-op and compare-and-swap. The calls that
//! complete operations (fence, unlock, flush, complete, free, waiting on a
//! request-based operation) wait for those transfers, so simulated time
//! is spent where MPI says the data moves. A correct program cannot see
//! the data arrive early: MPI forbids reading a location an operation
//! writes before the synchronization that completes it.
//!
//! Synchronization itself: a fence is a barrier on the window's
//! communicator; locks, posts and completions are granted or delivered
//! without messages, at the simulated time the call is made.

use std::ffi::c_void;
use std::rc::Rc;

use platforms::HostId;

use super::datatype::{self, Basic, Datatype};
use super::op::{self, Builtin};
use super::Ctx;
use super::{class, CommView, Group, MpiError, MpiResult, ReqId, ReqKind, Status, PROC_NULL};
use crate::engine::Detail;
use crate::sim;

pub const WIN_NULL: i32 = 0;
pub const LOCK_EXCLUSIVE: i32 = 234;
pub const LOCK_SHARED: i32 = 235;
pub const MODE_NOCHECK: i32 = 1024;
pub const MODE_NOSTORE: i32 = 2048;
pub const MODE_NOPUT: i32 = 4096;
pub const MODE_NOPRECEDE: i32 = 8192;
pub const MODE_NOSUCCEED: i32 = 16384;
/// Every assertion bit MPI defines.
const MODE_ALL: i32 = MODE_NOCHECK | MODE_NOSTORE | MODE_NOPUT | MODE_NOPRECEDE | MODE_NOSUCCEED;
/// MPI_WIN_UNIFIED: one copy of window memory, seen by loads and RMA alike.
pub const WIN_UNIFIED: i32 = 2;

/// The info keys MPI defines for windows, with MPICH's defaults.
pub const WIN_HINTS: &[(&str, &str)] = &[
    ("no_locks", "false"),
    ("accumulate_ordering", "rar,raw,war,waw"),
    ("accumulate_ops", "same_op_no_op"),
    ("same_size", "false"),
    ("same_disp_unit", "false"),
    ("alloc_shared_noncontig", "false"),
];

/// Predefined window attribute keys (after the communicator ones).
pub const WIN_BASE: i32 = 8;
pub const WIN_SIZE: i32 = 9;
pub const WIN_DISP_UNIT: i32 = 10;
pub const WIN_CREATE_FLAVOR: i32 = 11;
pub const WIN_MODEL: i32 = 12;

/// How a window's memory came to be (MPI_WIN_FLAVOR_*).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Create = 1,
    Allocate = 2,
    Dynamic = 3,
    Shared = 4,
}

/// One member's part of a window and its synchronization state.
#[derive(Debug)]
pub struct Member {
    pub base: usize,
    pub size: usize,
    pub disp_unit: usize,
    /// Memory the window allocated for this member (MPI_Win_allocate).
    alloc: Option<Box<[u128]>>,
    /// Regions attached to a dynamic window: (address, bytes).
    regions: Vec<(usize, usize)>,
    /// After a fence that did not say MPI_MODE_NOSUCCEED.
    fence_epoch: bool,
    lock_all: bool,
    /// Locks held as origin: (target, lock type).
    locks: Vec<(usize, i32)>,
    /// Targets of the access epoch opened by MPI_Win_start.
    access: Option<Vec<usize>>,
    /// Origins of the exposure epoch opened by MPI_Win_post.
    exposure: Option<Vec<usize>>,
    /// MPI_Win_complete calls received from the exposure's origins.
    completes: usize,
    /// Targets whose MPI_Win_post named this member, not yet consumed by
    /// an MPI_Win_start.
    posts: Vec<usize>,
    /// Transfers in flight from this origin: (target, count).
    inflight: Vec<(usize, usize)>,
    /// Values the predefined attributes point to (stable addresses):
    /// size as MPI_Aint, then disp_unit, flavor and model as ints.
    attr_size: Box<isize>,
    attr_ints: Box<[i32; 3]>,
    pub name: String,
    pub errhandler: i32,
    /// Info hints set by this member (they are local, like names).
    pub info: Vec<(String, String)>,
    pub freed: bool,
}

/// The lock state of one target.
#[derive(Debug, Default, Clone)]
struct TargetLock {
    exclusive: Option<usize>,
    shared: usize,
}

/// A window, shared by its members.
#[derive(Debug)]
pub struct WinObj {
    /// The window's private communicator (a duplicate of the creator's).
    pub comm: i32,
    pub group: Group,
    pub flavor: Flavor,
    pub members: Vec<Member>,
    locks: Vec<TargetLock>,
    lock_all_holders: usize,
    exclusive_holders: usize,
    /// Ranks (world) blocked until something on this window changes.
    waiters: Vec<usize>,
    /// The single block of a shared window, once every member's size is
    /// known.
    shared_block: Option<Box<[u128]>>,
    /// Members that have not freed it yet.
    refs: usize,
    /// Members that have not joined the creation yet.
    joining: usize,
}

/// Windows by handle (0 is MPI_WIN_NULL).
#[derive(Debug, Default)]
pub struct Windows {
    table: Vec<Option<WinObj>>,
    /// Windows being created, by their private communicator.
    creating: Vec<(i32, i32)>,
}

/// A (buffer, count, datatype) triple of the calling rank.
#[derive(Debug, Clone, Copy)]
pub struct Buffer {
    pub addr: usize,
    pub count: i64,
    pub dtype: i32,
}

/// Where an operation lands in the target's window.
#[derive(Debug, Clone, Copy)]
pub struct TargetSpec {
    pub rank: i32,
    pub disp: isize,
    pub count: i64,
    pub dtype: i32,
}

/// What an operation does.
#[derive(Debug, Clone, Copy)]
pub enum OpKind {
    Put,
    Get,
    Accumulate(Builtin),
    /// MPI_Get_accumulate and MPI_Fetch_and_op: the old target data goes
    /// to `result`.
    GetAccumulate {
        op: Builtin,
        result: Buffer,
    },
    /// MPI_Compare_and_swap: `compare` is one element.
    CompareAndSwap {
        compare: usize,
        result: usize,
    },
}

/// What the end of an RMA transfer completes.
#[derive(Debug, Clone)]
pub struct RmaHooks {
    pub win: i32,
    pub origin: usize,
    pub target: usize,
    /// The request of MPI_Rput and friends.
    pub request: Option<ReqId>,
    /// The transfer that follows this one (the answer of a fetching
    /// operation): source host, destination host, bytes.
    pub then: Option<(HostId, HostId, usize)>,
}

fn err(class: i32, message: impl Into<String>) -> MpiError {
    MpiError::new(class, message)
}

/// Aligned, zeroed memory of at least `bytes` bytes.
fn zeroed_block(bytes: usize) -> Box<[u128]> {
    vec![0u128; bytes.div_ceil(16).max(1)].into_boxed_slice()
}

impl Windows {
    fn get(&self, win: i32) -> Option<&WinObj> {
        usize::try_from(win)
            .ok()
            .and_then(|i| self.table.get(i))
            .and_then(Option::as_ref)
    }

    fn get_mut(&mut self, win: i32) -> Option<&mut WinObj> {
        usize::try_from(win)
            .ok()
            .and_then(|i| self.table.get_mut(i))
            .and_then(Option::as_mut)
    }

    fn insert(&mut self, obj: WinObj) -> i32 {
        if self.table.is_empty() {
            self.table.push(None); // MPI_WIN_NULL
        }
        match self.table.iter().skip(1).position(Option::is_none) {
            Some(i) => {
                self.table[i + 1] = Some(obj);
                (i + 1) as i32
            }
            None => {
                self.table.push(Some(obj));
                (self.table.len() - 1) as i32
            }
        }
    }
}

impl Ctx<'_> {
    /// The window `win` and the current rank's rank in it.
    pub fn window(&self, win: i32) -> MpiResult<(&WinObj, usize)> {
        let obj = self
            .mpi
            .windows
            .get(win)
            .ok_or_else(|| err(class::WIN, format!("invalid window handle {win}")))?;
        let me = obj
            .group
            .rank_of(self.core.current())
            .filter(|&r| !obj.members[r].freed)
            .ok_or_else(|| {
                err(
                    class::WIN,
                    format!(
                        "rank {} is not a member of window {win}",
                        self.core.current()
                    ),
                )
            })?;
        Ok((obj, me))
    }

    fn window_mut(&mut self, win: i32) -> MpiResult<(&mut WinObj, usize)> {
        let (_, me) = self.window(win)?;
        let obj = self.mpi.windows.get_mut(win).expect("checked above");
        Ok((obj, me))
    }

    /// The current rank's member record of `win`.
    pub fn win_member(&self, win: i32) -> MpiResult<&Member> {
        let (obj, me) = self.window(win)?;
        Ok(&obj.members[me])
    }

    pub fn win_member_mut(&mut self, win: i32) -> MpiResult<&mut Member> {
        let (obj, me) = self.window_mut(win)?;
        Ok(&mut obj.members[me])
    }

    /// Joins the window being created on private communicator `comm` (a
    /// fresh duplicate, the same handle for every member), registering the
    /// current rank's memory. Returns the window handle.
    fn join_window(
        &mut self,
        comm: i32,
        flavor: Flavor,
        base: usize,
        size: usize,
        disp_unit: usize,
        info: Vec<(String, String)>,
    ) -> MpiResult<i32> {
        let view = self.comm(comm)?;
        let found = self
            .mpi
            .windows
            .creating
            .iter()
            .position(|&(c, _)| c == comm);
        let handle = match found {
            Some(i) => self.mpi.windows.creating[i].1,
            None => {
                let n = view.size();
                let group = match &view.group {
                    Group::Single(w) => Group::List(Rc::from(vec![*w as u32])),
                    g => g.clone(),
                };
                let members = (0..n)
                    .map(|_| Member {
                        base: 0,
                        size: 0,
                        disp_unit: 1,
                        alloc: None,
                        regions: Vec::new(),
                        fence_epoch: false,
                        lock_all: false,
                        locks: Vec::new(),
                        access: None,
                        exposure: None,
                        completes: 0,
                        posts: Vec::new(),
                        inflight: Vec::new(),
                        attr_size: Box::new(0),
                        attr_ints: Box::new([1, flavor as i32, WIN_UNIFIED]),
                        name: String::new(),
                        errhandler: super::ERRORS_ARE_FATAL,
                        info: Vec::new(),
                        freed: false,
                    })
                    .collect();
                let h = self.mpi.windows.insert(WinObj {
                    comm,
                    group,
                    flavor,
                    members,
                    locks: vec![TargetLock::default(); n],
                    lock_all_holders: 0,
                    exclusive_holders: 0,
                    waiters: Vec::new(),
                    shared_block: None,
                    refs: n,
                    joining: n,
                });
                self.mpi.windows.creating.push((comm, h));
                h
            }
        };
        let obj = self.mpi.windows.get_mut(handle).expect("window just found");
        obj.joining -= 1;
        if obj.joining == 0 {
            self.mpi.windows.creating.retain(|&(c, _)| c != comm);
        }
        let obj = self.mpi.windows.get_mut(handle).expect("window just found");
        let m = &mut obj.members[view.my_rank];
        m.base = base;
        m.size = size;
        m.disp_unit = disp_unit;
        // Keys MPI does not define for windows are ignored (as MPICH).
        m.info = info
            .into_iter()
            .filter(|(k, _)| WIN_HINTS.iter().any(|h| h.0 == k))
            .collect();
        *m.attr_size = size as isize;
        m.attr_ints[0] = disp_unit as i32;
        if flavor == Flavor::Allocate {
            let block = zeroed_block(size);
            m.base = block.as_ptr() as usize;
            m.alloc = Some(block);
        }
        Ok(handle)
    }

    /// Lays out a shared window's single block once every member has
    /// joined: members' parts follow each other in rank order.
    fn place_shared(&mut self, win: i32) {
        let Some(obj) = self.mpi.windows.get_mut(win) else {
            return;
        };
        if obj.shared_block.is_some() {
            return;
        }
        let total: usize = obj.members.iter().map(|m| m.size).sum();
        let block = zeroed_block(total);
        let mut at = block.as_ptr() as usize;
        for m in &mut obj.members {
            m.base = at;
            at += m.size;
        }
        obj.shared_block = Some(block);
    }

    /// The memory of `win` at `target` for `count` elements of `ty` at
    /// displacement `disp`: its address, after checking that it lies in the
    /// target's window (or an attached region of a dynamic window).
    fn target_address(
        &self,
        obj: &WinObj,
        target: usize,
        disp: isize,
        count: usize,
        ty: &Datatype,
    ) -> MpiResult<usize> {
        let m = &obj.members[target];
        let addr = if obj.flavor == Flavor::Dynamic {
            disp as usize
        } else {
            if disp < 0 {
                return Err(err(
                    class::RMA_RANGE,
                    format!("negative target displacement {disp}"),
                ));
            }
            m.base
                .wrapping_add((disp as usize).wrapping_mul(m.disp_unit))
        };
        if count == 0 || ty.size == 0 {
            return Ok(addr);
        }
        let lo = addr as i128 + ty.true_lb as i128;
        let hi = addr as i128
            + (count as i128 - 1) * ty.extent as i128
            + ty.true_lb as i128
            + ty.true_extent as i128;
        let inside = |start: usize, len: usize| lo >= start as i128 && hi <= (start + len) as i128;
        let ok = if obj.flavor == Flavor::Dynamic {
            // Adjacent attached regions cover a range together (MPICH
            // accepts an access across them).
            let mut regions = m.regions.clone();
            regions.sort_unstable();
            let mut covered = lo;
            for (s, l) in regions {
                if (s as i128) <= covered && (s + l) as i128 > covered {
                    covered = (s + l) as i128;
                }
            }
            covered >= hi
        } else {
            inside(m.base, m.size)
        };
        if !ok {
            return Err(err(
                class::RMA_RANGE,
                if obj.flavor == Flavor::Dynamic {
                    format!(
                        "the target range [{lo:#x}, {hi:#x}) is not in a region attached to the \
                         dynamic window at rank {target}"
                    )
                } else {
                    format!(
                        "the target range (bytes {} to {} from the base) is outside rank \
                         {target}'s window of {} bytes",
                        lo - m.base as i128,
                        hi - m.base as i128,
                        m.size
                    )
                },
            ));
        }
        Ok(addr)
    }

    /// Checks a target rank: Ok(None) for MPI_PROC_NULL.
    fn rma_target(obj: &WinObj, rank: i32) -> MpiResult<Option<usize>> {
        if rank == PROC_NULL {
            return Ok(None);
        }
        let n = obj.group.size();
        if rank < 0 || rank as usize >= n {
            return Err(err(
                class::RANK,
                format!("invalid target rank {rank}: the window has {n} members"),
            ));
        }
        Ok(Some(rank as usize))
    }

    fn checked_type(&self, dtype: i32, what: &str) -> MpiResult<Rc<Datatype>> {
        let ty = Rc::clone(self.mpi.datatype(dtype)?);
        if !ty.committed {
            return Err(err(
                class::TYPE,
                format!("the {what} datatype {} is not committed", ty.name),
            ));
        }
        Ok(ty)
    }

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
        // Under swap privatization a target range in the globals is touched
        // with the target's globals in place, the origin's buffers with the
        // origin's.
        let sides = Sides {
            segment: self
                .mem
                .segment
                .as_deref()
                .filter(|_| target_world != self.core.current())
                .filter(|_| self.may_touch_globals(taddr, &tty, tcount)),
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
                let (raddr, rcount, rty) = result.expect("result of a fetching operation");
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
                    sides.origin();
                    std::ptr::copy_nonoverlapping(old.as_ptr(), result as *mut u8, n);
                }
                (2 * n, n)
            }
        };
        let request = want_request.then(|| self.new_rma_request(comm));
        let origin_host = self.core.host_of(self.core.current());
        let target_host = self.core.host_of(target_world);
        let legs: Vec<(HostId, HostId, usize)> = [
            (origin_host, target_host, to_target),
            (target_host, origin_host, to_origin),
        ]
        .into_iter()
        .filter(|l| l.2 > 0)
        .collect();
        let Some(&(src, dst, bytes)) = legs.first() else {
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
            then: legs.get(1).copied(),
        };
        self.count_inflight(win, me, t, 1);
        self.start_transfer(
            src,
            dst,
            bytes,
            super::TransferHooks {
                rma: Some(hooks),
                ..Default::default()
            },
        );
        Ok(request)
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

    fn count_inflight(&mut self, win: i32, origin: usize, target: usize, delta: isize) {
        let Some(obj) = self.mpi.windows.get_mut(win) else {
            return;
        };
        let list = &mut obj.members[origin].inflight;
        match list.iter_mut().find(|e| e.0 == target) {
            Some(e) => e.1 = (e.1 as isize + delta).max(0) as usize,
            None if delta > 0 => list.push((target, delta as usize)),
            None => {}
        }
        list.retain(|e| e.1 > 0);
    }

    /// The end of one leg of an RMA transfer (called by the engine).
    pub fn rma_transfer_done(&mut self, hooks: RmaHooks) {
        if let Some((src, dst, bytes)) = hooks.then {
            let next = RmaHooks {
                then: None,
                ..hooks
            };
            self.start_transfer(
                src,
                dst,
                bytes,
                super::TransferHooks {
                    rma: Some(next),
                    ..Default::default()
                },
            );
            return;
        }
        self.count_inflight(hooks.win, hooks.origin, hooks.target, -1);
        if let Some(r) = hooks.request {
            if self.mpi.requests.get(r).is_some_and(Option::is_some) {
                self.complete(r, Status::empty());
            }
        }
        self.notify_window(hooks.win);
    }

    /// Wakes every rank waiting for a change on `win`.
    fn notify_window(&mut self, win: i32) {
        let Some(obj) = self.mpi.windows.get_mut(win) else {
            return;
        };
        for r in std::mem::take(&mut obj.waiters) {
            self.core.wake(r);
        }
    }

    /// Whether the current rank has no transfer in flight on `win` (to
    /// `target`, or to anyone).
    fn quiet(&self, win: i32, target: Option<usize>) -> bool {
        match self.window(win) {
            Ok((obj, me)) => obj.members[me]
                .inflight
                .iter()
                .all(|&(t, _)| target.is_some_and(|x| x != t)),
            Err(_) => true,
        }
    }
}

/// Blocks the current rank until `ready` (which may also act, such as
/// granting a lock) returns true; anything that changes `win` re-checks.
fn wait_on_window(
    win: i32,
    call: &'static str,
    detail: &str,
    mut ready: impl FnMut(&mut Ctx) -> bool,
) {
    loop {
        let done = sim::mpi(|w| {
            if ready(w) {
                return true;
            }
            let me = w.core.current();
            if let Some(obj) = w.mpi.windows.get_mut(win) {
                obj.waiters.push(me);
            }
            w.core
                .block_current(call, Detail::Owned(detail.to_string()));
            false
        });
        if done {
            return;
        }
        sim::park();
    }
}

/// Waits until the current rank's transfers on `win` (to `target`, or
/// all) have arrived.
fn wait_quiet(win: i32, target: Option<usize>, call: &'static str) {
    let detail = match target {
        Some(t) => format!("RMA operations to rank {t} of window {win}"),
        None => format!("RMA operations on window {win}"),
    };
    wait_on_window(win, call, &detail, |w| w.quiet(win, target));
}

/// A barrier on the window's communicator.
fn window_barrier(win: i32, call: &'static str) -> MpiResult<()> {
    let view = sim::mpi(|w| -> MpiResult<CommView> {
        let comm = w.window(win)?.0.comm;
        w.comm(comm)
    })?;
    let s = collectives::barrier(collectives::Position {
        rank: view.my_rank,
        size: view.size(),
    })
    .map_err(super::coll::coll_error)?;
    super::coll::execute(
        &view,
        s,
        super::coll::Buffers::none(),
        super::coll::Reduction::None,
        call,
    )
}

fn check_assert(assert: i32) -> MpiResult<()> {
    if assert & !MODE_ALL != 0 {
        return Err(err(
            class::ARG,
            format!("invalid assertion {assert:#x} (only MPI_MODE_* bits are allowed)"),
        ));
    }
    Ok(())
}

/// What a window creation call asks for.
#[derive(Debug, Clone, Copy)]
pub struct WindowSpec {
    pub flavor: Flavor,
    /// The memory exposed (MPI_Win_create; ignored by the flavors that
    /// allocate).
    pub base: usize,
    pub size: isize,
    pub disp_unit: i32,
    pub info: i32,
}

/// Creates a window on `comm` (collective); its handle. `call` names the
/// MPI call.
pub fn create(comm: i32, spec: WindowSpec, call: &'static str) -> MpiResult<i32> {
    let WindowSpec {
        flavor,
        base,
        size,
        disp_unit,
        info,
    } = spec;
    let size = usize::try_from(size)
        .map_err(|_| err(class::SIZE, format!("invalid window size {size}")))?;
    let disp_unit = usize::try_from(disp_unit)
        .ok()
        .filter(|&d| d > 0)
        .ok_or_else(|| err(class::ARG, format!("invalid displacement unit {disp_unit}")))?;
    let hints = sim::mpi(|w| -> MpiResult<_> {
        let v = w.comm(comm)?;
        if v.remote.is_some() {
            return Err(err(
                class::COMM,
                format!("{call} needs an intracommunicator"),
            ));
        }
        w.mpi.hints(info)
    })?;
    let private = sim::mpi(|w| w.comm_dup(comm))?;
    let win = sim::mpi(|w| w.join_window(private, flavor, base, size, disp_unit, hints))?;
    window_barrier(win, call)?;
    if flavor == Flavor::Shared {
        sim::mpi(|w| w.place_shared(win));
    }
    Ok(win)
}

/// MPI_Win_free for the current rank (collective).
pub fn free(win: i32) -> MpiResult<()> {
    sim::mpi(|w| -> MpiResult<()> {
        if w.win_member(win)?.in_lock_or_pscw_epoch() {
            return Err(err(
                class::RMA_SYNC,
                format!("window {win} is freed inside an epoch (unlock, complete or wait first)"),
            ));
        }
        Ok(())
    })?;
    wait_quiet(win, None, "MPI_Win_free");
    window_barrier(win, "MPI_Win_free")?;
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        let comm = obj.comm;
        obj.members[me].freed = true;
        obj.members[me].alloc = None;
        obj.refs -= 1;
        if obj.refs == 0 {
            w.mpi.windows.table[win as usize] = None;
        }
        w.comm_free(comm)
    })
}

/// MPI_Win_fence.
pub fn fence(win: i32, assert: i32) -> MpiResult<()> {
    check_assert(assert)?;
    sim::mpi(|w| -> MpiResult<()> {
        if w.win_member(win)?.in_lock_or_pscw_epoch() {
            return Err(err(
                class::RMA_SYNC,
                format!("MPI_Win_fence on window {win} inside a lock or post/start epoch"),
            ));
        }
        Ok(())
    })?;
    wait_quiet(win, None, "MPI_Win_fence");
    window_barrier(win, "MPI_Win_fence")?;
    sim::mpi(|w| -> MpiResult<()> {
        w.win_member_mut(win)?.fence_epoch = assert & MODE_NOSUCCEED == 0;
        Ok(())
    })
}

/// MPI_Win_lock: blocks until the lock is granted.
pub fn lock(win: i32, lock_type: i32, rank: i32, assert: i32) -> MpiResult<()> {
    check_assert(assert)?;
    if lock_type != LOCK_EXCLUSIVE && lock_type != LOCK_SHARED {
        return Err(err(
            class::LOCKTYPE,
            format!("invalid lock type {lock_type} (MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE)"),
        ));
    }
    let target = sim::mpi(|w| -> MpiResult<Option<usize>> {
        let (obj, me) = w.window(win)?;
        let t = Ctx::rma_target(obj, rank)?;
        let m = &obj.members[me];
        if let Some(t) = t {
            if m.lock_all || m.locks.iter().any(|&(x, _)| x == t) {
                return Err(err(
                    class::RMA_SYNC,
                    format!("rank {t} of window {win} is locked already by this rank"),
                ));
            }
        }
        Ok(t)
    })?;
    let Some(t) = target else { return Ok(()) };
    let kind = if lock_type == LOCK_EXCLUSIVE {
        "exclusive"
    } else {
        "shared"
    };
    wait_on_window(
        win,
        "MPI_Win_lock",
        &format!("{kind} lock on rank {t} of window {win}"),
        |w| {
            let Ok((obj, me)) = w.window_mut(win) else {
                return true;
            };
            let l = &mut obj.locks[t];
            let granted = if lock_type == LOCK_EXCLUSIVE {
                l.exclusive.is_none() && l.shared == 0 && obj.lock_all_holders == 0
            } else {
                l.exclusive.is_none()
            };
            if granted {
                if lock_type == LOCK_EXCLUSIVE {
                    l.exclusive = Some(me);
                    obj.exclusive_holders += 1;
                } else {
                    l.shared += 1;
                }
                obj.members[me].locks.push((t, lock_type));
            }
            granted
        },
    );
    Ok(())
}

/// MPI_Win_unlock: completes the operations to `rank`, then releases.
pub fn unlock(win: i32, rank: i32) -> MpiResult<()> {
    let target = sim::mpi(|w| -> MpiResult<Option<usize>> {
        let (obj, me) = w.window(win)?;
        let t = Ctx::rma_target(obj, rank)?;
        if let Some(t) = t {
            if !obj.members[me].locks.iter().any(|&(x, _)| x == t) {
                return Err(err(
                    class::RMA_SYNC,
                    format!("MPI_Win_unlock: rank {t} of window {win} is not locked by this rank"),
                ));
            }
        }
        Ok(t)
    })?;
    let Some(t) = target else { return Ok(()) };
    wait_quiet(win, Some(t), "MPI_Win_unlock");
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        let m = &mut obj.members[me];
        let pos = m
            .locks
            .iter()
            .position(|&(x, _)| x == t)
            .expect("held lock");
        let (_, kind) = m.locks.remove(pos);
        let l = &mut obj.locks[t];
        if kind == LOCK_EXCLUSIVE {
            l.exclusive = None;
            obj.exclusive_holders -= 1;
        } else {
            l.shared -= 1;
        }
        w.notify_window(win);
        Ok(())
    })
}

/// MPI_Win_lock_all: a shared lock on every member.
pub fn lock_all(win: i32, assert: i32) -> MpiResult<()> {
    check_assert(assert)?;
    sim::mpi(|w| -> MpiResult<()> {
        let m = w.win_member(win)?;
        if m.lock_all || !m.locks.is_empty() {
            return Err(err(
                class::RMA_SYNC,
                format!("MPI_Win_lock_all: this rank already holds locks on window {win}"),
            ));
        }
        Ok(())
    })?;
    wait_on_window(
        win,
        "MPI_Win_lock_all",
        &format!("shared lock on every rank of window {win}"),
        |w| {
            let Ok((obj, me)) = w.window_mut(win) else {
                return true;
            };
            if obj.exclusive_holders > 0 {
                return false;
            }
            obj.lock_all_holders += 1;
            obj.members[me].lock_all = true;
            true
        },
    );
    Ok(())
}

/// MPI_Win_unlock_all.
pub fn unlock_all(win: i32) -> MpiResult<()> {
    sim::mpi(|w| -> MpiResult<()> {
        if !w.win_member(win)?.lock_all {
            return Err(err(
                class::RMA_SYNC,
                format!("MPI_Win_unlock_all without MPI_Win_lock_all on window {win}"),
            ));
        }
        Ok(())
    })?;
    wait_quiet(win, None, "MPI_Win_unlock_all");
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        obj.members[me].lock_all = false;
        obj.lock_all_holders -= 1;
        w.notify_window(win);
        Ok(())
    })
}

/// MPI_Win_flush(_local)(_all): completes operations inside a passive
/// target epoch. Local completion is waited for as remote completion.
pub fn flush(win: i32, rank: Option<i32>, call: &'static str) -> MpiResult<()> {
    let target = sim::mpi(|w| -> MpiResult<Option<usize>> {
        let (obj, me) = w.window(win)?;
        let m = &obj.members[me];
        let t = match rank {
            Some(r) => match Ctx::rma_target(obj, r)? {
                Some(t) => Some(t),
                None => return Ok(None),
            },
            None => None,
        };
        let locked = m.lock_all
            || match t {
                Some(t) => m.locks.iter().any(|&(x, _)| x == t),
                None => !m.locks.is_empty(),
            };
        if !locked {
            return Err(err(
                class::RMA_SYNC,
                format!("{call} outside a passive target epoch (MPI_Win_lock) on window {win}"),
            ));
        }
        Ok(t)
    });
    let target = target?;
    if rank.is_some() && target.is_none() {
        return Ok(()); // MPI_PROC_NULL
    }
    wait_quiet(win, target, call);
    Ok(())
}

/// MPI_Win_sync: the window is unified (one copy of its memory), so only
/// the ordering of the program's own loads and stores is left to enforce.
pub fn sync(win: i32) -> MpiResult<()> {
    sim::mpi(|w| w.win_member(win).map(|_| ()))?;
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
    Ok(())
}

/// The window ranks of the group `group` (checked members of `win`).
fn group_ranks(w: &Ctx, win: i32, group: i32, call: &str) -> MpiResult<Vec<usize>> {
    let (obj, _) = w.window(win)?;
    let g = w.mpi.comms.group(group)?;
    (0..g.size())
        .map(|i| {
            obj.group.rank_of(g.world(i)).ok_or_else(|| {
                err(
                    class::GROUP,
                    format!("{call}: a member of the group is not in window {win}"),
                )
            })
        })
        .collect()
}

/// MPI_Win_post: exposes the window to `group`.
pub fn post(win: i32, group: i32, assert: i32) -> MpiResult<()> {
    check_assert(assert)?;
    sim::mpi(|w| -> MpiResult<()> {
        let origins = group_ranks(w, win, group, "MPI_Win_post")?;
        let (obj, me) = w.window_mut(win)?;
        if obj.members[me].exposure.is_some() {
            return Err(err(
                class::RMA_SYNC,
                format!("MPI_Win_post: window {win} is exposed already (call MPI_Win_wait)"),
            ));
        }
        for &o in &origins {
            obj.members[o].posts.push(me);
        }
        obj.members[me].exposure = Some(origins);
        w.notify_window(win);
        Ok(())
    })
}

/// MPI_Win_start: waits until every target in `group` has posted.
pub fn start(win: i32, group: i32, assert: i32) -> MpiResult<()> {
    check_assert(assert)?;
    let targets = sim::mpi(|w| -> MpiResult<Vec<usize>> {
        let targets = group_ranks(w, win, group, "MPI_Win_start")?;
        if w.win_member(win)?.access.is_some() {
            return Err(err(
                class::RMA_SYNC,
                format!("MPI_Win_start: an access epoch on window {win} is open already"),
            ));
        }
        Ok(targets)
    })?;
    wait_on_window(
        win,
        "MPI_Win_start",
        &format!("MPI_Win_post of ranks {targets:?} of window {win}"),
        |w| {
            let Ok(m) = w.win_member_mut(win) else {
                return true;
            };
            let mut pool = m.posts.clone();
            for t in &targets {
                match pool.iter().position(|p| p == t) {
                    Some(i) => {
                        pool.swap_remove(i);
                    }
                    None => return false,
                }
            }
            m.posts = pool;
            m.access = Some(targets.clone());
            true
        },
    );
    Ok(())
}

/// MPI_Win_complete: completes the access epoch's operations and tells
/// each target.
pub fn complete(win: i32) -> MpiResult<()> {
    let targets = sim::mpi(|w| -> MpiResult<Vec<usize>> {
        w.win_member(win)?.access.clone().ok_or_else(|| {
            err(
                class::RMA_SYNC,
                format!("MPI_Win_complete without MPI_Win_start on window {win}"),
            )
        })
    })?;
    wait_quiet(win, None, "MPI_Win_complete");
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        obj.members[me].access = None;
        for &t in &targets {
            obj.members[t].completes += 1;
        }
        w.notify_window(win);
        Ok(())
    })
}

/// MPI_Win_wait (`blocking`) or MPI_Win_test: whether the exposure epoch
/// ended (every origin completed).
pub fn wait_exposure(win: i32, blocking: bool) -> MpiResult<bool> {
    let n = sim::mpi(|w| -> MpiResult<usize> {
        w.win_member(win)?
            .exposure
            .as_ref()
            .map(Vec::len)
            .ok_or_else(|| {
                err(
                    class::RMA_SYNC,
                    format!("no MPI_Win_post is pending on window {win}"),
                )
            })
    })?;
    let mut finished = false;
    let mut try_end = |w: &mut Ctx| {
        let Ok(m) = w.win_member_mut(win) else {
            return true;
        };
        if m.completes < n {
            return false;
        }
        m.completes -= n;
        m.exposure = None;
        finished = true;
        true
    };
    if blocking {
        wait_on_window(
            win,
            "MPI_Win_wait",
            &format!("MPI_Win_complete of {n} origins on window {win}"),
            &mut try_end,
        );
    } else {
        sim::mpi(&mut try_end);
    }
    Ok(finished)
}

/// MPI_Win_attach.
pub fn attach(win: i32, base: usize, size: isize) -> MpiResult<()> {
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        if obj.flavor != Flavor::Dynamic {
            return Err(err(
                class::RMA_FLAVOR,
                format!("MPI_Win_attach: window {win} was not made by MPI_Win_create_dynamic"),
            ));
        }
        let size =
            usize::try_from(size).map_err(|_| err(class::SIZE, format!("invalid size {size}")))?;
        let m = &mut obj.members[me];
        if m.regions
            .iter()
            .any(|&(s, l)| base < s + l && s < base + size)
        {
            return Err(err(
                class::RMA_ATTACH,
                "MPI_Win_attach: the region overlaps one attached already",
            ));
        }
        m.regions.push((base, size));
        Ok(())
    })
}

/// MPI_Win_detach.
pub fn detach(win: i32, base: usize) -> MpiResult<()> {
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        if obj.flavor != Flavor::Dynamic {
            return Err(err(
                class::RMA_FLAVOR,
                format!("MPI_Win_detach: window {win} was not made by MPI_Win_create_dynamic"),
            ));
        }
        let m = &mut obj.members[me];
        match m.regions.iter().position(|&(s, _)| s == base) {
            Some(i) => {
                m.regions.remove(i);
                Ok(())
            }
            None => Err(err(
                class::RMA_ATTACH,
                format!("MPI_Win_detach: no region attached at {base:#x}"),
            )),
        }
    })
}

/// MPI_Win_shared_query: (size, disp_unit, base) of `rank`'s part, the
/// first non-empty part for MPI_PROC_NULL.
pub fn shared_query(win: i32, rank: i32) -> MpiResult<(usize, usize, usize)> {
    sim::mpi(|w| {
        let (obj, _) = w.window(win)?;
        if obj.flavor != Flavor::Shared {
            return Err(err(
                class::RMA_FLAVOR,
                format!("MPI_Win_shared_query: window {win} is not a shared-memory window"),
            ));
        }
        let m = match Ctx::rma_target(obj, rank)? {
            Some(t) => &obj.members[t],
            None => obj
                .members
                .iter()
                .find(|m| m.size > 0)
                .unwrap_or(&obj.members[0]),
        };
        Ok((m.size, m.disp_unit, m.base))
    })
}

impl Member {
    /// Whether a lock or a post/start epoch is open (fence and free must
    /// not be called inside one).
    fn in_lock_or_pscw_epoch(&self) -> bool {
        self.lock_all || !self.locks.is_empty() || self.access.is_some() || self.exposure.is_some()
    }

    /// Address of a predefined attribute's value for MPI_Win_get_attr
    /// (MPI_WIN_BASE is the base itself).
    pub fn attribute(&self, keyval: i32) -> Option<usize> {
        Some(match keyval {
            WIN_BASE => self.base,
            WIN_SIZE => &*self.attr_size as *const isize as usize,
            WIN_DISP_UNIT => &self.attr_ints[0] as *const i32 as usize,
            WIN_CREATE_FLAVOR => &self.attr_ints[1] as *const i32 as usize,
            WIN_MODEL => &self.attr_ints[2] as *const i32 as usize,
            _ => return None,
        })
    }
}

/// Whose globals must be in place to touch each side of a one-sided
/// operation: `segment` is set when the target range lies in the globals
/// swapped between ranks and the target is another rank.
struct Sides<'a> {
    segment: Option<&'a privatize::DataSegment>,
    origin: usize,
    target: usize,
}

impl Sides<'_> {
    fn target(&self) {
        if let Some(s) = self.segment {
            s.activate(self.target);
        }
    }

    fn origin(&self) {
        if let Some(s) = self.segment {
            s.activate(self.origin);
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

impl Ctx<'_> {
    /// MPI_Win_set_info: keeps the hints MPI defines for windows (others
    /// are ignored, as MPICH does).
    pub fn set_window_info(&mut self, win: i32, info: i32) -> MpiResult<()> {
        let hints = self.mpi.hints(info)?;
        let m = self.win_member_mut(win)?;
        for (k, v) in hints {
            if !WIN_HINTS.iter().any(|h| h.0 == k) {
                continue;
            }
            match m.info.iter_mut().find(|e| e.0 == k) {
                Some(e) => e.1 = v,
                None => m.info.push((k, v)),
            }
        }
        Ok(())
    }

    /// MPI_Win_get_info: every hint MPI defines for windows, as set or at
    /// its default; the new info object's handle.
    pub fn window_info(&mut self, win: i32) -> MpiResult<i32> {
        let set = &self.win_member(win)?.info;
        let entries = WIN_HINTS
            .iter()
            .map(|&(k, default)| {
                let v = set
                    .iter()
                    .find(|e| e.0 == k)
                    .map_or(default.to_string(), |e| e.1.clone());
                (k.to_string(), v)
            })
            .collect();
        Ok(self.mpi.add_info(entries))
    }
}
