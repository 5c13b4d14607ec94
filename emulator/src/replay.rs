//! Offline replay of time-independent traces (`smpirun -replay INDEX`):
//! each rank reads its file of actions (SimGrid's format, `trace::ti`) and
//! performs them through the MPI layer, on scratch buffers, with every
//! model and collective option of a live run. No program is loaded.
//!
//! As SimGrid 3.32 replays (`src/smpi/internals/smpi_replay.cpp`):
//! collectives run on `MPI_COMM_WORLD`; sizes are element counts of the
//! datatype given (SimGrid's numbers; a derived type, -1, has size 0);
//! `wait` takes the oldest pending request of its `src dst tag`; at the end
//! of its file a rank waits for its pending requests. Unlike SimGrid, a
//! receive from -333 (a trace's `MPI_ANY_SOURCE`) matches any source
//! instead of deadlocking, and a last line without a newline is read.
//!
//! Files are read in chunks, reopened each time, so that a replay of
//! thousands of ranks holds no open file per rank.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::engine::context::{self, RankCoroutine};
use crate::mpi::check::ArgArray;
use crate::mpi::collective::{self, Data, Reduce, VData};
use crate::mpi::{self, p2p, request, Message, MpiResult, ReqId, SendMode};
use crate::sim::{self, Coroutine, RankFactory};
use crate::trace::{self, NO_PEER};

/// Bytes read from a rank's file at a time.
const CHUNK: usize = 64 << 10;

/// A trace's index could not be used.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read the trace index {path}: {error}")]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(
        "the trace index {path} lists {files} file(s), one per rank, and {ranks} ranks are \
         asked for (-np): give at most {files} ranks"
    )]
    TooFewFiles {
        path: PathBuf,
        files: usize,
        ranks: usize,
    },
    #[error(
        "the trace index {path} lists one file for {ranks} ranks: traces of all ranks in one \
         file (tracing/smpi/format/ti-one-file) cannot be replayed yet"
    )]
    SharedFile { path: PathBuf, ranks: usize },
}

/// The per-rank files an index lists (its non-empty lines, as SimGrid
/// reads them), for `ranks` ranks.
pub fn read_index(index: &Path, ranks: usize) -> Result<Vec<PathBuf>, IndexError> {
    let text = std::fs::read_to_string(index).map_err(|error| IndexError::Read {
        path: index.to_path_buf(),
        error,
    })?;
    let files: Vec<PathBuf> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect();
    if files.len() == 1 && ranks > 1 {
        return Err(IndexError::SharedFile {
            path: index.to_path_buf(),
            ranks,
        });
    }
    if files.len() < ranks {
        return Err(IndexError::TooFewFiles {
            path: index.to_path_buf(),
            files: files.len(),
            ranks,
        });
    }
    Ok(files)
}

/// Makes the replaying ranks.
pub struct Replayer {
    files: Vec<PathBuf>,
    stack_bytes: usize,
    /// `compute` and reductions' computations run
    /// (`smpi/simulate-computation`).
    simulate: bool,
}

impl Replayer {
    pub fn new(files: Vec<PathBuf>, stack_bytes: usize, simulate: bool) -> Self {
        Self {
            files,
            stack_bytes,
            simulate,
        }
    }
}

impl RankFactory for Replayer {
    fn create(&mut self, rank: usize) -> Result<(RankCoroutine, (usize, usize)), String> {
        let stack = crate::run::main_stack(self.stack_bytes, rank)?;
        let guard = stack.guard();
        let path = self.files[rank].clone();
        let simulate = self.simulate;
        Ok((
            context::spawn(stack, move || replay_rank(rank, &path, simulate)),
            guard,
        ))
    }

    fn spawn(&mut self, rank: usize, body: crate::actors::Body) -> Result<Coroutine, String> {
        crate::run::spawn_actor(self.stack_bytes, rank, body)
    }
}

/// A rank's file, read line by line in chunks.
struct Lines {
    path: PathBuf,
    /// Where the next chunk starts.
    offset: u64,
    chunk: Vec<u8>,
    /// Where the next line starts in `chunk`.
    at: usize,
    eof: bool,
    /// The number of the line last returned.
    number: usize,
}

impl Lines {
    fn new(path: &Path) -> Self {
        Self {
            path: path.to_path_buf(),
            offset: 0,
            chunk: Vec::new(),
            at: 0,
            eof: false,
            number: 0,
        }
    }

