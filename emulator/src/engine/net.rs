//! Transfers: a message's route, its latency phase and its flow in the
//! max-min system, the choice between minimal and Valiant routes, and,
//! under the IB model, the bounds it changes when it starts and arrives.

use fluidnet::{ActionSpec, ResourceId};
use platforms::{Direction, HostId, LinkUse};
use tracing::{debug, error, trace};

use super::netmodel::RoutingChoice;
use super::observe::TransferStart;
use super::timer::TimerEvent;
use super::{ActionOwner, Core};
use crate::log::NETWORK;

/// A link direction with a fluid resource of its own: a whole link
/// (`half` is `None`), or a half of a split-duplex one.
#[derive(Debug, Clone, Copy)]
pub struct LinkDirection {
    pub link: platforms::LinkId,
    pub half: Direction,
    /// Its fluid resource ([`super::observe::LinkLoad::resource`]).
    pub resource: u32,
}

impl LinkDirection {
    /// `both`, `up` or `down`, as statistics and traces name it.
    pub fn label(self) -> &'static str {
        match self.half {
            Direction::None => "both",
            Direction::Up => "up",
            Direction::Down => "down",
        }
    }

    /// The use of the link it is.
    pub fn link_use(self) -> LinkUse {
        LinkUse {
            link: self.link,
            direction: self.half,
        }
    }
}

/// A transfer, known to its owner by this token; the core reports it in
/// [`Core::next_finished`] when it ends, and forgets it only when its owner
/// releases it ([`Core::release_transfer`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TransferId(pub u32);

/// A message moving through the network: latency phase, then a flow.
pub(super) struct Transfer {
    src_host: HostId,
    dst_host: HostId,
    bytes: usize,
    /// Its flow, once the latency phase is over.
    action: Option<fluidnet::ActionId>,
    done: bool,
    /// Set when the transfer takes a Valiant route: the salt that draws
    /// its intermediate router (the flow and its reverse use the same).
    valiant: Option<u64>,
    /// Under the IB model, its bound now, which its flow takes (the IB
    /// model may change it from the transfer's start, latency included).
    ib_bound: Option<f64>,
    /// When it started, and its start number or, with
    /// `smpi/simgrid-order`, its last update in SimGrid's network heap
    /// (`Core::net_updates`), which order the arrivals at one date
    /// (`Core::next_finished`).
    pub(super) started: f64,
    pub(super) stamp: u64,
    /// How long it would take alone on an idle network (kept for the
    /// network statistics only).
    alone: f64,
    /// Its flow and the fluid resources it uses, computed once from the
    /// route when it starts (a buffer of `Core::spare_uses`, given back
    /// when the flow starts).
    flow: Option<super::netmodel::Flow>,
    uses: Vec<(ResourceId, f64)>,
    /// With `smpi/simgrid-order`, the resources in the order SimGrid
    /// expands its variable over them (the route, then the reverse
    /// route's; a repeated one counts once), which `fluidnet::order` walks.
    order: Vec<ResourceId>,
}

/// How many pairs' flows are remembered ([`KnownFlow`]) on a platform of
/// `hosts` hosts: a few per host, so that the pairs a rank talks with
/// (its neighbours in a stencil, its row and column in HPL) stay
/// remembered at thousands of ranks, within a bounded table. A power of
/// two.
pub(super) fn known_flow_slots(hosts: usize) -> usize {
    (hosts.saturating_mul(8))
        .next_power_of_two()
        .clamp(64, 1 << 16)
}

impl Core {
    /// The slot of pair (`src`, `dst`) among the known flows.
    fn known_slot(&self, src: HostId, dst: HostId) -> usize {
        let key = (u64::from(src.0) << 32) | u64::from(dst.0);
        // Fibonacci hashing: the high bits of the product mix both hosts.
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (mixed >> 32) as usize & (self.known_flows.len() - 1)
    }
}

/// One slot of the direct-mapped table of [`known_flow_slots`] pairs
/// (`Core::known_flows`). Traffic whose pairs never repeat (an
/// all-to-all) misses at every message, reading `seen` and the flow's
/// `pair`: both lie at the start of the slot, which starts a cache line,
/// so that a miss costs one line from memory (at 4,096 ranks the table
/// is far larger than the caches). The flow is not an `Option` for that
/// reason: an `Option`'s tag would go into a niche of the flow's last
/// field, on the slot's second line; an empty slot's flow has no `pair`.
#[derive(Default)]
#[repr(C, align(64))]
pub(super) struct KnownSlot {
    /// The last pair that missed this slot: a pair is remembered when it
    /// misses twice in a row.
    seen: Option<(HostId, HostId)>,
    flow: KnownFlow,
}

