//! Epochs and their synchronization: fence, locks, post/start/complete/wait,
//! flushes, and creating, attaching and freeing windows.

use crate::engine::Detail;
use crate::mpi::coll::{self, Transfer};
use crate::mpi::datatype::BYTE;
use crate::mpi::ledger::Kind;
use crate::mpi::verify::{rma::Epoch, Kind as Check};
use crate::mpi::{class, is_complete, wait_for, CommView, Ctx, MpiResult, ReqId};
use crate::sim;

use super::{
    err, Flavor, RmaModel, Scope, WindowSpec, LOCK_EXCLUSIVE, LOCK_SHARED, MODE_ALL,
    MODE_NOPRECEDE, MODE_NOSUCCEED,
};

/// The tags of the `simgrid` model's synchronization messages on the
/// window's collective context (collectives there use tags from 0 up).
const POST_TAG: i32 = -4004;
const COMPLETE_TAG: i32 = -4005;

/// Whether windows follow SimGrid's model (`smpi/rma-model`).
fn simgrid_model() -> bool {
    sim::mpi(|w| w.mpi.windows.model == RmaModel::SimGrid)
}

/// The `simgrid` model's synchronization messages: a 0-byte message to
/// (`send`) or from each of `peers` (window ranks) with `tag`; their
/// requests.
fn sync_messages(win: i32, peers: &[usize], send: bool, tag: i32) -> MpiResult<Vec<ReqId>> {
    let (view, byte) = sim::mpi(|w| -> MpiResult<_> {
        let comm = w.window(win)?.0.comm;
        Ok((w.comm(comm)?, std::rc::Rc::clone(w.mpi.datatype(BYTE)?)))
    })?;
    let me = view.my_rank;
    let transfers: Vec<Transfer> = peers
        .iter()
        .filter(|&&p| p != me)
        .map(|&p| {
            if send {
                Transfer::send(p, 0, 0, &byte)
            } else {
                Transfer::recv(p, 0, 0, &byte)
            }
        })
        .collect();
    coll::start_transfers(&view, tag, transfers.into_iter())
}

