//! Non-blocking collectives: the schedule of the blocking collective, run
//! round by round. A round's messages are posted; when they have all
//! completed, its local copies and reductions run and the next round is
//! posted; after the last round the user's request completes.
//!
//! A collective on an intercommunicator chains several steps (schedules on
//! a group's local view, and transfers between the groups): its blocking
//! twin runs in recording mode, which collects the steps as stages instead
//! of running them, and the stages then run one after the other here.
//!
//! Progress is MPICH's weak progress: a rank's pending collectives advance
//! whenever it is inside an MPI call (every call checks, and a rank
//! blocked in any wait is woken when a message of one of its collectives
//! completes). Local steps run outside any borrow of the world, since a
//! reduction may call the program's own operation.

use std::collections::VecDeque;

use super::coll::{
    charge_reduction, collect_requests, start_transfers, Buffers, Reduction, Run, Scratch, Transfer,
};
use super::Ctx;
use super::{class, is_complete, CommView, MpiResult, ReqId, Status};
use crate::sim;

/// Transfers posted at once on a view's collective context with one tag.
pub struct Transfers {
    pub view: CommView,
    pub tag: i32,
    pub transfers: Vec<Transfer>,
}

impl Transfers {
    /// Posts every transfer (in order); their requests.
    pub fn post(&self) -> MpiResult<Vec<ReqId>> {
        start_transfers(&self.view, self.tag, self.transfers.iter().cloned())
    }
}

/// One step of a non-blocking collective.
pub enum Stage {
    /// A schedule, round by round.
    Schedule(Box<Run>),
    /// Transfers between the groups of an intercommunicator, one round.
    Transfers(Transfers),
}

impl Stage {
    fn rounds(&self) -> usize {
        match self {
            Stage::Schedule(run) => run.sched.round_count(),
            Stage::Transfers(_) => 1,
        }
    }
}

/// The stages of a collective recorded instead of run, and the scratch
/// buffers they use, kept until the collective completes.
#[derive(Default)]
pub struct Recording {
    stages: Vec<Stage>,
    keep: Vec<Scratch>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Recording({} stages)", self.stages.len())
    }
}

/// If the current rank is recording, records `stage` and returns `None`;
/// else gives it back to be run now.
pub fn record(stage: Stage) -> Option<Stage> {
    sim::mpi(|w| {
        let me = w.core.current();
        match w.mpi.ranks[me].recording.as_mut() {
            Some(r) => {
                r.stages.push(stage);
                None
            }
            None => Some(stage),
        }
    })
}

/// Keeps `scratch` alive until the recorded collective completes (when
/// recording; else it is simply dropped).
pub fn keep_alive(scratch: Scratch) {
    sim::mpi(|w| {
        let me = w.core.current();
        if let Some(r) = w.mpi.ranks[me].recording.as_mut() {
            r.keep.push(scratch);
        }
    });
}

/// Runs `blocking` (an intercommunicator collective) in recording mode and
/// starts what it recorded as a non-blocking collective; the user's
/// request, or the error `blocking` returned.
pub fn start_recorded(
    comm: &CommView,
    call: &'static str,
    blocking: impl FnOnce() -> i32,
) -> Result<ReqId, i32> {
    sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me].recording = Some(Box::default());
    });
    let code = blocking();
    let recording = sim::mpi(|w| {
        let me = w.core.current();
        w.mpi.ranks[me]
            .recording
            .take()
            .map(|r| *r)
            .unwrap_or_default()
    });
    if code != class::SUCCESS {
        return Err(code);
    }
    Ok(start_stages(comm, recording, call))
}

/// A non-blocking collective in progress.
pub struct Nbc {
    /// The user's request.
    request: ReqId,
    /// What is left to run; the first stage is the current one.
    stages: VecDeque<Stage>,
    /// The current stage's round whose messages are posted (or the next to
    /// post).
    round: usize,
    /// The requests due in that round, not yet collected.
    outstanding: Vec<ReqId>,
    /// Deferred requests of earlier rounds, with the round they are due in.
    in_flight: Vec<(ReqId, usize)>,
    call: &'static str,
    /// Scratch the stages use.
    _keep: Vec<Scratch>,
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
    let recording = Recording {
        stages: vec![Stage::Schedule(Box::new(run))],
        keep: Vec::new(),
    };
    Ok(start_stages(comm, recording, call))
}

/// Starts the stages of `recording` as a non-blocking collective of the
/// current rank; the user's request.
fn start_stages(comm: &CommView, recording: Recording, call: &'static str) -> ReqId {
    let (request, slot) = sim::mpi(|w| {
        let request = w.new_nbc_request(comm);
        let slot = w.mpi.nbc_free.pop().unwrap_or_else(|| {
            w.mpi.nbc.push(None);
            w.mpi.nbc.len() - 1
        });
        let me = w.core.current();
        w.mpi.ranks[me].nbc.push(slot);
        (request, slot)
    });
    sim::fast(|f| f.count_nbc(true));
    let state = Nbc {
        request,
        stages: recording.stages.into(),
        round: 0,
        outstanding: Vec::new(),
        in_flight: Vec::new(),
        call,
        _keep: recording.keep,
    };
    advance(slot, state);
    request
}

