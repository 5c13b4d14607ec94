//! `MPI_Reduce`, `MPI_Allreduce`, `MPI_Reduce_scatter(_block)`.
//!
//! # Reduction order
//!
//! [`Local::Reduce`] computes `inout = input (op) inout` like an MPI user
//! function `f(invec = input, inoutvec = inout)`. Writing `x_i` for rank
//! `i`'s contribution, the root's result is:
//!
//! * `ompi_basic_linear` (the default for non-commutative operations):
//!   `x_0 op (x_1 op (... op (x_{p-2} op x_{p-1})))`. The accumulator starts
//!   as `x_{p-1}` and each step folds in the next lower rank as `invec`,
//!   exactly as Open MPI's `ompi_coll_base_reduce_intra_basic_linear` (and
//!   SimGrid's copy of it). By associativity this is `x_0 op x_1 op ... op
//!   x_{p-1}`, and the user function always gets the lower ranks in `invec`.
//! * the commutative default (SimGrid's non-blocking linear reduce): the
//!   accumulator starts as the root's `x_root`, then every other rank `s`,
//!   in increasing rank order, is folded in as `acc = x_s op acc`. This is
//!   the order SimGrid applies them, so floating-point results agree bit
//!   for bit; it is only used when the operation is commutative.

use crate::error::{check_len, check_rank, check_rooted, mul, CollError};
use crate::gather::scatterv_into;
use crate::params::{Position, Reduction, ReductionV, RootedPosition, Tuning};
use crate::registry::{ReduceAlgorithm, ReduceScatterAlgorithm, ReduceScatterBlockAlgorithm};
use crate::schedule::{recv, send, Block, Buf, Builder, Layout, Local, Schedule};
use crate::tree::{chain, in_order_bintree, in_order_bmtree, kary, segment_count, Tree};

/// `MPI_Reduce` of `count` elements to `root`, with SimGrid's default
/// algorithm (see [`ReduceAlgorithm::Default`]).
///
/// Buffers: a rank's contribution is `Buf::Send[0..count]`, or
/// `Buf::Recv[0..count]` when `in_place` (MPI only allows `MPI_IN_PLACE` at
/// the root; the flag is accepted at every rank so that allreduce can reuse
/// it). The result lands in `Buf::Recv[0..count]` at the root; other ranks'
/// `Recv` is never touched unless `in_place`, where it is only read.
///
/// `commutative` selects the algorithm; the module documentation gives the
/// exact reduction order.
pub fn reduce(at: RootedPosition, reduction: Reduction) -> Result<Schedule, CollError> {
    reduce_with(ReduceAlgorithm::Default, at, reduction, Tuning::default())
}

/// `MPI_Reduce` with a chosen algorithm; see [`reduce`]. It reads
/// `tuning.elem_bytes`, the size of one element (the datatype's size): the
/// segmented algorithms cut the message into segments of as many bytes as
/// SimGrid's do.
pub fn reduce_with(
    alg: ReduceAlgorithm,
    at: RootedPosition,
    reduction: Reduction,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    let input = contribution(in_place, 0, count);
    let output = Buf::Recv.block(0, count);
    let mut b = Builder::new();
    reduce_into(
        &mut b,
        alg,
        at,
        commutative,
        input,
        output,
        tuning.elem_bytes,
    );
    Ok(b.finish())
}

/// The segment size of SimGrid's `ompi_pipeline` reduce (Open MPI's
/// fitted decision): 1 KiB, 32 KiB or 64 KiB by communicator and message
/// size.
fn pipeline_segment_bytes(size: usize, bytes: usize) -> usize {
    let (p, m) = (size as f64, bytes as f64);
    if p > 0.0410 / 1024.0 * m + 9.7128 {
        1 << 10
    } else if p > 0.0033 / 1024.0 * m + 1.6761 {
        32 << 10
    } else {
        64 << 10
    }
}

/// The segment size of SimGrid's `ompi_binomial` reduce: none for small
/// messages, 1 KiB when there are many ranks for the message size.
fn binomial_segment_bytes(size: usize, bytes: usize, count: usize) -> usize {
    if (size < 8 && bytes < 20480) || bytes < 2048 || count <= 1 {
        0
    } else if size as f64 > 0.6016 / 1024.0 * bytes as f64 + 1.3496 {
        1 << 10
    } else {
        0
    }
}

