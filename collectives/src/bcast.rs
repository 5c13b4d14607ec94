//! `MPI_Bcast`.

use crate::allgather::rdb_blocks;
use crate::error::{check_rooted, CollError};
use crate::params::{RootedPosition, Tuning};
use crate::registry::BcastAlgorithm;
use crate::schedule::{recv, send, Block, Buf, Builder, Schedule};
use crate::tree::{chain, kary, segment_count, Tree};

/// `MPI_Bcast` of `count` elements with SimGrid's default algorithm
/// (`binomial_tree`). The broadcast buffer is `Buf::Recv` at every rank,
/// the root included.
pub fn bcast(at: RootedPosition, count: usize) -> Result<Schedule, CollError> {
    bcast_with(BcastAlgorithm::Default, at, count, Tuning::default())
}

/// `MPI_Bcast` with a chosen algorithm; see [`bcast`]. It reads
/// `tuning.elem_bytes` (the datatype's size): the pipelined algorithms cut
/// the message into segments of as many bytes as SimGrid's do.
pub fn bcast_with(
    alg: BcastAlgorithm,
    at: RootedPosition,
    count: usize,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let mut b = Builder::new();
    bcast_into(
        &mut b,
        alg,
        at,
        Buf::Recv.block(0, count),
        tuning.elem_bytes,
    );
    Ok(b.finish())
}

/// Appends the broadcast of `data` with `alg` to `b`; see [`bcast_with`].
pub(crate) fn bcast_into(
    b: &mut Builder,
    alg: BcastAlgorithm,
    at: RootedPosition,
    data: Block,
    elem_bytes: usize,
) {
    let RootedPosition { rank, size, root } = at;
    let count = data.count;
    let flattree = BcastAlgorithm::Flattree;
    match alg {
        BcastAlgorithm::Default | BcastAlgorithm::BinomialTree => {
            bcast_binomial_into(b, rank, size, root, data)
        }
        BcastAlgorithm::Flattree => {
            if rank == root {
                b.round(
                    (0..size)
                        .filter(|&r| r != root)
                        .map(|r| send(r, data))
                        .collect(),
                    vec![],
                );
            } else {
                b.round(vec![recv(root, data)], vec![]);
            }
        }
        BcastAlgorithm::ScatterLrAllgather => {
            let slice = scatter_for_bcast(b, rank, size, root, data);
            ring_allgather_slices(b, rank, size, root, slice);
        }
        BcastAlgorithm::ScatterRdbAllgather => {
            let slice = scatter_for_bcast(b, rank, size, root, data);
            let rel = (rank + size - root) % size;
            rdb_blocks(
                b,
                rel,
                size,
                |r| (r + root) % size,
                |first, n| slice.span(first, n),
            );
        }
        BcastAlgorithm::OmpiPipeline => {
            let segsize = pipeline_segment_bytes(size, count.saturating_mul(elem_bytes));
            let seg = segment_count(segsize, elem_bytes, count);
            let tree = chain(1, rank, size, root);
            bcast_tree_segments(b, &tree, data, seg);
        }
        BcastAlgorithm::Ntsl => bcast_ntsl(b, rank, size, root, data, elem_bytes),
        BcastAlgorithm::Ntsb => bcast_ntsb(b, rank, size, root, data, elem_bytes),
        BcastAlgorithm::Mvapich2KnomialIntraNode => bcast_knomial(b, rank, size, root, data, 4),
        BcastAlgorithm::OmpiSplitBintree => {
            if !bcast_split_bintree(b, rank, size, root, data, elem_bytes) {
                bcast_into(b, flattree, at, data, elem_bytes);
            }
        }
        BcastAlgorithm::FlattreePipeline => {
            let seg = (8192 / elem_bytes.max(1)).max(1);
            if count < seg {
                // SimGrid falls back to the flat tree.
                return bcast_into(b, flattree, at, data, elem_bytes);
            }
            let segments: Vec<Block> = (0..count.div_ceil(seg))
                .map(|k| data.sub(k * seg, seg.min(count - k * seg)))
                .collect();
            if rank == root {
                for r in (0..size).filter(|&r| r != root) {
                    for &segment in &segments {
                        b.round(vec![send(r, segment)], vec![]);
                    }
                }
            } else {
                b.round(segments.iter().map(|&s| recv(root, s)).collect(), vec![]);
            }
        }
    }
}

