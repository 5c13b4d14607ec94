//! `MPI_Allgather(v)`.
//!
//! In place: a rank's own block is already in its receive buffer (at
//! `rank*recvcount`, or `displs[rank]` for allgatherv) and is sent from
//! there; `sendcount` is ignored.

use crate::bcast::bcast_into;
use crate::error::{check_blocks, check_len, check_rank, mul, CollError};
use crate::gather::gatherv_into;
use crate::params::{Blocks, GathervBlocks, Position, Tuning};
use crate::reduce::packed_displacements;
use crate::registry::{AllgatherAlgorithm, AllgathervAlgorithm, BcastAlgorithm};
use crate::schedule::{recv, send, Block, Buf, Builder, Layout, Schedule};

/// `MPI_Allgather`: rank `i`'s `Send[0..sendcount]` lands in every rank's
/// `Recv[i*recvcount..(i+1)*recvcount]`. SimGrid's default algorithm: each
/// rank posts, for every other rank in increasing order, a send of its
/// block and a receive of the peer's, all at once.
pub fn allgather(at: Position, blocks: Blocks) -> Result<Schedule, CollError> {
    allgather_with(AllgatherAlgorithm::Default, at, blocks)
}

/// `MPI_Allgather` with a chosen algorithm; see [`allgather`].
pub fn allgather_with(
    alg: AllgatherAlgorithm,
    at: Position,
    blocks: Blocks,
) -> Result<Schedule, CollError> {
    check_rank(at)?;
    let Position { rank, size } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    mul(size, recvcount, "allgather")?;
    let slots = Layout::Uniform(recvcount);
    let mut b = Builder::new();
    match alg {
        AllgatherAlgorithm::Default => {
            allgatherv_linear(&mut b, rank, size, sendcount, slots, in_place)
        }
        AllgatherAlgorithm::Ring => allgatherv_ring(&mut b, rank, size, sendcount, slots, in_place),
        AllgatherAlgorithm::Bruck => {
            let own = own_block(rank, sendcount, slots, in_place);
            allgather_bruck(&mut b, rank, size, recvcount, own)
        }
        AllgatherAlgorithm::Rdb => {
            let own = own_block(rank, sendcount, slots, in_place);
            allgather_rdb(&mut b, rank, size, recvcount, own)
        }
        // Open MPI falls back to the ring on odd sizes.
        AllgatherAlgorithm::OmpiNeighborExchange if size % 2 == 1 => {
            allgatherv_ring(&mut b, rank, size, sendcount, slots, in_place)
        }
        AllgatherAlgorithm::OmpiNeighborExchange => {
            let own = own_block(rank, sendcount, slots, in_place);
            allgather_neighbor_exchange(&mut b, rank, size, own, |first, n| {
                Buf::Recv.block(first * recvcount, n * recvcount)
            })
        }
    }
    Ok(b.finish())
}

/// Open MPI's neighbour exchange (SimGrid's `ompi_neighborexchange`), for
/// even sizes: even ranks pair with rank + 1 and odd ones with rank - 1 to
/// swap their blocks; then p/2 - 1 steps alternate between the two
/// neighbours, each passing on the pair of blocks it received last.
/// `blocks(first, n)` is where the blocks of ranks first..first+n lie, one
/// after the other.
fn allgather_neighbor_exchange(
    b: &mut Builder,
    rank: usize,
    size: usize,
    own: Block,
    blocks: impl Fn(usize, usize) -> Block,
) {
    b.copy(own, blocks(rank, 1));
    let even = rank.is_multiple_of(2);
    let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);
    let neighbor = if even { [right, left] } else { [left, right] };
    let step: [isize; 2] = if even { [2, -2] } else { [-2, 2] };
    let mut from = if even { [rank; 2] } else { [left; 2] };
    b.round(
        vec![
            send(neighbor[0], blocks(rank, 1)),
            recv(neighbor[0], blocks(neighbor[0], 1)),
        ],
        vec![],
    );
    let mut send_from = from[0];
    for i in 1..size / 2 {
        let par = i % 2;
        from[par] = (from[par] as isize + step[par]).rem_euclid(size as isize) as usize;
        b.round(
            vec![
                send(neighbor[par], blocks(send_from, 2)),
                recv(neighbor[par], blocks(from[par], 2)),
            ],
            vec![],
        );
        send_from = from[par];
    }
}

