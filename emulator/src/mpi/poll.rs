//! What polling costs, as SimGrid 3.32 charges it.
//!
//! A program that polls (`MPI_Test` in a loop, `MPI_Iprobe` until a
//! message comes) would never let simulated time pass if polls were free:
//! SimGrid charges each poll a sleep, and so do we, call by call as its
//! `Request::test`, `Request::testany` and `Request::iprobe` do. Each of
//! the three families has one counter shared by all ranks (a `static int
//! nsleeps` in SimGrid), starting at 1: a poll first sleeps counter x its
//! cost (`smpi/test`, or `smpi/iprobe`), then looks; a look that finds
//! resets the counter to 1, one that does not adds 1 (with
//! `smpi/grow-injected-times`, the default; Testany's always grows). So
//! busy loops advance time quickly while a poll that succeeds at once
//! costs one `smpi/test`. Which rank reads a counter first at one date is
//! SimGrid's order: its iprobe charges are computations, its tests sleeps
//! (they end in different orders, `engine/timer.rs`), and its look is a
//! simcall of its own, so the rank takes a turn before it
//! (`sim::pass_turn`; but a test of a detached send looks at nothing).
//!
//! Per call, as SimGrid: `MPI_Test` on a non-null request is one test
//! (MPI_REQUEST_NULL costs nothing); `MPI_Testall` is one test per
//! active request, in order, skipping those an earlier test saw complete
//! (SimGrid frees them then); `MPI_Testsome` likewise one per active
//! request; `MPI_Testany` one testany when one of its requests is active;
//! `MPI_Iprobe`, `MPI_Improbe` and `MPI_Request_get_status` (an iprobe in
//! SimGrid, which finds nothing for a posted request) one iprobe.
//! `MPI_Win_test`, which SimGrid lacks, is one test. `MPI_Waitsome` is
//! SimGrid's waitany then one test per other active request.
//!
//! Deliberately not copied: SimGrid's blocking `MPI_Probe` is a loop of
//! such iprobes, so it returns at the end of the growing charge that sees
//! the message (up to milliseconds late with the default costs, enough
//! to turn a probe-based exchange from the fastest into the slowest);
//! ours blocks until the message comes, as a real MPI_Probe does.
//!
//! A poll that costs nothing (`smpi/test:0`) takes no time, as in SimGrid;
//! but where SimGrid spins forever on a loop of free polls, here past
//! 1,000 of them by one actor at one date each yields: the other ranks
//! run and, if they are all blocked or polling too, the clock moves to
//! the next event; polls with no event left are a livelock, which the
//! engine reports (`Core::start_yield`).

use crate::engine::{Wake, LIVELOCK_POLLS};
use crate::sim;

use super::{is_complete, ReqId};

/// The families of polls, each with its counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    Test,
    Testany,
    Iprobe,
}

/// The counters, minus one (0: the next poll costs one unit).
#[derive(Debug, Default)]
pub struct Streaks {
    test: u32,
    testany: u32,
    iprobe: u32,
    /// Polls in a row made while nothing else could happen.
    alone: u64,
    /// Free polls made at one date, per actor: (date, count). Per actor,
    /// so that ranks each making a few at one date never add up to a
    /// spin (a yield that moved the clock would change their dates).
    free: Vec<(f64, u32)>,
}

/// Free polls at one date after which each one yields: past it a loop of
/// free polls lets the others run and the clock move.
const FREE_POLLS_PER_DATE: u32 = 1000;

/// The same for one-sided operations on the rank's own memory: far more,
/// as a program may legitimately make thousands at one date (filling its
/// own part of a distributed array), where SimGrid's clock stands still.
pub const SELF_COPIES_PER_DATE: u32 = 100_000;

impl Streaks {
    fn of(&mut self, kind: Poll) -> &mut u32 {
        match kind {
            Poll::Test => &mut self.test,
            Poll::Testany => &mut self.testany,
            Poll::Iprobe => &mut self.iprobe,
        }
    }
}

