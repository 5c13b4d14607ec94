//! TORUS, FAT_TREE and DRAGONFLY clusters, built and routed the way
//! SimGrid 3.32 builds and routes them (`TorusZone`, `FatTreeZone` and
//! `DragonflyZone` in `src/kernel/routing/`), so that the same platform
//! file gives the same links, the same link names and the same routes.
//!
//! Hosts are named as in a FLAT cluster (`<prefix><radical><suffix>`) and,
//! with `loopback_bw`, each has a FATPIPE loopback link
//! `<id>_link_<radical>_loopback` used for traffic within the host.
//! With `limiter_link`, nodes (and fat-tree switches, dragonfly routers)
//! get a limiter `<id>_link_<k>_limiter` (k: the node's index, the
//! switch's or router's number from 2n-1 downwards), placed on routes
//! where SimGrid 3.32 places them (see each topology's route). Links
//! are split-duplex (halves `_UP` and `_DOWN`) when the cluster's
//! `sharing_policy` is SPLITDUPLEX (the default), else single SHARED links.
//! A backbone means nothing to these topologies (SimGrid ignores `bb_*`).
//!
//! Routes are computed when asked, from per-node tables that grow with the
//! number of nodes and links, never with its square.
//!
//! # TORUS `d1,d2,...,dn`
//!
//! Node i has coordinates `(i / (d1*...*d(j-1))) % dj`. Each node owns one
//! link per dimension, `<id>_link_from_<i>_to_<k>`, to its +1 neighbour k
//! in that dimension (wrapping around). A route goes through the
//! dimensions in order; in each it goes right (through the current node's
//! link, UP half) when the target lies at most d/2 steps to the right of
//! the source, possibly wrapping, else left (through the next node's link,
//! DOWN half). Within a host without loopback the route is empty.
//!
//! # FAT_TREE `L;d1,...,dL;u1,...,uL;c1,...,cL`
//!
//! L levels of switches above the nodes; a level-i element has d(i+1)
//! children, u(i+1) parents, and c(i+1) parallel links to each parent
//! (level 0 holds the d1*...*dL nodes). Switches are numbered from 2n-1
//! downwards, links `link_from_<child>_<parent>_<k>` in creation order. Up:
//! D-mod-K (the parent port is the destination's position divided by the
//! ports of the levels below, modulo this level's ports). Down: the first
//! matching child port from `source position % c` onwards, as SimGrid's loop
//! does. Within a host: up to its switch and back.
//!
//! # DRAGONFLY `G,Lb;C,Lk;R,Lg;N`
//!
//! G groups of C chassis of R routers (blades) of N nodes. Links: node to
//! router (`local_link_from_router_...`), routers of a chassis all to all
//! (green, Lg times the bandwidth), same-blade routers of a group's chassis
//! all to all (black, Lk times), and one link between each pair of groups
//! (blue, Lb times) from router j of group i to router i of group j.
//! Minimal routing as SimGrid's: to the router of our chassis with blade
//! number = target group, to chassis 0, across the blue link, then to the
//! target blade (SimGrid then counts itself in chassis 0) and chassis.
//! Hence at most R groups.

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::SplitMix64;

use crate::cluster::ClusterSpec;
use crate::error::Problem;
use crate::model::{Direction, Host, HostId, Link, LinkId, LinkUse, Sharing};
use crate::platform::Builder;

/// A topology and its parameters, as `topology` and `topo_parameters` give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Topology {
    Torus(Vec<u32>),
    FatTree(FatTreeShape),
    Dragonfly(DragonflyShape),
}

/// `L;d1..dL;u1..uL;c1..cL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FatTreeShape {
    pub down: Vec<u32>,
    pub up: Vec<u32>,
    pub count: Vec<u32>,
}

/// `G,Lb;C,Lk;R,Lg;N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DragonflyShape {
    pub groups: u32,
    pub blue: u32,
    pub chassis: u32,
    pub black: u32,
    pub routers: u32,
    pub green: u32,
    pub nodes: u32,
}

/// The largest number of nodes a topology may describe (as for clusters).
const MAX_NODES: u64 = crate::cluster::MAX_CLUSTER_HOSTS as u64;

fn positive(text: &str, what: &str) -> Result<u32, String> {
    let t = text.trim();
    match t.parse::<u32>() {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(format!("a positive whole number for {what}, not '{t}'")),
    }
}

fn list(text: &str, what: &str) -> Result<Vec<u32>, String> {
    text.split(',').map(|v| positive(v, what)).collect()
}

