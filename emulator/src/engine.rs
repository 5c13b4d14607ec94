//! The discrete-event engine: the simulated clock, the timer queue, the
//! fluid model of hosts and links, the ranks' run states, and the maestro
//! loop that resumes ranks in a deterministic order.
//!
//! All simulation state lives in one [`World`] owned by a thread-local. Rank
//! code (inside an MPI call) and the maestro both reach it through [`with`],
//! and nobody holds it across a coroutine switch or a call into C code, so
//! the `RefCell` never sees overlapping borrows.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::fmt;
use std::rc::Rc;

use fluidnet::{ActionId, ActionSpec, ResourceId};
use platforms::{Direction, HostId, LinkUse, Platform};
use rustc_hash::FxHashMap;

use crate::context::{self, Suspend};
use crate::mpi::Mpi;
use crate::netmodel::{NetModel, RoutingChoice};

thread_local! {
    static WORLD: RefCell<Option<World>> = const { RefCell::new(None) };
}

/// Runs `f` on the world. Panics if called outside a simulation or from
/// inside another `with` (which would be a bug in the runtime).
/// From a rank, `f` runs on the maestro's stack (see
/// [`context::off_rank_stack`]).
pub fn with<R>(f: impl FnOnce(&mut World) -> R) -> R {
    context::off_rank_stack(|| {
        WORLD.with(|cell| {
            let mut guard = cell
                .try_borrow_mut()
                .expect("internal error: re-entrant access to the simulation state");
            let world = guard
                .as_mut()
                .expect("MPI was called outside smpirun (no simulation is running)");
            f(world)
        })
    })
}

/// Installs `world` as this thread's simulation.
pub fn install(world: World) {
    WORLD.with(|cell| *cell.borrow_mut() = Some(world));
}

/// Removes and returns this thread's simulation.
pub fn uninstall() -> Option<World> {
    WORLD.with(|cell| cell.borrow_mut().take())
}

/// A rank's run state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// In the ready queue (or running now).
    Ready,
    /// Waiting for a request, a timer or a computation.
    Blocked,
    /// Returned from main, called exit, or aborted.
    Done,
}

/// Reused buffers for computing a flow: the route, the reverse route, the
/// links' (bandwidth, latency) and the fluid resources used.
#[derive(Default)]
struct FlowScratch {
    route: Vec<LinkUse>,
    back: Vec<LinkUse>,
    links: Vec<(f64, f64)>,
    uses: Vec<(ResourceId, f64)>,
}

/// What a blocked rank waits in, for the deadlock report.
#[derive(Debug, Clone, Default)]
pub struct BlockedIn {
    pub call: &'static str,
    pub detail: Detail,
}

/// What a blocked rank waits for. Kept as data and put into words only by
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
    /// Waiting for requests: the first incomplete one, and how many are.
    Requests {
        first: crate::mpi::ReqId,
        pending: usize,
    },
}

/// A simulated process.
pub struct Rank {
    pub host: HostId,
    pub state: RunState,
    pub blocked_in: BlockedIn,
    pub exit_code: Option<i32>,
    /// Bench clock (`smpi/bench-clock`) when this rank last returned from
    /// an MPI call.
    pub cpu_mark: f64,
    /// Flops of modelled kernels called since then (`smpi/blas:model`),
    /// spent with the burst they belong to at the next MPI call.
    pub pending_flops: f64,
    /// A computation in progress on the rank's host.
    pub exec: Option<ActionId>,
    /// Set while the rank sleeps until a timer.
    pub sleeping: bool,
}

/// Something that happens at a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerEvent {
    /// Ends a sleep of the rank.
    Wake(usize),
    /// Ends the latency phase of a transfer: its flow starts.
    LatencyDone(TransferId),
    /// Ends a whole transfer (`network/model:Constant`).
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

/// Index of a transfer in the world's transfer table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransferId(pub u32);

