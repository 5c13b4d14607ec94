//! The schedule vocabulary shared by every algorithm and by the engine.
//!
//! A [`Schedule`] is what one rank does during one collective: a sequence of
//! [`Round`]s. Each round posts all its point-to-point operations at once
//! (in the listed order), waits for all of them, then applies its local
//! operations in order. The engine runs blocking and non-blocking
//! collectives from the same schedules.
//!
//! # Datatypes
//!
//! Block offsets and counts are in *elements*, never bytes. Which datatype an
//! element is depends on the buffer the block lives in:
//!
//! * [`Buf::Send`] blocks are in elements of the **send** datatype;
//! * [`Buf::Recv`] and [`Buf::Tmp`] blocks are in elements of the **receive**
//!   datatype (for reductions, scans and broadcasts there is only one
//!   datatype, so both are the same).
//!
//! So a message may carry `n` send-type elements on one side and `m`
//! receive-type elements on the other (MPI only requires the type signatures
//! to match), and a [`Local::Copy`] from a `Send` block to a `Recv` block
//! converts between the two types. The engine turns elements into bytes with
//! each datatype's extent and packs non-contiguous types.
//!
//! # Message matching
//!
//! Within one collective, messages between the same ordered pair of ranks
//! are matched in posting order (the engine gives every collective a private
//! context and guarantees non-overtaking). Every schedule in this crate posts
//! the sends of a pair in the same order as the peer posts the matching
//! receives, and each send has the same element count as its receive when
//! both sides use the same datatype.

/// Which buffer a block lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Buf {
    /// The caller's send buffer (send-datatype elements). Never written.
    Send,
    /// The caller's receive buffer (receive-datatype elements). For
    /// `MPI_Bcast` this is the single in/out buffer, at every rank.
    Recv,
    /// Scratch buffer `i`, allocated by the engine for the duration of the
    /// collective with [`Schedule::tmp`]`[i]` receive-datatype elements. Its
    /// initial content is unspecified: schedules always write before reading.
    Tmp(u32),
}

impl Buf {
    /// The block of `count` elements starting `offset` elements into this
    /// buffer.
    pub const fn block(self, offset: usize, count: usize) -> Block {
        Block {
            buf: self,
            offset,
            count,
        }
    }
}

/// A contiguous run of `count` elements starting `offset` elements into `buf`.
///
/// Offsets are never negative: when MPI displacements are negative the
/// engine rebases the buffer pointer by the smallest displacement first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Block {
    /// The buffer holding the block.
    pub buf: Buf,
    /// First element, counted from the start of `buf`.
    pub offset: usize,
    /// Number of elements.
    pub count: usize,
}

impl Block {
    /// One past the last element of the block.
    pub const fn end(&self) -> usize {
        self.offset + self.count
    }

    /// The `count` elements starting `offset` elements into this block.
    pub const fn sub(&self, offset: usize, count: usize) -> Block {
        Block {
            buf: self.buf,
            offset: self.offset + offset,
            count,
        }
    }

    /// Whether the two blocks share at least one element.
    pub fn overlaps(&self, other: &Block) -> bool {
        self.buf == other.buf
            && self.count > 0
            && other.count > 0
            && self.offset < other.end()
            && other.offset < self.end()
    }
}

/// Where each rank's block lies in a buffer, in elements: blocks of one
/// size one after the other, or per-rank counts and displacements.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Layout<'a> {
    /// Rank i's block is the i-th of this many elements each.
    Uniform(usize),
    /// Rank i's block is `counts[i]` elements at `displs[i]`.
    PerRank {
        counts: &'a [usize],
        displs: &'a [usize],
    },
}

impl Layout<'_> {
    /// The elements of rank `i`'s block.
    pub(crate) fn count(&self, i: usize) -> usize {
        match *self {
            Layout::Uniform(n) => n,
            Layout::PerRank { counts, .. } => counts[i],
        }
    }

    /// The element rank `i`'s block starts at.
    pub(crate) fn displ(&self, i: usize) -> usize {
        match *self {
            Layout::Uniform(n) => i * n,
            Layout::PerRank { displs, .. } => displs[i],
        }
    }

    /// Rank `i`'s block of `buf`.
    pub(crate) fn block(&self, buf: Buf, i: usize) -> Block {
        buf.block(self.displ(i), self.count(i))
    }
}

/// A point-to-point operation of a round. Peers are ranks in the
/// communicator and are never the calling rank itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comm {
    /// Send the content of `data` to rank `to`.
    Send {
        /// Destination rank.
        to: usize,
        /// What to send.
        data: Block,
    },
    /// Receive from rank `from` into `data`.
    Recv {
        /// Source rank.
        from: usize,
        /// Where the message lands.
        data: Block,
    },
}

