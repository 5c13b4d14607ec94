//! The timer queue: events at dates, popped earliest first and, at equal
//! dates, in the order SimGrid 3.32 wakes what ends then.
//!
//! SimGrid's sleeps are actions of its CPU model, whose heap is stable
//! (equal dates leave in the order entries were put in) and gets an
//! action's entry at the solve that ends the date the action began: the
//! solve takes its actions from the model's modified set, to whose front
//! a sleep is pushed and to whose back a computation goes. So sleeps
//! begun at different dates end the earlier begun first, sleeps begun at
//! one date the last begun first, and bounded computations begun at one
//! date (MPI_Iprobe's charges, [`Wake::Computed`]) the first begun first,
//! after the sleeps begun then; measured with ranks polling at one date
//! against SimGrid's smpirun. Its actors woken from sleeps run before
//! those whose communications end at the same date. So an actor's wakes
//! and timeouts come first, in that order; the network's events (the
//! ends of latency phases and of transfers without a flow) after them,
//! in the order they were added.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashSet;

use super::TransferId;

/// Something that happens at a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerEvent {
    /// Ends a sleep of the actor.
    Wake(usize),
    /// Ends a timed wait of the actor (a timeout it may disarm first).
    Timeout(usize),
    /// Ends the latency phase of a transfer: its flow starts.
    LatencyDone(TransferId),
    /// Ends a whole transfer (a message without bytes, or
    /// `network/model:Constant`).
    TransferDone(TransferId),
}

/// How an actor's wait for a date was modelled in SimGrid, which decides
/// the order of the wakes begun at one date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// A sleep: the last begun wakes first.
    Slept,
    /// A computation bounded to its duration (MPI_Iprobe's charge): the
    /// first begun wakes first, before the sleeps begun then.
    Computed,
}

struct Timer {
    /// The order of the timers: [`order_key`].
    key: (u64, u64, u64),
    seq: u64,
    event: TimerEvent,
}

