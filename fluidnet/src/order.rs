//! SimGrid's order of updates, for callers that break ties as SimGrid
//! does (see "Update order" in the crate docs).
//!
//! SimGrid's lmm keeps, between two solves, the constraints that changed:
//! enabling or freeing a variable or changing its bound marks the
//! variable's first constraint, and the mark spreads depth first through
//! the enabled variables of each marked constraint, a variable's
//! constraints in its own order, a constraint's variables the most
//! recently enabled first (`System::update_modified_cnst_set_rec`, which
//! stops at a variable visited since the last solve). After the solve,
//! the variables of the marked constraints, constraint by constraint,
//! become the modified set, each once, and the model gives each action a
//! new completion date in that order (`Model::next_occurring_event_lazy`).
//! Its action heap is stable (boost's stability counter, renewed at every
//! update), so actions ending at one date end in the order of their last
//! update.
//!
//! Here a resource is a constraint, an action a variable (an action enters
//! the system when SimGrid enables its variable: at the end of a
//! message's latency), and its resources, FATPIPE ones included (which the
//! solver folds into bounds but SimGrid's marks spread through), its
//! constraints in the order of its spec. The walk keeps its own lists of
//! who uses what, so that the solver pays nothing when the order is not
//! kept. [`System::touch_in_order`] marks a resource from outside
//! (SimGrid marks a message's constraints when it expands its still
//! disabled variable over them, at the start of the latency).

use crate::{ActionId, ResourceId, Slot, System};

/// What [`System::take_updated`] needs between two calls.
#[derive(Default)]
pub(crate) struct UpdateOrder {
    /// Per resource, the actions using it, in the order they started.
    users: Vec<Vec<u32>>,
    /// Per action slot, its resources in its spec's order, each once.
    uses: Vec<Vec<u32>>,
    /// Marked resources, in the order SimGrid marks its constraints.
    marked: Vec<u32>,
    /// Per resource: whether it is in `marked`.
    is_marked: Vec<bool>,
    /// Round of marking (between two takes), and per action slot the
    /// round that last visited it and the one that last listed it.
    round: u64,
    visited: Vec<u64>,
    listed: Vec<u64>,
    /// The depth-first walk's frames.
    frames: Vec<Frame>,
    /// Actions ended or cancelled, in that order, still in the lists
    /// (see [`System::flush_frees`]); their slots are reused after.
    pub(crate) pending: Vec<u32>,
}

/// What [`System::start_in_order`] gives a start: the action's resources
/// in SimGrid's order of its constraints, and its order key.
#[derive(Clone, Copy)]
pub(crate) struct Walk<'a> {
    pub(crate) resources: &'a [ResourceId],
    pub(crate) key: u64,
}

/// One resource being spread from: the position of the next action in its
/// list (counting down: the most recent first) and that action's next
/// resource.
struct Frame {
    resource: u32,
    left: usize,
    next_use: usize,
}

impl UpdateOrder {
    /// Marks resource `r` and spreads the mark as SimGrid does (see the
    /// module docs), with an explicit stack: components can be deep, and
    /// ranks' stacks are small.
    fn mark_from(&mut self, r: u32) {
        if self.is_marked[r as usize] {
            return;
        }
        self.mark(r);
        let round = self.round;
        while let Some(frame) = self.frames.last_mut() {
            if frame.left == 0 {
                self.frames.pop();
                continue;
            }
            let from = frame.resource;
            let index = self.users[from as usize][frame.left - 1] as usize;
            // SimGrid checks the mark before each constraint: a visit
            // deeper down may have finished this action meanwhile.
            if self.visited[index] == round || frame.next_use == self.uses[index].len() {
                self.visited[index] = round;
                frame.left -= 1;
                frame.next_use = 0;
                continue;
            }
            let next = self.uses[index][frame.next_use];
            frame.next_use += 1;
            if next != from && !self.is_marked[next as usize] {
                self.mark(next);
            }
        }
    }

    /// Marks resource `r` and opens its frame.
    fn mark(&mut self, r: u32) {
        self.is_marked[r as usize] = true;
        self.marked.push(r);
        self.frames.push(Frame {
            resource: r,
            left: self.users[r as usize].len(),
            next_use: 0,
        });
    }

    fn grow(&mut self, resources: usize, slots: usize) {
        if self.users.len() < resources {
            self.users.resize_with(resources, Vec::new);
            self.is_marked.resize(resources, false);
        }
        if self.uses.len() < slots {
            self.uses.resize_with(slots, Vec::new);
            self.visited.resize(slots, 0);
            self.listed.resize(slots, 0);
        }
    }

    /// The actions of the marked resources, in SimGrid's order, each once,
    /// appended to `out`; the marks forgotten.
    fn take(&mut self, slots: &[Slot], out: &mut Vec<ActionId>) {
        let round = self.round;
        for &r in &self.marked {
            self.is_marked[r as usize] = false;
            for &index in self.users[r as usize].iter().rev() {
                if self.listed[index as usize] != round {
                    self.listed[index as usize] = round;
                    out.push(ActionId {
                        index,
                        generation: slots[index as usize].generation,
                    });
                }
            }
        }
        self.marked.clear();
        self.round += 1;
    }
}