/// SimGrid's `rdb` allgather (MPICH's recursive doubling); see
/// [`rdb_blocks`].
fn allgather_rdb(b: &mut Builder, rank: usize, size: usize, rc: usize, own: Block) {
    b.copy(own, Buf::Recv.block(rank * rc, rc));
    rdb_blocks(
        b,
        rank,
        size,
        |r| r,
        |first, n| Buf::Recv.block(first * rc, n * rc),
    );
}

/// MPICH's recursive-doubling allgather of one block per rank, where `v`
/// is the calling rank's position (0..size), `rank_of` turns a position
/// into a rank, and `blocks(first, n)` is where the blocks of positions
/// first..first+n lie, one after the other. In step i each rank swaps
/// everything its subtree of 2^i positions holds with position XOR 2^i.
/// Where that partner does not exist (sizes that are not powers of two),
/// the ranks of the subtree that did receive pass the missing blocks down
/// a binomial tree to those that did not. Every count is known in
/// advance: after step i a rank holds exactly the blocks of its subtree of
/// 2^(i+1) positions.
pub(crate) fn rdb_blocks(
    b: &mut Builder,
    v: usize,
    size: usize,
    rank_of: impl Fn(usize) -> usize,
    blocks: impl Fn(usize, usize) -> Block,
) {
    // Blocks a subtree rooted at `root` of `width` positions holds.
    let held = |root: usize, width: usize| width.min(size - root);
    let (mut mask, mut i) = (1usize, 0u32);
    while mask < size {
        let dst = v ^ mask;
        let dst_root = (dst >> i) << i;
        let my_root = (v >> i) << i;
        if dst < size {
            b.round(
                vec![
                    send(rank_of(dst), blocks(my_root, held(my_root, mask))),
                    recv(rank_of(dst), blocks(dst_root, held(dst_root, mask))),
                ],
                vec![],
            );
        }
        if dst_root + mask > size {
            // Positions below my_root + completed received the partner
            // subtree's blocks; pass them to the others.
            let completed = size as isize - my_root as isize - mask as isize;
            let n = completed.max(0) as usize;
            let missing = blocks(my_root + mask, n);
            let mut k = i;
            let mut step = mask >> 1;
            while step > 0 {
                let peer = v ^ step;
                let limit = ((v >> k) << k) as isize + completed;
                let (r, p) = (v as isize, peer as isize);
                if peer > v && r < limit && p >= limit {
                    b.round(vec![send(rank_of(peer), missing)], vec![]);
                } else if peer < v && p < limit && r >= limit {
                    b.round(vec![recv(rank_of(peer), missing)], vec![]);
                }
                step >>= 1;
                k -= 1;
            }
        }
        mask <<= 1;
        i += 1;
    }
}

/// SimGrid's `bruck` allgather (MPICH's): the blocks gather in scratch in
/// rank order starting from our own; in step k every rank sends all it has
/// (2^k blocks) to rank - 2^k and receives as many from rank + 2^k; a last
/// step brings the remaining p - 2^floor(log2 p) blocks; then the scratch
/// is rotated into place (SimGrid's sendrecvs with itself: local copies).
fn allgather_bruck(b: &mut Builder, rank: usize, size: usize, rc: usize, own: Block) {
    let t = b.tmp(size * rc);
    b.copy(own, t.block(0, rc));
    let mut have = 1;
    while have <= size / 2 {
        b.round(
            vec![
                send((rank + size - have) % size, t.block(0, have * rc)),
                recv((rank + have) % size, t.block(have * rc, have * rc)),
            ],
            vec![],
        );
        have *= 2;
    }
    let rest = size - have;
    if rest > 0 {
        b.round(
            vec![
                send((rank + size - have) % size, t.block(0, rest * rc)),
                recv((rank + have) % size, t.block(have * rc, rest * rc)),
            ],
            vec![],
        );
    }
    b.copy(
        t.block(0, (size - rank) * rc),
        Buf::Recv.block(rank * rc, (size - rank) * rc),
    );
    b.copy(
        t.block((size - rank) * rc, rank * rc),
        Buf::Recv.block(0, rank * rc),
    );
}