    /// The next line, without its newline.
    fn next_line(&mut self) -> std::io::Result<Option<String>> {
        loop {
            if let Some(end) = self.chunk[self.at..].iter().position(|&b| b == b'\n') {
                let line = String::from_utf8_lossy(&self.chunk[self.at..self.at + end]).into();
                self.at += end + 1;
                self.number += 1;
                return Ok(Some(line));
            }
            if self.eof {
                if self.at < self.chunk.len() {
                    let line = String::from_utf8_lossy(&self.chunk[self.at..]).into();
                    self.at = self.chunk.len();
                    self.number += 1;
                    return Ok(Some(line));
                }
                return Ok(None);
            }
            self.chunk.drain(..self.at);
            self.at = 0;
            let mut f = File::open(&self.path)?;
            f.seek(SeekFrom::Start(self.offset))?;
            // At most a chunk, and no more than the file holds: a rank's
            // file is often a few lines, and thousands of ranks read at
            // once.
            let n = f.take(CHUNK as u64).read_to_end(&mut self.chunk)?;
            self.offset += n as u64;
            self.eof = n == 0;
            if self.eof {
                self.chunk.shrink_to_fit();
            }
        }
    }
}

/// Counts given as an array argument.
struct Counts(Vec<i32>);

impl ArgArray<i32> for Counts {
    fn read(&self, n: usize, _what: &'static str) -> MpiResult<Vec<i32>> {
        let mut v: Vec<i32> = self.0.iter().copied().take(n).collect();
        v.resize(n, 0);
        Ok(v)
    }
}

/// A replaying rank's state.
struct Rank {
    rank: usize,
    size: usize,
    simulate: bool,
    /// The datatype of actions that give none: MPI_BYTE, or MPI_DOUBLE
    /// when `init` has an argument (SimGrid's "TAU" and "MPE" traces).
    default_type: i32,
    /// Pending requests by (src, dst, tag), oldest first.
    pending: HashMap<(i32, i32, i32), VecDeque<ReqId>>,
    /// Scratch buffers, grown as needed (never freed: requests may still
    /// point into an older one): small ones on the heap, large ones
    /// folded (`SMPI_SHARED_MALLOC`'s pages, shared by every rank).
    send_buf: (usize, usize),
    recv_buf: (usize, usize),
    small: Vec<Box<[u64]>>,
}

/// Scratch buffers up to this size are the rank's own heap memory.
const SMALL_BUFFER: usize = 64 << 10;

/// An action that cannot be replayed, with why.
type Failure = String;

fn replay_rank(rank: usize, path: &Path, simulate: bool) -> i32 {
    let size = sim::with(|s| s.core.size());
    let mut r = Rank {
        rank,
        size,
        simulate,
        default_type: mpi::datatype::BYTE,
        pending: HashMap::new(),
        send_buf: (0, 0),
        recv_buf: (0, 0),
        small: Vec::new(),
    };
    let mut lines = Lines::new(path);
    loop {
        let line = match lines.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(e) => fail(&format!("cannot read the trace {}: {e}", path.display())),
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0].starts_with('#') {
            continue;
        }
        // SimGrid ignores, with a warning, lines for another rank.
        if words[0].parse::<usize>().ok() != Some(rank) {
            continue;
        }
        let Some(&action) = words.get(1) else {
            continue;
        };
        if let Err(why) = r.perform(action, &words[2..]) {
            fail(&format!(
                "{}:{}: rank {rank}: cannot replay '{}': {why}",
                path.display(),
                lines.number,
                line.trim()
            ));
        }
    }
    let ids: Vec<ReqId> = r.pending.drain().flat_map(|(_, q)| q).collect();
    r.wait_all(ids);
    if sim::mpi(|w| w.mpi.finalization_barrier) {
        let _ = collective::barrier(mpi::COMM_WORLD);
    }
    0
}

/// Ends the replay with `message` (a trace that cannot be replayed).
fn fail(message: &str) -> ! {
    eprintln!("smpirun: {message}");
    crate::abi::abort_simulation(1)
}

/// An integer argument: SimGrid's parse_integer, strtod truncated (so
/// 1e6 is accepted).
fn int(words: &[&str], i: usize, what: &str) -> Result<i64, Failure> {
    float(words, i, what).map(|v| v.trunc() as i64)
}

fn float(words: &[&str], i: usize, what: &str) -> Result<f64, Failure> {
    let w = words
        .get(i)
        .ok_or_else(|| format!("the {what} (argument {}) is missing", i + 1))?;
    w.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("the {what} '{w}' is not a number"))
}

