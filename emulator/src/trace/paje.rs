//! SimGrid's Paje traces (`-trace`): one file of the ranks' MPI calls as
//! states, their messages as links and, with `tracing/smpi/computing`,
//! their computations as states, as SimGrid 3.32's smpirun writes them
//! (`src/instr/instr_config.cpp`, `instr_paje_header.cpp`,
//! `src/smpi/internals/instr_smpi.cpp`).
//!
//! Every rank is a container of type `MPI`, made at its MPI_Init and
//! destroyed when its program ends. A traced call pushes its state
//! (`PMPI_<call>`, defined at its first use with SimGrid's colour) at its
//! entry and pops it at its exit. A traced send starts a link, keyed
//! `<src pid>_<dst pid>_<tag>_<n>` (pid = rank + 1, n counts the links),
//! which the receive that takes the message ends: keys wait first in,
//! first out per (source, destination, tag), as SimGrid's do.
//!
//! As SimGrid, definitions (containers, entity values) are written at
//! once and state and link events wait until a container is destroyed or
//! the run ends, so the file's layout is SimGrid's; events also go out
//! when they hold [`BUDGET`] bytes, so memory stays bounded (the trace is
//! as valid, only laid out otherwise). Events arrive in time order, the
//! order SimGrid sorts its buffer in.
//!
//! With `tracing/smpi/group` (`-trace-grouped`) or `tracing/uncategorized`
//! (`-trace-resource`), the trace also holds the machine, as SimGrid's
//! platform containers: a container per host (type `HOST`) and per link
//! direction (type `LINK`, `_UP` and `_DOWN` for the halves of a
//! split-duplex link), all under the root (SimGrid nests them in their
//! zones' containers), made at date 0 and destroyed at the end. Grouped,
//! every rank's container is in its host's. With resources, each host
//! carries its `speed` (of a core, flop/s), `core_count` and `speed_used`
//! (flop/s, set whenever a computation starts or ends on it), each link
//! direction its `bandwidth` (B/s), `latency` (s) and `bandwidth_used` (B/s),
//! set whenever a flow starts or ends on it (SimGrid adds and subtracts
//! each action's rate instead: the same values). Not drawn: the platform's
//! topology links.
//!
//! Links are drawn right where SimGrid's are not, so that every link
//! ends: a send-receive's (SimGrid keys its two sides differently), a
//! receive from `MPI_ANY_SOURCE` or with `MPI_ANY_TAG` (SimGrid keys them
//! with the wildcard), and receives completed by a test (SimGrid ends
//! links only in waits and blocking receives). A receive of a message no
//! traced call sent (a persistent send's) ends no link.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::rc::Rc;

use super::{Args, Sent, Traced, Tracer};
use crate::engine::observe::Observer;

/// Bytes of events held before they are written.
pub const BUDGET: usize = 8 << 20;

/// What a Paje trace is asked to be (SimGrid's `tracing/*` options).
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// `tracing/filename`.
    pub file: PathBuf,
    /// Digits after the decimal point of dates (`tracing/precision`).
    pub precision: usize,
    /// A comment line at the top, if not empty (`tracing/comment`).
    pub comment: String,
    /// A file whose lines are comments at the top, after `comment`
    /// (`tracing/comment-file`).
    pub comment_file: Option<PathBuf>,
    /// Sizes in pushed states and started links
    /// (`tracing/smpi/display-sizes`).
    pub display_sizes: bool,
    /// Computations as `computing` states (`tracing/smpi/computing`).
    pub computing: bool,
    /// The program's sleeps as `sleeping` states (`tracing/smpi/sleeping`).
    pub sleeping: bool,
    /// The source file and line of each state (`smpi/trace-call-location`,
    /// from `smpicc -trace-call-location`).
    pub call_location: bool,
    /// Ranks in their hosts' containers (`tracing/smpi/group`).
    pub grouped: bool,
    /// The machine's resources and their use (`tracing/uncategorized`).
    pub resources: bool,
}

impl Options {
    /// Whether the trace holds the machine's containers.
    pub fn draws_machine(&self) -> bool {
        self.grouped || self.resources
    }
}

/// The machine a grouped or resource trace draws.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    pub hosts: Vec<MachineHost>,
    pub links: Vec<MachineLink>,
    /// Each rank's host, an index into `hosts`.
    pub rank_hosts: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct MachineHost {
    pub name: String,
    /// Of one core, in flop/s.
    pub speed: f64,
    pub cores: u32,
}

/// A link direction: a whole link, or a half of a split-duplex one.
#[derive(Debug, Clone)]
pub struct MachineLink {
    /// Its fluid resource ([`crate::engine::observe::LinkLoad::resource`]).
    pub resource: u32,
    pub name: String,
    /// In bytes per second.
    pub bandwidth: f64,
    /// In seconds.
    pub latency: f64,
}