/// `MPI_Allgatherv`: rank `i`'s `Send[0..sendcount]` lands in every rank's
/// `Recv[displs[i]..displs[i]+recvcounts[i]]`. `recvcounts` and `displs`
/// need one entry per rank at every rank. Same algorithm as [`allgather`].
pub fn allgatherv(at: Position, blocks: GathervBlocks) -> Result<Schedule, CollError> {
    allgatherv_with(AllgathervAlgorithm::Default, at, blocks, Tuning::default())
}

/// `MPI_Allgatherv` with a chosen algorithm; see [`allgatherv`]. `pair`
/// fails with [`CollError::NeedsPowerOfTwo`] unless `size` is a power of
/// two. It reads `tuning.elem_bytes` (the receive type's extent), which
/// sets `mpich_ring`'s pieces.
pub fn allgatherv_with(
    alg: AllgathervAlgorithm,
    at: Position,
    blocks: GathervBlocks,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_allgatherv(at, blocks)?;
    let Position { rank, size } = at;
    let GathervBlocks {
        sendcount,
        recvcounts,
        displs,
        in_place,
    } = blocks;
    let slots = Layout::PerRank {
        counts: recvcounts,
        displs,
    };
    let mut b = Builder::new();
    let mine = own_block(rank, sendcount, slots, in_place);
    match alg {
        AllgathervAlgorithm::Default => {
            allgatherv_linear(&mut b, rank, size, sendcount, slots, in_place)
        }
        AllgathervAlgorithm::Ring => {
            allgatherv_ring(&mut b, rank, size, sendcount, slots, in_place)
        }
        AllgathervAlgorithm::Pair => {
            if !size.is_power_of_two() {
                return Err(CollError::NeedsPowerOfTwo {
                    algorithm: "allgatherv pair",
                    size,
                });
            }
            let slot = |i: usize| slots.block(Buf::Recv, i);
            b.copy(mine, slot(rank));
            for i in 1..size {
                let peer = rank ^ i;
                b.round(vec![send(peer, mine), recv(peer, slot(peer))], vec![]);
            }
        }
        AllgathervAlgorithm::MpichRdb => {
            in_packed_scratch(&mut b, rank, recvcounts, displs, in_place, |b, blocks| {
                b.copy(mine, blocks(rank, 1));
                rdb_blocks(b, rank, size, |r| r, blocks);
            });
        }
        // Open MPI falls back to the ring on odd sizes.
        AllgathervAlgorithm::OmpiNeighborExchange if size % 2 == 1 => {
            allgatherv_ring(&mut b, rank, size, sendcount, slots, in_place)
        }
        AllgathervAlgorithm::OmpiNeighborExchange => {
            in_packed_scratch(&mut b, rank, recvcounts, displs, in_place, |b, blocks| {
                allgather_neighbor_exchange(b, rank, size, mine, blocks);
            });
        }
        AllgathervAlgorithm::Gb => {
            return allgatherv_gb(at, blocks, BcastAlgorithm::Default, tuning)
        }
        AllgathervAlgorithm::OmpiBruck => {
            allgatherv_bruck(&mut b, rank, size, mine, recvcounts, displs, in_place);
        }
        AllgathervAlgorithm::MpichRing => {
            allgatherv_mpich_ring(&mut b, at, blocks, tuning.elem_bytes)
        }
    }
    Ok(b.finish())
}

/// SimGrid's `GB` allgatherv: the default (linear) gatherv to rank 0, then
/// a broadcast from rank 0 of the receive buffer up to its last element,
/// gaps included, with `bcast` (SimGrid runs the bcast the selector
/// picks), which reads `tuning.elem_bytes` (the receive type's size).
/// (SimGrid broadcasts the receive buffer itself, gaps and all; here the
/// gaps stay as they were.)
pub fn allgatherv_gb(
    at: Position,
    blocks: GathervBlocks,
    bcast: BcastAlgorithm,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_allgatherv(at, blocks)?;
    let Position { rank, size } = at;
    let GathervBlocks {
        sendcount,
        recvcounts,
        displs,
        in_place,
    } = blocks;
    let slots = Layout::PerRank {
        counts: recvcounts,
        displs,
    };
    let mut b = Builder::new();
    let mine = own_block(rank, sendcount, slots, in_place);
    gatherv_into(&mut b, at.with_root(0), mine, slots, in_place && rank == 0);
    // Broadcast through scratch, so that the gaps between blocks, which
    // MPI leaves untouched, are not overwritten with rank 0's.
    let extent = (0..size)
        .map(|i| displs[i] + recvcounts[i])
        .max()
        .unwrap_or(0);
    let t = b.tmp(extent);
    let slot = |i: usize| (slots.block(Buf::Recv, i), slots.block(t, i));
    if rank == 0 {
        for i in 0..size {
            let (user, scratch) = slot(i);
            b.copy(user, scratch);
        }
    }
    bcast_into(
        &mut b,
        bcast,
        at.with_root(0),
        t.block(0, extent),
        tuning.elem_bytes,
    );
    if rank != 0 {
        for i in 0..size {
            let (user, scratch) = slot(i);
            b.copy(scratch, user);
        }
    }
    Ok(b.finish())
}