fn count(v: i64) -> Result<i32, Failure> {
    i32::try_from(v.max(0)).map_err(|_| format!("the count {v} is too large"))
}

impl Rank {
    /// The datatype of SimGrid's number at `words[i]`, or the default;
    /// a derived type (-1) has no size: its counts become 0.
    fn dtype(&self, words: &[&str], i: usize) -> Result<(i32, bool), Failure> {
        match words.get(i) {
            None => Ok((self.default_type, true)),
            Some(_) => {
                let id = int(words, i, "datatype")?;
                let id = i32::try_from(id).map_err(|_| format!("no datatype {id}"))?;
                if id == -1 {
                    return Ok((mpi::datatype::BYTE, false));
                }
                trace::type_of_simgrid(id)
                    .map(|t| (t, true))
                    .ok_or_else(|| format!("no datatype numbered {id} in SimGrid 3.32"))
            }
        }
    }

    fn type_size(t: i32) -> usize {
        sim::mpi(|w| {
            usize::try_from(t)
                .ok()
                .and_then(|i| w.mpi.datatypes.get(i).cloned().flatten())
                .map_or(1, |d| d.size)
        })
    }

    /// A scratch buffer of at least `bytes` (`send` or receive side).
    fn buffer(&mut self, send: bool, bytes: usize) -> usize {
        let slot = if send {
            &mut self.send_buf
        } else {
            &mut self.recv_buf
        };
        if slot.1 < bytes.max(1) {
            let len = bytes.max(64).next_power_of_two();
            let addr = if len <= SMALL_BUFFER {
                let words = vec![0u64; len / 8].into_boxed_slice();
                let addr = words.as_ptr() as usize;
                self.small.push(words);
                addr
            } else {
                sim::with(|s| s.mem.folding.allocate(len, "replay", 0))
                    .unwrap_or_else(|e| fail(&format!("no memory for a replay buffer: {e}")))
                    as usize
            };
            *slot = (addr, len);
        }
        slot.0
    }

    fn world_peer(&self, words: &[&str], i: usize) -> Result<i32, Failure> {
        let p = int(words, i, "peer")?;
        if p == i64::from(NO_PEER) {
            return Ok(mpi::ANY_SOURCE);
        }
        match usize::try_from(p) {
            Ok(p) if p < self.size => Ok(p as i32),
            _ => Err(format!("no rank {p} among {} ranks", self.size)),
        }
    }

    /// A point-to-point message: `peer tag count [type]`.
    fn message(&mut self, words: &[&str], send: bool) -> Result<Message, Failure> {
        let peer = self.world_peer(words, 0)?;
        if send && peer == mpi::ANY_SOURCE {
            return Err("a send to rank -333 (MPI_PROC_NULL when traced)".into());
        }
        let tag = i32::try_from(int(words, 1, "tag")?).map_err(|_| "the tag is too large")?;
        let n = int(words, 2, "count")?;
        let (datatype, sized) = self.dtype(words, 3)?;
        let n = if sized { n.max(0) } else { 0 };
        let bytes = usize::try_from(n).unwrap_or(0) * Self::type_size(datatype);
        Ok(Message {
            buf: self.buffer(send, bytes),
            count: n,
            datatype,
            peer,
            tag,
            comm: mpi::COMM_WORLD,
        })
    }

    fn key_of(&self, m: &Message, send: bool) -> (i32, i32, i32) {
        let me = self.rank as i32;
        let peer = if m.peer == mpi::ANY_SOURCE {
            NO_PEER
        } else {
            m.peer
        };
        if send {
            (me, peer, m.tag)
        } else {
            (peer, me, m.tag)
        }
    }

    fn wait_all(&mut self, ids: Vec<ReqId>) {
        if ids.is_empty() {
            return;
        }
        mpi::wait_for(&ids, "waitall", |w| {
            ids.iter().all(|&id| mpi::is_complete(w, id))
        });
        for id in ids {
            request::take_completed(id);
        }
    }

    /// One-count collective buffers: `(send, recv)` data of `sc` and `rc`
    /// elements, the receive side `n` blocks long.
    fn data_pair(
        &mut self,
        sc: i64,
        st: (i32, bool),
        rc: i64,
        rt: (i32, bool),
        blocks: usize,
    ) -> Result<(Data, Data), Failure> {
        let sc = if st.1 { count(sc)? } else { 0 };
        let rc = if rt.1 { count(rc)? } else { 0 };
        let sbytes = sc as usize * Self::type_size(st.0) * blocks;
        let rbytes = rc as usize * Self::type_size(rt.0) * blocks;
        let send = Data {
            addr: self.buffer(true, sbytes),
            count: sc,
            dtype: st.0,
        };
        let recv = Data {
            addr: self.buffer(false, rbytes),
            count: rc,
            dtype: rt.0,
        };
        Ok((send, recv))
    }