/// Charges a poll of `kind` before it looks (the rank sleeps, or yields
/// when polls are free), in `call`.
pub fn charge(kind: Poll, call: &'static str) {
    let cost = sim::mpi(|w| {
        let unit = match kind {
            Poll::Test | Poll::Testany => w.mpi.protocol.test_cost,
            Poll::Iprobe => w.mpi.protocol.iprobe_cost,
        };
        unit * f64::from(*w.mpi.polls.of(kind) + 1)
    });
    if cost <= 0.0 {
        free_poll(call, FREE_POLLS_PER_DATE);
        return;
    }
    let stuck = sim::with(|s| {
        let alone = s.core.alone();
        let n = &mut s.mpi.polls.alone;
        *n = if alone { *n + 1 } else { 0 };
        if *n >= LIVELOCK_POLLS {
            s.core.livelock(call, *n);
        }
        *n >= LIVELOCK_POLLS
    });
    if stuck {
        // Back to the maestro, which ends the run.
        sim::yield_now(call);
    } else {
        // SimGrid's iprobe computes for its charge, its tests sleep.
        let wake = match kind {
            Poll::Iprobe => Wake::Computed,
            Poll::Test | Poll::Testany => Wake::Slept,
        };
        sim::sleep_as(cost, call, wake);
    }
}

/// A poll that takes no time, as in SimGrid (a loop that also sleeps or
/// computes keeps its dates): free polls (`smpi/test:0`) and the
/// one-sided operations a rank makes on its own memory, which SimGrid
/// copies. Only an actor that goes on past `limit` of them at one date
/// lets the others run and the clock move to the next event; the engine
/// tells a livelock of those.
pub fn free_poll(call: &'static str, limit: u32) {
    let stalled = sim::with(|s| {
        let now = s.core.now();
        let actor = s.core.current_actor();
        let free = &mut s.mpi.polls.free;
        if free.len() <= actor {
            free.resize(actor + 1, (f64::NAN, 0));
        }
        let mine = &mut free[actor];
        if mine.0 != now {
            *mine = (now, 0);
        }
        mine.1 += 1;
        mine.1 >= limit
    });
    if stalled {
        sim::yield_now(call);
    }
}

/// [`charge`], then the turn SimGrid's look takes (a simcall of its own,
/// see [`sim::pass_turn`]), for the polls that look at communications.
pub fn charge_then_look(kind: Poll, call: &'static str) {
    charge(kind, call);
    sim::pass_turn();
}

/// Records what a poll of `kind` found: the next one costs one unit again,
/// or one more than this one.
pub fn looked(kind: Poll, found: bool) {
    sim::mpi(|w| {
        let grow = w.mpi.protocol.grow_injected_times || kind == Poll::Testany;
        let n = w.mpi.polls.of(kind);
        if found {
            *n = 0;
        } else if grow {
            *n += 1;
        }
    });
}

/// One test of request `id` (SimGrid's `Request::test`) in `call`:
/// charged, then looked at; whether it is complete. A detached send has
/// no communication left in SimGrid to look at: no turn taken.
pub fn test(id: ReqId, call: &'static str) -> bool {
    charge(Poll::Test, call);
    let turn = sim::mpi(|w| {
        !w.mpi.request_opt(id).is_some_and(|r| r.is_detached_send()) && w.core.pass_turn()
    });
    sim::park_for_turn(turn);
    let done = sim::mpi(|w| is_complete(w, id));
    looked(Poll::Test, done);
    done
}

/// The tests of MPI_Testall or MPI_Testsome over `ids`, in order: one per
/// request no earlier array test saw complete. Which were seen complete:
/// each is looked at right after its own charge, so one that completes
/// during a later request's charge is not (as in SimGrid).
pub fn test_each(ids: &[ReqId], call: &'static str) -> Vec<bool> {
    ids.iter()
        .map(|&id| {
            let seen = sim::mpi(|w| w.mpi.request_opt(id).is_none_or(|r| r.tested_complete));
            if seen {
                return true;
            }
            let done = test(id, call);
            if done {
                sim::mpi(|w| {
                    if w.mpi.request_opt(id).is_some() {
                        w.mpi.request_mut(id).tested_complete = true;
                    }
                });
            }
            done
        })
        .collect()
}
