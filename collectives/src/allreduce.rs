//! `MPI_Allreduce`.
//!
//! Buffers: the contribution is `Buf::Send[0..count]`, or
//! `Buf::Recv[0..count]` when `in_place`; the result lands in
//! `Buf::Recv[0..count]` at every rank, where it is also accumulated.
//!
//! Every algorithm gives `x_0 op x_1 op ... op x_{p-1}` for non-commutative
//! operations: the exchanging algorithms only ever combine data of two
//! contiguous rank ranges, and put the lower one first. `lr` reduces in
//! ring order, so it runs the default for non-commutative operations, as
//! it does (like SimGrid) for fewer elements than ranks.

use crate::allreduce_rab::{mvapich2_rs, rab, rab1, rab2};
use crate::allreduce_smp as smp;
use crate::allreduce_two_level::{select_allreduce_impi, two_level};
use crate::bcast::{bcast_binomial_into, bcast_into};
use crate::error::{check_radix, check_rank, CollError};
use crate::params::{Position, Reduction, Tuning};
use crate::reduce::{combine, contribution, reduce_into, ring_reduce_scatter, Halving};
use crate::registry::{Algorithm, AllreduceAlgorithm, BcastAlgorithm, ReduceAlgorithm};
use crate::schedule::{recv, send, Block, Buf, Builder, Local, Schedule};
use crate::smp::Smp;
use crate::tree::segment_count;

/// `MPI_Allreduce` of `count` elements with SimGrid's default algorithm:
/// the default reduce to rank 0, then the binomial bcast from rank 0. The
/// reduction order is the one of [`reduce`](crate::reduce()) to rank 0.
pub fn allreduce(at: Position, reduction: Reduction) -> Result<Schedule, CollError> {
    allreduce_with(
        AllreduceAlgorithm::Default,
        at,
        reduction,
        Tuning::default(),
    )
}

/// `MPI_Allreduce` with a chosen algorithm; see [`allreduce`]. It reads
/// `tuning.radix`, the k of `recursive_k` (at least 2; the other
/// algorithms ignore it), and `tuning.elem_bytes` (the datatype's size),
/// which sets the segments of `ompi_ring_segmented`.
pub fn allreduce_with(
    alg: AllreduceAlgorithm,
    at: Position,
    reduction: Reduction,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    if alg.needs_placement() {
        return Err(CollError::NeedsPlacement(alg.name()));
    }
    check_rank(at)?;
    check_radix(tuning.radix)?;
    let Position { rank, size } = at;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    let Tuning { elem_bytes, radix } = tuning;
    let mut b = Builder::new();
    let input = contribution(in_place, 0, count);
    let acc = Buf::Recv.block(0, count);
    match alg {
        AllreduceAlgorithm::Default | AllreduceAlgorithm::Redbcast => {
            reduce_bcast(&mut b, rank, size, input, acc, commutative)
        }
        AllreduceAlgorithm::Rdb => rdb(&mut b, rank, size, input, acc, commutative),
        AllreduceAlgorithm::Lr if commutative && count >= size => {
            lr(&mut b, rank, size, input, acc, in_place)
        }
        AllreduceAlgorithm::OmpiRingSegmented if commutative => {
            // Open MPI's 1 MiB segments; with less than one per rank, the
            // plain ring (and its own fallbacks).
            let seg = segment_count(1 << 20, elem_bytes, count);
            if size == 1 || count == 0 || count < size * seg {
                if count >= size {
                    lr(&mut b, rank, size, input, acc, in_place)
                } else {
                    reduce_bcast(&mut b, rank, size, input, acc, commutative)
                }
            } else {
                ring_segmented(&mut b, rank, size, input, acc, seg)
            }
        }
        AllreduceAlgorithm::OmpiRingSegmented => {
            reduce_bcast(&mut b, rank, size, input, acc, commutative)
        }
        AllreduceAlgorithm::Lr => reduce_bcast(&mut b, rank, size, input, acc, commutative),
        AllreduceAlgorithm::RabRdb => rabenseifner(&mut b, rank, size, input, acc, commutative),
        AllreduceAlgorithm::RecursiveK => recursive_k(&mut b, rank, size, input, acc, radix),
        AllreduceAlgorithm::Rab1 => rab1(&mut b, at, input, acc, commutative)?,
        AllreduceAlgorithm::Rab2 => rab2(&mut b, at, input, acc, commutative, tuning)?,
        AllreduceAlgorithm::Mvapich2Rs => mvapich2_rs(&mut b, rank, size, input, acc, commutative),
        AllreduceAlgorithm::Rab => rab(&mut b, rank, size, input, acc, commutative),
        AllreduceAlgorithm::SmpBinomial
        | AllreduceAlgorithm::SmpBinomialPipeline
        | AllreduceAlgorithm::SmpRdb
        | AllreduceAlgorithm::SmpRsag
        | AllreduceAlgorithm::SmpRsagLr
        | AllreduceAlgorithm::SmpRsagRab
        | AllreduceAlgorithm::Mvapich2TwoLevel
        | AllreduceAlgorithm::Impi => unreachable!("refused above: it needs the placement"),
        // The engine resolves them (the mvapich2 selector sets its state,
        // automatic times every algorithm); as a schedule, the default.
        AllreduceAlgorithm::Mvapich2 | AllreduceAlgorithm::Automatic => {
            reduce_bcast(&mut b, rank, size, input, acc, commutative)
        }
    }
    Ok(b.finish())
}

