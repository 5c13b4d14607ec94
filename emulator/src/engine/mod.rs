//! The discrete-event core: the simulated clock, the timer queue, the fluid
//! model of hosts and links, transfers and computations, the actors' run
//! states and the order in which ready actors run.
//!
//! An actor is one coroutine of the simulation. Actor `i < size()` is rank
//! `i`'s main one; a rank may start more (SimGrid's `sg_actor_start`),
//! which act as that rank: same MPI identity, same host, same globals. So
//! [`Core::current`] is the running actor's rank, what the MPI layer
//! needs, and [`Core::wake`] wakes every blocked actor of a rank (each
//! waiting actor checks again what it waits for; with one actor per rank,
//! as almost always, that is the rank).
//!
//! The core knows nothing of MPI. Its owner starts transfers and gets a
//! [`TransferId`] back; when the clock moves ([`Core::advance`]), the
//! transfers that ended are handed back one at a time
//! ([`Core::next_finished`]), in the order they ended, and the owner decides
//! what they complete. Sleeps and computations end inside the core (they
//! only make their rank ready again).
//!
//! `context` switches between the actors' coroutines; `netmodel` turns a
//! message into a latency and a flow; `ib` is the IB model's contention
//! state.

pub mod context;
pub mod energy;
mod ib;
pub mod io;
pub mod limit;
mod net;
pub mod netmodel;
pub mod netstats;
pub mod observe;
pub mod shared_stack;
mod timer;

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::sync::Arc;

use fluidnet::{ActionId, ActionSpec, ResourceId};
use platforms::{HostId, Platform};
use rustc_hash::FxHashMap;
use tracing::{debug, trace};

use energy::{Energy, EnergyError};
use limit::StopSignal;
use net::{FlowScratch, Transfer};
pub use net::{LinkDirection, TransferId};
use netmodel::{NetModel, RoutingChoice};
use observe::Observers;
pub use timer::Wake;
use timer::{TimerEvent, Timers};

use crate::log::ENGINE;

/// An actor's run state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Created by its rank but not started yet (it never runs, and the
    /// simulation does not wait for it, until it is).
    Created,
    /// In the ready queue (or running now).
    Ready,
    /// Waiting for a request, a timer or a computation.
    Blocked,
    /// Returned from main, called exit, or aborted.
    Done,
}

/// What a blocked actor waits in, for the deadlock report.
#[derive(Debug, Clone, Default)]
pub struct BlockedIn {
    pub call: &'static str,
    pub detail: Detail,
}

/// What a blocked actor waits for. Kept as data and put into words only by
/// a deadlock report: ranks block on every wait, and formatting there cost
/// an allocation per wait.
#[derive(Debug, Clone, Default)]
pub enum Detail {
    #[default]
    None,
    Text(&'static str),
    Owned(String),
    /// Sleeping this many seconds.
    Sleep(f64),
    /// Computing this many flops.
    Compute(f64),
    /// Waiting for requests of the rank's owner (the core does not know
    /// what they are): the first incomplete one, and how many are.
    Requests {
        first: usize,
        pending: usize,
    },
}

/// A simulated actor, as the core sees it: a rank's main coroutine, or one
/// the rank started.
pub struct Actor {
    /// The rank it acts as.
    rank: usize,
    host: HostId,
    /// The next actor of the same rank: a rank's actors form a list from
    /// its main actor, in creation order.
    next: Option<usize>,
    state: RunState,
    blocked_in: BlockedIn,
    exit_code: Option<i32>,
    /// A computation in progress on the actor's host.
    exec: Option<ActionId>,
    /// A disk operation in progress.
    io: bool,
    /// Set while the actor sleeps until a timer.
    sleeping: bool,
    /// The timer of that sleep.
    sleep_timer: Option<u64>,
    /// It yielded and blocked on nothing since: it is polling.
    polling: bool,
    /// The timer of the actor's timed wait, while armed.
    timeout: Option<u64>,
    /// The actor's timed wait ran out (until taken).
    timed_out: bool,
    /// Bench clock (`smpi/bench-clock`) when this actor last returned
    /// from an MPI call.
    pub cpu_mark: f64,
    /// Flops of modelled kernels and `smpi_execute` called since then,
    /// spent with the burst they belong to at the next MPI call.
    pub pending_flops: f64,
}

impl Actor {
    /// An actor of `rank` on `host`, in `state`, that has done nothing yet.
    fn new(rank: usize, host: HostId, state: RunState) -> Actor {
        Actor {
            rank,
            host,
            next: None,
            state,
            blocked_in: BlockedIn::default(),
            exit_code: None,
            exec: None,
            io: false,
            sleeping: false,
            sleep_timer: None,
            polling: false,
            timeout: None,
            timed_out: false,
            cpu_mark: 0.0,
            pending_flops: 0.0,
        }
    }

    /// The rank the actor acts as.
    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn host(&self) -> HostId {
        self.host
    }

    pub fn state(&self) -> RunState {
        self.state
    }

    pub fn blocked_in(&self) -> &BlockedIn {
        &self.blocked_in
    }

    /// Whether a computation of the actor is in progress.
    pub fn computing(&self) -> bool {
        self.exec.is_some()
    }