/// A message moving through the network: latency phase, then a flow.
pub struct Transfer {
    pub src_host: HostId,
    pub dst_host: HostId,
    pub bytes: usize,
    pub action: Option<ActionId>,
    pub done: bool,
    /// Set when the transfer takes a Valiant route: the salt that draws
    /// its intermediate router (the flow and its reverse use the same).
    valiant: Option<u64>,
    /// What to complete when the transfer ends (set by the MPI layer).
    pub on_done: crate::mpi::TransferHooks,
}

/// Who owns a fluid action.
#[derive(Debug, Clone, Copy)]
enum ActionOwner {
    Exec(usize),
    Transfer(TransferId),
}

/// How computation between MPI calls is simulated.
#[derive(Debug, Clone, Copy)]
pub struct Compute {
    /// smpi/cpu-threshold: shorter bursts are ignored (s).
    pub threshold: f64,
    /// smpi/host-speed: flop/s of the machine running the simulation.
    pub host_speed: f64,
    /// smpi/reduce-rate: bytes per second a rank reduces (local steps of
    /// reductions are charged as computation); 0 makes them free.
    pub reduce_rate: f64,
}

/// The whole simulation state.
pub struct World {
    pub now: f64,
    pub platform: Platform,
    pub model: NetModel,
    pub ranks: Vec<Rank>,
    /// The rank now running (meaningful inside MPI calls).
    pub current: usize,
    ready: VecDeque<usize>,
    timers: BinaryHeap<Timer>,
    timer_seq: u64,
    pub fluid: fluidnet::System,
    /// Fluid resources of each platform link: [shared or up half, down half].
    link_resources: Vec<[ResourceId; 2]>,
    host_cpus: Vec<ResourceId>,
    /// Whether each fluid resource (by index) is a FATPIPE.
    fatpipe: Vec<bool>,
    owners: FxHashMap<ActionId, ActionOwner>,
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
    pub mpi: Mpi,
    pub compute: Compute,
    /// Set by MPI_Abort: (rank, error code).
    pub aborted: Option<(usize, i32)>,
    /// Set when the simulation cannot go on (for example a missing route).
    pub failure: Option<String>,
    /// -quiet: no informational messages.
    pub quiet: bool,
    /// A lower thread level than asked for was reported already.
    pub thread_level_noted: bool,
    /// Number of ranks not yet done.
    live: usize,
    /// The program's globals when they are swapped between ranks
    /// (`smpi/privatization:swap`): the rank now running has its own in
    /// place, and code touching another rank's memory calls
    /// [`World::activate_memory`] first.
    pub segment: Option<Rc<privatize::DataSegment>>,
    /// The allocations of `SMPI_SHARED_MALLOC` (`smpi/shared-malloc`).
    pub folding: privatize::fold::Folding,
    /// The measures of `SMPI_SAMPLE_*` loops.
    pub sampling: crate::abi::sample::Sampling,
    /// The BLAS kernel models, under `smpi/blas:model`.
    pub kernel_models: Option<crate::kernels::KernelModels>,
}

impl World {
    /// Puts `rank`'s globals in place (swap privatization; nothing to do
    /// otherwise).
    pub fn activate_memory(&self, rank: usize) {
        if let Some(s) = &self.segment {
            s.activate(rank);
        }
    }

