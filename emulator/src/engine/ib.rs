//! SimGrid 3.32's InfiniBand contention model (`network/model:IB`, Jérôme
//! Vienne's): SMPI's model, plus a bound on each transfer that depends on
//! how many messages its source sends and its destination receives.
//!
//! Per host (a node), the transfers it sends and, per sender, how many it
//! receives. When a transfer between two hosts starts or arrives, the
//! nodes reachable from its source through the transfers in flight (to
//! their destinations and back to their senders) are visited once each,
//! and each transfer a visited node sends gets the bound
//! `initial / max(inbound penalty, largest outbound penalty of its
//! source)`, where `initial` is its bound when it started (SMPI's: the
//! route's smallest bandwidth, and TCP-gamma over twice the route
//! latency). With `Be;Bs;ys` the factors of `smpi/IB-penalty-factors`:
//!
//! - outbound, for each transfer of a node sending `n > 1`: `n * Bs`,
//!   times `ys` when its destination receives more than 2; 1 for `n = 1`;
//! - inbound, for a transfer to a destination receiving more than one:
//!   (the transfers it receives from this source) * `Be` * (the number of
//!   hosts sending to it); 1 otherwise.
//!
//! As in SimGrid: a transfer counts from its start (its latency phase
//! included) to its arrival; transfers within one host are left out; the
//! visit starts at the source of the transfer that started or arrived, so
//! an arrival leaves the bounds of transfers no longer reachable from its
//! source as they were; a bound that would move by less than
//! `precision/timing` is left alone.

use std::collections::BTreeMap;

use platforms::HostId;
use tracing::debug;

use super::net::TransferId;
use super::netmodel::IbFactors;
use crate::log::NETWORK;

/// A transfer in flight, seen from its source.
struct Comm {
    transfer: TransferId,
    dst: u32,
    /// Its bound when it started.
    initial: f64,
    /// Its bound now.
    bound: f64,
}

#[derive(Default)]
struct Node {
    /// The transfers it sends, in start order.
    up: Vec<Comm>,
    /// Per sending host, the transfers it receives from that host.
    down: BTreeMap<u32, u32>,
    /// The transfers it receives.
    receiving: u32,
    /// The visit that last reached it.
    visited: u64,
}

/// The IB model's state: one node per host.
pub(super) struct Ib {
    factors: IbFactors,
    /// A bound change smaller than this is not made (SimGrid's
    /// `double_equals` at `surf/precision`).
    precision: f64,
    nodes: Vec<Node>,
    visit: u64,
    stack: Vec<u32>,
}

impl Ib {
    pub fn new(factors: IbFactors, precision: f64, hosts: usize) -> Self {
        Self {
            factors,
            precision,
            nodes: (0..hosts).map(|_| Node::default()).collect(),
            visit: 0,
            stack: Vec::new(),
        }
    }

    /// Transfer `transfer` from `src` to `dst`, of bound `initial`, starts;
    /// appends to `changed` the transfers whose bound changes (itself
    /// included), with their new bound.
    pub fn start(
        &mut self,
        transfer: TransferId,
        src: HostId,
        dst: HostId,
        initial: f64,
        changed: &mut Vec<(TransferId, f64)>,
    ) {
        if src == dst {
            return;
        }
        self.nodes[src.0 as usize].up.push(Comm {
            transfer,
            dst: dst.0,
            initial,
            bound: initial,
        });
        let to = &mut self.nodes[dst.0 as usize];
        *to.down.entry(src.0).or_insert(0) += 1;
        to.receiving += 1;
        self.update_from(src.0, changed);
    }

    /// Transfer `transfer` from `src` to `dst` arrives; appends to
    /// `changed` the transfers whose bound changes, with their new bound.
    pub fn arrive(
        &mut self,
        transfer: TransferId,
        src: HostId,
        dst: HostId,
        changed: &mut Vec<(TransferId, f64)>,
    ) {
        if src == dst {
            return;
        }
        let to = &mut self.nodes[dst.0 as usize];
        if let Some(n) = to.down.get_mut(&src.0) {
            *n -= 1;
            if *n == 0 {
                to.down.remove(&src.0);
            }
        }
        to.receiving = to.receiving.saturating_sub(1);
        let up = &mut self.nodes[src.0 as usize].up;
        if let Some(k) = up.iter().position(|c| c.transfer == transfer) {
            up.remove(k);
        }
        self.update_from(src.0, changed);
    }