/// The segment size of SimGrid's `ompi_pipeline` bcast (Open MPI's fitted
/// decision): 128 KiB, 64 KiB or 16 KiB by communicator and message size.
fn pipeline_segment_bytes(size: usize, bytes: usize) -> usize {
    let (p, m) = (size as f64, bytes as f64);
    if p < 1.6134e-6 * m + 2.1102 {
        128 << 10
    } else if p < 2.3679e-6 * m + 1.1787 {
        64 << 10
    } else if p < 3.2118e-6 * m + 8.7936 {
        16 << 10
    } else {
        128 << 10
    }
}

/// Open MPI's generic broadcast down `tree` in segments of `seg` elements,
/// as SimGrid runs it: the root sends each segment to all its children and
/// waits for them before the next; the others keep two receives in flight,
/// posting the receive of segment k + 1 before waiting for segment k, and
/// an inner rank forwards segment k to its children (waiting for those
/// sends) before it goes on.
pub(crate) fn bcast_tree_segments(b: &mut Builder, tree: &Tree, data: Block, seg: usize) {
    let count = data.count;
    if count == 0 {
        return;
    }
    let n = count.div_ceil(seg);
    let segment = |k: usize| data.sub(k * seg, seg.min(count - k * seg));
    let forward = |k: usize| {
        tree.children
            .iter()
            .map(move |&c| send(c, segment(k)))
            .collect()
    };
    let Some(parent) = tree.parent else {
        (0..n).for_each(|k| b.round(forward(k), vec![]));
        return;
    };
    // Round k posts the receive of segment k and waits for segment k - 1,
    // which an inner rank then forwards in a round of its own: the
    // receive is due two rounds later there, one on a leaf.
    let inner = !tree.children.is_empty();
    let due = if inner { 2 } else { 1 };
    for k in 0..=n {
        let next = (k < n).then(|| (recv(parent, segment(k)), if k == 0 { 1 } else { due }));
        b.round_deferring(vec![], vec![], next.into_iter().collect());
        if inner && k > 0 {
            b.round(forward(k - 1), vec![]);
        }
    }
}

/// SimGrid's `NTSL` ("non-topology-specific linear"): the root first sends
/// everything to rank 0 (unless it is rank 0), then the data flows along
/// the chain 0, 1, ..., p - 1 in segments of 8 KiB; the elements that do
/// not fill a last segment follow the same way, whole. Messages of one
/// segment or less go down the chain whole. Every
/// rank posts all its segments at once, so they share the link and arrive
/// together: SimGrid's inner ranks forward each one as it arrives, which
/// then is all of them at about the same moment, as here.
fn bcast_ntsl(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
    elem_bytes: usize,
) {
    if size == 1 {
        return;
    }
    let count = data.count;
    root_to_rank_zero(b, rank, root, data);
    let seg = (8192 / elem_bytes.max(1)).max(1);
    let (to, from) = ((rank + 1) % size, (rank + size - 1) % size);
    if count <= seg {
        if rank != 0 {
            b.round(vec![recv(from, data)], vec![]);
        }
        if rank != size - 1 {
            b.round(vec![send(to, data)], vec![]);
        }
        return;
    }
    let pipe = count / seg;
    let segment = |k: usize| data.sub(k * seg, seg);
    if rank == 0 {
        b.round((0..pipe).map(|k| send(to, segment(k))).collect(), vec![]);
    } else if rank == size - 1 {
        b.round((0..pipe).map(|k| recv(from, segment(k))).collect(), vec![]);
    } else {
        b.round((0..pipe).map(|k| recv(from, segment(k))).collect(), vec![]);
        b.round((0..pipe).map(|k| send(to, segment(k))).collect(), vec![]);
    }
    let rest = count % seg;
    if rest > 0 {
        // SimGrid runs the configured bcast (NTSL itself) on the rest,
        // which fits one segment.
        let rest = data.sub(pipe * seg, rest);
        bcast_ntsl(b, rank, size, root, rest, elem_bytes);
    }
}