    /// A reduction of `count` elements of `t` (SimGrid replays them with
    /// MPI_OP_NULL: the operator does not matter, its cost is the given
    /// computation).
    fn reduction(&mut self, n: i64, t: (i32, bool)) -> Result<Reduce, Failure> {
        let n = if t.1 { count(n)? } else { 0 };
        let bytes = n as usize * Self::type_size(t.0);
        let op = if t.0 == mpi::datatype::BYTE {
            mpi::op::Builtin::Bor as i32
        } else {
            mpi::op::Builtin::Max as i32
        };
        Ok(Reduce {
            send: self.buffer(true, bytes),
            recv: self.buffer(false, bytes),
            count: n,
            dtype: t.0,
            op,
        })
    }

    fn compute(&self, flops: f64) {
        if self.simulate {
            sim::execute(flops, "compute");
        }
    }

    /// `size` counts starting at `words[from]`.
    fn counts(&self, words: &[&str], from: usize, what: &str) -> Result<Vec<i32>, Failure> {
        (from..from + self.size)
            .map(|i| int(words, i, what).and_then(count))
            .collect()
    }

    /// Performs `action` with its arguments `words`.
    fn perform(&mut self, action: &str, words: &[&str]) -> Result<(), Failure> {
        let world = mpi::COMM_WORLD;
        let n = self.size;
        let mpi_err = |e: mpi::MpiError| e.message;
        match action {
            "init" => {
                if !words.is_empty() {
                    self.default_type = mpi::datatype::DOUBLE;
                }
            }
            "finalize" | "comm_size" | "comm_split" | "comm_dup" | "location" => {}
            // What SimGrid's traces write of MPI_Testall/any/some: the
            // name alone, no request to test (SimGrid's replay refuses
            // them; the waits that follow replay the completions).
            "testall" | "testany" | "testsome" => {}
            "compute" => self.compute(float(words, 0, "flops")?),
            "sleep" => sim::sleep(float(words, 0, "duration")?, "sleep"),
            "send" | "isend" => {
                let m = self.message(words, true)?;
                if action == "send" {
                    mpi::as_call(|| p2p::send(&m, SendMode::Standard, "send")).map_err(mpi_err)?;
                } else {
                    let id =
                        mpi::as_call(|| p2p::isend(&m, SendMode::Standard)).map_err(mpi_err)?;
                    let key = self.key_of(&m, true);
                    self.pending.entry(key).or_default().push_back(id);
                }
            }
            "recv" | "irecv" => {
                let m = self.message(words, false)?;
                if action == "recv" {
                    mpi::as_call(|| p2p::recv(&m, "recv")).map_err(mpi_err)?;
                } else {
                    let id = mpi::as_call(|| p2p::irecv(&m)).map_err(mpi_err)?;
                    let key = self.key_of(&m, false);
                    self.pending.entry(key).or_default().push_back(id);
                }
            }
            "wait" | "test" => {
                let src = i32::try_from(int(words, 0, "source")?).unwrap_or(NO_PEER);
                let dst = i32::try_from(int(words, 1, "destination")?).unwrap_or(NO_PEER);
                let tag = i32::try_from(int(words, 2, "tag")?).unwrap_or(0);
                let Some(id) = self
                    .pending
                    .get_mut(&(src, dst, tag))
                    .and_then(VecDeque::pop_front)
                else {
                    return Ok(());
                };
                if action == "wait" {
                    self.wait_all(vec![id]);
                } else {
                    if mpi::poll::test(id, "MPI_Test") {
                        request::take_completed(id);
                    } else {
                        self.pending
                            .entry((src, dst, tag))
                            .or_default()
                            .push_front(id);
                    }
                }
            }
            "waitall" => {
                let ids: Vec<ReqId> = self.pending.drain().flat_map(|(_, q)| q).collect();
                let mut ids = ids;
                ids.sort_unstable();
                self.wait_all(ids);
            }
            "sendRecv" => {
                let sc = int(words, 0, "send count")?;
                let dst = self.world_peer(words, 1)?;
                let rc = int(words, 2, "receive count")?;
                let src = self.world_peer(words, 3)?;
                let st = self.dtype(words, 4)?;
                let rt = self.dtype(words, 5)?;
                let (s, r) = self.data_pair(sc, st, rc, rt, 1)?;
                let send = Message {
                    buf: s.addr,
                    count: i64::from(s.count),
                    datatype: s.dtype,
                    peer: dst,
                    tag: 0,
                    comm: world,
                };
                let recv = Message {
                    buf: r.addr,
                    count: i64::from(r.count),
                    datatype: r.dtype,
                    peer: src,
                    tag: 0,
                    comm: world,
                };
                mpi::as_call(|| p2p::sendrecv(&send, &recv)).map_err(mpi_err)?;
            }
            "barrier" => mpi::as_call(|| collective::barrier(world)).map_err(mpi_err)?,
            "bcast" => {
                let c = int(words, 0, "count")?;
                let root = self.root(words, 1)?;
                let t = self.dtype(words, 2)?;
                let (d, _) = self.data_pair(c, t, 0, t, 1)?;
                mpi::as_call(|| collective::bcast(world, d, root)).map_err(mpi_err)?;
            }
            "reduce" => {
                let c = int(words, 0, "count")?;
                let flops = float(words, 1, "computation")?;
                let root = self.root(words, 2)?;
                let red = self.reduction(c, self.dtype(words, 3)?)?;
                mpi::as_call(|| collective::reduce(world, &red, root)).map_err(mpi_err)?;
                self.compute(flops);
            }
            "allreduce" | "scan" | "exscan" => {
                let c = int(words, 0, "count")?;
                let flops = float(words, 1, "computation")?;
                let red = self.reduction(c, self.dtype(words, 2)?)?;
                mpi::as_call(|| match action {
                    "allreduce" => collective::allreduce(world, &red),
                    "scan" => collective::scan(world, &red),
                    _ => collective::exscan(world, &red),
                })
                .map_err(mpi_err)?;
                self.compute(flops);
            }
            "alltoall" | "allgather" => {
                let sc = int(words, 0, "send count")?;
                let rc = int(words, 1, "receive count")?;
                let st = self.dtype(words, 2)?;
                let rt = self.dtype(words, 3)?;
                let (s, r) = self.data_pair(sc, st, rc, rt, n)?;
                mpi::as_call(|| {
                    if action == "alltoall" {
                        collective::alltoall(world, s, r)
                    } else {
                        collective::allgather(world, s, r)
                    }
                })
                .map_err(mpi_err)?;
            }
            "gather" | "scatter" => {
                let sc = int(words, 0, "send count")?;
                let rc = int(words, 1, "receive count")?;
                let root = self.root(words, 2)?;
                let st = self.dtype(words, 3)?;
                let rt = self.dtype(words, 4)?;
                let (s, r) = self.data_pair(sc, st, rc, rt, n)?;
                mpi::as_call(|| {
                    if action == "gather" {
                        collective::gather(world, s, r, root)
                    } else {
                        collective::scatter(world, s, r, root)
                    }
                })
                .map_err(mpi_err)?;
            }
            "gatherv" | "allgatherv" => {
                let sc = int(words, 0, "send count")?;
                let rcs = self.counts(words, 1, "receive count")?;
                let (root, types_at) = if action == "gatherv" {
                    (self.root(words, 1 + n)?, 2 + n)
                } else {
                    (0, 1 + n)
                };
                let st = self.dtype(words, types_at)?;
                let rt = self.dtype(words, types_at + 1)?;
                let rb = Blocks::new(rcs, rt);
                let (s, r) = self.data_pair(sc, st, rb.total, rt, 1)?;
                let v = rb.of(&r);
                mpi::as_call(|| {
                    if action == "gatherv" {
                        collective::gatherv(world, s, &v, root)
                    } else {
                        collective::allgatherv(world, s, &v)
                    }
                })
                .map_err(mpi_err)?;
            }
            "scatterv" => {
                let scs = self.counts(words, 0, "send count")?;
                let rc = int(words, n, "receive count")?;
                let root = self.root(words, n + 1)?;
                let st = self.dtype(words, n + 2)?;
                let rt = self.dtype(words, n + 3)?;
                let sb = Blocks::new(scs, st);
                let (s, r) = self.data_pair(sb.total, st, rc, rt, 1)?;
                let v = sb.of(&s);
                mpi::as_call(|| collective::scatterv(world, &v, r, root)).map_err(mpi_err)?;
            }
            "reducescatter" => {
                let rcs = self.counts(words, 0, "receive count")?;
                let flops = float(words, n, "computation")?;
                let t = self.dtype(words, n + 1)?;
                let total: i64 = rcs.iter().map(|&c| i64::from(c)).sum();
                let red = self.reduction(total, t)?;
                let rcs = if t.1 { rcs } else { vec![0; n] };
                let counts = Counts(rcs);
                mpi::as_call(|| collective::reduce_scatter(world, &red, &counts))
                    .map_err(mpi_err)?;
                self.compute(flops);
            }
            "alltoallv" => {
                let scs = self.counts(words, 1, "send count")?;
                let rcs = self.counts(words, n + 2, "receive count")?;
                let st = self.dtype(words, 2 * n + 2)?;
                let rt = self.dtype(words, 2 * n + 3)?;
                let (sb, rb) = (Blocks::new(scs, st), Blocks::new(rcs, rt));
                let (s, r) = self.data_pair(sb.total, st, rb.total, rt, 1)?;
                let (send, recv) = (sb.of(&s), rb.of(&r));
                mpi::as_call(|| collective::alltoallv(world, &send, &recv)).map_err(mpi_err)?;
            }
            other => {
                return Err(format!(
                    "'{other}' is not an action SimGrid 3.32 replays (its traces write \
                     waitAny, Ssend, non-blocking collectives and one-sided calls, which \
                     no replay knows)"
                ))
            }
        }
        Ok(())
    }