    /// Builds the world for `hosts.len()` ranks, rank i on `hosts[i]`.
    pub fn new(
        platform: Platform,
        model: NetModel,
        hosts: Vec<HostId>,
        mpi: Mpi,
        compute: Compute,
    ) -> Self {
        let mut fluid = fluidnet::System::new(model.precision);
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
        let n = hosts.len();
        let ranks = hosts
            .into_iter()
            .map(|host| Rank {
                host,
                state: RunState::Ready,
                blocked_in: BlockedIn::default(),
                exit_code: None,
                cpu_mark: 0.0,
                pending_flops: 0.0,
                exec: None,
                sleeping: false,
            })
            .collect();
        Self {
            now: 0.0,
            platform,
            model,
            ranks,
            current: 0,
            ready: (0..n).collect(),
            timers: BinaryHeap::new(),
            timer_seq: 0,
            fluid,
            link_resources,
            host_cpus,
            in_flight,
            fatpipe,
            owners: FxHashMap::default(),
            transfers: Vec::new(),
            free_transfers: Vec::new(),
            route_draws: 0,
            scratch: FlowScratch::default(),
            mpi,
            compute,
            aborted: None,
            failure: None,
            quiet: false,
            thread_level_noted: false,
            live: n,
            segment: None,
            folding: privatize::fold::Folding::new(privatize::fold::Strategy::Global, 1 << 20),
            sampling: Default::default(),
            kernel_models: None,
        }
    }

    pub fn size(&self) -> usize {
        self.ranks.len()
    }

    /// Makes a blocked rank ready again.
    pub fn wake(&mut self, rank: usize) {
        let r = &mut self.ranks[rank];
        if r.state == RunState::Blocked {
            r.state = RunState::Ready;
            r.blocked_in = BlockedIn::default();
            self.ready.push_back(rank);
        }
    }

    /// Marks the current rank blocked in `call` (the caller then parks).
    pub fn block_current(&mut self, call: &'static str, detail: Detail) {
        let r = &mut self.ranks[self.current];
        r.state = RunState::Blocked;
        r.blocked_in = BlockedIn { call, detail };
    }

    pub fn add_timer(&mut self, at: f64, event: TimerEvent) {
        self.timer_seq += 1;
        self.timers.push(Timer {
            at,
            seq: self.timer_seq,
            event,
        });
    }

    /// Starts a computation of `flops` for the current rank on its host.
    /// The flops that reducing `bytes` costs the current rank, at
    /// smpi/reduce-rate on its host.
    pub fn reduction_flops(&self, bytes: usize) -> f64 {
        if self.compute.reduce_rate <= 0.0 {
            return 0.0;
        }
        let host = self.ranks[self.current].host;
        bytes as f64 / self.compute.reduce_rate * self.platform.host(host).speed
    }

    pub fn start_exec(&mut self, flops: f64) {
        let rank = self.current;
        let host = self.ranks[rank].host;
        let speed = self.platform.host(host).speed;
        let cpu = self.host_cpus[host.0 as usize];
        let id = self.fluid.start(&ActionSpec {
            amount: flops,
            penalty: 1.0,
            bound: Some(speed),
            uses: &[(cpu, 1.0)],
        });
        self.owners.insert(id, ActionOwner::Exec(rank));
        self.ranks[rank].exec = Some(id);
    }

    /// Starts moving `bytes` from `src` to `dst`; `on_done` says what the
    /// MPI layer completes when it arrives.
    pub fn start_transfer(
        &mut self,
        src: HostId,
        dst: HostId,
        bytes: usize,
        on_done: crate::mpi::TransferHooks,
    ) -> TransferId {
        let valiant = self.choose_route(src, dst);
        let transfer = Transfer {
            src_host: src,
            dst_host: dst,
            bytes,
            action: None,
            done: false,
            valiant,
            on_done,
        };
        let id = match self.free_transfers.pop() {
            Some(i) => {
                self.transfers[i as usize] = Some(transfer);
                TransferId(i)
            }
            None => {
                self.transfers.push(Some(transfer));
                TransferId((self.transfers.len() - 1) as u32)
            }
        };
        let mut route = std::mem::take(&mut self.scratch.route);
        self.platform_route(src, dst, valiant, &mut route);
        let latency: f64 = route
            .iter()
            .map(|u| self.platform.link(u.link).latency)
            .sum();
        if self.model.constant {
            let bandwidth = route
                .iter()
                .map(|u| self.platform.link(u.link).bandwidth)
                .fold(f64::INFINITY, f64::min);
            self.scratch.route = route;
            let duration = latency + bytes as f64 / bandwidth;
            self.add_timer(self.now + duration, TimerEvent::TransferDone(id));
            return id;
        }
        let delay = latency * self.model.latency_factor(bytes);
        self.count_in_flight(&route, true);
        self.scratch.route = route;
        if bytes == 0 && std::env::var_os("NOZERO").is_none() {
            // Nothing to share bandwidth for: done when the latency is.
            // Kept out of the fluid system, where it would re-solve its
            // component twice for nothing (the zeros of a sparse
            // MPI_Alltoallv are most of its messages).
            self.add_timer(self.now + delay, TimerEvent::TransferDone(id));
        } else if delay > 0.0 {
            self.add_timer(self.now + delay, TimerEvent::LatencyDone(id));
        } else {
            self.start_flow(id);
        }
        id
    }

