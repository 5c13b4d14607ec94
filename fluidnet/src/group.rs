//! Groups: the actions of a big component that one resource fixes, kept
//! with a virtual clock so that a start or a completion costs O(log n)
//! instead of a solve of the whole component.
//!
//! When a full solve of a component of at least [`System::set_grouping`]'s
//! size ends with every action fixed by one resource r (one bottleneck, no
//! bound reached, level L > 0), its actions become a group: each runs at
//! L / penalty, so the work done since it joined is the integral of L
//! (the group's clock V) times factor / penalty, and it ends when V
//! reaches V at its join plus its remaining work times penalty / factor.
//! Those virtual ends sit in one heap per group, and only the earliest
//! has a date in the system's heap; a new level changes no action.
//!
//! A change keeps the group when progressive filling would still fix
//! every action by r alone: the new level C / W (W the sum of the
//! members' weights on r) must not exceed the level at which any other
//! resource of the group would saturate (its capacity over its members'
//! weights, in a second heap) nor any member's bound in level units (a
//! third heap). A new action joins when it uses r and only resources of
//! the group or unused ones. Anything else (a bound changed, an action
//! that links the group to other actions, a check that fails) dissolves
//! the group: each member gets its progress, rate and date, and the
//! component is solved in full, which may group it again.
//!
//! Invariants: a resource marked with a group is used only by its
//! members, and every resource a member uses is marked with its group,
//! so a full solve never meets a member.
//!
//! Dates come out of a different arithmetic (a level and a virtual clock
//! instead of a rate per action), equal to the full solve's within a few
//! rounding errors: grouping is for components far bigger than a small
//! run's, where no result is compared bit for bit. The clock grows with
//! the group's age, and its rounding is that of its size: when it would
//! take more than [`CLOCK_ROUNDING`] of a joining member's work, the
//! clock restarts at 0 (every member's join and end move with it, once,
//! in O(members)), so that a short action joining an old group keeps its
//! duration to the precision of its own work.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::dates::Dates;
use crate::solve::Sum;
use crate::{Action, System};

/// The largest share of a joining member's work (in clock units) that the
/// clock's rounding may take: beyond it the clock restarts at 0. A clock
/// grows with the group's age, so without a restart a short action joining
/// an old group (or one whose penalty makes its work tiny in clock units)
/// would get its end rounded to a date far off its own duration.
const CLOCK_ROUNDING: f64 = 1e-12;

/// "No group", in [`crate::Action::group`] and [`crate::Resource::group`].
pub(crate) const NONE: u32 = u32::MAX;

/// A member's bound in level units (bound * penalty).
struct BoundEntry {
    level: f64,
    index: u32,
    generation: u32,
}

impl PartialEq for BoundEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for BoundEntry {}
impl PartialOrd for BoundEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for BoundEntry {
    /// Reversed: the max-heap pops the lowest bound.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .level
            .total_cmp(&self.level)
            .then_with(|| other.index.cmp(&self.index))
    }
}

pub(crate) struct Group {
    /// The resource that fixes every member.
    resource: u32,
    /// Every member's rate times its penalty.
    level: f64,
    /// The integral of `level` over time, up to `synced`.
    clock: f64,
    synced: f64,
    /// Members in the system (some may have left `ends` already, having
    /// ended in the batch being completed).
    members: usize,
    /// Members by the clock value at which each ends.
    ends: Dates,
    /// The group's other resources by the level at which each would
    /// saturate.
    limits: Dates,
    /// Bounded members (completed ones are skipped when met).
    bounds: BinaryHeap<BoundEntry>,
    /// The member whose end is in the system's heap, or NONE.
    representative: u32,
    /// Waiting in [`System::dirty_groups`].
    dirty: bool,
}

impl Group {
    fn clock_at(&self, t: f64) -> f64 {
        if t > self.synced {
            self.clock + self.level * (t - self.synced)
        } else {
            self.clock
        }
    }