impl Topology {
    /// Parses `topo_parameters` for topology `kind` (`TORUS`, `FAT_TREE`,
    /// `DRAGONFLY`); the error says what was expected (it reads after
    /// "expected") and what was found.
    pub fn parse(kind: &str, params: &str) -> Result<Topology, String> {
        let t = match kind {
            "TORUS" => Topology::Torus(list(params, "a torus dimension").map_err(|e| {
                format!("{e}; TORUS takes the sizes of its dimensions, such as '4,4,4'")
            })?),
            "FAT_TREE" => {
                const FORM: &str = "FAT_TREE takes 'levels;down ports;up ports;parallel links', \
                                    one number per level in each list, such as '2;8,8;1,2;1,1'";
                let parts: Vec<&str> = params.split(';').collect();
                let [levels, down, up, count] = parts[..] else {
                    return Err(format!(
                        "4 parts separated by ';', not {}; {FORM}",
                        parts.len()
                    ));
                };
                let levels =
                    positive(levels, "the number of levels").map_err(|e| format!("{e}; {FORM}"))?;
                let down = list(down, "a down port count").map_err(|e| format!("{e}; {FORM}"))?;
                let up = list(up, "an up port count").map_err(|e| format!("{e}; {FORM}"))?;
                let count =
                    list(count, "a parallel link count").map_err(|e| format!("{e}; {FORM}"))?;
                for (v, name) in [
                    (&down, "down ports"),
                    (&up, "up ports"),
                    (&count, "parallel links"),
                ] {
                    if v.len() != levels as usize {
                        return Err(format!(
                            "one value per level for the {name} ({levels} levels), not {}; \
                             {FORM}",
                            v.len()
                        ));
                    }
                }
                Topology::FatTree(FatTreeShape { down, up, count })
            }
            "DRAGONFLY" => {
                const FORM: &str = "DRAGONFLY takes 'groups,blue links;chassis,black links;\
                                    routers,green links;nodes', such as '2,1;2,1;4,1;4'";
                let parts: Vec<&str> = params.split(';').collect();
                let pair = |text: &str, what: &str| -> Result<(u32, u32), String> {
                    let v = list(text, what).map_err(|e| format!("{e}; {FORM}"))?;
                    match v[..] {
                        [a, b] => Ok((a, b)),
                        _ => Err(format!("two numbers in '{text}'; {FORM}")),
                    }
                };
                let [g, c, r, n] = parts[..] else {
                    return Err(format!(
                        "4 parts separated by ';', not {}; {FORM}",
                        parts.len()
                    ));
                };
                let (groups, blue) = pair(g, "a group or link count")?;
                let (chassis, black) = pair(c, "a chassis or link count")?;
                let (routers, green) = pair(r, "a router or link count")?;
                let nodes = positive(n, "the number of nodes per router")
                    .map_err(|e| format!("{e}; {FORM}"))?;
                if groups > routers {
                    return Err(format!(
                        "at most as many groups as routers per chassis, not {groups} groups \
                         for {routers} routers: SimGrid's minimal routing reaches group j \
                         through router j of chassis 0"
                    ));
                }
                Topology::Dragonfly(DragonflyShape {
                    groups,
                    blue,
                    chassis,
                    black,
                    routers,
                    green,
                    nodes,
                })
            }
            other => return Err(format!("TORUS, FAT_TREE or DRAGONFLY, not '{other}'")),
        };
        if t.nodes() > MAX_NODES {
            return Err(format!(
                "it describes {} nodes, more than the {MAX_NODES} a cluster may have",
                t.nodes()
            ));
        }
        Ok(t)
    }

    /// The number of nodes (hosts) the topology has.
    pub fn nodes(&self) -> u64 {
        match self {
            Topology::Torus(dims) => dims.iter().map(|&d| u64::from(d)).product(),
            Topology::FatTree(s) => s.down.iter().map(|&d| u64::from(d)).product(),
            Topology::Dragonfly(s) => [s.groups, s.chassis, s.routers, s.nodes]
                .iter()
                .map(|&d| u64::from(d))
                .product(),
        }
    }

    /// The number of elements that may have a limiter: the nodes, and a
    /// fat tree's switches or a dragonfly's routers.
    pub fn elements(&self) -> usize {
        let nodes = self.nodes() as usize;
        match self {
            Topology::Torus(_) => nodes,
            Topology::FatTree(s) => {
                nodes
                    + (0..s.down.len())
                        .map(|i| {
                            let ups: usize = s.up[..=i].iter().map(|&u| u as usize).product();
                            let downs: usize =
                                s.down[i + 1..].iter().map(|&d| d as usize).product();
                            ups * downs
                        })
                        .sum::<usize>()
            }
            Topology::Dragonfly(s) => nodes + (s.groups * s.chassis * s.routers) as usize,
        }
    }

