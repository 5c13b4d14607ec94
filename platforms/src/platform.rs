//! The platform: hosts, links, configuration and the route function.

use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use crate::cluster::{self, ClusterRouting, ClusterSpec, LinkSpec, SameHost};
use crate::error::{PlatformError, Problem, RouteError};
use crate::graph::GraphRoutes;
use crate::model::{Direction, Disk, Host, HostId, Link, LinkId, LinkUse, Sharing};
use crate::topology::TopologyRouting;
use crate::units::{format_bandwidth, format_time};

/// Name of the platform-wide loopback link, as SimGrid calls it.
pub const GLOBAL_LOOPBACK_NAME: &str = "__loopback__";
/// SimGrid's default `network/loopback-bw`: 10 GBps.
pub const DEFAULT_LOOPBACK_BANDWIDTH: f64 = 10e9;
/// SimGrid's default `network/loopback-lat`: 0 s.
pub const DEFAULT_LOOPBACK_LATENCY: f64 = 0.0;

/// A simulated machine: hosts, the links between them, the `<config>`
/// settings of its file, and a route function.
///
/// Built from SimGrid platform XML ([`Platform::from_xml_file`],
/// [`Platform::from_xml_str`]) or as the built-in cluster
/// ([`Platform::default_cluster`]). Link 0 is always the global loopback
/// link (see [`Platform::global_loopback`]).
#[derive(Debug, Clone)]
pub struct Platform {
    /// Zone 0 is the top-level zone (or cluster); nested zones follow.
    zones: Vec<Zone>,
    /// The zone of each host (empty when there is only zone 0).
    host_zone: Vec<u32>,
    routers: Vec<Router>,
    hosts: Vec<Host>,
    links: Vec<Link>,
    /// The disks of all hosts, by host then in file order.
    disks: Vec<Disk>,
    host_index: HashMap<String, HostId>,
    config: Vec<(String, String)>,
    global_loopback: LinkId,
    warnings: Vec<String>,
}

/// A zone of the platform: what it is, where it is, how it routes.
#[derive(Debug, Clone)]
pub(crate) struct Zone {
    pub info: ZoneInfo,
    /// The zone it is nested in (`None` for zone 0).
    pub parent: Option<u32>,
    pub routing: Routing,
    /// A cluster's router (`router_id`), the gateway other zones name.
    pub router: Option<u32>,
    /// `<bypassRoute>`s (between its points) or `<bypassZoneRoute>`s
    /// (between its nested zones), one way each, used instead of routing.
    pub bypass: FullRoutes,
}

/// A `<router>` (or a cluster's router): a point routes may start or end
/// at, which runs no rank.
#[derive(Debug, Clone)]
pub(crate) struct Router {
    pub name: String,
    pub zone: u32,
}

/// Where a route may start or end: SimGrid's netpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Point {
    Host(HostId),
    Router(u32),
    /// A nested zone, as the end of a `<zoneRoute>`.
    Zone(u32),
}

/// The zone the hosts live in, for messages and [`Platform::describe`].
#[derive(Debug, Clone)]
pub(crate) struct ZoneInfo {
    /// The `id` of the zone (or of the cluster).
    pub name: String,
    /// The `<zone>` wrapped around a cluster, if the file had one.
    pub enclosing: Option<String>,
    /// The zone's (or cluster's) `<prop>` pairs.
    pub properties: Vec<(String, String)>,
}

/// How routes are found.
#[derive(Debug, Clone)]
pub(crate) enum Routing {
    /// `routing="Full"`: every route is listed.
    Full(FullRoutes),
    /// `routing="None"`: no route at all.
    Empty,
    /// A FLAT cluster: routes are computed from each host's links.
    Cluster(ClusterRouting),
    /// A TORUS, FAT_TREE or DRAGONFLY cluster, routed on demand.
    Topology(TopologyRouting),
    /// `routing="Floyd"` or `"Dijkstra"`: shortest chains of declared routes.
    Graph(GraphRoutes),
}

/// The explicit routes of a Full zone, keyed by (source, destination):
/// `<route>`s between its hosts and routers, `<zoneRoute>`s between its
/// nested zones (with their gateways).
#[derive(Debug, Clone, Default)]
pub(crate) struct FullRoutes {
    table: HashMap<(Point, Point), FullRoute>,
    /// The keys in the order the routes were declared (a symmetrical
    /// route's reverse right after it), which Floyd and Dijkstra zones
    /// depend on to break ties as SimGrid does.
    order: Vec<(Point, Point)>,
}

#[derive(Debug, Clone)]
struct FullRoute {
    links: Box<[LinkUse]>,
    /// (gw_src, gw_dst) of a `<zoneRoute>`.
    gateways: Option<(Point, Point)>,
}

/// The existing route that keeps a new one from being added to a [`FullRoutes`].
pub(crate) struct RouteClash {
    pub src: Point,
    pub dst: Point,
}