    /// Whether the actor sleeps until a timer.
    pub fn doing_io(&self) -> bool {
        self.io
    }

    pub fn sleeping(&self) -> bool {
        self.sleeping
    }

    /// The actor's exit code, once it is done.
    pub fn exit_code(&self) -> Option<i32> {
        self.exit_code
    }
}

/// Who owns a fluid action.
#[derive(Debug, Clone, Copy)]
enum ActionOwner {
    /// A computation of this actor.
    Exec(usize),
    Transfer(TransferId),
    /// A disk operation of this actor.
    Io(usize),
}

/// The owners of the running fluid actions, by the action's slot (a
/// vector: a hash map cost a message a few hundred instructions).
///
/// The solver frees an action's slot as soon as the action ends, while
/// its owner waits in [`Core::ended`] until [`Core::next_finished`] gets
/// to it; an action started meanwhile (by the owner of a transfer that
/// arrived first) may take that slot. The owner it displaces is kept in
/// `displaced`, so that ids are told apart as the hash map did.
#[derive(Default)]
struct Owners {
    by_slot: Vec<Option<(ActionId, ActionOwner)>>,
    displaced: FxHashMap<ActionId, ActionOwner>,
}

impl Owners {
    fn insert(&mut self, id: ActionId, owner: ActionOwner) {
        let slot = id.slot();
        if self.by_slot.len() <= slot {
            self.by_slot.resize(slot + 1, None);
        }
        if let Some((old, old_owner)) = self.by_slot[slot].replace((id, owner)) {
            if old != id {
                self.displaced.insert(old, old_owner);
            }
        }
    }

    /// The owner of live action `id` (the updates of a solve name only
    /// live actions, which nothing displaced).
    fn get(&self, id: &ActionId) -> Option<ActionOwner> {
        self.by_slot
            .get(id.slot())
            .copied()
            .flatten()
            .filter(|(owned, _)| owned == id)
            .map(|(_, owner)| owner)
    }

    /// The owner of `id`, forgotten; None for an action nobody owns.
    fn remove(&mut self, id: &ActionId) -> Option<ActionOwner> {
        if let Some(entry) = self.by_slot.get_mut(id.slot()) {
            if let Some((owned, owner)) = *entry {
                if owned == *id {
                    *entry = None;
                    return Some(owner);
                }
            }
        }
        if self.displaced.is_empty() {
            None
        } else {
            self.displaced.remove(id)
        }
    }
}

/// How a sleep began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sleep {
    /// Nothing else could run or happen first: the clock moved to the end
    /// of the sleep and the actor goes on.
    InPlace,
    /// The actor is blocked until its timer; it must park.
    Blocked,
}

/// Polls in a row with nothing else able to run and no event pending but
/// the polls' own, after which the polling rank is a livelock: what it
/// polls for can never come. (A loop polling until a deadline, with
/// SimGrid's growing poll costs, has reached 5e9 s of simulated time by
/// then.)
pub const LIVELOCK_POLLS: u64 = 10_000_000;

