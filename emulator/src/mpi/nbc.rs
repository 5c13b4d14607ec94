//! Non-blocking collectives: the schedule of the blocking collective, run
//! round by round. A round's messages are posted; when they have all
//! completed, its local copies and reductions run and the next round is
//! posted; after the last round the user's request completes.
//!
//! Progress is MPICH's weak progress: a rank's pending collectives advance
//! whenever it is inside an MPI call (every call checks, and a rank
//! blocked in any wait is woken when a message of one of its collectives
//! completes). Local steps run outside any borrow of the world, since a
//! reduction may call the program's own operation.

use std::cell::Cell;

use super::coll::{Buffers, Reduction, Run};
use super::{is_complete, CommView, MpiResult, ReqId, Status};
use crate::engine::{self, World};

thread_local! {
    /// Non-blocking collectives in progress, all ranks together: when there
    /// are none, the check every MPI call makes costs nothing.
    static PENDING: Cell<usize> = const { Cell::new(0) };
}

/// A non-blocking collective in progress.
pub struct Nbc {
    /// The user's request.
    request: ReqId,
    run: Run,
    /// The round whose messages are posted (or the next to post).
    round: usize,
    /// The requests of that round not yet collected.
    outstanding: Vec<ReqId>,
    call: &'static str,
}

/// Starts `sched` as a non-blocking collective of the current rank; the
/// user's request.
pub fn start(
    comm: &CommView,
    sched: collectives::Schedule,
    bufs: Buffers,
    reduction: Reduction,
    call: &'static str,
) -> MpiResult<ReqId> {
    let run = Run::new(comm, sched, bufs, reduction)?;
    let (request, slot) = engine::with(|w| {
        let request = w.new_nbc_request(comm);
        let slot = w.mpi.nbc_free.pop().unwrap_or_else(|| {
            w.mpi.nbc.push(None);
            w.mpi.nbc.len() - 1
        });
        let me = w.current;
        w.mpi.ranks[me].nbc.push(slot);
        (request, slot)
    });
    PENDING.with(|p| p.set(p.get() + 1));
    let state = Nbc {
        request,
        run,
        round: 0,
        outstanding: Vec::new(),
        call,
    };
    advance(slot, state);
    Ok(request)
}

/// Advances every pending collective of the current rank as far as its
/// completed messages allow.
pub fn progress() {
    if PENDING.with(Cell::get) == 0 {
        return;
    }
    let pending = engine::with(|w: &mut World| {
        let me = w.current;
        if w.mpi.ranks.get(me).is_none_or(|r| r.nbc.is_empty()) {
            return Vec::new();
        }
        w.mpi.ranks[me].nbc.clone()
    });
    for slot in pending {
        // Taken out while it runs: a program's reduction operation that
        // calls MPI would otherwise progress it again from inside.
        let Some(state) = engine::with(|w| w.mpi.nbc.get_mut(slot).and_then(Option::take)) else {
            continue;
        };
        advance(slot, *state);
    }
}

/// Runs `state` until it waits for messages (then puts it back in `slot`)
/// or completes.
fn advance(slot: usize, mut state: Nbc) {
    let result = (|| -> MpiResult<bool> {
        loop {
            if !state.outstanding.is_empty() {
                let ids = &state.outstanding;
                if !engine::with(|w| ids.iter().all(|&id| is_complete(w, id))) {
                    return Ok(false);
                }
                // Receive overheads are slept when the MPI call that
                // progressed the collective returns.
                engine::with(|w| ids.iter().for_each(|&id| w.owe_recv_overhead(id)));
                state.run.collect(ids, state.call)?;
                state.outstanding.clear();
                state.run.locals(state.round)?;
                state.round += 1;
            }
            if state.round == state.run.sched.rounds.len() {
                return Ok(true);
            }
            let ids = state.run.post(state.round)?;
            if ids.is_empty() {
                state.run.locals(state.round)?;
                state.round += 1;
                continue;
            }
            // Wake the rank, whatever it waits for, when they complete.
            engine::with(|w| {
                for &id in &ids {
                    w.mpi.request_mut(id).waiting = true;
                }
            });
            state.outstanding = ids;
        }
    })();
    engine::with(|w| match result {
        Ok(false) => w.mpi.nbc[slot] = Some(Box::new(state)),
        done => {
            let mut status = Status::empty();
            if let Err(e) = done {
                status.error = e.class;
                for &id in &state.outstanding {
                    w.mpi.remove_request(id);
                }
            }
            let me = w.current;
            w.mpi.ranks[me].nbc.retain(|&s| s != slot);
            w.mpi.nbc_free.push(slot);
            PENDING.with(|p| p.set(p.get().saturating_sub(1)));
            if w.mpi
                .requests
                .get(state.request)
                .is_some_and(Option::is_some)
            {
                w.complete(state.request, status);
            }
        }
    });
}
