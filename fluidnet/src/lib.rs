//! A max-min fluid model with its own clock: resources with capacities,
//! actions that consume them, the rates max-min fairness gives each action,
//! and the dates at which actions complete.
//!
//! This crate knows nothing of MPI, ranks or platforms. The emulator makes
//! one resource per link (or link direction) and per host CPU, one action
//! per message or computation, asks [`System::next_completion`] when the
//! next action ends and moves the clock with [`System::advance`].
//!
//! # Model
//!
//! Weighted max-min fairness by progressive filling, with SimGrid's lmm
//! semantics. On a [`Sharing::Shared`] resource of remaining capacity C
//! whose unfixed actions have consumption coefficients c_i and sharing
//! penalties p_i, the fair level is C / sum(c_i / p_i). The resource with
//! the lowest level is the bottleneck and each of its unfixed actions gets
//! rate level / p_i, unless some unfixed action's bound is lower in level
//! units (bound * p_i below the bottleneck level): then that action is
//! fixed at its bound first. Fixed rates times coefficients are subtracted
//! from the capacities and the filling goes on. The result is the unique
//! weighted max-min fair allocation.
//!
//! A [`Sharing::FatPipe`] resource does not share: it bounds each action
//! using it by capacity / c on its own. (SimGrid's FATPIPE also scales
//! rates by penalty; this model deliberately treats it as a plain bound.)
//!
//! Precision ([`Precision::maxmin`]): when a shared resource's remaining
//! capacity falls to `capacity * maxmin` or below while it still has
//! unfixed actions, it counts as saturated and those actions get rate 0
//! (SimGrid's lmm does the same rounding). They are not starved forever:
//! the other actions on that resource finish, and the resource is solved
//! again then. Nothing is ever given more than what is left, so no
//! resource ends over capacity beyond floating-point rounding.
//!
//! # Incrementality
//!
//! Starting, cancelling or completing an action marks the shared resources
//! it uses dirty; so does a new bound ([`System::set_bound`]), through one
//! of them. Only the connected components (resources linked by the
//! actions that use them) containing a dirty resource are solved again,
//! lazily, by the next call that needs rates or dates. Completion dates
//! sit in a binary heap indexed by action, where a new rate moves the
//! action's one entry (see `dates`).
//!
//! # Cost of a solve, and what is left to do
//!
//! A solve costs O(uses * log) in the size of the component it re-solves
//! (see `solve`). Three cases are cheaper, with the same arithmetic and so
//! the same results bit for bit: an action alone on its resources (most
//! messages of a latency-bound program) is solved in closed form; the
//! filling stops as soon as every action is fixed (the resources left
//! would only close); and a resource's elements carry their weights, so
//! usages are summed without visiting actions.
//!
//! When thousands of flows share one bottleneck, every completion changes
//! all their rates, so a solve of the whole component per event cost
//! O(component) however cheap each step (10^5 flows through one backbone:
//! 65 events per second). Such components are kept as groups (module
//! `group`): the actions one resource fixes share a level and a virtual
//! clock (the integral of the level), an action ends when the clock
//! reaches its join value plus its remaining work times penalty over
//! factor, and only the group's earliest end is in the date heap. A start
//! or a completion then costs O(log n): the new level is the bottleneck's
//! capacity over its members' weights, kept incrementally, and it stands
//! as long as no other resource of the group would saturate below it and
//! no member's bound is below it (two more heaps). Anything else
//! dissolves the group and solves the component in full, which may group
//! it again. The same benchmark runs about 500,000 events per second.
//!
//! Grouping covers one bottleneck per component, the shape of a cluster's
//! backbone or a switch's uplink under load. Components that several
//! resources fix (an all-to-all spread over a fat tree's links, a
//! dragonfly's global links) or with actions at their bounds are re-solved
//! *partially*: progressive filling fixes actions in increasing order of
//! level, and a change can only move what was fixed after the point it
//! touches (a removed action's own fix; for a new action, the point at
//! which its resources would first be picked with it), so the actions
//! fixed before keep their rates, are not visited, and only what the
//! changed resources reach through the others is filled again (see
//! "Partial re-solves" in module `solve`). The transposition lab on 1,024
//! ranks of a dragonfly (63,488 flows, all posted at once) went from 9.2
//! to about 1 s, and from 540 to 134 s with Valiant routing. Grouped and
//! partial dates differ from a full solve's in
//! the last bits, so both start at 2,048 actions ([`DEFAULT_GROUPING`],
//! [`DEFAULT_PARTIAL`]), above what runs compared bit for bit reach
//! ([`System::set_grouping`], [`System::set_partial`]).
//!
//! # Time and completions
//!
//! Each action stores its amount, the progress made up to the date of its
//! last rate change, that date, its rate and its factor (work is done at
//! `rate * factor`). Progress is only ever extended by
//! `rate * factor * elapsed` at a rate change, so remaining work costs
//! one rounding per rate change, whatever the number of events elsewhere;
//! an action whose rate did not change keeps its completion date bit for
//! bit. An action completes when its remaining work reaches
//! [`Precision::work`]: its date is `updated + (amount - progress - work) /
//! (rate * factor)`, never earlier than the date it was computed at, so dates never go
//! backwards. [`System::advance`] completes every action whose date is
//! within [`Precision::timing`] of the target, so near-simultaneous ends
//! make one event.
//!
//! # Update order
//!
//! A caller that must break ties between completions of one date as
//! SimGrid does can ask [`System::keep_update_order`]: the system then
//! walks, at every start, end, bound change and [`System::touch_in_order`],
//! the resources SimGrid's lmm would mark changed, and
//! [`System::take_updated`] lists the actions SimGrid would give new
//! completion dates after its next solve, in its order (module `order`);
//! [`System::set_order_key`] orders a batch of completions by the
//! caller's numbering of those updates (after their dates, as SimGrid's
//! heap does: completions within [`Precision::timing`] of each other end
//! together, but the earlier dated first). Off by default: the walk costs
//! O(component) per solve.
//!
//! # Determinism
//!
//! No hash maps; every tie (equal levels, equal dates) is broken by an
//! index or by start order. Same calls, same results, bit for bit.
//!
//! # SimGrid correspondences for callers
//!
//! A bandwidth factor f (the flow runs at its share times f) is expressed
//! by scaling the amount by 1/f. A computation on a host of speed s is an
//! action of `flops` amount using the host's CPU resource (capacity s,
//! coefficient 1), penalty 1, bound s.

