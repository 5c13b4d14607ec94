//! Perfetto traces (`--cfg=tracing/smpi/format:perfetto`): a timeline for
//! the Perfetto UI (ui.perfetto.dev). One process track per host, one
//! thread track per rank under it; a slice per MPI call with its
//! arguments (peer, tag, count, datatype, root: SimGrid's `Traced`
//! description), a slice per computation with its flops, and flow arrows
//! from each traced send to the call that takes its message out of a
//! completed receive (a blocking receive, a wait, a test).
//!
//! The file is a `perfetto.protos.Trace`: a sequence of `TracePacket`s,
//! each written as field 1 of the outer message, so packets stream to the
//! file as they come. Protobuf's wire format is simple enough to write by
//! hand (varints and length-delimited fields); the field numbers are those
//! of Perfetto's `perfetto_trace.proto`, which the tests check by decoding
//! with Perfetto's own Python schema. Names (calls, argument names) are
//! interned: each is sent once in the packet's `InternedData` and then
//! referred to by number.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{Args, Traced, Tracer};
use crate::engine::observe::Observer;

/// The one packet sequence of the trace (any non-zero number).
const SEQUENCE: u64 = 1;

// Field numbers of perfetto_trace.proto.
const TRACE_PACKET: u32 = 1;
const PACKET_TIMESTAMP: u32 = 8;
const PACKET_SEQUENCE_ID: u32 = 10;
const PACKET_TRACK_EVENT: u32 = 11;
const PACKET_INTERNED_DATA: u32 = 12;
const PACKET_SEQUENCE_FLAGS: u32 = 13;
const PACKET_TRACK_DESCRIPTOR: u32 = 60;
const TRACK_UUID: u32 = 1;
const TRACK_NAME: u32 = 2;
const TRACK_PROCESS: u32 = 3;
const TRACK_THREAD: u32 = 4;
const TRACK_PARENT: u32 = 5;
const TRACK_COUNTER: u32 = 8;
const PROCESS_PID: u32 = 1;
const PROCESS_NAME: u32 = 6;
const THREAD_PID: u32 = 1;
const THREAD_TID: u32 = 2;
const THREAD_NAME: u32 = 5;
const EVENT_ANNOTATIONS: u32 = 4;
const EVENT_TYPE: u32 = 9;
const EVENT_NAME_IID: u32 = 10;
const EVENT_TRACK: u32 = 11;
const EVENT_FLOWS: u32 = 47;
const EVENT_TERMINATING_FLOWS: u32 = 48;
const EVENT_DOUBLE_COUNTER: u32 = 44;
const ANNOTATION_NAME_IID: u32 = 1;
const ANNOTATION_INT: u32 = 4;
const ANNOTATION_DOUBLE: u32 = 5;
const ANNOTATION_STRING: u32 = 6;
const INTERNED_EVENT_NAMES: u32 = 2;
const INTERNED_ANNOTATION_NAMES: u32 = 3;
const INTERNED_IID: u32 = 1;
const INTERNED_NAME: u32 = 2;

const SLICE_BEGIN: u64 = 1;
const SLICE_END: u64 = 2;
const INSTANT: u64 = 3;
const COUNTER: u64 = 4;
/// SEQ_INCREMENTAL_STATE_CLEARED: the first packet, which starts interning.
const STATE_CLEARED: u64 = 1;
/// SEQ_NEEDS_INCREMENTAL_STATE: packets that use interned names.
const NEEDS_STATE: u64 = 2;