    /// Whether a new transfer from `src` to `dst` takes a Valiant route
    /// (its salt) or the minimal one (`None`), by `network/routing`.
    fn choose_route(&mut self, src: HostId, dst: HostId) -> Option<u64> {
        if self.model.routing == RoutingChoice::Minimal || src == dst {
            return None;
        }
        self.route_draws += 1;
        let salt = self
            .model
            .routing_seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(self.route_draws);
        if self.model.routing == RoutingChoice::Valiant {
            return Some(salt);
        }
        // UGAL: compare the messages in flight on both routes.
        let mut sc = std::mem::take(&mut self.scratch);
        self.platform_route(src, dst, None, &mut sc.route);
        self.platform_route(src, dst, Some(salt), &mut sc.back);
        let load = |route: &[LinkUse]| -> u64 {
            route
                .iter()
                .map(|u| u64::from(self.in_flight[self.resource_of(u).0 as usize]))
                .sum()
        };
        let valiant = load(&sc.route) > load(&sc.back);
        self.scratch = sc;
        valiant.then_some(salt)
    }

    /// The route from `src` to `dst` (a Valiant one for `Some(salt)`); a
    /// missing route stops the simulation with the platform's explanation.
    fn platform_route(
        &mut self,
        src: HostId,
        dst: HostId,
        valiant: Option<u64>,
        out: &mut Vec<LinkUse>,
    ) {
        let found = match valiant {
            None => self.platform.route(src, dst, out),
            Some(salt) => self.platform.valiant_route(src, dst, salt, out),
        };
        if let Err(e) = found {
            if self.failure.is_none() {
                self.failure = Some(format!(
                    "smpirun: rank {} sends a message from host '{}' to host '{}', but {e}",
                    self.current,
                    self.platform.host(src).name,
                    self.platform.host(dst).name
                ));
            }
            out.clear();
        }
    }

    fn resource_of(&self, u: &LinkUse) -> ResourceId {
        let pair = self.link_resources[u.link.0 as usize];
        match u.direction {
            Direction::Down => pair[1],
            _ => pair[0],
        }
    }