impl FullRoutes {
    /// Adds the route src -> dst and, when `symmetrical`, its reverse (the
    /// links in reverse order, each using the other half of split-duplex
    /// links), refusing to overwrite an existing route as SimGrid does.
    pub fn add(
        &mut self,
        src: Point,
        dst: Point,
        links: Vec<LinkUse>,
        gateways: Option<(Point, Point)>,
        symmetrical: bool,
    ) -> Result<(), RouteClash> {
        if self.table.contains_key(&(src, dst)) {
            return Err(RouteClash { src, dst });
        }
        // The reverse of a route from a host to itself is that same route
        // key, so symmetry adds nothing there.
        let add_reverse = symmetrical && src != dst;
        if add_reverse && self.table.contains_key(&(dst, src)) {
            return Err(RouteClash { src: dst, dst: src });
        }
        if add_reverse {
            let back: Box<[LinkUse]> = links.iter().rev().map(|u| u.reversed()).collect();
            self.table.insert(
                (dst, src),
                FullRoute {
                    links: back,
                    gateways: gateways.map(|(a, b)| (b, a)),
                },
            );
        }
        self.table.insert(
            (src, dst),
            FullRoute {
                links: links.into_boxed_slice(),
                gateways,
            },
        );
        self.order.push((src, dst));
        if add_reverse {
            self.order.push((dst, src));
        }
        Ok(())
    }

    /// Every route, in declaration order: (src, dst, links, gateways).
    pub fn declared(
        &self,
    ) -> impl Iterator<Item = (Point, Point, Vec<LinkUse>, Option<(Point, Point)>)> + '_ {
        self.order.iter().map(|k| {
            let r = &self.table[k];
            (k.0, k.1, r.links.to_vec(), r.gateways)
        })
    }

    fn get(&self, src: Point, dst: Point) -> Option<&FullRoute> {
        self.table.get(&(src, dst))
    }

    fn len(&self) -> usize {
        self.table.len()
    }
}

/// Accumulates hosts and links while a platform is read, refusing
/// duplicate names, then becomes a [`Platform`].
pub(crate) struct Builder {
    hosts: Vec<Host>,
    host_index: HashMap<String, HostId>,
    host_lines: Vec<u32>,
    links: Vec<Link>,
    link_index: HashMap<String, LinkId>,
    link_lines: Vec<u32>,
    disks: Vec<Disk>,
    global_loopback: LinkId,
    zones: Vec<Zone>,
    zone_index: HashMap<String, u32>,
    /// The zone hosts and routers are being added to.
    current_zone: u32,
    host_zone: Vec<u32>,
    routers: Vec<Router>,
    router_index: HashMap<String, u32>,
    /// Each zone's points in creation order (SimGrid's component ids).
    components: Vec<Vec<Point>>,
}

impl Builder {
    /// An empty platform but for the global loopback link, which SimGrid
    /// creates before reading any file (so it is link 0).
    pub fn new() -> Builder {
        let mut b = Builder {
            hosts: Vec::new(),
            host_index: HashMap::default(),
            host_lines: Vec::new(),
            links: Vec::new(),
            link_index: HashMap::default(),
            link_lines: Vec::new(),
            disks: Vec::new(),
            global_loopback: LinkId(0),
            zones: Vec::new(),
            zone_index: HashMap::default(),
            current_zone: 0,
            host_zone: Vec::new(),
            routers: Vec::new(),
            router_index: HashMap::default(),
            components: Vec::new(),
        };
        b.links.push(Link {
            name: GLOBAL_LOOPBACK_NAME.to_string(),
            bandwidth: DEFAULT_LOOPBACK_BANDWIDTH,
            latency: DEFAULT_LOOPBACK_LATENCY,
            sharing: Sharing::FatPipe,
            properties: Vec::new(),
        });
        b.link_index
            .insert(GLOBAL_LOOPBACK_NAME.to_string(), b.global_loopback);
        b.link_lines.push(0);
        b
    }

    /// Makes room for `hosts` more hosts and `links` more generated links,
    /// so that a large topology does not grow its tables step by step.
    pub fn reserve(&mut self, hosts: usize, links: usize) {
        self.hosts.reserve(hosts);
        self.host_index.reserve(hosts);
        self.host_lines.reserve(hosts);
        self.links.reserve(links);
        self.link_lines.reserve(links);
    }

    /// Adds a host declared at `line`.
    pub fn add_host(&mut self, host: Host, line: u32) -> Result<HostId, Problem> {
        if let Some(&first) = self.host_index.get(&host.name) {
            return Err(Problem::Duplicate {
                kind: "host",
                name: host.name,
                first: format!(
                    "first defined at line {}",
                    self.host_lines[first.0 as usize]
                ),
            });
        }
        if self.router_index.contains_key(&host.name) {
            return Err(Problem::Duplicate {
                kind: "host",
                name: host.name,
                first: "it is the name of a router".to_string(),
            });
        }
        let id = HostId(index_u32(self.hosts.len()));
        self.host_index.insert(host.name.clone(), id);
        self.hosts.push(host);
        self.host_lines.push(line);
        self.host_zone.push(self.current_zone);
        if let Some(c) = self.components.get_mut(self.current_zone as usize) {
            c.push(Point::Host(id));
        }
        Ok(id)
    }

    /// Adds a disk to its host (declared last).
    pub fn add_disk(&mut self, disk: Disk) -> Result<(), Problem> {
        if self
            .disks
            .iter()
            .any(|d| d.host == disk.host && d.name == disk.name)
        {
            return Err(Problem::Duplicate {
                kind: "disk",
                name: disk.name,
                first: "its host has another disk of that id".to_string(),
            });
        }
        self.disks.push(disk);
        Ok(())
    }