impl Comm {
    /// The peer rank.
    pub fn peer(&self) -> usize {
        match self {
            Comm::Send { to, .. } => *to,
            Comm::Recv { from, .. } => *from,
        }
    }

    /// The block sent or received.
    pub fn block(&self) -> &Block {
        match self {
            Comm::Send { data, .. } | Comm::Recv { data, .. } => data,
        }
    }
}

/// A local operation, applied after all of its round's communications
/// completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Local {
    /// Copy `from` into `to`. The blocks never overlap. `from.count` and
    /// `to.count` are each in their own buffer's datatype (see the module
    /// documentation) and describe the same type signature.
    Copy {
        /// Source block.
        from: Block,
        /// Destination block.
        to: Block,
    },
    /// `inout = input (op) inout`, element-wise, exactly like an MPI user
    /// function called as `f(invec = input, inoutvec = inout)`. For
    /// non-commutative operations every schedule in this crate arranges that
    /// `input` holds the contribution of the lower-ranked processes, so the
    /// final result is `x0 op x1 op ... op x(p-1)`. The two blocks never
    /// overlap and always have the same count.
    Reduce {
        /// The left operand (`invec`).
        input: Block,
        /// The right operand (`inoutvec`), overwritten with the result.
        inout: Block,
    },
}

/// One round: post all `comm` at once (in this order), then all `deferred`;
/// wait for every operation of `comm` and for the deferred operations of
/// earlier rounds that are due in this one; then apply `local` in order.
/// `comm` may be empty (a purely local step, or one that only waits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round<'a> {
    /// Operations posted together.
    pub comm: Ops<'a>,
    /// Operations applied in order once every operation due in this round
    /// completed.
    pub local: &'a [Local],
    /// Operations posted after `comm` that may stay in flight: `(op, d)`
    /// completes by the end of the round `d` (at least 1) rounds after
    /// this one, before that round's locals. This is how pipelines post
    /// the receive of the next segment before waiting for the current one,
    /// as MPI implementations do. A block in flight is not touched by the
    /// rounds in between, and nothing is due after the last round.
    pub deferred: &'a [(Comm, usize)],
}

/// A round's communications, read as a slice: stored in the schedule, or
/// generated when the round is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ops<'a> {
    /// Kept in the schedule's list.
    Stored(&'a [Comm]),
    /// A send and a receive worked out from the round's number.
    Exchange([Comm; 2]),
}

impl std::ops::Deref for Ops<'_> {
    type Target = [Comm];

    fn deref(&self) -> &[Comm] {
        match self {
            Ops::Stored(ops) => ops,
            Ops::Exchange(ops) => ops,
        }
    }
}

/// Where a round's operations end in the schedule's flat lists (they
/// start where the previous round's end).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Ends {
    comm: u32,
    local: u32,
    deferred: u32,
}

/// Rounds that follow the stored ones and are worked out when asked for:
/// in step i (1 to `size` - 1), a send of the calling rank's block for
/// rank `rank` XOR i and a receive of that rank's block, blocks laid out
/// one after the other (`send` and `recv` elements each), in the send and
/// the receive buffer. This is SimGrid's pair-wise all-to-all, which
/// takes one round per peer: stored, its rounds would cost every rank
/// memory in proportion to the ranks, and every round read a cache miss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct XorExchanges {
    rank: usize,
    size: usize,
    send: usize,
    recv: usize,
}

impl XorExchanges {
    fn steps(&self) -> usize {
        self.size.saturating_sub(1)
    }

    /// The operations of step `i` (from 1).
    fn step(&self, i: usize) -> [Comm; 2] {
        let peer = self.rank ^ i;
        [
            Comm::Send {
                to: peer,
                data: Buf::Send.block(peer * self.send, self.send),
            },
            Comm::Recv {
                from: peer,
                data: Buf::Recv.block(peer * self.recv, self.recv),
            },
        ]
    }
}

/// Everything one rank does for one collective call.
///
/// The rounds' operations sit in three flat lists, in round order, rather
/// than in vectors of their own: an all-to-all schedules one round per
/// peer, and thousands of ranks run theirs at once, one round at a time
/// each, so every round read is a cache miss; one list read in order keeps
/// them few, and building costs no allocation per round. Rounds that
/// follow a rule may instead be generated when read (see `XorExchanges`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Schedule {
    /// Element count (receive datatype) of each scratch buffer
    /// [`Buf::Tmp`]`(i)`.
    pub tmp: Vec<usize>,
    ends: Vec<Ends>,
    comm: Vec<Comm>,
    local: Vec<Local>,
    deferred: Vec<(Comm, usize)>,
    /// Rounds generated after the stored ones.
    tail: Option<XorExchanges>,
}

