//! `MPI_Bcast`.

use crate::error::{check_rooted, CollError};
use crate::registry::BcastAlgorithm;
use crate::schedule::{recv, send, Block, Buf, Builder, Schedule};

/// `MPI_Bcast` of `count` elements with SimGrid's default algorithm
/// (`binomial_tree`). The broadcast buffer is `Buf::Recv` at every rank,
/// the root included.
pub fn bcast(rank: usize, size: usize, root: usize, count: usize) -> Result<Schedule, CollError> {
    bcast_with(BcastAlgorithm::Default, rank, size, root, count)
}

/// `MPI_Bcast` with a chosen algorithm; see [`bcast`].
pub fn bcast_with(
    alg: BcastAlgorithm,
    rank: usize,
    size: usize,
    root: usize,
    count: usize,
) -> Result<Schedule, CollError> {
    check_rooted(rank, size, root)?;
    let mut b = Builder::new();
    match alg {
        BcastAlgorithm::Default | BcastAlgorithm::BinomialTree => {
            bcast_binomial_into(&mut b, rank, size, root, Buf::Recv.block(0, count))
        }
        BcastAlgorithm::Flattree => {
            let data = Buf::Recv.block(0, count);
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
            bcast_scatter_ring_allgather(&mut b, rank, size, root, count)
        }
    }
    Ok(b.finish())
}

/// SimGrid's `scatter_LR_allgather` (MPICH's long-message bcast): a
/// binomial scatter of `size` slices of ceil(count / size) units, then a
/// ring allgather of the slices (p - 1 sendrecvs with the neighbours, empty
/// slices included). SimGrid counts units in bytes; the engine passes the
/// byte count for contiguous datatypes.
fn bcast_scatter_ring_allgather(
    b: &mut Builder,
    rank: usize,
    size: usize,
    root: usize,
    count: usize,
) {
    let slice = count.div_ceil(size);
    let rel = (rank + size - root) % size;
    // The units held by relative rank r's subtree of width w.
    let subtree = |r: usize, w: usize| {
        let start = (r * slice).min(count);
        let end = ((r + w).min(size) * slice).min(count);
        (start, end - start)
    };
    // Scatter: receive our subtree's units from the parent.
    let mut mask = 1;
    while mask < size {
        if rel & mask != 0 {
            let (start, n) = subtree(rel, mask);
            if n > 0 {
                let parent = (rank + size - mask) % size;
                b.round(vec![recv(parent, Buf::Recv.block(start, n))], vec![]);
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if rel + mask < size {
            let (start, n) = subtree(rel + mask, mask);
            if n > 0 {
                let child = (rank + mask) % size;
                b.round(vec![send(child, Buf::Recv.block(start, n))], vec![]);
            }
        }
        mask >>= 1;
    }
    // Ring allgather of the slices, by relative rank.
    let slice_of = |r: usize| {
        let (start, n) = subtree((r + size - root) % size, 1);
        Buf::Recv.block(start, n)
    };
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