    /// The number of links the topology creates between its elements.
    pub fn links(&self) -> usize {
        match self {
            Topology::Torus(dims) => self.nodes() as usize * dims.len(),
            Topology::FatTree(s) => {
                // Level i has u1..ui * d(i+1)..dL elements, each with u(i+1)
                // parents and c(i+1) links to each.
                (0..s.down.len())
                    .map(|i| {
                        let ups: usize = s.up[..i].iter().map(|&u| u as usize).product();
                        let downs: usize = s.down[i..].iter().map(|&d| d as usize).product();
                        ups * downs * (s.up[i] * s.count[i]) as usize
                    })
                    .sum()
            }
            Topology::Dragonfly(s) => {
                let (g, c, r, n) = (
                    s.groups as usize,
                    s.chassis as usize,
                    s.routers as usize,
                    s.nodes as usize,
                );
                g * c * r * n + g * c * r * (r - 1) / 2 + g * r * c * (c - 1) / 2 + g * (g - 1) / 2
            }
        }
    }

    /// The name SimGrid gives it in `topology=`.
    pub fn kind(&self) -> &'static str {
        match self {
            Topology::Torus(_) => "TORUS",
            Topology::FatTree(_) => "FAT_TREE",
            Topology::Dragonfly(_) => "DRAGONFLY",
        }
    }
}

/// Routes of a TORUS, FAT_TREE or DRAGONFLY cluster.
#[derive(Debug, Clone)]
pub(crate) struct TopologyRouting {
    /// The id of the cluster's first host: node i is host first + i.
    first: u32,
    /// Per node.
    loopback: Vec<Option<LinkId>>,
    net: Net,
    description: String,
}

#[derive(Debug, Clone)]
enum Net {
    Torus(Torus),
    FatTree(FatTree),
    Dragonfly(Dragonfly),
}

/// Both halves of a cluster link (the same use twice when not split).
#[derive(Debug, Clone, Copy)]
struct Pair {
    up: LinkUse,
    down: LinkUse,
}

/// Creates one topology link as SimGrid does: split-duplex when the
/// cluster says SPLITDUPLEX, else SHARED (SimGrid creates these links
/// without a policy, whatever the cluster's).
fn add_pair(b: &mut Builder, spec: &ClusterSpec, name: String, bandwidth: f64, line: u32) -> Pair {
    let split = spec.private.sharing == Sharing::SplitDuplex;
    let link = b.add_generated_link(
        Link {
            name,
            bandwidth,
            latency: spec.private.latency,
            sharing: if split {
                Sharing::SplitDuplex
            } else {
                Sharing::Shared
            },
            properties: Vec::new(),
        },
        line,
    );
    let (up, down) = if split {
        (Direction::Up, Direction::Down)
    } else {
        (Direction::None, Direction::None)
    };
    Pair {
        up: LinkUse {
            link,
            direction: up,
        },
        down: LinkUse {
            link,
            direction: down,
        },
    }
}

/// The limiter link SimGrid gives element `id` (a node's index, a fat-tree
/// switch's or a dragonfly router's number) when the cluster has a
/// `limiter_link`: `<cluster>_link_<id>_limiter`, SHARED, latency 0.
fn limiter(b: &mut Builder, spec: &ClusterSpec, id: i64, line: u32) -> Option<LinkUse> {
    let bandwidth = spec.limiter_bandwidth?;
    let link = b.add_generated_link(
        Link {
            name: format!("{}_link_{id}_limiter", spec.id),
            bandwidth,
            latency: 0.0,
            sharing: Sharing::Shared,
            properties: Vec::new(),
        },
        line,
    );
    Some(LinkUse {
        link,
        direction: Direction::None,
    })
}