/// `MPI_Allreduce` with any algorithm, the SMP-aware ones included (see
/// [`AllreduceAlgorithm::needs_placement`]): those read `smp`, the others
/// are [`allreduce_with`]. The engine runs SimGrid's placement exchange
/// ([`smp_init`](crate::smp_init)) before the first of them on a
/// communicator.
pub fn allreduce_smp(
    alg: AllreduceAlgorithm,
    at: Position,
    reduction: Reduction,
    tuning: Tuning,
    smp: &Smp,
) -> Result<Schedule, CollError> {
    if !alg.needs_placement() {
        return allreduce_with(alg, at, reduction, tuning);
    }
    check_rank(at)?;
    if smp.nodes.size() != at.size {
        return Err(CollError::WrongLength {
            what: "placement",
            got: smp.nodes.size(),
            expected: at.size,
        });
    }
    let Position { rank, size } = at;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    let mut b = Builder::new();
    let input = contribution(in_place, 0, count);
    let acc = Buf::Recv.block(0, count);
    let call = smp::SmpCall {
        rank,
        size,
        num_core: smp.nodes.num_core(),
        input,
        acc,
        commutative,
    };
    match alg {
        AllreduceAlgorithm::SmpBinomial => smp::smp_binomial(&mut b, &call)?,
        AllreduceAlgorithm::SmpBinomialPipeline => smp::smp_binomial_pipeline(&mut b, &call),
        AllreduceAlgorithm::SmpRdb => smp::smp_rdb(&mut b, &call)?,
        AllreduceAlgorithm::SmpRsag | AllreduceAlgorithm::SmpRsagLr => {
            smp::smp_rsag(&mut b, &call)?
        }
        AllreduceAlgorithm::SmpRsagRab => smp::smp_rsag_rab(&mut b, &call)?,
        AllreduceAlgorithm::Mvapich2TwoLevel => two_level(&mut b, at, reduction, tuning, smp)?,
        AllreduceAlgorithm::Impi => {
            let bytes = count.saturating_mul(tuning.elem_bytes);
            let alg = select_allreduce_impi(size, call.num_core, bytes);
            return allreduce_smp(alg, at, reduction, tuning, smp);
        }
        _ => unreachable!("{alg} is not an SMP-aware algorithm"),
    }
    Ok(b.finish())
}

/// SimGrid's `redbcast`: a reduce to rank 0 with `reduce`, then a bcast
/// from rank 0 with `bcast` (SimGrid runs the ones the selector picks);
/// both read `tuning.elem_bytes`, the datatype's size, for the segmented
/// ones.
pub fn allreduce_redbcast(
    at: Position,
    reduction: Reduction,
    reduce: ReduceAlgorithm,
    bcast: BcastAlgorithm,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    let mut b = Builder::new();
    let input = contribution(in_place, 0, count);
    let acc = Buf::Recv.block(0, count);
    let from_0 = at.with_root(0);
    reduce_into(
        &mut b,
        reduce,
        from_0,
        commutative,
        input,
        acc,
        tuning.elem_bytes,
    );
    bcast_into(&mut b, bcast, from_0, acc, tuning.elem_bytes);
    Ok(b.finish())
}