/// The version SimGrid's traces name in their first line.
const GENERATOR: &str = "#This file was generated using SimGrid-3.32.0";

/// The ids of a trace's types.
#[derive(Debug, Clone, Copy)]
struct Types {
    /// `MPI`, of the ranks' containers.
    rank: usize,
    /// `MPI_STATE`, of the ranks' states.
    state: usize,
    /// `MPI_LINK`, of the messages' links.
    link: usize,
    /// `HOST` and `LINK`, of the machine's containers.
    machine: Option<(usize, usize)>,
    /// The variables `speed`, `core_count`, `speed_used` (of hosts),
    /// `bandwidth`, `latency` and `bandwidth_used` (of links).
    variables: Option<[usize; 6]>,
    /// The first id after the types (entity values share their counter).
    first_value: usize,
    /// Ranks' containers are in their hosts'.
    grouped: bool,
}

/// Type definitions, numbered in the order made.
struct Definitions {
    text: String,
    last: usize,
}

impl Definitions {
    fn define(&mut self, line: impl FnOnce(usize) -> String) -> usize {
        self.last += 1;
        self.text.push_str(&line(self.last));
        self.text.push('\n');
        self.last
    }
}

/// The types of a trace and their definitions: smpirun's (instr_platform.cpp:
/// ids 1 to 5 without the machine), the ranks' under `HOST` when grouped,
/// and the machine's.
fn types(options: &Options) -> (String, Types) {
    let mut d = Definitions {
        text: String::new(),
        last: 0,
    };
    let host = options
        .grouped
        .then(|| d.define(|id| format!("0 {id} 0 HOST")));
    let parent = host.unwrap_or(0);
    let rank = d.define(|id| format!("0 {id} {parent} MPI"));
    let state = d.define(|id| format!("2 {id} {rank} MPI_STATE"));
    let link = d.define(|id| format!("4 {id} 0 {rank} {rank} MPI_LINK"));
    d.define(|id| format!("4 {id} 0 {rank} {rank} MIGRATE_LINK"));
    d.define(|id| format!("2 {id} {rank} MIGRATE_STATE"));
    let mut machine = None;
    let mut variables = None;
    if options.draws_machine() {
        let host = host.unwrap_or_else(|| d.define(|id| format!("0 {id} 0 HOST")));
        let variable = |d: &mut Definitions, of: usize, name: &str, color: &str| {
            d.define(|id| format!("1 {id} {of} {name} \"{color}\""))
        };
        let host_variables = options.resources.then(|| {
            [
                variable(&mut d, host, "speed", "1 1 1"),
                variable(&mut d, host, "core_count", "1 1 1"),
                variable(&mut d, host, "speed_used", "0.5 0.5 0.5"),
            ]
        });
        let link_type = d.define(|id| format!("0 {id} 0 LINK"));
        if let Some([speed, cores, speed_used]) = host_variables {
            variables = Some([
                speed,
                cores,
                speed_used,
                variable(&mut d, link_type, "bandwidth", "1 1 1"),
                variable(&mut d, link_type, "latency", "1 1 1"),
                variable(&mut d, link_type, "bandwidth_used", "0.5 0.5 0.5"),
            ]);
        }
        machine = Some((host, link_type));
    }
    let types = Types {
        rank,
        state,
        link,
        machine,
        variables,
        first_value: d.last + 1,
        grouped: options.grouped,
    };
    (d.text, types)
}

/// The state of computations.
const COMPUTING: &str = "computing";
/// The state of the program's sleeps.
const SLEEPING: &str = "sleeping";

/// Writes a Paje trace.
pub struct PajeWriter {
    out: BufWriter<File>,
    /// State and link lines not yet written.
    events: String,
    precision: usize,
    display_sizes: bool,
    computing: bool,
    sleeping: bool,
    /// The entity values of `MPI_STATE` defined so far, by name.
    values: HashMap<String, usize>,
    next_value: usize,
    /// Each rank's container, from its MPI_Init until its end.
    containers: Vec<Option<usize>>,
    next_container: usize,
    /// Each rank's MPI calls and computations in progress, innermost last.
    frames: Vec<Vec<Frame>>,
    /// The links started and not ended, by (source, destination, tag):
    /// their numbers, oldest first.
    links: HashMap<(usize, usize, i32), VecDeque<u64>>,
    /// The number of the last link started.
    last_link: u64,
    /// The first error met, reported at the end.
    error: Option<io::Error>,
    /// States carry the place of their call (`Options::call_location`).
    call_location: bool,
    /// Each rank's current call location (file, line).
    locations: Vec<Option<(Rc<str>, u32)>>,
    types: Types,
    /// Grouped: each rank's parent container, its host's.
    rank_parents: Vec<usize>,
    /// With the machine drawn: the containers of the hosts (in host order)
    /// and of the link directions, destroyed at the end.
    host_containers: Range<usize>,
    link_directions: Range<usize>,
    /// With resources: each link direction's container, by fluid resource.
    link_containers: Vec<Option<usize>>,
}