/// The discrete-event core.
pub struct Core {
    now: f64,
    platform: Platform,
    model: NetModel,
    /// The actors: rank i's main actor is actor i, then the actors ranks
    /// created, in creation order.
    actors: Vec<Actor>,
    /// Number of ranks.
    ranks: usize,
    /// The actor now running (meaningful while an actor runs).
    current: usize,
    ready: VecDeque<usize>,
    timers: Timers,
    fluid: fluidnet::System,
    /// Fluid actions that ended at the last advance, not yet handled.
    ended: VecDeque<ActionId>,
    /// Transfers that ended at this date, not yet handed out: (when each
    /// started, its last update, it), the next one to hand out last.
    arrivals: Vec<(f64, u64, TransferId)>,
    /// Updates of SimGrid's network heap so far: a transfer's start (its
    /// latency's entry) and each new completion date SimGrid gives a flow
    /// after a solve (see `fluidnet::order`); its stability counter.
    net_updates: u64,
    /// Fluid actions SimGrid updates after a solve, in its order.
    updated: Vec<ActionId>,
    /// Fluid resources of each platform link: [shared or up half, down half].
    link_resources: Vec<[ResourceId; 2]>,
    host_cpus: Vec<ResourceId>,
    /// The fluid resources of each platform disk.
    disk_resources: Vec<io::DiskResources>,
    /// Each host's power state (SimGrid's pstate), and the CPU resources
    /// of the pstates a host has been in (a pstate's speed is its
    /// resource's capacity).
    pstates: Vec<usize>,
    pstate_cpus: FxHashMap<(HostId, usize), ResourceId>,
    /// Host energy (SimGrid's host_energy plugin), when counted.
    energy: Option<Energy>,
    /// Whether each fluid resource (by index) is a FATPIPE.
    fatpipe: Vec<bool>,
    owners: Owners,
    transfers: Vec<Option<Transfer>>,
    free_transfers: Vec<u32>,
    /// Under UGAL routing, the messages in flight (latency phase or flow)
    /// whose route crosses each fluid resource.
    in_flight: Vec<u32>,
    /// Valiant salts drawn so far (each transfer that might take a Valiant
    /// route draws one, so runs are reproducible).
    route_draws: u64,
    /// Scratch buffers of `start_transfer` and `start_flow`, kept so that a
    /// message allocates nothing for its route.
    scratch: FlowScratch,
    /// The fluid resources of transfers in their latency phase come from
    /// here and go back when their flows start.
    spare_uses: Vec<Vec<(ResourceId, f64)>>,
    /// The fluid actions that ended at an advance (reused buffer).
    done: Vec<ActionId>,
    /// The flows of the pairs of hosts that exchanged messages lately.
    known_flows: Vec<net::KnownSlot>,
    /// The IB model's nodes, under `network/model:IB`.
    ib: Option<ib::Ib>,
    /// The network's statistics, when asked for (`smpi/network-stats`).
    net_stats: Option<netstats::NetStats>,
    /// Links whose flows changed at this date, to sample once solved:
    /// (resource, the link's use, the flow that started, if one did).
    load_samples: Vec<(ResourceId, platforms::LinkUse, Option<ActionId>)>,
    /// Hosts whose computations started or ended at this date, whose use
    /// the observers are told after the solve (`None`: not sampled).
    host_samples: Option<Vec<HostId>>,
    /// The transfers whose IB bound an event changed (reused buffer).
    ib_changed: Vec<(TransferId, f64)>,
    /// Set when the simulation cannot go on (for example a missing route).
    failure: Option<String>,
    /// Cores of each host set aside for progression (`smpi/progress:
    /// dedicated`).
    reserved_cores: u32,
    /// How much longer computations last (a progress thread's share).
    compute_scale: f64,
    /// Yields in a row with nothing else able to run and no event pending
    /// (see [`LIVELOCK_YIELDS`]).
    idle_yields: u64,
    /// Whether actors take turns where SimGrid's make simcalls
    /// ([`Core::pass_turn`]).
    turns: bool,
    /// Number of started actors not yet done.
    live: usize,
    observers: Observers,
    /// The date the clock must not pass (`smpi/simulated-time-limit`;
    /// infinity: none).
    simulated_limit: f64,
    /// Raised by the wall-time watchdog (`engine::limit`).
    stop: Option<Arc<StopSignal>>,
}

impl Core {
    /// The core for `hosts.len()` ranks, rank i on `hosts[i]`, all ready.
    pub fn new(platform: Platform, model: NetModel, hosts: Vec<HostId>) -> Self {
        let mut fluid = fluidnet::System::new(model.precision);
        if model.simgrid_order {
            fluid.keep_update_order();
        }
        let split = platform
            .links()
            .iter()
            .filter(|l| l.sharing == platforms::Sharing::SplitDuplex)
            .count();
        fluid.reserve_resources(platform.links().len() + split + platform.hosts().len());
        let link_resources: Vec<[ResourceId; 2]> = platform
            .links()
            .iter()
            .map(|l| match l.sharing {
                platforms::Sharing::Shared => {
                    let r = fluid.add_resource(l.bandwidth, fluidnet::Sharing::Shared);
                    [r, r]
                }
                platforms::Sharing::FatPipe => {
                    let r = fluid.add_resource(l.bandwidth, fluidnet::Sharing::FatPipe);
                    [r, r]
                }
                platforms::Sharing::SplitDuplex => [
                    fluid.add_resource(l.bandwidth, fluidnet::Sharing::Shared),
                    fluid.add_resource(l.bandwidth, fluidnet::Sharing::Shared),
                ],
            })
            .collect();
        let host_cpus: Vec<ResourceId> = platform
            .hosts()
            .iter()
            .map(|h| {
                fluid.add_resource(
                    h.speed * f64::from(h.cores.max(1)),
                    fluidnet::Sharing::Shared,
                )
            })
            .collect();
        let mut fatpipe = vec![false; fluid_resource_count(&link_resources, &host_cpus)];
        let in_flight = if model.routing == RoutingChoice::Ugal {
            vec![0; fatpipe.len()]
        } else {
            Vec::new()
        };
        for (l, pair) in platform.links().iter().zip(&link_resources) {
            if matches!(l.sharing, platforms::Sharing::FatPipe) {
                fatpipe[pair[0].0 as usize] = true;
            }
        }
        let disk_resources = io::disk_resources(&platform, &mut fluid);
        let pstates = platform.hosts().iter().map(|h| h.pstate).collect();
        let ib = model
            .ib
            .map(|factors| ib::Ib::new(factors, model.precision.timing, platform.hosts().len()));
        let n = hosts.len();
        let known_slots = net::known_flow_slots(n);
        let actors = hosts
            .into_iter()
            .enumerate()
            .map(|(rank, host)| Actor::new(rank, host, RunState::Ready))
            .collect();
        Self {
            now: 0.0,
            platform,
            model,
            actors,
            ranks: n,
            current: 0,
            ready: (0..n).collect(),
            timers: Timers::default(),
            fluid,
            ended: VecDeque::new(),
            arrivals: Vec::new(),
            net_updates: 0,
            updated: Vec::new(),
            link_resources,
            host_cpus,
            disk_resources,
            pstates,
            pstate_cpus: FxHashMap::default(),
            energy: None,
            fatpipe,
            owners: Owners::default(),
            transfers: Vec::new(),
            free_transfers: Vec::new(),
            in_flight,
            route_draws: 0,
            scratch: FlowScratch::default(),
            spare_uses: Vec::new(),
            done: Vec::new(),
            known_flows: (0..known_slots)
                .map(|_| net::KnownSlot::default())
                .collect(),
            ib,
            net_stats: None,
            load_samples: Vec::new(),
            host_samples: None,
            ib_changed: Vec::new(),
            failure: None,
            reserved_cores: 0,
            compute_scale: 1.0,
            idle_yields: 0,
            turns: true,
            live: n,
            observers: Observers::default(),
            simulated_limit: f64::INFINITY,
            stop: None,
        }
    }

