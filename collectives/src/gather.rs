//! `MPI_Gather(v)` and `MPI_Scatter(v)`: linear exchanges with the root,
//! posted all at once (SimGrid's `igather` / `iscatter` and friends).
//!
//! Counts are per side: `sendcount` in send-datatype elements, `recvcount`
//! in receive-datatype elements (see the [`crate::schedule`] docs). Root
//! arguments (`recvcounts`/`displs` of gatherv, `sendcounts`/`displs` of
//! scatterv, `recvcount` of gather, `sendcount` of scatter) are only read
//! at the root, so other ranks may pass anything (empty slices for arrays).
//! `in_place` is only meaningful at the root, as in MPI, and ignored
//! elsewhere.

use crate::error::{check_blocks, check_len, check_rooted, mul, CollError};
use crate::params::{Blocks, GathervBlocks, RootedPosition, ScattervBlocks, Tuning};
use crate::registry::{GatherAlgorithm, GathervAlgorithm, ScatterAlgorithm, ScattervAlgorithm};
use crate::schedule::{recv, send, Block, Buf, Builder, Layout, Local, Schedule};
use crate::tree::segment_count;

/// `MPI_Gather`: rank `i`'s `Send[0..sendcount]` lands in the root's
/// `Recv[i*recvcount..(i+1)*recvcount]`.
///
/// In place (root only): the root's block is already at
/// `Recv[root*recvcount..]` and its send buffer is not read.
pub fn gather(at: RootedPosition, blocks: Blocks) -> Result<Schedule, CollError> {
    gather_with(GatherAlgorithm::Default, at, blocks, Tuning::default())
}

/// `MPI_Gather` with a chosen algorithm; see [`gather`]. It reads
/// `tuning.elem_bytes`, the size of one element of the rank's own side
/// (the receive type at the root, the send type elsewhere):
/// `ompi_linear_sync` cuts its first segment in bytes.
pub fn gather_with(
    alg: GatherAlgorithm,
    at: RootedPosition,
    blocks: Blocks,
    tuning: Tuning,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let RootedPosition { rank, size, root } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    if rank == root {
        mul(size, recvcount, "gather")?;
    }
    let mut b = Builder::new();
    match alg {
        GatherAlgorithm::Default => gatherv_into(
            &mut b,
            at,
            Buf::Send.block(0, sendcount),
            Layout::Uniform(recvcount),
            in_place,
        ),
        GatherAlgorithm::OmpiBinomial => gather_binomial(&mut b, at, blocks),
        GatherAlgorithm::OmpiLinearSync => {
            gather_linear_sync(&mut b, at, blocks, tuning.elem_bytes)
        }
        GatherAlgorithm::OmpiBasicLinear => {
            // Open MPI's basic linear gather: the root receives from rank
            // 0, 1, ... one blocking receive after the other.
            let own = Buf::Send.block(0, sendcount);
            if rank != root {
                b.round(vec![send(root, own)], vec![]);
            } else {
                for i in 0..size {
                    let slot = Buf::Recv.block(i * recvcount, recvcount);
                    if i != root {
                        b.round(vec![recv(i, slot)], vec![]);
                    } else if !in_place {
                        b.copy(own, slot);
                    }
                }
            }
        }
    }
    Ok(b.finish())
}