/// The argument checks of `MPI_Allgatherv`.
fn check_allgatherv(at: Position, blocks: GathervBlocks) -> Result<(), CollError> {
    check_rank(at)?;
    check_len("recvcounts", blocks.recvcounts, at.size)?;
    check_len("displs", blocks.displs, at.size)?;
    check_blocks(blocks.recvcounts, blocks.displs, "allgatherv").map(|_| ())
}

/// Runs `body` on a packed copy of the blocks in scratch, rank after rank
/// (where the blocks of consecutive ranks are one run, whatever the
/// displacements), given `blocks(first, n)`; then copies every block to
/// its place (but our own in place, which is there already).
fn in_packed_scratch(
    b: &mut Builder,
    rank: usize,
    counts: &[usize],
    displs: &[usize],
    in_place: bool,
    body: impl FnOnce(&mut Builder, &dyn Fn(usize, usize) -> Block),
) {
    let packed = packed_displacements(counts);
    let total: usize = counts.iter().sum();
    let t = b.tmp(total);
    let at = |first: usize| packed.get(first).copied().unwrap_or(total);
    body(b, &|first, n| t.block(at(first), at(first + n) - at(first)));
    for j in (0..counts.len()).filter(|&j| !(in_place && j == rank)) {
        b.copy(
            t.block(packed[j], counts[j]),
            Buf::Recv.block(displs[j], counts[j]),
        );
    }
}

/// Open MPI's Bruck allgatherv (SimGrid's `ompi_bruck`): at distance d =
/// 1, 2, 4, ... every rank sends the blocks of ranks rank .. rank+n-1
/// (cyclically; n = d, or what is left at the last step) to rank - d and
/// receives those of rank+d .. rank+d+n-1 from rank + d, each as one
/// message (Open MPI uses an indexed datatype). Here the blocks are packed
/// twice over in scratch, so that any cyclic run of ranks is one run of
/// elements; each received run is copied to its other copy.
fn allgatherv_bruck(
    b: &mut Builder,
    rank: usize,
    size: usize,
    own: Block,
    counts: &[usize],
    displs: &[usize],
    in_place: bool,
) {
    let packed = packed_displacements(counts);
    let total: usize = counts.iter().sum();
    let t = b.tmp(2 * total);
    // The cyclic run of n ranks from `first`, in the first copy onwards.
    let run = |first: usize, n: usize| {
        let len: usize = (first..first + n).map(|r| counts[r % size]).sum();
        t.block(packed[first % size], len)
    };
    // The same elements in the other copy (runs may straddle both).
    let mirror = |blk: Block| -> Vec<(Block, Block)> {
        let (lo, hi) = (blk.offset, blk.end());
        let mut pairs = Vec::new();
        if lo < total {
            let end = hi.min(total);
            pairs.push((t.block(lo, end - lo), t.block(lo + total, end - lo)));
        }
        if hi > total {
            let start = lo.max(total);
            pairs.push((
                t.block(start, hi - start),
                t.block(start - total, hi - start),
            ));
        }
        pairs
    };
    b.copy(own, run(rank, 1));
    for (from, to) in mirror(run(rank, 1)) {
        b.copy(from, to);
    }
    let mut d = 1;
    while d < size {
        let n = if d <= size / 2 { d } else { size - d };
        let (to, from) = ((rank + size - d) % size, (rank + d) % size);
        let incoming = run(from, n);
        b.round(vec![send(to, run(rank, n)), recv(from, incoming)], vec![]);
        for (a, m) in mirror(incoming) {
            b.copy(a, m);
        }
        d <<= 1;
    }
    for j in (0..size).filter(|&j| !(in_place && j == rank)) {
        b.copy(
            t.block(packed[j], counts[j]),
            Buf::Recv.block(displs[j], counts[j]),
        );
    }
}