/// An MPI call or computation of a rank, in progress.
#[derive(Default)]
struct Frame {
    /// It pushed a state, which its end pops.
    pushed: bool,
    /// Its state is popped before the links of its receives end (SimGrid's
    /// MPI_Wait), rather than after (its blocking receives, MPI_Waitall).
    pop_first: bool,
    /// The messages it received, (source, tag): their links end at its
    /// exit, as SimGrid ends them (after the receive's overhead).
    received: Vec<(usize, i32)>,
}

impl PajeWriter {
    /// A writer of `ranks` ranks' trace; `command` is the run's command
    /// line, which the second line records.
    pub fn new(options: &Options, ranks: usize, command: &[String]) -> io::Result<Self> {
        let comments = match &options.comment_file {
            Some(f) => std::fs::read_to_string(f).map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("the comment file {} cannot be read: {e}", f.display()),
                )
            })?,
            None => String::new(),
        };
        let mut out = BufWriter::new(File::create(&options.file)?);
        let (definitions, types) = types(options);
        out.write_all(prologue(options, command, &comments).as_bytes())?;
        out.write_all(definitions.as_bytes())?;
        Ok(Self {
            out,
            events: String::new(),
            precision: options.precision,
            display_sizes: options.display_sizes,
            computing: options.computing,
            sleeping: options.sleeping,
            values: HashMap::new(),
            next_value: types.first_value,
            types,
            rank_parents: Vec::new(),
            host_containers: 0..0,
            link_directions: 0..0,
            link_containers: Vec::new(),
            containers: vec![None; ranks],
            next_container: 1,
            frames: (0..ranks).map(|_| Vec::new()).collect(),
            call_location: options.call_location,
            locations: vec![None; if options.call_location { ranks } else { 0 }],
            links: HashMap::new(),
            last_link: 0,
            error: None,
        })
    }

    /// Draws `machine` (when the options ask for it): its containers at
    /// date 0 and, with resources, their fixed variables. Called once,
    /// before any event.
    pub fn draw_machine(&mut self, machine: &Machine) {
        let Some((host_type, link_type)) = self.types.machine else {
            return;
        };
        let p = self.precision;
        let mut lines = String::new();
        let first = self.next_container;
        for host in &machine.hosts {
            let cid = self.new_container();
            let _ = writeln!(lines, "6 {:.p$} {cid} {host_type} 0 \"{}\"", 0.0, host.name);
            if let Some([speed, cores, ..]) = self.types.variables {
                for (kind, value) in [(speed, host.speed), (cores, f64::from(host.cores))] {
                    variable_line(&mut lines, p, 0.0, kind, cid, value);
                    lines.push('\n');
                }
            }
        }
        self.host_containers = first..self.next_container;
        for link in &machine.links {
            let cid = self.new_container();
            let _ = writeln!(lines, "6 {:.p$} {cid} {link_type} 0 \"{}\"", 0.0, link.name);
            if let Some([_, _, _, bandwidth, latency, _]) = self.types.variables {
                for (kind, value) in [(bandwidth, link.bandwidth), (latency, link.latency)] {
                    variable_line(&mut lines, p, 0.0, kind, cid, value);
                    lines.push('\n');
                }
                let r = link.resource as usize;
                if self.link_containers.len() <= r {
                    self.link_containers.resize(r + 1, None);
                }
                self.link_containers[r] = Some(cid);
            }
        }
        self.link_directions = self.host_containers.end..self.next_container;
        if self.types.grouped {
            self.rank_parents = machine
                .rank_hosts
                .iter()
                .map(|&h| self.host_container(h).unwrap_or(0))
                .collect();
        }
        self.define(&lines);
    }

    /// The container of host `host` (its index), with the machine drawn.
    fn host_container(&self, host: usize) -> Option<usize> {
        Some(self.host_containers.start + host).filter(|c| self.host_containers.contains(c))
    }

    /// Sets variable `kind` of container `cid` to `value` from `at`.
    fn set_variable(&mut self, at: f64, kind: usize, cid: usize, value: f64) {
        let p = self.precision;
        variable_line(&mut self.events, p, at, kind, cid, value);
        self.event_done();
    }

    fn new_container(&mut self) -> usize {
        let cid = self.next_container;
        self.next_container += 1;
        cid
    }

    /// Writes a definition at once.
    fn define(&mut self, line: &str) {
        if let Err(e) = self.out.write_all(line.as_bytes()) {
            self.error.get_or_insert(e);
        }
    }

    /// Writes the events held.
    fn flush_events(&mut self) {
        let events = std::mem::take(&mut self.events);
        self.define(&events);
        // The buffer's room is kept for the next events.
        self.events = events;
        self.events.clear();
    }

    /// Ends an event line: written out if the events hold enough.
    fn event_done(&mut self) {
        self.events.push('\n');
        if self.events.len() >= BUDGET {
            self.flush_events();
        }
    }

    /// The id of state `name`, defined now if this is its first use.
    fn value(&mut self, name: &str) -> usize {
        if let Some(&id) = self.values.get(name) {
            return id;
        }
        let id = self.next_value;
        self.next_value += 1;
        self.values.insert(name.to_string(), id);
        self.define(&value_line(id, self.types.state, name, color(name)));
        id
    }

    /// Pushes state `name` on `rank`'s container `cid` at `at`, with
    /// `size` when sizes are shown.
    fn push(&mut self, at: f64, (rank, cid): (usize, usize), name: &str, size: &str) {
        let value = self.value(name);
        let p = self.precision;
        let state = self.types.state;
        let _ = write!(self.events, "12 {at:.p$} {state} {cid} {value}");
        if self.display_sizes {
            let _ = write!(self.events, " {size}");
        }
        self.location(rank);
        self.event_done();
    }

    fn pop(&mut self, at: f64, (rank, cid): (usize, usize)) {
        let p = self.precision;
        let state = self.types.state;
        let _ = write!(self.events, "13 {at:.p$} {state} {cid}");
        if self.display_sizes && !self.call_location {
            // SimGrid writes a pop's missing size too (an empty last
            // field; not before a location, which would misplace it).
            self.events.push(' ');
        }
        self.location(rank);
        self.event_done();
    }

    /// Appends `rank`'s call location to a state event, when asked for
    /// (`"" 0` where unknown, as SimGrid's default location).
    fn location(&mut self, rank: usize) {
        if !self.call_location {
            return;
        }
        match self.locations.get(rank).and_then(Option::as_ref) {
            Some((file, line)) => {
                let _ = write!(self.events, " \"{file}\" {line}");
            }
            None => self.events.push_str(" \"\" 0"),
        }
    }

    /// Starts the link of message `m` sent by `rank` (container `cid`).
    fn start_link(&mut self, at: f64, rank: usize, cid: usize, m: &Sent) {
        self.last_link += 1;
        let n = self.last_link;
        self.links
            .entry((rank, m.dst, m.tag))
            .or_default()
            .push_back(n);
        let p = self.precision;
        let key = key(rank, m.dst, m.tag, n);
        let link = self.types.link;
        let _ = write!(self.events, "15 {at:.p$} {link} 0 PTP {cid} {key}");
        if self.display_sizes {
            let _ = write!(self.events, " {}", m.bytes);
        }
        self.event_done();
    }

    /// Ends the oldest link from `src` to `rank` with `tag`, if a traced
    /// call sent it.
    fn end_link(&mut self, at: f64, rank: usize, src: usize, tag: i32) {
        let Some(cid) = self.container(rank) else {
            return;
        };
        let Some(waiting) = self.links.get_mut(&(src, rank, tag)) else {
            return;
        };
        let Some(n) = waiting.pop_front() else {
            return;
        };
        if waiting.is_empty() {
            self.links.remove(&(src, rank, tag));
        }
        let p = self.precision;
        let key = key(src, rank, tag, n);
        let link = self.types.link;
        let _ = write!(self.events, "16 {at:.p$} {link} 0 PTP {cid} {key}");
        self.event_done();
    }

    fn container(&self, rank: usize) -> Option<usize> {
        self.containers.get(rank).copied().flatten()
    }

    /// Makes `rank`'s container at its MPI_Init (it has none), as SimGrid
    /// does: the container, then the call's state pushed and popped at once.
    fn init(&mut self, at: f64, rank: usize, name: &str, traced: &Traced) {
        let cid = self.new_container();
        self.containers[rank] = Some(cid);
        let p = self.precision;
        let (rank_type, parent) = (
            self.types.rank,
            self.rank_parents.get(rank).copied().unwrap_or(0),
        );
        self.define(&format!(
            "6 {at:.p$} {cid} {rank_type} {parent} \"rank-{rank}\"\n"
        ));
        self.push(at, (rank, cid), name, &traced.args.display_size());
        self.pop(at, (rank, cid));
        if self.computing {
            self.value(COMPUTING);
        }
        if self.sleeping {
            self.value(SLEEPING);
        }
    }

    /// Destroys `rank`'s container at `at`, after the events held.
    fn destroy(&mut self, at: f64, rank: usize) {
        let Some(cid) = self.container(rank) else {
            return;
        };
        self.containers[rank] = None;
        self.flush_events();
        let p = self.precision;
        let rank_type = self.types.rank;
        self.define(&format!("7 {at:.p$} {rank_type} {cid}\n"));
    }

    /// Starts a computation or a sleep of `rank` (an `amount` of flops or
    /// seconds): its state pushed, a frame that its end pops.
    fn start_activity(&mut self, at: f64, rank: usize, state: &str, amount: f64) {
        if rank >= self.frames.len() {
            return;
        }
        let cid = self.container(rank);
        if let Some(cid) = cid {
            self.push(at, (rank, cid), state, &Args::Amount(amount).display_size());
        }
        self.frames[rank].push(Frame {
            pushed: cid.is_some(),
            ..Frame::default()
        });
    }

    /// Ends the computation or sleep of `rank` started last.
    fn end_activity(&mut self, at: f64, rank: usize) {
        if let Some(frame) = self.frames.get_mut(rank).and_then(Vec::pop) {
            self.end_frame(at, rank, frame);
        }
    }

    /// Ends `frame` of `rank` at `at`: its pop and its links' ends.
    fn end_frame(&mut self, at: f64, rank: usize, frame: Frame) {
        let cid = self.container(rank);
        let pop = |w: &mut Self| {
            if let (true, Some(cid)) = (frame.pushed, cid) {
                w.pop(at, (rank, cid));
            }
        };
        if frame.pop_first {
            pop(self);
        }
        for &(src, tag) in &frame.received {
            self.end_link(at, rank, src, tag);
        }
        if !frame.pop_first {
            pop(self);
        }
    }
}