/// Builds the cluster `spec` with topology `topology`: hosts (with their
/// loopback links), then the topology's links, in SimGrid's order.
pub(crate) fn build(
    spec: &ClusterSpec,
    topology: &Topology,
    b: &mut Builder,
    line: u32,
) -> Result<TopologyRouting, Problem> {
    let n = spec.radicals.len();
    let loopbacks = if spec.loopback.is_some() { n } else { 0 };
    let limiters = if spec.limiter_bandwidth.is_some() {
        topology.elements()
    } else {
        0
    };
    b.reserve(n, loopbacks + limiters + topology.links());
    let links_before = b.link_count();
    let first = b.host_count();
    let mut loopback = Vec::with_capacity(n);
    for &n in &spec.radicals {
        let host = b.add_host(
            Host {
                name: format!("{}{n}{}", spec.prefix, spec.suffix),
                speed: spec.pstates[0],
                pstates: Host::pstate_list(&spec.pstates),
                pstate: 0,
                cores: spec.cores,
                properties: spec.properties.clone(),
            },
            line,
        )?;
        debug_assert_eq!(host.0 as usize, first as usize + loopback.len());
        loopback.push(spec.loopback.map(|(bandwidth, latency)| {
            b.add_generated_link(
                Link {
                    name: format!("{}_link_{n}_loopback", spec.id),
                    bandwidth,
                    latency,
                    sharing: Sharing::FatPipe,
                    properties: Vec::new(),
                },
                line,
            )
        }));
    }
    let bw = spec.private.bandwidth;
    let net = match topology {
        Topology::Torus(dims) => Net::Torus(Torus::build(spec, dims, b, line)?),
        Topology::FatTree(shape) => Net::FatTree(FatTree::build(spec, shape, b, line)?),
        Topology::Dragonfly(shape) => Net::Dragonfly(Dragonfly::build(spec, *shape, b, line)?),
    };
    debug_assert_eq!(
        b.link_count() - links_before,
        loopbacks + limiters + topology.links(),
        "Topology::links and elements count what build creates"
    );
    let description = match topology {
        Topology::Torus(dims) => format!(
            "TORUS {}",
            dims.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",")
        ),
        Topology::FatTree(s) => {
            let join = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
            format!(
                "FAT_TREE {};{};{};{}",
                s.down.len(),
                join(&s.down),
                join(&s.up),
                join(&s.count)
            )
        }
        Topology::Dragonfly(s) => format!(
            "DRAGONFLY {},{};{},{};{},{};{}",
            s.groups, s.blue, s.chassis, s.black, s.routers, s.green, s.nodes
        ),
    };
    let description = format!(
        "{description}, links {} {} {}",
        if spec.private.sharing == Sharing::SplitDuplex {
            "SPLITDUPLEX"
        } else {
            "SHARED"
        },
        crate::units::format_bandwidth(bw),
        crate::units::format_time(spec.private.latency)
    );
    Ok(TopologyRouting {
        first,
        loopback,
        net,
        description,
    })
}

impl TopologyRouting {
    /// Writes the route from `src` to `dst` into `out` (already cleared).
    pub fn route(&self, src: HostId, dst: HostId, out: &mut Vec<LinkUse>) {
        let (src, dst) = (src.0 - self.first, dst.0 - self.first);
        if src == dst {
            if let Some(lo) = self.loopback[src as usize] {
                out.push(LinkUse {
                    link: lo,
                    direction: Direction::None,
                });
                return;
            }
        }
        match &self.net {
            Net::Torus(t) => t.route(src, dst, out),
            Net::FatTree(f) => f.route(src, dst, out),
            Net::Dragonfly(d) => d.route(src, dst, out),
        }
    }

    /// Writes a Valiant route from `src` to `dst` (see `Dragonfly::valiant`)
    /// into `out` (already cleared); `false` when the topology has none for
    /// this pair (not a dragonfly, the same host, or no third group).
    pub fn valiant(&self, src: HostId, dst: HostId, salt: u64, out: &mut Vec<LinkUse>) -> bool {
        match &self.net {
            Net::Dragonfly(d) if src != dst => {
                d.valiant(src.0 - self.first, dst.0 - self.first, salt, out)
            }
            _ => false,
        }
    }

    /// Whether routes may take another way than the minimal one.
    pub fn has_valiant(&self) -> bool {
        matches!(self.net, Net::Dragonfly(_))
    }

    /// The topology, its parameters and its links, for summaries.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The textbook bisection of the topology: how many links cross the
    /// cut, one of them (for its bandwidth), and how the cut is made.
    pub fn bisection(&self) -> Option<(u64, LinkId, &'static str)> {
        match &self.net {
            Net::Torus(t) => {
                // Cut across the largest dimension: each of its rings is
                // cut twice (once for a ring of 2, which has one link).
                let n: u64 = t.dims.iter().map(|&d| u64::from(d)).product();
                let (j, &d) = t.dims.iter().enumerate().max_by_key(|&(_, &d)| d)?;
                let per_ring = if d > 2 { 2 } else { 1 };
                let link = t.links.get(j)?.up.link;
                Some((
                    n / u64::from(d) * per_ring,
                    link,
                    "cutting the largest dimension in two",
                ))
            }
            Net::FatTree(f) => {
                let top = f.down.len() as u32;
                let mut links = f
                    .links
                    .iter()
                    .filter(|l| f.nodes[l.up_node as usize].level == top);
                let first = links.next()?.pair.up.link;
                let total = 1 + links.count() as u64;
                Some((total / 2, first, "half the links into the top level"))
            }
            Net::Dragonfly(d) => {
                let g = u64::from(d.shape.groups);
                let blue = d.routers.iter().find_map(|r| r.blue)?.link;
                Some((
                    (g / 2) * (g - g / 2),
                    blue,
                    "the blue links between two halves of the groups",
                ))
            }
        }
    }
}

