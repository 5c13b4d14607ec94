//! SimGrid's SMP-aware allreduces written for SMP clusters (Pitch
//! Patarasuk's `smp_*` family): ranks `k * num_core .. (k + 1) * num_core`
//! are taken to share a host, where `num_core` is the ranks per host when
//! every host runs as many ([`Nodes::num_core`]), else 1. The rank
//! arithmetic does not look at the actual placement, as in SimGrid; only
//! `num_core` does.
//!
//! They all reduce within each host first (binomial tree towards the
//! host's first rank), run an allreduce among the hosts' first ranks (the
//! leaders), and broadcast within each host (binomial tree). The binomial
//! phases keep rank order, and so do the leaders' phases of `smp_binomial`,
//! `smp_binomial_pipeline`, `smp_rdb` and `smp_rsag_rab`, so
//! non-commutative operations get `x_0 op ... op x_{p-1}`; the ring of
//! `smp_rsag` and `smp_rsag_lr` cannot, so they run the default algorithm
//! for them.
//!
//! Every step is a blocking send or receive, or a send and a receive to
//! the same peer posted together (SimGrid's `Request::sendrecv`), so each
//! is a round of its own.
//!
//! [`Nodes::num_core`]: crate::smp::Nodes::num_core

use crate::allreduce::allreduce_with;
use crate::error::CollError;
use crate::params::{Position, Reduction, Tuning};
use crate::reduce::combine;
use crate::registry::AllreduceAlgorithm;
use crate::schedule::{recv, send, Block, Buf, Builder, Local};

/// SimGrid's segment of `smp_binomial_pipeline`, in elements
/// (`allreduce_smp_binomial_pipeline_segment_size`, which nothing sets).
const PIPELINE_SEGMENT: usize = 4096;

/// A rank's place in Patarasuk's arithmetic: host `inter` holds ranks
/// `base .. base + on_host`, the rank being the `intra`-th of them.
struct Hosts {
    num_core: usize,
    intra: usize,
    inter: usize,
    /// The number of hosts, the last one possibly short.
    hosts: usize,
    base: usize,
    /// The ranks of this host: `num_core`, fewer on a short last host.
    on_host: usize,
}

impl Hosts {
    fn new(rank: usize, size: usize, num_core: usize) -> Hosts {
        let num_core = num_core.max(1);
        let inter = rank / num_core;
        let base = inter * num_core;
        Hosts {
            num_core,
            intra: rank % num_core,
            inter,
            hosts: size.div_ceil(num_core),
            base,
            on_host: num_core.min(size - base),
        }
    }

    /// Whether the rank is its host's first, which alone talks to the
    /// other hosts.
    fn is_leader(&self) -> bool {
        self.intra == 0
    }

    /// The first rank of each host, in host order.
    fn leaders(&self) -> Vec<usize> {
        (0..self.hosts).map(|i| i * self.num_core).collect()
    }

    /// Binomial reduce of `acc` towards the host's first rank, `incoming`
    /// receiving the partners' partial results. SimGrid receives from
    /// every rank below the communicator size, which with a number of
    /// ranks per host that is not a power of two reaches into the next
    /// host, whose first rank never sends (a deadlock): here, within the
    /// host only.
    fn reduce_on_host(&self, b: &mut Builder, acc: Block, incoming: Block, commutative: bool) {
        let base = self.base;
        binomial_reduce(
            b,
            self.intra,
            self.on_host,
            |i| base + i,
            acc,
            incoming,
            commutative,
        );
    }

    /// Binomial bcast of `data` from the host's first rank. SimGrid sends
    /// to every rank below the communicator size, which with a number of
    /// ranks per host that is not a power of two reaches into the next
    /// host, where nobody receives: here, within the host only.
    fn bcast_on_host(&self, b: &mut Builder, data: Block) {
        let base = self.base;
        binomial_bcast(b, self.intra, self.on_host, |i| base + i, data);
    }

    /// Binomial reduce of `acc` among the leaders, towards the first.
    fn reduce_among_leaders(
        &self,
        b: &mut Builder,
        acc: Block,
        incoming: Block,
        commutative: bool,
    ) {
        let num_core = self.num_core;
        binomial_reduce(
            b,
            self.inter,
            self.hosts,
            |i| i * num_core,
            acc,
            incoming,
            commutative,
        );
    }

    /// Binomial bcast of `data` among the leaders, from the first.
    fn bcast_among_leaders(&self, b: &mut Builder, data: Block) {
        let num_core = self.num_core;
        binomial_bcast(b, self.inter, self.hosts, |i| i * num_core, data);
    }
}

/// Binomial reduce of `acc` over the ranks `rank_of(i)`, `i < n`,
/// towards `i = 0`, where the caller is `i = me`: each rank receives from
/// `me | mask` (blocking, one at a time) and folds it in, until it sends
/// its partial result to `me & !mask`.
fn binomial_reduce(
    b: &mut Builder,
    me: usize,
    n: usize,
    rank_of: impl Fn(usize) -> usize,
    acc: Block,
    incoming: Block,
    commutative: bool,
) {
    let mut mask = 1;
    while mask < n {
        if me & mask == 0 {
            let src = me | mask;
            if src < n {
                b.round(
                    vec![recv(rank_of(src), incoming)],
                    combine(incoming, acc, false, commutative),
                );
            }
        } else {
            b.round(vec![send(rank_of(me & !mask), acc)], vec![]);
            break;
        }
        mask <<= 1;
    }
}