/// MPICH's ring allgatherv (SimGrid's `mpich_ring`): each step sends the
/// right neighbour the block received last (our own first) and receives
/// the next one from the left, both cut into pieces of at most `min`
/// elements, `min` being the smallest block or 256 KiB worth of elements,
/// whichever is larger. Send and receive pieces advance independently,
/// so a step may only send or only receive.
fn allgatherv_mpich_ring(b: &mut Builder, at: Position, blocks: GathervBlocks, elem_bytes: usize) {
    let Position { rank, size } = at;
    let GathervBlocks {
        sendcount,
        recvcounts: counts,
        displs,
        in_place,
    } = blocks;
    if !in_place {
        b.copy(
            Buf::Send.block(0, sendcount),
            Buf::Recv.block(displs[rank], counts[rank]),
        );
    }
    let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);
    let total: usize = counts.iter().sum();
    let (mut torecv, mut tosend) = (total - counts[rank], total - counts[right]);
    let smallest = counts.iter().copied().min().unwrap_or(0);
    let piece = if smallest.saturating_mul(elem_bytes) < 32768 * 8 {
        (32768 * 8 / elem_bytes.max(1)).max(1)
    } else {
        smallest
    };
    let (mut sidx, mut ridx, mut soffset, mut roffset) = (rank, left, 0, 0);
    while tosend > 0 || torecv > 0 {
        let sendnow = if tosend > 0 {
            piece.min(counts[sidx] - soffset)
        } else {
            0
        };
        let recvnow = if torecv > 0 {
            piece.min(counts[ridx] - roffset)
        } else {
            0
        };
        let mut comm = Vec::with_capacity(2);
        if sendnow > 0 {
            comm.push(send(
                right,
                Buf::Recv.block(displs[sidx] + soffset, sendnow),
            ));
        }
        if recvnow > 0 {
            comm.push(recv(left, Buf::Recv.block(displs[ridx] + roffset, recvnow)));
        }
        b.round(comm, vec![]);
        tosend -= sendnow;
        torecv -= recvnow;
        soffset += sendnow;
        roffset += recvnow;
        if soffset == counts[sidx] {
            soffset = 0;
            sidx = (sidx + size - 1) % size;
        }
        if roffset == counts[ridx] {
            roffset = 0;
            ridx = (ridx + size - 1) % size;
        }
    }
}

/// The block a rank sends: its send buffer, or its own slot of the receive
/// buffer in place.
fn own_block(rank: usize, sendcount: usize, slots: Layout, in_place: bool) -> Block {
    if in_place {
        slots.block(Buf::Recv, rank)
    } else {
        Buf::Send.block(0, sendcount)
    }
}

/// SimGrid's `iallgather(v)`: for every other rank in increasing order,
/// post a send of our block then a receive of theirs; all at once. The own
/// block is copied locally (no self message).
fn allgatherv_linear(
    b: &mut Builder,
    rank: usize,
    size: usize,
    sendcount: usize,
    slots: Layout,
    in_place: bool,
) {
    let mine = own_block(rank, sendcount, slots, in_place);
    let mut comm = Vec::with_capacity(2 * (size - 1));
    for other in (0..size).filter(|&o| o != rank) {
        comm.push(send(other, mine));
        comm.push(recv(other, slots.block(Buf::Recv, other)));
    }
    b.round(comm, vec![]);
    if !in_place {
        b.copy(mine, slots.block(Buf::Recv, rank));
    }
}

/// SimGrid's `allgather__ring`: step i = 1..p-1 is a sendrecv that sends our
/// block to rank+i and receives rank-i's block.
fn allgatherv_ring(
    b: &mut Builder,
    rank: usize,
    size: usize,
    sendcount: usize,
    slots: Layout,
    in_place: bool,
) {
    let mine = own_block(rank, sendcount, slots, in_place);
    if !in_place {
        // SimGrid does the self "sendrecv" (a copy) first.
        b.copy(mine, slots.block(Buf::Recv, rank));
    }
    for i in 1..size {
        let src = (rank + size - i) % size;
        let dst = (rank + i) % size;
        b.round(
            vec![send(dst, mine), recv(src, slots.block(Buf::Recv, src))],
            vec![],
        );
    }
}