// Both pairs a message reads lie in the slot's first cache line.
const _: () = assert!(
    std::mem::offset_of!(KnownSlot, flow)
        + std::mem::offset_of!(KnownFlow, pair)
        + std::mem::size_of::<Option<(HostId, HostId)>>()
        <= 64
);

/// What a transfer between a pair of hosts needs of its route, kept for
/// the pair's next messages: the route's latency and length, its links'
/// (bandwidth, latency) and the fluid resources its flow uses.
#[derive(Default)]
#[repr(C)]
pub(super) struct KnownFlow {
    pair: Option<(HostId, HostId)>,
    latency: f64,
    route_len: usize,
    links: Vec<(f64, f64)>,
    uses: Vec<(ResourceId, f64)>,
    /// With `smpi/simgrid-order`, the resources in SimGrid's expand order
    /// (`Transfer::order`).
    order: Vec<ResourceId>,
    /// The size of the pair's last message, its flow and latency phase (a
    /// pair's messages are often all of one size).
    last: Option<(usize, super::netmodel::Flow, f64)>,
}

/// Reused buffers for computing a flow: the route, the reverse route,
/// the links' (bandwidth, latency) and the expand order.
#[derive(Default)]
pub(super) struct FlowScratch {
    route: Vec<LinkUse>,
    back: Vec<LinkUse>,
    links: Vec<(f64, f64)>,
    /// With `smpi/simgrid-order`, the last flow's resources in SimGrid's
    /// expand order, for its transfer to take.
    order: Vec<ResourceId>,
}

impl Core {
    /// Starts moving `bytes` from `src` to `dst`: the latency phase first
    /// (a timer), then a flow. Its end is reported by
    /// [`Core::next_finished`].
    pub fn start_transfer(&mut self, src: HostId, dst: HostId, bytes: usize) -> TransferId {
        let valiant = self.choose_route(src, dst);
        self.net_updates += 1;
        let transfer = Transfer {
            src_host: src,
            dst_host: dst,
            bytes,
            action: None,
            done: false,
            valiant,
            ib_bound: None,
            started: self.now,
            stamp: self.net_updates,
            alone: 0.0,
            flow: None,
            uses: Vec::new(),
            order: Vec::new(),
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
        let plain = self.plain_flows() && valiant.is_none();
        if plain && self.start_known_flow(id, src, dst, bytes) {
            return id;
        }
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
            self.timers
                .add(self.now, self.now + duration, TimerEvent::TransferDone(id));
            self.observe_start(id, src, dst, bytes, latency);
            return id;
        }
        let delay = latency * self.model.latency_factor(bytes);
        debug!(
            target: NETWORK,
            "transfer {}: {bytes} B from '{}' to '{}' over {} links{}, latency phase {delay:e} s",
            id.0,
            self.platform.host(src).name,
            self.platform.host(dst).name,
            route.len(),
            if valiant.is_some() { " (Valiant route)" } else { "" },
        );
        self.count_in_flight(&route, true);
        if self.net_stats.is_some() {
            let alone = self.alone_time(bytes, &route, delay);
            if let Some(t) = self.transfers[id.0 as usize].as_mut() {
                t.alone = alone;
            }
        }
        if self.ib.is_some() && src != dst {
            self.ib_start(id, src, dst, &route);
        }
        let mut uses = self.spare_uses.pop().unwrap_or_default();
        let flow = self.flow_of(src, dst, valiant, bytes, &route, &mut uses);
        let order = std::mem::take(&mut self.scratch.order);
        let k = self.known_slot(src, dst);
        // A pair is remembered from its second message on: traffic whose
        // pairs never repeat (an all-to-all) would only copy flows into
        // the table.
        let again = plain && self.known_flows[k].seen.replace((src, dst)) == Some((src, dst));
        if again && self.failure.is_none() {
            let mut known = std::mem::take(&mut self.known_flows[k].flow);
            known.pair = Some((src, dst));
            known.latency = latency;
            known.route_len = route.len();
            known.links.clone_from(&self.scratch.links);
            known.uses.clone_from(&uses);
            known.order.clone_from(&order);
            known.last = Some((bytes, flow, delay));
            self.known_flows[k].flow = known;
        }
        if let Some(t) = self.transfers[id.0 as usize].as_mut() {
            t.flow = Some(flow);
            t.uses = uses;
            t.order = order;
        }
        self.scratch.route = route;
        self.latency_phase(id, src, dst, bytes, delay);
        id
    }