/// Open MPI's generic segmented reduce (`reduce_generic`) along `tree`,
/// as SimGrid runs it, for commutative operations or trees whose children
/// hold lower ranks than their parent, in order (the in-order binary
/// tree). A rank's partial result starts as its contribution. The inner
/// ranks receive segment 0 from each child in turn, then segment 1, and so
/// on, each receive posted before waiting for the previous one (two in
/// flight), which is then folded in as `acc = child op acc`; once the last
/// child's part of a segment is in, the segment goes to the parent by a
/// blocking send. Leaves send their segments one after the other (Open
/// MPI's choice with no limit on outstanding requests). The tree's root
/// accumulates in `output`, the others in scratch.
fn reduce_tree_segments(b: &mut Builder, tree: &Tree, input: Block, output: Block, seg: usize) {
    let count = input.count;
    if count == 0 {
        return;
    }
    let n = count.div_ceil(seg);
    let len = |k: usize| seg.min(count - k * seg);
    let m = tree.children.len();
    if m == 0 {
        match tree.parent {
            Some(p) => {
                (0..n).for_each(|k| b.round(vec![send(p, input.sub(k * seg, len(k)))], vec![]))
            }
            None => b.copy(input, output),
        }
        return;
    }
    let acc = match tree.parent {
        None => output,
        Some(_) => b.tmp(count).block(0, count),
    };
    b.copy(input, acc);
    // Two alternating receive buffers: receive j lands in slot j % 2.
    let slots = b.tmp(2 * seg);
    let slot = |j: usize| slots.block((j % 2) * seg, len(j / m));
    let receives = m * n;
    for j in 0..=receives {
        // Step j posts receive j and waits for receive j - 1, folding it
        // in; if that completed a segment, a round sending it follows.
        let done = j.checked_sub(1);
        let closes = done.filter(|&d| d % m == m - 1).map(|d| d / m);
        let send_after = closes.filter(|_| tree.parent.is_some());
        let post = (j < receives).then(|| {
            let receive = recv(tree.children[j % m], slot(j));
            (receive, if send_after.is_some() { 2 } else { 1 })
        });
        let local = done
            .map(|d| Local::Reduce {
                input: slot(d),
                inout: acc.sub((d / m) * seg, len(d / m)),
            })
            .into_iter()
            .collect();
        b.round_deferring(vec![], local, post.into_iter().collect());
        if let (Some(k), Some(p)) = (send_after, tree.parent) {
            b.round(vec![send(p, acc.sub(k * seg, len(k)))], vec![]);
        }
    }
}

/// SimGrid's `ompi_in_order_binary`: the generic reduce, unsegmented, up
/// the in-order binary tree rooted at rank p - 1, which keeps rank order
/// for non-commutative operations; rank p - 1 then sends the result to the
/// root if that is another rank.
fn reduce_in_order_binary(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    input: Block,
    output: Block,
) {
    let count = input.count;
    if count == 0 {
        return;
    }
    let io_root = size - 1;
    let tree = in_order_bintree(rank, size);
    if root == io_root {
        reduce_tree_segments(b, &tree, input, output, count);
        return;
    }
    // The root's contribution may sit in its output buffer (in place): it
    // is read by the tree phase before the result lands there.
    let acc = if rank == io_root {
        b.tmp(count).block(0, count)
    } else {
        output
    };
    reduce_tree_segments(b, &tree, input, acc, count);
    if rank == io_root {
        b.round(vec![send(root, acc)], vec![]);
    } else if rank == root {
        b.round(vec![recv(io_root, output)], vec![]);
    }
}

/// `MPI_Reduce_scatter_block`: every rank contributes `size * count`
/// elements and gets block `rank` (`count` elements) of the reduction.
///
/// Algorithm (SimGrid's default): the default reduce to rank 0 into a
/// scratch buffer, then a linear scatter of the blocks from rank 0.
/// Buffers: the contribution is `Buf::Send[0..size*count]`, or
/// `Buf::Recv[0..size*count]` when `in_place`; the result lands in
/// `Buf::Recv[0..count]`. The reduction order is the one of [`reduce`].
pub fn reduce_scatter_block(at: Position, reduction: Reduction) -> Result<Schedule, CollError> {
    reduce_scatter_block_with(ReduceScatterBlockAlgorithm::Default, at, reduction)
}

/// `MPI_Reduce_scatter_block` with a chosen algorithm; see
/// [`reduce_scatter_block`].
pub fn reduce_scatter_block_with(
    alg: ReduceScatterBlockAlgorithm,
    at: Position,
    reduction: Reduction,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Reduction {
        count,
        commutative,
        in_place,
    } = reduction;
    const NAME: &str = "reduce_scatter_block";
    let total = mul(at.size, count, NAME)?;
    match alg {
        ReduceScatterBlockAlgorithm::Default => Ok(reduce_then_scatterv(
            at,
            total,
            Layout::Uniform(count),
            commutative,
            in_place,
        )),
    }
}

/// `MPI_Reduce_scatter`: every rank contributes `sum(recvcounts)` elements
/// and gets the `recvcounts[rank]` elements starting at
/// `sum(recvcounts[..rank])` of the reduction. `recvcounts` must have one
/// entry per rank at every rank.
///
/// Algorithm (SimGrid's default): when all counts are equal, the default
/// reduce to rank 0 into a scratch buffer, then a linear scatterv from
/// rank 0; otherwise MPICH's choice: `mpich_pair` for commutative
/// operations on more than 524288 elements in all, else `mpich_rdb`.
/// Buffers: the contribution is `Buf::Send[0..total]`, or
/// `Buf::Recv[0..total]` when `in_place`; the result lands in
/// `Buf::Recv[0..recvcounts[rank]]`.
pub fn reduce_scatter(at: Position, reduction: ReductionV) -> Result<Schedule, CollError> {
    reduce_scatter_with(ReduceScatterAlgorithm::Default, at, reduction)
}