    fn sync(&mut self, now: f64) {
        self.clock = self.clock_at(now);
        self.synced = self.synced.max(now);
    }

    /// The date the clock reaches `end` at the current level.
    fn date_of(&self, end: f64) -> f64 {
        if end <= self.clock {
            self.synced
        } else {
            (self.synced + (end - self.clock) / self.level).max(self.synced)
        }
    }
}

impl System {
    fn group(&self, g: u32) -> &Group {
        self.groups[g as usize].as_ref().expect("a live group")
    }

    fn group_mut(&mut self, g: u32) -> &mut Group {
        self.groups[g as usize].as_mut().expect("a live group")
    }

    /// Action `a`'s rate (it is not kept per member of a group).
    pub(crate) fn rate_of(&self, a: &Action) -> f64 {
        if a.group == NONE {
            a.rate
        } else {
            self.group(a.group).level / a.penalty
        }
    }

    /// Work action `a` has done by date `t` (not before its last change).
    pub(crate) fn progress_of(&self, a: &Action, t: f64) -> f64 {
        if a.group == NONE {
            a.progress_at(t)
        } else {
            let clock = self.group(a.group).clock_at(t);
            a.progress + (clock - a.joined) * a.factor / a.penalty
        }
    }

    /// The level at which shared resource `r` saturates with its present
    /// usage `weights` and nothing fixed elsewhere: what progressive
    /// filling starts from.
    fn limit(&self, r: u32, weights: f64) -> f64 {
        let res = &self.resources[r as usize];
        if res.capacity <= res.capacity * self.precision.maxmin {
            0.0
        } else {
            res.capacity / weights.max(f64::MIN_POSITIVE)
        }
    }