    /// Whether transfers may take their flows from [`KnownFlow`]s: under
    /// SMPI's model (or IB's) with minimal routes, no IB penalties, no
    /// UGAL counts and no network statistics, a pair's route, links and
    /// fluid resources are the same for every message.
    fn plain_flows(&self) -> bool {
        !self.model.constant
            && self.model.routing == RoutingChoice::Minimal
            && self.ib.is_none()
            && self.net_stats.is_none()
            && self.in_flight.is_empty()
    }

    /// Starts transfer `id`'s latency phase from the known flow of its
    /// pair, if there is one (the same flow a route would give, bit for
    /// bit: same links, same arithmetic); whether there was.
    fn start_known_flow(&mut self, id: TransferId, src: HostId, dst: HostId, bytes: usize) -> bool {
        let k = self.known_slot(src, dst);
        let known = &mut self.known_flows[k].flow;
        if known.pair != Some((src, dst)) {
            return false;
        }
        let mut uses = self.spare_uses.pop().unwrap_or_default();
        uses.clear();
        uses.extend_from_slice(&known.uses);
        let (flow, delay) = match known.last {
            Some((b, flow, delay)) if b == bytes => (flow, delay),
            _ => (
                self.model.flow(bytes, &known.links),
                known.latency * self.model.latency_factor(bytes),
            ),
        };
        known.last = Some((bytes, flow, delay));
        let route_len = known.route_len;
        debug!(
            target: NETWORK,
            "transfer {}: {bytes} B from '{}' to '{}' over {route_len} links, latency phase {delay:e} s",
            id.0,
            self.platform.host(src).name,
            self.platform.host(dst).name,
        );
        let order = if self.model.simgrid_order {
            known.order.clone()
        } else {
            Vec::new()
        };
        if let Some(t) = self.transfers[id.0 as usize].as_mut() {
            t.flow = Some(flow);
            t.uses = uses;
            t.order = order;
        }
        self.latency_phase(id, src, dst, bytes, delay);
        true
    }

    /// Tells the observers that transfer `id` starts, and starts its
    /// latency phase of `delay` (or its flow at once).
    fn latency_phase(
        &mut self,
        id: TransferId,
        src: HostId,
        dst: HostId,
        bytes: usize,
        delay: f64,
    ) {
        self.observe_start(id, src, dst, bytes, delay);
        // SimGrid expands the message's variable over its constraints
        // now, which marks them changed (see `fluidnet::order`).
        if let Some(t) = self.transfers[id.0 as usize]
            .as_ref()
            .filter(|_| self.model.simgrid_order)
        {
            for &r in &t.order {
                self.fluid.touch_in_order(r);
            }
        }
        // An empty message still carries SMPI's 16-byte envelope, which
        // shares the links with every other flow once the latency is paid,
        // as in SimGrid (bug-17132: a barrier's empty messages).
        if delay > 0.0 {
            self.timers
                .add(self.now, self.now + delay, TimerEvent::LatencyDone(id));
        } else {
            self.start_flow(id);
        }
    }

    /// Under the IB model, transfer `id` from `src` to `dst` over `route`
    /// starts: with its initial bound (SMPI's), it changes the bounds of
    /// the transfers around it, its own included.
    fn ib_start(&mut self, id: TransferId, src: HostId, dst: HostId, route: &[LinkUse]) {
        let mut links = std::mem::take(&mut self.scratch.links);
        self.route_links(route, &mut links);
        let initial = self.model.flow_bound(&links);
        self.scratch.links = links;
        // A route with neither links nor latency has no bound to penalize
        // (SimGrid refuses such routes).
        let (Some(initial), Some(ib)) = (initial, self.ib.as_mut()) else {
            return;
        };
        if let Some(t) = self.transfers[id.0 as usize].as_mut() {
            t.ib_bound = Some(initial);
        }
        let mut changed = std::mem::take(&mut self.ib_changed);
        ib.start(id, src, dst, initial, &mut changed);
        self.ib_apply(&mut changed);
        self.ib_changed = changed;
    }