    /// The flow phase of a transfer: enters the max-min system.
    fn start_flow(&mut self, id: TransferId) {
        let (src, dst, bytes, valiant) = {
            let t = self.transfers[id.0 as usize]
                .as_ref()
                .expect("flow of a live transfer");
            (t.src_host, t.dst_host, t.bytes, t.valiant)
        };
        let mut sc = std::mem::take(&mut self.scratch);
        self.platform_route(src, dst, valiant, &mut sc.route);
        sc.links.clear();
        sc.links.extend(sc.route.iter().map(|u| {
            let l = self.platform.link(u.link);
            (l.bandwidth, l.latency)
        }));
        sc.uses.clear();
        sc.uses
            .extend(sc.route.iter().map(|u| (self.resource_of(u), 1.0)));
        if self.model.crosstraffic {
            self.platform_route(dst, src, valiant, &mut sc.back);
            sc.uses
                .extend(sc.back.iter().map(|u| (self.resource_of(u), 0.05)));
        }
        let uses = &mut sc.uses;
        // A resource on both the route and the reverse route (a SHARED
        // link used both ways) carries the sum of both coefficients; a
        // FATPIPE bounds each flow by its largest use (SimGrid's rules).
        uses.sort_by_key(|(r, _)| r.0);
        uses.dedup_by(|later, kept| {
            if later.0 != kept.0 {
                return false;
            }
            if self.fatpipe[kept.0 .0 as usize] {
                kept.1 = kept.1.max(later.1);
            } else {
                kept.1 += later.1;
            }
            true
        });
        let flow = self.model.flow(bytes, &sc.links);
        let action = self.fluid.start(&ActionSpec {
            amount: flow.amount,
            penalty: flow.penalty,
            bound: flow.bound,
            uses,
        });
        self.scratch = sc;
        self.owners.insert(action, ActionOwner::Transfer(id));
        if let Some(t) = self.transfers[id.0 as usize].as_mut() {
            t.action = Some(action);
        }
    }

    pub fn transfer(&self, id: TransferId) -> Option<&Transfer> {
        self.transfers.get(id.0 as usize).and_then(Option::as_ref)
    }

    pub fn transfer_mut(&mut self, id: TransferId) -> Option<&mut Transfer> {
        self.transfers
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
    }

    /// Forgets a finished transfer.
    pub fn release_transfer(&mut self, id: TransferId) {
        if let Some(slot) = self.transfers.get_mut(id.0 as usize) {
            if slot.take().is_some() {
                self.free_transfers.push(id.0);
            }
        }
    }

