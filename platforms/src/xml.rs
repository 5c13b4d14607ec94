//! Reading SimGrid platform XML (version 4.1).
//!
//! The file is read in document order, as SimGrid does, so a route can
//! only use hosts and links declared before it. Everything SimGrid's DTD
//! allows but this crate does not handle yet is refused with a "not
//! supported yet" error rather than ignored, so that a simulation never
//! silently differs from SimGrid's.

use roxmltree::{Document, Node, NodeType, ParsingOptions};

use crate::cluster::{self, ClusterSpec, LinkSpec, SameHost};
use crate::error::{PlatformError, Problem};
use crate::graph::GraphRoutes;
use crate::model::{Direction, Disk, Host, HostId, Link, LinkUse, Sharing};
use crate::platform::{Builder, FullRoutes, Platform, Point, Routing, ZoneInfo};
use crate::topology::{self, Topology};

/// Points in a Floyd zone beyond which loading warns of its quadratic
/// memory and cubic time.
const FLOYD_WARN_POINTS: usize = 2000;
use crate::units::{self, Quantity};

type Res<T> = Result<T, PlatformError>;

/// Elements of SimGrid's DTD that may appear where hosts, links and zones
/// do, but that this crate does not model yet.
const UNSUPPORTED_ELEMENTS: &[&str] = &[
    "actor",
    "backbone",
    "cabinet",
    "host_link",
    "include",
    "mount",
    "peer",
    "process",
    "random",
    "storage",
    "storage_type",
    "trace",
    "trace_connect",
];

/// Reads a platform from XML text; `file` names it in messages.
pub(crate) fn load(text: &str, file: &str) -> Res<Platform> {
    let options = ParsingOptions {
        // SimGrid files start with <!DOCTYPE platform SYSTEM "...simgrid.dtd">.
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|e| PlatformError::Invalid {
        file: file.to_string(),
        line: e.pos().row,
        problem: Box::new(Problem::Xml(e.to_string())),
    })?;
    let loader = Loader {
        file,
        line_starts: std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect(),
        builder: Builder::new(),
        config: Vec::new(),
        warnings: Vec::new(),
    };
    loader.platform(doc.root_element())
}

struct Loader<'a> {
    file: &'a str,
    /// Byte offset of each line's start: roxmltree's own position lookup
    /// scans the text from its start, which is quadratic over a file of
    /// tens of thousands of routes.
    line_starts: Vec<usize>,
    builder: Builder,
    config: Vec<(String, String)>,
    warnings: Vec<String>,
}

impl<'a> Loader<'a> {
    fn line_at(&self, pos: usize) -> u32 {
        u32::try_from(self.line_starts.partition_point(|&start| start <= pos)).unwrap_or(u32::MAX)
    }

    fn line(&self, node: Node) -> u32 {
        self.line_at(node.range().start)
    }

    /// The line of an attribute, or of its element if it is absent.
    fn attr_line(&self, node: Node, attr: &str) -> u32 {
        match node.attribute_node(attr) {
            Some(a) => self.line_at(a.range().start),
            None => self.line(node),
        }
    }

    fn error(&self, line: u32, problem: Problem) -> PlatformError {
        PlatformError::Invalid {
            file: self.file.to_string(),
            line,
            problem: Box::new(problem),
        }
    }

    fn at(&self, node: Node, problem: Problem) -> PlatformError {
        self.error(self.line(node), problem)
    }

    fn at_attr(&self, node: Node, attr: &str, problem: Problem) -> PlatformError {
        self.error(self.attr_line(node, attr), problem)
    }

    fn not_supported(&self, node: Node, what: String) -> PlatformError {
        self.at(node, Problem::NotSupported(what))
    }