    /// Visits every node reachable from `root` through the transfers in
    /// flight, depth first, and bounds what each sends.
    fn update_from(&mut self, root: u32, changed: &mut Vec<(TransferId, f64)>) {
        self.visit += 1;
        let visit = self.visit;
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        stack.push(root);
        while let Some(n) = stack.pop() {
            let node = &mut self.nodes[n as usize];
            if node.visited == visit {
                continue;
            }
            node.visited = visit;
            debug!(target: NETWORK, "IB: bounds of host {n}'s transfers");
            self.bound_sends(n, changed);
            // SimGrid recurses into the destinations, then the senders;
            // pushed in reverse, they are visited in that order.
            let node = &self.nodes[n as usize];
            for &s in node.down.keys().rev() {
                if self.nodes[s as usize].visited != visit {
                    stack.push(s);
                }
            }
            for c in node.up.iter().rev() {
                if self.nodes[c.dst as usize].visited != visit {
                    stack.push(c.dst);
                }
            }
        }
        self.stack = stack;
    }

    /// Bounds each transfer that node `n` sends (SimGrid's
    /// `compute_IB_factors`).
    fn bound_sends(&mut self, n: u32, changed: &mut Vec<(TransferId, f64)>) {
        let IbFactors { be, bs, ys } = self.factors;
        let sending = self.nodes[n as usize].up.len();
        let mut out = 0.0f64;
        for c in &self.nodes[n as usize].up {
            let mut penalty = 1.0;
            if sending != 1 {
                penalty = sending as f64 * bs;
                if self.nodes[c.dst as usize].receiving > 2 {
                    penalty *= ys;
                }
            }
            out = out.max(penalty);
        }
        for k in 0..sending {
            let c = &self.nodes[n as usize].up[k];
            let dst = &self.nodes[c.dst as usize];
            let mut inbound = 1.0;
            if dst.receiving != 1 {
                let from_here = dst.down.get(&n).copied().unwrap_or(0);
                inbound = f64::from(from_here) * be * dst.down.len() as f64;
            }
            let bound = c.initial / inbound.max(out);
            if (bound - c.bound).abs() >= self.precision {
                debug!(target: NETWORK, "IB: transfer {} from host {n} to host {}: bound {bound} B/s (was {}, initially {})",
                    c.transfer.0, c.dst, c.bound, c.initial);
                let c = &mut self.nodes[n as usize].up[k];
                c.bound = bound;
                changed.push((c.transfer, bound));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ib() -> Ib {
        Ib::new(IbFactors::parse(IbFactors::DEFAULT).unwrap(), 1e-9, 6)
    }

    #[test]
    fn penalties_follow_senders_and_receivers() {
        let mut ib = ib();
        let mut ch = Vec::new();
        // One transfer alone: no penalty.
        ib.start(TransferId(0), HostId(1), HostId(0), 100.0, &mut ch);
        assert!(ch.is_empty());
        // A second sender to host 0: each inbound penalty is 1 * Be * 2.
        ib.start(TransferId(1), HostId(2), HostId(0), 100.0, &mut ch);
        let two = 100.0 / (0.965 * 2.0);
        assert_eq!(ch, vec![(TransferId(1), two), (TransferId(0), two)]);
        ch.clear();
        // Host 2 also sends to host 3: outbound 2 * Bs for both of its
        // transfers; its transfer to 0 keeps the larger inbound penalty.
        ib.start(TransferId(2), HostId(2), HostId(3), 100.0, &mut ch);
        assert_eq!(ch, vec![(TransferId(2), 100.0 / (2.0 * 0.925))]);
        ch.clear();
        // A third sender to host 0 (which now receives 3): 3 * Be inbound,
        // and host 2's outbound penalty to 0 takes ys.
        ib.start(TransferId(3), HostId(4), HostId(0), 100.0, &mut ch);
        let three = 100.0 / (0.965 * 3.0);
        let out = 100.0 / (2.0 * 0.925 * 1.35);
        // Visited from host 4, then host 0's senders in order: host 2's
        // transfer to 0 keeps the larger, inbound, penalty.
        assert_eq!(
            ch,
            vec![
                (TransferId(3), three),
                (TransferId(0), three),
                (TransferId(1), three),
                (TransferId(2), out),
            ]
        );
        ch.clear();
        // Host 4's transfer arrives: the visit from host 4 finds nothing,
        // so the others keep their bounds (as in SimGrid).
        ib.arrive(TransferId(3), HostId(4), HostId(0), &mut ch);
        assert!(ch.is_empty());
        // So does host 1's.
        ib.arrive(TransferId(0), HostId(1), HostId(0), &mut ch);
        assert!(ch.is_empty());
        // Host 2's transfer to 3 arrives: its transfer to 0, alone on both
        // sides now, is unbounded again.
        ib.arrive(TransferId(2), HostId(2), HostId(3), &mut ch);
        assert_eq!(ch, vec![(TransferId(1), 100.0)]);
    }

    #[test]
    fn transfers_within_a_host_are_left_out() {
        let mut ib = ib();
        let mut ch = Vec::new();
        ib.start(TransferId(0), HostId(1), HostId(1), 100.0, &mut ch);
        ib.start(TransferId(1), HostId(1), HostId(2), 100.0, &mut ch);
        assert!(ch.is_empty());
        ib.arrive(TransferId(0), HostId(1), HostId(1), &mut ch);
        assert!(ch.is_empty());
    }
}