/// SimGrid's default: the default reduce to rank 0, then the binomial
/// bcast from rank 0.
pub(crate) fn reduce_bcast(
    b: &mut Builder,
    rank: usize,
    size: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    reduce_into(
        b,
        ReduceAlgorithm::Default,
        Position { rank, size }.with_root(0),
        commutative,
        input,
        acc,
        1, // the default reduce does not segment
    );
    bcast_binomial_into(b, rank, size, 0, acc);
}

/// MPICH's fold of `size` ranks onto `pof2`, the largest power of two not
/// above it: the first `2 * rem` ranks pair up as (2i, 2i+1), the even one
/// hands its data to the odd one and sits the exchanges out. Virtual ranks
/// keep rank order, so a range of virtual ranks is a range of ranks.
struct Fold {
    pof2: usize,
    rem: usize,
}

impl Fold {
    fn new(size: usize) -> Fold {
        let pof2 = 1 << size.ilog2();
        Fold {
            pof2,
            rem: size - pof2,
        }
    }

    /// The virtual rank of `rank`, or `None` if it sits out.
    fn virtual_rank(&self, rank: usize) -> Option<usize> {
        if rank >= 2 * self.rem {
            Some(rank - self.rem)
        } else if rank % 2 == 1 {
            Some(rank / 2)
        } else {
            None
        }
    }

    /// The rank behind virtual rank `v`.
    fn rank(&self, v: usize) -> usize {
        if v < self.rem {
            2 * v + 1
        } else {
            v + self.rem
        }
    }

    /// The even ranks of the pairs send their data to their odd partner,
    /// which folds it in below its own.
    fn fold_in(&self, b: &mut Builder, rank: usize, acc: Block) {
        if rank >= 2 * self.rem {
            return;
        }
        if rank.is_multiple_of(2) {
            b.round(vec![send(rank + 1, acc)], vec![]);
        } else {
            let t = b.tmp(acc.count).block(0, acc.count);
            b.round(
                vec![recv(rank - 1, t)],
                vec![Local::Reduce {
                    input: t,
                    inout: acc,
                }],
            );
        }
    }

    /// The odd ranks of the pairs hand the result back.
    fn fold_out(&self, b: &mut Builder, rank: usize, acc: Block) {
        if rank >= 2 * self.rem {
            return;
        }
        if rank.is_multiple_of(2) {
            b.round(vec![recv(rank + 1, acc)], vec![]);
        } else {
            b.round(vec![send(rank - 1, acc)], vec![]);
        }
    }
}

/// SimGrid's `rdb` (MPICH's recursive doubling): fold onto a power of two,
/// then log2 steps exchanging the whole vector with virtual rank XOR 2^i.
pub(crate) fn rdb(
    b: &mut Builder,
    rank: usize,
    size: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    b.copy(input, acc);
    let fold = Fold::new(size);
    fold.fold_in(b, rank, acc);
    if let Some(v) = fold.virtual_rank(rank) {
        let incoming = b.tmp(acc.count).block(0, acc.count);
        let mut mask = 1;
        while mask < fold.pof2 {
            let dst = fold.rank(v ^ mask);
            b.round(
                vec![send(dst, acc), recv(dst, incoming)],
                combine(incoming, acc, dst < rank, commutative),
            );
            mask <<= 1;
        }
    }
    fold.fold_out(b, rank, acc);
}

