//! Where a communicator's ranks run, for SimGrid's SMP-aware ("two-level")
//! algorithms, and the exchanges SimGrid makes to learn it.
//!
//! SimGrid derives, the first time one of these algorithms runs on a
//! communicator (`Comm::init_smp`), an *intra-node* communicator per host
//! (the communicator's ranks on that host) and a *leaders* communicator
//! (the first rank of each host). It learns them with real messages, which
//! take simulated time: [`smp_init`] is that exchange, which the engine runs
//! once per communicator before the first such algorithm.
//!
//! Ranks are ordered as SimGrid orders actors: by process id, which is the
//! rank in `MPI_COMM_WORLD`. The intra-node communicator of a host lists
//! its ranks in that order; the leader of a host is its first rank, and the
//! leaders communicator lists the leaders in that order.

use crate::allgather::allgather_with;
use crate::bcast::bcast_with;
use crate::error::{check_rank, CollError};
use crate::params::{Blocks, Position, Reduction, RootedPosition, Tuning};
use crate::registry::{AllgatherAlgorithm, AllreduceAlgorithm, BcastAlgorithm, ReduceAlgorithm};
use crate::schedule::{Block, Buf, Builder, Schedule};

/// The host of every rank of a communicator, and the ranks' order:
/// each host's ranks and the leaders, found once when made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nodes {
    /// Each host's ranks, in process order; hosts in their first rank's
    /// process order (so the first of each group, in this order, are the
    /// leaders).
    groups: Vec<Vec<usize>>,
    /// Per communicator rank, the index of its host's group.
    group_of: Vec<usize>,
    /// The first rank of each host, in process order.
    leaders: Vec<usize>,
}

impl Nodes {
    /// The placement of a communicator whose rank `r` runs on host
    /// `host[r]` and is process `pid[r]`. Both have one entry per rank.
    pub fn new(host: Vec<usize>, pid: Vec<usize>) -> Nodes {
        debug_assert_eq!(host.len(), pid.len());
        // Ranks by (host, process id): each host's ranks together, in
        // process order.
        let mut order: Vec<usize> = (0..host.len()).collect();
        order.sort_unstable_by_key(|&r| (host[r], pid[r]));
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (i, &r) in order.iter().enumerate() {
            if i == 0 || host[order[i - 1]] != host[r] {
                groups.push(Vec::new());
            }
            if let Some(g) = groups.last_mut() {
                g.push(r);
            }
        }
        groups.sort_unstable_by_key(|g| pid[g[0]]);
        let mut group_of = vec![0; host.len()];
        for (i, g) in groups.iter().enumerate() {
            for &r in g {
                group_of[r] = i;
            }
        }
        let leaders = groups.iter().map(|g| g[0]).collect();
        Nodes {
            groups,
            group_of,
            leaders,
        }
    }

    /// `size` ranks, `per_node` per host in rank order (the last host may
    /// have fewer): the placement of a blocked hostfile.
    pub fn blocked(size: usize, per_node: usize) -> Nodes {
        let per_node = per_node.max(1);
        Nodes::new(
            (0..size).map(|r| r / per_node).collect(),
            (0..size).collect(),
        )
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.group_of.len()
    }

    /// The ranks sharing `rank`'s host, in process order: the intra-node
    /// communicator, `rank` included.
    pub fn intra(&self, rank: usize) -> &[usize] {
        &self.groups[self.group_of[rank]]
    }

    /// The first rank (in process order) of every host, in process order:
    /// the leaders communicator.
    pub fn leaders(&self) -> &[usize] {
        &self.leaders
    }

    /// Whether every host runs as many of the ranks.
    pub fn is_uniform(&self) -> bool {
        self.groups.windows(2).all(|w| w[0].len() == w[1].len())
    }

    /// The ranks per host when [uniform](Self::is_uniform), else 1: the
    /// `num_core` of SimGrid's SMP algorithms, which assume that ranks
    /// `k * num_core ..` share a host.
    pub fn num_core(&self) -> usize {
        if self.size() > 0 && self.is_uniform() {
            self.groups[0].len()
        } else {
            1
        }
    }
}

/// The allreduce among the leaders of the two-level algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mv2Inter {
    /// Recursive doubling (`rdb`).
    #[default]
    Rdb,
    /// MVAPICH2's reduce-scatter then allgather (`mvapich2_rs`).
    Rs,
}

/// What runs within a host before the leaders' allreduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mv2Intra {
    /// SimGrid's `mpich` allreduce on the host's ranks (what the two-level
    /// algorithm runs before the `mvapich2` selector ever ran): recursive
    /// doubling, or Rabenseifner's for messages above 2 KiB with at least
    /// one element per rank of the largest power of two and a commutative
    /// operation.
    #[default]
    Mpich,
    /// The reduce to the host's leader (the `smpi/reduce` algorithm): what
    /// the `mvapich2` selector chooses.
    Reduce,
}

/// SimGrid's process-wide choices of the two-level allreduce, which the
/// `mvapich2` selector overwrites each time it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mv2Allreduce {
    /// The leaders' allreduce.
    pub inter: Mv2Inter,
    /// Within each host.
    pub intra: Mv2Intra,
}