    /// Gives each transfer of `changed` its new IB bound, and its flow if
    /// it has one; empties `changed`.
    fn ib_apply(&mut self, changed: &mut Vec<(TransferId, f64)>) {
        for (id, bound) in changed.drain(..) {
            let Some(t) = self.transfers[id.0 as usize].as_mut() else {
                continue;
            };
            trace!(target: NETWORK, "transfer {}: IB bound {bound:e} B/s", id.0);
            t.ib_bound = Some(bound);
            if let Some(action) = t.action {
                self.fluid.set_bound(action, Some(bound));
            }
        }
    }

    /// Tells the observers, if any, that transfer `id` starts.
    fn observe_start(
        &mut self,
        id: TransferId,
        src: HostId,
        dst: HostId,
        bytes: usize,
        latency: f64,
    ) {
        if self.observers.is_empty() {
            return;
        }
        let (at, t) = (
            self.now,
            TransferStart {
                id,
                src,
                dst,
                bytes,
                latency,
            },
        );
        self.observers.each(|o| o.transfer_start(at, &t));
    }

    /// Whether transfer `id` has arrived (false for an unknown one).
    pub fn transfer_arrived(&self, id: TransferId) -> bool {
        self.transfers
            .get(id.0 as usize)
            .and_then(Option::as_ref)
            .is_some_and(|t| t.done)
    }

    /// Forgets a transfer: its token may be given to a new one.
    pub fn release_transfer(&mut self, id: TransferId) {
        if let Some(slot) = self.transfers.get_mut(id.0 as usize) {
            if slot.take().is_some() {
                self.free_transfers.push(id.0);
            }
        }
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
            error!(target: NETWORK, "no route from '{}' to '{}': {e}",
                self.platform.host(src).name, self.platform.host(dst).name);
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

    /// Every link direction with a fluid resource of its own, in link
    /// order: a link, or each half of a split-duplex one.
    pub fn link_directions(&self) -> impl Iterator<Item = LinkDirection> + '_ {
        self.link_resources
            .iter()
            .enumerate()
            .flat_map(move |(i, pair)| {
                let link = platforms::LinkId(i as u32);
                let halves: &[Direction] = if pair[0] == pair[1] {
                    &[Direction::None]
                } else {
                    &[Direction::Up, Direction::Down]
                };
                halves.iter().map(move |&half| {
                    self.link_direction(&LinkUse {
                        link,
                        direction: half,
                    })
                })
            })
    }

    /// The link direction a use of a link takes.
    fn link_direction(&self, u: &LinkUse) -> LinkDirection {
        let pair = self.link_resources[u.link.0 as usize];
        let half = match (pair[0] == pair[1], u.direction) {
            (true, _) => Direction::None,
            (false, Direction::Down) => Direction::Down,
            (false, _) => Direction::Up,
        };
        LinkDirection {
            link: u.link,
            half,
            resource: self.resource_of(u).0,
        }
    }

    fn resource_of(&self, u: &LinkUse) -> ResourceId {
        let pair = self.link_resources[u.link.0 as usize];
        match u.direction {
            Direction::Down => pair[1],
            _ => pair[0],
        }
    }

    /// The flow of `bytes` from `src` to `dst` over `route` (and the
    /// reverse route under cross-traffic), and the fluid resources it
    /// uses, into `uses`: a resource on both the route and the reverse
    /// route (a SHARED link used both ways) carries the sum of both
    /// coefficients; a FATPIPE bounds each flow by its largest use
    /// (SimGrid's rules). With `smpi/simgrid-order`, the resources in
    /// SimGrid's expand order go to `FlowScratch::order`
    /// (`Transfer::order`).
    fn flow_of(
        &mut self,
        src: HostId,
        dst: HostId,
        valiant: Option<u64>,
        bytes: usize,
        route: &[LinkUse],
        uses: &mut Vec<(ResourceId, f64)>,
    ) -> super::netmodel::Flow {
        let mut sc = std::mem::take(&mut self.scratch);
        self.route_links(route, &mut sc.links);
        uses.clear();
        uses.extend(route.iter().map(|u| (self.resource_of(u), 1.0)));
        if self.model.crosstraffic {
            self.platform_route(dst, src, valiant, &mut sc.back);
            uses.extend(sc.back.iter().map(|u| (self.resource_of(u), 0.05)));
        }
        sc.order.clear();
        if self.model.simgrid_order {
            sc.order.extend(uses.iter().map(|&(r, _)| r));
        }
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
        self.scratch = sc;
        flow
    }