mod dates;
mod group;
mod order;
mod solve;

use group::NONE;

/// Components of at least this many actions are grouped by default (see
/// [`System::set_grouping`]).
pub const DEFAULT_GROUPING: usize = 2048;

/// Solves are partial from this many running actions on by default (see
/// [`System::set_partial`]): below it every result stays bit for bit what
/// whole solves give, as small runs compared to SimGrid need.
pub const DEFAULT_PARTIAL: usize = 2048;

/// A resource (a link, a link direction, a CPU), as returned by
/// [`System::add_resource`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId(pub u32);

/// A running action (a flow or a computation), as returned by
/// [`System::start`]. Ids of actions that completed or were cancelled are
/// recognised as stale even after their slot is reused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ActionId {
    index: u32,
    generation: u32,
}

impl ActionId {
    /// The slot the action occupies, below the largest number of actions
    /// ever running at once: callers can keep per-action data in a
    /// vector indexed by it, with the id itself to tell a slot's later
    /// actions apart.
    pub fn slot(self) -> usize {
        self.index as usize
    }
}

/// How a resource shares its capacity among the actions using it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// Max-min sharing: the sum of rate * coefficient stays within the
    /// capacity.
    Shared,
    /// No sharing (SimGrid's FATPIPE): each action is limited to
    /// capacity / coefficient on its own.
    FatPipe,
}

/// Numerical tolerances; the emulator fills them from SimGrid's options of
/// the same names.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Precision {
    /// `precision/timing`, in seconds: actions ending within this of the
    /// date the clock moves to complete together. Default 1e-9.
    pub timing: f64,
    /// `precision/work-amount`: an action whose remaining work is at or
    /// below this is complete. Default 1e-5.
    pub work: f64,
    /// `maxmin/precision`: a shared resource whose remaining capacity is at
    /// or below `capacity * maxmin` is saturated. Default 1e-5.
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