    /// Opens a zone nested in `parent` (`None`: the top-level one); hosts
    /// and routers added next belong to it. Its routing is set when it is
    /// complete ([`Self::set_routing`]).
    pub fn begin_zone(&mut self, info: ZoneInfo, parent: Option<u32>) -> Result<u32, Problem> {
        if self.zone_index.contains_key(&info.name) {
            return Err(Problem::Duplicate {
                kind: "zone",
                name: info.name,
                first: "another zone or cluster has that id".to_string(),
            });
        }
        let id = index_u32(self.zones.len());
        self.zone_index.insert(info.name.clone(), id);
        self.zones.push(Zone {
            info,
            parent,
            routing: Routing::Empty,
            router: None,
            bypass: FullRoutes::default(),
        });
        self.components.push(Vec::new());
        if let Some(p) = parent {
            self.components[p as usize].push(Point::Zone(id));
        }
        self.current_zone = id;
        Ok(id)
    }

    /// Gives zone `zone` its bypass routes.
    pub fn set_bypass(&mut self, zone: u32, bypass: FullRoutes) {
        self.zones[zone as usize].bypass = bypass;
    }

    /// Gives zone `zone` its routing and makes its parent current again.
    pub fn set_routing(&mut self, zone: u32, routing: Routing) {
        let z = &mut self.zones[zone as usize];
        z.routing = routing;
        if let Some(parent) = z.parent {
            self.current_zone = parent;
        }
    }

    /// The zone with this id.
    pub fn zone_by_name(&self, name: &str) -> Option<u32> {
        self.zone_index.get(name).copied()
    }

    /// The zone that zone `z` is nested in.
    pub fn zone_parent(&self, z: u32) -> Option<u32> {
        self.zones[z as usize].parent
    }

    /// Adds a router to the current zone; `cluster` marks it as the
    /// gateway of that (cluster) zone.
    pub fn add_router(&mut self, name: String, cluster: bool) -> Result<u32, Problem> {
        if self.router_index.contains_key(&name) || self.host_index.contains_key(&name) {
            return Err(Problem::Duplicate {
                kind: "router",
                name,
                first: "a host or router already has that name".to_string(),
            });
        }
        let id = index_u32(self.routers.len());
        self.router_index.insert(name.clone(), id);
        self.routers.push(Router {
            name,
            zone: self.current_zone,
        });
        self.components[self.current_zone as usize].push(Point::Router(id));
        if cluster {
            let zone = self.current_zone as usize;
            self.zones[zone].router = Some(id);
        }
        Ok(id)
    }

    /// Zone `z`'s hosts, routers and nested zones, in creation order.
    pub fn zone_points(&self, z: u32) -> &[Point] {
        &self.components[z as usize]
    }

    /// The global loopback link, whole.
    pub fn loopback_use(&self) -> LinkUse {
        LinkUse {
            link: self.global_loopback,
            direction: Direction::None,
        }
    }

    /// The host or router with this name.
    pub fn point_by_name(&self, name: &str) -> Option<Point> {
        self.host_index
            .get(name)
            .map(|&h| Point::Host(h))
            .or_else(|| self.router_index.get(name).map(|&r| Point::Router(r)))
    }

    /// The zone a host or router belongs to (a zone: its parent).
    pub fn point_zone(&self, p: Point) -> u32 {
        match p {
            Point::Host(h) => self.host_zone[h.0 as usize],
            Point::Router(r) => self.routers[r as usize].zone,
            Point::Zone(z) => self.zones[z as usize].parent.unwrap_or(0),
        }
    }

    /// The name of a host, router or zone, for messages.
    pub fn point_name(&self, p: Point) -> &str {
        match p {
            Point::Host(h) => &self.hosts[h.0 as usize].name,
            Point::Router(r) => &self.routers[r as usize].name,
            Point::Zone(z) => &self.zones[z as usize].info.name,
        }
    }

    /// Adds a link declared at `line`. Besides its own name, a split-duplex
    /// link owns the names of its halves (`<name>_UP`, `<name>_DOWN`), as
    /// in SimGrid, so those must not clash either.
    pub fn add_link(&mut self, link: Link, line: u32) -> Result<LinkId, Problem> {
        let clash = self.find_link_name(&link.name).or_else(|| {
            if link.sharing == Sharing::SplitDuplex {
                let mut half = String::with_capacity(link.name.len() + 5);
                ["_UP", "_DOWN"].iter().find_map(|suffix| {
                    half.clear();
                    half.push_str(&link.name);
                    half.push_str(suffix);
                    self.link_index.get(half.as_str()).copied()
                })
            } else {
                None
            }
        });
        if let Some(first) = clash {
            let first = if first == self.global_loopback {
                "the name of SimGrid's global loopback link".to_string()
            } else {
                format!(
                    "clashes with link '{}' defined at line {}",
                    self.links[first.0 as usize].name, self.link_lines[first.0 as usize]
                )
            };
            return Err(Problem::Duplicate {
                kind: "link",
                name: link.name,
                first,
            });
        }
        let id = LinkId(index_u32(self.links.len()));
        self.link_index.insert(link.name.clone(), id);
        self.links.push(link);
        self.link_lines.push(line);
        Ok(id)
    }