    /// The root at `words[i]`, 0 when absent (SimGrid's default).
    fn root(&self, words: &[&str], i: usize) -> Result<i32, Failure> {
        if words.get(i).is_none() {
            return Ok(0);
        }
        let r = int(words, i, "root")?;
        match usize::try_from(r) {
            Ok(r) if r < self.size => Ok(r as i32),
            _ => Err(format!("no root {r} among {} ranks", self.size)),
        }
    }
}

/// One side of a collective of per-rank counts: the blocks laid end to
/// end in a scratch buffer (none for a derived type, which has no size).
struct Blocks {
    counts: Counts,
    displs: Counts,
    /// The elements of all blocks, as the trace gives them.
    total: i64,
}

impl Blocks {
    fn new(counts: Vec<i32>, (_, sized): (i32, bool)) -> Self {
        let total = counts.iter().map(|&c| i64::from(c)).sum();
        let counts = if sized { counts } else { vec![0; counts.len()] };
        let mut at = 0i32;
        let displs = counts
            .iter()
            .map(|&c| {
                let d = at;
                at = at.saturating_add(c);
                d
            })
            .collect();
        Self {
            counts: Counts(counts),
            displs: Counts(displs),
            total,
        }
    }

    /// The blocks in `buffer`, of its datatype.
    fn of(&self, buffer: &Data) -> VData<'_> {
        VData {
            addr: buffer.addr,
            counts: &self.counts,
            displs: &self.displs,
            dtype: buffer.dtype,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_is_read_as_simgrid_reads_it_and_its_errors_say_it_once() {
        let dir = std::env::temp_dir().join(format!("smpi-rs-replay-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let index = dir.join("index.txt");
        std::fs::write(&index, "a.txt\n\n  b.txt  \nc.txt").unwrap();
        let files = read_index(&index, 3).unwrap();
        assert_eq!(files, ["a.txt", "b.txt", "c.txt"].map(PathBuf::from));
        let short = read_index(&index, 4).unwrap_err().to_string();
        assert!(
            short.contains("lists 3 file(s), one per rank, and 4 ranks"),
            "{short}"
        );
        let missing = dir.join("missing.txt");
        let e = read_index(&missing, 1).unwrap_err();
        // The I/O error is in the message, not also a source that anyhow
        // would print a second time.
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(e.to_string().matches("No such file").count(), 1, "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lines_come_in_chunks_with_a_last_line_without_newline() {
        let dir = std::env::temp_dir().join(format!("smpi-rs-lines-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("rank.txt");
        let long: String = (0..20_000).map(|i| format!("0 compute {i}\n")).collect();
        std::fs::write(&file, format!("{long}0 finalize")).unwrap();
        let mut lines = Lines::new(&file);
        let mut n = 0;
        let mut last = String::new();
        while let Some(l) = lines.next_line().unwrap() {
            n += 1;
            last = l;
        }
        assert_eq!(
            (n, last.as_str(), lines.number),
            (20_001, "0 finalize", 20_001)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