/// `MPI_Reduce_scatter` with a chosen algorithm; see [`reduce_scatter`].
pub fn reduce_scatter_with(
    alg: ReduceScatterAlgorithm,
    at: Position,
    reduction: ReductionV,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    let ReductionV {
        recvcounts,
        commutative,
        in_place,
    } = reduction;
    check_len("recvcounts", recvcounts, size)?;
    const NAME: &str = "reduce_scatter";
    let total = recvcounts.iter().try_fold(0usize, |acc, &c| {
        acc.checked_add(c)
            .ok_or(CollError::Overflow { collective: NAME })
    })?;
    let alg = match alg {
        ReduceScatterAlgorithm::Default if recvcounts.iter().any(|&c| c != recvcounts[0]) => {
            if commutative && total > 524288 {
                ReduceScatterAlgorithm::MpichPair
            } else {
                ReduceScatterAlgorithm::MpichRdb
            }
        }
        alg => alg,
    };
    match alg {
        ReduceScatterAlgorithm::MpichPair if commutative => {
            let displs = packed_displacements(recvcounts);
            let slots = Layout::PerRank {
                counts: recvcounts,
                displs: &displs,
            };
            Ok(reduce_scatter_pair(rank, size, slots, in_place))
        }
        ReduceScatterAlgorithm::OmpiRing if commutative => {
            let displs = packed_displacements(recvcounts);
            Ok(reduce_scatter_ring(
                rank, size, recvcounts, &displs, in_place,
            ))
        }
        ReduceScatterAlgorithm::OmpiBasicRecursivehalving if commutative => {
            let displs = packed_displacements(recvcounts);
            Ok(reduce_scatter_halving(
                rank, size, recvcounts, &displs, in_place,
            ))
        }
        ReduceScatterAlgorithm::OmpiButterfly => {
            let displs = packed_displacements(recvcounts);
            Ok(reduce_scatter_butterfly(
                rank,
                size,
                recvcounts,
                &displs,
                commutative,
                in_place,
            ))
        }
        ReduceScatterAlgorithm::MpichRdb => {
            let displs = packed_displacements(recvcounts);
            Ok(reduce_scatter_rdb(
                rank,
                size,
                recvcounts,
                &displs,
                commutative,
                in_place,
            ))
        }
        ReduceScatterAlgorithm::Default
        | ReduceScatterAlgorithm::MpichPair
        | ReduceScatterAlgorithm::OmpiRing
        | ReduceScatterAlgorithm::OmpiBasicRecursivehalving => {
            // Displacements are prefix sums; only rank 0 needs them all, and
            // it computes them once, so the whole thing stays O(size).
            let displs = if rank == 0 {
                packed_displacements(recvcounts)
            } else {
                Vec::new()
            };
            let slots = Layout::PerRank {
                counts: recvcounts,
                displs: &displs,
            };
            Ok(reduce_then_scatterv(
                at,
                total,
                slots,
                commutative,
                in_place,
            ))
        }
    }
}

/// The block bookkeeping MPICH's Rabenseifner algorithms share: p'
/// blocks (p' a power of two), halved by a recursive-halving
/// reduce-scatter, then regrown by a recursive-doubling gather. Ranges
/// are block indices, half-open.
pub(crate) struct Halving {
    pof2: usize,
    pub send_idx: usize,
    pub recv_idx: usize,
    pub last_idx: usize,
}

impl Halving {
    pub(crate) fn new(pof2: usize) -> Halving {
        Halving {
            pof2,
            send_idx: 0,
            recv_idx: 0,
            last_idx: pof2,
        }
    }

    /// A halving step between virtual ranks `v` and `vd` (`mask` apart):
    /// the range sent and the range kept (and reduced).
    pub(crate) fn halve(&mut self, v: usize, vd: usize, mask: usize) -> [(usize, usize); 2] {
        let half = self.pof2 / (mask * 2);
        let ranges = if v < vd {
            self.send_idx = self.recv_idx + half;
            [
                (self.send_idx, self.last_idx),
                (self.recv_idx, self.send_idx),
            ]
        } else {
            self.recv_idx = self.send_idx + half;
            [
                (self.send_idx, self.recv_idx),
                (self.recv_idx, self.last_idx),
            ]
        };
        self.send_idx = self.recv_idx;
        if mask * 2 < self.pof2 {
            self.last_idx = self.recv_idx + self.pof2 / (mask * 2);
        }
        ranges
    }

    /// A doubling step, the halving ones backwards: the range sent and the
    /// range received.
    pub(crate) fn double(&mut self, v: usize, vd: usize, mask: usize) -> [(usize, usize); 2] {
        let half = self.pof2 / (mask * 2);
        let ranges = if v < vd {
            if mask != self.pof2 / 2 {
                self.last_idx += half;
            }
            self.recv_idx = self.send_idx + half;
            [
                (self.send_idx, self.recv_idx),
                (self.recv_idx, self.last_idx),
            ]
        } else {
            self.recv_idx = self.send_idx - half;
            [
                (self.send_idx, self.last_idx),
                (self.recv_idx, self.send_idx),
            ]
        };
        if v > vd {
            self.send_idx = self.recv_idx;
        }
        ranges
    }
}

/// The displacement of each block when blocks of `counts` elements lie one
/// after the other (the prefix sums of `counts`).
pub fn packed_displacements(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |next, &c| {
            let d = *next;
            *next += c;
            Some(d)
        })
        .collect()
}

/// MPICH's pairwise reduce-scatter (SimGrid's `mpich_pair`), for
/// commutative operations: p - 1 steps; in step i every rank sends the
/// block of rank + i of its contribution and receives its own block of
/// rank - i's, folding it in. In place, the block is accumulated where it
/// lies in the receive buffer and moved to its start at the end.
fn reduce_scatter_pair(rank: usize, size: usize, slots: Layout, in_place: bool) -> Schedule {
    let mut b = Builder::new();
    let mine = slots.count(rank);
    let contribution = |j: usize| {
        if in_place {
            slots.block(Buf::Recv, j)
        } else {
            slots.block(Buf::Send, j)
        }
    };
    let acc = if in_place {
        contribution(rank)
    } else {
        let acc = Buf::Recv.block(0, mine);
        b.copy(contribution(rank), acc);
        acc
    };
    let incoming = b.tmp(mine).block(0, mine);
    for i in 1..size {
        let (src, dst) = ((rank + size - i) % size, (rank + i) % size);
        b.round(
            vec![send(dst, contribution(dst)), recv(src, incoming)],
            vec![Local::Reduce {
                input: incoming,
                inout: acc,
            }],
        );
    }
    let start = Buf::Recv.block(0, mine);
    if acc != start {
        // Through scratch: the two may overlap.
        b.copy(acc, incoming);
        b.copy(incoming, start);
    }
    b.finish()
}