/// Advances every pending collective of the current rank as far as its
/// completed messages allow.
pub fn progress() {
    // With none in progress, the check every MPI call makes costs nothing.
    if sim::fast(|f| f.any_nbc()) {
        progress_pending();
    }
}

/// [`progress`] with collectives pending, in a frame of its own (not in
/// every call's: see `context::outlined`).
#[inline(never)]
fn progress_pending() {
    // A collective that parks the rank while it advances (the send
    // overhead before a message) lets the others' messages complete, and
    // their wakes are spent on that park: pass again until a pass runs
    // without parking, so that no completion goes unseen.
    loop {
        let parks = sim::parks();
        let pending = sim::mpi(|w: &mut Ctx| {
            let me = w.core.current();
            if w.mpi.ranks.get(me).is_none_or(|r| r.nbc.is_empty()) {
                return Vec::new();
            }
            w.mpi.ranks[me].nbc.clone()
        });
        // Check `concurrency`: the collectives' local copies and
        // reductions write the guarded buffers.
        // A progress nested in this one (a program's reduction operation
        // that calls MPI) comes in the middle of a write: it leaves the
        // guards to the outer one.
        let guarded = !pending.is_empty()
            && sim::mpi(|w| {
                let me = w.core.current();
                let v = &mut w.mpi.verify;
                let on = v.guards.contains_key(&me) && !v.progressing.contains(&me);
                if on {
                    v.progressing.push(me);
                    w.guards_before_write(me, None);
                }
                on
            });
        for slot in pending {
            // Taken out while it runs: a program's reduction operation
            // that calls MPI would otherwise progress it again from inside.
            let Some(state) = sim::mpi(|w| w.mpi.nbc.get_mut(slot).and_then(Option::take)) else {
                continue;
            };
            advance(slot, *state);
        }
        if guarded {
            sim::mpi(|w| {
                let me = w.core.current();
                w.guards_after_write(me, None);
                w.mpi.verify.progressing.retain(|&r| r != me);
            });
        }
        if sim::parks() == parks {
            return;
        }
    }
}

/// Runs `state` until it waits for messages (then puts it back in `slot`)
/// or completes.
fn advance(slot: usize, mut state: Nbc) {
    let result = (|| -> MpiResult<bool> {
        loop {
            if !state.outstanding.is_empty() {
                let done = {
                    let ids = &state.outstanding;
                    sim::mpi(|w| ids.iter().all(|&id| is_complete(w, id)))
                };
                if !done {
                    return Ok(false);
                }
                let ids = std::mem::take(&mut state.outstanding);
                // Receive overheads are slept when the MPI call that
                // progressed the collective returns.
                sim::mpi(|w| ids.iter().for_each(|&id| w.owe_recv_overhead(id)));
                match state.stages.front() {
                    Some(Stage::Schedule(run)) => {
                        collect_requests(&ids, state.call)?;
                        charge_reduction(run.locals(state.round)?);
                    }
                    Some(Stage::Transfers(_)) => collect_requests(&ids, state.call)?,
                    None => {}
                }
                state.round += 1;
            }
            match state.stages.front() {
                None => return Ok(true),
                Some(stage) if state.round == stage.rounds() => {
                    state.stages.pop_front();
                    state.round = 0;
                    continue;
                }
                Some(_) => {}
            }
            let stage = &state.stages[0];
            let ids = match stage {
                Stage::Schedule(run) => run.post(state.round, &mut state.in_flight)?,
                Stage::Transfers(t) => t.post()?,
            };
            if ids.is_empty() {
                if let Stage::Schedule(run) = stage {
                    charge_reduction(run.locals(state.round)?);
                }
                state.round += 1;
                continue;
            }
            // Wake the rank, whatever it waits for, when they complete.
            sim::mpi(|w| {
                for &id in &ids {
                    w.mpi.request_mut(id).waiting = true;
                }
            });
            state.outstanding = ids;
        }
    })();
    sim::mpi(|w| match result {
        Ok(false) => w.mpi.nbc[slot] = Some(Box::new(state)),
        done => {
            let mut status = Status::empty();
            if let Err(e) = done {
                status.error = e.class;
                let in_flight = state.in_flight.iter().map(|&(id, _)| id);
                for id in state.outstanding.iter().copied().chain(in_flight) {
                    w.mpi.remove_request(id);
                }
            }
            let me = w.core.current();
            w.mpi.ranks[me].nbc.retain(|&s| s != slot);
            w.mpi.nbc_free.push(slot);
            sim::fast(|f| f.count_nbc(false));
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
