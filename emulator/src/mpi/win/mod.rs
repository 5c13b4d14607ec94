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
//! Synchronization follows one of two models (`smpi/rma-model`):
//! - `simgrid` (the default), SimGrid 3.32's, whose RMA runs over its
//!   point-to-point layer: a fence is a barrier (none after
//!   `MPI_MODE_NOPRECEDE`), the wait for every operation the rank is part
//!   of, and a second barrier; `MPI_Win_post` and `MPI_Win_complete` send
//!   a 0-byte message to each member of the group, which `MPI_Win_start`
//!   and `MPI_Win_wait` receive; flush, unlock and lock wait for the
//!   operations between the two ranks in both directions; an accumulate
//!   waits for its transfer, a get-accumulate (fetch-and-op) for a get
//!   then an accumulate, a compare-and-swap for a get, then sends the new
//!   value if it swapped.
//! - `direct`, cheaper: a fence is one barrier after the rank's own
//!   operations, locks, posts and completions are granted or delivered
//!   without messages at the simulated time of the call, and no operation
//!   blocks.
//!
//! The family is split in three: this module holds the windows' state and
//! the lookups every call makes, `ops` issues and completes the
//! operations (put, get, the accumulates) and `sync` holds the calls that
//! open, close and synchronize epochs, and create and free windows.

mod ops;
mod sync;

pub use ops::{accumulate_op, get_accumulate_op};
pub use sync::{
    attach, block_like_simgrid, complete, create, detach, fence, flush, free, lock, lock_all, post,
    shared_query, start, sync, unlock, unlock_all, wait_exposure, with_atomic_mutex,
};

use std::rc::Rc;

use platforms::HostId;

use super::datatype::Datatype;
use super::handles::HandleTable;
use super::op::Builtin;
use super::Ctx;
use super::{class, Group, MpiError, MpiResult, ReqId, PROC_NULL};

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
    /// Transfers in flight from this origin, by target and direction.
    inflight: Vec<Inflight>,
    /// Transfers in flight whose target this member is, data coming to it
    /// ([0]) and going back to their origin ([1]): what the other members'
    /// `inflight` hold for it, counted so that a wait on all of them
    /// need not scan every member.
    incoming: [usize; 2],
    /// The receives of the origins' completion messages of the exposure
    /// epoch (`simgrid` model), posted by MPI_Win_post.
    completions: Vec<ReqId>,
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

/// SimGrid's `atomic_mut_` of one member's window (`simgrid` model): the
/// actor holding it and those waiting for it, first come first served.
#[derive(Debug, Default, Clone)]
struct AtomicMutex {
    holder: Option<usize>,
    queue: std::collections::VecDeque<usize>,
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
    /// The atomic operations' mutex of each member, as target.
    atomics: Vec<AtomicMutex>,
    /// The actors blocked until something on this window changes, by
    /// member (a thread of a rank may wait too): a transfer's end wakes
    /// its two members' only.
    waiters: Vec<Vec<usize>>,
    /// The single block of a shared window, once every member's size is
    /// known.
    shared_block: Option<Box<[u128]>>,
    /// Members that have not freed it yet.
    refs: usize,
    /// Members that have not joined the creation yet.
    joining: usize,
}

/// The option that chooses how synchronization and atomics cost.
#[rustfmt::skip]
pub const OPTIONS: &[crate::config::OptionSpec] = &[
    crate::config::OptionSpec { name: "smpi/rma-model", kind: crate::config::Kind::Text, default: "simgrid", help: "how one-sided synchronization costs: simgrid (SimGrid 3.32's: fences are two barriers around the wait for the rank's operations, post/start and complete/wait exchange 0-byte messages, flushes and unlocks wait for both directions, accumulates and fetching operations block), direct (one barrier per fence, synchronization without messages, no blocking operation)" },
];

/// How synchronization and atomics cost (`smpi/rma-model`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RmaModel {
    #[default]
    SimGrid,
    Direct,
}

impl RmaModel {
    /// Parses a value of `smpi/rma-model`.
    pub fn parse(text: &str) -> Result<RmaModel, String> {
        match text {
            "simgrid" => Ok(RmaModel::SimGrid),
            "direct" => Ok(RmaModel::Direct),
            other => Err(format!(
                "option smpi/rma-model: '{other}' is not one of simgrid, direct"
            )),
        }
    }
}