/// MPICH's recursive-doubling reduce-scatter (SimGrid's `mpich_rdb`), for
/// any operation: in step i every rank swaps with rank XOR 2^i the partial
/// results of all blocks outside its own subtree of 2^i ranks (the
/// partner's side, likewise) and folds them in, lower subtree first;
/// where the partner does not exist (sizes that are not powers of two),
/// the subtree's ranks that did receive pass what they received down a
/// binomial tree before anyone folds it in.
///
/// MPICH sends the blocks around a subtree, two runs, as one message of
/// a two-block datatype. To send them as one message too, the scratch
/// buffers hold the vector twice, back to back: the blocks after the
/// subtree then the blocks before it are one run of the doubled buffer.
/// Reductions work on the first copy, which is then copied to the second.
fn reduce_scatter_rdb(
    rank: usize,
    size: usize,
    counts: &[usize],
    displs: &[usize],
    commutative: bool,
    in_place: bool,
) -> Schedule {
    let mut b = Builder::new();
    let total = displs[size - 1] + counts[size - 1];
    let results = b.tmp(2 * total).block(0, 2 * total);
    let incoming = b.tmp(2 * total).block(0, 2 * total);
    let (primary, mirror) = (results.sub(0, total), results.sub(total, total));
    b.copy(contribution(in_place, 0, total), primary);
    b.copy(primary, mirror);
    let start = |r: usize| if r < size { displs[r] } else { total };
    // The blocks outside the subtree of `width` ranks at `root`: those
    // after it, then (in the second copy) those before it.
    let around = |buf: Block, root: usize, width: usize| {
        let (lo, hi) = (start(root), start(root + width));
        buf.sub(hi, total - hi + lo)
    };
    let (mut mask, mut i) = (1usize, 0u32);
    while mask < size {
        let dst = rank ^ mask;
        let dst_root = (dst >> i) << i;
        let my_root = (rank >> i) << i;
        let theirs = around(incoming, dst_root, mask);
        let mut received = false;
        if dst < size {
            b.round(
                vec![send(dst, around(results, my_root, mask)), recv(dst, theirs)],
                vec![],
            );
            received = true;
        }
        if dst_root + mask > size {
            // Ranks below my_root + completed received the partner
            // subtree's data; pass it to the others.
            let completed = size as isize - my_root as isize - mask as isize;
            let mut k = i;
            let mut step = mask >> 1;
            while step > 0 {
                let peer = rank ^ step;
                let limit = ((rank >> k) << k) as isize + completed;
                let (r, p) = (rank as isize, peer as isize);
                if peer > rank && r < limit && p >= limit {
                    b.round(vec![send(peer, theirs)], vec![]);
                } else if peer < rank && p < limit && r >= limit {
                    b.round(vec![recv(peer, theirs)], vec![]);
                    received = true;
                }
                step >>= 1;
                k -= 1;
            }
        }
        if received {
            // The run after the partner's subtree, then the one before it
            // (which arrived in the second copy).
            let (lo, hi) = (start(dst_root), start(dst_root + mask));
            let runs = [(hi, hi, total - hi), (total, 0, lo)];
            for (from, at, len) in runs.into_iter().filter(|r| r.2 > 0) {
                let folded = combine(
                    incoming.sub(from, len),
                    primary.sub(at, len),
                    dst_root < my_root,
                    commutative,
                );
                folded.into_iter().for_each(|op| b.local(op));
            }
            b.copy(primary, mirror);
        }
        mask <<= 1;
        i += 1;
    }
    b.copy(
        primary.sub(displs[rank], counts[rank]),
        Buf::Recv.block(0, counts[rank]),
    );
    b.finish()
}