/// What an action is, for [`System::start`].
#[derive(Debug, Clone, Copy)]
pub struct ActionSpec<'a> {
    /// Work to do (bytes, flops), finite or infinite (never completes),
    /// not negative. At most [`Precision::work`] completes at the next
    /// advance without taking any share.
    pub amount: f64,
    /// Sharing penalty, finite and positive: on a common bottleneck, rates
    /// are proportional to 1 / penalty.
    pub penalty: f64,
    /// Maximum rate (`None`: unbounded). Zero is allowed: the action then
    /// never progresses.
    pub bound: Option<f64>,
    /// Work done per unit of rate, finite and positive (SimGrid's action
    /// rate factor): the action progresses at its solved rate times this,
    /// and its end is dated `amount / (rate * factor)` after its rate is
    /// set, in that arithmetic. 1 for plain actions.
    pub factor: f64,
    /// Resources used, each with its consumption coefficient (the action
    /// consumes rate * coefficient of the capacity; finite, not negative;
    /// 0 means the use does not count). A shared resource listed twice
    /// counts with the sum of its coefficients, a FATPIPE with the largest.
    /// With no resource, the rate is the bound, and an unbounded action
    /// completes at once.
    pub uses: &'a [(ResourceId, f64)],
}

/// A resource's use by an action, seen from the action.
#[derive(Clone, Copy)]
struct Use {
    resource: u32,
    coef: f64,
    /// coef / penalty: what the action adds to the resource's usage.
    weight: f64,
    /// Position of the matching [`Element`] in the resource's list.
    position: u32,
}

/// An action's use of a resource, seen from the resource.
#[derive(Clone, Copy)]
struct Element {
    action: u32,
    /// Index of the matching [`Use`] in the action's list.
    use_index: u32,
    /// The use's weight, kept here too: a solve sums each resource's
    /// weights without visiting its actions.
    weight: f64,
    /// The level (rate times penalty, or bound times penalty) at which
    /// the last solve of its component fixed the action, the same in each
    /// of its elements; NaN before its first solve and while it is a
    /// group's member. Kept here so that partial solves tell the actions
    /// that stand from the others without visiting them.
    level: f64,
    /// When in that filling it was fixed: the highest level fixed up to
    /// then (NaN like `level`). Levels are fixed in increasing order only
    /// up to rounding, and an action a saturated resource fixes at 0 comes
    /// after others fixed higher: what stands is a prefix of the filling,
    /// the actions whose key is below the lowest change.
    key: f64,
}

struct Resource {
    capacity: f64,
    sharing: Sharing,
    /// Actions using it (shared resources only: a FATPIPE is folded into
    /// each action's bound at start).
    elements: Vec<Element>,
    /// Waiting in [`System::dirty`] to have its component solved.
    dirty: bool,
    /// Component search that last visited it, and its index there.
    epoch: u64,
    local: u32,
    /// The group whose members alone use it, or NONE (see `group`).
    group: u32,
    /// With a group: the sum of its members' weights here.
    group_usage: solve::Sum,
    /// The lowest key (see [`Element::key`]) of an action removed from it
    /// since the last solve (infinite: none): what the solution fixed
    /// before it stands (see "Partial re-solves" in `solve`).
    removed_key: f64,
    /// A new action uses it since the last solve.
    fresh: bool,
}

struct Action {
    /// Start order: deterministic tie-break between completions.
    seq: u64,
    amount: f64,
    /// Work done up to `updated`.
    progress: f64,
    /// Date of the last rate change.
    updated: f64,
    rate: f64,
    /// The spec's factor: work is done at `rate * factor`.
    factor: f64,
    /// Whether `rate` was set by a solve (a new action waits for one).
    rated: bool,
    penalty: f64,
    /// The spec's bound combined with the FATPIPE resources used.
    bound: f64,
    /// The FATPIPE resources' part of `bound` (infinite without any), which
    /// [`System::set_bound`] keeps.
    pipe: f64,
    /// Shared resources used (empty for actions that never share).
    uses: Vec<Use>,
    /// Component search that last visited it, and its index there.
    epoch: u64,
    local: u32,
    /// The group it belongs to, or NONE; a member's `rate` is not kept
    /// (see `System::rate_of`) and its `progress` is the work done when
    /// the group's clock read `joined`.
    group: u32,
    joined: f64,
    /// The caller's key ordering the completions of one batch (its start
    /// number unless [`System::set_order_key`] gives another).
    key: u64,
}

