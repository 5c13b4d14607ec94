//! A reference executor: runs the schedules of every rank of a communicator
//! together, on real data, with the strictest matching semantics.
//!
//! * Elements are token sequences (`Vec<u64>`); the reduction operation is
//!   concatenation `inout = input ++ inout`, which is associative but not
//!   commutative, so the final sequence shows exactly which contributions
//!   were combined, how many times, and in which order.
//! * Messages are synchronous (rendezvous): a send completes only when the
//!   matching receive is posted, so a schedule that would deadlock with
//!   large messages deadlocks here. Matching is FIFO per ordered pair.
//! * Every access is bounds-checked against buffers sized exactly as MPI
//!   implies, the send buffer must never be written, the blocks of one
//!   round must not race (a received block overlapping another received or
//!   sent block), local operations must not overlap, and each send must
//!   have the same count as its receive (the tests use one datatype).
//!
//! Any violation or a deadlock panics, failing the test.

use std::collections::{HashMap, VecDeque};

use crate::schedule::{Block, Buf, Comm, Local, Schedule};

/// One element: a sequence of tokens.
pub type Elem = Vec<u64>;

/// Initial content of receive-buffer elements the collective must fill.
pub const UNSET: u64 = u64::MAX;
/// Initial content of scratch elements.
pub const GARBAGE: u64 = u64::MAX - 1;

/// Token for element `j` of rank `r`'s data.
pub fn tok(r: usize, j: usize) -> u64 {
    ((r as u64) << 32) | j as u64
}

/// `n` elements of rank `r`'s contribution: element j is `[tok(r, j)]`.
pub fn contrib(r: usize, n: usize) -> Vec<Elem> {
    (0..n).map(|j| vec![tok(r, j)]).collect()
}

/// `n` unset elements.
pub fn unset(n: usize) -> Vec<Elem> {
    vec![vec![UNSET]; n]
}

/// The memory of one rank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mem {
    pub send: Vec<Elem>,
    pub recv: Vec<Elem>,
    pub tmp: Vec<Vec<Elem>>,
}

impl Mem {
    pub fn new(send: Vec<Elem>, recv: Vec<Elem>) -> Self {
        Mem {
            send,
            recv,
            tmp: Vec::new(),
        }
    }

    fn buf(&self, rank: usize, b: Buf) -> &Vec<Elem> {
        match b {
            Buf::Send => &self.send,
            Buf::Recv => &self.recv,
            Buf::Tmp(i) => self
                .tmp
                .get(i as usize)
                .unwrap_or_else(|| panic!("rank {rank}: scratch {i} not declared")),
        }
    }

    fn read(&self, rank: usize, blk: &Block) -> Vec<Elem> {
        let v = self.buf(rank, blk.buf);
        assert!(
            blk.end() <= v.len(),
            "rank {rank}: read {blk:?} out of range (buffer has {} elements)",
            v.len()
        );
        v[blk.offset..blk.end()].to_vec()
    }

    fn write(&mut self, rank: usize, blk: &Block, data: Vec<Elem>) {
        assert_eq!(data.len(), blk.count);
        let v = match blk.buf {
            Buf::Send => {
                assert!(
                    blk.count == 0,
                    "rank {rank}: writes the send buffer {blk:?}"
                );
                return;
            }
            Buf::Recv => &mut self.recv,
            Buf::Tmp(i) => self
                .tmp
                .get_mut(i as usize)
                .unwrap_or_else(|| panic!("rank {rank}: scratch {i} not declared")),
        };
        assert!(
            blk.end() <= v.len(),
            "rank {rank}: write {blk:?} out of range (buffer has {} elements)",
            v.len()
        );
        for (dst, src) in v[blk.offset..blk.end()].iter_mut().zip(data) {
            *dst = src;
        }
    }

    fn apply(&mut self, rank: usize, op: &Local) {
        match op {
            Local::Copy { from, to } => {
                assert_eq!(
                    from.count, to.count,
                    "rank {rank}: copy count mismatch {op:?}"
                );
                assert!(!from.overlaps(to), "rank {rank}: overlapping copy {op:?}");
                let data = self.read(rank, from);
                self.write(rank, to, data);
            }
            Local::Reduce { input, inout } => {
                assert_eq!(
                    input.count, inout.count,
                    "rank {rank}: reduce count mismatch"
                );
                assert!(
                    !input.overlaps(inout),
                    "rank {rank}: overlapping reduce {op:?}"
                );
                let a = self.read(rank, input);
                let b = self.read(rank, inout);
                let res = a
                    .into_iter()
                    .zip(b)
                    .map(|(mut x, y)| {
                        x.extend(y);
                        x
                    })
                    .collect();
                self.write(rank, inout, res);
            }
        }
    }
}

/// Checks that no block received in a round overlaps another block of the
/// same round (received or sent): the engine may move them in any order.
fn check_round_races(rank: usize, comm: &[Comm]) {
    let mut writes: Vec<&Block> = comm
        .iter()
        .filter_map(|c| match c {
            Comm::Recv { data, .. } if data.count > 0 => Some(data),
            _ => None,
        })
        .collect();
    writes.sort_by_key(|b| (b.buf, b.offset));
    for w in writes.windows(2) {
        assert!(
            !w[0].overlaps(w[1]),
            "rank {rank}: two receives of one round overlap: {:?} {:?}",
            w[0],
            w[1]
        );
    }
    for c in comm {
        if let Comm::Send { data, .. } = c {
            // Writes are disjoint and sorted: binary search the first write
            // ending after the read's start.
            let i = writes.partition_point(|w| (w.buf, w.end()) <= (data.buf, data.offset));
            if let Some(w) = writes.get(i) {
                assert!(
                    !w.overlaps(data),
                    "rank {rank}: a send reads {data:?} while a receive of the same round writes {w:?}"
                );
            }
        }
    }
}