/// What the SMP-aware allreduces need beyond the call: where the ranks
/// run, the two-level state, and the algorithms `smpi/reduce` and
/// `smpi/bcast` pick on a host's ranks (the two-level algorithm runs them).
#[derive(Debug, Clone, Copy)]
pub struct Smp<'a> {
    /// Where the communicator's ranks run.
    pub nodes: &'a Nodes,
    /// SimGrid's two-level state.
    pub mv2: Mv2Allreduce,
    /// The reduce to a host's leader.
    pub intra_reduce: ReduceAlgorithm,
    /// The bcast from a host's leader.
    pub intra_bcast: BcastAlgorithm,
}

/// Bytes per integer of [`smp_init`]'s buffer.
pub const SMP_INIT_UNIT: usize = 4;

/// The layout of [`smp_init`]'s buffer (`Buf::Recv`), in 4-byte integers,
/// per rank of a communicator of `size` ranks: every rank's leader, the
/// ranks per host of every leader, then three flags. The schedule's
/// elements are bytes ([`SMP_INIT_UNIT`] per integer): SimGrid's broadcast
/// of the uniformity flag splits its 4 bytes among the host's ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmpInitLayout {
    /// Integers of `Buf::Recv` the exchange needs.
    pub len: usize,
    /// Where this rank's own leader id is (the allgather's input).
    pub my_leader: usize,
    /// Where this rank's host's rank count is (the leaders' input).
    pub my_local_size: usize,
    /// The "hosts are uniform" flag, broadcast by each host's leader.
    pub is_uniform: usize,
    /// This rank's "my host's ranks are contiguous" flag.
    pub is_blocked: usize,
    /// Where the logical and of the `is_blocked` flags lands.
    pub all_blocked: usize,
}

impl SmpInitLayout {
    /// The layout for a communicator of `size` ranks on `hosts` hosts.
    pub fn new(size: usize, hosts: usize) -> SmpInitLayout {
        let leaders_map = 0;
        let non_uniform_map = leaders_map + size;
        let my_leader = non_uniform_map + hosts;
        SmpInitLayout {
            my_leader,
            my_local_size: my_leader + 1,
            is_uniform: my_leader + 2,
            is_blocked: my_leader + 3,
            all_blocked: my_leader + 4,
            len: my_leader + 5,
        }
    }
}

/// SimGrid's `Comm::init_smp` exchange at `rank`: a ring allgather of
/// every rank's leader over the communicator, a ring allgather of the
/// ranks per host among the leaders, a `scatter_LR_allgather` broadcast of
/// the uniformity flag from each leader to its host, and the default
/// allreduce of the "blocked" flags (a logical and: a bitwise and of the
/// flags' bytes, 0 or 1). The engine fills the inputs (see
/// [`SmpInitLayout`]) and runs it with `MPI_BYTE` elements and `MPI_BAND`;
/// the results are not read back (the engine knows the placement), the
/// exchange is there for the time it takes.
pub fn smp_init(at: Position, nodes: &Nodes) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    let leaders = nodes.leaders();
    let lay = SmpInitLayout::new(size, leaders.len());
    let mut b = Builder::new();
    const U: usize = SMP_INIT_UNIT;
    let bytes = Tuning::default();
    let one = Blocks {
        sendcount: U,
        recvcount: U,
        in_place: false,
    };
    let at_int = |i: usize, blk: Block| Buf::Recv.block(U * i + blk.offset, blk.count);
    // Every rank's leader, over the whole communicator. The allgather reads
    // its contribution from `Buf::Send`: the engine's send buffer is this
    // same buffer, so the element is placed by offset.
    let all = allgather_with(AllgatherAlgorithm::Ring, at, one)?;
    b.append(all, |blk| match blk.buf {
        Buf::Send => at_int(lay.my_leader, blk),
        _ => blk,
    });
    // The ranks per host, among the leaders.
    if let Some(me) = leaders.iter().position(|&l| l == rank) {
        let among = allgather_with(
            AllgatherAlgorithm::Ring,
            Position {
                rank: me,
                size: leaders.len(),
            },
            one,
        )?;
        b.splice(among, leaders, |blk| match blk.buf {
            Buf::Send => at_int(lay.my_local_size, blk),
            Buf::Recv => at_int(size, blk),
            Buf::Tmp(_) => blk,
        });
    }
    // The uniformity flag, from each leader to its host.
    let intra = nodes.intra(rank);
    let me = intra.iter().position(|&r| r == rank).unwrap_or(0);
    let flag = bcast_with(
        BcastAlgorithm::ScatterLrAllgather,
        RootedPosition {
            rank: me,
            size: intra.len(),
            root: 0,
        },
        U,
        bytes,
    )?;
    b.splice(flag, intra, |blk| match blk.buf {
        Buf::Recv => at_int(lay.is_uniform, blk),
        _ => blk,
    });
    // Whether every host's ranks are contiguous.
    let and = crate::allreduce_with(
        AllreduceAlgorithm::Default,
        at,
        Reduction {
            count: U,
            commutative: true,
            in_place: false,
        },
        bytes,
    )?;
    b.append(and, |blk| match blk.buf {
        Buf::Send => at_int(lay.is_blocked, blk),
        Buf::Recv => at_int(lay.all_blocked, blk),
        Buf::Tmp(_) => blk,
    });
    Ok(b.finish())
}