impl Action {
    /// Work done by date `t` (not before `updated`).
    fn progress_at(&self, t: f64) -> f64 {
        if t > self.updated {
            self.progress + self.rate * self.factor * (t - self.updated)
        } else {
            self.progress
        }
    }
}

struct Slot {
    generation: u32,
    action: Option<Action>,
}

/// The fluid system: resources, running actions, and the clock.
pub struct System {
    precision: Precision,
    now: f64,
    resources: Vec<Resource>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
    /// Shared resources whose component must be solved again.
    dirty: Vec<u32>,
    dates: dates::Dates,
    seq: u64,
    epoch: u64,
    scratch: solve::Scratch,
    /// Completed in one batch, sorted: (date's bits when SimGrid's order
    /// is kept, else 0; order key; index).
    batch: Vec<(u64, u64, u32)>,
    /// Groups by id (None: free), free ids, groups whose members changed.
    groups: Vec<Option<group::Group>>,
    free_groups: Vec<u32>,
    dirty_groups: Vec<u32>,
    /// Smallest component grouped, or None.
    grouping: Option<usize>,
    /// Emptied use lists of removed actions, for the next starts.
    spare_uses: Vec<Vec<Use>>,
    /// SimGrid's order of updates, when kept (see `order`).
    order: Option<order::UpdateOrder>,
    /// Fewest running actions at which solves are partial, or None.
    partial: Option<usize>,
    /// A change that partial re-solves cannot bound (a bound changed, a
    /// group dissolved) happened since the last solve: the next solves
    /// everything dirty in full.
    full_needed: bool,
}

impl System {
    /// An empty system at date 0.
    ///
    /// # Panics
    /// If a precision is negative or not finite.
    pub fn new(precision: Precision) -> Self {
        for (name, value) in [
            ("timing", precision.timing),
            ("work", precision.work),
            ("maxmin", precision.maxmin),
        ] {
            assert!(
                value.is_finite() && value >= 0.0,
                "fluidnet: precision.{name} must be finite and not negative, got {value}"
            );
        }
        Self {
            precision,
            now: 0.0,
            resources: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
            dirty: Vec::new(),
            dates: dates::Dates::default(),
            seq: 0,
            epoch: 0,
            scratch: solve::Scratch::default(),
            batch: Vec::new(),
            groups: Vec::new(),
            free_groups: Vec::new(),
            dirty_groups: Vec::new(),
            grouping: Some(DEFAULT_GROUPING),
            spare_uses: Vec::new(),
            order: None,
            partial: Some(DEFAULT_PARTIAL),
            full_needed: false,
        }
    }

    /// Groups the components of at least `min_actions` actions whose
    /// solve fixes every action by one resource (`None`: never), from the
    /// next solve on; see "Groups" in the crate docs. Default:
    /// [`DEFAULT_GROUPING`].
    pub fn set_grouping(&mut self, min_actions: Option<usize>) {
        self.grouping = min_actions;
    }

    /// Re-solves only the actions a change can move (see "Partial
    /// re-solves" in the crate docs) while at least `min_actions` actions
    /// run (`None`: always solve whole components). Default:
    /// [`DEFAULT_PARTIAL`]. Ignored while SimGrid's update order is kept.
    pub fn set_partial(&mut self, min_actions: Option<usize>) {
        self.partial = min_actions;
    }