    /// The simulated date, in seconds.
    pub fn now(&self) -> f64 {
        self.now
    }

    pub fn platform(&self) -> &Platform {
        &self.platform
    }

    pub fn model(&self) -> &NetModel {
        &self.model
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.ranks
    }

    /// Actor `actor` (rank `r`'s main actor is actor `r`).
    pub fn actor(&self, actor: usize) -> &Actor {
        &self.actors[actor]
    }

    /// Every actor, ranks' main actors first.
    pub fn actors(&self) -> &[Actor] {
        &self.actors
    }

    /// The running actor.
    pub fn running(&self) -> &Actor {
        &self.actors[self.current]
    }

    /// The running actor.
    pub fn running_mut(&mut self) -> &mut Actor {
        &mut self.actors[self.current]
    }

    /// Creates an actor of `rank` on the rank's host, not started yet
    /// ([`RunState::Created`]); its number.
    pub fn create_actor(&mut self, rank: usize) -> usize {
        let id = self.actors.len();
        let host = self.actors[rank].host;
        self.actors.push(Actor::new(rank, host, RunState::Created));
        let mut last = rank;
        while let Some(next) = self.actors[last].next {
            last = next;
        }
        self.actors[last].next = Some(id);
        debug!(target: ENGINE, "rank {rank} creates actor {id}");
        id
    }

    /// Starts a created actor: it becomes ready (after those already
    /// ready), and the simulation runs until it is done too. False if it
    /// was started already.
    pub fn start_actor(&mut self, actor: usize) -> bool {
        let a = &mut self.actors[actor];
        if a.state != RunState::Created {
            return false;
        }
        a.state = RunState::Ready;
        self.live += 1;
        self.ready.push_back(actor);
        true
    }

    /// The observers of the simulation.
    pub fn observers_ref(&self) -> &Observers {
        &self.observers
    }

    /// The observers of the simulation (attach them before it runs).
    pub fn observers(&mut self) -> &mut Observers {
        &mut self.observers
    }

    /// The rank of the running actor.
    pub fn current(&self) -> usize {
        self.actors[self.current].rank
    }

    /// The running actor.
    pub fn current_actor(&self) -> usize {
        self.current
    }

    /// Makes `actor` the running one (the maestro, before resuming it).
    pub fn set_current(&mut self, actor: usize) {
        self.current = actor;
    }

    /// The host of `rank`.
    pub fn host_of(&self, rank: usize) -> HostId {
        self.actors[rank].host
    }

    /// The speed of `rank`'s host at its pstate, in flop/s per core.
    pub fn speed_of(&self, rank: usize) -> f64 {
        self.host_speed(self.actors[rank].host)
    }

    /// The speed of `host` at its pstate, in flop/s per core.
    pub fn host_speed(&self, host: HostId) -> f64 {
        self.platform.host(host).pstate_speeds()[self.pstates[host.0 as usize]]
    }

    /// The pstate `host` is in.
    pub fn pstate(&self, host: HostId) -> usize {
        self.pstates[host.0 as usize]
    }

    /// Puts `host` in `pstate` (a valid index of its pstates): the
    /// computations running there go on at the new speed, and its energy
    /// is counted at the new power from now.
    pub fn set_pstate(&mut self, host: HostId, pstate: usize) {
        let h = host.0 as usize;
        let old = self.pstates[h];
        if pstate == old {
            return;
        }
        if let Some(e) = &mut self.energy {
            e.pstate_changed(host, pstate, self.now);
        }
        self.pstates[h] = pstate;
        self.pstate_cpus.insert((host, old), self.host_cpus[h]);
        let speed = self.host_speed(host);
        let cores = f64::from(self.computing_cores(host));
        let fluid = &mut self.fluid;
        let cpu = *self
            .pstate_cpus
            .entry((host, pstate))
            .or_insert_with(|| fluid.add_resource(speed * cores, fluidnet::Sharing::Shared));
        self.host_cpus[h] = cpu;
        if self.fatpipe.len() <= cpu.0 as usize {
            self.fatpipe.resize(cpu.0 as usize + 1, false);
        }
        // A fluid action keeps its resource and bound: the computations of
        // the host go on as new actions of what they have left.
        for actor in 0..self.actors.len() {
            let Some(old_id) = self.actors[actor]
                .exec
                .filter(|_| self.actors[actor].host == host)
            else {
                continue;
            };
            let left = self.fluid.remaining(old_id);
            self.fluid.cancel(old_id);
            self.owners.remove(&old_id);
            self.start_exec_action(actor, left);
        }
        debug!(target: ENGINE, "host {} enters pstate {pstate} ({speed:e} flop/s)", self.platform.host(host).name);
    }