/// The operations of one ordered pair not matched yet, with the round
/// each is due in.
#[derive(Default)]
struct Chan {
    sends: VecDeque<(Block, usize)>,
    recvs: VecDeque<(Block, usize)>,
}

/// Runs all schedules to completion; panics on any violation or deadlock.
pub fn run(scheds: &[Schedule], mems: &mut [Mem]) {
    run_late(scheds, mems, None);
}

/// Like [`run`], but rank `late` (if any) only starts once every other rank
/// is blocked or finished. Returns which ranks had finished by then.
pub fn run_late(scheds: &[Schedule], mems: &mut [Mem], late: Option<usize>) -> Vec<bool> {
    let p = scheds.len();
    assert_eq!(p, mems.len());
    for (m, s) in mems.iter_mut().zip(scheds) {
        m.tmp = s.tmp.iter().map(|&n| vec![vec![GARBAGE]; n]).collect();
    }
    let mut cur = vec![0usize; p];
    let mut posted = vec![false; p];
    // Per rank: round -> operations due in it and not complete yet.
    let mut due: Vec<HashMap<usize, usize>> = vec![HashMap::new(); p];
    let mut chans: HashMap<(usize, usize), Chan> = HashMap::new();
    let mut work: VecDeque<usize> = (0..p).filter(|&r| Some(r) != late).collect();
    let mut finished_before_late = Vec::new();
    let mut late = late;

    loop {
        while let Some(r) = work.pop_front() {
            while let Some(round) =
                (cur[r] < scheds[r].round_count()).then(|| scheds[r].round(cur[r]))
            {
                if !posted[r] {
                    posted[r] = true;
                    check_round_races(r, &round.comm);
                    let ops = round
                        .comm
                        .iter()
                        .map(|c| (c, cur[r]))
                        .chain(round.deferred.iter().map(|(c, d)| (c, cur[r] + d)));
                    for (c, when) in ops {
                        assert!(
                            when < scheds[r].round_count(),
                            "rank {r}: {c:?} is due after the last round"
                        );
                        *due[r].entry(when).or_default() += 1;
                        let peer = c.peer();
                        assert!(peer < p, "rank {r}: peer {peer} out of range");
                        assert_ne!(peer, r, "rank {r}: message to itself");
                        // Match with the oldest opposite operation of the
                        // pair, or queue.
                        let (key, matched) = match c {
                            Comm::Send { to, data } => {
                                let ch = chans.entry((r, *to)).or_default();
                                match ch.recvs.pop_front() {
                                    Some(rb) => ((r, *to), Some(((*data, when), rb))),
                                    None => {
                                        ch.sends.push_back((*data, when));
                                        ((r, *to), None)
                                    }
                                }
                            }
                            Comm::Recv { from, data } => {
                                let ch = chans.entry((*from, r)).or_default();
                                match ch.sends.pop_front() {
                                    Some(sb) => ((*from, r), Some((sb, (*data, when)))),
                                    None => {
                                        ch.recvs.push_back((*data, when));
                                        ((*from, r), None)
                                    }
                                }
                            }
                        };
                        if let Some(((sb, s_when), (rb, r_when))) = matched {
                            let (src, dst) = key;
                            assert_eq!(
                                sb.count, rb.count,
                                "message {src}->{dst}: send {sb:?} vs receive {rb:?}"
                            );
                            let data = mems[src].read(src, &sb);
                            mems[dst].write(dst, &rb, data);
                            for (x, when) in [(src, s_when), (dst, r_when)] {
                                let n = due[x].get_mut(&when).expect("counted when posted");
                                *n -= 1;
                                if *n == 0 && x != r && when == cur[x] {
                                    work.push_back(x);
                                }
                            }
                        }
                    }
                }
                if due[r].get(&cur[r]).is_some_and(|&n| n > 0) {
                    break;
                }
                for op in round.local {
                    mems[r].apply(r, op);
                }
                cur[r] += 1;
                posted[r] = false;
            }
        }
        match late.take() {
            Some(l) => {
                finished_before_late = (0..p).map(|r| cur[r] == scheds[r].round_count()).collect();
                work.push_back(l);
            }
            None => break,
        }
    }

    let stuck: Vec<String> = (0..p)
        .filter(|&r| cur[r] < scheds[r].round_count())
        .map(|r| {
            format!(
                "rank {r} in round {}: {:?}",
                cur[r],
                scheds[r].round(cur[r]).comm
            )
        })
        .collect();
    assert!(stuck.is_empty(), "deadlock:\n{}", stuck.join("\n"));
    for ((s, d), ch) in &chans {
        assert!(
            ch.sends.is_empty() && ch.recvs.is_empty(),
            "unmatched operations between {s} and {d}"
        );
    }
    finished_before_late
}

/// Builds every rank's schedule and memory, runs them, returns the
/// memories (scratch included).
pub fn run_all(
    size: usize,
    sched: impl Fn(usize) -> Schedule,
    mem: impl Fn(usize) -> Mem,
) -> Vec<Mem> {
    let scheds: Vec<Schedule> = (0..size).map(&sched).collect();
    let mut mems: Vec<Mem> = (0..size).map(mem).collect();
    run(&scheds, &mut mems);
    mems
}