impl Schedule {
    /// Whether the rank has nothing at all to do.
    pub fn is_empty(&self) -> bool {
        self.round_count() == 0
    }

    /// The number of rounds, executed one after the other.
    pub fn round_count(&self) -> usize {
        self.ends.len() + self.tail.map_or(0, |t| t.steps())
    }

    /// Round `r`.
    ///
    /// # Panics
    /// If there is no round `r`.
    pub fn round(&self, r: usize) -> Round<'_> {
        if r >= self.ends.len() {
            let tail = self.tail.as_ref().expect("a round of the schedule");
            let i = r - self.ends.len() + 1;
            assert!(i <= tail.steps(), "a round of the schedule");
            return Round {
                comm: Ops::Exchange(tail.step(i)),
                local: &[],
                deferred: &[],
            };
        }
        let start = if r == 0 {
            Ends::default()
        } else {
            self.ends[r - 1]
        };
        let end = self.ends[r];
        let span = |a: u32, b: u32| a as usize..b as usize;
        Round {
            comm: Ops::Stored(&self.comm[span(start.comm, end.comm)]),
            local: &self.local[span(start.local, end.local)],
            deferred: &self.deferred[span(start.deferred, end.deferred)],
        }
    }

    /// The rounds, in order.
    pub fn rounds(&self) -> impl Iterator<Item = Round<'_>> + '_ {
        (0..self.round_count()).map(|r| self.round(r))
    }

    /// Total number of point-to-point operations over all rounds.
    pub fn comm_count(&self) -> usize {
        self.comm.len() + self.deferred.len() + 2 * self.tail.map_or(0, |t| t.steps())
    }

    /// Iterates over every block referenced by the schedule (communications
    /// and local operations).
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        let tail = self
            .tail
            .iter()
            .flat_map(|t| (1..=t.steps()).flat_map(|i| t.step(i)));
        self.comm
            .iter()
            .copied()
            .chain(self.deferred.iter().map(|&(c, _)| c))
            .chain(tail)
            .map(|c| *c.block())
            .chain(self.local.iter().flat_map(|l| {
                let (a, b) = match *l {
                    Local::Copy { from, to } => (from, to),
                    Local::Reduce { input, inout } => (input, inout),
                };
                [a, b]
            }))
    }

    /// One past the highest element of `buf` the schedule touches (0 when it
    /// never touches it). Useful to check user buffers before running.
    pub fn extent(&self, buf: Buf) -> usize {
        self.blocks()
            .filter(|b| b.buf == buf && b.count > 0)
            .map(|b| b.end())
            .max()
            .unwrap_or(0)
    }

    /// Appends a round of these operations.
    fn push_round(
        &mut self,
        comm: impl IntoIterator<Item = Comm>,
        local: impl IntoIterator<Item = Local>,
        deferred: impl IntoIterator<Item = (Comm, usize)>,
    ) {
        self.store_tail();
        self.comm.extend(comm);
        self.local.extend(local);
        self.deferred.extend(deferred);
        let end = |n: usize| u32::try_from(n).expect("fewer than 2^32 operations in a schedule");
        self.ends.push(Ends {
            comm: end(self.comm.len()),
            local: end(self.local.len()),
            deferred: end(self.deferred.len()),
        });
    }

    /// Turns generated rounds into stored ones, so that more can follow.
    fn store_tail(&mut self) {
        if let Some(tail) = self.tail.take() {
            for i in 1..=tail.steps() {
                self.push_round(tail.step(i), [], []);
            }
        }
    }
}

/// Incremental construction of a [`Schedule`]; lets algorithms be composed
/// (e.g. allreduce = reduce then bcast) by appending phases.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    sched: Schedule,
}

impl Builder {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Allocates a scratch buffer of `count` elements.
    pub(crate) fn tmp(&mut self, count: usize) -> Buf {
        let id = u32::try_from(self.sched.tmp.len()).expect("fewer than 2^32 scratch buffers");
        self.sched.tmp.push(count);
        Buf::Tmp(id)
    }

    /// Appends a round; empty rounds are dropped.
    pub(crate) fn round(&mut self, comm: Vec<Comm>, local: Vec<Local>) {
        if !comm.is_empty() || !local.is_empty() {
            self.sched.push_round(comm, local, []);
        }
    }

