//! Progressive filling on one connected component.
//!
//! The component is gathered by a breadth-first search from a dirty
//! resource. Fair levels of its resources sit in a heap (stale entries are
//! skipped by version), bounded actions in a list sorted by bound in level
//! units; each step fixes either the action with the lowest bound or every
//! unfixed action of the resource with the lowest level. Each resource is
//! closed once and each fixed action pushes one level per resource it
//! uses, so a solve costs O(uses * log) rather than O(steps * actions).
//!
//! # Partial re-solves
//!
//! Progressive filling fixes actions in increasing order of level (a
//! resource's fair level only grows as actions on it are fixed at lower
//! levels, and bounds are taken in order), so the fixes made before a
//! level is reached depend only on what was fixed before. Up to rounding:
//! two resources of nearly one level may fix in either order, and a
//! resource left below its precision floor fixes its last actions at 0
//! after others were fixed higher. So each fix records its *key*, the
//! highest level fixed so far in its filling (`Element::key`): keys follow
//! the order of the fixes, and the actions whose key is below a level are
//! a prefix of the filling. A change leaves that prefix as it was:
//!
//! - a removed action was fixed with key k, and no resource it used was
//!   picked before it (it would have fixed it): without it their levels
//!   are higher, the fixes before it stand (`Resource::removed_key`);
//! - a new action adds its weight to its resources, which lowers their
//!   fair levels: replaying the last filling on one of them (its actions
//!   fixed in order of their keys, the new weights added) gives the first
//!   point at which it would now be picked, and the fixes keyed below its
//!   level there stand (`first_crossing`; taken a little lower, against
//!   rounding).
//!
//! So with L the lowest of these marks over every changed resource, the
//! actions keyed below L keep their rates ("standing"), their share of each
//! resource is taken off its capacity (level times weight), and the
//! filling restarts on the others, its keys starting from L. It restarts
//! only where the changed resources reach through actions that do not
//! stand: an action reached by no such path solves a sub-problem that did
//! not change. A change that gives no such mark (a new bound, a dissolved
//! group's members) solves in full. The result is the allocation a full
//! solve gives, in another order of additions: equal within rounding, not
//! bit for bit, hence [`crate::DEFAULT_PARTIAL`]. Where completions come
//! from the top (the fastest flows of equal sizes end first, and their
//! level is the highest), a completion re-solves a few levels instead of
//! the component.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::System;

/// How much lower than computed the level at which new actions can first
/// move a resource's solution is taken, relative to that level plus the
/// resource's whole capacity over the usage there (the remaining capacity
/// it divides is a difference of terms as large as the capacity, so its
/// rounding is relative to the capacity, not to what remains): far above
/// that rounding, far below what any comparison to SimGrid sees.
const CROSSING_MARGIN: f64 = 1e-9;

/// A sum kept with its rounding error (Neumaier): remaining capacities and
/// usages lose many terms, and the naive difference of large sums would
/// give the last actions of a resource a visibly wrong level.
#[derive(Clone, Copy, Default)]
pub(crate) struct Sum {
    high: f64,
    low: f64,
}

impl Sum {
    pub(crate) fn new(value: f64) -> Self {
        Self {
            high: value,
            low: 0.0,
        }
    }

    pub(crate) fn add(&mut self, x: f64) {
        let t = self.high + x;
        if self.high.abs() >= x.abs() {
            self.low += (self.high - t) + x;
        } else {
            self.low += (x - t) + self.high;
        }
        self.high = t;
    }

    pub(crate) fn value(self) -> f64 {
        self.high + self.low
    }
}

/// A resource's fair level when it was last changed.
struct Level {
    level: f64,
    local: u32,
    version: u32,
}