/// A protobuf message being built.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint((u64::from(field) << 3) | u64::from(wire));
    }

    fn uint(&mut self, field: u32, v: u64) -> &mut Self {
        self.key(field, 0);
        self.varint(v);
        self
    }

    /// An int32/int64 field (two's complement, as protobuf's `int64`).
    fn int(&mut self, field: u32, v: i64) -> &mut Self {
        self.uint(field, v as u64)
    }

    fn double(&mut self, field: u32, v: f64) -> &mut Self {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    fn fixed64(&mut self, field: u32, v: u64) -> &mut Self {
        self.key(field, 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    fn bytes(&mut self, field: u32, b: &[u8]) -> &mut Self {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }

    fn string(&mut self, field: u32, s: &str) -> &mut Self {
        self.bytes(field, s.as_bytes())
    }

    fn message(&mut self, field: u32, m: &Message) -> &mut Self {
        self.bytes(field, &m.0)
    }
}

/// Where a rank runs, for its track.
#[derive(Debug, Clone)]
pub struct RankHost {
    /// The host's index in the platform.
    pub index: usize,
    pub name: String,
}

/// Writes a Perfetto trace.
pub struct PerfettoWriter {
    out: BufWriter<File>,
    /// Interned strings (event and annotation names share the numbering).
    interned: HashMap<&'static str, u64>,
    /// Flows of messages sent and not yet received, by (src, dst, tag),
    /// oldest first (MPI's order between two ranks with one tag).
    flows: HashMap<(usize, usize, i32), VecDeque<u64>>,
    /// The algorithms each rank's current collective call chose so far
    /// ("allreduce rdb"), written on its slice's end.
    algorithms: HashMap<usize, String>,
    next_flow: u64,
    /// The link directions whose counter track is described.
    counted: std::collections::HashSet<u32>,
    error: Option<io::Error>,
}

/// The uuid of a host's process track and of a rank's thread track.
fn host_track(index: usize) -> u64 {
    (1 << 40) + index as u64
}

fn rank_track(rank: usize) -> u64 {
    (2 << 40) + rank as u64
}

/// The uuid of a link direction's counter track.
fn link_track(resource: u32) -> u64 {
    (3 << 40) + u64::from(resource)
}

/// Nanoseconds of simulated date `at` (Perfetto's timestamps).
fn nanos(at: f64) -> u64 {
    (at * 1e9).round().max(0.0) as u64
}

impl PerfettoWriter {
    /// A writer into `path` of ranks placed on `hosts` (one per rank).
    pub fn new(path: &Path, hosts: &[RankHost]) -> io::Result<Self> {
        let mut w = Self {
            out: BufWriter::new(File::create(path)?),
            interned: HashMap::new(),
            flows: HashMap::new(),
            algorithms: HashMap::new(),
            next_flow: 1,
            counted: std::collections::HashSet::new(),
            error: None,
        };
        let mut first = true;
        let mut described = std::collections::HashSet::new();
        for (rank, host) in hosts.iter().enumerate() {
            if described.insert(host.index) {
                let mut process = Message::default();
                process
                    .int(PROCESS_PID, host.index as i64 + 1)
                    .string(PROCESS_NAME, &host.name);
                let mut track = Message::default();
                track
                    .uint(TRACK_UUID, host_track(host.index))
                    .message(TRACK_PROCESS, &process);
                w.descriptor(&track, &mut first)?;
            }
            let mut thread = Message::default();
            thread
                .int(THREAD_PID, host.index as i64 + 1)
                .int(THREAD_TID, rank as i64 + 1)
                .string(THREAD_NAME, &format!("rank {rank}"));
            let mut track = Message::default();
            track
                .uint(TRACK_UUID, rank_track(rank))
                .string(TRACK_NAME, &format!("rank {rank}"))
                .uint(TRACK_PARENT, host_track(host.index))
                .message(TRACK_THREAD, &thread);
            w.descriptor(&track, &mut first)?;
        }
        Ok(w)
    }

    fn descriptor(&mut self, track: &Message, first: &mut bool) -> io::Result<()> {
        let mut p = Message::default();
        p.uint(PACKET_SEQUENCE_ID, SEQUENCE);
        if std::mem::take(first) {
            p.uint(PACKET_SEQUENCE_FLAGS, STATE_CLEARED);
        }
        p.message(PACKET_TRACK_DESCRIPTOR, track);
        self.packet(&p)
    }

    fn packet(&mut self, p: &Message) -> io::Result<()> {
        let mut outer = Message::default();
        outer.message(TRACE_PACKET, p);
        self.out.write_all(&outer.0)
    }

    /// The number of `name`, interning it into `interned` if new.
    fn iid(&mut self, name: &'static str, field: u32, interned: &mut Message) -> u64 {
        if let Some(&i) = self.interned.get(name) {
            return i;
        }
        let i = self.interned.len() as u64 + 1;
        self.interned.insert(name, i);
        let mut entry = Message::default();
        entry.uint(INTERNED_IID, i).string(INTERNED_NAME, name);
        interned.message(field, &entry);
        i
    }

    /// Writes one event of `kind` on `rank`'s track at `at`.
    fn event(&mut self, e: Event<'_>) {
        let mut interned = Message::default();
        let mut ev = Message::default();
        ev.uint(EVENT_TYPE, e.kind)
            .uint(EVENT_TRACK, rank_track(e.rank));
        if let Some(name) = e.name {
            let i = self.iid(name, INTERNED_EVENT_NAMES, &mut interned);
            ev.uint(EVENT_NAME_IID, i);
        }
        for &(name, value) in e.ints {
            let a = self.annotation(name, &mut interned, |a| {
                a.int(ANNOTATION_INT, value);
            });
            ev.message(EVENT_ANNOTATIONS, &a);
        }
        if let Some((name, value)) = e.double {
            let a = self.annotation(name, &mut interned, |a| {
                a.double(ANNOTATION_DOUBLE, value);
            });
            ev.message(EVENT_ANNOTATIONS, &a);
        }
        if let Some((name, value)) = &e.text {
            let a = self.annotation(name, &mut interned, |a| {
                a.string(ANNOTATION_STRING, value);
            });
            ev.message(EVENT_ANNOTATIONS, &a);
        }
        if let Some(f) = e.flow {
            ev.fixed64(EVENT_FLOWS, f);
        }
        if let Some(f) = e.terminating_flow {
            ev.fixed64(EVENT_TERMINATING_FLOWS, f);
        }
        self.track_event(e.at, &ev, &interned);
    }

    /// A debug annotation named `name` (interned into `interned` if new),
    /// whose value `value` writes.
    fn annotation(
        &mut self,
        name: &'static str,
        interned: &mut Message,
        value: impl FnOnce(&mut Message),
    ) -> Message {
        let i = self.iid(name, INTERNED_ANNOTATION_NAMES, interned);
        let mut a = Message::default();
        a.uint(ANNOTATION_NAME_IID, i);
        value(&mut a);
        a
    }

    /// Writes track event `ev` at `at`, with the names it interns.
    fn track_event(&mut self, at: f64, ev: &Message, interned: &Message) {
        let mut p = Message::default();
        p.uint(PACKET_TIMESTAMP, nanos(at))
            .uint(PACKET_SEQUENCE_ID, SEQUENCE)
            .uint(PACKET_SEQUENCE_FLAGS, NEEDS_STATE);
        if !interned.0.is_empty() {
            p.message(PACKET_INTERNED_DATA, interned);
        }
        p.message(PACKET_TRACK_EVENT, ev);
        if let Err(err) = self.packet(&p) {
            self.error.get_or_insert(err);
        }
    }
}

/// One track event to write.
struct Event<'a> {
    at: f64,
    rank: usize,
    kind: u64,
    name: Option<&'static str>,
    ints: &'a [(&'static str, i64)],
    double: Option<(&'static str, f64)>,
    text: Option<(&'static str, String)>,
    flow: Option<u64>,
    terminating_flow: Option<u64>,
}

impl Event<'_> {
    fn new(at: f64, rank: usize, kind: u64) -> Self {
        Self {
            at,
            rank,
            kind,
            name: None,
            ints: &[],
            double: None,
            text: None,
            flow: None,
            terminating_flow: None,
        }
    }
}