/// The lines before the types: SimGrid's version, the command line, the
/// comment, the lines of the comment file (`comments`) and the event
/// definitions.
pub fn prologue(options: &Options, command: &[String], comments: &str) -> String {
    let mut s = format!("{GENERATOR}\n#[");
    for word in command {
        s.push_str(word);
        s.push(' ');
    }
    s.push_str("]\n");
    if !options.comment.is_empty() {
        let _ = writeln!(s, "# {}", options.comment);
    }
    // A line each (SimGrid 3.32 writes them without their line ends, so
    // that they and the first definition make one comment line).
    for line in comments.lines() {
        let _ = writeln!(s, "# {line}");
    }
    s.push_str(&header(options.display_sizes, options.call_location));
    s
}

/// SimGrid's event definitions (`paje::dump_header`, not basic): `Size`
/// fields in PushState and StartLink with `display_sizes`; with
/// `call_location`, `Fname` and `Lnumber` in PushState, and in PopState
/// too, whose lines SimGrid writes with them but defines without (so
/// that `pj_dump` refuses its traces).
pub fn header(display_sizes: bool, call_location: bool) -> String {
    const TIMED: &[&str] = &["Time date", "Type string", "Container string"];
    let size: &[&str] = if display_sizes { &["Size int"] } else { &[] };
    let place: &[&str] = if call_location {
        &["Fname string", "Lnumber int"]
    } else {
        &[]
    };
    let value = |kind| [TIMED, &["Value string"], kind].concat();
    let variable = [TIMED, &["Value double"]].concat();
    let link_fields = |end: &'static str, sized: &[&'static str]| {
        [TIMED, &["Value string", end, "Key string"], sized].concat()
    };
    let events: [(&str, Vec<&str>); 18] = [
        (
            "PajeDefineContainerType",
            vec!["Alias string", "Type string", "Name string"],
        ),
        (
            "PajeDefineVariableType",
            vec!["Alias string", "Type string", "Name string", "Color color"],
        ),
        (
            "PajeDefineStateType",
            vec!["Alias string", "Type string", "Name string"],
        ),
        (
            "PajeDefineEventType",
            vec!["Alias string", "Type string", "Name string"],
        ),
        (
            "PajeDefineLinkType",
            vec![
                "Alias string",
                "Type string",
                "StartContainerType string",
                "EndContainerType string",
                "Name string",
            ],
        ),
        (
            "PajeDefineEntityValue",
            vec!["Alias string", "Type string", "Name string", "Color color"],
        ),
        (
            "PajeCreateContainer",
            vec![
                "Time date",
                "Alias string",
                "Type string",
                "Container string",
                "Name string",
            ],
        ),
        (
            "PajeDestroyContainer",
            vec!["Time date", "Type string", "Name string"],
        ),
        ("PajeSetVariable", variable.clone()),
        ("PajeAddVariable", variable.clone()),
        ("PajeSubVariable", variable),
        ("PajeSetState", value(&[])),
        ("PajePushState", [value(size).as_slice(), place].concat()),
        ("PajePopState", [TIMED, place].concat()),
        ("PajeResetState", TIMED.to_vec()),
        ("PajeStartLink", link_fields("StartContainer string", size)),
        ("PajeEndLink", link_fields("EndContainer string", &[])),
        ("PajeNewEvent", value(&[])),
    ];
    let mut s = String::new();
    for (id, (name, fields)) in events.iter().enumerate() {
        let _ = writeln!(s, "%EventDef {name} {id}");
        for f in fields {
            let _ = writeln!(s, "%       {f}");
        }
        s.push_str("%EndEventDef\n");
    }
    s
}