    /// The child elements of `node`, refusing text other than whitespace
    /// (comments and processing instructions are skipped).
    fn elements<'n, 'input>(&self, node: Node<'n, 'input>) -> Res<Vec<Node<'n, 'input>>> {
        let mut out = Vec::new();
        for child in node.children() {
            match child.node_type() {
                NodeType::Element => out.push(child),
                NodeType::Text => {
                    let text = child.text().unwrap_or("").trim();
                    if !text.is_empty() {
                        let shown: String = text.chars().take(40).collect();
                        return Err(self.at(
                            child,
                            Problem::UnexpectedText {
                                text: shown,
                                parent: node.tag_name().name().to_string(),
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Refuses attributes that `node` does not have. `unsupported` lists
    /// SimGrid attributes this crate does not handle yet, with what they do.
    fn check_attributes(
        &self,
        node: Node,
        what: &str,
        allowed: &[&str],
        unsupported: &[(&str, &str)],
    ) -> Res<()> {
        for attr in node.attributes() {
            let name = attr.name();
            let line = self.line_at(attr.range().start);
            if attr.namespace().is_none() && allowed.contains(&name) {
                continue;
            }
            if let Some((_, purpose)) = unsupported.iter().find(|(n, _)| *n == name) {
                return Err(self.error(
                    line,
                    Problem::NotSupported(format!("{what}: attribute '{name}' ({purpose})")),
                ));
            }
            return Err(self.error(
                line,
                Problem::UnknownAttribute {
                    element: what.to_string(),
                    attribute: name.to_string(),
                    expected: allowed.join(", "),
                },
            ));
        }
        Ok(())
    }

    fn required<'n, 'input>(
        &self,
        node: Node<'n, 'input>,
        what: &str,
        attr: &'static str,
    ) -> Res<&'n str> {
        node.attribute(attr).ok_or_else(|| {
            self.at(
                node,
                Problem::MissingAttribute {
                    element: what.to_string(),
                    attribute: attr,
                },
            )
        })
    }

    /// Reads a speed, bandwidth or time attribute, noting a warning when it
    /// has no unit (SimGrid deprecates that).
    fn quantity(
        &mut self,
        node: Node,
        what: &str,
        attr: &'static str,
        quantity: Quantity,
        text: &str,
    ) -> Res<f64> {
        let parsed = units::parse(quantity, text).map_err(|error| {
            self.at_attr(
                node,
                attr,
                Problem::BadQuantity {
                    element: what.to_string(),
                    attribute: attr,
                    error,
                },
            )
        })?;
        if parsed.value == 0.0 && matches!(quantity, Quantity::Speed | Quantity::Bandwidth) {
            return Err(self.at_attr(
                node,
                attr,
                Problem::Zero {
                    element: what.to_string(),
                    attribute: attr,
                    text: text.trim().to_string(),
                },
            ));
        }
        if !parsed.unit_given {
            self.warnings.push(format!(
                "{}:{}: {what}: unit-less {attr} '{text}' taken as {}{}; SimGrid deprecates \
                 values without a unit",
                self.file,
                self.attr_line(node, attr),
                text.trim(),
                quantity.base_unit()
            ));
        }
        Ok(parsed.value)
    }

    /// Reads an optional quantity; absent or empty means none (as SimGrid
    /// treats the empty defaults of `<cluster>`).
    fn optional_quantity(
        &mut self,
        node: Node,
        what: &str,
        attr: &'static str,
        quantity: Quantity,
    ) -> Res<Option<f64>> {
        match node.attribute(attr) {
            Some(text) if !text.trim().is_empty() => {
                self.quantity(node, what, attr, quantity, text).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Reads a host's `speed` attribute: the speeds of its power states
    /// (SimGrid's pstates), comma-separated, and its `pstate` attribute
    /// (the initial one, 0 by default). Returns (speeds, initial pstate).
    fn pstates(&mut self, node: Node, what: &str) -> Res<(Vec<f64>, usize)> {
        let text = self.required(node, what, "speed")?;
        let speeds = text
            .split(',')
            .map(|one| self.quantity(node, what, "speed", Quantity::Speed, one))
            .collect::<Res<Vec<f64>>>()?;
        let pstate = match node.attribute("pstate") {
            None => 0,
            Some(given) => match given.trim().parse::<usize>() {
                Ok(p) if p < speeds.len() => p,
                _ => {
                    return Err(self.at_attr(
                        node,
                        "pstate",
                        Problem::BadPstate {
                            element: what.to_string(),
                            given: given.to_string(),
                            count: speeds.len(),
                        },
                    ))
                }
            },
        };
        Ok((speeds, pstate))
    }

    /// Reads the `core` attribute (default 1).
    fn cores(&self, node: Node, what: &str) -> Res<u32> {
        let Some(text) = node.attribute("core") else {
            return Ok(1);
        };
        match text.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(self.at_attr(
                node,
                "core",
                Problem::BadValue {
                    element: what.to_string(),
                    attribute: "core",
                    value: text.to_string(),
                    expected: "a whole number of cores >= 1".to_string(),
                },
            )),
        }
    }

    /// Reads a sharing policy attribute among `accepted` (SimGrid spellings).
    fn sharing(
        &mut self,
        node: Node,
        what: &str,
        attr: &'static str,
        default: Sharing,
        accepted: &[Sharing],
    ) -> Res<Sharing> {
        let Some(text) = node.attribute(attr) else {
            return Ok(default);
        };
        let sharing = match text {
            "SHARED" => Some(Sharing::Shared),
            "FATPIPE" => Some(Sharing::FatPipe),
            "SPLITDUPLEX" => Some(Sharing::SplitDuplex),
            "FULLDUPLEX" => {
                self.warnings.push(format!(
                    "{}:{}: {what}: {attr} FULLDUPLEX is the deprecated name of SPLITDUPLEX",
                    self.file,
                    self.attr_line(node, attr)
                ));
                Some(Sharing::SplitDuplex)
            }
            "WIFI" => {
                return Err(self.at_attr(
                    node,
                    attr,
                    Problem::NotSupported(format!("{what}: {attr}=\"WIFI\"")),
                ))
            }
            _ => None,
        };
        match sharing {
            Some(s) if accepted.contains(&s) => Ok(s),
            _ => Err(self.at_attr(
                node,
                attr,
                Problem::BadValue {
                    element: what.to_string(),
                    attribute: attr,
                    value: text.to_string(),
                    expected: accepted
                        .iter()
                        .map(|s| s.simgrid_name())
                        .collect::<Vec<_>>()
                        .join(" or "),
                },
            )),
        }
    }

    fn platform(mut self, root: Node) -> Res<Platform> {
        let name = root.tag_name().name();
        if name != "platform" {
            return Err(self.at(root, Problem::NotAPlatform(name.to_string())));
        }
        self.check_attributes(root, "<platform>", &["version"], &[])?;
        let version = self.required(root, "<platform>", "version")?;
        // SimGrid 3.32 reads versions 4 to 4.1 (4.1 only added synonyms).
        match version.trim().parse::<f64>() {
            Ok(v) if (4.0..=4.1).contains(&v) => {}
            _ => {
                return Err(self.at_attr(root, "version", Problem::Version(version.to_string())));
            }
        }
        let mut top = None;
        for child in self.elements(root)? {
            match child.tag_name().name() {
                "config" => self.config(child)?,
                // <AS> is the deprecated spelling of <zone> that 4.1 still accepts.
                "zone" | "AS" | "cluster" => {
                    if top.is_some() {
                        return Err(self.not_supported(
                            child,
                            "more than one top-level <zone> or <cluster> (nested zones)"
                                .to_string(),
                        ));
                    }
                    top = Some(child);
                }
                other if UNSUPPORTED_ELEMENTS.contains(&other) => {
                    return Err(self.not_supported(child, format!("<{other}>")));
                }
                other => return Err(self.unknown_element(child, other, "platform")),
            }
        }
        let Some(top) = top else {
            return Err(self.at(
                root,
                Problem::Structure("the platform has no <zone> or <cluster>".to_string()),
            ));
        };
        if top.tag_name().name() == "cluster" {
            self.cluster(top, None, None)?;
        } else {
            self.zone(top, None)?;
        }
        Ok(self.builder.finish(self.config, self.warnings))
    }

    fn unknown_element(&self, node: Node, name: &str, parent: &str) -> PlatformError {
        self.at(
            node,
            Problem::UnknownElement {
                element: name.to_string(),
                parent: parent.to_string(),
            },
        )
    }

    fn config(&mut self, node: Node) -> Res<()> {
        // SimGrid ignores the id of <config> too.
        self.check_attributes(node, "<config>", &["id"], &[])?;
        for child in self.elements(node)? {
            match child.tag_name().name() {
                "prop" => {
                    let prop = self.prop(child)?;
                    self.config.push(prop);
                }
                other => return Err(self.unknown_element(child, other, "config")),
            }
        }
        Ok(())
    }

    fn prop(&self, node: Node) -> Res<(String, String)> {
        self.check_attributes(node, "<prop>", &["id", "value"], &[])?;
        let id = self.required(node, "<prop>", "id")?;
        let value = self.required(node, &format!("prop '{id}'"), "value")?;
        if let Some(child) = self.elements(node)?.first() {
            return Err(self.unknown_element(*child, child.tag_name().name(), "prop"));
        }
        Ok((id.to_string(), value.to_string()))
    }

    /// A `<zone>` nested in zone `parent` (`None`: the top-level one).
    fn zone(&mut self, node: Node, parent: Option<u32>) -> Res<u32> {
        self.check_attributes(node, "<zone>", &["id", "routing"], &[])?;
        let id = self.required(node, "<zone>", "id")?;
        let what = format!("zone '{id}'");
        let routing = self.required(node, &what, "routing")?;
        // SimGrid compares routing names without case.
        #[derive(PartialEq)]
        enum Kind {
            Full,
            None,
            Floyd,
            Dijkstra,
        }
        let kind = match routing.to_ascii_lowercase().as_str() {
            "full" => Kind::Full,
            "none" => Kind::None,
            "floyd" => Kind::Floyd,
            "dijkstra" | "dijkstracache" => Kind::Dijkstra,
            "cluster" | "vivaldi" | "wifi" => {
                return Err(self.at_attr(
                    node,
                    "routing",
                    Problem::NotSupported(format!(
                        "{what}: routing=\"{routing}\" (Full, Floyd, Dijkstra and None are \
                         supported)"
                    )),
                ));
            }
            _ => {
                return Err(self.at_attr(
                    node,
                    "routing",
                    Problem::BadValue {
                        element: what,
                        attribute: "routing",
                        value: routing.to_string(),
                        expected: "Full, Floyd, Dijkstra, DijkstraCache, None, Cluster, Vivaldi \
                                   or Wifi"
                            .to_string(),
                    },
                ));
            }
        };
        let children = self.elements(node)?;
        let mut properties = Vec::new();
        for &child in children.iter().filter(|c| c.tag_name().name() == "prop") {
            properties.push(self.prop(child)?);
        }
        let content: Vec<Node> = children
            .into_iter()
            .filter(|c| c.tag_name().name() != "prop")
            .collect();
        // A top-level zone around one cluster is that cluster (SimGrid's
        // usual way of writing a cluster platform).
        if let ([cluster], None) = (&content[..], parent) {
            if cluster.tag_name().name() == "cluster" {
                return self.cluster(*cluster, None, Some((id.to_string(), properties)));
            }
        }
        let info = ZoneInfo {
            name: id.to_string(),
            enclosing: None,
            properties,
        };
        let zid = self
            .builder
            .begin_zone(info, parent)
            .map_err(|p| self.at_attr(node, "id", p))?;
        let mut routes = FullRoutes::default();
        let mut bypass = FullRoutes::default();
        for child in content {
            match child.tag_name().name() {
                "host" => self.host(child)?,
                "link" => self.link(child)?,
                "router" => self.router(child)?,
                "bypassRoute" | "bypassZoneRoute" | "bypassASroute" => {
                    self.route(child, &mut bypass, zid)?
                }
                "route" | "zoneRoute" | "ASroute" if kind == Kind::None => {
                    return Err(self.at(
                        child,
                        Problem::Structure(format!(
                            "{what} has routing=\"None\", which takes no <{}>; use \
                             routing=\"Full\"",
                            child.tag_name().name()
                        )),
                    ));
                }
                "route" | "zoneRoute" | "ASroute" => self.route(child, &mut routes, zid)?,
                "zone" | "AS" => {
                    self.zone(child, Some(zid))?;
                }
                "cluster" => {
                    self.cluster(child, Some(zid), None)?;
                }
                other if UNSUPPORTED_ELEMENTS.contains(&other) => {
                    return Err(self.not_supported(child, format!("<{other}>")));
                }
                other => return Err(self.unknown_element(child, other, "zone")),
            }
        }
        let loopback = self.builder.loopback_use();
        let routing = match kind {
            Kind::Full => Routing::Full(routes),
            Kind::None => Routing::Empty,
            Kind::Floyd => {
                let points = self.builder.zone_points(zid);
                if points.len() > FLOYD_WARN_POINTS {
                    self.warnings.push(format!(
                        "{}:{}: {what}: Floyd routing over {} points takes {} MB and \
                         (points)^3 steps to load; Dijkstra routing computes routes on demand",
                        self.file,
                        self.line(node),
                        points.len(),
                        points.len() * points.len() * 12 / 1_000_000
                    ));
                }
                Routing::Graph(GraphRoutes::floyd(points, &routes, loopback))
            }
            Kind::Dijkstra => Routing::Graph(GraphRoutes::dijkstra(&routes, loopback)),
        };
        self.builder.set_bypass(zid, bypass);
        self.builder.set_routing(zid, routing);
        Ok(zid)
    }

    /// A `<router id>` of the current zone.
    fn router(&mut self, node: Node) -> Res<()> {
        self.check_attributes(
            node,
            "<router>",
            &["id"],
            &[("coordinates", "Vivaldi positions")],
        )?;
        let id = self.required(node, "<router>", "id")?;
        if let Some(child) = self.elements(node)?.first() {
            return Err(self.unknown_element(*child, child.tag_name().name(), "router"));
        }
        self.builder
            .add_router(id.to_string(), false)
            .map_err(|p| self.at_attr(node, "id", p))?;
        Ok(())
    }

    /// Properties of a host, link or cluster: its `<prop>` children.
    fn properties(&self, node: Node, parent: &str) -> Res<Vec<(String, String)>> {
        self.property_list(&self.elements(node)?, parent)
    }

    /// The `<prop>`s among `children` of a `<parent>`, which may hold
    /// nothing else.
    fn property_list(&self, children: &[Node], parent: &str) -> Res<Vec<(String, String)>> {
        let mut properties = Vec::new();
        for &child in children {
            match child.tag_name().name() {
                "prop" => properties.push(self.prop(child)?),
                other if UNSUPPORTED_ELEMENTS.contains(&other) => {
                    return Err(self.not_supported(child, format!("<{other}> in <{parent}>")));
                }
                other => return Err(self.unknown_element(child, other, parent)),
            }
        }
        Ok(properties)
    }

    fn host(&mut self, node: Node) -> Res<()> {
        self.check_attributes(
            node,
            "<host>",
            // Coordinates only matter to Vivaldi zones, so they are accepted
            // and have no effect here.
            &["id", "speed", "core", "pstate", "coordinates"],
            &[
                ("speed_file", "speed profiles"),
                ("availability_file", "speed profiles"),
                ("state_file", "state profiles"),
            ],
        )?;
        let id = self.required(node, "<host>", "id")?;
        let what = format!("host '{id}'");
        let (pstates, pstate) = self.pstates(node, &what)?;
        let cores = self.cores(node, &what)?;
        let (disks, others): (Vec<Node>, Vec<Node>) = self
            .elements(node)?
            .into_iter()
            .partition(|c| c.tag_name().name() == "disk");
        let properties = self.property_list(&others, "host")?;
        let host = Host {
            name: id.to_string(),
            speed: pstates[pstate],
            pstates: Host::pstate_list(&pstates),
            pstate,
            cores,
            properties,
        };
        let line = self.line(node);
        let host = self
            .builder
            .add_host(host, line)
            .map_err(|p| self.error(line, p))?;
        for d in disks {
            self.disk(d, host)?;
        }
        Ok(())
    }

    /// A `<disk>` of `host` (SimGrid 3.32's: `read_bw`, `write_bw`, and
    /// the `size` and `mount` properties).
    fn disk(&mut self, node: Node, host: HostId) -> Res<()> {
        self.check_attributes(node, "<disk>", &["id", "read_bw", "write_bw"], &[])?;
        let id = self.required(node, "<disk>", "id")?;
        let what = format!("disk '{id}'");
        let read = self.required(node, &what, "read_bw")?;
        let read_bw = self.quantity(node, &what, "read_bw", Quantity::Bandwidth, read)?;
        let write = self.required(node, &what, "write_bw")?;
        let write_bw = self.quantity(node, &what, "write_bw", Quantity::Bandwidth, write)?;
        let properties = self.properties(node, "disk")?;
        let size = match properties.iter().find(|(k, _)| k == "size") {
            Some((_, v)) => Some(self.quantity(node, &what, "size", Quantity::Size, v)?),
            None => None,
        };
        let mount = properties
            .iter()
            .find(|(k, _)| k == "mount")
            .map(|(_, v)| v.clone());
        let disk = Disk {
            name: id.to_string(),
            host,
            read_bw,
            write_bw,
            size,
            mount,
            properties,
        };
        let line = self.line(node);
        self.builder.add_disk(disk).map_err(|p| self.error(line, p))
    }

    fn link(&mut self, node: Node) -> Res<()> {
        self.check_attributes(
            node,
            "<link>",
            &["id", "bandwidth", "latency", "sharing_policy"],
            &[
                ("bandwidth_file", "bandwidth profiles"),
                ("latency_file", "latency profiles"),
                ("state_file", "state profiles"),
            ],
        )?;
        let id = self.required(node, "<link>", "id")?;
        let what = format!("link '{id}'");
        let bandwidth_text = self.required(node, &what, "bandwidth")?;
        let bandwidth = self.quantity(
            node,
            &what,
            "bandwidth",
            Quantity::Bandwidth,
            bandwidth_text,
        )?;
        let latency = match node.attribute("latency") {
            Some(text) => self.quantity(node, &what, "latency", Quantity::Time, text)?,
            None => 0.0,
        };
        let sharing = self.sharing(
            node,
            &what,
            "sharing_policy",
            Sharing::Shared,
            &[Sharing::Shared, Sharing::SplitDuplex, Sharing::FatPipe],
        )?;
        let properties = self.properties(node, "link")?;
        let link = Link {
            name: id.to_string(),
            bandwidth,
            latency,
            sharing,
            properties,
        };
        let line = self.line(node);
        self.builder
            .add_link(link, line)
            .map_err(|p| self.error(line, p))?;
        Ok(())
    }

    /// A `<route>` (between hosts or routers of zone `zone`) or a
    /// `<zoneRoute>` (between zones nested in it, with gateways).
    /// `<bypassRoute>` and `<bypassZoneRoute>` likewise, one way.
    fn route(&mut self, node: Node, routes: &mut FullRoutes, zone: u32) -> Res<()> {
        let element = node.tag_name().name();
        // ASroute and bypassASroute: the deprecated spellings 4.1 accepts.
        let between_zones = matches!(
            element,
            "zoneRoute" | "bypassZoneRoute" | "ASroute" | "bypassASroute"
        );
        let bypass = element.starts_with("bypass");
        let tag = format!("<{element}>");
        let allowed: &[&str] = match (between_zones, bypass) {
            (true, false) => &["src", "dst", "gw_src", "gw_dst", "symmetrical"],
            (false, false) => &["src", "dst", "symmetrical"],
            (true, true) => &["src", "dst", "gw_src", "gw_dst"],
            (false, true) => &["src", "dst"],
        };
        self.check_attributes(node, &tag, allowed, &[])?;
        let src = self.required(node, &tag, "src")?;
        let dst = self.required(node, &tag, "dst")?;
        let what = match (between_zones, bypass) {
            (true, false) => format!("zone route from '{src}' to '{dst}'"),
            (false, false) => format!("route from '{src}' to '{dst}'"),
            (true, true) => format!("bypass zone route from '{src}' to '{dst}'"),
            (false, true) => format!("bypass route from '{src}' to '{dst}'"),
        };
        // Bypass routes go one way only.
        let symmetrical = match node.attribute("symmetrical") {
            None if bypass => false,
            None | Some("YES") | Some("yes") => true,
            Some("NO") | Some("no") => false,
            Some(other) => {
                return Err(self.at_attr(
                    node,
                    "symmetrical",
                    Problem::BadValue {
                        element: what,
                        attribute: "symmetrical",
                        value: other.to_string(),
                        expected: "YES or NO".to_string(),
                    },
                ));
            }
        };
        let unknown = |attr: &str, name: &str| {
            self.at_attr(
                node,
                attr,
                Problem::UnknownHost {
                    element: what.clone(),
                    name: name.to_string(),
                },
            )
        };
        // A host or router of this zone.
        let point = |attr: &str, name: &str| -> Res<Point> {
            let p = self
                .builder
                .point_by_name(name)
                .ok_or_else(|| unknown(attr, name))?;
            if self.builder.point_zone(p) != zone {
                return Err(self.at_attr(
                    node,
                    attr,
                    Problem::Structure(format!(
                        "{what}: '{name}' is not in zone '{}' (a route joins hosts or routers \
                         of its own zone; between zones, use <zoneRoute>)",
                        self.builder.point_name(Point::Zone(zone))
                    )),
                ));
            }
            Ok(p)
        };
        // A zone nested directly in this one.
        let nested = |attr: &str, name: &str| -> Res<Point> {
            match self.builder.zone_by_name(name) {
                Some(z) if self.builder.zone_parent(z) == Some(zone) => Ok(Point::Zone(z)),
                Some(_) => Err(self.at_attr(
                    node,
                    attr,
                    Problem::Structure(format!(
                        "{what}: zone '{name}' is not nested directly in zone '{}'",
                        self.builder.point_name(Point::Zone(zone))
                    )),
                )),
                None => Err(self.at_attr(
                    node,
                    attr,
                    Problem::Structure(format!("{what}: no zone or cluster '{name}' (yet)")),
                )),
            }
        };
        let (src_id, dst_id, gateways) = if between_zones {
            let (s, d) = (nested("src", src)?, nested("dst", dst)?);
            let gw_src = self.required(node, &what, "gw_src")?;
            let gw_dst = self.required(node, &what, "gw_dst")?;
            let gw = |attr: &str, name: &str, inside: Point| -> Res<Point> {
                let p = self
                    .builder
                    .point_by_name(name)
                    .ok_or_else(|| unknown(attr, name))?;
                // The gateway must lie inside that zone, at any depth.
                let Point::Zone(target) = inside else {
                    return Ok(p);
                };
                let mut z = Some(self.builder.point_zone(p));
                while let Some(here) = z {
                    if here == target {
                        return Ok(p);
                    }
                    z = self.builder.zone_parent(here);
                }
                Err(self.at_attr(
                    node,
                    attr,
                    Problem::Structure(format!(
                        "{what}: gateway '{name}' is not inside zone '{}'",
                        self.builder.point_name(inside)
                    )),
                ))
            };
            let gateways = (gw("gw_src", gw_src, s)?, gw("gw_dst", gw_dst, d)?);
            (s, d, Some(gateways))
        } else {
            (point("src", src)?, point("dst", dst)?, None)
        };
        let mut links = Vec::new();
        for child in self.elements(node)? {
            match child.tag_name().name() {
                "link_ctn" => links.push(self.link_ctn(child, &what)?),
                other => return Err(self.unknown_element(child, other, element)),
            }
        }
        if links.is_empty() && !between_zones {
            return Err(self.at(node, Problem::EmptyRoute { element: what }));
        }
        routes
            .add(src_id, dst_id, links, gateways, symmetrical)
            .map_err(|clash| {
                self.at(
                    node,
                    Problem::DuplicateRoute {
                        element: what.clone(),
                        src: self.builder.point_name(clash.src).to_string(),
                        dst: self.builder.point_name(clash.dst).to_string(),
                    },
                )
            })
    }

    /// One link of a route. A split-duplex link needs a direction, unless it
    /// is named by one of its halves (`<id>_UP`, `<id>_DOWN`); other links
    /// ignore the direction, as SimGrid does.
    fn link_ctn(&self, node: Node, route: &str) -> Res<LinkUse> {
        self.check_attributes(node, "<link_ctn>", &["id", "direction"], &[])?;
        let id = self.required(node, &format!("{route}: <link_ctn>"), "id")?;
        let direction = match node.attribute("direction") {
            None | Some("NONE") => Direction::None,
            Some("UP") => Direction::Up,
            Some("DOWN") => Direction::Down,
            Some(other) => {
                return Err(self.at_attr(
                    node,
                    "direction",
                    Problem::BadValue {
                        element: format!("{route}: link '{id}'"),
                        attribute: "direction",
                        value: other.to_string(),
                        expected: "UP, DOWN or NONE".to_string(),
                    },
                ));
            }
        };
        let Some((link, half)) = self.builder.link_use_by_name(id) else {
            return Err(self.at_attr(
                node,
                "id",
                Problem::UnknownLink {
                    element: route.to_string(),
                    name: id.to_string(),
                },
            ));
        };
        if let Some(half) = half {
            return Ok(LinkUse {
                link,
                direction: half,
            });
        }
        if self.builder.link(link).sharing != Sharing::SplitDuplex {
            return Ok(LinkUse {
                link,
                direction: Direction::None,
            });
        }
        if direction == Direction::None {
            return Err(self.at(
                node,
                Problem::MissingDirection {
                    element: route.to_string(),
                    link: id.to_string(),
                },
            ));
        }
        Ok(LinkUse { link, direction })
    }

    /// A `<cluster>`, alone in the platform or in the zone `enclosing`
    /// (its id and properties).
    fn cluster(
        &mut self,
        node: Node,
        parent: Option<u32>,
        enclosing: Option<(String, Vec<(String, String)>)>,
    ) -> Res<u32> {
        self.check_attributes(
            node,
            "<cluster>",
            &[
                "id",
                "prefix",
                "suffix",
                "radical",
                "speed",
                "core",
                "bw",
                "lat",
                "sharing_policy",
                "topology",
                "topo_parameters",
                "bb_bw",
                "bb_lat",
                "bb_sharing_policy",
                "router_id",
                "limiter_link",
                "loopback_bw",
                "loopback_lat",
            ],
            &[],
        )?;
        let id = self.required(node, "<cluster>", "id")?;
        let what = format!("cluster '{id}'");
        let topology = match node.attribute("topology").unwrap_or("FLAT") {
            // topo_parameters means nothing to a FLAT cluster; SimGrid
            // ignores it too. router_id names the cluster's router, which
            // only matters to routes between zones (not supported yet).
            "FLAT" => None,
            t @ ("TORUS" | "FAT_TREE" | "DRAGONFLY") => {
                let params = self.required(node, &what, "topo_parameters")?;
                Some(Topology::parse(t, params).map_err(|why| {
                    self.at_attr(
                        node,
                        "topo_parameters",
                        Problem::BadValue {
                            element: what.clone(),
                            attribute: "topo_parameters",
                            value: params.to_string(),
                            expected: why,
                        },
                    )
                })?)
            }
            other => {
                return Err(self.at_attr(
                    node,
                    "topology",
                    Problem::BadValue {
                        element: what,
                        attribute: "topology",
                        value: other.to_string(),
                        expected: "FLAT, TORUS, FAT_TREE or DRAGONFLY".to_string(),
                    },
                ));
            }
        };
        let prefix = self.required(node, &what, "prefix")?;
        let suffix = self.required(node, &what, "suffix")?;
        let radical = self.required(node, &what, "radical")?;
        let radicals = cluster::parse_radical(radical).map_err(|e| {
            self.at_attr(
                node,
                "radical",
                Problem::BadValue {
                    element: what.clone(),
                    attribute: "radical",
                    value: radical.to_string(),
                    expected: e.expected(),
                },
            )
        })?;
        // A cluster's hosts start at their first pstate (it has no
        // `pstate` attribute).
        let (pstates, _) = self.pstates(node, &what)?;
        let cores = self.cores(node, &what)?;
        let bw_text = self.required(node, &what, "bw")?;
        let bw = self.quantity(node, &what, "bw", Quantity::Bandwidth, bw_text)?;
        let lat_text = self.required(node, &what, "lat")?;
        let lat = self.quantity(node, &what, "lat", Quantity::Time, lat_text)?;
        let sharing = self.sharing(
            node,
            &what,
            "sharing_policy",
            Sharing::SplitDuplex,
            &[Sharing::Shared, Sharing::SplitDuplex, Sharing::FatPipe],
        )?;
        if sharing == Sharing::FatPipe {
            self.warnings.push(format!(
                "{}:{}: {what}: SimGrid 3.32 creates the private links of a cluster with \
                 sharing_policy=\"FATPIPE\" as SHARED links; so does this emulator",
                self.file,
                self.attr_line(node, "sharing_policy")
            ));
        }
        let bb_bw = self.optional_quantity(node, &what, "bb_bw", Quantity::Bandwidth)?;
        let bb_lat = self.optional_quantity(node, &what, "bb_lat", Quantity::Time)?;
        let bb_sharing = self.sharing(
            node,
            &what,
            "bb_sharing_policy",
            Sharing::Shared,
            &[Sharing::Shared, Sharing::FatPipe],
        )?;
        let backbone = self
            .pair(node, &what, ("bb_bw", bb_bw), ("bb_lat", bb_lat))?
            .map(|(bandwidth, latency)| LinkSpec {
                bandwidth,
                latency,
                sharing: bb_sharing,
            });
        let limiter = self.optional_quantity(node, &what, "limiter_link", Quantity::Bandwidth)?;
        let loopback_bw =
            self.optional_quantity(node, &what, "loopback_bw", Quantity::Bandwidth)?;
        let loopback_lat = self.optional_quantity(node, &what, "loopback_lat", Quantity::Time)?;
        let loopback = self.pair(
            node,
            &what,
            ("loopback_bw", loopback_bw),
            ("loopback_lat", loopback_lat),
        )?;
        let properties = self.properties(node, "cluster")?;
        let spec = ClusterSpec {
            id: id.to_string(),
            prefix: prefix.to_string(),
            suffix: suffix.to_string(),
            radicals,
            pstates,
            cores,
            properties: properties.clone(),
            private: LinkSpec {
                bandwidth: bw,
                latency: lat,
                sharing,
            },
            backbone,
            // SimGrid creates a limiter only for a positive limiter_link.
            limiter_bandwidth: limiter.filter(|&bw| bw > 0.0),
            loopback,
            same_host: SameHost::ThroughSwitch,
        };
        let line = self.line(node);
        let (enclosing, mut zone_properties) = match enclosing {
            Some((zone_id, props)) => (Some(zone_id), props),
            None => (None, Vec::new()),
        };
        zone_properties.extend(properties);
        let zid = self
            .builder
            .begin_zone(
                ZoneInfo {
                    name: spec.id.clone(),
                    enclosing,
                    properties: zone_properties,
                },
                parent,
            )
            .map_err(|p| self.at_attr(node, "id", p))?;
        let routing = match &topology {
            None => Routing::Cluster(
                cluster::build(&spec, &mut self.builder, line).map_err(|p| self.error(line, p))?,
            ),
            Some(t) => {
                self.check_topology_cluster(node, &what, t, &spec)?;
                Routing::Topology(
                    topology::build(&spec, t, &mut self.builder, line)
                        .map_err(|p| self.error(line, p))?,
                )
            }
        };
        // A FLAT cluster's router, the gateway other zones name: router_id,
        // or as SimGrid names it. SimGrid 3.32 gives TORUS, FAT_TREE and
        // DRAGONFLY clusters no router (their hosts serve as gateways).
        if topology.is_none() {
            let router = match node.attribute("router_id") {
                Some(r) if !r.is_empty() => r.to_string(),
                _ => format!("{}{}_router{}", spec.prefix, spec.id, spec.suffix),
            };
            self.builder
                .add_router(router, true)
                .map_err(|p| self.at_attr(node, "router_id", p))?;
        }
        self.builder.set_routing(zid, routing);
        Ok(zid)
    }

    /// What a TORUS, FAT_TREE or DRAGONFLY cluster needs beyond a FLAT one:
    /// one radical value per node of the topology. A backbone means nothing
    /// to it (SimGrid ignores one, with a warning here); per-node limiter
    /// links are not supported yet.
    fn check_topology_cluster(
        &mut self,
        node: Node,
        what: &str,
        topology: &Topology,
        spec: &ClusterSpec,
    ) -> Res<()> {
        if spec.radicals.len() as u64 != topology.nodes() {
            return Err(self.at_attr(
                node,
                "radical",
                Problem::BadValue {
                    element: what.to_string(),
                    attribute: "radical",
                    value: node.attribute("radical").unwrap_or("").to_string(),
                    expected: format!(
                        "{} values, one per node of the {} topology (it has {})",
                        topology.nodes(),
                        topology.kind(),
                        spec.radicals.len()
                    ),
                },
            ));
        }
        // SimGrid names limiters by node index and switch number, switches
        // counting down from 2n-1: with more switches than nodes, two
        // limiters get one name and SimGrid refuses the platform.
        let elements = topology.elements() as u64;
        if spec.limiter_bandwidth.is_some()
            && matches!(topology, Topology::FatTree(_))
            && elements > 2 * topology.nodes()
        {
            return Err(self.at_attr(
                node,
                "limiter_link",
                Problem::BadValue {
                    element: what.to_string(),
                    attribute: "limiter_link",
                    value: node.attribute("limiter_link").unwrap_or("").to_string(),
                    expected: format!(
                        "no limiter on this fat tree: it has {} switches for {} nodes, and \
                         SimGrid names switch limiters from 2n-1 downwards, so two would share \
                         the name {}_link_{}_limiter (SimGrid refuses it too)",
                        elements - topology.nodes(),
                        topology.nodes(),
                        spec.id,
                        topology.nodes() - 1
                    ),
                },
            ));
        }
        for attr in ["bb_bw", "bb_lat", "bb_sharing_policy"] {
            if node.attribute(attr).is_some() {
                self.warnings.push(format!(
                    "{}:{}: {what}: {attr} is ignored: a {} cluster has no backbone (SimGrid ignores it too)",
                    self.file,
                    self.attr_line(node, attr),
                    topology.kind()
                ));
            }
        }
        Ok(())
    }

    /// A backbone or loopback link exists, as in SimGrid, when its bandwidth
    /// or latency is non-zero. A latency without a bandwidth would make a
    /// link of zero bandwidth that no message could cross, so it is refused.
    fn pair(
        &self,
        node: Node,
        what: &str,
        (bw_attr, bw): (&'static str, Option<f64>),
        (lat_attr, lat): (&'static str, Option<f64>),
    ) -> Res<Option<(f64, f64)>> {
        let bw = bw.unwrap_or(0.0);
        let lat = lat.unwrap_or(0.0);
        if bw > 0.0 {
            Ok(Some((bw, lat)))
        } else if lat > 0.0 {
            Err(self.at_attr(
                node,
                lat_attr,
                Problem::Structure(format!(
                    "{what}: {lat_attr} is given without a positive {bw_attr}: the link would \
                     have no bandwidth"
                )),
            ))
        } else {
            Ok(None)
        }
    }
}