    /// The date of the next event, if any.
    fn next_event(&mut self) -> Option<f64> {
        let timer = self.timers.peek().map(|t| t.at);
        let flow = self.fluid.next_completion();
        match (timer, flow) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Moves the clock to `t` and handles everything that happens then.
    fn advance(&mut self, t: f64) {
        let t = t.max(self.now);
        let mut done = Vec::new();
        self.fluid.advance(t, &mut done);
        self.now = t;
        context::publish_time(t);
        for action in done {
            match self.owners.remove(&action) {
                Some(ActionOwner::Exec(rank)) => {
                    self.ranks[rank].exec = None;
                    self.wake(rank);
                }
                Some(ActionOwner::Transfer(id)) => self.finish_transfer(id),
                None => {}
            }
        }
        while self.timers.peek().is_some_and(|top| top.at <= t) {
            let Some(timer) = self.timers.pop() else {
                break;
            };
            match timer.event {
                TimerEvent::Wake(rank) => {
                    self.ranks[rank].sleeping = false;
                    self.wake(rank);
                }
                TimerEvent::LatencyDone(id) => self.start_flow(id),
                TimerEvent::TransferDone(id) => self.finish_transfer(id),
            }
        }
    }

    /// Under UGAL, adds (or removes) a message on each resource of `route`.
    fn count_in_flight(&mut self, route: &[LinkUse], add: bool) {
        if self.in_flight.is_empty() {
            return;
        }
        for u in route {
            let r = self.resource_of(u).0 as usize;
            self.in_flight[r] = if add {
                self.in_flight[r] + 1
            } else {
                self.in_flight[r].saturating_sub(1)
            };
        }
    }

    fn finish_transfer(&mut self, id: TransferId) {
        let (hooks, src, dst, valiant) = match self.transfer_mut(id) {
            Some(t) => {
                t.done = true;
                t.action = None;
                (t.on_done.clone(), t.src_host, t.dst_host, t.valiant)
            }
            None => return,
        };
        if !self.in_flight.is_empty() {
            let mut route = std::mem::take(&mut self.scratch.route);
            self.platform_route(src, dst, valiant, &mut route);
            self.count_in_flight(&route, false);
            self.scratch.route = route;
        }
        crate::mpi::transfer_done(self, id, hooks);
    }

    fn pop_ready(&mut self) -> Option<usize> {
        self.ready.pop_front()
    }

    /// Records that `rank` is finished with `code`.
    pub fn finish_rank(&mut self, rank: usize, code: i32) {
        let r = &mut self.ranks[rank];
        if r.state != RunState::Done {
            r.state = RunState::Done;
            r.exit_code = Some(code);
            self.live -= 1;
        }
    }

    /// The deadlock report: every blocked rank with its call.
    fn deadlock_report(&self) -> String {
        let mut s = format!(
            "smpirun: deadlock at simulated time {:.6} s: no rank can progress and no \
             event is pending.\n",
            self.now
        );
        let blocked: Vec<usize> = (0..self.ranks.len())
            .filter(|&r| self.ranks[r].state == RunState::Blocked)
            .collect();
        const SHOWN: usize = 64;
        for &r in blocked.iter().take(SHOWN) {
            let b = &self.ranks[r].blocked_in;
            let detail = match &b.detail {
                Detail::None => String::new(),
                Detail::Text(t) => (*t).to_string(),
                Detail::Owned(t) => t.clone(),
                Detail::Sleep(seconds) => format!("for {seconds:e} s"),
                Detail::Compute(flops) => format!("computing {flops:e} flops"),
                Detail::Requests { first, pending } => {
                    let mut d = self.describe_request(*first);
                    if *pending > 1 {
                        d.push_str(&format!(", and {} more pending requests", pending - 1));
                    }
                    d
                }
            };
            s.push_str(&format!("  rank {r} is blocked in {}({detail})\n", b.call));
        }
        if blocked.len() > SHOWN {
            s.push_str(&format!(
                "  ... and {} more blocked ranks\n",
                blocked.len() - SHOWN
            ));
        }
        let done = self
            .ranks
            .iter()
            .filter(|r| r.state == RunState::Done)
            .count();
        if done > 0 {
            s.push_str(&format!("  ({done} ranks already finished)\n"));
        }
        s
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

/// How a simulation ended.
#[derive(Debug)]
pub enum Outcome {
    /// Every rank finished; the first non-zero exit code, or 0.
    Finished { code: i32, simulated: f64 },
    /// MPI_Abort was called.
    Aborted {
        rank: usize,
        code: i32,
        simulated: f64,
    },
    /// No rank can progress.
    Deadlock { report: String, simulated: f64 },
    /// A rank could not be started (for example its copy failed to load).
    Failed { message: String, simulated: f64 },
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Finished { code, .. } => write!(f, "finished with exit code {code}"),
            Outcome::Aborted { rank, code, .. } => {
                write!(f, "rank {rank} called MPI_Abort with error code {code}")
            }
            Outcome::Deadlock { report, .. } => f.write_str(report),
            Outcome::Failed { message, .. } => f.write_str(message),
        }
    }
}

/// Creates a rank's coroutine on demand.
pub trait RankFactory {
    /// The coroutine and guard zone for `rank`, or a message saying why not.
    fn create(&mut self, rank: usize) -> Result<(context::RankCoroutine, (usize, usize)), String>;
}

/// The maestro: runs ranks and events until every rank is done.
pub fn run(factory: &mut dyn RankFactory) -> Outcome {
    let n = with(|w| w.size());
    let mut coroutines: Vec<Option<(context::RankCoroutine, (usize, usize))>> =
        (0..n).map(|_| None).collect();
    loop {
        while let Some(rank) = with(|w| w.pop_ready()) {
            if coroutines[rank].is_none() {
                match factory.create(rank) {
                    Ok(c) => coroutines[rank] = Some(c),
                    Err(message) => {
                        let simulated = with(|w| w.now);
                        // Ranks already started hold C frames: drop them
                        // unresumed.
                        for (co, _) in coroutines.iter_mut().filter_map(Option::take) {
                            context::discard(co);
                        }
                        return Outcome::Failed { message, simulated };
                    }
                }
            }
            with(|w| {
                w.current = rank;
                w.activate_memory(rank);
            });
            let Some((co, guard)) = coroutines[rank].as_mut() else {
                continue;
            };
            let why = context::resume(co, rank, *guard);
            if let Suspend::Exit(code) = why {
                with(|w| w.finish_rank(rank, code));
                if let Some((co, _)) = coroutines[rank].take() {
                    context::discard(co);
                }
            }
            if let Some(message) = with(|w| w.failure.take()) {
                let simulated = with(|w| w.now);
                for (co, _) in coroutines.iter_mut().filter_map(Option::take) {
                    context::discard(co);
                }
                return Outcome::Failed { message, simulated };
            }
            if let Some((rank, code)) = with(|w| w.aborted) {
                let simulated = with(|w| w.now);
                // Ranks still suspended hold C frames: drop them unresumed.
                for (co, _) in coroutines.iter_mut().filter_map(Option::take) {
                    context::discard(co);
                }
                return Outcome::Aborted {
                    rank,
                    code,
                    simulated,
                };
            }
        }
        if with(|w| w.live) == 0 {
            let (code, simulated) = with(|w| {
                let code = w
                    .ranks
                    .iter()
                    .filter_map(|r| r.exit_code)
                    .find(|&c| c != 0)
                    .unwrap_or(0);
                (code, w.now)
            });
            return Outcome::Finished { code, simulated };
        }
        let next = with(|w| w.next_event());
        match next {
            Some(t) => with(|w| w.advance(t)),
            None => {
                let (report, simulated) = with(|w| (w.deadlock_report(), w.now));
                for (co, _) in coroutines.iter_mut().filter_map(Option::take) {
                    context::discard(co);
                }
                return Outcome::Deadlock { report, simulated };
            }
        }
    }
}

/// Parks the current rank until something wakes it.
pub fn park() {
    PARKS.with(|p| p.set(p.get() + 1));
    context::suspend(Suspend::Park);
}

thread_local! {
    /// How many times a rank parked, all ranks together: lets a caller
    /// see whether something it called gave control away (wakes meant for
    /// it may have been consumed meanwhile).
    static PARKS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The number of parks so far (see `PARKS`).
pub fn parks() -> u64 {
    PARKS.with(std::cell::Cell::get)
}

/// Sleeps the current rank for `seconds` of simulated time.
pub fn sleep(seconds: f64, call: &'static str) {
    if seconds.is_nan() || seconds <= 0.0 {
        return;
    }
    let slept = with(|w| {
        let at = w.now + seconds;
        if w.ready.is_empty() && w.next_event().is_none_or(|next| next > at) {
            // Nothing else runs or happens before this rank would wake: the
            // maestro would only move the clock to `at` and resume it (a
            // failed MPI_Iprobe in a polling loop, often). Same simulation,
            // two switches fewer.
            w.advance(at);
            return true;
        }
        let rank = w.current;
        w.ranks[rank].sleeping = true;
        w.add_timer(at, TimerEvent::Wake(rank));
        w.block_current(call, Detail::Sleep(seconds));
        false
    });
    if slept {
        return;
    }
    loop {
        park();
        if !with(|w| w.ranks[w.current].sleeping) {
            break;
        }
        with(|w| w.block_current(call, Detail::Sleep(seconds)));
    }
}

/// Runs `flops` of computation on the current rank's host.
pub fn execute(flops: f64, call: &'static str) {
    if flops.is_nan() || flops <= 0.0 {
        return;
    }
    with(|w| {
        w.start_exec(flops);
        w.block_current(call, Detail::Compute(flops));
    });
    loop {
        park();
        if with(|w| w.ranks[w.current].exec.is_none()) {
            break;
        }
        with(|w| w.block_current(call, Detail::Compute(flops)));
    }
}