/// Appends the event setting variable `kind` of container `cid` to
/// `value` from `at` (dates with `precision` digits), without its line end.
fn variable_line(out: &mut String, precision: usize, at: f64, kind: usize, cid: usize, value: f64) {
    // A sum of rates may end a hair below zero.
    let value = if value > 0.0 { value } else { 0.0 };
    let _ = write!(out, "8 {at:.precision$} {kind} {cid} {value:.6}");
}

/// The line defining state `name` of id `id`, of state type `state`.
fn value_line(id: usize, state: usize, name: &str, color: &str) -> String {
    format!("5 {id} {state} {name} \"{color}\"\n")
}

/// A link's key: the ranks as SimGrid's process ids (rank + 1).
pub fn key(src: usize, dst: usize, tag: i32, n: u64) -> String {
    format!("{}_{}_{tag}_{n}", src + 1, dst + 1)
}

/// SimGrid's state of MPI call `call`: the PMPI function that traces it
/// (MPI_Rsend is MPI_Send's, MPI_Irsend MPI_Isend's, MPI_Init_thread
/// MPI_Init's, MPI_Sendrecv_replace MPI_Sendrecv's; the large-count
/// calls, which SimGrid 3.32 lacks, are traced as the others).
pub fn state_name(call: &str) -> String {
    let bare = call.strip_prefix("MPI_").unwrap_or(call);
    let bare = bare.strip_suffix("_c").unwrap_or(bare);
    let bare = match bare {
        "Rsend" => "Send",
        "Irsend" => "Isend",
        "Init_thread" => "Init",
        "Sendrecv_replace" => "Sendrecv",
        // SimGrid's spelling.
        "Iallgather" => "Iallggather",
        other => other,
    };
    format!("PMPI_{bare}")
}