    /// The flow phase of a transfer: enters the max-min system.
    pub(super) fn start_flow(&mut self, id: TransferId) {
        let (src, dst, bytes, valiant, ib_bound, flow, uses, order) = {
            let t = self.transfers[id.0 as usize]
                .as_mut()
                .expect("flow of a live transfer");
            (
                t.src_host,
                t.dst_host,
                t.bytes,
                t.valiant,
                t.ib_bound,
                t.flow
                    .take()
                    .expect("a transfer's flow is computed when it starts"),
                std::mem::take(&mut t.uses),
                std::mem::take(&mut t.order),
            )
        };
        let mut flow = flow;
        if ib_bound.is_some() {
            flow.bound = ib_bound;
        }
        trace!(
            target: NETWORK,
            "transfer {} flows: {:e} bytes at factor {}, penalty {:e}, bound {:?} B/s, {} resources",
            id.0,
            flow.amount,
            flow.factor,
            flow.penalty,
            flow.bound,
            uses.len()
        );
        let spec = ActionSpec {
            amount: flow.amount,
            penalty: flow.penalty,
            bound: flow.bound,
            factor: flow.factor,
            uses: &uses,
        };
        let action = if self.model.simgrid_order {
            let key = self.transfers[id.0 as usize]
                .as_ref()
                .map_or(0, |t| t.stamp);
            self.fluid.start_in_order(&spec, &order, key)
        } else {
            self.fluid.start(&spec)
        };
        self.spare_uses.push(uses);
        if self.net_stats.is_some() {
            let mut route = std::mem::take(&mut self.scratch.route);
            self.platform_route(src, dst, valiant, &mut route);
            self.count_flow(&route, Some(bytes), action);
            self.scratch.route = route;
        }
        self.owners.insert(action, ActionOwner::Transfer(id));
        if let Some(t) = self.transfers[id.0 as usize].as_mut() {
            t.action = Some(action);
        }
    }

    /// How long `bytes` would take over `route` alone on an idle network,
    /// after a latency phase of `delay`: the flow at the rate of the
    /// route's narrowest link (or its bound), times its factor.
    fn alone_time(&mut self, bytes: usize, route: &[LinkUse], delay: f64) -> f64 {
        let mut links = std::mem::take(&mut self.scratch.links);
        self.route_links(route, &mut links);
        let flow = self.model.flow(bytes, &links);
        self.scratch.links = links;
        let rate = route
            .iter()
            .map(|u| self.fluid.capacity(self.resource_of(u)))
            .fold(flow.bound.unwrap_or(f64::INFINITY), f64::min);
        if rate.is_finite() && rate > 0.0 && flow.factor > 0.0 {
            delay + flow.amount / (rate * flow.factor)
        } else {
            delay
        }
    }

    /// The network statistics of a flow on `route` that starts (with its
    /// `bytes`) or ends (`None`): the links' counters now, and their usage
    /// noted for [`Core::sample_loads`], once the rates are solved (a
    /// solve per flow would make a date's many flows cost one solve each).
    fn count_flow(&mut self, route: &[LinkUse], bytes: Option<usize>, action: fluidnet::ActionId) {
        let now = self.now;
        for u in route {
            let r = self.resource_of(u);
            let Some(stats) = self.net_stats.as_mut() else {
                return;
            };
            match bytes {
                Some(b) => stats.flow_started(r, b, now),
                None => stats.flow_ended(r, now),
            }
            self.load_samples.push((r, *u, bytes.map(|_| action)));
        }
    }