/// Waits for the requests `ids` of synchronization messages, in `call`.
fn finish_messages(ids: &[ReqId], call: &'static str) -> MpiResult<()> {
    wait_for(ids, call, |w| ids.iter().all(|&id| is_complete(w, id)));
    coll::collect_requests(ids, call)
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
            let actor = w.core.current();
            if let Ok((obj, me)) = w.window_mut(win) {
                obj.waiters[me].push(actor);
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
/// (`scope`: what SimGrid's model waits for; the `direct` model waits
/// for the rank's own operations.)
fn wait_quiet(win: i32, target: Option<usize>, scope: Scope, call: &'static str) {
    let scope = if simgrid_model() { scope } else { Scope::Mine };
    let detail = match target {
        Some(t) => format!("RMA operations to rank {t} of window {win}"),
        None => format!("RMA operations on window {win}"),
    };
    wait_on_window(win, call, &detail, |w| w.quiet(win, target, scope));
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
    .map_err(crate::mpi::coll::coll_error)?;
    crate::mpi::coll::execute(
        &view,
        s,
        crate::mpi::coll::Buffers::none(),
        crate::mpi::coll::Reduction::None,
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

/// Checks the memory the program gives a window: not NULL when it has a
/// size (MPI_ERR_BUFFER, as SimGrid), and, under check `rma`, within the
/// block the program allocated there (a smaller block would let other
/// ranks' accesses write past it into the C library's heap).
fn check_window_memory(base: usize, size: usize) -> MpiResult<()> {
    if base == 0 && size > 0 {
        return Err(err(
            class::BUFFER,
            format!("the window's base is NULL but its size is {size} bytes"),
        ));
    }
    let block = sim::with(|s| {
        s.allocs
            .as_ref()
            .filter(|_| s.mpi.verify.on.rma)
            .and_then(|a| a.block_size(base))
    });
    match block {
        Some(block) if block < size => Err(err(
            class::BUFFER,
            format!(
                "the window's size is {size} bytes but its base is a block of {block} bytes \
                 (from malloc): accesses past the block would corrupt the heap"
            ),
        )),
        _ => Ok(()),
    }
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
    if flavor == Flavor::Create {
        check_window_memory(base, size)?;
    }
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
    let private = sim::mpi(|w| -> MpiResult<i32> {
        let private = w.comm_dup(comm)?;
        // The window's own communicator, not the program's.
        w.note_freed(Kind::Comm, private);
        Ok(private)
    })?;
    let win = sim::mpi(|w| -> MpiResult<i32> {
        let win = w.join_window(private, flavor, base, size, disp_unit, hints)?;
        w.note_created(Kind::Win, win);
        Ok(win)
    })?;
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
        if let Some(call) = w.rma_unclosed(win) {
            let message = format!(
                "window {win} is freed while this rank's {call} was never completed by a \
                 synchronization (call MPI_Win_fence first)"
            );
            let me = w.core.current();
            w.finding(Check::RmaEpoch, vec![me], "MPI_Win_free", message.clone());
            return Err(err(class::RMA_SYNC, message));
        }
        Ok(())
    })?;
    if simgrid_model() {
        // SimGrid's: a barrier, the wait, a barrier.
        window_barrier(win, "MPI_Win_free")?;
    }
    wait_quiet(win, None, Scope::ToMe, "MPI_Win_free");
    window_barrier(win, "MPI_Win_free")?;
    sim::mpi(|w| -> MpiResult<()> {
        let (obj, me) = w.window_mut(win)?;
        let comm = obj.comm;
        obj.members[me].freed = true;
        obj.members[me].alloc = None;
        obj.refs -= 1;
        if obj.refs == 0 {
            w.mpi.windows.table.remove(win);
        }
        w.note_freed(Kind::Win, win);
        w.comm_free(comm)
    })
}

impl Ctx<'_> {
    /// Check `rma`: a lock (`call`) while the epoch a fence opened may
    /// still be open (the fence did not say MPI_MODE_NOSUCCEED) is
    /// reported; MPI forbids mixing the two.
    fn lock_in_fence_epoch(&mut self, win: i32, call: &'static str) -> MpiResult<()> {
        if self.mpi.verify.on.rma && self.win_member(win)?.fence_epoch {
            let me = self.core.current();
            let message = format!(
                "an epoch of window {win} is opened by a lock inside the epoch MPI_Win_fence \
                 opened (end fence epochs with a fence of assertion MPI_MODE_NOSUCCEED first)"
            );
            self.finding(Check::RmaEpoch, vec![me], call, message);
        }
        Ok(())
    }
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
        if w.mpi.verify.on.rma {
            let size = w.window(win)?.0.group.size();
            w.rma_fence_entered(win, size);
        }
        Ok(())
    })?;
    if simgrid_model() {
        // SimGrid's: a barrier, the wait for every operation the rank is
        // part of, a barrier; only the second after MPI_MODE_NOPRECEDE.
        if assert & MODE_NOPRECEDE == 0 {
            window_barrier(win, "MPI_Win_fence")?;
            wait_quiet(win, None, Scope::ToMe, "MPI_Win_fence");
        }
    } else {
        wait_quiet(win, None, Scope::Mine, "MPI_Win_fence");
    }
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
        w.lock_in_fence_epoch(win, "MPI_Win_lock")?;
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
    if simgrid_model() {
        // SimGrid's lock ends with a flush to the target.
        wait_quiet(win, Some(t), Scope::Between, "MPI_Win_lock");
    }
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
    wait_quiet(win, Some(t), Scope::Between, "MPI_Win_unlock");
    sim::mpi(|w| -> MpiResult<()> {
        if w.mpi.verify.on.rma {
            w.rma_epoch_closed(win, Epoch::Lock(t));
        }
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
        w.lock_in_fence_epoch(win, "MPI_Win_lock_all")
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
    if simgrid_model() {
        // SimGrid's lock_all locks, then flushes, each member.
        wait_quiet(win, None, Scope::Between, "MPI_Win_lock_all");
    }
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
    wait_quiet(win, None, Scope::Between, "MPI_Win_unlock_all");
    sim::mpi(|w| -> MpiResult<()> {
        if w.mpi.verify.on.rma {
            w.rma_epoch_closed(win, Epoch::LockAll);
        }
        let (obj, me) = w.window_mut(win)?;
        obj.members[me].lock_all = false;
        obj.lock_all_holders -= 1;
        w.notify_window(win);
        Ok(())
    })
}

/// MPI_Win_flush(_local)(_all): completes operations inside a passive
/// target epoch. Local completion (`local`) is waited for as remote
/// completion, except that SimGrid's model waits then for the transfers
/// whose data comes to this rank only.
pub fn flush(win: i32, rank: Option<i32>, local: bool, call: &'static str) -> MpiResult<()> {
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
    // SimGrid's flush_local waits for its own list only: the transfers
    // whose data comes to this rank.
    let scope = if local { Scope::ToMe } else { Scope::Between };
    wait_quiet(win, target, scope, call);
    // The flushed operations are complete: their memory is free again.
    sim::mpi(|w| {
        if w.mpi.verify.on.rma {
            w.rma_flushed(win, target);
        }
    });
    Ok(())
}

/// After an operation of `kind` to window rank `rank`, issued with
/// request `id` (made for the purpose when `own`): under the `simgrid`
/// model, what SimGrid's blocking implementation of the accumulates and
/// atomics waits for: an accumulate or get-accumulate flushes to the
/// target, a get-accumulate of MPI_NO_OP and a compare-and-swap wait for
/// their get. The request is removed when it was not the program's.
pub fn block_like_simgrid(
    win: i32,
    kind: &super::OpKind,
    rank: i32,
    id: Option<ReqId>,
    own: bool,
    call: &'static str,
) -> MpiResult<()> {
    use super::OpKind;
    use crate::mpi::op::Builtin;
    if matches!(kind, OpKind::Put | OpKind::Get) {
        return Ok(());
    }
    // The others block: for their own get, or for the flush SimGrid's
    // accumulate ends with.
    let flushes = !matches!(
        kind,
        OpKind::CompareAndSwap { .. }
            | OpKind::GetAccumulate {
                op: Builtin::NoOp,
                ..
            }
    );
    if flushes {
        let t = sim::mpi(|w| -> MpiResult<Option<usize>> {
            let (obj, _) = w.window(win)?;
            Ctx::rma_target(obj, rank)
        })?;
        if let Some(t) = t {
            wait_quiet(win, Some(t), Scope::Between, call);
        }
    } else if let Some(id) = id {
        wait_for(&[id], call, |w| is_complete(w, id));
    }
    if let (Some(id), true) = (id, own) {
        sim::mpi(|w| {
            if w.mpi.request_opt(id).is_some() {
                w.mpi.remove_request(id);
            }
        });
    }
    Ok(())
}

/// Runs `op`, an atomic operation (compare-and-swap, get-accumulate,
/// fetch-and-op) to window rank `rank` of `win`, holding the target's
/// atomic mutex as SimGrid 3.32 does (`Win::compare_and_swap`,
/// `Win::get_accumulate` lock the target window's `atomic_mut_` before
/// their get and unlock it after their last wait): atomics to one target
/// run one at a time, in the order they asked. A rank spinning on
/// atomics to itself (copies that take no time) thus waits for the remote
/// ones in flight instead of spinning millions of times meanwhile (MPICH's
/// mutex_bench). Taking the mutex is a simcall in SimGrid: a turn here.
pub fn with_atomic_mutex<T>(
    win: i32,
    rank: i32,
    call: &'static str,
    op: impl FnOnce() -> MpiResult<T>,
) -> MpiResult<T> {
    let target = sim::mpi(|w| -> MpiResult<Option<usize>> {
        let (obj, _) = w.window(win)?;
        Ctx::rma_target(obj, rank)
    })?;
    let Some(t) = target else {
        return op();
    };
    sim::pass_turn();
    // Held by an actor: two threads of a rank take turns too.
    let queued = sim::mpi(|w| -> MpiResult<bool> {
        let me = w.core.current_actor();
        let m = &mut w.window_mut(win)?.0.atomics[t];
        Ok(if m.holder.is_none() {
            m.holder = Some(me);
            false
        } else {
            m.queue.push_back(me);
            true
        })
    })?;
    if queued {
        let detail = format!("the atomic operations on rank {t} of window {win}");
        wait_on_window(win, call, &detail, |w| {
            let me = w.core.current_actor();
            w.window(win)
                .is_ok_and(|(obj, _)| obj.atomics[t].holder == Some(me))
        });
    }
    let result = op();
    sim::mpi(|w| {
        let Some(obj) = w.mpi.windows.table.get_mut(win) else {
            return;
        };
        let m = &mut obj.atomics[t];
        m.holder = m.queue.pop_front();
        let next = m.holder;
        let member = next.and_then(|a| obj.group.rank_of(w.core.actor(a).rank()));
        if let Some(member) = member {
            w.notify_members(win, [member, member]);
        }
    });
    result
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
    })?;
    if simgrid_model() {
        // SimGrid's post sends each origin a message MPI_Win_start waits
        // for; the receives of their completion messages are posted now,
        // so that MPI_Win_test can look at them.
        let origins = sim::mpi(|w| -> MpiResult<Vec<usize>> {
            Ok(w.win_member(win)?.exposure.clone().unwrap_or_default())
        })?;
        let sent = sync_messages(win, &origins, true, POST_TAG)?;
        finish_messages(&sent, "MPI_Win_post")?;
        let completions = sync_messages(win, &origins, false, COMPLETE_TAG)?;
        sim::mpi(|w| -> MpiResult<()> {
            w.win_member_mut(win)?.completions = completions;
            Ok(())
        })?;
    }
    Ok(())
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
    if simgrid_model() {
        let posted = sync_messages(win, &targets, false, POST_TAG)?;
        finish_messages(&posted, "MPI_Win_start")?;
    }
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
    if simgrid_model() {
        let sent = sync_messages(win, &targets, true, COMPLETE_TAG)?;
        finish_messages(&sent, "MPI_Win_complete")?;
    }
    wait_quiet(win, None, Scope::ToMe, "MPI_Win_complete");
    sim::mpi(|w| -> MpiResult<()> {
        if w.mpi.verify.on.rma {
            w.rma_epoch_closed(win, Epoch::Access);
        }
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
    if simgrid_model() {
        // The origins' completion messages, then the operations.
        let ids =
            sim::mpi(|w| -> MpiResult<Vec<ReqId>> { Ok(w.win_member(win)?.completions.clone()) })?;
        if blocking {
            finish_messages(&ids, "MPI_Win_wait")?;
            wait_quiet(win, None, Scope::ToMe, "MPI_Win_wait");
        } else {
            let arrived = sim::mpi(|w| {
                ids.iter().all(|&id| is_complete(w, id)) && w.quiet(win, None, Scope::ToMe)
            });
            if !arrived {
                return Ok(false);
            }
            coll::collect_requests(&ids, "MPI_Win_test")?;
        }
        sim::mpi(|w| -> MpiResult<()> {
            w.win_member_mut(win)?.completions.clear();
            Ok(())
        })?;
    }
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