/// SimGrid's colours of states (instr_smpi.cpp), in the order of its map
/// (sorted by name), which decides between several partial matches.
#[rustfmt::skip]
const COLORS: &[(&str, &str)] = &[
    ("accumulate", "1 0.3 0"), ("allgather", "1 0 0"), ("allgatherv", "1 0.52 0.52"),
    ("allreduce", "1 0 1"), ("alltoall", "0.52 0 1"), ("alltoallv", "0.78 0.52 1"),
    ("barrier", "0 0.39 0.78"), ("bcast", "0 0.78 0.39"), ("compare_and_swap", "0.3 1 0"),
    ("computing", "0 1 1"), ("exscan", "1 0.54 0.25"), ("file_read", "1 1 0.3"),
    ("finalize", "0 1 0"), ("gather", "1 1 0"), ("gatherv", "1 1 0.52"), ("get", "0 1 0.3"),
    ("get_accumulate", "0 1 0.3"), ("init", "0 1 0"), ("irecv", "1 0.52 0.52"),
    ("isend", "0.52 0.52 1"), ("put", "0.3 1 0"), ("raccumulate", "1 0.3 0"),
    ("recv", "1 0 0"), ("reduce", "0 1 0"), ("reducescatter", "0.52 1 0.52"),
    ("rget", "0 1 0.3"), ("rget_accumulate", "1 0.3 0"), ("rput", "0.3 1 0"),
    ("scan", "1 0.58 0.23"), ("scatter", "1 0.74 0.54"), ("scatterv", "0.52 0 0.52"),
    ("send", "0 0 1"), ("sendrecv", "0 1 1"), ("sleeping", "0 0.5 0.5"), ("test", "0.52 0.52 0"),
    ("wait", "1 1 0"), ("waitall", "0.78 0.78 0"), ("waitany", "0.78 0.78 0.58"),
    ("win_complete", "0.8 1 0"), ("win_fence", "1 0 0.3"), ("win_flush", "1 0 0.3"),
    ("win_flush_all", "1 0.8 0"), ("win_flush_local", "1 0 0.8"),
    ("win_flush_local_all", "1 0 0.3"), ("win_lock", "1 0 0.3"), ("win_lock_all", "1 0 0.8"),
    ("win_post", "1 0 0.8"), ("win_start", "0.8 0 1"), ("win_unlock", "1 0 0.3"),
    ("win_unlock_all", "1 0.8 0"), ("win_wait", "1 0.8 0"),
];

/// SimGrid's colour of state `name` (`instr_find_color`): lower-cased,
/// without `pmpi_`, an exact name of the table, else the first of its
/// names the state contains, else grey.
pub fn color(name: &str) -> &'static str {
    let lower = name.to_lowercase();
    let state = lower.strip_prefix("pmpi_").unwrap_or(&lower);
    COLORS
        .iter()
        .find(|(n, _)| *n == state)
        .or_else(|| COLORS.iter().find(|(n, _)| state.contains(n)))
        .map_or("0.5 0.5 0.5", |&(_, c)| c)
}

