//! Compact platform descriptions, for sweeps without XML files:
//!
//! ```text
//! KIND:SHAPE[:key=value]...
//!
//! flat:64:bw=10Gbps:lat=24us:bb_bw=40Gbps
//! torus:4,4,4:bw=10Gbps
//! fat-tree:2;16,32;1,16;1,1:bw=10Gbps:lat=24us:speed=1Gf
//! dragonfly:2,1;2,1;4,1;4
//! ```
//!
//! KIND is `flat`, `torus`, `fat-tree` (or `fat_tree`) or `dragonfly`.
//! SHAPE is the number of hosts for `flat`, else the `topo_parameters` of
//! that SimGrid topology. The result is exactly the `<cluster>` with those
//! attributes: id `cluster`, hosts `node-0` ... (change with `prefix=` and
//! `suffix=`). Keys, with their defaults:
//!
//! * `bw` (12.5GBps), `lat` (1us): each link; `sharing` (SPLITDUPLEX, or
//!   SHARED; FATPIPE links are created SHARED, as SimGrid does);
//! * `speed` (1Gf), `cores` (1): each host;
//! * `loopback_bw`, `loopback_lat`: a loopback link per host (none by
//!   default: traffic within a host uses the cluster's links, or for a
//!   torus nothing);
//! * `bb_bw`, `bb_lat`, `bb_sharing` (SHARED or FATPIPE), `flat` only: a
//!   backbone (none by default: hosts talk through their private links).

use crate::cluster::{self, ClusterSpec, LinkSpec, SameHost, MAX_CLUSTER_HOSTS};
use crate::error::{PlatformError, Problem};
use crate::model::Sharing;
use crate::platform::{Builder, Platform, Routing, ZoneInfo};
use crate::topology::{self, Topology};
use crate::units;

/// The kinds a compact description may start with, as written.
const KINDS: &[(&str, &str)] = &[
    ("flat", "FLAT"),
    ("torus", "TORUS"),
    ("fat-tree", "FAT_TREE"),
    ("fat_tree", "FAT_TREE"),
    ("dragonfly", "DRAGONFLY"),
];

const KEYS: &str = "bw, lat, sharing, speed, cores, loopback_bw, loopback_lat, bb_bw, bb_lat, \
                    bb_sharing, prefix, suffix";

/// Whether `text` is meant as a compact description (it starts with one of
/// the kinds and a colon).
pub fn is_compact(text: &str) -> bool {
    KINDS
        .iter()
        .any(|(kind, _)| text.strip_prefix(kind).is_some_and(|r| r.starts_with(':')))
}

fn bad(spec: &str, attribute: &'static str, value: &str, expected: String) -> PlatformError {
    PlatformError::Compact {
        spec: spec.to_string(),
        problem: Box::new(Problem::BadValue {
            element: "compact platform".to_string(),
            attribute,
            value: value.to_string(),
            expected,
        }),
    }
}