    /// Adds a resource of `capacity` (work per second: bytes/s, flops/s).
    ///
    /// # Panics
    /// If the capacity is negative or not finite.
    pub fn add_resource(&mut self, capacity: f64, sharing: Sharing) -> ResourceId {
        assert!(
            capacity.is_finite() && capacity >= 0.0,
            "fluidnet: a resource's capacity must be finite and not negative, got {capacity}"
        );
        let id = u32::try_from(self.resources.len()).expect("fluidnet: more than 2^32 resources");
        self.resources.push(Resource {
            capacity,
            sharing,
            elements: Vec::new(),
            dirty: false,
            epoch: 0,
            local: 0,
            group: NONE,
            group_usage: solve::Sum::default(),
            removed_key: f64::INFINITY,
            fresh: false,
        });
        ResourceId(id)
    }

    /// Makes room for `more` resources at once (a platform's links and
    /// hosts), so that the table takes no spare capacity from growing.
    pub fn reserve_resources(&mut self, more: usize) {
        self.resources.reserve_exact(more);
    }

    /// The current date, in seconds.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Number of actions started and not yet completed or cancelled.
    pub fn active_actions(&self) -> usize {
        self.live
    }

    /// Starts an action at [`Self::now`].
    ///
    /// # Panics
    /// If the spec breaks the rules documented on [`ActionSpec`], or names
    /// a resource this system did not create.
    pub fn start(&mut self, spec: &ActionSpec<'_>) -> ActionId {
        self.start_with(spec, None)
    }