/// A call's arguments as named integers (SimGrid's description: counts
/// in elements, datatypes by SimGrid's numbers, peers as world ranks).
fn annotations(args: &Args) -> Vec<(&'static str, i64)> {
    match args {
        Args::None => Vec::new(),
        Args::Amount(a) => vec![("count", *a as i64)],
        Args::P2p {
            peer,
            tag,
            count,
            dtype,
        } => vec![
            ("peer", i64::from(*peer)),
            ("tag", i64::from(*tag)),
            ("count", *count),
            ("datatype", i64::from(*dtype)),
        ],
        Args::SendRecv {
            send_count,
            dst,
            recv_count,
            src,
            ..
        } => vec![
            ("dst", i64::from(*dst)),
            ("send count", *send_count),
            ("src", i64::from(*src)),
            ("recv count", *recv_count),
        ],
        Args::Wait { src, dst, tag } => vec![
            ("src", i64::from(*src)),
            ("dst", i64::from(*dst)),
            ("tag", i64::from(*tag)),
        ],
        Args::Coll(c) => {
            let mut v = vec![("send count", c.send_size as i64)];
            if c.recv_size > 0 {
                v.push(("recv count", c.recv_size as i64));
            }
            if c.root >= 0 {
                v.push(("root", i64::from(c.root)));
            }
            v
        }
        Args::VarColl(c) => {
            let mut v = Vec::new();
            let total = |s: i64, counts: &Option<Vec<i64>>| {
                if s >= 0 {
                    s
                } else {
                    counts.iter().flatten().sum()
                }
            };
            v.push(("send count", total(c.send_size, &c.send_counts)));
            v.push(("recv count", total(c.recv_size, &c.recv_counts)));
            if c.root >= 0 {
                v.push(("root", i64::from(c.root)));
            }
            v
        }
    }
}