    /// Adds a link generated by a topology, whose name is unique by
    /// construction and which no `<route>` can name (a topology cluster is
    /// the whole zone): it skips the name index, whose entries would be
    /// the largest part of a million-node topology's memory while loading.
    pub fn add_generated_link(&mut self, link: Link, line: u32) -> LinkId {
        let id = LinkId(index_u32(self.links.len()));
        self.links.push(link);
        self.link_lines.push(line);
        id
    }

    /// The link a name refers to: a link's own name, or the name of one
    /// half of a split-duplex link.
    fn find_link_name(&self, name: &str) -> Option<LinkId> {
        self.link_use_by_name(name).map(|(id, _)| id)
    }

    /// Resolves a link name as used in a route: a link's own name gives no
    /// direction; `<name>_UP` / `<name>_DOWN` of a split-duplex link give
    /// that half.
    pub fn link_use_by_name(&self, name: &str) -> Option<(LinkId, Option<Direction>)> {
        if let Some(&id) = self.link_index.get(name) {
            return Some((id, None));
        }
        let (base, direction) = if let Some(base) = name.strip_suffix("_UP") {
            (base, Direction::Up)
        } else {
            (name.strip_suffix("_DOWN")?, Direction::Down)
        };
        let &id = self.link_index.get(base)?;
        (self.links[id.0 as usize].sharing == Sharing::SplitDuplex).then_some((id, Some(direction)))
    }

    /// The number of hosts added so far.
    pub fn host_count(&self) -> u32 {
        index_u32(self.hosts.len())
    }

    /// The number of links added so far (the global loopback included).
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// A link already added.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// The finished platform, with what its file said.
    pub fn finish(mut self, config: Vec<(String, String)>, warnings: Vec<String>) -> Platform {
        let nested = self.zones.len() > 1;
        // Tables grown by doubling would keep up to half their size spare
        // for the whole run: bytes per host at a million hosts.
        self.hosts.shrink_to_fit();
        self.links.shrink_to_fit();
        Platform {
            zones: self.zones,
            host_zone: if nested { self.host_zone } else { Vec::new() },
            routers: self.routers,
            hosts: self.hosts,
            links: self.links,
            disks: self.disks,
            host_index: self.host_index,
            config,
            global_loopback: self.global_loopback,
            warnings,
        }
    }
}

/// Converts a table length to an id. Tables are bounded well below 2^32
/// entries (see [`cluster::MAX_CLUSTER_HOSTS`]); a larger one would be a
/// bug in this crate, not bad input.
fn index_u32(len: usize) -> u32 {
    u32::try_from(len).expect("fewer than 2^32 hosts and links")
}