/// Open MPI's butterfly reduce-scatter (Träff's; SimGrid's
/// `ompi_butterfly`), for any operation: the first 2r ranks fold in
/// pairs onto the odd one (r = p minus the largest power of two p' below
/// it); among the p' virtual ranks, p' blocks (block b holds the blocks of
/// the ranks virtual rank b stands for) are halved log2 p' times, each
/// rank swapping half of its current range with its partner and reducing
/// the other half, lower ranks first; the results end up permuted by bit
/// reversal and are sent to their owners, the folded-out ranks' ones
/// included.
fn reduce_scatter_butterfly(
    rank: usize,
    size: usize,
    counts: &[usize],
    displs: &[usize],
    commutative: bool,
    in_place: bool,
) -> Schedule {
    let _ = commutative; // both orders are kept: any operation works
    let mut b = Builder::new();
    let total = displs[size - 1] + counts[size - 1];
    let mine = Buf::Recv.block(0, counts[rank]);
    if size < 2 {
        b.copy(contribution(in_place, 0, total), mine);
        return b.finish();
    }
    let (mut psend, mut precv) = (b.tmp(total), b.tmp(total));
    b.copy(contribution(in_place, 0, total), psend.block(0, total));
    let pof2 = 1 << size.ilog2();
    let rem = size - pof2;
    let log2 = pof2.trailing_zeros();
    let real = |v: usize| if v < rem { 2 * v + 1 } else { v + rem };
    // Virtual block b's first rank and the elements of blocks lo..=hi.
    let first = |v: usize| if v < rem { 2 * v } else { v + rem };
    let span = |lo: usize, hi: usize| {
        let (from, last) = (first(lo), if hi < rem { 2 * hi + 1 } else { hi + rem });
        (displs[from], displs[last] + counts[last] - displs[from])
    };
    let mirror = |x: usize| (0..log2).fold(0, |m, bit| m | ((x >> bit) & 1) << (log2 - 1 - bit));
    let vrank = if rank < 2 * rem {
        if rank.is_multiple_of(2) {
            b.round(vec![send(rank + 1, psend.block(0, total))], vec![]);
            None
        } else {
            b.round(
                vec![recv(rank - 1, precv.block(0, total))],
                vec![Local::Reduce {
                    input: precv.block(0, total),
                    inout: psend.block(0, total),
                }],
            );
            Some(rank / 2)
        }
    } else {
        Some(rank - rem)
    };
    let Some(v) = vrank else {
        let peer = real(mirror(rank.div_ceil(2)));
        b.round(vec![recv(peer, mine)], vec![]);
        return b.finish();
    };
    let (mut nblocks, mut send_index, mut recv_index) = (pof2, 0, 0);
    let mut mask = 1;
    while mask < pof2 {
        let vpeer = v ^ mask;
        let peer = real(vpeer);
        nblocks /= 2;
        if v & mask == 0 {
            send_index += nblocks;
        } else {
            recv_index += nblocks;
        }
        let (s_at, s_len) = span(send_index, send_index + nblocks - 1);
        let (r_at, r_len) = span(recv_index, recv_index + nblocks - 1);
        let (mine_r, theirs_r) = (psend.block(r_at, r_len), precv.block(r_at, r_len));
        let (comm, fold) = (
            vec![send(peer, psend.block(s_at, s_len)), recv(peer, theirs_r)],
            if v < vpeer {
                Local::Reduce {
                    input: mine_r,
                    inout: theirs_r,
                }
            } else {
                Local::Reduce {
                    input: theirs_r,
                    inout: mine_r,
                }
            },
        );
        b.round(comm, vec![fold]);
        if v < vpeer {
            std::mem::swap(&mut psend, &mut precv);
        }
        send_index = recv_index;
        mask <<= 1;
    }
    let vpeer = mirror(v);
    let peer = real(vpeer);
    let mut index = first(send_index);
    if vpeer < rem {
        // Two blocks: the folded-out rank's, then our partner's own.
        b.round(
            vec![send(peer - 1, psend.block(displs[index], counts[index]))],
            vec![],
        );
        index += 1;
    }
    if vpeer != v {
        b.round(
            vec![
                send(peer, psend.block(displs[index], counts[index])),
                recv(peer, mine),
            ],
            vec![],
        );
    } else {
        b.copy(psend.block(displs[rank], counts[rank]), mine);
    }
    b.finish()
}

/// Open MPI's ring reduce-scatter (SimGrid's `ompi_ring`), for
/// commutative operations: the contribution is copied to scratch and
/// [`ring_reduce_scatter`] runs on its blocks, ring position i being
/// block i - 1, so that each rank ends with its own block.
fn reduce_scatter_ring(
    rank: usize,
    size: usize,
    counts: &[usize],
    displs: &[usize],
    in_place: bool,
) -> Schedule {
    let mut b = Builder::new();
    let total = displs[size - 1] + counts[size - 1];
    let mine = Buf::Recv.block(0, counts[rank]);
    if size == 1 {
        b.copy(contribution(in_place, 0, total), mine);
        return b.finish();
    }
    let acc = b.tmp(total).block(0, total);
    b.copy(contribution(in_place, 0, total), acc);
    let block = |i: usize| acc.sub(displs[i], counts[i]);
    let largest = counts.iter().copied().max().unwrap_or(0);
    let slots = b.tmp(2 * largest).block(0, 2 * largest);
    ring_reduce_scatter(&mut b, rank, size, |i| block((i + size - 1) % size), slots);
    b.copy(block(rank), mine);
    b.finish()
}

