//! FLAT clusters, built and routed the way SimGrid 3.32 does it.
//!
//! SimGrid turns `<cluster topology="FLAT">` into a star zone
//! (`sg_platf_new_cluster_flat` in `src/surf/sg_platf.cpp`, routed by
//! `src/kernel/routing/StarZone.cpp`). It creates, in this order:
//!
//! 1. the backbone `<id>_backbone` (if `bb_bw` or `bb_lat` is non-zero),
//!    with `bb_sharing_policy`;
//! 2. for each radical value `n`, in the order written:
//!    * the host `<prefix><n><suffix>`;
//!    * the loopback link `<id>_link_<n>_loopback` (if `loopback_bw` or
//!      `loopback_lat` is non-zero), FATPIPE;
//!    * the limiter link `<id>_link_<n>_limiter` (if `limiter_link` is
//!      non-zero), SHARED, latency 0;
//!    * the private link `<id>_link_<n>`: split-duplex (halves
//!      `<id>_link_<n>_UP` and `_DOWN`) when `sharing_policy` is
//!      SPLITDUPLEX, else a single link created with SimGrid's default
//!      policy, SHARED, whatever `sharing_policy` says.
//!
//! Each host's route "to everyone" is `[limiter, private link UP, backbone]`
//! (symmetrical: "from everyone" is `[backbone, private link DOWN,
//! limiter]`), and the route from a to b is a's "to everyone" followed by
//! b's "from everyone", skipping links already on the route (so the
//! backbone appears once). Within a host, the loopback link if there is one;
//! otherwise that same concatenation for a == b.

use crate::error::Problem;
use crate::model::{Direction, Host, HostId, Link, LinkId, LinkUse, Sharing};
use crate::platform::Builder;

/// The largest number of hosts a cluster may have. It keeps ids within
/// `u32` and a typo such as `0-99999999999` from exhausting memory, while
/// leaving room for the million-rank runs the emulator aims at.
pub const MAX_CLUSTER_HOSTS: usize = 1 << 24;

/// Bandwidth, latency and sharing policy of one kind of cluster link.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkSpec {
    pub bandwidth: f64,
    pub latency: f64,
    pub sharing: Sharing,
}

/// What a route within one host uses when the cluster has no loopback links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SameHost {
    /// Up to the backbone and back, as SimGrid routes `<cluster>` hosts.
    ThroughSwitch,
    /// The global loopback link (the built-in default cluster).
    GlobalLoopback,
}

/// Everything a FLAT cluster is made of.
#[derive(Debug, Clone)]
pub(crate) struct ClusterSpec {
    pub id: String,
    pub prefix: String,
    pub suffix: String,
    pub radicals: Vec<u32>,
    /// The speed of a core at each pstate (the hosts start at the first).
    pub pstates: Vec<f64>,
    pub cores: u32,
    pub properties: Vec<(String, String)>,
    pub private: LinkSpec,
    pub backbone: Option<LinkSpec>,
    pub limiter_bandwidth: Option<f64>,
    /// Bandwidth and latency of the per-host loopback links.
    pub loopback: Option<(f64, f64)>,
    pub same_host: SameHost,
}

/// The links of one cluster host.
#[derive(Debug, Clone, Copy)]
struct Node {
    up: LinkUse,
    down: LinkUse,
    limiter: Option<LinkId>,
    loopback: Option<LinkId>,
}

/// Routes of a FLAT cluster, computed on demand from per-host links
/// (memory grows with the number of hosts, not its square).
#[derive(Debug, Clone)]
pub(crate) struct ClusterRouting {
    /// Indexed by host id minus `first`.
    nodes: Vec<Node>,
    /// The id of the cluster's first host.
    first: u32,
    backbone: Option<LinkId>,
    same_host: SameHost,
}

fn whole(link: LinkId) -> LinkUse {
    LinkUse {
        link,
        direction: Direction::None,
    }
}