    /// Appends a round that posts `comm`, then `deferred` to complete by
    /// the end of the round `d` rounds later (see [`Round::deferred`]),
    /// then applies `local`.
    /// Never dropped: a round that only waits is a step of the pipeline.
    pub(crate) fn round_deferring(
        &mut self,
        comm: Vec<Comm>,
        local: Vec<Local>,
        deferred: Vec<(Comm, usize)>,
    ) {
        debug_assert!(deferred.iter().all(|&(_, d)| d >= 1));
        self.sched.push_round(comm, local, deferred);
    }

    /// Appends SimGrid's pair-wise exchange steps: in step i = 1 ..
    /// `size` - 1, a send of block `rank` XOR i of the send buffer to that
    /// rank and a receive of its block into the same block of the receive
    /// buffer (blocks of `send` and `recv` elements). The rounds are
    /// generated when read, not stored.
    pub(crate) fn xor_exchanges(&mut self, rank: usize, size: usize, send: usize, recv: usize) {
        self.sched.store_tail();
        self.sched.tail = Some(XorExchanges {
            rank,
            size,
            send,
            recv,
        });
    }

    /// Appends a local operation to run after everything scheduled so far.
    /// Attaching it to the last round is equivalent to a new communication-
    /// free round (locals run after the round's communications) and keeps
    /// schedules short.
    pub(crate) fn local(&mut self, op: Local) {
        let sched = &mut self.sched;
        sched.store_tail();
        match sched.ends.last_mut() {
            // The last round's locals are the last of the list.
            Some(last) => {
                sched.local.push(op);
                last.local += 1;
            }
            None => sched.push_round([], [op], []),
        }
    }

    /// Appends a copy unless it would be a no-op.
    pub(crate) fn copy(&mut self, from: Block, to: Block) {
        if from != to {
            self.local(Local::Copy { from, to });
        }
    }

    /// Appends `sub`, a schedule built for a sub-communicator whose rank
    /// `i` is rank `peers[i]` here: its peers are renamed, its scratch
    /// buffers become new scratch buffers of this schedule, and `place`
    /// maps its other blocks (`Buf::Send`, `Buf::Recv` of the
    /// sub-collective) to blocks of this one. This is how an algorithm runs
    /// a phase on the ranks of one host, or on one rank per host.
    pub(crate) fn splice(
        &mut self,
        sub: Schedule,
        peers: &[usize],
        place: impl Fn(Block) -> Block,
    ) {
        self.splice_renaming(sub, |p| peers[p], place);
    }

    /// Appends `sub`, a schedule of another collective on the same
    /// communicator (one algorithm calling another), as
    /// [`Self::splice`] does, the peers unchanged.
    pub(crate) fn append(&mut self, sub: Schedule, place: impl Fn(Block) -> Block) {
        self.splice_renaming(sub, |p| p, place);
    }

    fn splice_renaming(
        &mut self,
        sub: Schedule,
        peer: impl Fn(usize) -> usize,
        place: impl Fn(Block) -> Block,
    ) {
        let first = u32::try_from(self.sched.tmp.len()).expect("fewer than 2^32 scratch buffers");
        self.sched.tmp.extend_from_slice(&sub.tmp);
        let map = |blk: Block| match blk.buf {
            Buf::Tmp(i) => Buf::Tmp(first + i).block(blk.offset, blk.count),
            _ => place(blk),
        };
        let rename = |c: Comm| match c {
            Comm::Send { to, data } => Comm::Send {
                to: peer(to),
                data: map(data),
            },
            Comm::Recv { from, data } => Comm::Recv {
                from: peer(from),
                data: map(data),
            },
        };
        for r in sub.rounds() {
            self.sched.push_round(
                r.comm.iter().cloned().map(rename),
                r.local.iter().map(|l| match *l {
                    Local::Copy { from, to } => Local::Copy {
                        from: map(from),
                        to: map(to),
                    },
                    Local::Reduce { input, inout } => Local::Reduce {
                        input: map(input),
                        inout: map(inout),
                    },
                }),
                r.deferred.iter().cloned().map(|(c, d)| (rename(c), d)),
            );
        }
    }

    pub(crate) fn finish(mut self) -> Schedule {
        // A schedule lives as long as its collective, on every rank at
        // once: no capacity left over from growing it.
        let s = &mut self.sched;
        s.tmp.shrink_to_fit();
        s.ends.shrink_to_fit();
        s.comm.shrink_to_fit();
        s.local.shrink_to_fit();
        s.deferred.shrink_to_fit();
        self.sched
    }
}

/// Shorthand constructors used by the algorithms.
pub(crate) fn send(to: usize, data: Block) -> Comm {
    Comm::Send { to, data }
}

pub(crate) fn recv(from: usize, data: Block) -> Comm {
    Comm::Recv { from, data }
}