impl PartialEq for Level {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Level {}
impl PartialOrd for Level {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Level {
    /// Reversed so that the max-heap pops the lowest level, then the
    /// resource found first (deterministic ties).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .level
            .total_cmp(&self.level)
            .then_with(|| other.local.cmp(&self.local))
    }
}

/// Per-solve working memory, kept between solves to avoid allocations.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The component's resources (global index by local index) and their
    /// state during the filling.
    pub(crate) resources: Vec<u32>,
    remaining: Vec<Sum>,
    usage: Vec<Sum>,
    /// Remaining capacity at or below which a resource is saturated.
    floor: Vec<f64>,
    unfixed: Vec<u32>,
    version: Vec<u32>,
    closed: Vec<bool>,
    /// The component's actions (global index by local index), their
    /// rates (NaN until fixed) and the levels they were fixed at.
    pub(crate) actions: Vec<u32>,
    rates: Vec<f64>,
    fixed_levels: Vec<f64>,
    /// Their keys (see `Element::key`), and the highest level fixed so
    /// far, which the next fix's key is.
    keys: Vec<f64>,
    fill: f64,
    /// A resource's actions of known level, (key, level, weight): the
    /// crossing search of a resource that new actions use.
    known: Vec<(f64, f64, f64)>,
    /// (bound * penalty, local action), ascending.
    bounds: Vec<(f64, u32)>,
    /// Resources whose level changed during a batch of fixes, and whether
    /// each is in that list.
    touched: Vec<u32>,
    marked: Vec<bool>,
    levels: BinaryHeap<Level>,
    /// Actions of the component not fixed yet.
    unfixed_actions: usize,
    /// Actions fixed at their bound, resources that fixed actions, and
    /// the last of those (local index, level): a component fixed by one
    /// resource alone may become a group.
    bound_fixes: usize,
    fixing_resources: usize,
    last_fixing: (usize, f64),
}

impl Scratch {
    fn clear(&mut self) {
        self.resources.clear();
        self.remaining.clear();
        self.usage.clear();
        self.floor.clear();
        self.unfixed.clear();
        self.version.clear();
        self.closed.clear();
        self.actions.clear();
        self.rates.clear();
        self.fixed_levels.clear();
        self.keys.clear();
        self.bounds.clear();
        self.touched.clear();
        self.marked.clear();
        self.levels.clear();
        self.bound_fixes = 0;
        self.fixing_resources = 0;
    }

    fn level(&self, l: usize) -> f64 {
        let remaining = self.remaining[l].value();
        if remaining <= self.floor[l] {
            0.0
        } else {
            // Compensated sums of positive terms stay positive; the guard
            // only keeps a denormal underflow from dividing by zero.
            remaining / self.usage[l].value().max(f64::MIN_POSITIVE)
        }
    }

    /// Pushes the new level of every resource in `touched` (its older
    /// entries become stale) and empties the list.
    fn push_touched(&mut self) {
        for k in 0..self.touched.len() {
            let l = self.touched[k] as usize;
            self.marked[l] = false;
            if !self.closed[l] {
                self.version[l] += 1;
                self.push_level(l);
            }
        }
        self.touched.clear();
    }

    fn push_level(&mut self, l: usize) {
        self.levels.push(Level {
            level: self.level(l),
            local: l as u32,
            version: self.version[l],
        });
    }
}

impl System {
    /// The level below which the last solution stands after the changes
    /// since (dirty resources' marks), when `partial`; minus infinity (all
    /// is solved again) otherwise. Clears the marks either way.
    pub(crate) fn lowest_changed_level(&mut self, partial: bool) -> f64 {
        let mut lowest = f64::INFINITY;
        for k in 0..self.dirty.len() {
            let r = self.dirty[k];
            let res = &mut self.resources[r as usize];
            lowest = lowest.min(res.removed_key);
            res.removed_key = f64::INFINITY;
            let fresh = std::mem::take(&mut res.fresh);
            if partial && fresh {
                lowest = lowest.min(self.first_crossing(r));
            }
        }
        if partial {
            lowest
        } else {
            f64::NEG_INFINITY
        }
    }

