//! The timer queue: events at dates, popped earliest first and, at equal
//! dates, in the order they were added.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::TransferId;

/// Something that happens at a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerEvent {
    /// Ends a sleep of the actor.
    Wake(usize),
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
}

impl Timers {
    pub fn add(&mut self, at: f64, event: TimerEvent) {
        self.seq += 1;
        self.heap.push(Timer {
            at,
            seq: self.seq,
            event,
        });
    }

    /// The date of the earliest timer.
    pub fn next(&self) -> Option<f64> {
        self.heap.peek().map(|t| t.at)
    }

    /// Removes and returns the earliest timer if it is due at `t`.
    pub fn pop_due(&mut self, t: f64) -> Option<TimerEvent> {
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
}