    /// The fluid action of `flops` of `actor`'s computation on its host's
    /// CPU, at most one core's speed at the host's pstate.
    fn start_exec_action(&mut self, actor: usize, flops: f64) {
        let host = self.actors[actor].host;
        let speed = self.host_speed(host);
        let cpu = self.host_cpus[host.0 as usize];
        let id = self.fluid.start(&ActionSpec {
            amount: flops,
            penalty: 1.0,
            bound: Some(speed),
            factor: 1.0,
            uses: &[(cpu, 1.0)],
        });
        self.owners.insert(id, ActionOwner::Exec(actor));
        self.actors[actor].exec = Some(id);
    }

    /// Tells the observers each host's use of its cores
    /// ([`observe::Observer::host_load`]) whenever a computation starts
    /// or ends on it, from now on.
    pub fn sample_hosts(&mut self) {
        self.host_samples.get_or_insert_default();
    }

    /// The observers' samples of the hosts whose computations changed at
    /// this date, after the solve that gave the new rates.
    fn sample_host_loads(&mut self) {
        let Some(samples) = &mut self.host_samples else {
            return;
        };
        samples.sort_unstable();
        samples.dedup();
        let now = self.now;
        for &host in samples.iter() {
            let used = self.fluid.usage(self.host_cpus[host.0 as usize]);
            self.observers
                .each(|o| o.host_load(now, host.0 as usize, used));
        }
        samples.clear();
    }

    /// A computation started or ended on `host`: its energy and its
    /// load's sample follow.
    fn computation_changed(&mut self, host: HostId, started: bool) {
        if let Some(e) = &mut self.energy {
            if started {
                e.compute_started(host, self.now);
            } else {
                e.compute_ended(host, self.now);
            }
        }
        if let Some(samples) = &mut self.host_samples {
            samples.push(host);
        }
    }

    /// Starts counting host energy from now (SimGrid's host_energy
    /// plugin); returns the hosts that have no watts per pstate.
    pub fn count_energy(&mut self) -> Result<Vec<String>, EnergyError> {
        let (mut energy, unprofiled) = Energy::new(&self.platform, self.now)?;
        for (h, &p) in self.pstates.iter().enumerate() {
            energy.pstate_changed(HostId(h as u32), p, self.now);
        }
        for r in self.actors.iter().filter(|r| r.exec.is_some()) {
            energy.compute_started(r.host, self.now);
        }
        self.energy = Some(energy);
        Ok(unprofiled)
    }

    /// The host energy, when counted.
    pub fn energy(&mut self) -> Option<&mut Energy> {
        self.energy.as_mut()
    }

    /// Every host's energy up to `end`, when counted.
    pub fn energy_report(&mut self, end: f64) -> Option<Vec<energy::HostReport>> {
        let e = self.energy.as_mut()?;
        Some(e.report(&self.platform, end))
    }

    /// Number of started actors not done yet.
    pub fn live(&self) -> usize {
        self.live
    }