impl System {
    /// Keeps SimGrid's order of updates from now on (see
    /// [`System::take_updated`]); off by default, as it costs a walk of
    /// the component at every change.
    pub fn keep_update_order(&mut self) {
        if self.order.is_none() {
            self.order = Some(UpdateOrder {
                round: 1,
                ..UpdateOrder::default()
            });
        }
    }

    /// Marks resource `r` changed, as SimGrid marks a constraint that a
    /// disabled variable is expanded over (a message in its latency
    /// phase). Does nothing unless the order is kept.
    pub fn touch_in_order(&mut self, r: ResourceId) {
        let (resources, slots) = (self.resources.len(), self.slots.len());
        if let Some(order) = self.order.as_mut() {
            order.grow(resources, slots);
            order.mark_from(r.0);
        }
    }

    /// Appends to `out` the actions SimGrid updates after a solve, in its
    /// order (each once: the actions of the resources marked since the
    /// last call, resource by resource, the most recently started first),
    /// and forgets the marks. Nothing unless the order is kept.
    pub fn take_updated(&mut self, out: &mut Vec<ActionId>) {
        self.flush_frees();
        if let Some(order) = self.order.as_mut() {
            order.take(&self.slots, out);
        }
    }

    /// Starts an action as [`System::start`] does, its resources in
    /// `resources` for the walk (SimGrid's order of its constraints, which
    /// the spec's uses, in any order, need not follow; a repeated one
    /// counts once) and `key` as its order key ([`System::set_order_key`]).
    pub fn start_in_order(
        &mut self,
        spec: &crate::ActionSpec<'_>,
        resources: &[ResourceId],
        key: u64,
    ) -> ActionId {
        self.start_with(spec, Some(Walk { resources, key }))
    }

    /// Action `index` starts using `given` (from
    /// [`System::start_in_order`]) or else its spec's `uses`: SimGrid
    /// enables its variable, which marks its first constraint.
    pub(crate) fn order_enable(
        &mut self,
        index: u32,
        given: Option<&[ResourceId]>,
        uses: &[(ResourceId, f64)],
    ) {
        let (resources, slots) = (self.resources.len(), self.slots.len());
        let Some(order) = self.order.as_mut() else {
            return;
        };
        order.grow(resources, slots);
        let mut mine = std::mem::take(&mut order.uses[index as usize]);
        mine.clear();
        let mut add = |r: ResourceId| {
            if !mine.contains(&r.0) {
                mine.push(r.0);
                order.users[r.0 as usize].push(index);
            }
        };
        match given {
            Some(given) => given.iter().copied().for_each(&mut add),
            None => uses
                .iter()
                .filter(|&&(_, coef)| coef > 0.0)
                .for_each(|&(r, _)| add(r)),
        }
        let first = mine.first().copied();
        order.uses[index as usize] = mine;
        if let Some(r) = first {
            order.mark_from(r);
        }
    }

    /// Frees the actions that ended or were cancelled since the last
    /// call, in that order, as SimGrid frees their variables: each marks
    /// its first constraint while it is still there to spread through.
    /// SimGrid frees after it has taken every event of a date off its
    /// heap, and so after the messages whose latency ended then were
    /// enabled: the caller starts those flows first, then calls this.
    /// Nothing unless the order is kept.
    pub fn flush_frees(&mut self) {
        let Some(order) = self.order.as_mut() else {
            return;
        };
        for k in 0..order.pending.len() {
            let index = order.pending[k];
            if let Some(&first) = order.uses[index as usize].first() {
                order.mark_from(first);
            }
            let mut mine = std::mem::take(&mut order.uses[index as usize]);
            for &r in &mine {
                order.users[r as usize].retain(|&a| a != index);
            }
            mine.clear();
            order.uses[index as usize] = mine;
            self.free.push(index);
        }
        order.pending.clear();
    }

    /// Action `index` gets a new bound: SimGrid marks its first
    /// constraint.
    pub(crate) fn order_bound(&mut self, index: u32) {
        if let Some(order) = self.order.as_mut() {
            if let Some(&first) = order.uses.get(index as usize).and_then(|u| u.first()) {
                order.mark_from(first);
            }
        }
    }
}

/// Dates this close (relative) are one date to SimGrid: its actions of
/// identical histories get bit-identical dates, where the solver's sums,
/// taken in another order, may leave ours some ulps apart.
const SAME_DATE: f64 = 1e-13;

