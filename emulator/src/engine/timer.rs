//! The timer queue: events at dates, popped earliest first and, at equal
//! dates, in the order they were added.

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

struct Timer {
    at: f64,
    seq: u64,
    event: TimerEvent,
}

impl PartialEq for Timer {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Timer {}
impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timer {
    /// Reversed, so that the max-heap pops the earliest (then oldest) timer.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Timers in date order, ties broken by insertion order.
#[derive(Default)]
pub struct Timers {
    heap: BinaryHeap<Timer>,
    seq: u64,
    /// Timers cancelled but still in the heap: dropped when they reach
    /// its top, so that a cancelled timer never moves the clock.
    cancelled: FxHashSet<u64>,
}

impl Timers {
    /// Adds a timer; its number, for [`Timers::cancel`].
    pub fn add(&mut self, at: f64, event: TimerEvent) -> u64 {
        self.seq += 1;
        self.heap.push(Timer {
            at,
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
        self.heap.peek().map(|t| t.at)
    }

    /// Removes and returns the earliest timer if it is due at `t`.
    pub fn pop_due(&mut self, t: f64) -> Option<TimerEvent> {
        self.drop_cancelled();
        if self.heap.peek().is_some_and(|top| top.at <= t) {
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
    fn timers_pop_by_date_then_insertion_order() {
        let mut t = Timers::default();
        t.add(2.0, TimerEvent::Wake(0));
        t.add(1.0, TimerEvent::Wake(1));
        t.add(1.0, TimerEvent::Wake(2));
        t.add(3.0, TimerEvent::Wake(3));
        assert_eq!(t.next(), Some(1.0));
        assert_eq!(t.pop_due(0.5), None);
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::Wake(1)));
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::Wake(2)));
        assert_eq!(t.pop_due(2.0), Some(TimerEvent::Wake(0)));
        assert_eq!(t.pop_due(2.0), None);
        assert_eq!(t.next(), Some(3.0));
    }

    #[test]
    fn a_cancelled_timer_neither_fires_nor_dates_the_next_event() {
        let mut t = Timers::default();
        let early = t.add(1.0, TimerEvent::Timeout(0));
        t.add(2.0, TimerEvent::Wake(1));
        t.cancel(early);
        assert_eq!(t.next(), Some(2.0));
        assert_eq!(t.pop_due(5.0), Some(TimerEvent::Wake(1)));
        assert_eq!(t.pop_due(5.0), None);
    }
}