    /// Samples the usage of the links whose flows changed at this date,
    /// after the solve that gave the new rates: into the statistics, and
    /// to the observers. A FATPIPE only bounds each flow: its usage is
    /// its fastest new flow's.
    pub(super) fn sample_loads(&mut self) {
        let mut samples = std::mem::take(&mut self.load_samples);
        samples.sort_by_key(|(r, _, _)| r.0);
        let now = self.now;
        let mut i = 0;
        while i < samples.len() {
            let (r, u, _) = samples[i];
            let mut j = i;
            let mut fastest: f64 = 0.0;
            while j < samples.len() && samples[j].0 == r {
                if let Some(a) = samples[j].2 {
                    fastest = fastest.max(self.fluid.rate(a));
                }
                j += 1;
            }
            i = j;
            let usage = if self.fatpipe[r.0 as usize] {
                fastest
            } else {
                self.fluid.usage(r)
            };
            if !usage.is_finite() {
                continue;
            }
            if let Some(stats) = self.net_stats.as_mut() {
                stats.sample_usage(r, usage);
            }
            if !self.observers.is_empty() {
                let direction = self.link_direction(&u).label();
                let capacity = self.fluid.capacity(r);
                let load = super::observe::LinkLoad {
                    resource: r.0,
                    link: &self.platform.link(u.link).name,
                    direction,
                    utilisation: if capacity > 0.0 {
                        usage / capacity
                    } else {
                        0.0
                    },
                    used: usage,
                };
                self.observers.each(|o| o.link_load(now, &load));
            }
        }
        samples.clear();
        self.load_samples = samples;
    }

    /// Keeps the network statistics from now on.
    pub fn count_network(&mut self) {
        self.net_stats = Some(super::netstats::NetStats::new(self.fatpipe.len()));
    }

    /// The network statistics, when kept: the links' rows at date `end`
    /// (every link, both halves of a split-duplex one) and the messages'.
    pub fn network_stats(
        &self,
        end: f64,
    ) -> Option<(Vec<super::netstats::LinkRow>, &super::netstats::NetStats)> {
        let stats = self.net_stats.as_ref()?;
        let rows = self
            .link_directions()
            .map(|d| {
                let link = self.platform.link(d.link);
                let r = ResourceId(d.resource);
                stats.row(r, &link.name, d.label(), link.bandwidth, end)
            })
            .collect();
        Some((rows, stats))
    }

    /// The (bandwidth, latency) of each link of `route`, into `out`.
    fn route_links(&self, route: &[LinkUse], out: &mut Vec<(f64, f64)>) {
        out.clear();
        out.extend(route.iter().map(|u| {
            let l = self.platform.link(u.link);
            (l.bandwidth, l.latency)
        }));
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

    /// Marks transfer `id` arrived; whether it was live (and must be
    /// reported to its owner).
    pub(super) fn arrive(&mut self, id: TransferId) -> bool {
        let (src, dst, valiant, in_ib, action) = match self
            .transfers
            .get_mut(id.0 as usize)
            .and_then(Option::as_mut)
        {
            Some(t) => {
                t.done = true;
                (
                    t.src_host,
                    t.dst_host,
                    t.valiant,
                    t.ib_bound.is_some(),
                    t.action.take(),
                )
            }
            None => return false,
        };
        if let (Some(action), true) = (action, self.net_stats.is_some()) {
            let mut route = std::mem::take(&mut self.scratch.route);
            self.platform_route(src, dst, valiant, &mut route);
            self.count_flow(&route, None, action);
            self.scratch.route = route;
            let t = self.transfers[id.0 as usize].as_ref();
            if let (Some(t), Some(stats)) = (t, self.net_stats.as_mut()) {
                stats.message(t.bytes, self.now - t.started, t.alone);
            }
        }
        debug!(target: NETWORK, "transfer {} arrived", id.0);
        if let Some(ib) = self.ib.as_mut().filter(|_| in_ib) {
            let mut changed = std::mem::take(&mut self.ib_changed);
            ib.arrive(id, src, dst, &mut changed);
            self.ib_apply(&mut changed);
            self.ib_changed = changed;
        }
        if !self.observers.is_empty() {
            let at = self.now;
            self.observers.each(|o| o.transfer_end(at, id));
        }
        if !self.in_flight.is_empty() {
            let mut route = std::mem::take(&mut self.scratch.route);
            self.platform_route(src, dst, valiant, &mut route);
            self.count_in_flight(&route, false);
            self.scratch.route = route;
        }
        true
    }
}