impl Observer for PajeWriter {
    fn compute_start(&mut self, at: f64, rank: usize, flops: f64) {
        if self.computing {
            self.start_activity(at, rank, COMPUTING, flops);
        }
    }

    fn link_load(&mut self, at: f64, load: &crate::engine::observe::LinkLoad<'_>) {
        let Some([.., used]) = self.types.variables else {
            return;
        };
        if let Some(Some(cid)) = self.link_containers.get(load.resource as usize).copied() {
            self.set_variable(at, used, cid, load.used);
        }
    }

    fn host_load(&mut self, at: f64, host: usize, used: f64) {
        let Some([_, _, speed_used, ..]) = self.types.variables else {
            return;
        };
        if let Some(cid) = self.host_container(host) {
            self.set_variable(at, speed_used, cid, used);
        }
    }

    fn compute_end(&mut self, at: f64, rank: usize) {
        if self.computing {
            self.end_activity(at, rank);
        }
    }
}

impl Tracer for PajeWriter {
    fn call_enter(&mut self, at: f64, rank: usize, name: &'static str, traced: Option<&Traced>) {
        if rank >= self.frames.len() {
            return;
        }
        let mut frame = Frame {
            pop_first: name == "MPI_Wait",
            ..Frame::default()
        };
        match (traced, self.container(rank)) {
            (Some(t), None) if t.action == "init" => self.init(at, rank, &state_name(name), t),
            // A second MPI_Init fails before SimGrid traces it.
            (Some(t), Some(_)) if t.action == "init" => {}
            (Some(t), Some(cid)) => {
                self.push(at, (rank, cid), &state_name(name), &t.args.display_size());
                frame.pushed = true;
                if let Some(m) = &t.sent {
                    self.start_link(at, rank, cid, m);
                }
            }
            _ => {}
        }
        self.frames[rank].push(frame);
    }

    fn call_exit(&mut self, at: f64, rank: usize, _name: &'static str, _code: i32) {
        if let Some(frame) = self.frames.get_mut(rank).and_then(Vec::pop) {
            self.end_frame(at, rank, frame);
        }
    }

    fn received(&mut self, at: f64, rank: usize, src: usize, tag: i32) {
        match self.frames.get_mut(rank).and_then(|f| f.last_mut()) {
            Some(frame) => frame.received.push((src, tag)),
            None => self.end_link(at, rank, src, tag),
        }
    }

    fn rank_ended(&mut self, at: f64, rank: usize) {
        self.destroy(at, rank);
    }

    fn sleep_start(&mut self, at: f64, rank: usize, seconds: f64) {
        if self.sleeping {
            self.start_activity(at, rank, SLEEPING, seconds);
        }
    }

    fn sleep_end(&mut self, at: f64, rank: usize) {
        if self.sleeping {
            self.end_activity(at, rank);
        }
    }

    fn call_location(&mut self, rank: usize, file: &Rc<str>, line: u32) {
        if let Some(l) = self.locations.get_mut(rank) {
            *l = Some((Rc::clone(file), line));
        }
    }