/// Open MPI's synchronised linear gather (SimGrid's `ompi_linear_sync`):
/// for each other rank in turn, the root posts the receive of its first
/// segment (1 KiB, or 32 KiB for blocks above 90 KiB), sends it an empty
/// message, posts the receive of the rest and waits for the first segment
/// only; the rests are waited for at the end. A non-root waits for the
/// empty message, then sends its two parts one after the other. Each side
/// cuts its block in its own elements (`elem_bytes` each).
fn gather_linear_sync(b: &mut Builder, at: RootedPosition, blocks: Blocks, elem_bytes: usize) {
    let RootedPosition { rank, size, root } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    let count = if rank == root { recvcount } else { sendcount };
    let segsize = if count.saturating_mul(elem_bytes) > 92160 {
        32768
    } else {
        1024
    };
    let first = segment_count(segsize, elem_bytes, count);
    let parts = |block: Block| (block.sub(0, first), block.sub(first, count - first));
    if rank != root {
        let (head, rest) = parts(Buf::Send.block(0, count));
        b.round(vec![recv(root, Buf::Send.block(0, 0))], vec![]);
        b.round(vec![send(root, head)], vec![]);
        b.round(vec![send(root, rest)], vec![]);
        return;
    }
    let others: Vec<usize> = (0..size).filter(|&i| i != root).collect();
    for (j, &i) in others.iter().enumerate() {
        let (head, rest) = parts(Buf::Recv.block(i * count, count));
        // The rest is due in the last round, after every rank's turn.
        b.round_deferring(
            vec![recv(i, head), send(i, Buf::Recv.block(0, 0))],
            vec![],
            vec![(recv(i, rest), others.len() - j)],
        );
    }
    let own = Buf::Recv.block(root * count, count);
    let local = if in_place {
        vec![]
    } else {
        vec![Local::Copy {
            from: Buf::Send.block(0, sendcount),
            to: own,
        }]
    };
    b.round_deferring(vec![], local, vec![]);
}

/// Open MPI's binomial gather (SimGrid's `ompi_binomial`), on the in-order
/// binomial tree: relative rank v receives, one child after the other,
/// the blocks of v + 2^k .. v + 2^(k+1) from child v + 2^k for each k
/// with bit k of v clear, behind its own block in scratch, then sends all
/// it holds to its parent; odd ranks send their block straight away. The
/// root gathers in relative order, in scratch unless it is rank 0, and
/// rotates the blocks into place. Non-roots count in send elements (a
/// block is `sendcount` of them), the root in receive elements.
fn gather_binomial(b: &mut Builder, at: RootedPosition, blocks: Blocks) {
    let RootedPosition { rank, size, root } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    let v = (rank + size - root) % size;
    let unit = if rank == root { recvcount } else { sendcount };
    let parent = (v != 0).then(|| ((v & (v - 1)) + root) % size);
    let own = Buf::Send.block(0, sendcount);
    if v % 2 == 1 {
        if let Some(p) = parent {
            b.round(vec![send(p, own)], vec![]);
        }
        return;
    }
    // Where the blocks gather, in relative order from our own.
    let hold = if rank == root && root == 0 {
        Buf::Recv
    } else {
        let width = if v == 0 {
            size
        } else {
            (v & v.wrapping_neg()).min(size - v)
        };
        b.tmp(width * unit)
    };
    if rank == root && in_place {
        b.copy(
            Buf::Recv.block(rank * recvcount, recvcount),
            hold.block(0, unit),
        );
    } else {
        b.copy(own, hold.block(0, unit));
    }
    let mut mask = 1;
    while mask < size && v & mask == 0 {
        let kid = v + mask;
        if kid < size {
            let n = mask.min(size - kid) * unit;
            b.round(
                vec![recv((kid + root) % size, hold.block(mask * unit, n))],
                vec![],
            );
        }
        mask <<= 1;
    }
    match parent {
        Some(p) => {
            let held = mask.min(size - v) * unit;
            b.round(vec![send(p, hold.block(0, held))], vec![]);
        }
        None if root != 0 => {
            let tail = size - root;
            b.copy(
                hold.block(0, tail * unit),
                Buf::Recv.block(root * unit, tail * unit),
            );
            b.copy(
                hold.block(tail * unit, root * unit),
                Buf::Recv.block(0, root * unit),
            );
        }
        None => {}
    }
}

/// `MPI_Gatherv`: rank `i`'s `Send[0..sendcount]` lands in the root's
/// `Recv[displs[i]..displs[i]+recvcounts[i]]`.
///
/// `recvcounts` and `displs` need one entry per rank at the root only. In
/// place (root only): the root's block is already in place.
pub fn gatherv(at: RootedPosition, blocks: GathervBlocks) -> Result<Schedule, CollError> {
    gatherv_with(GathervAlgorithm::Default, at, blocks)
}