/// SimGrid's `NTSB` ("non-topology-specific binary"): like [`bcast_ntsl`]
/// but down the binary heap rooted at rank 0 (rank r's children are 2r+1
/// and 2r+2): the root first sends everything to rank 0, then segments
/// of 8 KiB go down the tree, each rank posting all its receives and, as
/// they arrive together, forwarding them all to both children; the rest
/// follows the same way, whole. Messages of one segment or less go down
/// whole, the left child first.
fn bcast_ntsb(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
    elem_bytes: usize,
) {
    if size == 1 {
        return;
    }
    let count = data.count;
    root_to_rank_zero(b, rank, root, data);
    let parent = (rank > 0).then(|| (rank - 1) / 2);
    let children: Vec<usize> = [2 * rank + 1, 2 * rank + 2]
        .into_iter()
        .filter(|&c| c < size)
        .collect();
    let seg = (8192 / elem_bytes.max(1)).max(1);
    if count <= seg {
        if let Some(p) = parent {
            b.round(vec![recv(p, data)], vec![]);
        }
        for &c in &children {
            b.round(vec![send(c, data)], vec![]);
        }
        return;
    }
    let pipe = count / seg;
    let segment = |k: usize| data.sub(k * seg, seg);
    if let Some(p) = parent {
        b.round((0..pipe).map(|k| recv(p, segment(k))).collect(), vec![]);
    }
    let forward = (0..pipe).flat_map(|k| children.iter().map(move |&c| send(c, segment(k))));
    b.round(forward.collect(), vec![]);
    let rest = count % seg;
    if rest > 0 {
        // SimGrid runs the configured bcast (NTSB itself) on the rest.
        bcast_ntsb(b, rank, size, root, data.sub(pipe * seg, rest), elem_bytes);
    }
}

/// MVAPICH2's k-nomial broadcast (SimGrid's `mvapich2_knomial_intra_node`,
/// which Open MPI's decision table uses as its knomial): relative to the
/// root, rank v receives from v rounded down to a multiple of k * m, m
/// the largest power of k not dividing v; then for each power m of k
/// below that, largest first, sends to v + j m (j = 1 .. k - 1) at once.
/// (SimGrid's first SMP-aware call on a communicator also discovers its
/// nodes, with messages of its own; that is not modelled.)
fn bcast_knomial(b: &mut Builder, rank: usize, size: usize, root: usize, data: Block, k: usize) {
    let rel = (rank + size - root) % size;
    let mut mask = 1;
    while mask < size {
        if !rel.is_multiple_of(k * mask) {
            let src = (rel / (k * mask) * (k * mask) + root) % size;
            b.round(vec![recv(src, data)], vec![]);
            break;
        }
        mask *= k;
    }
    mask /= k;
    while mask > 0 {
        let sends = (1..k)
            .filter(|&j| rel + mask * j < size)
            .map(|j| send((rank + mask * j) % size, data))
            .collect();
        b.round(sends, vec![]);
        mask /= k;
    }
}

/// Open MPI's split binary tree (SimGrid's `ompi_split_bintree`): the
/// message is cut in two halves; the root sends the segments of the
/// first half down its left subtree (odd ranks relative to the root) and
/// those of the second down its right one (even ranks), alternating,
/// each a blocking send; inner ranks keep two receives in flight and
/// forward each segment to their children one after the other; leaves
/// receive one segment after the other. Then each rank swaps halves with
/// its partner in the other subtree (the last rank, with an even number
/// of ranks, gets the second half from the root). Segments are 1 KiB, or
/// 8 KiB from 362 KiB up. False (nothing built) when a half is shorter
/// than one segment, where SimGrid runs an SMP-aware linear broadcast.
fn bcast_split_bintree(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
    elem_bytes: usize,
) -> bool {
    if size == 1 {
        return true;
    }
    let count = data.count;
    let elem = elem_bytes.max(1);
    let segsize = if count.saturating_mul(elem) < 370728 {
        1024
    } else {
        8192
    }
    .max(elem);
    let seg = segsize / elem;
    let halves = [count.div_ceil(2), count / 2];
    if halves.iter().any(|&h| h == 0 || segsize > h * elem) {
        return false;
    }
    let half = |i: usize| data.sub(if i == 0 { 0 } else { halves[0] }, halves[i]);
    let segments = |i: usize| halves[i].div_ceil(seg);
    let segment = |i: usize, k: usize| half(i).sub(k * seg, seg.min(halves[i] - k * seg));
    let tree = kary(2, rank, size, root);
    let shifted = (rank + size - root) % size;
    let lr = (shifted + 1) % 2;
    if rank == root {
        for k in 0..segments(0) {
            for (i, &child) in tree.children.iter().enumerate().take(2) {
                if k < segments(i) {
                    b.round(vec![send(child, segment(i, k))], vec![]);
                }
            }
        }
    } else if let Some(parent) = tree.parent {
        let n = segments(lr);
        if tree.children.is_empty() {
            for k in 0..n {
                b.round(vec![recv(parent, segment(lr, k))], vec![]);
            }
        } else {
            // Step k posts the receive of segment k and waits for segment
            // k - 1, which then goes to each child in a round of its own.
            let due = 1 + tree.children.len();
            for k in 0..=n {
                let next =
                    (k < n).then(|| (recv(parent, segment(lr, k)), if k == 0 { 1 } else { due }));
                b.round_deferring(vec![], vec![], next.into_iter().collect());
                if k > 0 {
                    for &child in &tree.children {
                        b.round(vec![send(child, segment(lr, k - 1))], vec![]);
                    }
                }
            }
        }
    }
    let pair = if lr == 0 {
        (rank + 1) % size
    } else {
        (rank + size - 1) % size
    };
    let last = (root + size - 1) % size;
    let swap = |b: &mut Builder| {
        b.round(vec![send(pair, half(lr)), recv(pair, half(1 - lr))], vec![]);
    };
    if size % 2 == 1 {
        if rank != root {
            swap(b);
        }
    } else if rank == root {
        b.round(vec![send(last, half(1))], vec![]);
    } else if rank == last {
        b.round(vec![recv(root, half(1))], vec![]);
    } else {
        swap(b);
    }
    true
}

