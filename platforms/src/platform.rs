//! The platform: hosts, links, configuration and the route function.

use rustc_hash::FxHashMap as HashMap;
use std::path::Path;

use crate::cluster::{self, ClusterRouting, ClusterSpec, LinkSpec, SameHost};
use crate::error::{PlatformError, Problem, RouteError};
use crate::model::{Direction, Host, HostId, Link, LinkId, LinkUse, Sharing};
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
    zone: ZoneInfo,
    hosts: Vec<Host>,
    links: Vec<Link>,
    host_index: HashMap<String, HostId>,
    config: Vec<(String, String)>,
    routing: Routing,
    global_loopback: LinkId,
    warnings: Vec<String>,
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
}

/// The explicit routes of a Full zone, keyed by (source, destination).
#[derive(Debug, Clone, Default)]
pub(crate) struct FullRoutes {
    table: HashMap<(HostId, HostId), Box<[LinkUse]>>,
}

/// The existing route that keeps a new one from being added to a [`FullRoutes`].
pub(crate) struct RouteClash {
    pub src: HostId,
    pub dst: HostId,
}

impl FullRoutes {
    /// Adds the route src -> dst and, when `symmetrical`, its reverse (the
    /// links in reverse order, each using the other half of split-duplex
    /// links), refusing to overwrite an existing route as SimGrid does.
    pub fn add(
        &mut self,
        src: HostId,
        dst: HostId,
        links: Vec<LinkUse>,
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
            self.table.insert((dst, src), back);
        }
        self.table.insert((src, dst), links.into_boxed_slice());
        Ok(())
    }

    fn get(&self, src: HostId, dst: HostId) -> Option<&[LinkUse]> {
        self.table.get(&(src, dst)).map(|r| &r[..])
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
    global_loopback: LinkId,
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
            global_loopback: LinkId(0),
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
        let id = HostId(index_u32(self.hosts.len()));
        self.host_index.insert(host.name.clone(), id);
        self.hosts.push(host);
        self.host_lines.push(line);
        Ok(id)
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

    /// The host declared so far with this name.
    pub fn host_by_name(&self, name: &str) -> Option<HostId> {
        self.host_index.get(name).copied()
    }

    /// A host already added.
    pub fn host(&self, id: HostId) -> &Host {
        &self.hosts[id.0 as usize]
    }

    /// The number of links added so far (the global loopback included).
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// A link already added.
    pub fn link(&self, id: LinkId) -> &Link {
        &self.links[id.0 as usize]
    }

    /// The finished platform, with how it routes and what its file said.
    pub fn finish(
        self,
        zone: ZoneInfo,
        routing: Routing,
        config: Vec<(String, String)>,
        warnings: Vec<String>,
    ) -> Platform {
        Platform {
            zone,
            hosts: self.hosts,
            links: self.links,
            host_index: self.host_index,
            config,
            routing,
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
            speed,
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
        let routing = cluster::build(&spec, &mut builder, 0)
            .expect("generated names of the default cluster are unique");
        builder.finish(
            ZoneInfo {
                name: spec.id,
                enclosing: None,
                properties: Vec::new(),
            },
            Routing::Cluster(routing),
            Vec::new(),
            Vec::new(),
        )
    }

    /// All hosts; `HostId(i)` is `hosts()[i]`.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
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
        &self.zone.properties
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
        match &self.routing {
            Routing::Cluster(c) => {
                c.route(src, dst, self.global_loopback, out);
                Ok(())
            }
            Routing::Full(table) => {
                if let Some(links) = table.get(src, dst) {
                    out.extend_from_slice(links);
                    Ok(())
                } else if src == dst {
                    out.push(LinkUse {
                        link: self.global_loopback,
                        direction: Direction::None,
                    });
                    Ok(())
                } else {
                    Err(self.missing_route(src, dst))
                }
            }
            Routing::Topology(t) => {
                t.route(src, dst, out);
                Ok(())
            }
            Routing::Empty => Err(self.missing_route(src, dst)),
        }
    }

    /// Whether the platform offers Valiant routes ([`Self::valiant_route`]):
    /// DRAGONFLY clusters.
    pub fn has_valiant_routes(&self) -> bool {
        matches!(&self.routing, Routing::Topology(t) if t.has_valiant())
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
        if let Routing::Topology(t) = &self.routing {
            if t.valiant(src, dst, salt, out) {
                return Ok(());
            }
        }
        self.route(src, dst, out)
    }

    /// Checks that every pair of hosts has a route, naming the first pair
    /// that has none. Costs one lookup per pair of hosts.
    pub fn check_routes(&self) -> Result<(), RouteError> {
        match &self.routing {
            Routing::Cluster(_) | Routing::Topology(_) => Ok(()),
            Routing::Empty => match self.hosts.len() {
                0 => Ok(()),
                1 => Err(self.missing_route(HostId(0), HostId(0))),
                _ => Err(self.missing_route(HostId(0), HostId(1))),
            },
            Routing::Full(table) => {
                let n = index_u32(self.hosts.len());
                for s in 0..n {
                    for d in 0..n {
                        let (src, dst) = (HostId(s), HostId(d));
                        if src != dst && table.get(src, dst).is_none() {
                            return Err(self.missing_route(src, dst));
                        }
                    }
                }
                Ok(())
            }
        }
    }

    fn missing_route(&self, src: HostId, dst: HostId) -> RouteError {
        let reason = match self.routing {
            Routing::Empty => format!(
                "zone '{}' has routing=\"None\", which has no routes; use routing=\"Full\" \
                 and <route> elements",
                self.zone.name
            ),
            _ => format!(
                "zone '{}' (routing=\"Full\") declares no <route src=\"{}\" dst=\"{}\">",
                self.zone.name,
                self.host(src).name,
                self.host(dst).name
            ),
        };
        RouteError {
            src: self.host(src).name.clone(),
            dst: self.host(dst).name.clone(),
            reason,
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
        match &self.routing {
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
            Routing::Full(_) | Routing::Empty => None,
        }
    }

    /// A one-line summary: the zone, its routing, and the numbers of hosts
    /// and links.
    pub fn describe(&self) -> String {
        let hosts = plural(self.hosts.len(), "host");
        // The global loopback exists in every platform; count the others.
        let links = plural(self.links.len() - 1, "link");
        let zone = match &self.zone.enclosing {
            Some(outer) => format!("zone '{outer}' holding "),
            None => String::new(),
        };
        match &self.routing {
            Routing::Full(table) => format!(
                "zone '{}' (routing Full): {hosts}, {links}, {}",
                self.zone.name,
                plural(table.len(), "route")
            ),
            Routing::Empty => format!(
                "zone '{}' (routing None, no routes): {hosts}, {links}",
                self.zone.name
            ),
            Routing::Topology(t) => format!(
                "{zone}cluster '{}' ({}): {hosts}, {links}",
                self.zone.name,
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
                    self.zone.name,
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