/// `MPI_Gatherv` with a chosen algorithm; see [`gatherv`].
pub fn gatherv_with(
    alg: GathervAlgorithm,
    at: RootedPosition,
    blocks: GathervBlocks,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let GathervBlocks {
        sendcount,
        recvcounts,
        displs,
        in_place,
    } = blocks;
    if at.rank == at.root {
        check_len("recvcounts", recvcounts, at.size)?;
        check_len("displs", displs, at.size)?;
        check_blocks(recvcounts, displs, "gatherv")?;
    }
    let mut b = Builder::new();
    match alg {
        GathervAlgorithm::Default => gatherv_into(
            &mut b,
            at,
            Buf::Send.block(0, sendcount),
            Layout::PerRank {
                counts: recvcounts,
                displs,
            },
            in_place,
        ),
    }
    Ok(b.finish())
}

/// `MPI_Scatter`: the root's `Send[i*sendcount..(i+1)*sendcount]` lands in
/// rank `i`'s `Recv[0..recvcount]`.
///
/// In place (root only): the root's own block stays in its send buffer and
/// its receive buffer is not written.
pub fn scatter(at: RootedPosition, blocks: Blocks) -> Result<Schedule, CollError> {
    scatter_with(ScatterAlgorithm::Default, at, blocks)
}

/// `MPI_Scatter` with a chosen algorithm; see [`scatter`].
pub fn scatter_with(
    alg: ScatterAlgorithm,
    at: RootedPosition,
    blocks: Blocks,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let RootedPosition { rank, size, root } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    if rank == root {
        mul(size, sendcount, "scatter")?;
    }
    let mut b = Builder::new();
    match alg {
        ScatterAlgorithm::Default => scatterv_into(
            &mut b,
            at,
            Buf::Send,
            Layout::Uniform(sendcount),
            Buf::Recv.block(0, recvcount),
            in_place,
        ),
        ScatterAlgorithm::OmpiBinomial => scatter_binomial(&mut b, at, blocks),
        ScatterAlgorithm::OmpiBasicLinear => {
            // Open MPI's basic linear scatter: the root sends to rank 0, 1,
            // ... one blocking send after the other.
            let mine = Buf::Recv.block(0, recvcount);
            if rank != root {
                b.round(vec![recv(root, mine)], vec![]);
            } else {
                for i in 0..size {
                    let slot = Buf::Send.block(i * sendcount, sendcount);
                    if i != root {
                        b.round(vec![send(i, slot)], vec![]);
                    } else if !in_place {
                        b.copy(slot, mine);
                    }
                }
            }
        }
    }
    Ok(b.finish())
}

/// Open MPI's binomial scatter (SimGrid's `ompi_binomial`), the gather's
/// mirror: relative rank v receives its subtree's blocks from its parent
/// (odd ranks just their own), keeps the first, and sends child v + 2^k
/// the blocks v + 2^k .. v + 2^(k+1), children in increasing k. A root
/// other than rank 0 first rotates the send buffer into scratch so that
/// blocks are in relative order.
fn scatter_binomial(b: &mut Builder, at: RootedPosition, blocks: Blocks) {
    let RootedPosition { rank, size, root } = at;
    let Blocks {
        sendcount,
        recvcount,
        in_place,
    } = blocks;
    let v = (rank + size - root) % size;
    let mine = Buf::Recv.block(0, recvcount);
    let parent = (v != 0).then(|| ((v & (v - 1)) + root) % size);
    if v % 2 == 1 {
        if let Some(p) = parent {
            b.round(vec![recv(p, mine)], vec![]);
        }
        return;
    }
    // Where the blocks are, in relative order, and the size of a block.
    let (hold, unit) = match parent {
        None if root == 0 => (Buf::Send, sendcount),
        None => {
            // In place the root has no receive count, and the receive
            // type is the send type.
            let unit = if in_place { sendcount } else { recvcount };
            let t = b.tmp(size * unit);
            let tail = size - root;
            b.copy(
                Buf::Send.block(root * sendcount, tail * sendcount),
                t.block(0, tail * unit),
            );
            b.copy(
                Buf::Send.block(0, root * sendcount),
                t.block(tail * unit, root * unit),
            );
            (t, unit)
        }
        Some(p) => {
            let width = (v & v.wrapping_neg()).min(size - v);
            let t = b.tmp(width * recvcount);
            b.round(vec![recv(p, t.block(0, width * recvcount))], vec![]);
            (t, recvcount)
        }
    };
    if !(rank == root && in_place) {
        b.copy(hold.block(0, unit), mine);
    }
    let mut mask = 1;
    while mask < size && v & mask == 0 {
        let kid = v + mask;
        if kid < size {
            let n = mask.min(size - kid) * unit;
            b.round(
                vec![send((kid + root) % size, hold.block(mask * unit, n))],
                vec![],
            );
        }
        mask <<= 1;
    }
}