/// SimGrid's NTS* broadcasts start from rank 0: another root first sends
/// it everything.
fn root_to_rank_zero(b: &mut Builder, rank: usize, root: usize, data: Block) {
    if root != 0 {
        if rank == root {
            b.round(vec![send(0, data)], vec![]);
        } else if rank == 0 {
            b.round(vec![recv(root, data)], vec![]);
        }
    }
}

/// The slices of a scatter-allgather broadcast: `size` slices of
/// ceil(count / size) units, relative rank r holding slice r; the last
/// ones may be short or empty.
#[derive(Clone, Copy)]
struct Slices {
    slice: usize,
    data: Block,
}

impl Slices {
    /// Slices `first .. first + n` (relative ranks) as one block.
    fn span(self, first: usize, n: usize) -> Block {
        let start = (first * self.slice).min(self.data.count);
        let end = ((first + n) * self.slice).min(self.data.count);
        self.data.sub(start, end - start)
    }
}

/// MPICH's `scatter_for_bcast`, the first half of both scatter-allgather
/// broadcasts: a binomial scatter from the root of `size` slices of
/// ceil(count / size) units (relative rank r gets slice r; the units stay
/// at their offsets in the buffer). SimGrid counts units in bytes; the
/// engine passes the byte count for contiguous datatypes.
fn scatter_for_bcast(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
) -> Slices {
    let slices = Slices {
        slice: data.count.div_ceil(size),
        data,
    };
    let rel = (rank + size - root) % size;
    // Receive our subtree's units from the parent.
    let mut mask = 1;
    while mask < size {
        if rel & mask != 0 {
            let block = slices.span(rel, mask);
            if block.count > 0 {
                let parent = (rank + size - mask) % size;
                b.round(vec![recv(parent, block)], vec![]);
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < size {
            let block = slices.span(rel + mask, mask);
            if block.count > 0 {
                let child = (rank + mask) % size;
                b.round(vec![send(child, block)], vec![]);
            }
        }
        mask >>= 1;
    }
    slices
}

/// The second half of SimGrid's `scatter_LR_allgather` (MPICH's
/// long-message bcast): a ring allgather of the slices, p - 1 sendrecvs
/// with the neighbours, empty slices included.
fn ring_allgather_slices(b: &mut Builder, rank: usize, size: usize, root: usize, slices: Slices) {
    let slice_of = |r: usize| slices.span((r + size - root) % size, 1);
    let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);
    let (mut src, mut next) = (rank, left);
    for _ in 1..size {
        b.round(
            vec![send(right, slice_of(src)), recv(left, slice_of(next))],
            vec![],
        );
        src = next;
        next = (next + size - 1) % size;
    }
}

/// MPICH's binomial tree as in SimGrid's `bcast__binomial_tree`: with ranks
/// renumbered relative to the root, receive from the parent (clear the
/// lowest set bit), then send to the children in decreasing mask order.
/// SimGrid sends with blocking `send`, one child after the other, so each
/// send is its own round: with large (rendezvous) messages the second child
/// only starts once the first transfer completed, and the simulated time
/// depends on it.
pub(crate) fn bcast_binomial_into(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    data: Block,
) {
    let rel = (rank + size - root) % size;
    let mut mask = 1usize;
    while mask < size {
        if rel & mask != 0 {
            let parent = (rank + size - mask) % size;
            b.round(vec![recv(parent, data)], vec![]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < size {
            let child = (rank + mask) % size;
            b.round(vec![send(child, data)], vec![]);
        }
        mask >>= 1;
    }
}