/// Open MPI's recursive halving reduce-scatter (SimGrid's
/// `ompi_basic_recursivehalving`), for commutative operations: the first
/// 2r ranks (r = p minus the largest power of two below it) fold in pairs
/// onto the odd one; then, among the power of two of virtual ranks, each
/// step halves the range of blocks a rank is responsible for, sending the
/// other half to its partner and reducing the partner's copy of its own
/// half; the folded-out ranks get their block back at the end. (Open MPI
/// skips a transfer when the opposite direction is empty; here every
/// non-empty transfer happens, which gives the same result whenever
/// Open MPI's is right.)
fn reduce_scatter_halving(
    rank: usize,
    size: usize,
    counts: &[usize],
    displs: &[usize],
    in_place: bool,
) -> Schedule {
    let mut b = Builder::new();
    let total = displs[size - 1] + counts[size - 1];
    if total == 0 {
        return b.finish();
    }
    let result = b.tmp(total).block(0, total);
    let incoming = b.tmp(total).block(0, total);
    b.copy(contribution(in_place, 0, total), result);
    let pof2 = 1 << size.ilog2();
    let remain = size - pof2;
    let virtual_rank = if rank < 2 * remain {
        if rank.is_multiple_of(2) {
            b.round(vec![send(rank + 1, result)], vec![]);
            None
        } else {
            b.round(
                vec![recv(rank - 1, incoming)],
                vec![Local::Reduce {
                    input: incoming,
                    inout: result,
                }],
            );
            Some(rank / 2)
        }
    } else {
        Some(rank - remain)
    };
    if let Some(v) = virtual_rank {
        // Virtual rank i's blocks: both of the pair it stands for.
        let first = |i: usize| if i < remain { 2 * i } else { i + remain };
        let span = |from: usize, to: usize| {
            if from == to {
                return (0, 0);
            }
            let start = displs[first(from)];
            let last = if to - 1 < remain {
                2 * (to - 1) + 1
            } else {
                to - 1 + remain
            };
            (start, displs[last] + counts[last] - start)
        };
        let (mut send_index, mut recv_index, mut last_index) = (0, 0, pof2);
        let mut mask = pof2 >> 1;
        while mask > 0 {
            let vpeer = v ^ mask;
            let peer = if vpeer < remain {
                2 * vpeer + 1
            } else {
                vpeer + remain
            };
            let (sent, kept) = if v < vpeer {
                send_index = recv_index + mask;
                ((send_index, last_index), (recv_index, send_index))
            } else {
                recv_index = send_index + mask;
                ((send_index, recv_index), (recv_index, last_index))
            };
            let (s_at, s_len) = span(sent.0, sent.1);
            let (r_at, r_len) = span(kept.0, kept.1);
            let mut comm = Vec::new();
            if r_len > 0 {
                comm.push(recv(peer, incoming.sub(r_at, r_len)));
            }
            if s_len > 0 {
                comm.push(send(peer, result.sub(s_at, s_len)));
            }
            let local = if r_len > 0 {
                vec![Local::Reduce {
                    input: incoming.sub(r_at, r_len),
                    inout: result.sub(r_at, r_len),
                }]
            } else {
                vec![]
            };
            b.round(comm, local);
            send_index = recv_index;
            last_index = recv_index + mask;
            mask >>= 1;
        }
        b.copy(
            result.sub(displs[rank], counts[rank]),
            Buf::Recv.block(0, counts[rank]),
        );
    }
    if rank < 2 * remain {
        if rank.is_multiple_of(2) {
            if counts[rank] > 0 {
                b.round(
                    vec![recv(rank + 1, Buf::Recv.block(0, counts[rank]))],
                    vec![],
                );
            }
        } else if counts[rank - 1] > 0 {
            b.round(
                vec![send(
                    rank - 1,
                    result.sub(displs[rank - 1], counts[rank - 1]),
                )],
                vec![],
            );
        }
    }
    b.finish()
}

/// Open MPI's ring reduce-scatter pass, for commutative operations: ring
/// position i's piece is `piece(i)` (a block of the accumulator, which
/// holds the rank's contribution). Step 1 sends piece `rank` to the right
/// neighbour; receive k (1 .. p-1) brings the left neighbour's partial
/// piece `rank - k`, which is folded in and, but for the last, passed on.
/// Two receives are in flight (the next is posted before waiting for the
/// current) and sends block, as in Open MPI; receives alternate between
/// the two halves of `slots` (each as long as the largest piece). At the
/// end the accumulator's piece `rank + 1` holds the full reduction.
pub(crate) fn ring_reduce_scatter(
    b: &mut Builder,
    rank: usize,
    size: usize,
    piece: impl Fn(usize) -> Block,
    slots: Block,
) {
    let half = slots.count / 2;
    let (right, left) = ((rank + 1) % size, (rank + size - 1) % size);
    let from = |k: usize| piece((rank + size - k) % size);
    let slot = |k: usize| slots.sub((k % 2) * half, from(k).count);
    b.round_deferring(
        vec![send(right, piece(rank))],
        vec![],
        vec![(recv(left, slot(1)), 1)],
    );
    // Step k posts receive k, waits for receive k - 1 and folds it in;
    // the send of the result is a round of its own, so the receive is due
    // two rounds later. The last step only waits and folds.
    for k in 2..=size {
        let fold = vec![Local::Reduce {
            input: slot(k - 1),
            inout: from(k - 1),
        }];
        let post = (k < size).then(|| (recv(left, slot(k)), 2));
        b.round_deferring(vec![], fold, post.into_iter().collect());
        if k < size {
            b.round(vec![send(right, from(k - 1))], vec![]);
        }
    }
}

/// Reduce `total` elements to rank 0 into scratch, then scatter block `i`
/// as laid out by `slots` to rank `i`'s `Recv[0..]`. Only rank 0 reads the
/// displacements of `slots`; the others read their own count.
fn reduce_then_scatterv(
    at: Position,
    total: usize,
    slots: Layout,
    commutative: bool,
    in_place: bool,
) -> Schedule {
    let from_0 = at.with_root(0);
    let mut b = Builder::new();
    let input = contribution(in_place, 0, total);
    // Only rank 0 holds the full reduction; the others never touch the
    // output block, so they need no scratch.
    let output = if at.rank == 0 {
        b.tmp(total).block(0, total)
    } else {
        Buf::Recv.block(0, 0)
    };
    reduce_into(
        &mut b,
        ReduceAlgorithm::Default,
        from_0,
        commutative,
        input,
        output,
        1, // the default reduce does not segment
    );
    let dest = Buf::Recv.block(0, slots.count(at.rank));
    scatterv_into(&mut b, from_0, output.buf, slots, dest, false);
    b.finish()
}

/// Where a rank's contribution lives.
pub(crate) fn contribution(in_place: bool, offset: usize, count: usize) -> Block {
    if in_place {
        Buf::Recv.block(offset, count)
    } else {
        Buf::Send.block(offset, count)
    }
}