/// Sorts the runs of `batch` (sorted by date bits, then key) whose dates
/// are within [`SAME_DATE`] of the run's first by key alone.
pub(crate) fn equal_dates_by_key(batch: &mut [(u64, u64, u32)]) {
    let mut start = 0;
    while start < batch.len() {
        let first = f64::from_bits(batch[start].0);
        let end = start
            + batch[start..]
                .iter()
                .take_while(|e| f64::from_bits(e.0) - first <= first * SAME_DATE)
                .count();
        batch[start..end].sort_unstable_by_key(|e| (e.1, e.2));
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use crate::{ActionSpec, Precision, Sharing, System};

    fn spec(uses: &[(crate::ResourceId, f64)]) -> ActionSpec<'_> {
        ActionSpec {
            amount: 1000.0,
            penalty: 1.0,
            bound: None,
            factor: 1.0,
            uses,
        }
    }

    /// A system keeping SimGrid's order, with `n` shared resources.
    fn ordered_system(n: usize) -> (System, Vec<crate::ResourceId>) {
        let mut s = System::new(Precision::default());
        s.keep_update_order();
        let r = (0..n)
            .map(|_| s.add_resource(100.0, Sharing::Shared))
            .collect();
        (s, r)
    }

    #[test]
    fn updates_follow_simgrids_walk_most_recent_first() {
        let (mut s, r) = ordered_system(3);
        let a = s.start(&spec(&[(r[0], 1.0), (r[1], 1.0)]));
        let b = s.start(&spec(&[(r[0], 1.0)]));
        let c = s.start(&spec(&[(r[2], 1.0)]));
        let mut out = Vec::new();
        s.take_updated(&mut out);
        // r0 (B, then A: the most recent first), r1 (A again: once), r2.
        assert_eq!(out, vec![b, a, c]);
        out.clear();
        s.take_updated(&mut out);
        assert!(out.is_empty(), "marks are forgotten by a take");
        s.cancel(b);
        s.take_updated(&mut out);
        assert_eq!(
            out,
            vec![a],
            "a freed action marks its neighbours, not itself"
        );
        out.clear();
        // A mark from outside spreads through the actions of the resource.
        s.touch_in_order(r[1]);
        s.take_updated(&mut out);
        assert_eq!(out, vec![a]);
    }

    #[test]
    fn nothing_is_kept_unless_asked() {
        let mut s = System::new(Precision::default());
        let r = s.add_resource(100.0, Sharing::Shared);
        s.start(&spec(&[(r, 1.0)]));
        s.touch_in_order(r);
        let mut out = Vec::new();
        s.take_updated(&mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn fatpipes_join_the_walk() {
        let mut s = System::new(Precision::default());
        s.keep_update_order();
        let pipe = s.add_resource(100.0, Sharing::FatPipe);
        let r: Vec<_> = (0..2)
            .map(|_| s.add_resource(100.0, Sharing::Shared))
            .collect();
        let a = s.start(&spec(&[(r[0], 1.0), (pipe, 1.0)]));
        let b = s.start(&spec(&[(r[1], 1.0), (pipe, 1.0)]));
        let mut out = Vec::new();
        s.take_updated(&mut out);
        out.clear();
        // Freeing A marks r0 and, through the FATPIPE, B's r1.
        s.cancel(a);
        s.take_updated(&mut out);
        assert_eq!(out, vec![b]);
    }

    #[test]
    fn frees_mark_after_the_starts_of_their_date() {
        let (mut s, r) = ordered_system(3);
        let a = s.start(&spec(&[(r[0], 1.0), (r[1], 1.0)]));
        let b = s.start(&spec(&[(r[1], 1.0), (r[2], 1.0)]));
        let mut out = Vec::new();
        s.take_updated(&mut out);
        out.clear();
        // A ends, C starts at the same date: SimGrid enables C (marking
        // r2, then r1 through B, A still there) before it frees A.
        s.cancel(a);
        let c = s.start(&spec(&[(r[2], 1.0)]));
        s.take_updated(&mut out);
        assert_eq!(out, vec![c, b], "freed first, r0 would lead: [b, c]");
    }

    #[test]
    fn dates_some_ulps_apart_are_one_date() {
        let d: f64 = 0.030931230202900912;
        let next = f64::from_bits(d.to_bits() + 3);
        let later = d * (1.0 + 1e-9);
        let mut batch = vec![
            (d.to_bits(), 5, 0),
            (next.to_bits(), 3, 1),
            (later.to_bits(), 1, 2),
        ];
        super::equal_dates_by_key(&mut batch);
        let keys: Vec<u64> = batch.iter().map(|e| e.1).collect();
        assert_eq!(keys, vec![3, 5, 1]);
    }

    #[test]
    fn completions_of_one_date_follow_the_keys() {
        let mut s = System::new(Precision::default());
        let r: Vec<_> = (0..2)
            .map(|_| s.add_resource(100.0, Sharing::Shared))
            .collect();
        let a = s.start(&spec(&[(r[0], 1.0)]));
        let b = s.start(&spec(&[(r[1], 1.0)]));
        let mut done = Vec::new();
        s.set_order_key(a, 9);
        s.set_order_key(b, 3);
        let t = s.next_completion().expect("a completion");
        s.advance(t, &mut done);
        assert_eq!(done, vec![b, a]);
    }
}