/// `MPI_Scatterv`: the root's `Send[displs[i]..displs[i]+sendcounts[i]]`
/// lands in rank `i`'s `Recv[0..recvcount]`.
///
/// `sendcounts` and `displs` need one entry per rank at the root only. In
/// place (root only): the root's own block stays where it is.
pub fn scatterv(at: RootedPosition, blocks: ScattervBlocks) -> Result<Schedule, CollError> {
    scatterv_with(ScattervAlgorithm::Default, at, blocks)
}

/// `MPI_Scatterv` with a chosen algorithm; see [`scatterv`].
pub fn scatterv_with(
    alg: ScattervAlgorithm,
    at: RootedPosition,
    blocks: ScattervBlocks,
) -> Result<Schedule, CollError> {
    check_rooted(at)?;
    let ScattervBlocks {
        sendcounts,
        displs,
        recvcount,
        in_place,
    } = blocks;
    if at.rank == at.root {
        check_len("sendcounts", sendcounts, at.size)?;
        check_len("displs", displs, at.size)?;
        check_blocks(sendcounts, displs, "scatterv")?;
    }
    let mut b = Builder::new();
    match alg {
        ScattervAlgorithm::Default => scatterv_into(
            &mut b,
            at,
            Buf::Send,
            Layout::PerRank {
                counts: sendcounts,
                displs,
            },
            Buf::Recv.block(0, recvcount),
            in_place,
        ),
    }
    Ok(b.finish())
}

/// Linear gatherv: non-roots send `mine`; the root receives block `i` of
/// `Recv` as laid out by `slots` from every other rank, all posted at once
/// in increasing rank order, and copies its own block unless in place.
/// `slots` is only read at the root.
pub(crate) fn gatherv_into(
    b: &mut Builder,
    at: RootedPosition,
    mine: Block,
    slots: Layout,
    in_place: bool,
) {
    let RootedPosition { rank, size, root } = at;
    if rank != root {
        b.round(vec![send(root, mine)], vec![]);
        return;
    }
    let comm = (0..size)
        .filter(|&src| src != root)
        .map(|src| recv(src, slots.block(Buf::Recv, src)))
        .collect();
    let local = if in_place {
        vec![]
    } else {
        vec![Local::Copy {
            from: mine,
            to: slots.block(Buf::Recv, root),
        }]
    };
    b.round(comm, local);
}

/// Linear scatterv: the root sends block `i` of `src` as laid out by
/// `slots` to every other rank, all posted at once in increasing rank
/// order, and copies its own block into `dest` unless in place; the others
/// receive into `dest`. `slots` is only read at the root.
pub(crate) fn scatterv_into(
    b: &mut Builder,
    at: RootedPosition,
    src: Buf,
    slots: Layout,
    dest: Block,
    in_place: bool,
) {
    let RootedPosition { rank, size, root } = at;
    if rank != root {
        b.round(vec![recv(root, dest)], vec![]);
        return;
    }
    let comm = (0..size)
        .filter(|&dst| dst != root)
        .map(|dst| send(dst, slots.block(src, dst)))
        .collect();
    let local = if in_place {
        vec![]
    } else {
        vec![Local::Copy {
            from: slots.block(src, root),
            to: dest,
        }]
    };
    b.round(comm, local);
}