/// The local steps folding `incoming` (a partner's partial result) into
/// `acc`, keeping rank order: `acc = incoming op acc` when the partner's
/// ranks are below ours (or the operation commutes, as MPICH does), else
/// `acc = acc op incoming`, computed in `incoming` and copied back.
pub(crate) fn combine(
    incoming: Block,
    acc: Block,
    partner_below: bool,
    commutative: bool,
) -> Vec<Local> {
    if partner_below || commutative {
        vec![Local::Reduce {
            input: incoming,
            inout: acc,
        }]
    } else {
        vec![
            Local::Reduce {
                input: acc,
                inout: incoming,
            },
            Local::Copy {
                from: incoming,
                to: acc,
            },
        ]
    }
}

/// Appends a reduction of `input` (at every rank) into `output` (at `root`)
/// to `b`. `input == output` means in place at the root; otherwise the two
/// blocks must not overlap. `elem_bytes` (the datatype's size) only matters
/// to the segmented algorithms.
pub(crate) fn reduce_into(
    b: &mut Builder,
    alg: ReduceAlgorithm,
    at: RootedPosition,
    commutative: bool,
    input: Block,
    output: Block,
    elem_bytes: usize,
) {
    use ReduceAlgorithm as A;
    let RootedPosition { rank, size, root } = at;
    let count = input.count;
    let bytes = count.saturating_mul(elem_bytes);
    let segmented = |b: &mut Builder, segsize: usize, tree: Tree| {
        let seg = segment_count(segsize, elem_bytes, count);
        reduce_tree_segments(b, &tree, input, output, seg);
    };
    match alg {
        A::Binomial => reduce_binomial(b, rank, size, root, commutative, input, output),
        A::ScatterGather if commutative => {
            reduce_scatter_gather(b, rank, size, root, input, output)
        }
        A::ScatterGather => reduce_binomial(b, rank, size, root, commutative, input, output),
        // Open MPI's trees are for commutative operations; for the others
        // its decision (and so ours) takes the in-order binary tree.
        A::OmpiInOrderBinary => reduce_in_order_binary(b, rank, size, root, input, output),
        A::OmpiChain | A::OmpiPipeline | A::OmpiBinary | A::OmpiBinomial if !commutative => {
            reduce_in_order_binary(b, rank, size, root, input, output)
        }
        A::OmpiChain => segmented(b, 64 << 10, chain(size / 2, rank, size, root)),
        A::OmpiPipeline => segmented(
            b,
            pipeline_segment_bytes(size, bytes),
            chain(1, rank, size, root),
        ),
        A::OmpiBinary => segmented(b, 32 << 10, kary(2, rank, size, root)),
        A::OmpiBinomial => segmented(
            b,
            binomial_segment_bytes(size, bytes, count),
            in_order_bmtree(rank, size, root),
        ),
        A::Default | A::OmpiBasicLinear => {
            if rank != root {
                // Both algorithms: non-roots just send their contribution.
                b.round(vec![send(root, input)], vec![]);
            } else if alg == A::OmpiBasicLinear || !commutative {
                reduce_basic_linear_root(b, rank, size, input, output);
            } else {
                reduce_nb_linear_root(b, rank, size, input, output);
            }
        }
    }
}

/// Root side of SimGrid's non-blocking linear reduce (`colls::ireduce`):
/// all receives posted at once into one scratch slot per sender, then
/// `acc = x_root`, and `acc = x_s op acc` for every sender `s` in increasing
/// rank order. Scratch: `(size - 1) * count` elements, as in SimGrid.
fn reduce_nb_linear_root(b: &mut Builder, root: usize, size: usize, input: Block, output: Block) {
    let count = input.count;
    let senders = size - 1;
    let mut comm = Vec::with_capacity(senders);
    let mut local = Vec::with_capacity(senders + 1);
    if input != output {
        local.push(Local::Copy {
            from: input,
            to: output,
        });
    }
    if senders > 0 {
        let tmp = b.tmp(senders * count);
        for (k, src) in (0..size).filter(|&s| s != root).enumerate() {
            let slot = tmp.block(k * count, count);
            comm.push(recv(src, slot));
            local.push(Local::Reduce {
                input: slot,
                inout: output,
            });
        }
    }
    b.round(comm, local);
}

/// Root side of Open MPI's `reduce_intra_basic_linear`: blocking receives
/// one at a time, first from rank p-1 straight into the accumulator, then
/// from p-2 down to 0 into one scratch block, each folded in as
/// `acc = x_i op acc`. One round per receive because the receives really
/// are sequential in SimGrid, which changes simulated times for large
/// messages.
fn reduce_basic_linear_root(
    b: &mut Builder,
    root: usize,
    size: usize,
    input: Block,
    output: Block,
) {
    let count = input.count;
    let last = size - 1;
    let in_place = input == output;
    // In place, the root's contribution sits in the output buffer and is
    // needed after the accumulator starts (unless the root is the last
    // rank, whose contribution *is* the initial accumulator), so accumulate
    // in scratch and copy at the end, as Open MPI does.
    let acc = if in_place && root != last {
        b.tmp(count).block(0, count)
    } else {
        output
    };
    if root == last {
        b.copy(input, acc);
    } else {
        b.round(vec![recv(last, acc)], vec![]);
    }
    // Scratch for the incoming contributions, allocated only if some rank
    // other than the root is below the last one.
    let mut incoming = None;
    for i in (0..last).rev() {
        if i == root {
            b.local(Local::Reduce { input, inout: acc });
        } else {
            let incoming = *incoming.get_or_insert_with(|| b.tmp(count).block(0, count));
            b.round(
                vec![recv(i, incoming)],
                vec![Local::Reduce {
                    input: incoming,
                    inout: acc,
                }],
            );
        }
    }
    b.copy(acc, output);
}