// ---------------------------------------------------------------- TORUS

#[derive(Debug, Clone)]
struct Torus {
    dims: Vec<u32>,
    /// Link of node i in dimension j at `i * dims.len() + j`.
    links: Vec<Pair>,
    /// Each node's limiter (empty without `limiter_link`).
    limiters: Vec<Option<LinkUse>>,
}

impl Torus {
    fn build(
        spec: &ClusterSpec,
        dims: &[u32],
        b: &mut Builder,
        line: u32,
    ) -> Result<Self, Problem> {
        let n = spec.radicals.len();
        let limiters = (0..n as i64).map(|i| limiter(b, spec, i, line)).collect();
        let mut links = Vec::with_capacity(n * dims.len());
        for i in 0..n as u64 {
            let mut product = 1u64;
            for &d in dims {
                let d = u64::from(d);
                let neighbour = if (i / product) % d == d - 1 {
                    i - (d - 1) * product
                } else {
                    i + product
                };
                // SimGrid names links by node index, not by radical.
                let name = format!("{}_link_from_{i}_to_{neighbour}", spec.id);
                links.push(add_pair(b, spec, name, spec.private.bandwidth, line));
                product *= d;
            }
        }
        Ok(Torus {
            dims: dims.to_vec(),
            links,
            limiters,
        })
    }

    fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkUse>) {
        let (src, dst) = (u64::from(src), u64::from(dst));
        let n = self.dims.len() as u64;
        let mut current = src;
        while current != dst {
            let mut product = 1u64;
            for (j, &d) in self.dims.iter().enumerate() {
                let d = u64::from(d);
                let here = (current / product) % d;
                if here != (dst / product) % d {
                    // SimGrid decides from the source's coordinate, which
                    // keeps one direction for the whole dimension.
                    let mine = (src / product) % d;
                    let target = (dst / product) % d;
                    let right = (target > mine && target <= mine + d / 2)
                        || (mine > d / 2 && (mine + d / 2) % d >= target);
                    let (next, link) = if right {
                        let next = if here == d - 1 {
                            current + product - product * d
                        } else {
                            current + product
                        };
                        (next, self.links[(current * n) as usize + j].up)
                    } else {
                        let next = if here == 0 {
                            current + product * d - product
                        } else {
                            current - product
                        };
                        (next, self.links[(next * n) as usize + j].down)
                    };
                    // Each hop starts with the limiter of the node it
                    // leaves, as in SimGrid.
                    out.extend(self.limiters[current as usize]);
                    out.push(link);
                    current = next;
                    break;
                }
                product *= d;
            }
        }
        out.extend(self.limiters[dst as usize]);
    }
}

// ------------------------------------------------------------- FAT_TREE

/// A node (level 0) or switch of a fat tree.
#[derive(Debug, Clone)]
struct FtNode {
    level: u32,
    position: u32,
    limiter: Option<LinkUse>,
    /// Label digits, one per level.
    label: Vec<u32>,
    /// Link indices by port (none where unconnected).
    parents: Vec<u32>,
    children: Vec<u32>,
}

#[derive(Debug, Clone, Copy)]
struct FtLink {
    /// The parent and the child it connects (node indices).
    up_node: u32,
    down_node: u32,
    pair: Pair,
}

#[derive(Debug, Clone)]
struct FatTree {
    down: Vec<u32>,
    up: Vec<u32>,
    count: Vec<u32>,
    /// Nodes first (index = host), then switches by level and position.
    nodes: Vec<FtNode>,
    links: Vec<FtLink>,
}

const NO_LINK: u32 = u32::MAX;