/// SimGrid's `rab_rdb` (Rabenseifner's, as MPICH writes it): fold onto a
/// power of two, reduce-scatter by recursive halving (each step keeps half
/// of the remaining blocks and reduces the partner's copy of them), then
/// allgather by recursive doubling. Block i has `count / pof2` elements,
/// the last one the remainder too (as in SimGrid: the message sizes, so
/// the times, depend on where the remainder is).
pub(crate) fn rabenseifner(
    b: &mut Builder,
    rank: usize,
    size: usize,
    input: Block,
    acc: Block,
    commutative: bool,
) {
    b.copy(input, acc);
    let fold = Fold::new(size);
    fold.fold_in(b, rank, acc);
    if let Some(v) = fold.virtual_rank(rank) {
        let pof2 = fold.pof2;
        let count = acc.count;
        // disps[i]: first element of block i; disps[pof2] = count.
        let disps: Vec<usize> = (0..=pof2)
            .map(|i| if i < pof2 { i * (count / pof2) } else { count })
            .collect();
        let blocks =
            |buf: Block, from: usize, to: usize| buf.sub(disps[from], disps[to] - disps[from]);
        let scratch = b.tmp(count).block(0, count);
        // Reduce-scatter, then allgather by the same steps backwards.
        let mut idx = Halving::new(pof2);
        let mut mask = 1;
        while mask < pof2 {
            let vd = v ^ mask;
            let dst = fold.rank(vd);
            let [sent, kept] = idx.halve(v, vd, mask);
            let incoming = blocks(scratch, kept.0, kept.1);
            let mine = blocks(acc, kept.0, kept.1);
            b.round(
                vec![send(dst, blocks(acc, sent.0, sent.1)), recv(dst, incoming)],
                combine(incoming, mine, dst < rank, commutative),
            );
            mask <<= 1;
        }
        mask >>= 1;
        while mask > 0 {
            let vd = v ^ mask;
            let dst = fold.rank(vd);
            let [sent, got] = idx.double(v, vd, mask);
            b.round(
                vec![
                    send(dst, blocks(acc, sent.0, sent.1)),
                    recv(dst, blocks(acc, got.0, got.1)),
                ],
                vec![],
            );
            mask >>= 1;
        }
    }
    fold.fold_out(b, rank, acc);
}

/// SimGrid's `lr` (logical ring), for commutative operations and at least
/// one element per rank: a ring reduce-scatter of `size` blocks of
/// `count / size` elements, a ring allgather of them, then the remaining
/// `count % size` elements by the default (SimGrid reruns the selected
/// allreduce on them, which is `lr` falling back to its default).
fn lr(b: &mut Builder, rank: usize, size: usize, input: Block, acc: Block, in_place: bool) {
    let count = acc.count;
    let n = count / size;
    // In place the contribution is overwritten by partial sums it is still
    // needed for.
    let input = if in_place {
        let t = b.tmp(count).block(0, count);
        b.copy(input, t);
        t
    } else {
        input
    };
    let block = |buf: Block, i: usize| buf.sub((i % size) * n, n);
    let (next, prev) = ((rank + 1) % size, (rank + size - 1) % size);
    b.copy(block(input, rank + size - 1), block(acc, rank + size - 1));
    for i in 0..size - 1 {
        let out = rank + 2 * size - 1 - i;
        let into = rank + 2 * size - 2 - i;
        b.round(
            vec![send(next, block(acc, out)), recv(prev, block(acc, into))],
            vec![Local::Reduce {
                input: block(input, into),
                inout: block(acc, into),
            }],
        );
    }
    for i in 0..size - 1 {
        let out = rank + 2 * size - i;
        let into = rank + 2 * size - 1 - i;
        b.round(
            vec![send(next, block(acc, out)), recv(prev, block(acc, into))],
            vec![],
        );
    }
    let rest = count - size * n;
    if rest > 0 {
        let tail = |buf: Block| buf.sub(size * n, rest);
        reduce_bcast(b, rank, size, tail(input), tail(acc), true);
    }
}

/// `count` elements cut into `parts` runs, the first `count % parts` one
/// element longer (Open MPI's `COMPUTE_BLOCKCOUNT`): run i's (offset,
/// length).
fn split(count: usize, parts: usize, i: usize) -> (usize, usize) {
    let (late, early_runs) = (count / parts, count % parts);
    if i < early_runs {
        (i * (late + 1), late + 1)
    } else {
        (i * late + early_runs, late)
    }
}