impl Observer for PerfettoWriter {
    fn compute_start(&mut self, at: f64, rank: usize, flops: f64) {
        let mut e = Event::new(at, rank, SLICE_BEGIN);
        e.name = Some("compute");
        e.double = Some(("flops", flops));
        self.event(e);
    }

    fn compute_end(&mut self, at: f64, rank: usize) {
        self.event(Event::new(at, rank, SLICE_END));
    }

    fn link_load(&mut self, at: f64, load: &crate::engine::observe::LinkLoad<'_>) {
        let track = link_track(load.resource);
        if self.counted.insert(load.resource) {
            let mut d = Message::default();
            d.uint(TRACK_UUID, track)
                .string(
                    TRACK_NAME,
                    &format!("{} ({}) utilisation", load.link, load.direction),
                )
                .message(TRACK_COUNTER, &Message::default());
            if let Err(e) = self.descriptor(&d, &mut false) {
                self.error.get_or_insert(e);
            }
        }
        let mut ev = Message::default();
        ev.uint(EVENT_TYPE, COUNTER)
            .uint(EVENT_TRACK, track)
            .double(EVENT_DOUBLE_COUNTER, load.utilisation);
        self.track_event(at, &ev, &Message::default());
    }
}

impl Tracer for PerfettoWriter {
    fn call_enter(&mut self, at: f64, rank: usize, name: &'static str, traced: Option<&Traced>) {
        let ints = traced
            .map(|t| {
                let mut v = annotations(&t.args);
                if t.bytes > 0 {
                    v.push(("bytes", i64::try_from(t.bytes).unwrap_or(i64::MAX)));
                }
                v
            })
            .unwrap_or_default();
        let mut e = Event::new(at, rank, SLICE_BEGIN);
        e.name = Some(name);
        e.ints = &ints;
        e.text = traced
            .and_then(|t| t.comm)
            .map(|c| ("communicator", crate::mpi::comm_name(c)));
        // A message to a rank starts an arrow, which its receive ends.
        if let Some(sent) = traced.and_then(|t| t.sent) {
            let f = self.next_flow;
            self.next_flow += 1;
            self.flows
                .entry((rank, sent.dst, sent.tag))
                .or_default()
                .push_back(f);
            e.flow = Some(f);
        }
        self.event(e);
    }

    fn call_exit(&mut self, at: f64, rank: usize, _name: &'static str, _code: i32) {
        let mut e = Event::new(at, rank, SLICE_END);
        // Known only once the call chose them: on the end of its slice,
        // whose arguments Perfetto merges with its beginning's.
        e.text = self
            .algorithms
            .remove(&rank)
            .map(|chosen| ("algorithm", chosen));
        self.event(e);
    }

    fn algorithm(
        &mut self,
        _at: f64,
        rank: usize,
        collective: &'static str,
        algorithm: &'static str,
    ) {
        let chosen = self.algorithms.entry(rank).or_default();
        if !chosen.is_empty() {
            chosen.push_str(", ");
        }
        chosen.push_str(collective);
        chosen.push(' ');
        chosen.push_str(algorithm);
    }

    fn received(&mut self, at: f64, rank: usize, src: usize, tag: i32) {
        // The message is taken out of its receive: its arrow ends here.
        if let Some(f) = self
            .flows
            .get_mut(&(src, rank, tag))
            .and_then(VecDeque::pop_front)
        {
            let mut e = Event::new(at, rank, INSTANT);
            e.name = Some("message received");
            e.terminating_flow = Some(f);
            self.event(e);
        }
    }

    fn finish(&mut self, _end: f64) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_are_protobufs() {
        let mut m = Message::default();
        m.uint(1, 150);
        assert_eq!(m.0, [0x08, 0x96, 0x01]);
        let mut m = Message::default();
        m.string(2, "testing");
        assert_eq!(m.0, b"\x12\x07testing");
        let mut m = Message::default();
        m.int(4, -1);
        assert_eq!(m.0.len(), 11, "a negative int64 takes ten bytes");
        let mut m = Message::default();
        m.fixed64(47, 1);
        assert_eq!(m.0[..2], [0xf9, 0x02]);
    }

    #[test]
    fn dates_are_nanoseconds() {
        assert_eq!(nanos(1.5e-6), 1500);
        assert_eq!(nanos(2.0), 2_000_000_000);
    }
}