/// Builds the platform a compact description gives.
pub fn load(spec: &str) -> Result<Platform, PlatformError> {
    let mut parts = spec.split(':');
    let kind_text = parts.next().unwrap_or("");
    let Some(&(_, kind)) = KINDS.iter().find(|(k, _)| *k == kind_text) else {
        return Err(bad(
            spec,
            "kind",
            kind_text,
            "flat, torus, fat-tree or dragonfly, then ':' and the shape".to_string(),
        ));
    };
    let shape = parts.next().unwrap_or("");
    let (hosts, topology) = if kind == "FLAT" {
        let n = shape
            .parse::<usize>()
            .ok()
            .filter(|&n| (1..=MAX_CLUSTER_HOSTS).contains(&n))
            .ok_or_else(|| {
                bad(
                    spec,
                    "shape",
                    shape,
                    format!("the number of hosts, 1 to {MAX_CLUSTER_HOSTS}, such as flat:64"),
                )
            })?;
        (n, None)
    } else {
        let t = Topology::parse(kind, shape).map_err(|why| bad(spec, "shape", shape, why))?;
        (t.nodes() as usize, Some(t))
    };

    let mut c = ClusterSpec {
        id: "cluster".to_string(),
        prefix: "node-".to_string(),
        suffix: String::new(),
        radicals: (0..hosts as u32).collect(),
        pstates: vec![1e9],
        cores: 1,
        properties: Vec::new(),
        private: LinkSpec {
            bandwidth: 12.5e9,
            latency: 1e-6,
            sharing: Sharing::SplitDuplex,
        },
        backbone: None,
        limiter_bandwidth: None,
        loopback: None,
        same_host: SameHost::ThroughSwitch,
    };
    let (mut bb_bw, mut bb_lat, mut bb_sharing) = (None, 0.0, Sharing::Shared);
    let (mut lo_bw, mut lo_lat) = (None, 0.0);
    for part in parts {
        let Some((key, value)) = part.split_once('=') else {
            return Err(bad(
                spec,
                "option",
                part,
                format!("key=value, with a key among {KEYS}"),
            ));
        };
        let unit = |parse: fn(&str) -> Result<f64, units::UnitError>, attribute| {
            parse(value).map_err(|e| bad(spec, attribute, value, e.to_string()))
        };
        let sharing = |attribute, allowed: &[Sharing]| {
            allowed
                .iter()
                .copied()
                .find(|s| s.simgrid_name().eq_ignore_ascii_case(value))
                .ok_or_else(|| {
                    let names: Vec<_> = allowed.iter().map(|s| s.simgrid_name()).collect();
                    bad(spec, attribute, value, names.join(" or "))
                })
        };
        match key {
            "bw" => c.private.bandwidth = unit(units::parse_bandwidth, "bw")?,
            "lat" => c.private.latency = unit(units::parse_time, "lat")?,
            "speed" => {
                c.pstates = vec![unit(units::parse_speed, "speed")?];
                if c.pstates[0] <= 0.0 {
                    return Err(bad(spec, "speed", value, "a positive speed".to_string()));
                }
            }
            "cores" => {
                c.cores = value.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    bad(
                        spec,
                        "cores",
                        value,
                        "a whole number of cores >= 1".to_string(),
                    )
                })?
            }
            "sharing" => {
                c.private.sharing = match sharing(
                    "sharing",
                    &[Sharing::SplitDuplex, Sharing::Shared, Sharing::FatPipe],
                )? {
                    // As SimGrid creates them (see the cluster modules).
                    Sharing::FatPipe => Sharing::Shared,
                    s => s,
                }
            }
            "loopback_bw" => lo_bw = Some(unit(units::parse_bandwidth, "loopback_bw")?),
            "loopback_lat" => lo_lat = unit(units::parse_time, "loopback_lat")?,
            "bb_bw" | "bb_lat" | "bb_sharing" if topology.is_some() => {
                return Err(bad(
                    spec,
                    "option",
                    part,
                    format!("no backbone options: a {kind} cluster has no backbone"),
                ));
            }
            "bb_bw" => bb_bw = Some(unit(units::parse_bandwidth, "bb_bw")?),
            "bb_lat" => bb_lat = unit(units::parse_time, "bb_lat")?,
            "bb_sharing" => {
                bb_sharing = sharing("bb_sharing", &[Sharing::Shared, Sharing::FatPipe])?
            }
            "prefix" => c.prefix = value.to_string(),
            "suffix" => c.suffix = value.to_string(),
            _ => return Err(bad(spec, "option", part, format!("a key among {KEYS}"))),
        }
    }
    if c.private.bandwidth <= 0.0 {
        let value = spec
            .split(':')
            .find_map(|p| p.strip_prefix("bw="))
            .unwrap_or("0");
        return Err(bad(spec, "bw", value, "a positive bandwidth".to_string()));
    }
    c.backbone = bb_bw.filter(|&b| b > 0.0).map(|bandwidth| LinkSpec {
        bandwidth,
        latency: bb_lat,
        sharing: bb_sharing,
    });
    c.loopback = lo_bw.filter(|&b| b > 0.0).map(|b| (b, lo_lat));

    let mut builder = Builder::new();
    let invalid = |problem| PlatformError::Compact {
        spec: spec.to_string(),
        problem: Box::new(problem),
    };
    let zone = builder
        .begin_zone(
            ZoneInfo {
                name: c.id.clone(),
                enclosing: None,
                properties: Vec::new(),
            },
            None,
        )
        .map_err(invalid)?;
    let routing = match &topology {
        None => Routing::Cluster(cluster::build(&c, &mut builder, 0).map_err(invalid)?),
        Some(t) => Routing::Topology(topology::build(&c, t, &mut builder, 0).map_err(invalid)?),
    };
    builder.set_routing(zone, routing);
    Ok(builder.finish(Vec::new(), Vec::new()))
}