/// A key whose plain order is `f64::total_cmp`'s.
fn ord_bits(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The date whose [`ord_bits`] is `k`.
fn from_ord_bits(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// The key that orders timers: by date; at one date the wakes of actors
/// first, earlier begun first and, among those begun at one date, the
/// newest first, except for bounded computations (`first_begun_first`),
/// which come after the others begun then, oldest first; then the
/// network's events, oldest first. Three integers compared in turn: the
/// heap compares keys at every step of its sifts.
fn order_key(
    at: f64,
    begun: f64,
    first_begun_first: bool,
    seq: u64,
    event: TimerEvent,
) -> (u64, u64, u64) {
    const HIGH: u64 = 1 << 63;
    let wakes_actor = matches!(event, TimerEvent::Wake(_) | TimerEvent::Timeout(_));
    if !wakes_actor {
        // Above every wake's date of beginning (ord_bits of any f64 is
        // below u64::MAX).
        return (ord_bits(at), u64::MAX, seq);
    }
    let within = if first_begun_first {
        HIGH | seq
    } else {
        HIGH - 1 - seq
    };
    (ord_bits(at), ord_bits(begun), within)
}

impl Timer {
    fn at(&self) -> f64 {
        from_ord_bits(self.key.0)
    }
}

impl PartialEq for Timer {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Timer {}
impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timer {
    /// Reversed, so that the max-heap pops the earliest timer.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Timers in date order, ties broken as SimGrid does (module docs).
#[derive(Default)]
pub struct Timers {
    heap: BinaryHeap<Timer>,
    seq: u64,
    /// Timers cancelled but still in the heap: dropped when they reach
    /// its top, so that a cancelled timer never moves the clock.
    cancelled: FxHashSet<u64>,
}

impl Timers {
    /// Adds a timer at date `now`, due at `at`; its number, for
    /// [`Timers::cancel`].
    pub fn add(&mut self, now: f64, at: f64, event: TimerEvent) -> u64 {
        self.add_ordered(now, at, event, false)
    }

    /// [`Timers::add`] a wake of the kind `wake`.
    pub fn add_wake(&mut self, now: f64, at: f64, actor: usize, wake: Wake) -> u64 {
        self.add_ordered(now, at, TimerEvent::Wake(actor), wake == Wake::Computed)
    }

    fn add_ordered(
        &mut self,
        now: f64,
        at: f64,
        event: TimerEvent,
        first_begun_first: bool,
    ) -> u64 {
        self.seq += 1;
        self.heap.push(Timer {
            key: order_key(at, now, first_begun_first, self.seq, event),
            seq: self.seq,
            event,
        });
        self.seq
    }

    /// Cancels timer `seq` (added and not popped yet).
    pub fn cancel(&mut self, seq: u64) {
        self.cancelled.insert(seq);
    }

    /// Drops the cancelled timers at the top of the heap.
    fn drop_cancelled(&mut self) {
        if self.cancelled.is_empty() {
            return;
        }
        while let Some(top) = self.heap.peek() {
            if !self.cancelled.remove(&top.seq) {
                break;
            }
            self.heap.pop();
        }
    }

    /// The date of the earliest timer.
    pub fn next(&mut self) -> Option<f64> {
        self.drop_cancelled();
        self.heap.peek().map(Timer::at)
    }

    /// Removes and returns the earliest timer if it is due at `t`.
    pub fn pop_due(&mut self, t: f64) -> Option<TimerEvent> {
        self.drop_cancelled();
        if self.heap.peek().is_some_and(|top| top.at() <= t) {
            self.heap.pop().map(|timer| timer.event)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_pop_by_date_then_network_events_in_insertion_order() {
        let mut t = Timers::default();
        let id = TransferId;
        t.add(0.0, 2.0, TimerEvent::LatencyDone(id(0)));
        t.add(0.0, 1.0, TimerEvent::LatencyDone(id(1)));
        t.add(0.0, 1.0, TimerEvent::TransferDone(id(2)));
        t.add(0.0, 3.0, TimerEvent::LatencyDone(id(3)));
        assert_eq!(t.next(), Some(1.0));
        assert_eq!(t.pop_due(0.5), None);
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::LatencyDone(id(1))));
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::TransferDone(id(2))));
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::LatencyDone(id(0))));
        assert_eq!(t.pop_due(2.0), None);
        assert_eq!(t.next(), Some(3.0));
    }

    #[test]
    fn a_cancelled_timer_neither_fires_nor_dates_the_next_event() {
        let mut t = Timers::default();
        let early = t.add(0.0, 1.0, TimerEvent::Timeout(0));
        t.add(0.0, 2.0, TimerEvent::Wake(1));
        t.cancel(early);
        assert_eq!(t.next(), Some(2.0));
        assert_eq!(t.pop_due(5.0), Some(TimerEvent::Wake(1)));
        assert_eq!(t.pop_due(5.0), None);
    }

    /// The order of the module docs, written out as comparisons: what
    /// the keys must reproduce.
    fn reference_cmp(
        a: &(f64, f64, bool, u64, TimerEvent),
        b: &(f64, f64, bool, u64, TimerEvent),
    ) -> Ordering {
        let wakes = |e: &TimerEvent| matches!(e, TimerEvent::Wake(_) | TimerEvent::Timeout(_));
        a.0.total_cmp(&b.0)
            .then_with(|| match (wakes(&a.4), wakes(&b.4)) {
                (true, false) => Ordering::Less,
                (false, true) => Ordering::Greater,
                (true, true) => a.1.total_cmp(&b.1).then_with(|| match (a.2, b.2) {
                    (true, true) => a.3.cmp(&b.3),
                    (false, false) => b.3.cmp(&a.3),
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                }),
                (false, false) => a.3.cmp(&b.3),
            })
    }

    #[test]
    fn timers_pop_in_the_reference_order_with_many_ties() {
        use rand_core::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(0x7173);
        let mut next = |n: u64| rng.next_u64() % n;
        let dates = [0.0, 1e-9, 0.5, 1.0, 1.0 + f64::EPSILON, 3.25];
        let mut t = Timers::default();
        let mut added = Vec::new();
        for i in 0..3000 {
            let begun = dates[next(4) as usize];
            let at = begun + dates[next(6) as usize];
            let event = match next(4) {
                0 => TimerEvent::Wake(i),
                1 => TimerEvent::Timeout(i),
                2 => TimerEvent::LatencyDone(TransferId(i as u32)),
                _ => TimerEvent::TransferDone(TransferId(i as u32)),
            };
            let first = next(2) == 0;
            let seq = match event {
                TimerEvent::Wake(a) => t.add_wake(
                    begun,
                    at,
                    a,
                    if first { Wake::Computed } else { Wake::Slept },
                ),
                _ => t.add(begun, at, event),
            };
            let first = first && matches!(event, TimerEvent::Wake(_));
            added.push((at, begun, first, seq, event));
        }
        added.sort_by(reference_cmp);
        let popped: Vec<TimerEvent> = std::iter::from_fn(|| t.pop_due(f64::INFINITY)).collect();
        let expected: Vec<TimerEvent> = added.iter().map(|a| a.4).collect();
        assert_eq!(popped, expected);
    }

    #[test]
    fn wakes_come_first_earlier_begun_first_then_newest_first() {
        let mut t = Timers::default();
        t.add(0.0, 2.0, TimerEvent::LatencyDone(TransferId(9)));
        t.add(1.0, 2.0, TimerEvent::Wake(1));
        t.add(1.0, 2.0, TimerEvent::Timeout(2));
        t.add(0.5, 2.0, TimerEvent::Wake(3));
        t.add(1.0, 2.0, TimerEvent::Wake(4));
        let order: Vec<_> = std::iter::from_fn(|| t.pop_due(2.0)).collect();
        assert_eq!(
            order,
            [
                TimerEvent::Wake(3),
                TimerEvent::Wake(4),
                TimerEvent::Timeout(2),
                TimerEvent::Wake(1),
                TimerEvent::LatencyDone(TransferId(9)),
            ]
        );
    }
}