    fn finish(&mut self, end: f64) -> io::Result<()> {
        // Ranks still there (the run stopped early) end with it.
        for rank in 0..self.containers.len() {
            self.destroy(end, rank);
        }
        self.flush_events();
        if let Some((host_type, link_type)) = self.types.machine {
            let p = self.precision;
            let mut lines = String::new();
            let hosts = std::mem::take(&mut self.host_containers).map(|cid| (host_type, cid));
            let links = std::mem::take(&mut self.link_directions).map(|cid| (link_type, cid));
            for (kind, cid) in hosts.chain(links) {
                let _ = writeln!(lines, "7 {end:.p$} {kind} {cid}");
            }
            self.define(&lines);
        }
        if let Err(e) = self.out.flush() {
            self.error.get_or_insert(e);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_names_are_in_the_order_of_simgrids_map() {
        assert!(COLORS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn states_are_named_and_coloured_as_simgrid_does() {
        for (call, name, colour) in [
            ("MPI_Init", "PMPI_Init", "0 1 0"),
            ("MPI_Init_thread", "PMPI_Init", "0 1 0"),
            ("MPI_Send", "PMPI_Send", "0 0 1"),
            ("MPI_Rsend", "PMPI_Send", "0 0 1"),
            ("MPI_Send_c", "PMPI_Send", "0 0 1"),
            ("MPI_Irsend", "PMPI_Isend", "0.52 0.52 1"),
            ("MPI_Irecv", "PMPI_Irecv", "1 0.52 0.52"),
            ("MPI_Ssend", "PMPI_Ssend", "0 0 1"),
            ("MPI_Issend", "PMPI_Issend", "0 0 1"),
            ("MPI_Sendrecv", "PMPI_Sendrecv", "0 1 1"),
            ("MPI_Sendrecv_replace", "PMPI_Sendrecv", "0 1 1"),
            ("MPI_Waitall", "PMPI_Waitall", "0.78 0.78 0"),
            ("MPI_Waitany", "PMPI_Waitany", "0.78 0.78 0.58"),
            ("MPI_Test", "PMPI_Test", "0.52 0.52 0"),
            ("MPI_Allgather", "PMPI_Allgather", "1 0 0"),
            ("MPI_Allgatherv", "PMPI_Allgatherv", "1 0.52 0.52"),
            ("MPI_Reduce_scatter", "PMPI_Reduce_scatter", "0 1 0"),
            (
                "MPI_Reduce_scatter_block",
                "PMPI_Reduce_scatter_block",
                "0 1 0",
            ),
            ("MPI_Scatterv", "PMPI_Scatterv", "0.52 0 0.52"),
            ("MPI_Exscan", "PMPI_Exscan", "1 0.54 0.25"),
            ("MPI_Finalize", "PMPI_Finalize", "0 1 0"),
            ("MPI_Comm_split", "PMPI_Comm_split", "0.5 0.5 0.5"),
        ] {
            assert_eq!(state_name(call), name);
            assert_eq!(color(name), colour, "{name}");
        }
        assert_eq!(color("computing"), "0 1 1");
    }

    fn options(display_sizes: bool, comment: &str) -> Options {
        Options {
            file: PathBuf::new(),
            precision: 6,
            comment: comment.into(),
            comment_file: None,
            display_sizes,
            computing: false,
            sleeping: false,
            call_location: false,
            grouped: false,
            resources: false,
        }
    }

    /// The prologue and the types of a trace.
    fn head(options: &Options, command: &[String]) -> String {
        prologue(options, command, "") + &types(options).0
    }

    /// What SimGrid 3.32's smpirun wrote after its two first lines for
    /// `-trace` (tests/c/trace_pattern.c): the event definitions and the
    /// types; with `tracing/smpi/display-sizes` for the second.
    const SIMGRID: &str = include_str!("testdata/simgrid_header.txt");
    const SIMGRID_SIZES: &str = include_str!("testdata/simgrid_header_sizes.txt");

    #[test]
    fn the_prologue_is_simgrids() {
        let command = ["smpirun".to_string(), "-np".into(), "4".into()];
        let text = head(&options(false, ""), &command);
        let want =
            format!("#This file was generated using SimGrid-3.32.0\n#[smpirun -np 4 ]\n{SIMGRID}");
        assert_eq!(text, want);
        let text = head(&options(true, "a run"), &command);
        let want = format!(
            "#This file was generated using SimGrid-3.32.0\n#[smpirun -np 4 ]\n# a run\n{SIMGRID_SIZES}"
        );
        assert_eq!(text, want);
    }

    #[test]
    fn definitions_and_keys_are_simgrids() {
        assert_eq!(
            value_line(6, 2, "PMPI_Init", color("PMPI_Init")),
            "5 6 2 PMPI_Init \"0 1 0\"\n"
        );
        assert_eq!(key(0, 1, 12345, 1), "1_2_12345_1");
    }

    /// Grouped, the ranks' type is in `HOST`; with resources, the
    /// machine's types carry their variables; SimGrid's five types keep
    /// their ids without the machine.
    #[test]
    fn the_machines_types_nest_the_ranks_and_carry_the_variables() {
        let plain = types(&options(false, "")).1;
        assert_eq!(
            (plain.rank, plain.state, plain.link, plain.first_value),
            (1, 2, 3, 6)
        );
        assert!(plain.machine.is_none() && plain.variables.is_none());
        let grouped = Options {
            grouped: true,
            ..options(false, "")
        };
        let (text, t) = types(&grouped);
        assert!(text.starts_with("0 1 0 HOST\n0 2 1 MPI\n2 3 2 MPI_STATE\n4 4 0 2 2 MPI_LINK\n"));
        assert_eq!(
            (t.machine, t.variables, t.first_value),
            (Some((1, 7)), None, 8)
        );
        let resources = Options {
            resources: true,
            ..options(false, "")
        };
        let (text, t) = types(&resources);
        // SimGrid's ids.
        assert!(text.contains(
            "\n0 6 0 HOST\n1 7 6 speed \"1 1 1\"\n1 8 6 core_count \"1 1 1\"\n\
             1 9 6 speed_used \"0.5 0.5 0.5\"\n0 10 0 LINK\n"
        ));
        assert!(text.ends_with("1 13 10 bandwidth_used \"0.5 0.5 0.5\"\n"));
        assert_eq!(
            (t.rank, t.variables, t.first_value),
            (1, Some([7, 8, 9, 11, 12, 13]), 14)
        );
    }
}