/// Binomial broadcast of `data` from `i = 0` over `n` ranks `rank_of(i)`,
/// the caller being `i = me`.
fn binomial_bcast(
    b: &mut Builder,
    me: usize,
    n: usize,
    rank_of: impl Fn(usize) -> usize,
    data: Block,
) {
    let mut mask = 1;
    while mask < n {
        if me & mask != 0 {
            b.round(vec![recv(rank_of(me - mask), data)], vec![]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if me + mask < n {
            b.round(vec![send(rank_of(me + mask), data)], vec![]);
        }
        mask >>= 1;
    }
}

/// Appends the allreduce `alg` (any algorithm that does not need the
/// placement) of `input` into `acc` among `peers`, the caller being
/// `peers[me]`; in place when `input == acc`. Where a phase of SimGrid's
/// algorithm is one of the plain allreduces run on some of the ranks (the
/// leaders), this builds it with that algorithm's own code.
fn allreduce_among(
    b: &mut Builder,
    alg: AllreduceAlgorithm,
    me: usize,
    peers: &[usize],
    input: Block,
    acc: Block,
    commutative: bool,
) -> Result<(), CollError> {
    let sub = allreduce_with(
        alg,
        Position {
            rank: me,
            size: peers.len(),
        },
        Reduction {
            count: acc.count,
            commutative,
            in_place: input == acc,
        },
        Tuning::default(),
    )?;
    b.splice(sub, peers, |blk| match blk.buf {
        Buf::Send => input.sub(blk.offset, blk.count),
        _ => acc.sub(blk.offset, blk.count),
    });
    Ok(())
}

/// One rank's call of an SMP-aware allreduce.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SmpCall {
    /// The calling rank.
    pub rank: usize,
    /// The communicator's size.
    pub size: usize,
    /// Ranks per host, as SimGrid's arithmetic takes them
    /// ([`Nodes::num_core`]).
    pub num_core: usize,
    /// The contribution.
    pub input: Block,
    /// Where the result accumulates.
    pub acc: Block,
    /// The operation commutes.
    pub commutative: bool,
}

/// SimGrid's `smp_binomial`: a binomial reduce within each host, a
/// binomial reduce among the hosts' first ranks, a binomial bcast among
/// them, and a binomial bcast within each host, every step one blocking
/// send or receive.
pub(crate) fn smp_binomial(b: &mut Builder, call: &SmpCall) -> Result<(), CollError> {
    let commutative = call.commutative;
    on_hosts(b, call, |b, h, acc, incoming| {
        h.reduce_among_leaders(b, acc, incoming, commutative);
        h.bcast_among_leaders(b, acc);
        Ok(())
    })
}

/// The frame every SMP algorithm but the pipeline shares: a binomial
/// reduce within each host, `among` at the host's first rank (given the
/// accumulator and a scratch block of its size), and a binomial bcast
/// within each host.
fn on_hosts(
    b: &mut Builder,
    call: &SmpCall,
    among: impl FnOnce(&mut Builder, &Hosts, Block, Block) -> Result<(), CollError>,
) -> Result<(), CollError> {
    let SmpCall {
        rank,
        size,
        num_core,
        input,
        acc,
        commutative,
    } = *call;
    let count = acc.count;
    let incoming = b.tmp(count).block(0, count);
    let h = Hosts::new(rank, size, num_core);
    b.copy(input, acc);
    h.reduce_on_host(b, acc, incoming, commutative);
    if h.is_leader() {
        among(b, &h, acc, incoming)?;
    }
    h.bcast_on_host(b, acc);
    Ok(())
}

/// SimGrid's `smp_binomial_pipeline`: `smp_binomial`'s four phases on
/// segments of [`PIPELINE_SEGMENT`] elements in a pipeline. Step `s`
/// reduces segment `s` within each host, reduces segment `s - 1` among the
/// leaders, broadcasts segment `s - 2` among them and segment `s - 3`
/// within each host, each a blocking send or receive.
///
/// SimGrid makes `count / PIPELINE_SEGMENT` segments, so that the last
/// `count % PIPELINE_SEGMENT` elements are never reduced (and it divides
/// by zero for no element at all): here they are one more, shorter,
/// segment, which leaves SimGrid's messages as they are wherever its
/// result is right.
pub(crate) fn smp_binomial_pipeline(b: &mut Builder, call: &SmpCall) {
    let SmpCall {
        rank,
        size,
        num_core,
        input,
        acc,
        commutative,
    } = *call;
    let count = acc.count;
    let seg = PIPELINE_SEGMENT.min(count.max(1));
    let segments = count.div_ceil(seg);
    let part = |s: usize| acc.sub(s * seg, seg.min(count - s * seg));
    let scratch = b.tmp(seg);
    let incoming = |s: usize| scratch.block(0, part(s).count);
    let h = Hosts::new(rank, size, num_core);
    b.copy(input, acc);
    for step in 0..segments + 3 {
        if step < segments {
            h.reduce_on_host(b, part(step), incoming(step), commutative);
        }
        if h.is_leader() {
            if let Some(s) = step.checked_sub(1).filter(|&s| s < segments) {
                h.reduce_among_leaders(b, part(s), incoming(s), commutative);
            }
            if let Some(s) = step.checked_sub(2).filter(|&s| s < segments) {
                h.bcast_among_leaders(b, part(s));
            }
        }
        if let Some(s) = step.checked_sub(3) {
            h.bcast_on_host(b, part(s));
        }
    }
}

/// SimGrid's `smp_rdb`: a binomial reduce within each host, `rdb`
/// (recursive doubling, folded onto a power of two) among the leaders,
/// and a binomial bcast within each host.
pub(crate) fn smp_rdb(b: &mut Builder, call: &SmpCall) -> Result<(), CollError> {
    allreduce_among_leaders(b, call, AllreduceAlgorithm::Rdb)
}

/// A binomial reduce within each host, `alg` among the leaders, and a
/// binomial bcast within each host.
fn allreduce_among_leaders(
    b: &mut Builder,
    call: &SmpCall,
    alg: AllreduceAlgorithm,
) -> Result<(), CollError> {
    let commutative = call.commutative;
    on_hosts(b, call, |b, h, acc, _| {
        allreduce_among(b, alg, h.inter, &h.leaders(), acc, acc, commutative)
    })
}

/// SimGrid's `smp_rsag` and `smp_rsag_lr`: a binomial reduce within each
/// host, a ring reduce-scatter then a ring allgather among the leaders
/// (each step sends to the next leader and receives from the previous
/// one), and a binomial bcast within each host.
///
/// The ring's blocks are `count / hosts` elements each, and the last one
/// also holds the remaining `count % hosts`: that is `smp_rsag_lr`, while
/// `smp_rsag` leaves those elements unreduced, and both reduce some
/// elements several times or not at all with fewer elements than hosts
/// (`smp_rsag` sends empty blocks, `smp_rsag_lr` the whole vector as every
/// block). So the two match SimGrid wherever SimGrid's result is right.
///
/// A ring cannot keep rank order: non-commutative operations run the
/// default algorithm (as `lr` does).
pub(crate) fn smp_rsag(b: &mut Builder, call: &SmpCall) -> Result<(), CollError> {
    let SmpCall {
        rank,
        size,
        input,
        acc,
        commutative,
        ..
    } = *call;
    if !commutative {
        let all: Vec<usize> = (0..size).collect();
        let default = AllreduceAlgorithm::Default;
        return allreduce_among(b, default, rank, &all, input, acc, commutative);
    }
    on_hosts(b, call, |b, h, acc, incoming| {
        if h.hosts == 1 {
            return Ok(());
        }
        let count = acc.count;
        let (n, me) = (h.hosts, h.inter);
        let leaders = h.leaders();
        let (to, from) = (leaders[(me + 1) % n], leaders[(me + n - 1) % n]);
        let each = count / n;
        let block = |i: usize| {
            let i = i % n;
            let len = if i == n - 1 { count - i * each } else { each };
            acc.sub(i * each, len)
        };
        // Step i sends the block the previous step reduced (at first block
        // me - 1, with only this host's contribution) and reduces the one
        // coming in.
        for i in 0..n - 1 {
            let (out, into) = (block(me + 2 * n - 1 - i), block(me + 2 * n - 2 - i));
            let got = incoming.sub(0, into.count);
            b.round(
                vec![send(to, out), recv(from, got)],
                vec![Local::Reduce {
                    input: got,
                    inout: into,
                }],
            );
        }
        // Leader me now holds block me reduced; pass the blocks round.
        for i in 0..n - 1 {
            let (out, into) = (block(me + n - i), block(me + 2 * n - 1 - i));
            b.round(vec![send(to, out), recv(from, into)], vec![]);
        }
        Ok(())
    })
}

/// SimGrid's `smp_rsag_rab`, which refuses communicators whose size is not
/// a power of two (then so is the number of hosts): a binomial reduce
/// within each host, Rabenseifner's reduce-scatter by recursive halving
/// then allgather by recursive doubling among the leaders (`rab_rdb` on a
/// power of two), and a binomial bcast within each host.
///
/// SimGrid halves the element count at each step, and doubles it back
/// from `count / (2 * hosts)` rounded down: its blocks are right when
/// `count` is a multiple of `2 * hosts`, some elements are unreduced or
/// lost otherwise. `rab_rdb`'s blocks are the same then, and spread the
/// remainder otherwise.
pub(crate) fn smp_rsag_rab(b: &mut Builder, call: &SmpCall) -> Result<(), CollError> {
    if !call.size.is_power_of_two() {
        return Err(CollError::NeedsPowerOfTwo {
            algorithm: "smp_rsag_rab",
            size: call.size,
        });
    }
    allreduce_among_leaders(b, call, AllreduceAlgorithm::RabRdb)
}