impl ClusterRouting {
    fn node(&self, h: HostId) -> &Node {
        &self.nodes[(h.0 - self.first) as usize]
    }

    /// Writes the route from `src` to `dst` into `out` (already cleared).
    pub fn route(&self, src: HostId, dst: HostId, global_loopback: LinkId, out: &mut Vec<LinkUse>) {
        let s = self.node(src);
        if src == dst {
            if let Some(lo) = s.loopback {
                out.push(whole(lo));
                return;
            }
            if self.same_host == SameHost::GlobalLoopback {
                out.push(whole(global_loopback));
                return;
            }
        }
        let d = self.node(dst);
        out.extend(s.limiter.map(whole));
        out.push(s.up);
        out.extend(self.backbone.map(whole));
        // Only within a host can the links down repeat links already taken:
        // a non-split private link (up == down) and the limiter. SimGrid
        // skips such repeats.
        if src == dst {
            if d.down != s.up {
                out.push(d.down);
            }
        } else {
            out.push(d.down);
            out.extend(d.limiter.map(whole));
        }
    }

    /// The route from host `h` to the cluster's router: its links up to
    /// the backbone (SimGrid's "to everyone" of the host).
    pub fn route_to_router(&self, h: HostId, out: &mut Vec<LinkUse>) {
        let n = self.node(h);
        out.extend(n.limiter.map(whole));
        out.push(n.up);
        out.extend(self.backbone.map(whole));
    }

    /// The route from the cluster's router to host `h`.
    pub fn route_from_router(&self, h: HostId, out: &mut Vec<LinkUse>) {
        let n = self.node(h);
        out.extend(self.backbone.map(whole));
        out.push(n.down);
        out.extend(n.limiter.map(whole));
    }

    /// The private link of the first host, to describe the cluster.
    pub fn first_private_link(&self) -> Option<LinkId> {
        self.nodes.first().map(|n| n.up.link)
    }

    /// The backbone link, if the cluster has one.
    pub fn backbone(&self) -> Option<LinkId> {
        self.backbone
    }
}

/// Creates the hosts and links of a cluster declared at `line`, in
/// SimGrid's order and with SimGrid's names (see the module docs).
pub(crate) fn build(
    spec: &ClusterSpec,
    b: &mut Builder,
    line: u32,
) -> Result<ClusterRouting, Problem> {
    let backbone = match spec.backbone {
        Some(bb) => Some(b.add_link(
            Link {
                name: format!("{}_backbone", spec.id),
                bandwidth: bb.bandwidth,
                latency: bb.latency,
                sharing: bb.sharing,
                properties: Vec::new(),
            },
            line,
        )?),
        None => None,
    };
    let split = spec.private.sharing == Sharing::SplitDuplex;
    let first = b.host_count();
    let mut nodes = Vec::with_capacity(spec.radicals.len());
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
        debug_assert_eq!(host.0 as usize, first as usize + nodes.len());
        let link_name = format!("{}_link_{n}", spec.id);
        let loopback = match spec.loopback {
            Some((bandwidth, latency)) => Some(b.add_link(
                Link {
                    name: format!("{link_name}_loopback"),
                    bandwidth,
                    latency,
                    sharing: Sharing::FatPipe,
                    properties: Vec::new(),
                },
                line,
            )?),
            None => None,
        };
        let limiter = match spec.limiter_bandwidth {
            Some(bandwidth) => Some(b.add_link(
                Link {
                    name: format!("{link_name}_limiter"),
                    bandwidth,
                    latency: 0.0,
                    sharing: Sharing::Shared,
                    properties: Vec::new(),
                },
                line,
            )?),
            None => None,
        };
        let private = b.add_link(
            Link {
                name: link_name,
                bandwidth: spec.private.bandwidth,
                latency: spec.private.latency,
                // SimGrid 3.32 creates non-split private links without
                // setting their policy, so they are SHARED even when the
                // cluster says FATPIPE; we match it to give the same times.
                sharing: if split {
                    Sharing::SplitDuplex
                } else {
                    Sharing::Shared
                },
                properties: Vec::new(),
            },
            line,
        )?;
        let (up, down) = if split {
            (Direction::Up, Direction::Down)
        } else {
            (Direction::None, Direction::None)
        };
        nodes.push(Node {
            up: LinkUse {
                link: private,
                direction: up,
            },
            down: LinkUse {
                link: private,
                direction: down,
            },
            limiter,
            loopback,
        });
    }
    Ok(ClusterRouting {
        nodes,
        first,
        backbone,
        same_host: spec.same_host,
    })
}