/// SimGrid's `scatter_gather` (MPICH's Rabenseifner reduce), for
/// commutative operations: the odd ranks among the first 2r (r = p minus
/// the largest power of two below it) fold onto their even neighbour;
/// the power of two of remaining ranks reduce-scatter by recursive
/// halving (block i of p' has n / p' elements, the last one the rest),
/// then gather the pieces towards the root by recursive doubling, each
/// rank sending its whole subtree's part once the root's half is reached.
/// Fewer elements than ranks are padded to p, as MPICH does: messages
/// carry the padding, reductions only the real elements.
fn reduce_scatter_gather(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    input: Block,
    output: Block,
) {
    let count = input.count;
    if count == 0 {
        return;
    }
    let n = count.max(size);
    let acc = b.tmp(n).block(0, n);
    let incoming = b.tmp(n).block(0, n);
    b.copy(input, acc.sub(0, count));
    // Reduce the real elements of [at, at + len) of `incoming` into `acc`.
    let fold = |at: usize, len: usize| {
        let real = len.min(count.saturating_sub(at));
        if real == 0 {
            vec![]
        } else {
            vec![Local::Reduce {
                input: incoming.sub(at, real),
                inout: acc.sub(at, real),
            }]
        }
    };
    let pof2 = 1 << size.ilog2();
    let rem = size - pof2;
    let mut newrank = if rank < 2 * rem {
        if !rank.is_multiple_of(2) {
            b.round(vec![send(rank - 1, acc)], vec![]);
            None
        } else {
            b.round(vec![recv(rank + 1, incoming)], fold(0, n));
            Some(rank / 2)
        }
    } else {
        Some(rank - rem)
    };
    let real = |v: usize| if v < rem { 2 * v } else { v + rem };
    let cnt = |i: usize| {
        if i + 1 < pof2 {
            n / pof2
        } else {
            n - (n / pof2) * (pof2 - 1)
        }
    };
    let disp = |i: usize| i * (n / pof2);
    let span = |from: usize, to: usize| (disp(from), (from..to).map(cnt).sum::<usize>());
    let mut idx = Halving::new(pof2);
    if let Some(v) = newrank {
        let mut mask = 1;
        while mask < pof2 {
            let vd = v ^ mask;
            let [sent, got] = idx.halve(v, vd, mask);
            let (s_at, s_len) = span(sent.0, sent.1);
            let (r_at, r_len) = span(got.0, got.1);
            b.round(
                vec![
                    send(real(vd), acc.sub(s_at, s_len)),
                    recv(real(vd), incoming.sub(r_at, r_len)),
                ],
                fold(r_at, r_len),
            );
            mask <<= 1;
        }
    }
    // Gather to the root. An odd root among the folded ranks had its
    // even neighbour work for it: virtual rank 0 hands it block 0 and the
    // root takes its place.
    let odd_root = root < 2 * rem && !root.is_multiple_of(2);
    let newroot = if odd_root {
        if rank == root {
            b.round(vec![recv(0, acc.sub(0, cnt(0)))], vec![]);
            newrank = Some(0);
            idx.send_idx = 0;
            idx.last_idx = 2;
        } else if newrank == Some(0) {
            b.round(vec![send(root, acc.sub(0, cnt(0)))], vec![]);
            newrank = None;
        }
        0
    } else if root < 2 * rem {
        root / 2
    } else {
        root - rem
    };
    if let Some(v) = newrank {
        let mut j = pof2.ilog2();
        let mut mask = pof2 >> 1;
        while mask > 0 {
            j -= 1;
            let vd = v ^ mask;
            let dst = if vd == 0 && odd_root { root } else { real(vd) };
            let [sent, got] = idx.double(v, vd, mask);
            if (vd >> j) == (newroot >> j) {
                let (at, len) = span(sent.0, sent.1);
                b.round(vec![send(dst, acc.sub(at, len))], vec![]);
                break;
            }
            let (at, len) = span(got.0, got.1);
            b.round(vec![recv(dst, acc.sub(at, len))], vec![]);
            mask >>= 1;
        }
    }
    if rank == root {
        b.copy(acc.sub(0, count), output);
    }
}

/// SimGrid's `binomial` (MPICH's binomial tree): relative to the root (to
/// rank 0 for non-commutative operations, which then sends to the root),
/// each rank receives from relrank | 2^k for the low zero bits k of its
/// relative rank, folding each partial result in, then sends its own to
/// relrank without bit k. Nothing moves for zero elements, as in SimGrid.
fn reduce_binomial(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    commutative: bool,
    input: Block,
    output: Block,
) {
    let count = input.count;
    if count == 0 {
        return;
    }
    let lroot = if commutative { root } else { 0 };
    let relrank = (rank + size - lroot) % size;
    let acc = if rank == root {
        output
    } else {
        b.tmp(count).block(0, count)
    };
    b.copy(input, acc);
    let incoming = b.tmp(count).block(0, count);
    let mut mask = 1;
    while mask < size {
        if relrank & mask == 0 {
            let source = relrank | mask;
            if source < size {
                // The child's ranks are above ours.
                let local = combine(incoming, acc, false, commutative);
                b.round(vec![recv((source + lroot) % size, incoming)], local);
            }
        } else {
            let dst = ((relrank & !mask) + lroot) % size;
            b.round(vec![send(dst, acc)], vec![]);
            break;
        }
        mask <<= 1;
    }
    if !commutative && root != 0 {
        if rank == 0 {
            b.round(vec![send(root, acc)], vec![]);
        } else if rank == root {
            b.round(vec![recv(0, acc)], vec![]);
        }
    }
}