impl Platform {
    /// Reads a SimGrid platform file (version 4.1). Errors name the file
    /// as `path` displays.
    pub fn from_xml_file(path: &Path) -> Result<Platform, PlatformError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PlatformError::Io {
            file: file.clone(),
            source,
        })?;
        Platform::from_xml_str(&text, &file)
    }

    /// Builds the cluster a compact description gives, such as
    /// `fat-tree:2;16,32;1,16;1,1:bw=10Gbps:lat=24us:speed=1Gf` (see
    /// [`is_compact`](crate::is_compact) and the crate documentation).
    pub fn from_compact(spec: &str) -> Result<Platform, PlatformError> {
        crate::compact::load(spec)
    }

    /// Reads SimGrid platform XML (version 4.1) from a string; `file_name`
    /// is used in error messages.
    pub fn from_xml_str(text: &str, file_name: &str) -> Result<Platform, PlatformError> {
        crate::xml::load(text, file_name)
    }

    /// The built-in platform used when the user gives none: a FLAT cluster
    /// named `default` of `hosts` hosts `node-0` .. `node-<hosts-1>`, each
    /// of `speed` flop/s and 1 core, linked by private SPLITDUPLEX links of
    /// 12.5 GBps (100 Gb/s) and 1 us to a FATPIPE backbone of 12.5 GBps
    /// and 0 s (a non-blocking switch); no limiter, no loopback links, so
    /// traffic within a host crosses the global loopback link. See the
    /// crate documentation.
    ///
    /// Panics if `hosts` exceeds [`MAX_CLUSTER_HOSTS`](crate::MAX_CLUSTER_HOSTS).
    pub fn default_cluster(hosts: usize, speed: f64) -> Platform {
        assert!(
            hosts <= cluster::MAX_CLUSTER_HOSTS,
            "the default cluster has at most {} hosts, not {hosts}",
            cluster::MAX_CLUSTER_HOSTS
        );
        let spec = ClusterSpec {
            id: "default".to_string(),
            prefix: "node-".to_string(),
            suffix: String::new(),
            radicals: (0..index_u32(hosts)).collect(),
            pstates: vec![speed],
            cores: 1,
            properties: Vec::new(),
            private: LinkSpec {
                bandwidth: 12.5e9,
                latency: 1e-6,
                sharing: Sharing::SplitDuplex,
            },
            backbone: Some(LinkSpec {
                bandwidth: 12.5e9,
                latency: 0.0,
                sharing: Sharing::FatPipe,
            }),
            limiter_bandwidth: None,
            loopback: None,
            same_host: SameHost::GlobalLoopback,
        };
        let mut builder = Builder::new();
        let zone = builder
            .begin_zone(
                ZoneInfo {
                    name: spec.id.clone(),
                    enclosing: None,
                    properties: Vec::new(),
                },
                None,
            )
            .expect("the first zone");
        let routing = cluster::build(&spec, &mut builder, 0)
            .expect("generated names of the default cluster are unique");
        builder.set_routing(zone, Routing::Cluster(routing));
        builder.finish(Vec::new(), Vec::new())
    }

    /// All hosts; `HostId(i)` is `hosts()[i]`.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The disks of every host, grouped by host, each host's in file
    /// order.
    pub fn disks(&self) -> &[Disk] {
        &self.disks
    }

    /// The disks of `host`, in file order.
    pub fn disks_of(&self, host: HostId) -> &[Disk] {
        &self.disks[self.disk_ids(host)]
    }

    /// Where the disks of `host` are in [`Platform::disks`].
    pub fn disk_ids(&self, host: HostId) -> std::ops::Range<usize> {
        let start = self.disks.partition_point(|d| d.host < host);
        let end = self.disks.partition_point(|d| d.host <= host);
        start..end
    }

    /// All links; `LinkId(i)` is `links()[i]`. Link 0 is the global loopback.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The host with this id. Panics if the id is not from this platform.
    pub fn host(&self, id: HostId) -> &Host {
        &self.hosts[id.0 as usize]
    }

    /// The link with this id. Panics if the id is not from this platform.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// The host with this name.
    pub fn host_by_name(&self, name: &str) -> Option<HostId> {
        self.host_index.get(name).copied()
    }

    /// The link with this name (a whole link, not a `_UP`/`_DOWN` half).
    /// A linear search, for tools and tests: a loaded platform keeps no
    /// index of link names, which would cost hundreds of MB on a
    /// million-node topology and that simulations never need.
    pub fn link_by_name(&self, name: &str) -> Option<LinkId> {
        self.links
            .iter()
            .position(|l| l.name == name)
            .map(|i| LinkId(index_u32(i)))
    }

    /// The name of the link or half-link a route uses: `<name>_UP` and
    /// `<name>_DOWN` for the halves of a split-duplex link, as SimGrid
    /// names them.
    pub fn link_use_name(&self, use_: LinkUse) -> String {
        let name = &self.link(use_.link).name;
        match use_.direction {
            Direction::None => name.clone(),
            Direction::Up => format!("{name}_UP"),
            Direction::Down => format!("{name}_DOWN"),
        }
    }

    /// The `<config><prop id value/></config>` settings of the file, in
    /// file order, for the emulator to apply as `--cfg=id:value`.
    pub fn config(&self) -> &[(String, String)] {
        &self.config
    }

    /// The `<prop>` pairs of the zone or cluster holding the hosts.
    pub fn zone_properties(&self) -> &[(String, String)] {
        &self.zones[0].info.properties
    }

    /// Things SimGrid would warn about while loading (such as unit-less
    /// values), each starting with `file:line:`.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The platform-wide loopback link (SimGrid's `__loopback__`), used
    /// for traffic within a host when the platform has no local route for
    /// it. FATPIPE; 10 GBps and 0 s unless changed by
    /// [`Platform::set_global_loopback`].
    pub fn global_loopback(&self) -> LinkId {
        self.global_loopback
    }

    /// Links from `src` to `dst` in order, appended to `out` (cleared
    /// first). `src == dst` gives the route within a host.
    ///
    /// Clusters compute routes on the fly (SimGrid's star routing): source
    /// limiter, source private link (UP half), backbone, destination
    /// private link (DOWN half), destination limiter, each when present.
    /// Within a host: the host's loopback link if the cluster has
    /// `loopback_bw`, else the same links up to the backbone and back down
    /// without repeating a link (as SimGrid does), except for
    /// [`Platform::default_cluster`], which uses the global loopback.
    /// Full zones use the declared routes; within a host without a
    /// declared route, the global loopback.
    ///
    /// Fails when a Full zone declares no route between the two hosts, and
    /// always in a zone with `routing="None"`; the error names both hosts.
    /// Panics if an id is not from this platform.
    pub fn route(
        &self,
        src: HostId,
        dst: HostId,
        out: &mut Vec<LinkUse>,
    ) -> Result<(), RouteError> {
        out.clear();
        let found = if self.host_zone.is_empty() {
            self.local_route(0, Point::Host(src), Point::Host(dst), out)
        } else {
            self.global_route(Point::Host(src), Point::Host(dst), out, 0)
                .map_err(|inner| self.route_error(Point::Host(src), Point::Host(dst), inner))
        };
        if found.is_err() {
            // A route that fails half way (nested zones) leaves no part.
            out.clear();
        }
        found
    }

    /// The route within zone `z` between two of its points, appended to
    /// `out`.
    fn local_route(
        &self,
        z: u32,
        src: Point,
        dst: Point,
        out: &mut Vec<LinkUse>,
    ) -> Result<(), RouteError> {
        let zone = &self.zones[z as usize];
        if let Some(r) = zone.bypass.get(src, dst) {
            out.extend_from_slice(&r.links);
            return Ok(());
        }
        match (&zone.routing, src, dst) {
            (Routing::Cluster(c), Point::Host(s), Point::Host(d)) => {
                c.route(s, d, self.global_loopback, out);
                Ok(())
            }
            // To or from the cluster's router: as far as the backbone.
            (Routing::Cluster(c), Point::Host(h), Point::Router(_)) => {
                c.route_to_router(h, out);
                Ok(())
            }
            (Routing::Cluster(c), Point::Router(_), Point::Host(h)) => {
                c.route_from_router(h, out);
                Ok(())
            }
            (Routing::Topology(t), Point::Host(s), Point::Host(d)) => {
                t.route(s, d, out);
                Ok(())
            }
            // SimGrid's TORUS, FAT_TREE and DRAGONFLY zones route to their
            // router with no link at all.
            (Routing::Cluster(_) | Routing::Topology(_), _, _) => Ok(()),
            (Routing::Full(table), _, _) if src == dst && table.get(src, dst).is_none() => {
                if let Point::Host(_) = src {
                    out.push(LinkUse {
                        link: self.global_loopback,
                        direction: Direction::None,
                    });
                }
                Ok(())
            }
            (Routing::Full(_) | Routing::Graph(_), _, _) => {
                self.zone_route(z, src, dst, out, 0).map(|_| ())
            }
            (Routing::Empty, _, _) => Err(self.missing_route(z, src, dst)),
        }
    }

    /// The declared (Full) or computed (Floyd, Dijkstra) route of zone `z`
    /// between two of its points, appended to `out`, with its gateways when
    /// it joins nested zones. A Floyd or Dijkstra chain through nested
    /// zones is stitched, as SimGrid does, with the routes between one
    /// hop's destination gateway and the next hop's source gateway.
    fn zone_route(
        &self,
        z: u32,
        src: Point,
        dst: Point,
        out: &mut Vec<LinkUse>,
        depth: u32,
    ) -> Result<Option<(Point, Point)>, RouteError> {
        match &self.zones[z as usize].routing {
            Routing::Full(table) => {
                let r = table
                    .get(src, dst)
                    .ok_or_else(|| self.missing_route(z, src, dst))?;
                out.extend_from_slice(&r.links);
                Ok(r.gateways)
            }
            Routing::Graph(g) => {
                let hops = g
                    .hops(src, dst)
                    .ok_or_else(|| self.missing_route(z, src, dst))?;
                let mut previous: Option<Point> = None;
                for hop in &hops {
                    if let (Some(prev), Some((gw_src, _))) = (previous, hop.gateways) {
                        if prev != gw_src {
                            self.global_route(prev, gw_src, out, depth + 1)?;
                        }
                    }
                    if g.reverses_hops() {
                        // SimGrid's Dijkstra zone prepends each hop's links
                        // one by one, reversing them within the hop; the
                        // order changes nothing but printed routes.
                        out.extend(hop.links.iter().rev());
                    } else {
                        out.extend_from_slice(&hop.links);
                    }
                    previous = hop.gateways.map(|(_, gw_dst)| gw_dst);
                }
                let first = hops.first().and_then(|h| h.gateways);
                let last = hops.last().and_then(|h| h.gateways);
                Ok(first
                    .zip(last)
                    .map(|((gw_src, _), (_, gw_dst))| (gw_src, gw_dst)))
            }
            _ => Err(self.missing_route(z, src, dst)),
        }
    }

    /// The zone a host or router belongs to (a zone: its parent).
    fn point_zone(&self, p: Point) -> u32 {
        match p {
            Point::Host(h) => self.host_zone.get(h.0 as usize).copied().unwrap_or(0),
            Point::Router(r) => self.routers[r as usize].zone,
            Point::Zone(z) => self.zones[z as usize].parent.unwrap_or(0),
        }
    }

    fn point_name(&self, p: Point) -> &str {
        match p {
            Point::Host(h) => &self.hosts[h.0 as usize].name,
            Point::Router(r) => &self.routers[r as usize].name,
            Point::Zone(z) => &self.zones[z as usize].info.name,
        }
    }

    /// Zone `z` and the zones around it, innermost first.
    fn ancestry(&self, mut z: u32) -> Vec<u32> {
        let mut path = vec![z];
        while let Some(p) = self.zones[z as usize].parent {
            path.push(p);
            z = p;
        }
        path
    }

    /// SimGrid's route between two points of different zones: in their
    /// closest common zone, the route between the zones (or points) that
    /// hold them, then recursively from the source to that route's source
    /// gateway and from its destination gateway to the destination.
    fn global_route(
        &self,
        src: Point,
        dst: Point,
        out: &mut Vec<LinkUse>,
        depth: u32,
    ) -> Result<(), RouteError> {
        let (zs, zd) = (self.point_zone(src), self.point_zone(dst));
        if zs == zd {
            return self.local_route(zs, src, dst, out);
        }
        if depth > 64 {
            return Err(RouteError {
                src: self.point_name(src).to_string(),
                dst: self.point_name(dst).to_string(),
                reason: "the gateways of the <zoneRoute>s lead round in circles".to_string(),
            });
        }
        let (up_s, up_d) = (self.ancestry(zs), self.ancestry(zd));
        let common = *up_s
            .iter()
            .find(|z| up_d.contains(z))
            .expect("every zone is inside zone 0");
        // The point itself when it lives in the common zone, else the zone
        // below the common one that holds it.
        let side = |p: Point, up: &[u32]| -> Point {
            match up.iter().position(|&z| z == common) {
                Some(0) | None => p,
                Some(i) => Point::Zone(up[i - 1]),
            }
        };
        let (sp, dp) = (side(src, &up_s), side(dst, &up_d));
        if let Some(bypass) = self.zones[common as usize].bypass.get(sp, dp) {
            // SimGrid routes to and from the gateways of a bypass even
            // when they are the source or destination themselves.
            if let Some((gw_src, gw_dst)) = bypass.gateways {
                self.global_route(src, gw_src, out, depth + 1)?;
                out.extend_from_slice(&bypass.links);
                return self.global_route(gw_dst, dst, out, depth + 1);
            }
            out.extend_from_slice(&bypass.links);
            return Ok(());
        }
        let mut middle = Vec::new();
        let (gw_src, gw_dst) = self
            .zone_route(common, sp, dp, &mut middle, depth)?
            .unwrap_or((sp, dp));
        if gw_src != src {
            self.global_route(src, gw_src, out, depth + 1)?;
        }
        out.extend_from_slice(&middle);
        if gw_dst != dst {
            self.global_route(gw_dst, dst, out, depth + 1)?;
        }
        Ok(())
    }

    /// Whether the platform offers Valiant routes ([`Self::valiant_route`]):
    /// DRAGONFLY clusters.
    pub fn has_valiant_routes(&self) -> bool {
        self.zones.len() == 1
            && matches!(&self.zones[0].routing, Routing::Topology(t) if t.has_valiant())
    }

    /// A Valiant route from `src` to `dst` into `out`: through a router of
    /// a group that is neither the source's nor the destination's, chosen
    /// from `salt` (the same salt, the same route), minimal on each side.
    /// Falls back to [`Self::route`] where there is no such route (not a
    /// dragonfly, the same host, only two groups involved).
    pub fn valiant_route(
        &self,
        src: HostId,
        dst: HostId,
        salt: u64,
        out: &mut Vec<LinkUse>,
    ) -> Result<(), RouteError> {
        out.clear();
        if let (1, Routing::Topology(t)) = (self.zones.len(), &self.zones[0].routing) {
            if t.valiant(src, dst, salt, out) {
                return Ok(());
            }
        }
        self.route(src, dst, out)
    }

    /// Checks that every pair of hosts has a route, naming the first pair
    /// that has none. Costs one lookup per pair of hosts.
    pub fn check_routes(&self) -> Result<(), RouteError> {
        let n = index_u32(self.hosts.len());
        match &self.zones[0].routing {
            Routing::Graph(_) => self.check_all_pairs(),
            _ if self.zones.len() > 1 => self.check_all_pairs(),
            Routing::Cluster(_) | Routing::Topology(_) => Ok(()),
            Routing::Empty => match n {
                0 => Ok(()),
                1 => Err(self.missing_route(0, Point::Host(HostId(0)), Point::Host(HostId(0)))),
                _ => Err(self.missing_route(0, Point::Host(HostId(0)), Point::Host(HostId(1)))),
            },
            Routing::Full(table) => {
                for s in 0..n {
                    for d in 0..n {
                        let (src, dst) = (Point::Host(HostId(s)), Point::Host(HostId(d)));
                        if src != dst && table.get(src, dst).is_none() {
                            return Err(self.missing_route(0, src, dst));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Routes every pair of distinct hosts.
    fn check_all_pairs(&self) -> Result<(), RouteError> {
        let n = index_u32(self.hosts.len());
        let mut out = Vec::new();
        for s in 0..n {
            for d in 0..n {
                if s != d {
                    self.route(HostId(s), HostId(d), &mut out)?;
                }
            }
        }
        Ok(())
    }

    /// Zone `z` has no route from `src` to `dst`.
    fn missing_route(&self, z: u32, src: Point, dst: Point) -> RouteError {
        let zone = &self.zones[z as usize];
        let name = &zone.info.name;
        let (s, d) = (self.point_name(src), self.point_name(dst));
        let reason = match (&zone.routing, src, dst) {
            (Routing::Empty, _, _) => format!(
                "zone '{name}' has routing=\"None\", which has no routes; use routing=\"Full\" \
                 and <route> elements"
            ),
            (Routing::Full(_), Point::Zone(_), _) | (Routing::Full(_), _, Point::Zone(_)) => {
                format!("zone '{name}' (routing=\"Full\") declares no <zoneRoute src=\"{s}\" dst=\"{d}\">")
            }
            (Routing::Full(_), _, _) => {
                format!(
                    "zone '{name}' (routing=\"Full\") declares no <route src=\"{s}\" dst=\"{d}\">"
                )
            }
            _ => format!("zone '{name}' is a cluster and cannot route between the zones inside it"),
        };
        RouteError {
            src: s.to_string(),
            dst: d.to_string(),
            reason,
        }
    }

    /// A route error between `src` and `dst`: `inner`, or, when `inner`
    /// is about a leg of the way (through gateways), `inner` placed on it.
    fn route_error(&self, src: Point, dst: Point, inner: RouteError) -> RouteError {
        let (s, d) = (self.point_name(src), self.point_name(dst));
        if inner.src == s && inner.dst == d {
            return inner;
        }
        RouteError {
            src: s.to_string(),
            dst: d.to_string(),
            reason: format!(
                "on the way, between '{}' and '{}': {}",
                inner.src, inner.dst, inner.reason
            ),
        }
    }

    /// Sets the bandwidth (bytes/s) and latency (s) of the global loopback
    /// link, as SimGrid's `network/loopback-bw` and `network/loopback-lat`
    /// do. It is used for traffic within a host when the platform has no
    /// local route for it.
    pub fn set_global_loopback(&mut self, bandwidth: f64, latency: f64) {
        let link = &mut self.links[self.global_loopback.0 as usize];
        link.bandwidth = bandwidth;
        link.latency = latency;
    }

    /// A rough figure of the network's bisection bandwidth for clusters
    /// (how much can cross between two halves of the hosts at once, per
    /// direction) with how it is counted; `None` for zones with explicit
    /// routes, where it would need a min-cut.
    pub fn bisection_hint(&self) -> Option<String> {
        let bw = |id: LinkId| format_bandwidth(self.link(id).bandwidth);
        if self.zones.len() > 1 {
            return None;
        }
        match &self.zones[0].routing {
            Routing::Topology(t) => {
                let (count, link, how) = t.bisection()?;
                let total = count as f64 * self.link(link).bandwidth;
                Some(format!(
                    "{} ({} of {}, {how})",
                    format_bandwidth(total),
                    plural(count as usize, "link"),
                    bw(link)
                ))
            }
            Routing::Cluster(c) => {
                let private = c.first_private_link()?;
                let half = (self.hosts.len() / 2) as f64 * self.link(private).bandwidth;
                match c.backbone() {
                    Some(bb)
                        if self.link(bb).sharing == Sharing::Shared
                            && self.link(bb).bandwidth < half =>
                    {
                        Some(format!(
                            "{} (the shared backbone; the private links of half the hosts carry {})",
                            bw(bb),
                            format_bandwidth(half)
                        ))
                    }
                    _ => Some(format!(
                        "{} (the private links of half the hosts, {} each)",
                        format_bandwidth(half),
                        bw(private)
                    )),
                }
            }
            Routing::Full(_) | Routing::Empty | Routing::Graph(_) => None,
        }
    }

    /// A one-line summary: the zone, its routing, and the numbers of hosts
    /// and links.
    pub fn describe(&self) -> String {
        let hosts = plural(self.hosts.len(), "host");
        // The global loopback exists in every platform; count the others.
        let links = plural(self.links.len() - 1, "link");
        let main = &self.zones[0];
        if self.zones.len() > 1 {
            let inner: Vec<String> = self.zones[1..]
                .iter()
                .map(|z| {
                    let kind = match &z.routing {
                        Routing::Full(_) => "Full".to_string(),
                        Routing::Empty => "None".to_string(),
                        Routing::Graph(g) => g.kind().to_string(),
                        Routing::Cluster(_) => "FLAT cluster".to_string(),
                        Routing::Topology(t) => {
                            let d = t.description();
                            format!("{} cluster", d.split(' ').next().unwrap_or(d))
                        }
                    };
                    format!("{} ({kind})", z.info.name)
                })
                .collect();
            return format!(
                "zone '{}' (routing Full) with {}: {}; {hosts}, {links}, {}",
                main.info.name,
                plural(self.zones.len() - 1, "nested zone"),
                inner.join(", "),
                plural(self.routers.len(), "router")
            );
        }
        let zone = match &main.info.enclosing {
            Some(outer) => format!("zone '{outer}' holding "),
            None => String::new(),
        };
        let name = &main.info.name;
        match &main.routing {
            Routing::Full(table) => format!(
                "zone '{}' (routing Full): {hosts}, {links}, {}",
                name,
                plural(table.len(), "route")
            ),
            Routing::Empty => format!(
                "zone '{}' (routing None, no routes): {hosts}, {links}",
                name
            ),
            Routing::Graph(g) => format!(
                "zone '{name}' (routing {}): {hosts}, {links}, {} routers",
                g.kind(),
                self.routers.len()
            ),
            Routing::Topology(t) => format!(
                "{zone}cluster '{}' ({}): {hosts}, {links}",
                name,
                t.description()
            ),
            Routing::Cluster(c) => {
                let link_summary = |id: Option<LinkId>| match id {
                    Some(id) => {
                        let l = self.link(id);
                        format!(
                            "{} {} {}",
                            l.sharing.simgrid_name(),
                            format_bandwidth(l.bandwidth),
                            format_time(l.latency)
                        )
                    }
                    None => "none".to_string(),
                };
                format!(
                    "{zone}cluster '{}' (FLAT): {hosts}, {links}; private links {}, backbone {}",
                    name,
                    link_summary(c.first_private_link()),
                    link_summary(c.backbone()),
                )
            }
        }
    }
}

/// `1 host`, `2 hosts`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
