//! A max-min fluid model: resources with capacities, actions that consume
//! them, and the rates max-min fairness gives each action.
//!
//! This crate knows nothing of MPI, ranks or platforms. The emulator makes
//! one resource per link (or link half) and per host CPU, one action per
//! message or computation, and asks [`System::next_completion`] when the
//! next action ends.
//!
//! # Model
//!
//! Max-min fairness by progressive filling, with SimGrid's lmm semantics:
//! on a SHARED resource of remaining capacity C whose unfixed actions have
//! consumption coefficients c_i and sharing penalties p_i, the fair level
//! is C / sum(c_i / p_i); the resource with the lowest level is the
//! bottleneck and each of its actions gets rate level / p_i. An action
//! whose bound is lower than that is fixed at its bound first. A FATPIPE
//! resource does not share: it only bounds each action by capacity / c.
//!
//! # Incrementality
//!
//! Starting, cancelling or completing an action marks the resources it
//! uses dirty; only the connected components (actions linked through the
//! SHARED resources they use) that contain a dirty resource are solved
//! again. Remaining amounts are kept lazily (amount left at the date of
//! the last rate change), and completion dates sit in a heap whose stale
//! entries are skipped: an action whose rate did not change keeps its date,
//! so dates do not drift over millions of events.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A resource (a link, a link half, a CPU).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u32);

/// An action (a flow or a computation); stale ids are detected.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionId {
    index: u32,
    generation: u32,
}

/// How a resource shares its capacity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Max-min sharing among the actions using it.
    Shared,
    /// No sharing: each action is bounded by the capacity on its own.
    FatPipe,
}

/// Numerical tolerances (SimGrid's option names in the emulator).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Precision {
    /// precision/timing, in seconds.
    pub timing: f64,
    /// precision/work-amount.
    pub work: f64,
    /// precision/maxmin: relative tolerance when comparing fair levels.
    pub maxmin: f64,
}

impl Default for Precision {
    fn default() -> Self {
        Self {
            timing: 1e-9,
            work: 1e-5,
            maxmin: 1e-5,
        }
    }
}

/// What an action is.
#[derive(Debug, Clone, Copy)]
pub struct ActionSpec<'a> {
    /// Work to do (bytes, flops). Zero completes at the next advance.
    pub amount: f64,
    /// Sharing penalty (> 0): on a bottleneck, rates are proportional to
    /// 1 / penalty.
    pub penalty: f64,
    /// Maximum rate, if any.
    pub bound: Option<f64>,
    /// Resources used, each with its consumption coefficient (the action
    /// consumes rate * coefficient of the capacity). A resource listed
    /// twice counts twice.
    pub uses: &'a [(ResourceId, f64)],
}

struct Resource {
    capacity: f64,
    sharing: Sharing,
    /// Actions using this resource (SHARED resources only).
    actions: Vec<u32>,
    dirty: bool,
    /// Component search: the search that last visited it, and its index
    /// in that search's resource list.
    mark: u64,
    position: usize,
}

struct Action {
    generation: u32,
    /// Work left at date `updated`.
    remaining: f64,
    updated: f64,
    rate: f64,
    has_rate: bool,
    penalty: f64,
    /// The action's own bound combined with its FATPIPE resources.
    bound: f64,
    /// SHARED resources used, with coefficients.
    uses: Vec<(u32, f64)>,
    /// Start order, for deterministic completion order.
    seq: u64,
    /// Bumped at each rate change: older heap entries are stale.
    version: u32,
    mark: u64,
}

struct Entry {
    at: f64,
    seq: u64,
    index: u32,
    generation: u32,
    version: u32,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed: the max-heap pops the earliest date, then the oldest action.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// An action during a component solve: (penalty, bound, [(index of the
/// resource in the component, coefficient)]).
type LocalAction = (f64, f64, Vec<(usize, f64)>);

/// The fluid system: resources, actions, and the clock.
pub struct System {
    now: f64,
    resources: Vec<Resource>,
    actions: Vec<Option<Action>>,
    generations: Vec<u32>,
    free: Vec<u32>,
    dirty: Vec<u32>,
    /// Actions that use no SHARED resource and still need a rate.
    unshared: Vec<u32>,
    heap: BinaryHeap<Entry>,
    seq: u64,
    search: u64,
    live: usize,
    precision: Precision,
}

impl System {
    pub fn new(precision: Precision) -> Self {
        Self {
            now: 0.0,
            resources: Vec::new(),
            actions: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            dirty: Vec::new(),
            unshared: Vec::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            search: 0,
            live: 0,
            precision,
        }
    }

    pub fn add_resource(&mut self, capacity: f64, sharing: Sharing) -> ResourceId {
        self.resources.push(Resource {
            capacity,
            sharing,
            actions: Vec::new(),
            dirty: false,
            mark: 0,
            position: 0,
        });
        ResourceId(self.resources.len() as u32 - 1)
    }