    /// The lowest level at which resource `r` can close now that new
    /// actions use it, below which the last solution stands for it: the
    /// progressive filling of the last solution replayed on `r` alone
    /// (its actions fixed in order of their levels), with the new
    /// actions' weights added to its usage, until its fair level falls to
    /// the level being reached. Slightly lowered, so that rounding never
    /// leaves standing an action the new ones can move.
    fn first_crossing(&mut self, r: u32) -> f64 {
        let res = &self.resources[r as usize];
        let mut known = std::mem::take(&mut self.scratch.known);
        known.clear();
        let mut usage = Sum::default();
        let mut new = false;
        for e in &res.elements {
            if e.level.is_nan() {
                new = true;
            } else {
                known.push((e.key, e.level, e.weight));
            }
            usage.add(e.weight);
        }
        let mut crossing = f64::INFINITY;
        if new {
            known.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
            let floor = res.capacity * self.precision.maxmin;
            let mut remaining = Sum::new(res.capacity);
            let capacity = res.capacity;
            // The fair level, lowered by the margin.
            let fair = |remaining: Sum, usage: Sum| {
                let left = remaining.value();
                let usage = usage.value().max(f64::MIN_POSITIVE);
                if left <= floor {
                    0.0
                } else {
                    let fair = left / usage;
                    fair - CROSSING_MARGIN * (fair + capacity / usage)
                }
            };
            crossing = known
                .iter()
                .find_map(|&(key, level, weight)| {
                    let fair = fair(remaining, usage);
                    remaining.add(-level * weight);
                    usage.add(-weight);
                    (fair <= key).then_some(fair)
                })
                .unwrap_or_else(|| fair(remaining, usage));
        }
        self.scratch.known = known;
        crossing
    }