impl FatTree {
    fn build(
        spec: &ClusterSpec,
        shape: &FatTreeShape,
        b: &mut Builder,
        line: u32,
    ) -> Result<Self, Problem> {
        let levels = shape.down.len();
        let (down, up, count) = (&shape.down, &shape.up, &shape.count);
        let n = spec.radicals.len();
        // Elements per level: level i+1 has u1..u(i+1) * d(i+2)..dL.
        let mut per_level = vec![n];
        for i in 0..levels {
            let ups: usize = up[..=i].iter().map(|&u| u as usize).product();
            let downs: usize = down[i + 1..].iter().map(|&d| d as usize).product();
            per_level.push(ups * downs);
        }
        // Label digit j of a level-i element ranges over d(j+1) below the
        // element's level and u(j+1) at or above it.
        let radix = |level: usize, j: usize| -> u32 {
            if j + 1 > level {
                down[j]
            } else {
                up[j]
            }
        };
        let mut nodes = Vec::with_capacity(per_level.iter().sum());
        let mut level_start = Vec::with_capacity(levels + 1);
        for (level, &count_here) in per_level.iter().enumerate() {
            level_start.push(nodes.len());
            let mut label = vec![0u32; levels];
            for position in 0..count_here {
                let parents = if level < levels {
                    (up[level] * count[level]) as usize
                } else {
                    0
                };
                let children = if level > 0 {
                    (down[level - 1] * count[level - 1]) as usize
                } else {
                    0
                };
                // Limiters are named like the elements: nodes by index,
                // switches by their number (2n-1 downwards).
                let index = nodes.len() as i64;
                let id = if level == 0 {
                    index
                } else {
                    3 * n as i64 - 1 - index
                };
                nodes.push(FtNode {
                    level: level as u32,
                    position: position as u32,
                    limiter: limiter(b, spec, id, line),
                    label: label.clone(),
                    parents: vec![NO_LINK; parents],
                    children: vec![NO_LINK; children],
                });
                // Next label: digit 0 fastest.
                for (j, digit) in label.iter_mut().enumerate() {
                    *digit += 1;
                    if *digit < radix(level, j) {
                        break;
                    }
                    *digit = 0;
                }
            }
        }
        // SimGrid numbers switches downwards from 2n-1, in creation order.
        let name_id = |index: usize| -> i64 {
            if index < n {
                index as i64
            } else {
                2 * n as i64 - 1 - (index - n) as i64
            }
        };
        let mut links = Vec::new();
        for level in 0..levels {
            for index in level_start[level]..level_start[level] + per_level[level] {
                // The parents of an element share its label but for digit
                // `level`, which takes every value below u(level+1); their
                // positions grow with that digit.
                for digit in 0..up[level] {
                    let mut position = 0usize;
                    let mut weight = 1usize;
                    for j in 0..levels {
                        let d = if j == level {
                            digit
                        } else {
                            nodes[index].label[j]
                        };
                        position += d as usize * weight;
                        weight *= radix(level + 1, j) as usize;
                    }
                    let parent = level_start[level + 1] + position;
                    for k in 0..count[level] {
                        let parent_port = nodes[index].label[level] + k * down[level];
                        let child_port = nodes[parent].label[level] + k * up[level];
                        let name = format!(
                            "link_from_{}_{}_{}",
                            name_id(index),
                            name_id(parent),
                            links.len()
                        );
                        let pair = add_pair(b, spec, name, spec.private.bandwidth, line);
                        let l = links.len() as u32;
                        links.push(FtLink {
                            up_node: parent as u32,
                            down_node: index as u32,
                            pair,
                        });
                        nodes[parent].children[parent_port as usize] = l;
                        nodes[index].parents[child_port as usize] = l;
                    }
                }
            }
        }
        Ok(FatTree {
            down: down.clone(),
            up: up.clone(),
            count: count.clone(),
            nodes,
            links,
        })
    }

    /// Whether `node` lies below switch `root`.
    fn in_subtree(&self, root: &FtNode, node: &FtNode) -> bool {
        if root.level <= node.level {
            return false;
        }
        let levels = self.down.len();
        (0..node.level as usize).all(|i| root.label[i] == node.label[i])
            && (root.level as usize..levels).all(|i| root.label[i] == node.label[i])
    }

    fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkUse>) {
        let source = &self.nodes[src as usize];
        let target = &self.nodes[dst as usize];
        let mut current = src as usize;
        // Up, D-mod-K.
        while !self.in_subtree(&self.nodes[current], target) {
            let node = &self.nodes[current];
            let level = node.level as usize;
            let mut d = target.position as usize;
            for i in 0..level {
                d = quotient(d, self.up[i] as usize);
            }
            d = remainder(d, (self.up[level] * self.count[level]) as usize);
            let link = &self.links[node.parents[d] as usize];
            out.extend(node.limiter);
            out.push(link.pair.up);
            current = link.up_node as usize;
        }
        // Down. SimGrid's loop keeps its index when it steps down a level
        // and goes on testing the new switch's ports; so do we.
        while current != dst as usize {
            let level = self.nodes[current].level as usize;
            let mut i = remainder(source.position as usize, self.count[level - 1] as usize)
                * self.down[level - 1] as usize;
            loop {
                let node = &self.nodes[current];
                if node.level == 0 {
                    break;
                }
                // The first port from i on that leads towards the target
                // (SimGrid tests them one by one).
                let ports = self.down[node.level as usize - 1] as usize;
                let want = target.label[node.level as usize - 1] as usize;
                let at = remainder(i, ports);
                i += if want >= at {
                    want - at
                } else {
                    want + ports - at
                };
                let Some(&child) = node.children.get(i) else {
                    break;
                };
                let link = &self.links[child as usize];
                out.push(link.pair.down);
                out.extend(node.limiter);
                current = link.down_node as usize;
                i += 1;
            }
        }
        out.extend(self.nodes[current].limiter);
    }
}

