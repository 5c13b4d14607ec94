//! Hosts, links and the way routes use links.

/// Index of a host in [`Platform::hosts`](crate::Platform::hosts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostId(pub u32);

/// Index of a link in [`Platform::links`](crate::Platform::links).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u32);

/// How the flows crossing a link share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// All flows, in both directions, share the bandwidth (max-min).
    Shared,
    /// Every flow may use the whole bandwidth (a non-blocking switch).
    FatPipe,
    /// Two independent shared links, one per direction; each has the full
    /// bandwidth. Routes say which half they use with [`Direction`].
    SplitDuplex,
}

impl Sharing {
    /// The spelling used in SimGrid platform files.
    pub fn simgrid_name(self) -> &'static str {
        match self {
            Sharing::Shared => "SHARED",
            Sharing::FatPipe => "FATPIPE",
            Sharing::SplitDuplex => "SPLITDUPLEX",
        }
    }
}

/// Which half of a link a route uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// The link is not split: the whole link.
    None,
    /// The `_UP` half of a [`Sharing::SplitDuplex`] link.
    Up,
    /// The `_DOWN` half of a [`Sharing::SplitDuplex`] link.
    Down,
}

impl Direction {
    /// The other half: the direction the reverse of a route uses.
    pub fn reversed(self) -> Direction {
        match self {
            Direction::None => Direction::None,
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
        }
    }
}

/// One link of a route, and for a split-duplex link the half it uses.
///
/// Invariant kept by [`Platform`](crate::Platform): the direction is
/// [`Direction::None`] exactly when the link is not split-duplex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LinkUse {
    /// The link.
    pub link: LinkId,
    /// The half used, for split-duplex links.
    pub direction: Direction,
}

impl LinkUse {
    /// The same link used in the other direction.
    pub fn reversed(self) -> LinkUse {
        LinkUse {
            link: self.link,
            direction: self.direction.reversed(),
        }
    }
}

/// A host's disk (SimGrid's `<disk>`): what its I/O costs.
#[derive(Debug, Clone, PartialEq)]
pub struct Disk {
    /// Its name, unique among the disks of its host.
    pub name: String,
    /// The host it belongs to.
    pub host: HostId,
    /// Read bandwidth, in bytes/s.
    pub read_bw: f64,
    /// Write bandwidth, in bytes/s.
    pub write_bw: f64,
    /// Its capacity in bytes (the `size` property), if given.
    pub size: Option<f64>,
    /// The path prefix its files live under (the `mount` property), if
    /// given.
    pub mount: Option<String>,
    /// `<prop id value/>` pairs, in file order (`size` and `mount` too).
    pub properties: Vec<(String, String)>,
}

/// A simulated machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Its unique name, used by hostfiles and printed to users.
    pub name: String,
    /// Speed of one core at the initial power state, in flop/s.
    pub speed: f64,
    /// Speed of one core at each of its power states (SimGrid's pstates),
    /// in flop/s, when it has several (`speed` is the one of `pstate`);
    /// empty for a host of one speed, which costs no allocation (platforms
    /// may have millions of hosts). Read it with [`Host::pstate_speeds`].
    pub pstates: Box<[f64]>,
    /// The power state the host starts in.
    pub pstate: usize,
    /// Number of cores.
    pub cores: u32,
    /// `<prop id value/>` pairs, in file order.
    pub properties: Vec<(String, String)>,
}

impl Host {
    /// The speed of one core at each power state: `speed` alone for a
    /// host of one speed.
    pub fn pstate_speeds(&self) -> &[f64] {
        if self.pstates.is_empty() {
            std::slice::from_ref(&self.speed)
        } else {
            &self.pstates
        }
    }

    /// The `pstates` field for `speeds` (empty for one speed).
    pub fn pstate_list(speeds: &[f64]) -> Box<[f64]> {
        if speeds.len() > 1 {
            speeds.into()
        } else {
            Box::default()
        }
    }
}

/// A network link.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// Its unique name. A split-duplex link's halves are called
    /// `<name>_UP` and `<name>_DOWN`, as in SimGrid.
    pub name: String,
    /// Capacity in bytes/s (of each half, for a split-duplex link).
    pub bandwidth: f64,
    /// Latency in seconds.
    pub latency: f64,
    /// How flows share it.
    pub sharing: Sharing,
    /// `<prop id value/>` pairs, in file order.
    pub properties: Vec<(String, String)>,
}