    /// [`Self::start`], with the resources in SimGrid's order and the
    /// order key when the caller gives them (see `order`).
    fn start_with(&mut self, spec: &ActionSpec<'_>, walk: Option<order::Walk<'_>>) -> ActionId {
        assert!(
            spec.amount >= 0.0,
            "fluidnet: an action's amount must not be negative or NaN, got {}",
            spec.amount
        );
        assert!(
            spec.penalty.is_finite() && spec.penalty > 0.0,
            "fluidnet: an action's penalty must be finite and positive, got {}",
            spec.penalty
        );
        assert!(
            spec.factor.is_finite() && spec.factor > 0.0,
            "fluidnet: an action's factor must be finite and positive, got {}",
            spec.factor
        );
        let own = checked_bound(spec.bound);
        let mut pipe = f64::INFINITY;
        let instant = spec.amount <= self.precision.work;
        // A list of a removed action, so that a message does not allocate.
        let mut uses: Vec<Use> = self.spare_uses.pop().unwrap_or_default();
        for &(r, coef) in spec.uses {
            assert!(
                coef.is_finite() && coef >= 0.0,
                "fluidnet: a consumption coefficient must be finite and not negative, got {coef}"
            );
            let res = self
                .resources
                .get(r.0 as usize)
                .unwrap_or_else(|| panic!("fluidnet: unknown resource {r:?}"));
            if coef == 0.0 {
                continue;
            }
            match res.sharing {
                Sharing::FatPipe => pipe = pipe.min(res.capacity / coef),
                // An action with nothing to do takes no share of anything.
                Sharing::Shared if instant => {}
                Sharing::Shared => match uses.iter_mut().find(|u| u.resource == r.0) {
                    Some(u) => {
                        u.coef += coef;
                        u.weight = u.coef / spec.penalty;
                    }
                    None => uses.push(Use {
                        resource: r.0,
                        coef,
                        weight: coef / spec.penalty,
                        position: 0,
                    }),
                },
            }
        }

        let bound = own.min(pipe);
        // A new action joins a group (no solve) or dissolves those it
        // touches (its component is solved in full).
        let join = if uses.is_empty() {
            None
        } else {
            self.group_to_join(&uses)
        };
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.slots.len())
                    .expect("fluidnet: more than 2^32 concurrent actions");
                self.slots.push(Slot {
                    generation: 0,
                    action: None,
                });
                i
            }
        };
        // An action alone on all its resources (a message on idle links)
        // is solved at once, in the arithmetic its solve would use, rather
        // than marking its resources for a solve.
        let alone = join.is_none()
            && !uses.is_empty()
            && uses
                .iter()
                .all(|u| self.resources[u.resource as usize].elements.is_empty());
        for (k, u) in uses.iter_mut().enumerate() {
            let res = &mut self.resources[u.resource as usize];
            u.position = res.elements.len() as u32;
            // Most resources (a host's private link, its CPU) never carry
            // more than one action at a time: the first takes no room for
            // three more, for the whole run.
            if res.elements.capacity() == 0 {
                res.elements.reserve_exact(1);
            }
            res.elements.push(Element {
                action: index,
                use_index: k as u32,
                weight: u.weight,
                level: f64::NAN,
                key: f64::NAN,
            });
            if join.is_none() && !alone {
                res.fresh = true;
                if !res.dirty {
                    res.dirty = true;
                    self.dirty.push(u.resource);
                }
            }
        }
        self.seq += 1;
        // Actions that share nothing get their rate now, once and for all;
        // the others wait for the solve of their component.
        let (rate, rated) = if instant {
            (0.0, true)
        } else if uses.is_empty() {
            (bound, true)
        } else {
            (0.0, false)
        };
        let slot = &mut self.slots[index as usize];
        slot.action = Some(Action {
            seq: self.seq,
            amount: spec.amount,
            progress: 0.0,
            updated: self.now,
            rate,
            factor: spec.factor,
            rated,
            penalty: spec.penalty,
            bound,
            pipe,
            uses,
            epoch: 0,
            local: 0,
            group: NONE,
            joined: 0.0,
            key: walk.map_or(self.seq, |w| w.key),
        });
        self.live += 1;
        let id = ActionId {
            index,
            generation: slot.generation,
        };
        if self.order.is_some() {
            self.order_enable(index, walk.map(|w| w.resources), spec.uses);
        }
        if let Some(g) = join {
            self.join(g, index);
        } else if rated {
            self.schedule(index);
        } else if alone {
            self.solve_lone(index);
        }
        id
    }

    /// Removes an action before it completes; its share goes to the others.
    /// A stale id (completed or cancelled action) is ignored.
    pub fn cancel(&mut self, id: ActionId) {
        if self.get(id).is_some() {
            self.remove(id.index);
        }
    }

    /// Gives a running action a new bound (`None`: unbounded), as if its
    /// spec had said so, from [`Self::now`] on: the work done so far is
    /// kept, the rates of its component are solved again (lazily, by the
    /// next call that needs them), and an action that uses no shared
    /// resource runs at the new bound at once. The FATPIPE resources it
    /// uses still bound it. A stale id is ignored; so is a new bound that
    /// changes nothing, and any bound for an action with nothing left to do
    /// (it completes at the next advance).
    ///
    /// # Panics
    /// If the bound is negative or NaN.
    pub fn set_bound(&mut self, id: ActionId, bound: Option<f64>) {
        let bound = checked_bound(bound);
        if self.get(id).is_none() {
            return;
        }
        let index = id.index;
        let instant = self.precision.work;
        let a = self.slots[index as usize]
            .action
            .as_mut()
            .expect("a live action");
        let bound = bound.min(a.pipe);
        if bound == a.bound {
            return;
        }
        a.bound = bound;
        if a.amount <= instant {
            return;
        }
        let g = a.group;
        match a.uses.first() {
            // Its component is solved again with the new bound.
            Some(u) => {
                let r = u.resource;
                self.full_needed = true;
                self.order_bound(index);
                self.dissolve(g);
                self.touch(r);
            }
            None => self.set_rate(index, bound),
        }
    }

    /// Orders action `id` among the completions of one date by `key`
    /// instead of its start number (the smaller first; equal keys in slot
    /// order). A stale id is ignored.
    pub fn set_order_key(&mut self, id: ActionId, key: u64) {
        if let Some(a) = self
            .slots
            .get_mut(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.action.as_mut())
        {
            a.key = key;
        }
    }

    /// The date of the earliest completion, or `None` when no action can
    /// complete (none runs, or all run at rate 0). Solves what changed
    /// first. The date is never before [`Self::now`].
    pub fn next_completion(&mut self) -> Option<f64> {
        self.solve();
        self.peek_date()
    }

    /// Moves the clock to `to` and appends the actions completed by then to
    /// `done`, in the order of their keys (their start order unless
    /// [`Self::set_order_key`] set others).
    ///
    /// `to` should be at most [`Self::next_completion`] (any date when that
    /// is `None`); a date before [`Self::now`] is taken as `now`. Actions
    /// whose date is within [`Precision::timing`] after `to` complete too.
    /// If `to` lies beyond the next completion, the completions on the way
    /// are processed in date order (each batch in key order) with the
    /// rates re-solved between them, so rates stay right; only their exact
    /// dates are not reported.
    ///
    /// # Panics
    /// If `to` is NaN.
    pub fn advance(&mut self, to: f64, done: &mut Vec<ActionId>) {
        assert!(!to.is_nan(), "fluidnet: advance to a NaN date");
        let to = to.max(self.now);
        let timing = self.precision.timing;
        loop {
            self.solve();
            let Some(date) = self.peek_date() else { break };
            if date > to + timing {
                break;
            }
            self.now = date.min(to);
            let limit = self.now + timing;
            self.batch.clear();
            // With SimGrid's order kept, its heap's: by date, then key.
            let by_date = self.order.is_some();
            while let Some((at, _, index)) = self.dates.first().filter(|e| e.0 <= limit) {
                self.dates.remove(index);
                let key = self.slots[index as usize]
                    .action
                    .as_ref()
                    .map_or(0, |a| a.key);
                // Dates are not negative: their bits order as they do.
                let at = if by_date { at.max(0.0).to_bits() } else { 0 };
                self.batch.push((at, key, index));
                self.member_ended(index);
            }
            self.batch.sort_unstable();
            if by_date {
                order::equal_dates_by_key(&mut self.batch);
            }
            for k in 0..self.batch.len() {
                let index = self.batch[k].2;
                let generation = self.slots[index as usize].generation;
                self.remove(index);
                done.push(ActionId { index, generation });
            }
            // Whatever the removals speed up can at worst end within the
            // timing precision of `to`: the next call reports it, without
            // solving here what the caller may change again first.
            if limit >= to {
                break;
            }
        }
        self.now = to;
    }

    /// The action's current rate, as solved (work is done at this times
    /// its factor; 0 once it is gone; infinite for an unbounded action
    /// that uses no resource). Solves what changed first.
    pub fn rate(&mut self, id: ActionId) -> f64 {
        self.solve();
        self.get(id).map_or(0.0, |a| self.rate_of(a))
    }

    /// What the running actions use of shared resource `r` now (the sum
    /// of their rates times their coefficients on it, against its
    /// capacity); 0 for a FATPIPE, whose actions are only bounded by it.
    /// Solves what changed first.
    pub fn usage(&mut self, r: ResourceId) -> f64 {
        self.solve();
        let Some(res) = self.resources.get(r.0 as usize) else {
            return 0.0;
        };
        res.elements
            .iter()
            .filter_map(|e| {
                let a = self.slots[e.action as usize].action.as_ref()?;
                Some(self.rate_of(a) * a.uses[e.use_index as usize].coef)
            })
            .filter(|u| u.is_finite())
            .sum()
    }

    /// The capacity of resource `r`.
    pub fn capacity(&self, r: ResourceId) -> f64 {
        self.resources
            .get(r.0 as usize)
            .map_or(0.0, |res| res.capacity)
    }

    /// The action's remaining work at [`Self::now`] (0 once it is gone or
    /// if it runs at an infinite rate).
    pub fn remaining(&mut self, id: ActionId) -> f64 {
        // Rates change only at the current date, so no solve is needed.
        let now = self.now;
        self.get(id).map_or(0.0, |a| {
            if self.rate_of(a) == f64::INFINITY {
                0.0
            } else {
                (a.amount - self.progress_of(a, now)).max(0.0)
            }
        })
    }

    fn get(&self, id: ActionId) -> Option<&Action> {
        self.slots
            .get(id.index as usize)
            .filter(|s| s.generation == id.generation)
            .and_then(|s| s.action.as_ref())
    }

    /// The earliest completion date, never before now.
    fn peek_date(&self) -> Option<f64> {
        self.dates.first().map(|(date, _, _)| date.max(self.now))
    }

    fn touch(&mut self, r: u32) {
        let res = &mut self.resources[r as usize];
        if !res.dirty {
            res.dirty = true;
            self.dirty.push(r);
        }
    }

    fn remove(&mut self, index: u32) {
        let slot = &mut self.slots[index as usize];
        let Some(a) = slot.action.take() else {
            return;
        };
        slot.generation = slot.generation.wrapping_add(1);
        self.dates.remove(index);
        for u in &a.uses {
            let elements = &mut self.resources[u.resource as usize].elements;
            let key = elements.swap_remove(u.position as usize).key;
            if let Some(moved) = elements.get(u.position as usize) {
                let other = self.slots[moved.action as usize]
                    .action
                    .as_mut()
                    .expect("an element's action is live");
                other.uses[moved.use_index as usize].position = u.position;
            }
            // A resource left unused needs no solve.
            if a.group == NONE && !elements.is_empty() {
                let res = &mut self.resources[u.resource as usize];
                if key < res.removed_key {
                    res.removed_key = key;
                }
                self.touch(u.resource);
            }
        }
        if a.group != NONE {
            self.leave(a.group, index, &a.uses);
        }
        let mut uses = a.uses;
        uses.clear();
        self.spare_uses.push(uses);
        // With SimGrid's order kept, the slot waits for `flush_frees`.
        match self.order.as_mut() {
            Some(order) => order.pending.push(index),
            None => self.free.push(index),
        }
        self.live -= 1;
    }

    /// Records in action `index`'s elements the level it was fixed at and
    /// its key (see [`Element::key`]).
    fn set_level(&mut self, index: u32, level: f64, key: f64) {
        let a = self.slots[index as usize]
            .action
            .as_ref()
            .expect("a solved action is live");
        // Most actions a partial solve fixes again keep their level: one
        // element tells, the others need not be written.
        if a.uses.first().is_some_and(|u| {
            let e = &self.resources[u.resource as usize].elements[u.position as usize];
            e.level.to_bits() == level.to_bits() && e.key.to_bits() == key.to_bits()
        }) {
            return;
        }
        for u in &a.uses {
            let e = &mut self.resources[u.resource as usize].elements[u.position as usize];
            e.level = level;
            e.key = key;
        }
    }

    /// Gives action `index` rate `rate` from now on and schedules its end.
    fn set_rate(&mut self, index: u32, rate: f64) {
        let now = self.now;
        let a = self.slots[index as usize]
            .action
            .as_mut()
            .expect("a solved action is live");
        a.progress = a.progress_at(now);
        a.updated = now;
        a.rate = rate;
        a.rated = true;
        self.schedule(index);
    }

    /// Sets action `index`'s completion date from its `updated`,
    /// `progress` and `rate` (none while its rate is 0).
    fn schedule(&mut self, index: u32) {
        let work = self.precision.work;
        let a = self.slots[index as usize]
            .action
            .as_ref()
            .expect("a scheduled action is live");
        let left = a.amount - a.progress - work;
        let date = if left <= 0.0 || a.rate == f64::INFINITY {
            a.updated
        } else if a.rate > 0.0 {
            // Never before the date it is computed at.
            (a.updated + left / (a.rate * a.factor)).max(a.updated)
        } else {
            f64::INFINITY
        };
        if date.is_finite() {
            self.dates.set(index, a.seq, date);
        } else {
            self.dates.remove(index);
        }
    }

    /// Solves again every component that changed.
    fn solve(&mut self) {
        self.solve_groups();
        if self.dirty.is_empty() {
            return;
        }
        let partial = self.order.is_none()
            && !self.full_needed
            && self.partial.is_some_and(|min| self.live >= min);
        let fixed_below = self.lowest_changed_level(partial);
        self.full_needed = false;
        while let Some(r) = self.dirty.pop() {
            let res = &mut self.resources[r as usize];
            if res.elements.is_empty() {
                // Emptied by a removal: nothing to solve there.
                res.dirty = false;
            } else if res.dirty {
                self.solve_component(r, fixed_below);
            }
        }
    }
}

/// A spec's bound as a number (infinite for none).
///
/// # Panics
/// If the bound is negative or NaN.
fn checked_bound(bound: Option<f64>) -> f64 {
    match bound {
        Some(b) => {
            assert!(
                b >= 0.0,
                "fluidnet: an action's bound must not be negative or NaN, got {b}"
            );
            b
        }
        None => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests;