/// `a / b`, by a shift when `b` is a power of two (fat trees' port counts
/// usually are; a division costs tens of cycles, and a route several).
fn quotient(a: usize, b: usize) -> usize {
    if b.is_power_of_two() {
        a >> b.trailing_zeros()
    } else {
        a / b
    }
}

/// `a % b`, by a mask when `b` is a power of two.
fn remainder(a: usize, b: usize) -> usize {
    if b.is_power_of_two() {
        a & (b - 1)
    } else {
        a % b
    }
}

// ------------------------------------------------------------ DRAGONFLY

#[derive(Debug, Clone)]
struct Router {
    /// Node links, by node number within the router.
    nodes: Vec<Pair>,
    /// To the router of blade k in the same chassis (green), and the
    /// half this router uses.
    green: Vec<Option<LinkUse>>,
    /// To the same-blade router of chassis k in the same group (black).
    black: Vec<Option<LinkUse>>,
    blue: Option<LinkUse>,
    limiter: Option<LinkUse>,
}

#[derive(Debug, Clone)]
struct Dragonfly {
    shape: DragonflyShape,
    routers: Vec<Router>,
    /// Each node's limiter (empty without `limiter_link`).
    limiters: Vec<Option<LinkUse>>,
}

impl Dragonfly {
    fn build(
        spec: &ClusterSpec,
        shape: DragonflyShape,
        b: &mut Builder,
        line: u32,
    ) -> Result<Self, Problem> {
        let DragonflyShape {
            groups,
            blue,
            chassis,
            black,
            routers: blades,
            green,
            nodes,
        } = shape;
        let bw = spec.private.bandwidth;
        let count = (groups * chassis * blades) as usize;
        let n = spec.radicals.len() as i64;
        let limiters = (0..n).map(|i| limiter(b, spec, i, line)).collect();
        // Routers' limiters are numbered from 2n-1 downwards, as SimGrid
        // numbers them.
        let mut routers: Vec<Router> = (0..count)
            .map(|i| Router {
                nodes: Vec::with_capacity(nodes as usize),
                green: vec![None; blades as usize],
                black: vec![None; chassis as usize],
                blue: None,
                limiter: limiter(b, spec, 2 * n - 1 - i as i64, line),
            })
            .collect();
        let mut unique = 0u64;
        for (i, router) in routers.iter_mut().enumerate() {
            for j in 0..nodes {
                let name = format!("local_link_from_router_{i}_to_node_{j}_{unique}");
                router.nodes.push(add_pair(b, spec, name, bw, line));
                unique += 1;
            }
        }
        for i in 0..groups * chassis {
            for j in 0..blades {
                for k in j + 1..blades {
                    let name = format!(
                        "green_link_in_chassis_{}_between_routers_{j}_and_{k}_{unique}",
                        i % chassis
                    );
                    let p = add_pair(b, spec, name, bw * f64::from(green), line);
                    routers[(i * blades + j) as usize].green[k as usize] = Some(p.up);
                    routers[(i * blades + k) as usize].green[j as usize] = Some(p.down);
                    unique += 1;
                }
            }
        }
        for g in 0..groups {
            for j in 0..chassis {
                for k in j + 1..chassis {
                    for l in 0..blades {
                        let name = format!(
                            "black_link_in_group_{g}_between_chassis_{j}_and_{k}_blade_{l}_{unique}"
                        );
                        let p = add_pair(b, spec, name, bw * f64::from(black), line);
                        let base = g * blades * chassis;
                        routers[(base + j * blades + l) as usize].black[k as usize] = Some(p.up);
                        routers[(base + k * blades + l) as usize].black[j as usize] = Some(p.down);
                        unique += 1;
                    }
                }
            }
        }
        for i in 0..groups {
            for j in i + 1..groups {
                let ri = i * blades * chassis + j;
                let rj = j * blades * chassis + i;
                let name =
                    format!("blue_link_between_group_{i}_and_{j}_routers_{ri}_and_{rj}_{unique}");
                let p = add_pair(b, spec, name, bw * f64::from(blue), line);
                routers[ri as usize].blue = Some(p.up);
                routers[rj as usize].blue = Some(p.down);
                unique += 1;
            }
        }
        Ok(Dragonfly {
            shape,
            routers,
            limiters,
        })
    }