/// Windows by handle (0 is MPI_WIN_NULL).
#[derive(Debug, Default)]
pub struct Windows {
    pub model: RmaModel,
    table: HandleTable<WinObj>,
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

/// Transfers in flight from one origin to one target in one direction.
#[derive(Debug, Clone, Copy)]
pub struct Inflight {
    pub target: usize,
    /// The data goes back to the origin (a get's).
    pub back: bool,
    pub count: usize,
}

/// One network transfer of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Leg {
    pub src: HostId,
    pub dst: HostId,
    pub bytes: usize,
    /// From the target back to the origin.
    pub back: bool,
}

/// Which transfers a synchronization waits for, besides none of its own
/// in flight: SimGrid's requests are in the lists of the ranks their data
/// goes to, and a detached send completes at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The rank's own operations (the `direct` model).
    Mine,
    /// Every transfer between the rank and the peer, both ways (SimGrid's
    /// flush, unlock and lock).
    Between,
    /// The transfers whose data comes to the rank: its gets, the peer's
    /// puts (SimGrid's flush_local, complete, wait and fence).
    ToMe,
}

/// What the end of an RMA transfer completes.
#[derive(Debug, Clone)]
pub struct RmaHooks {
    pub win: i32,
    pub origin: usize,
    pub target: usize,
    /// The request of MPI_Rput and friends.
    pub request: Option<ReqId>,
    /// This transfer's data goes back to the origin.
    pub back: bool,
    /// The transfer that follows this one (the answer of a fetching
    /// operation).
    pub then: Option<Leg>,
    /// The request completes with this transfer, before the one that
    /// follows (SimGrid's compare-and-swap waits for its get only).
    pub complete_early: bool,
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

fn err(class: i32, message: impl Into<String>) -> MpiError {
    MpiError::new(class, message)
}

/// Aligned, zeroed memory of at least `bytes` bytes.
fn zeroed_block(bytes: usize) -> Box<[u128]> {
    vec![0u128; bytes.div_ceil(16).max(1)].into_boxed_slice()
}

impl Windows {
    /// The name world rank `rank` gave window `win` (empty: none).
    pub fn member_name(&self, win: i32, rank: usize) -> Option<String> {
        let obj = self.table.get(win)?;
        let me = obj.group.rank_of(rank)?;
        obj.members.get(me).map(|m| m.name.clone())
    }
}

impl Ctx<'_> {
    /// The window `win` and the current rank's rank in it.
    pub fn window(&self, win: i32) -> MpiResult<(&WinObj, usize)> {
        let obj = self
            .mpi
            .windows
            .table
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
        let obj = self.mpi.windows.table.get_mut(win).expect("checked above");
        Ok((obj, me))
    }

    /// MPI_Win_get_group: a new group handle for the group of `win`.
    pub fn win_group(&mut self, win: i32) -> MpiResult<i32> {
        let g = self.window(win)?.0.group.clone();
        let h = self.mpi.comms.add_group(g);
        self.note_created(super::ledger::Kind::Group, h);
        Ok(h)
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
                let errhandler = self.mpi.default_errhandler;
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
                        incoming: [0; 2],
                        completions: Vec::new(),
                        attr_size: Box::new(0),
                        attr_ints: Box::new([1, flavor as i32, WIN_UNIFIED]),
                        name: String::new(),
                        errhandler,
                        info: Vec::new(),
                        freed: false,
                    })
                    .collect();
                let h = self.mpi.windows.table.insert(WinObj {
                    comm,
                    group,
                    flavor,
                    members,
                    locks: vec![TargetLock::default(); n],
                    lock_all_holders: 0,
                    exclusive_holders: 0,
                    atomics: vec![AtomicMutex::default(); n],
                    waiters: vec![Vec::new(); n],
                    shared_block: None,
                    refs: n,
                    joining: n,
                });
                self.mpi.windows.creating.push((comm, h));
                h
            }
        };
        let obj = self
            .mpi
            .windows
            .table
            .get_mut(handle)
            .expect("window just found");
        obj.joining -= 1;
        if obj.joining == 0 {
            self.mpi.windows.creating.retain(|&(c, _)| c != comm);
        }
        let obj = self
            .mpi
            .windows
            .table
            .get_mut(handle)
            .expect("window just found");
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
        let Some(obj) = self.mpi.windows.table.get_mut(win) else {
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

    /// Whether window rank `rank` of `win` is the calling rank.
    pub fn targets_self(&self, win: i32, rank: i32) -> bool {
        self.window(win)
            .is_ok_and(|(_, me)| usize::try_from(rank).is_ok_and(|r| r == me))
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
        Ok(self.new_info(entries))
    }
}