    /// The current date.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Number of actions not yet completed or cancelled.
    pub fn active_actions(&self) -> usize {
        self.live
    }

    fn touch(&mut self, r: u32) {
        let res = &mut self.resources[r as usize];
        if !res.dirty {
            res.dirty = true;
            self.dirty.push(r);
        }
    }

    /// Starts an action at the current date.
    pub fn start(&mut self, spec: &ActionSpec<'_>) -> ActionId {
        assert!(spec.penalty > 0.0, "an action's penalty must be positive");
        self.seq += 1;
        let mut bound = spec.bound.unwrap_or(f64::INFINITY);
        let mut uses: Vec<(u32, f64)> = Vec::with_capacity(spec.uses.len());
        for &(r, c) in spec.uses {
            if c <= 0.0 {
                continue;
            }
            let res = &self.resources[r.0 as usize];
            match res.sharing {
                Sharing::FatPipe => bound = bound.min(res.capacity / c),
                Sharing::Shared => match uses.iter_mut().find(|u| u.0 == r.0) {
                    Some(u) => u.1 += c,
                    None => uses.push((r.0, c)),
                },
            }
        }
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.actions.push(None);
                self.generations.push(0);
                self.actions.len() as u32 - 1
            }
        };
        let generation = self.generations[index as usize];
        for &(r, _) in &uses {
            self.resources[r as usize].actions.push(index);
            self.touch(r);
        }
        if uses.is_empty() {
            self.unshared.push(index);
        }
        self.actions[index as usize] = Some(Action {
            generation,
            remaining: spec.amount.max(0.0),
            updated: self.now,
            rate: 0.0,
            has_rate: false,
            penalty: spec.penalty,
            bound,
            uses,
            seq: self.seq,
            version: 0,
            mark: 0,
        });
        self.live += 1;
        ActionId { index, generation }
    }

    fn live_action(&self, id: ActionId) -> Option<&Action> {
        self.actions
            .get(id.index as usize)
            .and_then(Option::as_ref)
            .filter(|a| a.generation == id.generation)
    }

    fn remove(&mut self, index: u32) {
        let Some(a) = self.actions[index as usize].take() else {
            return;
        };
        for &(r, _) in &a.uses {
            let list = &mut self.resources[r as usize].actions;
            if let Some(p) = list.iter().position(|&x| x == index) {
                list.swap_remove(p);
            }
            self.touch(r);
        }
        self.generations[index as usize] = self.generations[index as usize].wrapping_add(1);
        self.free.push(index);
        self.live -= 1;
    }

    /// Removes an action before it completes; its share goes to others.
    pub fn cancel(&mut self, id: ActionId) {
        if self.live_action(id).is_some() {
            self.remove(id.index);
        }
    }

    /// Gives action `index` a new rate from now on and schedules its end.
    fn set_rate(&mut self, index: u32, rate: f64) {
        let now = self.now;
        let a = self.actions[index as usize].as_mut().expect("live action");
        a.remaining = (a.remaining - a.rate * (now - a.updated)).max(0.0);
        a.updated = now;
        a.rate = rate;
        a.has_rate = true;
        a.version = a.version.wrapping_add(1);
        let at = if a.remaining <= 0.0 {
            now
        } else if rate > 0.0 {
            now + a.remaining / rate
        } else {
            f64::INFINITY
        };
        if at.is_finite() {
            self.heap.push(Entry {
                at,
                seq: a.seq,
                index,
                generation: a.generation,
                version: a.version,
            });
        }
    }

    /// Re-solves every component that changed.
    fn solve(&mut self) {
        for i in std::mem::take(&mut self.unshared) {
            if let Some(a) = self.actions[i as usize].as_ref() {
                let rate = a.bound;
                self.set_rate(i, rate);
            }
        }
        while let Some(r0) = self.dirty.pop() {
            if self.resources[r0 as usize].dirty {
                self.solve_component(r0);
            }
        }
    }

    /// Progressive filling on the connected component of resource `r0`.
    fn solve_component(&mut self, r0: u32) {
        self.search += 1;
        let mark = self.search;
        let mut res_list: Vec<u32> = vec![r0];
        let mut act_list: Vec<u32> = Vec::new();
        self.resources[r0 as usize].mark = mark;
        self.resources[r0 as usize].position = 0;
        let mut k = 0;
        while k < res_list.len() {
            let r = res_list[k] as usize;
            k += 1;
            self.resources[r].dirty = false;
            for j in 0..self.resources[r].actions.len() {
                let a = self.resources[r].actions[j];
                let act = self.actions[a as usize]
                    .as_mut()
                    .expect("action on a resource is live");
                if act.mark == mark {
                    continue;
                }
                act.mark = mark;
                act_list.push(a);
                for u in 0..act.uses.len() {
                    let ur = act.uses[u].0 as usize;
                    let res = &mut self.resources[ur];
                    if res.mark != mark {
                        res.mark = mark;
                        res.position = res_list.len();
                        res_list.push(ur as u32);
                    }
                }
            }
        }
        let mut cap: Vec<f64> = res_list
            .iter()
            .map(|&r| self.resources[r as usize].capacity)
            .collect();
        let mut weight = vec![0.0f64; res_list.len()];
        // Unfixed actions per resource: a resource with none left no longer
        // constrains anything, whatever rounding left in its weight.
        let mut unfixed = vec![0usize; res_list.len()];
        let mut local: Vec<LocalAction> = Vec::with_capacity(act_list.len());
        for &a in &act_list {
            let act = self.actions[a as usize].as_ref().expect("live action");
            let uses: Vec<(usize, f64)> = act
                .uses
                .iter()
                .map(|&(r, c)| (self.resources[r as usize].position, c))
                .collect();
            for &(ri, c) in &uses {
                weight[ri] += c / act.penalty;
                unfixed[ri] += 1;
            }
            local.push((act.penalty, act.bound, uses));
        }
        let tolerance = 1.0 + self.precision.maxmin.min(1e-9);
        let mut rate: Vec<Option<f64>> = vec![None; act_list.len()];
        let mut left = act_list.len();
        while left > 0 {
            let mut level = f64::INFINITY;
            for ri in 0..res_list.len() {
                if unfixed[ri] > 0 {
                    level = level.min(cap[ri].max(0.0) / weight[ri]);
                }
            }
            let bound_level = (0..act_list.len())
                .filter(|&i| rate[i].is_none())
                .map(|i| local[i].1 * local[i].0)
                .fold(f64::INFINITY, f64::min);
            let mut fixed: Vec<(usize, f64)> = Vec::new();
            if bound_level <= level {
                for i in 0..act_list.len() {
                    if rate[i].is_none() && local[i].1 * local[i].0 <= bound_level {
                        fixed.push((i, local[i].1));
                    }
                }
            } else {
                let saturated: Vec<bool> = (0..res_list.len())
                    .map(|ri| unfixed[ri] > 0 && cap[ri].max(0.0) / weight[ri] <= level * tolerance)
                    .collect();
                for i in 0..act_list.len() {
                    if rate[i].is_none() && local[i].2.iter().any(|&(ri, _)| saturated[ri]) {
                        fixed.push((i, level / local[i].0));
                    }
                }
            }
            if fixed.is_empty() {
                break;
            }
            for (i, r) in fixed {
                rate[i] = Some(r);
                left -= 1;
                let p = local[i].0;
                for &(ri, c) in &local[i].2 {
                    cap[ri] -= r * c;
                    weight[ri] -= c / p;
                    unfixed[ri] -= 1;
                }
            }
        }
        for (i, &a) in act_list.iter().enumerate() {
            let r = rate[i].unwrap_or(0.0);
            let act = self.actions[a as usize].as_ref().expect("live action");
            // An unchanged rate keeps its completion date: no drift.
            if !act.has_rate || act.rate != r {
                self.set_rate(a, r);
            }
        }
    }

    fn valid(&self, e: &Entry) -> bool {
        matches!(self.actions[e.index as usize].as_ref(),
            Some(a) if a.generation == e.generation && a.version == e.version)
    }

    /// The date of the earliest completion, if any action can complete.
    pub fn next_completion(&mut self) -> Option<f64> {
        self.solve();
        while let Some(top) = self.heap.peek() {
            if self.valid(top) {
                return Some(top.at);
            }
            self.heap.pop();
        }
        None
    }

    /// Moves the clock to `to` (no later than [`Self::next_completion`],
    /// or any date when nothing runs) and appends the actions completed by
    /// then to `done`, in start order.
    pub fn advance(&mut self, to: f64, done: &mut Vec<ActionId>) {
        self.solve();
        let mut finished: Vec<(u64, u32, u32)> = Vec::new();
        while let Some(top) = self.heap.peek() {
            if top.at > to {
                break;
            }
            let e = self.heap.pop().expect("peeked entry");
            if self.valid(&e) {
                finished.push((e.seq, e.index, e.generation));
            }
        }
        self.now = self.now.max(to);
        finished.sort_unstable();
        for (_, index, generation) in finished {
            self.remove(index);
            done.push(ActionId { index, generation });
        }
    }

    /// The action's current rate (0 once it is gone).
    pub fn rate(&mut self, id: ActionId) -> f64 {
        self.solve();
        self.live_action(id).map_or(0.0, |a| a.rate)
    }

    /// The action's remaining work at the current date (0 once it is gone).
    pub fn remaining(&mut self, id: ActionId) -> f64 {
        self.solve();
        let now = self.now;
        self.live_action(id)
            .map_or(0.0, |a| (a.remaining - a.rate * (now - a.updated)).max(0.0))
    }
}

#[cfg(test)]
mod tests;