    /// (group, chassis, blade, node) of node `id`.
    fn coords(&self, id: u32) -> [u32; 4] {
        let s = &self.shape;
        let per_group = s.chassis * s.routers * s.nodes;
        let per_chassis = s.routers * s.nodes;
        [
            id / per_group,
            id % per_group / per_chassis,
            id % per_chassis / s.nodes,
            id % s.nodes,
        ]
    }

    fn router_index(&self, group: u32, chassis: u32, blade: u32) -> usize {
        let s = &self.shape;
        (group * s.chassis * s.routers + chassis * s.routers + blade) as usize
    }

    fn route(&self, src: u32, dst: u32, out: &mut Vec<LinkUse>) {
        let me = self.coords(src);
        let target = self.coords(dst);
        self.leave(src, me, out);
        self.between(
            (me[0], me[1], me[2]),
            (target[0], target[1], target[2]),
            out,
        );
        self.arrive(dst, target, out);
    }

    /// From node `id` (at `c`) into its router: its limiter, its link up.
    fn leave(&self, id: u32, c: [u32; 4], out: &mut Vec<LinkUse>) {
        out.extend(self.limiters[id as usize]);
        out.push(self.router(c).nodes[c[3] as usize].up);
    }

    /// From its router to node `id` (at `c`): the router's limiter, the
    /// link down, the node's limiter.
    fn arrive(&self, id: u32, c: [u32; 4], out: &mut Vec<LinkUse>) {
        let router = self.router(c);
        out.extend(router.limiter);
        out.push(router.nodes[c[3] as usize].down);
        out.extend(self.limiters[id as usize]);
    }

    fn router(&self, c: [u32; 4]) -> &Router {
        &self.routers[self.router_index(c[0], c[1], c[2])]
    }

    /// A Valiant route: minimal to a router of a group other than the
    /// source's and the destination's, drawn from `salt`, then minimal to
    /// the destination. `false` (and nothing written) when there is no such
    /// group.
    fn valiant(&self, src: u32, dst: u32, salt: u64, out: &mut Vec<LinkUse>) -> bool {
        let me = self.coords(src);
        let target = self.coords(dst);
        let s = &self.shape;
        let others = (0..s.groups).filter(|&g| g != me[0] && g != target[0]);
        let count = others.clone().count() as u64;
        if count == 0 {
            return false;
        }
        // SplitMix64 seeded with the salt itself: well mixed even for
        // consecutive salts, and the same draws as long as the algorithm
        // keeps its name (tests/topology.rs pins them).
        let mut rng = SplitMix64::seed_from_u64(salt);
        let mut draw = |n: u64| (rng.next_u64() % n) as u32;
        let group = others
            .clone()
            .nth(draw(count) as usize)
            .expect("drawn below the count");
        let via = (
            group,
            draw(u64::from(s.chassis)),
            draw(u64::from(s.routers)),
        );
        self.leave(src, me, out);
        self.between((me[0], me[1], me[2]), via, out);
        self.between(via, (target[0], target[1], target[2]), out);
        self.arrive(dst, target, out);
        true
    }

    /// SimGrid's minimal route between two routers, (group, chassis,
    /// blade) each.
    fn between(&self, from: (u32, u32, u32), target: (u32, u32, u32), out: &mut Vec<LinkUse>) {
        if from == target {
            return;
        }
        // Where the current router is: (group, chassis, blade).
        let mut at = from;
        let link = |at: (u32, u32, u32)| &self.routers[self.router_index(at.0, at.1, at.2)];
        let expect = "the topology has this link";
        // Each hop starts with the limiter of the router it leaves, but the
        // blue one, which ends with it (SimGrid's order).
        if target.0 != at.0 {
            // To the router of our chassis whose blade number is the
            // target group: it holds, in chassis 0, the blue link.
            if at.2 != target.0 {
                out.extend(link(at).limiter);
                out.push(link(at).green[target.0 as usize].expect(expect));
                at.2 = target.0;
            }
            if at.1 != 0 {
                out.extend(link(at).limiter);
                out.push(link(at).black[0].expect(expect));
                at.1 = 0;
            }
            out.push(link(at).blue.expect(expect));
            out.extend(link(at).limiter);
            at = (target.0, 0, from.0);
        }
        if target.2 != at.2 {
            out.extend(link(at).limiter);
            out.push(link(at).green[target.2 as usize].expect(expect));
            // SimGrid then stands at the target blade's router of chassis
            // 0, whatever chassis the green hop was in: a route within
            // chassis 1 goes on to chassis 0 and back.
            at = (target.0, 0, target.2);
        }
        if target.1 != at.1 {
            out.extend(link(at).limiter);
            out.push(link(at).black[target.1 as usize].expect(expect));
        }
    }
}