    /// Re-solves the component of resource `r0` and reschedules the actions
    /// whose rate changed. Actions fixed below `fixed_below` keep their
    /// rates and are left out (see "Partial re-solves"): the component is
    /// then what `r0` reaches through the others.
    pub(crate) fn solve_component(&mut self, r0: u32, fixed_below: f64) {
        if let Some(a) = self.lone_action(r0) {
            self.solve_lone(a);
            return;
        }
        self.epoch += 1;
        let epoch = self.epoch;
        let sc = &mut self.scratch;
        sc.clear();

        // Gather the component, and each resource's capacity, usage and
        // actions to fix as it is reached: what standing actions take of
        // it (level times weight is their rate times coefficient) is no
        // longer there.
        let maxmin = self.precision.maxmin;
        let first = &mut self.resources[r0 as usize];
        first.epoch = epoch;
        first.local = 0;
        sc.resources.push(r0);
        let mut standing = false;
        let mut k = 0;
        while k < sc.resources.len() {
            let r = sc.resources[k] as usize;
            k += 1;
            let capacity = self.resources[r].capacity;
            self.resources[r].dirty = false;
            let mut remaining = Sum::new(capacity);
            let mut usage = Sum::default();
            let mut unfixed = 0;
            for e in 0..self.resources[r].elements.len() {
                let element = self.resources[r].elements[e];
                if element.key < fixed_below {
                    remaining.add(-element.level * element.weight);
                    standing = true;
                    continue;
                }
                usage.add(element.weight);
                unfixed += 1;
                let a = element.action;
                let act = self.slots[a as usize]
                    .action
                    .as_mut()
                    .expect("an element's action is live");
                if act.epoch == epoch {
                    continue;
                }
                act.epoch = epoch;
                act.local = sc.actions.len() as u32;
                sc.actions.push(a);
                for u in &act.uses {
                    let res = &mut self.resources[u.resource as usize];
                    if res.epoch != epoch {
                        res.epoch = epoch;
                        res.local = sc.resources.len() as u32;
                        sc.resources.push(u.resource);
                    }
                }
            }
            sc.remaining.push(remaining);
            sc.usage.push(usage);
            sc.floor.push(capacity * maxmin);
            sc.unfixed.push(unfixed);
            sc.version.push(0);
            sc.closed.push(false);
            sc.marked.push(false);
        }
        if sc.actions.is_empty() {
            return;
        }

        // Initial levels and bounds.
        // One heap built at once (linear) rather than a push per resource.
        let mut levels = std::mem::take(&mut sc.levels).into_vec();
        levels.extend((0..sc.resources.len()).map(|l| Level {
            level: sc.level(l),
            local: l as u32,
            version: 0,
        }));
        sc.levels = BinaryHeap::from(levels);
        sc.unfixed_actions = sc.actions.len();
        for (i, &a) in sc.actions.iter().enumerate() {
            let act = self.slots[a as usize]
                .action
                .as_ref()
                .expect("a component's action is live");
            sc.rates.push(f64::NAN);
            sc.fixed_levels.push(f64::NAN);
            sc.keys.push(f64::NAN);
            if act.bound.is_finite() {
                sc.bounds.push((act.bound * act.penalty, i as u32));
            }
        }
        sc.bounds
            .sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));

        // Progressive filling, after the standing prefix of the last one.
        sc.fill = if fixed_below.is_finite() {
            fixed_below
        } else {
            f64::NEG_INFINITY
        };
        let mut next_bound = 0;
        loop {
            let sc = &mut self.scratch;
            // The resources left only close: nothing more to fix.
            if sc.unfixed_actions == 0 {
                break;
            }
            while next_bound < sc.bounds.len()
                && !sc.rates[sc.bounds[next_bound].1 as usize].is_nan()
            {
                next_bound += 1;
            }
            while sc.levels.peek().is_some_and(|top| {
                let l = top.local as usize;
                sc.closed[l] || top.version != sc.version[l]
            }) {
                sc.levels.pop();
            }
            let level = sc.levels.peek().map_or(f64::INFINITY, |top| top.level);
            match sc.bounds.get(next_bound) {
                // SimGrid fixes a bound first when it is below the level; at
                // equality both give the same rate, and the bound is exact.
                Some(&(b, i)) if b <= level => {
                    next_bound += 1;
                    sc.bound_fixes += 1;
                    let i = i as usize;
                    let bound = self.slots[sc.actions[i] as usize]
                        .action
                        .as_ref()
                        .expect("a component's action is live")
                        .bound;
                    self.fix(i, bound, b);
                }
                _ => {
                    let Some(top) = sc.levels.pop() else {
                        break;
                    };
                    let l = top.local as usize;
                    sc.closed[l] = true;
                    let r = sc.resources[l] as usize;
                    let unfixed = sc.unfixed_actions;
                    for e in 0..self.resources[r].elements.len() {
                        let element = self.resources[r].elements[e];
                        // Standing actions stay fixed; the gather visited
                        // every other action of a resource it reached.
                        if element.key < fixed_below {
                            continue;
                        }
                        let act = self.slots[element.action as usize]
                            .action
                            .as_ref()
                            .expect("an element's action is live");
                        debug_assert_eq!(act.epoch, epoch, "an action the gather missed");
                        let i = act.local as usize;
                        if self.scratch.rates[i].is_nan() {
                            let rate = top.level / act.penalty;
                            self.fix_quietly(i, rate, top.level);
                        }
                    }
                    if self.scratch.unfixed_actions < unfixed {
                        self.scratch.fixing_resources += 1;
                        self.scratch.last_fixing = (l, top.level);
                    }
                    // One new level per resource these fixes changed,
                    // rather than one per fix: the intermediate ones would
                    // all be stale before the next pop.
                    self.scratch.push_touched();
                }
            }
        }

        let sc = &self.scratch;
        let (l, level) = sc.last_fixing;
        if self.grouping.is_some_and(|min| sc.actions.len() >= min)
            && !standing
            && sc.bound_fixes == 0
            && sc.fixing_resources == 1
            && level > 0.0
            && level.is_finite()
        {
            self.make_group(l, level);
            return;
        }

        // New rates: an action whose rate did not change keeps its date.
        for i in 0..self.scratch.actions.len() {
            let a = self.scratch.actions[i];
            let rate = self.scratch.rates[i];
            debug_assert!(!rate.is_nan(), "progressive filling left an action unfixed");
            self.set_level(a, self.scratch.fixed_levels[i], self.scratch.keys[i]);
            let act = self.slots[a as usize]
                .action
                .as_ref()
                .expect("a component's action is live");
            if !act.rated || act.rate != rate {
                self.set_rate(a, rate);
            }
        }
    }

    /// The action alone in the component of resource `r0` (alone on every
    /// resource it uses), if it is: a message on links nothing else
    /// crosses, as most messages of a latency-bound program are.
    fn lone_action(&self, r0: u32) -> Option<u32> {
        let [e] = self.resources[r0 as usize].elements.as_slice() else {
            return None;
        };
        let act = self.slots[e.action as usize].action.as_ref()?;
        act.uses
            .iter()
            .all(|u| self.resources[u.resource as usize].elements.len() == 1)
            .then_some(e.action)
    }

    /// Solves the component of action `a` alone: what progressive filling
    /// gives, in the same arithmetic (so the same bits), without gathering
    /// the component, building heaps or sorting: the lowest level of its
    /// resources (capacity over its weight, 0 when saturated), or its
    /// bound when that is lower in level units.
    pub(crate) fn solve_lone(&mut self, a: u32) {
        let maxmin = self.precision.maxmin;
        let act = self.slots[a as usize]
            .action
            .as_ref()
            .expect("a lone action is live");
        let mut level = f64::INFINITY;
        for u in &act.uses {
            let res = &mut self.resources[u.resource as usize];
            res.dirty = false;
            let l = if res.capacity <= res.capacity * maxmin {
                0.0
            } else {
                res.capacity / u.weight.max(f64::MIN_POSITIVE)
            };
            level = level.min(l);
        }
        let (rate, level) = if act.bound.is_finite() && act.bound * act.penalty <= level {
            (act.bound, act.bound * act.penalty)
        } else {
            (level / act.penalty, level)
        };
        let changed = !act.rated || act.rate != rate;
        self.set_level(a, level, level);
        if changed {
            self.set_rate(a, rate);
        }
    }

    /// Fixes local action `i` at `rate` and updates the resources it uses,
    /// recording those whose level changed in `touched` for the caller to
    /// push once.
    fn fix_quietly(&mut self, i: usize, rate: f64, level: f64) {
        let sc = &mut self.scratch;
        debug_assert!(sc.rates[i].is_nan(), "an action fixed twice");
        sc.rates[i] = rate;
        sc.fixed_levels[i] = level;
        sc.fill = sc.fill.max(level);
        sc.keys[i] = sc.fill;
        sc.unfixed_actions -= 1;
        let act = self.slots[sc.actions[i] as usize]
            .action
            .as_ref()
            .expect("a component's action is live");
        for u in &act.uses {
            let l = self.resources[u.resource as usize].local as usize;
            if sc.closed[l] {
                continue;
            }
            sc.unfixed[l] -= 1;
            if sc.unfixed[l] == 0 {
                sc.closed[l] = true;
                continue;
            }
            sc.remaining[l].add(-rate * u.coef);
            sc.usage[l].add(-u.weight);
            if !sc.marked[l] {
                sc.marked[l] = true;
                sc.touched.push(l as u32);
            }
        }
    }

    /// Fixes local action `i` at `rate` and updates the resources it uses.
    fn fix(&mut self, i: usize, rate: f64, level: f64) {
        self.fix_quietly(i, rate, level);
        self.scratch.push_touched();
    }
}