/// What a radical such as `0-63` or `0-3,8,10-12` should look like.
pub(crate) const RADICAL_EXPECTED: &str =
    "numbers and low-high ranges separated by commas, such as '0-63' or '0-3,8,10-12'";

/// Why a radical cannot be expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RadicalError {
    /// Not numbers and ranges.
    Malformed,
    /// A range whose end is below its start.
    Reversed,
    /// More than [`MAX_CLUSTER_HOSTS`] values.
    TooMany,
}

impl RadicalError {
    /// What was expected instead, for error messages.
    pub fn expected(self) -> String {
        match self {
            RadicalError::Malformed => RADICAL_EXPECTED.to_string(),
            RadicalError::Reversed => {
                format!("ranges written low-high; {RADICAL_EXPECTED}")
            }
            RadicalError::TooMany => format!("at most {MAX_CLUSTER_HOSTS} hosts"),
        }
    }
}

/// Expands a radical (`0-63`, `0-3,8,10-12`) into its values, in order.
pub(crate) fn parse_radical(text: &str) -> Result<Vec<u32>, RadicalError> {
    let number = |s: &str| -> Result<u32, RadicalError> {
        let s = s.trim();
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(RadicalError::Malformed);
        }
        s.parse().map_err(|_| RadicalError::Malformed)
    };
    let mut values = Vec::new();
    for group in text.split(',') {
        let mut ends = group.split('-');
        let start = number(ends.next().unwrap_or(""))?;
        let end = match ends.next() {
            Some(end) => number(end)?,
            None => start,
        };
        if ends.next().is_some() {
            return Err(RadicalError::Malformed);
        }
        if end < start {
            return Err(RadicalError::Reversed);
        }
        let count = (end - start) as usize + 1;
        if values.len() + count > MAX_CLUSTER_HOSTS {
            return Err(RadicalError::TooMany);
        }
        values.extend(start..=end);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radicals() {
        assert_eq!(parse_radical("0-3").unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(parse_radical("7").unwrap(), vec![7]);
        assert_eq!(
            parse_radical("0-3,8,10-12").unwrap(),
            vec![0, 1, 2, 3, 8, 10, 11, 12]
        );
        assert_eq!(parse_radical(" 1 - 2 , 5 ").unwrap(), vec![1, 2, 5]);
        assert_eq!(parse_radical("3-3").unwrap(), vec![3]);
        assert_eq!(parse_radical("0-63").unwrap().len(), 64);
    }

    #[test]
    fn bad_radicals() {
        for text in [
            "",
            "a",
            "1-",
            "-1",
            "1-2-3",
            "1,,2",
            "1.5",
            "+1",
            "1-x",
            "4294967296",
        ] {
            assert_eq!(parse_radical(text), Err(RadicalError::Malformed), "{text}");
        }
        assert_eq!(parse_radical("5-3"), Err(RadicalError::Reversed));
        assert_eq!(parse_radical("0-4294967295"), Err(RadicalError::TooMany));
        assert_eq!(
            parse_radical(&format!("0-{MAX_CLUSTER_HOSTS}")),
            Err(RadicalError::TooMany)
        );
        assert_eq!(
            parse_radical(&format!("0-3,4-{}", MAX_CLUSTER_HOSTS - 1)).map(|v| v.len()),
            Ok(MAX_CLUSTER_HOSTS)
        );
        assert!(RadicalError::Reversed.expected().contains("low-high"));
    }
}