/// Open MPI's segmented ring (SimGrid's `ompi_ring_segmented`), for
/// commutative operations and at least `size * seg` elements: the vector
/// is cut into one block per rank, each block into as many phases as make
/// segments of about `seg` elements; each phase is a ring reduce-scatter
/// of that phase's segments, with two receives in flight (the next one is
/// posted before waiting for the current one) and blocking sends; then a
/// ring allgather of the whole blocks.
fn ring_segmented(b: &mut Builder, rank: usize, size: usize, input: Block, acc: Block, seg: usize) {
    let count = acc.count;
    let per_round = size * seg;
    let mut phases = count / per_round;
    let rest = count % per_round;
    if rest >= size && rest > per_round / 2 {
        phases += 1;
    }
    b.copy(input, acc);
    let block = |i: usize| {
        let (offset, len) = split(count, size, i);
        acc.sub(offset, len)
    };
    let segment = |i: usize, phase: usize| {
        let whole = block(i);
        let (offset, len) = split(whole.count, phases, phase);
        whole.sub(offset, len)
    };
    let largest = split(split(count, size, 0).1, phases, 0).1;
    let slots = b.tmp(2 * largest).block(0, 2 * largest);
    for phase in 0..phases {
        ring_reduce_scatter(b, rank, size, |i| segment(i, phase), slots);
    }
    let right = (rank + 1) % size;
    let left = (rank + size - 1) % size;
    for k in 0..size - 1 {
        let (out, into) = ((rank + 1 + size - k) % size, (rank + size - k) % size);
        b.round(
            vec![send(right, block(out)), recv(left, block(into))],
            vec![],
        );
    }
}

/// Recursive multiplying with any radix k and any number of ranks (the
/// exascale study's recursive-k). The ranks are cut into q contiguous
/// groups, q the largest power of k not above `size`; each group's first
/// rank gathers and reduces its group, the leaders run log_k(q) steps
/// exchanging the whole vector with the k-1 leaders that differ from them
/// in one base-k digit, and hand the result back to their group. Every
/// combination is written in rank order, so every rank gets the same
/// result, for any operation.
fn recursive_k(b: &mut Builder, rank: usize, size: usize, input: Block, acc: Block, k: usize) {
    b.copy(input, acc);
    let count = acc.count;
    let mut q = 1;
    while q * k <= size {
        q *= k;
    }
    // Group v is [start(v), start(v+1)): 1 to k ranks.
    let start = |v: usize| v * size / q;
    let mut v = rank * q / size;
    while start(v + 1) <= rank {
        v += 1;
    }
    let (leader, end) = (start(v), start(v + 1));
    if rank != leader {
        b.round(vec![send(leader, acc)], vec![]);
        b.round(vec![recv(leader, acc)], vec![]);
        return;
    }
    // x_leader op (x_l+1 op (... op x_end-1)), folded from the top in the
    // last member's slot.
    let members = end - leader - 1;
    if members > 0 {
        let slots = b.tmp(members * count);
        let slot = |i: usize| slots.block(i * count, count);
        let comm = (0..members)
            .map(|i| recv(leader + 1 + i, slot(i)))
            .collect();
        let mut local: Vec<Local> = (0..members - 1)
            .rev()
            .map(|i| Local::Reduce {
                input: slot(i),
                inout: slot(members - 1),
            })
            .collect();
        local.push(Local::Reduce {
            input: acc,
            inout: slot(members - 1),
        });
        local.push(Local::Copy {
            from: slot(members - 1),
            to: acc,
        });
        b.round(comm, local);
    }
    if q > 1 {
        let slots = b.tmp((k - 1) * count);
        let mut stride = 1;
        while stride < q {
            let digit = (v / stride) % k;
            let base = v - digit * stride;
            // Slot of the peer with digit j (our own data stays in acc).
            let holder = |j: usize| {
                if j == digit {
                    acc
                } else {
                    let s = if j < digit { j } else { j - 1 };
                    slots.block(s * count, count)
                }
            };
            let mut comm = Vec::with_capacity(2 * (k - 1));
            for j in (0..k).filter(|&j| j != digit) {
                let peer = start(base + j * stride);
                comm.push(send(peer, acc));
                comm.push(recv(peer, holder(j)));
            }
            let top = holder(k - 1);
            let mut local: Vec<Local> = (0..k - 1)
                .rev()
                .map(|j| Local::Reduce {
                    input: holder(j),
                    inout: top,
                })
                .collect();
            if top != acc {
                local.push(Local::Copy { from: top, to: acc });
            }
            b.round(comm, local);
            stride *= k;
        }
    }
    if members > 0 {
        b.round((leader + 1..end).map(|m| send(m, acc)).collect(), vec![]);
    }
}
