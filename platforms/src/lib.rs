//! Platform descriptions for the MPI emulator: the simulated machine's
//! hosts, its network links, and which links a message crosses between two
//! hosts.
//!
//! This crate knows nothing of the network solver or of MPI. It reads
//! SimGrid platform files (version 4.1, as SimGrid 3.32 does) or builds the
//! built-in cluster, and answers [`Platform::route`]. It also reads
//! [units] (`1Gf`, `10Gbps`, `1.5us`) and [hostfiles](parse_hostfile).
//!
//! # What platform files may contain (for now)
//!
//! * `<platform version="4.1">` holding `<config>` elements (kept for the
//!   emulator to apply, see [`Platform::config`]) and one top-level
//!   `<zone>` or `<cluster>`;
//! * `<zone routing="Full">`, `"Floyd"`, `"Dijkstra"` (shortest chains of
//!   declared routes, counting links, with SimGrid's tie-breaking; see the
//!   `graph` module) or `"None"` (no routes),
//!   holding `<host>`, `<router>`, `<link>` and `<route>` elements, nested
//!   `<zone>`s and `<cluster>`s, and `<zoneRoute>`s between its nested
//!   zones with their gateways (`gw_src`, `gw_dst`);
//! * `<cluster>`s of topology FLAT (with a router, named by `router_id` or
//!   `<prefix><id>_router<suffix>` as in SimGrid, that other zones use as
//!   gateway), TORUS, FAT_TREE or DRAGONFLY (no router, as in SimGrid 3.32:
//!   their hosts serve as gateways), with SimGrid's links, link names and
//!   routes (see the `topology` module), routed on demand.
//!
//! Between hosts of different zones the route is SimGrid's: in the
//! closest zone holding both, the `<zoneRoute>` between the zones holding
//! them, preceded by the route from the source to its source gateway and
//! followed by the route from its destination gateway to the destination,
//! recursively. A cluster's route to its router goes as far as its backbone.
//!
//! `<bypassRoute>`s (between points of a zone) and `<bypassZoneRoute>`s
//! (between its nested zones, through gateways) replace routing one way,
//! as in SimGrid; a bypass is looked up for the zones directly below the
//! closest common zone (SimGrid also tries pairs of outer zones).
//!
//! A `<host>` may hold `<disk>`s (SimGrid 3.32's: `read_bw`, `write_bw`,
//! and the `size` and `mount` properties), listed by
//! [`Platform::disks_of`].
//!
//! A host's `speed` may list the speeds of its power states (SimGrid's
//! pstates, `speed="100Mf,50Mf"`, the initial one by `pstate`); a
//! cluster's may not. Anything else SimGrid accepts (Vivaldi and Wifi
//! zones, profiles...) is refused with an
//! error saying it is not supported yet, and anything SimGrid refuses is
//! refused too; every error names the file and the line.
//!
//! # Routes
//!
//! A route is a list of [`LinkUse`]s: links in the order a message crosses
//! them, and for a [`Sharing::SplitDuplex`] link the half it uses. In a
//! Full zone, a `<route>` is symmetrical unless `symmetrical="NO"`: the
//! reverse route is the same links in reverse order, each split-duplex
//! link used in the other direction.
//!
//! A pair of hosts without a route is reported by [`Platform::route`] when
//! a message needs it, or for all pairs at once by
//! [`Platform::check_routes`].
//!
//! Traffic within one host uses, in a Full zone, the declared route from
//! the host to itself if any, else the global loopback link (SimGrid's
//! `__loopback__`, FATPIPE, 10 GBps and 0 s by default; see
//! [`Platform::set_global_loopback`]).
//!
//! # Clusters
//!
//! A FLAT `<cluster id="c" prefix="p" suffix="s" radical="0-3,8">` creates,
//! as SimGrid 3.32 does:
//!
//! * hosts `p0s`, `p1s`, ... (prefix, radical value, suffix);
//! * per host `n` a private link `c_link_n` (SPLITDUPLEX by default, whose
//!   halves are `c_link_n_UP` and `c_link_n_DOWN`), plus `c_link_n_limiter`
//!   if `limiter_link` is given and `c_link_n_loopback` if `loopback_bw` is;
//! * a backbone `c_backbone` if `bb_bw` is given (SHARED by default).
//!
//! Between two hosts a and b the route is: a's limiter, a's private link
//! (UP), the backbone, b's private link (DOWN), b's limiter, each when
//! present. Within a host: its loopback link if the cluster has
//! `loopback_bw`; otherwise, as in SimGrid, the host's links up to the
//! backbone and back down, without repeating a link. Routes of clusters are
//! computed when asked, never stored per pair.
//!
//! # The default cluster
//!
//! When the user gives no platform, the emulator uses
//! [`Platform::default_cluster`]`(hosts, speed)`: a FLAT cluster named
//! `default` whose `hosts` hosts are named `node-0` to `node-<hosts-1>`,
//! each with the given speed (flop/s) and 1 core. Each host has a private
//! SPLITDUPLEX link `default_link_<n>` of 12.5 GBps (100 Gb/s) and 1 us
//! latency to a FATPIPE backbone `default_backbone` of 12.5 GBps and 0 s
//! latency (a non-blocking switch). There is no limiter and there are no
//! loopback links: traffic within a host crosses the global loopback link.
//! In SimGrid XML it would read (but for that last point):
//!
//! ```xml
//! <cluster id="default" prefix="node-" suffix="" radical="0-63" speed="1Gf"
//!          bw="12.5GBps" lat="1us" bb_bw="12.5GBps" bb_lat="0s"
//!          bb_sharing_policy="FATPIPE"/>
//! ```
//!
//! # Example
//!
//! ```
//! use platforms::{Platform, LinkUse};
//!
//! let xml = r#"<platform version="4.1"><zone id="zone0" routing="Full">
//!   <host id="host0" speed="1Gf"/><host id="host1" speed="1Gf"/>
//!   <link id="link0" bandwidth="1.25GBps" latency="10us"/>
//!   <route src="host0" dst="host1"><link_ctn id="link0"/></route>
//! </zone></platform>"#;
//! let platform = Platform::from_xml_str(xml, "small.xml")?;
//! let (h0, h1) = (platform.host_by_name("host0").unwrap(), platform.host_by_name("host1").unwrap());
//! let mut route: Vec<LinkUse> = Vec::new();
//! platform.route(h1, h0, &mut route)?;
//! assert_eq!(platform.link(route[0].link).name, "link0");
//! assert_eq!(platform.link(route[0].link).bandwidth, 1.25e9);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod cluster;
mod compact;
mod error;
mod graph;
mod hostfile;
mod model;
mod platform;
mod topology;
pub mod units;
mod xml;

pub use cluster::MAX_CLUSTER_HOSTS;
pub use compact::is_compact;
pub use error::{PlatformError, Problem, RouteError};
pub use hostfile::{parse_hostfile, HostfileEntry};
pub use model::{Direction, Disk, Host, HostId, Link, LinkId, LinkUse, Sharing};
pub use platform::{
    Platform, DEFAULT_LOOPBACK_BANDWIDTH, DEFAULT_LOOPBACK_LATENCY, GLOBAL_LOOPBACK_NAME,
};