    /// Turns the component just solved into a group, when the solve fixed
    /// its actions (those of the scratch) all by local resource `local` at
    /// `level`.
    pub(crate) fn make_group(&mut self, local: usize, level: f64) {
        let g = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                self.groups.push(None);
                (self.groups.len() - 1) as u32
            }
        };
        let resource = self.scratch.resources[local];
        let now = self.now;
        let work = self.precision.work;
        let mut group = Group {
            resource,
            level,
            clock: 0.0,
            synced: now,
            members: self.scratch.actions.len(),
            ends: Dates::default(),
            limits: Dates::default(),
            bounds: BinaryHeap::new(),
            representative: NONE,
            dirty: false,
        };
        for k in 0..self.scratch.actions.len() {
            let index = self.scratch.actions[k];
            self.dates.remove(index);
            let slot = &mut self.slots[index as usize];
            let a = slot.action.as_mut().expect("a component's action is live");
            a.progress = a.progress_at(now);
            a.updated = now;
            a.rate = level / a.penalty;
            a.rated = true;
            a.group = g;
            a.joined = 0.0;
            let end = (a.amount - a.progress - work) * a.penalty / a.factor;
            group.ends.set(index, a.seq, end);
            if a.bound.is_finite() {
                group.bounds.push(BoundEntry {
                    level: a.bound * a.penalty,
                    index,
                    generation: slot.generation,
                });
            }
            self.set_level(index, f64::NAN, f64::NAN);
        }
        for k in 0..self.scratch.resources.len() {
            let r = self.scratch.resources[k];
            let mut usage = Sum::default();
            for e in &self.resources[r as usize].elements {
                usage.add(e.weight);
            }
            if r != resource {
                group
                    .limits
                    .set(r, u64::from(r), self.limit(r, usage.value()));
            }
            let res = &mut self.resources[r as usize];
            res.group = g;
            res.group_usage = usage;
        }
        self.groups[g as usize] = Some(group);
        self.schedule_group(g);
    }

    /// Puts group `g`'s earliest end into the system's heap.
    fn schedule_group(&mut self, g: u32) {
        let group = self.groups[g as usize].as_mut().expect("a live group");
        let first = group.ends.first();
        let old = group.representative;
        if old != NONE && first.is_none_or(|(_, _, index)| index != old) {
            self.dates.remove(old);
        }
        group.representative = NONE;
        if let Some((end, seq, index)) = first {
            let date = group.date_of(end);
            if date.is_finite() {
                self.dates.set(index, seq, date);
                group.representative = index;
            } else {
                self.dates.remove(index);
            }
        }
    }

    /// The group a new action using `uses` (shared resources, with their
    /// weights) can join without a solve, if any; every group it touches
    /// otherwise is dissolved.
    pub(crate) fn group_to_join(&mut self, uses: &[crate::Use]) -> Option<u32> {
        if self.free_groups.len() == self.groups.len() {
            // No group at all: the common case, at no cost.
            return None;
        }
        let mut found = NONE;
        let mut joinable = true;
        let mut uses_bottleneck = false;
        let mut touched: Vec<u32> = Vec::new();
        for u in uses {
            let res = &self.resources[u.resource as usize];
            match res.group {
                NONE => joinable &= res.elements.is_empty(),
                g => {
                    if !touched.contains(&g) {
                        touched.push(g);
                    }
                    if found == NONE {
                        found = g;
                    }
                    joinable &= g == found;
                    uses_bottleneck |= self.group(g).resource == u.resource;
                }
            }
        }
        if joinable && uses_bottleneck {
            return Some(found);
        }
        for g in touched {
            self.dissolve(g);
        }
        None
    }

    /// Makes the action just started in slot `index` a member of group
    /// `g`; its uses are already in the resources' lists.
    pub(crate) fn join(&mut self, g: u32, index: u32) {
        let now = self.now;
        let work = self.precision.work;
        let work_on_clock = {
            let a = self.slots[index as usize]
                .action
                .as_ref()
                .expect("a joining action is live");
            (a.amount - work) * a.penalty / a.factor
        };
        let group = self.group_mut(g);
        group.sync(now);
        if group.clock * f64::EPSILON > work_on_clock * CLOCK_ROUNDING {
            self.restart_clock(g);
        }
        let slot = &mut self.slots[index as usize];
        let generation = slot.generation;
        let a = slot.action.as_mut().expect("a joining action is live");
        let group = self.groups[g as usize].as_mut().expect("a live group");
        group.members += 1;
        a.group = g;
        a.joined = group.clock;
        a.rated = true;
        let end = a.joined + work_on_clock;
        group.ends.set(index, a.seq, end);
        if a.bound.is_finite() {
            group.bounds.push(BoundEntry {
                level: a.bound * a.penalty,
                index,
                generation,
            });
        }
        let uses = std::mem::take(&mut a.uses);
        for u in &uses {
            let res = &mut self.resources[u.resource as usize];
            res.group = g;
            res.group_usage.add(u.weight);
            let weights = res.group_usage.value();
            self.update_limit(g, u.resource, weights);
        }
        self.slots[index as usize]
            .action
            .as_mut()
            .expect("a joining action is live")
            .uses = uses;
        self.mark_group(g);
    }

    /// Restarts group `g`'s clock at 0, moving its members' join and end
    /// values with it: O(members), done when the clock has grown so big
    /// that its rounding would be felt in a joining member's work.
    fn restart_clock(&mut self, g: u32) {
        let group = self.groups[g as usize].as_mut().expect("a live group");
        let by = group.clock;
        group.clock = 0.0;
        group.ends.shift_earlier(by);
        for index in group.ends.indices() {
            let a = self.slots[index as usize]
                .action
                .as_mut()
                .expect("a member is live");
            a.joined -= by;
        }
    }

    /// Takes member `index` of group `g` (removed from the system) out of
    /// the group: its weights, its end. `uses` are its uses, already out of
    /// the resources' lists.
    pub(crate) fn leave(&mut self, g: u32, index: u32, uses: &[crate::Use]) {
        let now = self.now;
        let group = self.group_mut(g);
        group.sync(now);
        group.members -= 1;
        group.ends.remove(index);
        if group.representative == index {
            group.representative = NONE;
        }
        for u in uses {
            let res = &mut self.resources[u.resource as usize];
            if res.elements.is_empty() {
                res.group = NONE;
                res.group_usage = Sum::default();
                self.group_mut(g).limits.remove(u.resource);
            } else {
                res.group_usage.add(-u.weight);
                let weights = res.group_usage.value();
                self.update_limit(g, u.resource, weights);
            }
        }
        if self.group(g).members == 0 {
            // No member left: every resource of the group is empty.
            self.groups[g as usize] = None;
            self.free_groups.push(g);
        } else {
            self.mark_group(g);
        }
    }

    /// Called when member `index` of a group ended and left the system's
    /// heap: the group's next end takes its place at once, so that
    /// near-simultaneous ends of one group make one batch.
    pub(crate) fn member_ended(&mut self, index: u32) {
        let Some(a) = self.slots[index as usize].action.as_ref() else {
            return;
        };
        let g = a.group;
        if g == NONE {
            return;
        }
        let group = self.group_mut(g);
        group.ends.remove(index);
        if group.representative == index {
            group.representative = NONE;
        }
        self.schedule_group(g);
    }

    fn update_limit(&mut self, g: u32, r: u32, weights: f64) {
        if self.group(g).resource != r {
            let limit = self.limit(r, weights);
            self.group_mut(g).limits.set(r, u64::from(r), limit);
        }
    }

    fn mark_group(&mut self, g: u32) {
        let group = self.group_mut(g);
        if !group.dirty {
            group.dirty = true;
            self.dirty_groups.push(g);
        }
    }

    /// Gives every group whose members changed its new level, or
    /// dissolves it when its structure no longer holds.
    pub(crate) fn solve_groups(&mut self) {
        while let Some(g) = self.dirty_groups.pop() {
            if self.groups[g as usize].is_none() {
                continue;
            }
            let now = self.now;
            let group = self.group_mut(g);
            group.dirty = false;
            group.sync(now);
            let r = group.resource;
            let weights = self.resources[r as usize].group_usage.value();
            let level = self.limit(r, weights);
            if level > 0.0 && level.is_finite() && self.still_fixed_by_one(g, level) {
                self.group_mut(g).level = level;
                self.schedule_group(g);
            } else {
                self.dissolve(g);
            }
        }
    }

    /// Whether progressive filling would still fix every member of `g` by
    /// its resource at `level`: no other resource of the group saturates
    /// below it, no member's bound is below it.
    fn still_fixed_by_one(&mut self, g: u32, level: f64) -> bool {
        let group = self.groups[g as usize].as_mut().expect("a live group");
        if group
            .limits
            .first()
            .is_some_and(|(limit, _, _)| limit < level)
        {
            return false;
        }
        while let Some(top) = group.bounds.peek() {
            let slot = &self.slots[top.index as usize];
            if slot.generation != top.generation {
                group.bounds.pop();
                continue;
            }
            return top.level >= level;
        }
        true
    }

    /// Dissolves group `g`: each member gets its own progress, rate and
    /// date back, and the component is solved in full at the next solve.
    pub(crate) fn dissolve(&mut self, g: u32) {
        let Some(mut group) = self.groups.get_mut(g as usize).and_then(Option::take) else {
            return;
        };
        self.free_groups.push(g);
        // Its members' levels are not kept: their component is solved in
        // full.
        self.full_needed = true;
        let now = self.now;
        group.sync(now);
        if group.representative != NONE {
            self.dates.remove(group.representative);
        }
        for index in group.ends.indices() {
            let a = self.slots[index as usize]
                .action
                .as_mut()
                .expect("a member is live");
            a.progress += (group.clock - a.joined) * a.factor / a.penalty;
            a.updated = now;
            a.rate = group.level / a.penalty;
            // The full solve sets its rate and date again.
            a.rated = false;
            a.group = NONE;
        }
        for r in group.limits.indices().chain([group.resource]) {
            let res = &mut self.resources[r as usize];
            res.group = NONE;
            res.group_usage = Sum::default();
        }
        self.touch(group.resource);
    }
}