    /// The actors of `rank`, its main one first, in creation order.
    pub fn actors_of(&self, rank: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(rank), |&a| self.actors[a].next)
    }

    /// Ends `actor` with `code` wherever it is (its rank ended): its
    /// computation stops and its timers are dropped.
    pub fn end_actor(&mut self, actor: usize, code: i32) {
        if let Some(id) = self.actors[actor].exec.take() {
            self.fluid.cancel(id);
            self.owners.remove(&id);
            self.computation_changed(self.actors[actor].host, false);
        }
        let a = &mut self.actors[actor];
        a.sleeping = false;
        let timers = [a.timeout.take(), a.sleep_timer.take()];
        let state = a.state;
        for seq in timers.into_iter().flatten() {
            self.timers.cancel(seq);
        }
        if state == RunState::Ready {
            self.ready.retain(|&r| r != actor);
        }
        let a = &mut self.actors[actor];
        if state == RunState::Created {
            // Never started: it never counted as live.
            a.state = RunState::Done;
            a.exit_code = Some(code);
            return;
        }
        self.finish(actor, code);
    }

    /// Makes the blocked actors of `rank` ready again, main actor first.
    pub fn wake(&mut self, rank: usize) {
        let mut actor = Some(rank);
        while let Some(a) = actor {
            self.wake_actor(a);
            actor = self.actors[a].next;
        }
    }

    /// Makes `actor` ready again if it is blocked.
    pub fn wake_actor(&mut self, actor: usize) {
        let a = &mut self.actors[actor];
        if a.state == RunState::Blocked {
            a.state = RunState::Ready;
            a.blocked_in = BlockedIn::default();
            self.ready.push_back(actor);
        }
    }

    /// Marks the running actor blocked in `call` (the caller then parks).
    pub fn block_current(&mut self, call: &'static str, detail: Detail) {
        let a = &mut self.actors[self.current];
        a.polling = false;
        a.state = RunState::Blocked;
        a.blocked_in = BlockedIn { call, detail };
    }

    /// The next actor to run, in FIFO order.
    pub fn pop_ready(&mut self) -> Option<usize> {
        self.ready.pop_front()
    }

    /// The actor [`Self::pop_ready`] would give next, if one is ready.
    pub fn next_ready(&self) -> Option<usize> {
        self.ready.front().copied()
    }

    /// Records that `actor` is finished with `code`.
    pub fn finish(&mut self, actor: usize, code: i32) {
        let a = &mut self.actors[actor];
        if a.state != RunState::Done {
            a.state = RunState::Done;
            a.exit_code = Some(code);
            self.live -= 1;
            debug!(target: ENGINE, "actor {actor} (rank {}) ends with code {code}", a.rank);
        }
    }

    /// The first non-zero exit code of the actors, ranks first, or 0.
    pub fn exit_code(&self) -> i32 {
        self.actors
            .iter()
            .filter_map(|r| r.exit_code)
            .find(|&c| c != 0)
            .unwrap_or(0)
    }

    /// Why the simulation cannot go on, if it cannot (taken once).
    pub fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    /// Starts the sleep of the running actor for `seconds`, blocked in
    /// `call`. When no other actor is ready and no event comes first, the
    /// clock moves to the wake-up date at once: the maestro would only do
    /// that and resume the actor (a failed MPI_Iprobe in a polling loop,
    /// often). Same simulation, two switches fewer.
    pub fn start_sleep(&mut self, seconds: f64, call: &'static str) -> Sleep {
        self.start_wait(seconds, call, Wake::Slept)
    }

    /// [`Core::start_sleep`], for a wait SimGrid models as `wake`.
    pub fn start_wait(&mut self, seconds: f64, call: &'static str, wake: Wake) -> Sleep {
        let at = self.now + seconds;
        // Not past a time limit: the maestro, which stops the run, must see
        // it (a sleep that would pass the simulated one, or any sleep once
        // the wall-time one is raised, parks).
        if self.ready.is_empty()
            && self.next_event().is_none_or(|next| next > at)
            && at <= self.simulated_limit
            && !self.stop_raised()
        {
            self.advance(at);
            return Sleep::InPlace;
        }
        let actor = self.current;
        trace!(target: ENGINE, "actor {actor} sleeps until {at:.9} s ({call})");
        self.actors[actor].sleeping = true;
        self.actors[actor].sleep_timer = Some(self.timers.add_wake(self.now, at, actor, wake));
        self.block_current(call, Detail::Sleep(seconds));
        Sleep::Blocked
    }

    /// Arms a timeout of the running actor at date `at` (a timed wait):
    /// unless disarmed first, the actor is woken then and
    /// [`Core::take_timed_out`] says so.
    pub fn arm_timeout(&mut self, at: f64) {
        self.disarm_timeout();
        self.actors[self.current].timed_out = false;
        let actor = self.current;
        let seq = self
            .timers
            .add(self.now, at.max(self.now), TimerEvent::Timeout(actor));
        self.actors[actor].timeout = Some(seq);
    }

    /// Disarms the running actor's timeout, if armed.
    pub fn disarm_timeout(&mut self) {
        if let Some(seq) = self.actors[self.current].timeout.take() {
            self.timers.cancel(seq);
        }
    }

    /// Whether the running actor's timeout ran out since it was armed
    /// (taken: the next call says false).
    pub fn take_timed_out(&mut self) -> bool {
        std::mem::take(&mut self.actors[self.current].timed_out)
    }

    /// Starts a yield of the running actor (`sched_yield`, a polling
    /// loop): when others are ready it goes behind them; when the others
    /// ready are polling too (they yielded and did nothing else since),
    /// or none is, it sleeps until the next event, since they could only
    /// poll until then; with no event to come it goes on
    /// ([`Sleep::InPlace`] when nothing else is ready).
    pub fn start_yield(&mut self, call: &'static str) -> Sleep {
        let actor = self.current;
        let all_polling = self.ready.iter().all(|&a| self.actors[a].polling);
        let wait = if !self.ready.is_empty() && !all_polling {
            None
        } else {
            self.next_event()
        };
        let idle = wait.is_none() && (self.ready.is_empty() || all_polling);
        self.idle_yields = if idle { self.idle_yields + 1 } else { 0 };
        if self.idle_yields >= LIVELOCK_POLLS {
            self.livelock(call, self.idle_yields);
        }
        if self.failure.is_some() {
            // Back to the maestro, which ends the run.
            self.actors[actor].state = RunState::Ready;
            self.ready.push_back(actor);
            return Sleep::Blocked;
        }
        let how = match wait {
            Some(next) => self.start_sleep(next - self.now, call),
            None if self.ready.is_empty() => Sleep::InPlace,
            None => {
                self.actors[actor].state = RunState::Ready;
                self.ready.push_back(actor);
                Sleep::Blocked
            }
        };
        self.actors[actor].polling = true;
        how
    }

    /// Where SimGrid's actor would hand its maestro a simcall answered at
    /// once (a send or a receive posted, a test's look, a wait on what is
    /// complete): SimGrid runs every ready actor up to its next simcall
    /// before it answers any, so the running actor goes behind the others
    /// ready at this date (true: it must park; false, with none ready, it
    /// goes on at no cost).
    pub fn pass_turn(&mut self) -> bool {
        if !self.turns || self.ready.is_empty() {
            return false;
        }
        let actor = self.current;
        self.actors[actor].state = RunState::Ready;
        self.ready.push_back(actor);
        true
    }

    /// Whether actors take turns where SimGrid's make simcalls (see
    /// [`Core::pass_turn`]; on by default).
    pub fn set_turns(&mut self, on: bool) {
        self.turns = on;
    }

    /// Whether actors take turns (see [`Core::set_turns`]).
    pub fn takes_turns(&self) -> bool {
        self.turns
    }

    /// Sets the progression model's costs, before any actor runs: `cores`
    /// of each host set aside (every host must have more), computations
    /// `scale` times as long.
    pub fn set_progression(&mut self, cores: u32, scale: f64) -> Result<(), String> {
        if cores > 0 {
            if let Some(h) = self.platform.hosts().iter().find(|h| h.cores <= cores) {
                return Err(format!(
                    "smpi/progress:dedicated sets {cores} core of every host aside for \
                     progression, but host '{}' has {} (give the hosts more cores in the \
                     platform: core=\"N\" in XML, cores=N in a compact spec)",
                    h.name, h.cores
                ));
            }
            self.reserved_cores = cores;
            for i in 0..self.host_cpus.len() {
                let host = HostId(i as u32);
                let capacity = self.host_speed(host) * f64::from(self.computing_cores(host));
                let cpu = self.fluid.add_resource(capacity, fluidnet::Sharing::Shared);
                self.host_cpus[i] = cpu;
                if self.fatpipe.len() <= cpu.0 as usize {
                    self.fatpipe.resize(cpu.0 as usize + 1, false);
                }
            }
        }
        self.compute_scale = scale;
        Ok(())
    }

    /// The cores of `host` that compute.
    fn computing_cores(&self, host: HostId) -> u32 {
        self.platform.host(host).cores.max(1) - self.reserved_cores
    }

    /// Nothing but the running actor can act: no other actor is ready and
    /// no event is pending.
    pub fn alone(&mut self) -> bool {
        self.ready.is_empty() && self.next_event().is_none()
    }

    /// Ends the run (through [`Core::take_failure`]): the running actor
    /// made `polls` polls with `call` in a row while nothing else could
    /// happen.
    pub fn livelock(&mut self, call: &'static str, polls: u64) {
        if self.failure.is_some() {
            return;
        }
        self.failure = Some(format!(
            "smpirun: livelock at simulated time {:.6} s: rank {} polls with {call} ({polls} \
             polls in a row) while every other rank is blocked or polls too and nothing else \
             is pending: what it polls for can never come. Check what it waits for (a message \
             never sent, a request never started)",
            self.now, self.actors[self.current].rank
        ));
    }

    /// Starts a computation of `flops` for the running actor on its host;
    /// the actor is blocked in `call` until it ends.
    pub fn start_exec(&mut self, flops: f64, call: &'static str) {
        let flops = flops * self.compute_scale;
        let actor = self.current;
        let Actor { rank, host, .. } = self.actors[actor];
        self.computation_changed(host, true);
        self.start_exec_action(actor, flops);
        self.block_current(call, Detail::Compute(flops));
        debug!(target: ENGINE, "actor {actor} (rank {rank}) computes {flops:e} flops ({call})");
        if !self.observers.is_empty() {
            let at = self.now;
            self.observers.each(|o| o.compute_start(at, rank, flops));
        }
    }

    /// Sets the run's time limits: the date the clock must not pass, and
    /// the flag of the wall-time watchdog.
    pub fn set_limits(&mut self, simulated: Option<f64>, stop: Option<Arc<StopSignal>>) {
        self.simulated_limit = simulated.unwrap_or(f64::INFINITY);
        self.stop = stop;
    }

    /// The date the clock must not pass (infinity: none).
    pub fn simulated_limit(&self) -> f64 {
        self.simulated_limit
    }

    /// Whether the wall-time watchdog asks the run to stop.
    #[inline]
    pub fn stop_raised(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.raised())
    }

    /// Takes the watchdog's request: false if the watchdog is already
    /// ending the process (the caller must then wait for it).
    pub fn claim_stop(&self) -> bool {
        self.stop.as_ref().is_none_or(|s| s.stop())
    }

    /// The date of the next event, if any.
    pub fn next_event(&mut self) -> Option<f64> {
        let timer = self.timers.next();
        let flow = self.fluid.next_completion();
        self.renew_updates();
        if !self.load_samples.is_empty() {
            // The rates are solved now.
            self.sample_loads();
        }
        if self.host_samples.as_ref().is_some_and(|s| !s.is_empty()) {
            self.sample_host_loads();
        }
        match (timer, flow) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Moves the clock to `t`. What ends then is handled by
    /// [`Core::next_finished`], which the caller must drain.
    pub fn advance(&mut self, t: f64) {
        let t = t.max(self.now);
        let mut done = std::mem::take(&mut self.done);
        self.fluid.advance(t, &mut done);
        for a in done.drain(..) {
            self.ended.push_back(a);
        }
        self.done = done;
        self.now = t;
        context::publish_time(t);
        trace!(target: ENGINE, "the clock moves to {t:.9} s");
    }

    /// Handles what ends at the current date, in SimGrid's order (the
    /// timers as `engine/timer.rs` orders them, then computations, then
    /// the transfers that arrive, the earlier started first and, started
    /// at one date, the last started first, or with `smpi/simgrid-order`
    /// in the order of SimGrid's last updates of them), which decides the order in
    /// which ranks polling at one date read SimGrid's shared counters (see
    /// `mpi::poll`): ends computations and sleeps (their actors become
    /// ready) and starts the flows of transfers whose latency is over;
    /// returns the arrived transfers one at a time, for their owners to
    /// complete.
    pub fn next_finished(&mut self) -> Option<TransferId> {
        if let Some(id) = self.next_arrival() {
            return Some(id);
        }
        // Timers due within the timing precision of the date are due now,
        // as the fluid actions are: SimGrid's heaps give up what is due
        // within surf/precision of the date (a latency ending 0.5 ns after
        // a flow's end starts its own flow then; 16 ranks' allreduces of 4
        // then 16 bytes ended 1 ns late).
        let due = self.now + self.model.precision.timing;
        while let Some(event) = self.timers.pop_due(due) {
            match event {
                TimerEvent::Wake(actor) => {
                    self.actors[actor].sleeping = false;
                    self.actors[actor].sleep_timer = None;
                    self.wake_actor(actor);
                }
                TimerEvent::Timeout(actor) => {
                    let a = &mut self.actors[actor];
                    a.timeout = None;
                    a.timed_out = true;
                    self.wake_actor(actor);
                }
                TimerEvent::LatencyDone(id) => self.start_flow(id),
                TimerEvent::TransferDone(id) => self.ended_transfer(id),
            }
        }
        // SimGrid frees what ended after enabling what begins (see
        // `fluidnet::System::flush_frees`; nothing without it).
        self.fluid.flush_frees();
        while let Some(action) = self.ended.pop_front() {
            match self.owners.remove(&action) {
                Some(ActionOwner::Exec(actor)) => {
                    self.actors[actor].exec = None;
                    self.computation_changed(self.actors[actor].host, false);
                    self.wake_actor(actor);
                    if !self.observers.is_empty() {
                        let (at, rank) = (self.now, self.actors[actor].rank);
                        self.observers.each(|o| o.compute_end(at, rank));
                    }
                }
                Some(ActionOwner::Io(actor)) => {
                    self.actors[actor].io = false;
                    self.wake_actor(actor);
                }
                Some(ActionOwner::Transfer(id)) => self.ended_transfer(id),
                None => {}
            }
        }
        if self.arrivals.len() > 1 {
            if self.model.simgrid_order {
                // SimGrid's network heap is stable: what ends at one date
                // ends by date, then in the order of the last updates
                // (`renew_updates`), as the fluid system handed them out.
                self.arrivals.reverse();
            } else {
                // Begun at different dates, the earlier begun first; begun
                // at one date, the last begun first: SimGrid's order when
                // nothing changed their rates (see `engine/timer.rs`).
                self.arrivals
                    .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            }
        }
        self.next_arrival()
    }

    /// Numbers the updates SimGrid's network model makes after a solve:
    /// each flow whose constraints changed gets a new completion date, in
    /// SimGrid's order, and a later place among the ones ending with it
    /// (with `smpi/simgrid-order` only).
    fn renew_updates(&mut self) {
        if !self.model.simgrid_order {
            return;
        }
        let mut updated = std::mem::take(&mut self.updated);
        self.fluid.take_updated(&mut updated);
        for action in updated.drain(..) {
            if let Some(ActionOwner::Transfer(id)) = self.owners.get(&action) {
                if let Some(t) = self.transfers[id.0 as usize].as_mut() {
                    self.net_updates += 1;
                    t.stamp = self.net_updates;
                    self.fluid.set_order_key(action, t.stamp);
                }
            }
        }
        self.updated = updated;
    }

    /// Keeps transfer `id`, which ended at this date, to hand out.
    fn ended_transfer(&mut self, id: TransferId) {
        if let Some(t) = self.transfers.get(id.0 as usize).and_then(Option::as_ref) {
            self.arrivals.push((t.started, t.stamp, id));
        }
    }

    /// The next transfer that ended at this date, marked arrived.
    fn next_arrival(&mut self) -> Option<TransferId> {
        while let Some((_, _, id)) = self.arrivals.pop() {
            if self.arrive(id) {
                return Some(id);
            }
        }
        None
    }
}

fn fluid_resource_count(links: &[[ResourceId; 2]], cpus: &[ResourceId]) -> usize {
    links
        .iter()
        .flatten()
        .chain(cpus)
        .map(|r| r.0 as usize + 1)
        .max()
        .unwrap_or(0)
}
